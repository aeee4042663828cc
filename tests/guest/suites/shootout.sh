#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "shootout" (make bench, noautogroup): the video player of the 2010
# debate, user1, 20 fps needing 10 ms of CPU a frame (20%), beside ten CPU
# hogs on CPU 0, under every option a desktop has (a self-tuned reservation
# that only knows its period among them), in one table. Then the
# cost of an elastic admission with 1, 10 and 100 elastic reservations.
#
# CPU 0 is a cpuset partition (a deadline task may not be pinned inside a
# larger root domain); the hogs and the players are in two child cgroups
# without controllers, only to read the hogs' CPU time from cpu.stat.
seconds=${SHOOTOUT_SECONDS:-5}
cg=/sys/fs/cgroup
part=$cg/shootout
tty=/proc/sys/kernel/sched_tty_sched_enabled
autogroup=/proc/sys/kernel/sched_autogroup_enabled
SETPRIV="/usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups"
PLAY="vplay --fps 20 --work-ms 10 --seconds $seconds --quiet"

echo +cpuset > $cg/cgroup.subtree_control &&
	mkdir $part && echo 0 > $part/cpuset.cpus &&
	echo root > $part/cpuset.cpus.partition &&
	[ "$(cat $part/cpuset.cpus.partition)" = root ] &&
	mkdir $part/hogs $part/players ||
	{ echo "shootout: cannot make a cpuset partition of CPU 0"; exit 1; }

usage_us() {
	sed -n 's/^usage_usec //p' $part/hogs/cpu.stat
}

uptime_cs() {
	# centiseconds since boot, from /proc/uptime's "S.CC"
	sed 's/^\([0-9]*\)\.\([0-9]*\) .*/\1\2/' /proc/uptime
}

# row LABEL HOGS_PREFIX PLAYER_PREFIX [VPLAY ARGS...]: ten hogs and one
# player, each started through its prefix (setsid, ptyrun or nothing).
row() {
	label=$1 hogs=$2 player=$3
	shift 3
	sh -c "echo \$\$ > $part/hogs/cgroup.procs
		exec $hogs spin -n 10 --seconds $((seconds + 2))" </dev/null >/dev/null &
	hog_pid=$!
	sleep 1
	u0=$(usage_us) t0=$(uptime_cs)
	out=$(sh -c "echo \$\$ > $part/players/cgroup.procs
		exec $player $SETPRIV $PLAY $*" </dev/null 2>&1 | tr -d '\r')
	u1=$(usage_us) t1=$(uptime_cs)
	wait $hog_pid
	line=$(echo "$out" | grep '^vplay: total ')
	if [ -z "$line" ]; then
		echo "shootout: $label: no vplay summary:"
		echo "$out" | sed 's/^/  /'
		bad=1
		return
	fi
	echo "$line" | awk -v l="$label" -v u=$((u1 - u0)) -v t=$((t1 - t0)) '{
		for (i = 1; i < NF; i++) v[$i] = $(i + 1)
		printf "%-34s %7s %5s %7s %7s %7s %7s %7s %9.3f\n", l,
		       v["on_time"], v["late"], v["dropped"], v["p50"], v["p99"],
		       v["max"], v["quality"], u / (t * 10000) }'
}

bad=0
echo "shootout: user1's video, 20 fps x 10 ms (20% of CPU 0), beside ten hogs on CPU 0, ${seconds}s a row"
printf '%-34s %7s %5s %7s %7s %7s %7s %7s %9s\n' policy on_time late dropped \
	p50_ms p99_ms max_ms quality hog_share
echo 0 > $tty
echo 0 > $autogroup
row "SCHED_OTHER" "" ""
echo 1 > $autogroup
row "SCHED_OTHER, autogroup" "/usr/bin/setsid" "/usr/bin/setsid"
echo 0 > $autogroup
echo 1 > $tty
row "SCHED_OTHER, per-tty groups" "ptyrun --" "ptyrun --"
echo 0 > $tty
row "SCHED_OTHER, 0.1 ms EEVDF slice" "" "" --slice-ms 0.1
row "SCHED_DEADLINE 12.5/50 ms (hard)" "" "" --policy deadline
row "SCHED_DEADLINE self-tuned" "" "" --autotune
learned=$(echo "$out" | sed -n 's/^vplay: learned runtime_ms \([0-9.]*\).*/\1/p')
# Two more elastic players of user1 ask 10% each: 45% asked of its 30%.
for i in 1 2; do
	sh -c "echo \$\$ > $part/players/cgroup.procs
		exec $SETPRIV vplay --fps 20 --work-ms 4 --elastic --seconds $((seconds + 3)) --quiet" \
		</dev/null >/tmp/other.$i 2>&1 &
done
sleep 1
row "SCHED_DEADLINE elastic, 150% asked" "" "" --elastic
wait
for i in 1 2; do
	grep -q '^vplay: total ' /tmp/other.$i || { echo "shootout: other player $i:"; cat /tmp/other.$i; bad=1; }
done
echo 1 > $tty
echo "shootout: quality is the mean fraction of a frame's work done (elastic players do less when granted less);"
echo "shootout: hog_share is the hogs' CPU time over the wall time of the row (1.000 = all of CPU 0)"
echo "shootout: the self-tuned player asked for 50 ms (\"I do not know\") and ended with ${learned:-?} ms learned for 10 ms of work a frame"

rmdir $part/hogs $part/players $part
echo -cpuset > $cg/cgroup.subtree_control

echo "shootout: elastic admission cost: root's sched_setattr() changing an elastic request"
echo "shootout: (5% of 100 ms each; from 40 on they are scaled, so every call changes every grant)"
printf '%-14s %12s\n' reservations us_per_call
for n in 1 10 100; do
	rate=$(ovh --seconds 2 elastic$n | sed -n "s/^ovh elastic$n rate //p")
	[ -n "$rate" ] && [ "$rate" -gt 0 ] || { echo "shootout: ovh elastic$n failed"; bad=1; continue; }
	awk -v n=$n -v r=$rate 'BEGIN { printf "%-14d %12.1f\n", n, 1e6 / r }'
done
exit $bad
