#!/bin/sh
# The seed's experiment: pert in one terminal, a make -j10 stand-in (ten
# hogs) in another, everything on CPU 0, per-tty groups off, then on.
# Booted with noautogroup so that plain CFS is the baseline.
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
echo "summary: tty groups off: pert overhead ${off}% (plain CFS: pert is 1 of 11 tasks, ideal 90.91%)"
echo "summary: tty groups on:  pert overhead ${on}% (two terminals share the CPU, ideal 50.00%)"
