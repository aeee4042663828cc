#!/bin/sh
# Part 1, the seed's experiment: pert in one terminal, a make -j10 stand-in
# (ten hogs) in another, everything on CPU 0, per-tty groups off, then on.
# Part 2, the article's video player: user1 plays a 20 fps "video" needing
# 10 ms of CPU a frame next to ten hogs on CPU 0, under SCHED_OTHER, then
# under SCHED_DEADLINE, which user1 may use within its cap.
# Part 3, the best-effort answer: three such players of user1 ask for 75%
# of CPU when its cap is 30%. Hard reservations: one plays, two are
# refused. Elastic ones: all three play, at 40% of their work a frame.
# Part 4, one reservation for a whole application: a player decoding in
# three threads (15 ms a frame at 10 fps) in user1's terminal beside ten
# hogs, on a machine where ten services keep busy as well, each in its
# cgroup, as systemd puts them: in the terminal, in a cgroup of its own
# (what systemd-run --scope alone gives), and under dlrun --app --auto,
# given only its period.
# Booted with noautogroup so that plain CFS is the baseline.
. /suites/delegate.sh
sysctl=/proc/sys/kernel/sched_tty_sched_enabled
seconds=5

run() {
	label=$1
	echo "$2" > $sysctl || return 1
	echo "== tty groups $label: ten hogs in terminal B, pert in terminal A, all on CPU 0"
	ptyrun -- spin -n 10 --cpu 0 --seconds $((seconds + 3)) &
	hogs=$!
	sleep 1
	ptyrun --prefix "[A] " -- pert --cpu 0 --seconds $seconds > /tmp/pert.$2
	cat /tmp/pert.$2
	wait $hogs
}

overhead() {
	sed -n 's/^\[A\] pert: total.* overhead:\([0-9.]*\)%.*/\1/p' /tmp/pert.$1
}

run off 0 && run on 1 || exit 1
off=$(overhead 0)
on=$(overhead 1)
[ -n "$off" ] && [ -n "$on" ] || { echo "demo: no pert summary"; exit 1; }

# A deadline task may not be pinned to one CPU of a root domain: give CPU 0
# a root domain of its own, a cpuset partition, and play in there.
cg=/sys/fs/cgroup
echo 0 > $sysctl
echo +cpuset > $cg/cgroup.subtree_control &&
	mkdir $cg/demo-cpu0 && echo 0 > $cg/demo-cpu0/cpuset.cpus &&
	echo root > $cg/demo-cpu0/cpuset.cpus.partition &&
	[ "$(cat $cg/demo-cpu0/cpuset.cpus.partition)" = root ] ||
	{ echo "demo: cannot make a cpuset partition of CPU 0"; exit 1; }
play() {
	out=/tmp/vplay.$1
	echo "== video as user1 under $2, ten hogs beside it on CPU 0"
	shift 2
	sh -c "echo \$\$ > $cg/demo-cpu0/cgroup.procs
		spin -n 10 --seconds $((seconds + 3)) & sleep 1
		/usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups \
			vplay --fps 20 --work-ms 10 --seconds $seconds $*
		wait" > $out
	cat $out
}
frames() {
	sed -n 's/^vplay: total frames \([0-9]*\) on_time \([0-9]*\) late \([0-9]*\) dropped \([0-9]*\).*/\2 of \1 frames on time, \3 late, \4 dropped/p' /tmp/vplay.$1
}
play other SCHED_OTHER
play deadline SCHED_DEADLINE --policy deadline
other=$(frames other)
dl=$(frames deadline)

three() {
	echo "== three videos as user1 under $2, 25% each asked, cap 30%, ten hogs beside them on CPU 0"
	sh -c "echo \$\$ > $cg/demo-cpu0/cgroup.procs
		exec spin -n 10 --seconds $((seconds + 3))" &
	hogs=$!
	sleep 1
	for i in 1 2 3; do
		sh -c "echo \$\$ > $cg/demo-cpu0/cgroup.procs
			exec /usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups \
				vplay --fps 20 --work-ms 10 --seconds $seconds --quiet $3" \
			> /tmp/three.$1.$i 2>&1 &
		sleep 0.3
	done
	wait
	for i in 1 2 3; do sed "s/^/[$i] /" /tmp/three.$1.$i; done
}
# "N of M on time" per player, or "refused" where vplay could not start.
three_summary() {
	for i in 1 2 3; do
		sed -n 's/^vplay: total frames \([0-9]*\) on_time \([0-9]*\) .* quality \([0-9.]*\)$/\2 of \1 on time at quality \3/p' /tmp/three.$1.$i |
			grep . || echo refused
	done | awk 'NR > 1 { printf "; " } { printf "%s", $0 } END { print "" }'
}
three hard "hard SCHED_DEADLINE" "--policy deadline"
three elastic "elastic SCHED_DEADLINE" "--elastic"
hard3=$(three_summary hard)
elastic3=$(three_summary elastic)
rmdir $cg/demo-cpu0
echo -cpuset > $cg/cgroup.subtree_control
echo 1 > $sysctl

