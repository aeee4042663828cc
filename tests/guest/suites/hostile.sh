#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "hostile" (noautogroup): what an ordinary user can do with
# unprivileged SCHED_DEADLINE to the CPU time of others and to the
# kernel. The tests that hung the kernel run last in dl_hostile; a hang
# fails this boot on its short timeout (desksched.timeout= in
# tests/host/boots).
. /suites/lib.sh

run dl_hostile
exit $fail
