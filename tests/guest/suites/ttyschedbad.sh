#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "ttyschedbad" (ttysched=7 noautogroup): an invalid boot value is
# ignored with a kernel message, the default 1 stays in force.
#
# Each binary prints its own KTAP. After each one the suite puts back what
# a test killed by its timeout (which skips the fixture teardown) may have
# left: the sysctl's boot value and the test cgroup.
. /suites/lib.sh

run ttygroup_sysctl -t boot_value -t boot_value_applies
exit $fail
