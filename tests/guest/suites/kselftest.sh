#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot "kselftest" (noautogroup): the series' selftests of
# tools/testing/selftests/sched/, built as ks_*, where the tree has them.
. /suites/lib.sh

for t in ks_dl_user ks_dl_elastic ks_ttygroup; do
	if [ -x "$T/$t" ]; then
		run $t
	else
		echo "# suite: no $t in this tree"
	fi
done
exit $fail
