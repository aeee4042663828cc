#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "kselftest" (noautogroup): the series' selftests of
# tools/testing/selftests/sched/, built as ks_*, where the tree has them;
# then the results of the series' KUnit suites, which ran at boot.
. /suites/lib.sh

for t in ks_dl_user ks_dl_elastic ks_dl_group ks_ttygroup; do
	if [ -x "$T/$t" ]; then
		run $t
	else
		echo "# suite: no $t in this tree"
	fi
done
for s in sched_dl_elastic; do
	r=/sys/kernel/debug/kunit/$s/results
	if [ -r $r ]; then
		cat $r
		grep -q "^ok [0-9]* $s\$" $r || fail=1
	else
		echo "# suite: no KUnit suite $s in this kernel"
	fi
done
exit $fail
