#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "deadline" (noautogroup): SCHED_DEADLINE for unprivileged users,
# hard and elastic. The C tests (dl_user, dl_elastic), then the same
# capability through the tools users have: util-linux chrt and our dlrun
# and vplay, run as user1 under setpriv; rt-tests cyclicdeadline.
. /suites/lib.sh

run dl_user
run dl_elastic

SETPRIV="/usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups"
CHRT=/usr/bin/chrt
n=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}
# A task's charge ends with its bandwidth, by the end of its period
# after it exits: wait up to 1 s for the users file to empty.
users_empty() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -z "$(cat /proc/sched_deadline_users)" ] && return 0
		sleep 0.1
	done
	return 1
}

echo "TAP version 13"
echo "1..11"
# 10 ms every 100 ms as user1; chrt -p reads it back from inside.
out=$($SETPRIV $CHRT -d -T 10000000 -P 100000000 -D 100000000 0 \
	$CHRT -p 0 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q "SCHED_DEADLINE"; check $? chrt.user_gets_deadline
users_empty
out=$($SETPRIV $CHRT -d -T 10000000 -P 100000000 -D 100000000 0 \
	cat /proc/sched_deadline_users 2>&1)
echo "$out" | sed 's/^/# /'
[ "$out" = "1000 10.00 30.00" ]; check $? chrt.users_line
# 40% is over the default cap of 30%: chrt reports EBUSY.
out=$($SETPRIV $CHRT -d -T 40000000 -P 100000000 -D 100000000 0 true 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
[ $rc != 0 ] && echo "$out" | grep -q "Device or resource busy"; check $? chrt.over_cap_ebusy
users_empty; check $? users.nothing_left

# dlrun: the same refusal, with what to do about it; elastic, not refused.
out=$($SETPRIV /usr/local/bin/dlrun -r 40ms -p 100ms true 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
[ $rc = 1 ] && echo "$out" | grep -q "Device or resource busy: not enough bandwidth left.*--elastic"
check $? dlrun.over_cap_explains
out=$($SETPRIV /usr/local/bin/dlrun --elastic -v -r 40ms -p 100ms $CHRT -p 0 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
[ $rc = 0 ] && echo "$out" | grep -q "granted runtime 30.000 ms of 40.000 ms asked (75.0%)" &&
	echo "$out" | grep -q "SCHED_DEADLINE" &&
	echo "$out" | grep -q "40000000/100000000/100000000"
check $? dlrun.elastic_scaled_seen_by_chrt
users_empty; check $? users.nothing_left_elastic

# The video player as user1, beside ten hogs on the one CPU of a cpuset
# partition (a deadline task may not be pinned inside a larger root
# domain): with 100 ms frames and twice the work as budget it misses none.
cg=/sys/fs/cgroup
echo +cpuset > $cg/cgroup.subtree_control
mkdir $cg/dl-cpu0 && echo 0 > $cg/dl-cpu0/cpuset.cpus &&
	echo root > $cg/dl-cpu0/cpuset.cpus.partition
out=$(sh -c "echo \$\$ > $cg/dl-cpu0/cgroup.procs
	spin -n 10 --seconds 6 & sleep 1
	$SETPRIV /usr/local/bin/vplay --fps 10 --work-ms 10 --runtime-ms 20 \
		--policy deadline --seconds 3 --quiet
	wait" 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q "^vplay: total frames 30 on_time 30 late 0 dropped 0 "
check $? vplay.beside_hogs_misses_none
# Two elastic players of 25% each as user1, cap 30%: both scaled to 15%,
# the measured one does 60% of its work a frame and misses nothing.
out=$(sh -c "echo \$\$ > $cg/dl-cpu0/cgroup.procs
	spin -n 10 --seconds 7 & sleep 1
	$SETPRIV /usr/local/bin/vplay --fps 10 --work-ms 20 --elastic --seconds 5 --quiet >/dev/null &
	sleep 0.5
	$SETPRIV /usr/local/bin/vplay --fps 10 --work-ms 20 --elastic --seconds 3 --quiet
	wait" 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q "^vplay: total frames 30 on_time 30 late 0 dropped 0 .* degraded 30 quality 0.60$"
check $? vplay.elastic_within_grant_misses_none
rmdir $cg/dl-cpu0
echo -cpuset > $cg/cgroup.subtree_control

# rt-tests cyclicdeadline as user1, idle and beside ten hogs. It asks for
# 60% (runtime 60 ms of a 100 ms deadline), so the caps are raised to 70%
# for it, and it mlockall()s, so RLIMIT_MEMLOCK is lifted before dropping
# privileges. A job is on time when its start latency plus 60 ms stays
# within the 100 ms deadline: Max under 40000 us.
cyclic() {
	out=$( (ulimit -l unlimited
		timeout 30 $SETPRIV /usr/bin/cyclicdeadline -t 1 -i 100000 -s 0 \
			-D 3 -q) 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	max=$(echo "$out" | sed -n 's/^T: 0 .* C: *\([0-9]*\) .* Max: *\([0-9]*\).*/\1 \2/p')
	[ $rc = 0 ] && [ -n "$max" ] && [ "${max% *}" -ge 25 ] && [ "${max#* }" -lt 40000 ]
}
user_pct=$(cat /proc/sys/kernel/sched_deadline_user_bw_pct)
unpriv_pct=$(cat /proc/sys/kernel/sched_deadline_unpriv_bw_pct)
echo 70 > /proc/sys/kernel/sched_deadline_user_bw_pct
echo 70 > /proc/sys/kernel/sched_deadline_unpriv_bw_pct
cyclic; check $? cyclicdeadline.user_idle
spin -n 10 --seconds 8 &
hogs=$!
cyclic; check $? cyclicdeadline.user_beside_hogs
kill $hogs; wait $hogs
echo $user_pct > /proc/sys/kernel/sched_deadline_user_bw_pct
echo $unpriv_pct > /proc/sys/kernel/sched_deadline_unpriv_bw_pct
exit $fail
