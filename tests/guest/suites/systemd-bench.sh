#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's systemd rows: the windows of Debian's tmux in one login of
# user1 (one session scope), one hog in the first window against 1, 10
# and 50 in the second, all on CPU 0, per-tty groups off and on: the
# single hog's share of their CPU time, the ideal beside it.
SYSCTL=/proc/sys/kernel/sched_tty_sched_enabled
D=/tmp/ds
seconds=${BENCH_SECONDS:-3}
mkdir -p -m 1777 $D
. /suites/systemd-lib.sh
# A login for the whole run, so that user@1000.service stays up.
LIMIT=900 login keeper "exec sleep 900"
keeper=$last

echo "bench: tmux windows in one systemd login scope, hog share, ${seconds}s per cell, all hogs on CPU 0"
printf '%-10s %-9s %-10s %8s %8s %8s\n' windows hogs ttygroups share ideal ratio
for n in 1 10 50; do
	for on in 0 1; do
		echo $on > $SYSCTL || exit 1
		tmux_share $n
		spins $((n + 3)) || { echo "bench: the hogs did not all run"; exit 1; }
		stop_spins
		wait $tmux_login
		if [ $on = 1 ]; then ideal="1 / 2" state=on; else ideal="1 / (1 + $n)" state=off; fi
		awk -v n="1 vs $n" -v s=$state -v x="$share" \
		    "BEGIN { i = $ideal; printf \"%-10d %-9s %-10s %8.4f %8.4f %8.2f\n\", 2, n, s, x, i, x / i }"
	done
done
echo 1 > $SYSCTL
kill $keeper 2>/dev/null
pkill -u user1 -x sleep
wait
