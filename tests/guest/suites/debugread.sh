#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "debugread": debugfs sched/debug read in a loop, from both CPUs,
# while stress-ng --yield and hackbench keep the fair class busy in four
# cgroups of different weights. Every test of this bench reads sched/debug
# (total_bw, tty groups); on 6.12.118 that read called avg_vruntime(),
# which now updates the cfs_rq, without the rq lock (patch 14, upstream
# e08d007f9d81). This is a stress of that path with peer tools, not a
# reproducer: the race is narrow and this boot did not crash in 60 s on a
# kernel without patch 14. The kernel must survive and log no splat
# (run-qemu checks the log), the peer tools must finish cleanly and the
# readers must keep reading.
#
# debugread.seconds=S on the kernel command line sets the duration (30).
seconds=30
for w in $(cat /proc/cmdline); do
	case $w in debugread.seconds=*) seconds=${w#debugread.seconds=} ;; esac
done
DEBUG=/sys/kernel/debug/sched/debug
CG=/sys/fs/cgroup
echo "TAP version 13"
echo "1..3"

if ! [ -r $DEBUG ]; then
	echo "not ok 1 debugread.readable # $DEBUG missing"
	exit 1
fi
echo "ok 1 debugread.readable"

# Four groups of yielders and message passers at different weights: more
# cfs_rqs for each read to walk, reweights on every enqueue.
grep -qw cpu $CG/cgroup.subtree_control || echo +cpu > $CG/cgroup.subtree_control
pids=""
n=0
for weight in 1 100 1000 10000; do
	n=$((n + 1))
	mkdir -p $CG/dr$n
	echo $weight > $CG/dr$n/cpu.weight
	sh -c "echo \$\$ > $CG/dr$n/cgroup.procs;
	       renice -n $((n * 5 - 5)) \$\$ >/dev/null;
	       exec stress-ng --quiet --yield 2 --timeout ${seconds}s" &
	pids="$pids $!"
done
sh -c "echo \$\$ > $CG/dr2/cgroup.procs;
       end=\$((\$(cut -d. -f1 /proc/uptime) + $seconds));
       while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	       hackbench -g 2 -l 50 >/dev/null || exit 1
       done" &
hb=$!

# Two readers, one a CPU; each leaves its count in a file.
end=$(($(cut -d. -f1 /proc/uptime) + seconds))
for r in 1 2; do
	sh -c "n=0
	       while [ \$(cut -d. -f1 /proc/uptime) -lt $end ]; do
		       cat $DEBUG > /dev/null || break
		       n=\$((n + 1))
	       done
	       echo \$n > /tmp/debugread.$r" &
	readers="$readers $!"
done
wait $readers
reads=$(($(cat /tmp/debugread.1 2>/dev/null || echo 0) + $(cat /tmp/debugread.2 2>/dev/null || echo 0)))

fail=0
for p in $pids; do
	wait "$p" || fail=1
done
wait $hb || fail=1
for i in 1 2 3 4; do rmdir $CG/dr$i 2>/dev/null || fail=1; done
if [ $fail = 0 ]; then
	echo "ok 2 debugread.peers_finish"
else
	echo "not ok 2 debugread.peers_finish # stress-ng or hackbench failed, or a group stayed"
fi
# A reader that stopped early (or never ran) proves nothing.
if [ $reads -ge $seconds ]; then
	echo "ok 3 debugread.reads # $reads reads of $DEBUG in ${seconds} s"
else
	echo "not ok 3 debugread.reads # only $reads reads in ${seconds} s"
	fail=1
fi
exit $fail
