# SPDX-License-Identifier: GPL-2.0
# Sourced by the suites of the systemd guest (systemd*.sh): logins of
# user1 through su -l, their hogs (spin) and their CPU time. The caller
# sets D, a directory every user may write, and seconds, the time of a
# measurement.

# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS.
wait_for() {
	local end=$(($(cut -d. -f1 /proc/uptime) + $1))
	shift
	until "$@"; do
		[ "$(cut -d. -f1 /proc/uptime)" -lt $end ] || return 1
		sleep 0.2
	done
}
# spins N: N spin processes of user1 run (a test's hogs, parents included;
# a measurement counts only if they all ran to its end).
spins() { [ "$(pgrep -u user1 -x spin | wc -l)" -ge "$1" ]; }
usage() { sed -n 's/^usage_usec //p' "$1/cpu.stat"; }
# login NAME CMD: in the background, CMD in a new login of user1 (su -l:
# PAM, pam_systemd, a session scope of logind's), which leaves its cgroup
# in $D/NAME.cg; output in $D/NAME.out; its pid in $last. LIMIT (120)
# bounds the login, in seconds.
login() {
	local name=$1
	shift
	rm -f $D/"$name".cg
	timeout -k 5 "${LIMIT:-120}" su -l user1 -c "cat /proc/self/cgroup > $D/$name.cg; $*" \
		> $D/"$name".out 2>&1 </dev/null &
	last=$!
}
scope_of() { sed -n 's/^0:://p' $D/"$1".cg 2>/dev/null; }
# Hogs run until stop_spins (SIGTERM: spin reaps its children), not for
# a fixed time: under a loaded host the guest may start them late, and
# a measurement must end before any of them does. --seconds $HOGS only
# bounds them if the suite dies.
HOGS=120
stop_spins() {
	pkill -u user1 -x spin
	wait_for 20 sh -c '! pgrep -u user1 -x spin >/dev/null'
}
# ticks PID...: utime + stime of these processes, in clock ticks.
ticks() {
	local p t=0
	for p in "$@"; do
		t=$((t + $(awk '{ print $14 + $15 }' /proc/"$p"/stat 2>/dev/null || echo 0)))
	done
	echo $t
}
# tmux_share N: a login of user1 runs Debian's tmux with two windows, one
# hog in the first and N in the second, all on CPU 0 (both windows are in
# the login's session scope). Sets share, the single hog's share of their
# CPU time over $seconds; w1 and w2, the hogs of each window; p1 and p2,
# the first of each; tmux_login, the login's pid. The hogs run until
# stop_spins.
tmux_share() {
	cat > $D/tmux.sh <<TMUX
export TERM=screen
tmux new-session -d -s ds "echo \\\$\\\$ > $D/w1; exec spin -n 1 --cpu 0 --seconds $HOGS"
tmux new-window -t ds "echo \\\$\\\$ > $D/w2; exec spin -n $1 --cpu 0 --seconds $HOGS"
while tmux has-session -t ds 2>/dev/null; do sleep 0.5; done
TMUX
	rm -f $D/w1 $D/w2
	login tmux "bash $D/tmux.sh"
	tmux_login=$last
	wait_for 60 spins $(($1 + 3))
	w1=$(pgrep -P "$(cat $D/w1)") w2=$(pgrep -P "$(cat $D/w2)")
	# shellcheck disable=SC2086
	a0=$(ticks $w1) b0=$(ticks $w2)
	sleep "$seconds"
	# shellcheck disable=SC2086
	a1=$(ticks $w1) b1=$(ticks $w2)
	share=$(awk -v a=$((a1 - a0)) -v b=$((b1 - b0)) 'BEGIN { printf "%.3f", (a + b) ? a / (a + b) : 0 }')
	p1=$(echo $w1 | cut -d' ' -f1) p2=$(echo $w2 | cut -d' ' -f1)
}
