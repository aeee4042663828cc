#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "ttysched0" (ttysched=0 noautogroup): the boot option turns the
# feature off: the sysctl reads 0, terminals are not grouped, writing 1
# groups them; the /proc file works regardless; tasks forked inside cpu
# cgroups stay there.
#
# Each binary prints its own KTAP. After each one the suite puts back what
# a test killed by its timeout (which skips the fixture teardown) may have
# left: the sysctl's boot value and the test cgroup.
. /suites/lib.sh

run ttygroup_sysctl -t boot_value -t boot_value_applies -t runtime_flip_moves
run ttygroup_proc -t read_format -t no_ctty_session
run ttygroup_share -t share_sysctl_off
run ttygroup_cgroup -v fork_off -v clone3_off
exit $fail
