#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "fuzz": dsfuzz with the seed, duration and operations of the
# kernel command line (dsfuzz.seed=N dsfuzz.seconds=S dsfuzz.ops=LIST;
# make test: two seeds of 40 s, make fuzz: longer, FUZZ_OPS; "all" or
# no dsfuzz.ops: every operation). The guest log is checked for splats
# by run-qemu.
seeds="1 2"
seconds=40
ops=all
for w in $(cat /proc/cmdline); do
	case $w in
	dsfuzz.seed=*) seeds=${w#dsfuzz.seed=} ;;
	dsfuzz.seconds=*) seconds=${w#dsfuzz.seconds=} ;;
	dsfuzz.ops=*) ops=${w#dsfuzz.ops=} ;;
	esac
done
mount -t debugfs none /sys/kernel/debug 2>/dev/null
fail=0
n=1
echo "TAP version 13"
for s in $seeds; do n=$((n + 1)); done
echo "1..$n"

# First, deterministically, the cpuset sequences that made the fuzzer hit
# WARN_ON_ONCE(old_prs < 0) in partition_xcpus_del() (stock 6.12; the
# series carries the upstream fix): a cpuset.cpus write to an empty cpuset that is an invalid
# partition root, made invalid (a) by "root" on every CPU of its parent,
# which has tasks, or (b) by growing a valid root to every CPU.
cg=/sys/fs/cgroup
t=$cg/prs
echo +cpuset > $cg/cgroup.subtree_control
mkdir $t
echo 0-1 > $t/cpuset.cpus; echo root > $t/cpuset.cpus.partition
echo "# a: $(cat $t/cpuset.cpus.partition)"; echo 0 > $t/cpuset.cpus
echo member > $t/cpuset.cpus.partition
echo 0 > $t/cpuset.cpus; echo root > $t/cpuset.cpus.partition
echo 0-1 > $t/cpuset.cpus
echo "# b: $(cat $t/cpuset.cpus.partition)"; echo 1 > $t/cpuset.cpus
echo member > $t/cpuset.cpus.partition
rmdir $t
echo -cpuset > $cg/cgroup.subtree_control
if dmesg | grep -q partition_xcpus_del; then
	echo "not ok 1 cpuset.invalid_root_cpus_write"
	fail=1
else
	echo "ok 1 cpuset.invalid_root_cpus_write"
fi

n=1
for s in $seeds; do
	n=$((n + 1))
	set -- --seed "$s" --seconds "$seconds"
	[ "$ops" = all ] || set -- "$@" --ops "$ops"
	if /tests/dsfuzz "$@"; then
		echo "ok $n dsfuzz.seed_$s"
	else
		echo "not ok $n dsfuzz.seed_$s"
		fail=1
	fi
done
exit $fail
