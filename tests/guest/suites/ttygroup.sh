#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Main desksched guest suite, booted with noautogroup: sysctl, /proc and
# debugfs interface, tty transitions, CPU shares, churn, and tasks forked
# inside cpu cgroups staying there (weight, cpu.max).
#
# Each binary prints its own KTAP. After each one the suite puts back what
# a test killed by its timeout (which skips the fixture teardown) may have
# left: the sysctl's boot value and the test cgroup.
. /suites/lib.sh

run ttygroup_sysctl
run ttygroup_proc
run ttygroup_transitions
run ttygroup_share
run ttygroup_cgroup
run ttygroup_churn
exit $fail
