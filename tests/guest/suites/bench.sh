#!/bin/sh
# CPU share of the single hog of terminal 0 against terminals of N hogs,
# all on CPU 0, with per-tty groups off and on. Booted with noautogroup.
sysctl=/proc/sys/kernel/sched_tty_sched_enabled
seconds=${BENCH_SECONDS:-3}

echo "bench: hog share, ${seconds}s per cell, all hogs on CPU 0"
printf '%-10s %-9s %-10s %8s %8s %8s\n' terminals hogs ttygroups share ideal ratio
for terms in 2 8; do
	for n in 1 10 50; do
		for on in 0 1; do
			echo $on > $sysctl || exit 1
			others=$((terms - 1))
			share=$(ttyshare --hogs 1,${n}x${others} --seconds $seconds --cpu 0 |
				sed -n 's/^first_hog_share //p')
			[ -n "$share" ] || { echo "bench: ttyshare failed"; exit 1; }
			if [ $on = 1 ]; then
				ideal="1 / $terms"
				state=on
			else
				ideal="1 / (1 + $others * $n)"
				state=off
			fi
			awk -v t=$terms -v n="1 vs $n" -v s=$state -v x=$share \
			    "BEGIN { i = $ideal; printf \"%-10d %-9s %-10s %8.4f %8.4f %8.2f\n\", t, n, s, x, i, x / i }"
		done
	done
done
echo 1 > $sysctl
