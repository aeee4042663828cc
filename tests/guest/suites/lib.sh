# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest suites: run BINARY [harness args] runs one test binary
# and puts back what a test killed by its timeout (which skips the fixture
# teardown) may have left: the sysctl's boot value and the test cgroup.
# Sets fail=1 on any problem. median_rate is for the benchmark suites.
SYSCTL=/proc/sys/kernel/sched_tty_sched_enabled
CG=/sys/fs/cgroup/dstest
T=/tests

boot=1
for w in $(cat /proc/cmdline); do
	case $w in ttysched=0) boot=0 ;; ttysched=1) boot=1 ;; esac
done
fail=0

run() {
	bin=$1
	shift
	if [ ! -x "$T/$bin" ]; then
		echo "# suite: $T/$bin missing"
		fail=1
		return
	fi
	"$T/$bin" "$@" || fail=1
	if [ "$(cat $SYSCTL 2>/dev/null)" != "$boot" ]; then
		echo "# suite: $bin left $SYSCTL at $(cat $SYSCTL 2>/dev/null), restoring $boot"
		echo $boot > $SYSCTL
		fail=1
	fi
	if [ -d $CG ]; then
		echo "# suite: $bin left $CG behind, removing it"
		for d in $CG/*/ $CG/; do
			for p in $(cat $d/cgroup.procs 2>/dev/null); do
				echo $p > /sys/fs/cgroup/cgroup.procs 2>/dev/null
			done
		done
		for d in $CG/*/ $CG/; do
			rmdir $d 2>/dev/null
		done
		fail=1
	fi
}

# median_rate FILE NAME ROUNDS [KIND]: the median of FILE's "NAME KIND N"
# lines (ovh's, NAME its two first words; KIND rate, or best for the
# fastest batch), or nothing unless each of the ROUNDS rounds gave one:
# TCG's speed drifts within a boot, so benchmarks interleave their rounds
# and read a median.
median_rate() {
	awk -v name="$2" -v rounds=$3 -v kind=${4:-rate} \
		'$1 " " $2 == name && $3 == kind && $4 > 0 { v[n++] = $4 }
		END { if (n < rounds) exit
		      for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			      if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		      print v[int(n / 2)] }' "$1"
}
