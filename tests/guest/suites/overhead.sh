#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One cell of the overhead table (tests/host/bench-overhead): hackbench
# over pipes and sockets, and ovh's rates, run in a terminal of their own
# (ptyrun), so that with per-tty groups on they run in a tty group. The
# kernel command line says which configuration this is:
#   desksched.features=off  ttysched=0 and unprivileged deadline use off
#   desksched.features=on   both on (their defaults)
#   (nothing)               the stock kernel: the series is not applied
for w in $(cat /proc/cmdline); do
	case $w in desksched.features=*) features=${w#desksched.features=} ;; esac
done
if [ "$features" = off ]; then
	echo 0 > /proc/sys/kernel/sched_deadline_user_bw_pct || exit 1
fi
for mode in pipe socket; do
	flag=; [ $mode = pipe ] && flag=-p
	t=$(ptyrun -- hackbench $flag -g 4 -l 300 -s 100 2>&1 | sed -n 's/^Time: *//p')
	[ -n "$t" ] || { echo "overhead: hackbench $mode failed"; exit 1; }
	echo "ovh hackbench_$mode seconds $t"
done
ptyrun -- ovh --seconds 2 || exit 1
