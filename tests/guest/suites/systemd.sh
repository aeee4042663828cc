#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot "systemd": Debian 12's systemd 252 is PID 1 (tests/host/
# mksystemdinitramfs) and this suite runs as root in desksched.service.
# user1 logs in with su -l, through PAM and pam_systemd, so the slices,
# scopes and the cpu delegation are systemd's own. Each share is measured
# from CPU time (cgroup cpu.stat usage_usec, /proc/PID/stat) over a few
# seconds, with the per-tty feature on and off:
#   - the login layout: session scope, user@1000.service, cpu delegated;
#   - CPUQuota=20% on user-1000.slice bounds four hogs on a pty;
#   - two logins keep their split: their scopes have equal weights, so one
#     hog against four (all on CPU 0) gets half, not 1/5;
#   - tmux with two windows in one login, one hog against ten on CPU 0:
#     1/11 with the feature off, about 1/2 with it on: each window's tty
#     has its group below the login's scope.
# desksched.seconds=S on the kernel command line sets each measurement (4).
SYSCTL=/proc/sys/kernel/sched_tty_sched_enabled
CG=/sys/fs/cgroup
SLICE=$CG/user.slice/user-1000.slice
D=/tmp/ds
seconds=4
for w in $(cat /proc/cmdline); do
	case $w in desksched.seconds=*) seconds=${w#*=} ;; esac
done
mkdir -p -m 1777 $D
. /suites/systemd-lib.sh

echo "TAP version 13"
echo "1..12"
n=0 fail=0
# result OK NAME DIAG: one TAP line; OK is a command (test, awk...).
result() {
	local cond=$1 name=$2 diag=$3
	n=$((n + 1))
	if eval "$cond"; then
		echo "ok $n systemd.$name # $diag"
	else
		echo "not ok $n systemd.$name # $diag"
		fail=1
	fi
}
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x > lo && x <= hi) }'; }
now_us() { awk '{ printf "%d", $1 * 1000000 }' /proc/uptime; }

# --- the login layout; this login stays for the whole suite, so that
# user@1000.service and the slice are not torn down between tests.
LIMIT=600 login keeper "exec sleep 600"
keeper=$last
wait_for 60 test -s $D/keeper.cg
kscope=$(scope_of keeper)
result '[[ $kscope == /user.slice/user-1000.slice/session-*.scope ]]' login_scope \
	"su -l runs in ${kscope:-nothing}"
wait_for 60 sh -c '[ "$(systemctl is-active user@1000.service)" = active ]'
state=$(systemctl is-active user@1000.service)
result '[ "$state" = active ] && [ -d $SLICE/user@1000.service ]' user_manager \
	"user@1000.service $state"
deleg=$(systemctl show -P DelegateControllers user@1000.service)
sub=$(cat $SLICE/cgroup.subtree_control 2>/dev/null)
result 'grep -qw cpu <<< "$sub"' cpu_delegated \
	"user-1000.slice subtree_control: $sub; user@1000.service delegates: $deleg"

# --- CPUQuota=20% on the user's slice, four hogs on a pty of one login.
systemctl set-property --runtime user-1000.slice CPUQuota=20%
max=$(cat $SLICE/cpu.max 2>/dev/null)
result '[ "$max" = "20000 100000" ]' quota_cpu_max "user-1000.slice cpu.max: ${max:-none}"
for on in 1 0; do
	echo $on > $SYSCTL
	login quota "ptyrun -- spin -n 4 --seconds $HOGS"
	q=$last
	wait_for 60 spins 5
	u0=$(usage $SLICE) t0=$(now_us)
	sleep "$seconds"
	u1=$(usage $SLICE) t1=$(now_us)
	pct=$(awk -v u=$((u1 - u0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.1f", 100 * u / t }')
	result 'in_range $pct 5 25 && spins 5' quota_$on \
		"feature $on: the user's 4 hogs used ${pct}% of a CPU under CPUQuota=20% (5 < x <= 25)"
	stop_spins
	wait $q
done
systemctl set-property --runtime user-1000.slice CPUQuota=

# --- two logins, one hog against four, all on CPU 0: their session scopes
# are siblings of equal cpu.weight (100), so each gets half the CPU; in
# one group the single hog would get 1/5.
for on in 1 0; do
	echo $on > $SYSCTL
	login one "ptyrun -- spin -n 1 --cpu 0 --seconds $HOGS"
	l1=$last
	login four "ptyrun -- spin -n 4 --cpu 0 --seconds $HOGS"
	l4=$last
	wait_for 60 spins 7
	a=$CG$(scope_of one) b=$CG$(scope_of four)
	a0=$(usage "$a") b0=$(usage "$b")
	sleep "$seconds"
	a1=$(usage "$a") b1=$(usage "$b")
	share=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.3f", a / (a + b) }')
	result 'in_range $share 0.35 0.65 && spins 7' two_logins_$on \
		"feature $on: 1 hog vs 4 in two session scopes (weights $(cat "$a/cpu.weight") and $(cat "$b/cpu.weight")): share $share (ideal 0.5; 0.2 if the split were lost)"
	stop_spins
	wait $l1 $l4
done

# --- tmux, Debian's own, two windows in one login: one hog against ten
# on CPU 0. Both windows are in the login's session scope.
for on in 0 1; do
	echo $on > $SYSCTL
	tmux_share 10
	p1=$(echo $w1 | cut -d' ' -f1) p2=$(echo $w2 | cut -d' ' -f1)
	echo "# feature $on: window 1 hog $p1 in $(sed 's/^0:://' /proc/$p1/cgroup), tty group $(cat /proc/$p1/ttygroup 2>/dev/null)"
	echo "# feature $on: window 2 hog $p2 in $(sed 's/^0:://' /proc/$p2/cgroup), tty group $(cat /proc/$p2/ttygroup 2>/dev/null)"
	if [ $on = 0 ]; then
		scope=$(scope_of tmux)
		same=$(for p in $w1 $w2; do sed 's/^0:://' /proc/$p/cgroup; done | sort -u)
		result '[ "$same" = "$scope" ]' tmux_one_scope \
			"the 11 hogs of both windows are in the login's scope ${scope:-?} (cgroups: $(echo $same))"
		result 'in_range $share 0.05 0.15 && spins 13' tmux_off \
			"feature off: 1 hog vs 10 in two tmux windows, share $share (ideal 1/11 = 0.091)"
	else
		scope=$(scope_of tmux)
		g1=$(cut -d' ' -f1 /proc/$p1/ttygroup 2>/dev/null)
		g2=$(cut -d' ' -f1 /proc/$p2/ttygroup 2>/dev/null)
		result '[ "${g1%/ttygroup-*}" = "$scope" ] && [ "${g2%/ttygroup-*}" = "$scope" ] && [ "$g1" != "$g2" ]' tmux_nested \
			"each window's tty has its own group below the scope: ${g1:-none}, ${g2:-none}"
		result 'in_range $share 0.35 0.65 && spins 13' tmux_on \
			"feature on: 1 hog vs 10 in two tmux windows, share $share (ideal 0.5)"
	fi
	stop_spins
	wait $tmux_login
done
echo 1 > $SYSCTL

kill $keeper 2>/dev/null
pkill -u user1 -x sleep
wait
exit $fail
