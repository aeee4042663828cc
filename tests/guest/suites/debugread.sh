#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "debugread": debugfs sched/debug read in a loop on CPU 0 while, on
# CPU 1, stress-ng --yield (nice 0 to 15 in four cgroups of cpu.weight 1
# to 10000, and SCHED_IDLE in the root group) and hackbench keep the fair
# class enqueueing and dequeueing. Every test of this bench reads
# sched/debug (total_bw, tty groups); on 6.12.118 that read called
# avg_vruntime(), which now updates the cfs_rq, without the rq lock, and
# lost updates of the sums left no entity eligible: a NULL dereference in
# pick_task_fair() (patch 14, upstream e08d007f9d81). Without patch 14
# this boot crashed 13 s and 49 s into the test in two runs of two.
# The kernel must survive and log no splat (run-qemu checks the log), the
# peer tools must finish cleanly and both readers must have read.
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
	       exec taskset -c 1 stress-ng --quiet --yield 2 --timeout ${seconds}s" &
	pids="$pids $!"
done
taskset -c 1 stress-ng --quiet --yield 2 --sched idle --timeout ${seconds}s &
pids="$pids $!"
sh -c "echo \$\$ > $CG/dr2/cgroup.procs;
       end=\$((\$(cut -d. -f1 /proc/uptime) + $seconds));
       while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	       taskset -c 1 hackbench -g 2 -l 50 >/dev/null || exit 1
       done" &
hb=$!

# Two readers, one a CPU; each leaves its count in a file.
readers=""
end=$(($(cut -d. -f1 /proc/uptime) + seconds))
for r in 1 2; do
	taskset -c 0 sh -c "n=0
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
# A reader that never read proves nothing; how often each one reads
# depends on the host's load, so only "at all" is asserted.
if [ "$(cat /tmp/debugread.1 2>/dev/null || echo 0)" -gt 0 ] &&
   [ "$(cat /tmp/debugread.2 2>/dev/null || echo 0)" -gt 0 ]; then
	echo "ok 3 debugread.reads # $reads reads of $DEBUG in ${seconds} s"
else
	echo "not ok 3 debugread.reads # a reader never read ($reads reads in all)"
	fail=1
fi
exit $fail
