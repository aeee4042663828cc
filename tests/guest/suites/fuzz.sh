#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "fuzz": dsfuzz with the seed and duration of the kernel command
# line (dsfuzz.seed=N dsfuzz.seconds=S; make test: two seeds of 40 s,
# make fuzz: longer). The guest log is checked for splats by run-qemu.
seeds="1 2"
seconds=40
for w in $(cat /proc/cmdline); do
	case $w in
	dsfuzz.seed=*) seeds=${w#dsfuzz.seed=} ;;
	dsfuzz.seconds=*) seconds=${w#dsfuzz.seconds=} ;;
	esac
done
mount -t debugfs none /sys/kernel/debug 2>/dev/null
fail=0
n=0
echo "TAP version 13"
for s in $seeds; do n=$((n + 1)); done
echo "1..$n"
n=0
for s in $seeds; do
	n=$((n + 1))
	if /tests/dsfuzz --seed "$s" --seconds "$seconds"; then
		echo "ok $n dsfuzz.seed_$s"
	else
		echo "not ok $n dsfuzz.seed_$s"
		fail=1
	fi
done
exit $fail