# user1's cgroup, delegated as a systemd user manager's is; the terminal
# (a pty) and its build in user1/session.
user=$cg/user1
delegate_user $user ||
	{ echo "demo: cannot delegate $user"; exit 1; }
services=""
for i in 1 2 3 4 5 6 7 8 9 10; do
	mkdir $cg/service$i
	sh -c "echo \$\$ > $cg/service$i/cgroup.procs; exec spin -n 1 --seconds 40" &
	services="$services $!"
done
APP="vplay --threads 3 --fps 10 --work-ms 15 --seconds $seconds --quiet"
app() {
	echo "== three-thread video as user1 in its terminal beside ten hogs, $2"
	printf '%s\n' "spin -n 10 --seconds $((seconds + 3)) & sleep 1; $3; wait" > /tmp/app.sh
	sh -c "echo \$\$ > $user/session/cgroup.procs
		exec ptyrun -- /usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups sh /tmp/app.sh" \
		> /tmp/app.$1 2>&1
	cat /tmp/app.$1
}
app terminal "SCHED_OTHER in the terminal" "$APP"
app cgroup "SCHED_OTHER in a cgroup of its own" \
	"mkdir $user/own && echo \$\$ > $user/own/cgroup.procs && $APP"
app dlrun "dlrun --app --auto -p 100ms" \
	"dlrun --app --auto -v -p 100ms sh -c '$APP; cat $cg\$(cut -d: -f3 /proc/self/cgroup)/cpu.dl.reserve'"
kill $services 2>/dev/null
wait $services 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do rmdir $cg/service$i; done
rmdir $user/own
undelegate_user $user
app_frames() {
	sed -n 's/^vplay: total frames \([0-9]*\) on_time \([0-9]*\) late \([0-9]*\) dropped \([0-9]*\).*/\2 of \1 frames on time, \3 late, \4 dropped/p' /tmp/app.$1 | tr -d '\r'
}
app_terminal=$(app_frames terminal)
app_cgroup=$(app_frames cgroup)
app_dlrun=$(app_frames dlrun)
learned=$(sed -n 's/^[0-9]* [0-9]* auto \([0-9]*\).*/\1/p' /tmp/app.dlrun | tr -d '\r')

echo "summary: tty groups off: pert overhead ${off}% (plain CFS: pert is 1 of 11 tasks, ideal 90.91%)"
echo "summary: tty groups on:  pert overhead ${on}% (two terminals share the CPU, ideal 50.00%)"
echo "summary: video (user1, 20 fps, 10 ms a frame) beside ten hogs, SCHED_OTHER:    $other"
echo "summary: video (user1, 20 fps, 10 ms a frame) beside ten hogs, SCHED_DEADLINE: $dl"
echo "summary: three videos of user1 (75% asked, cap 30%), hard:    $hard3"
echo "summary: three videos of user1 (75% asked, cap 30%), elastic: $elastic3"
echo "summary: three-thread video (15 ms a frame) beside a build and ten services, in the terminal:  $app_terminal"
echo "summary: three-thread video (15 ms a frame) beside a build and ten services, own cgroup:      $app_cgroup"
echo "summary: three-thread video (15 ms a frame) beside a build and ten services, dlrun --app --auto: $app_dlrun (learned ${learned:-?} us every 100 ms)"
case $other$dl in *"of "*"of "*) ;; *) echo "demo: no vplay summary"; exit 1 ;; esac
case $elastic3 in *refused*|"") echo "demo: an elastic player did not play"; exit 1 ;; esac
case $app_terminal$app_cgroup$app_dlrun in *"of "*"of "*"of "*) ;; *) echo "demo: no three-thread vplay summary"; exit 1 ;; esac
