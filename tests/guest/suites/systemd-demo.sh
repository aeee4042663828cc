#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo's second boot: the seed's experiment the way a Debian 12 user
# runs it. user1 logs in (su -l: pam_systemd, a session scope of its
# own), opens Debian's tmux, and runs ten hogs in one window and pert in
# the other, all on CPU 0, per-tty groups off, then on. Both windows are in
# the login's scope: off, pert is one task of eleven there; on, each
# window's tty has its group below the scope and pert gets half.
SYSCTL=/proc/sys/kernel/sched_tty_sched_enabled
D=/tmp/ds
seconds=5
mkdir -p -m 1777 $D

run() {
	local on=$1
	echo $on > $SYSCTL || return 1
	echo "== tty groups $2: tmux window 1 runs ten hogs, window 2 pert, all on CPU 0, as user1"
	cat > $D/demo.sh <<DEMO
export TERM=screen
tmux new-session -d -s demo "exec spin -n 10 --cpu 0 --seconds 120"
sleep 1
tmux new-window -t demo "exec pert --cpu 0 --seconds $seconds > $D/pert.$on"
while [ "\$(tmux list-windows -t demo 2>/dev/null | wc -l)" -ge 2 ]; do sleep 0.5; done
tmux kill-session -t demo
echo "(user1's login scope: \$(sed 's/^0:://' /proc/self/cgroup))"
DEMO
	timeout -k 5 120 su -l user1 -c "bash $D/demo.sh" </dev/null
	sed 's/^/[window 2] /' $D/pert.$on
}
overhead() {
	sed -n 's/^pert: total.* overhead:\([0-9.]*\)%.*/\1/p' $D/pert.$1
}

run 0 off && run 1 on || exit 1
echo 1 > $SYSCTL
off=$(overhead 0)
on=$(overhead 1)
[ -n "$off" ] && [ -n "$on" ] || { echo "demo: no pert summary"; exit 1; }
echo "summary: systemd login, tmux, tty groups off: pert overhead ${off}% (pert is 1 of 11 tasks in the login's scope, ideal 90.91%)"
echo "summary: systemd login, tmux, tty groups on:  pert overhead ${on}% (each window's tty has its group in the scope: ideal 50.00%)"
