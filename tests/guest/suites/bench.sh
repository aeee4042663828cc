#!/bin/sh
# CPU share of the single hog of terminal 0 against terminals of N hogs,
# all on CPU 0, with per-tty groups off and on. Booted with noautogroup.
. /suites/lib.sh
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

# What a group level costs a wakeup-heavy task, side by side in one boot:
# boots differ by tens of percent under TCG (the overhead table's noise
# column), rounds within one boot much less. ptyrun gives each run a new
# session, so it lands in a tty group, an autogroup or neither.
autogroup=/proc/sys/kernel/sched_autogroup_enabled
rates=/tmp/bench-groups
: > $rates
for round in 1 2 3 4 5; do
	for grouping in none tty autogroup; do
		echo 0 > $sysctl && echo 0 > $autogroup || exit 1
		[ $grouping = tty ] && echo 1 > $sysctl
		[ $grouping = autogroup ] && echo 1 > $autogroup
		ptyrun -- ovh --seconds 2 pipe setattr | sed "s/^ovh /$grouping /" >> $rates
	done
done
echo 1 > $sysctl
echo 0 > $autogroup
echo "bench: one group level, in one boot: ovh pipe (ping-pong on one CPU) and setattr (a SCHED_DEADLINE"
echo "bench: change) in a terminal of their own, per-tty groups vs autogroup vs neither; operations per second"
echo "bench: over each run's fastest batch of 100 (the code's cost, not TCG's speed of the moment), medians of 5 rounds"
printf '%-10s %12s %8s %12s %8s\n' grouping pipe_ops ratio setattr_ops ratio
pipe0=$(median_rate $rates "none pipe" 5 best) setattr0=$(median_rate $rates "none setattr" 5 best)
[ -n "$pipe0" ] && [ -n "$setattr0" ] || { echo "bench: ovh failed"; exit 1; }
for grouping in none tty autogroup; do
	p=$(median_rate $rates "$grouping pipe" 5 best) s=$(median_rate $rates "$grouping setattr" 5 best)
	[ -n "$p" ] && [ -n "$s" ] || { echo "bench: ovh failed under $grouping"; exit 1; }
	awk -v g=$grouping -v p=$p -v s=$s -v p0=$pipe0 -v s0=$setattr0 'BEGIN {
		printf "%-10s %12d %8.2f %12d %8.2f\n", g, p, p / p0, s, s / s0 }'
done
rm -f $rates
