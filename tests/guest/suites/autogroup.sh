#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "autogroup" (autogroup enabled): terminal tasks run in their tty
# group, tty-less ones in their autogroup, and with the sysctl off the
# terminal's tasks fall back to their autogroup. The transition tests run
# again here, with autogroups as the fallback.
#
# Each binary prints its own KTAP. After each one the suite puts back what
# a test killed by its timeout (which skips the fixture teardown) may have
# left: the sysctl's boot value and the test cgroup.
. /suites/lib.sh

run ttygroup_autogroup
run ttygroup_sysctl -t boot_value -t runtime_flip_moves -t cgroup_task_nests
run ttygroup_proc -t no_ctty_session
run ttygroup_transitions
exit $fail
