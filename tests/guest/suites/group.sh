#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "group" (noautogroup): one reservation for a whole application,
# cpu.dl.reserve. The C tests (dl_group), then dlrun --app as user1 in a
# delegated cgroup, the way a systemd user manager delegates one: a
# three-thread vplay beside ten hogs in the same terminal, whose session
# cgroup weighs 100 times the player's.
. /suites/lib.sh
. /suites/delegate.sh

run dl_group

SETPRIV="/usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups"
cg=/sys/fs/cgroup
user=$cg/user1
n=0
check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}
# as_user SCRIPT: the shell script SCRIPT as user1, in the session cgroup.
as_user() {
	printf '%s\n' "$1" > /tmp/as_user.sh
	sh -c "echo \$\$ > $user/session/cgroup.procs; exec $SETPRIV sh /tmp/as_user.sh" 2>&1
}

delegate_user $user &&
	echo 10000 > $user/session/cpu.weight ||
	{ echo "group: cannot delegate $user"; exit 1; }

echo "TAP version 13"
echo "1..7"
PLAY="vplay --threads 3 --fps 10 --work-ms 15 --seconds 4 --quiet"
# The player's threads and children are all in the new cgroup, whose
# reservation the uid pays.
out=$(as_user 'dlrun --app -v -r 30ms -p 100ms cat /proc/self/cgroup /proc/sched_deadline_users')
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q "^0::/user1/dlrun-[0-9]*$" &&
	echo "$out" | grep -q "^1000 30.00 30.00$" &&
	echo "$out" | grep -q "reserved 30.000 ms every 100.000 ms for all threads and children"
check $? dlrun.app_in_its_cgroup_charged
[ -z "$(ls -d $user/dlrun-* 2>/dev/null)" ] && [ -z "$(cat /proc/sched_deadline_users)" ]
check $? dlrun.app_cgroup_removed
# Beside ten hogs of a session weighing 100 times more: late without a
# reservation (in a cgroup of its own, as dlrun --app makes), on time with.
out=$(as_user "spin -n 10 --seconds 7 & sleep 1
	mkdir $user/plain && echo \$\$ > $user/plain/cgroup.procs && $PLAY; wait")
rmdir $user/plain
echo "$out" | sed 's/^/# /'
late=$(echo "$out" | sed -n 's/^vplay: total frames 40 on_time \([0-9]*\) .*/\1/p')
[ -n "$late" ] && [ "$late" -lt 30 ]
check $? vplay.threads_late_without
out=$(as_user "spin -n 10 --seconds 7 & sleep 1
	dlrun --app -r 30ms -p 100ms $PLAY; wait")
echo "$out" | sed 's/^/# /'
# At most one frame late: a debug kernel under TCG (make test-debug) was
# late once by 3 ms.
on_time() {
	played=$(echo "$out" | sed -n 's/^vplay: total frames 40 on_time \([0-9]*\) .*/\1/p')
	[ -n "$played" ] && [ "$played" -ge 39 ]
}
on_time
check $? vplay.threads_on_time_with_app
# Self-tuned, given only the period: on time, having learned down from
# the ceiling of 30 ms towards the 15 ms the three threads need a frame
# plus a quarter (19.5-21.4 ms in most runs, once 26.8 ms under TCG; how
# close it gets is the shootout's reserved/used, a benchmark).
out=$(as_user "spin -n 10 --seconds 7 & sleep 1
	dlrun --app --auto -v -p 100ms sh -c '$PLAY; cat /sys/fs/cgroup\$(cut -d: -f3 /proc/self/cgroup)/cpu.dl.reserve'; wait")
echo "$out" | sed 's/^/# /'
learned=$(echo "$out" | sed -n 's/^30000 100000 auto \([0-9]*\)$/\1/p')
on_time && [ -n "$learned" ] && [ "$learned" -ge 15000 ] && [ "$learned" -lt 30000 ]
check $? vplay.threads_on_time_self_tuned
# Over the cap: refused, with what to do; no cgroup is left.
out=$(as_user "dlrun --app -r 50ms -p 100ms true")
rc=$?
echo "$out" | sed 's/^/# /'
[ $rc = 1 ] && echo "$out" | grep -q "Device or resource busy: not enough bandwidth left" &&
	[ -z "$(ls -d $user/dlrun-* 2>/dev/null)" ]
check $? dlrun.app_over_cap_explains
# Outside a delegated cgroup: refused, saying why.
out=$(sh -c "exec $SETPRIV dlrun --app -r 10ms -p 100ms true" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
[ $rc = 1 ] && echo "$out" | grep -q "not yours"
check $? dlrun.app_needs_delegation

undelegate_user $user
exit $fail
