#!/bin/sh
F=/sys/kernel/debug/sched/features
[ -e $F ] || mount -t debugfs none /sys/kernel/debug
SETPRIV="/usr/bin/setpriv --reuid=1000 --regid=1000 --clear-groups"
for feat in NO_HRTICK_DL HRTICK_DL NO_HRTICK_DL HRTICK_DL; do
	echo $feat > $F
	echo "# $feat"
	$SETPRIV /usr/local/bin/overrun 1000000 10000000 3
	$SETPRIV /usr/local/bin/overrun 100000 10000000 3
done
spin -n 1 --seconds 8 &
echo "# with a hog, HRTICK_DL"
$SETPRIV /usr/local/bin/overrun 1000000 10000000 3
echo NO_HRTICK_DL > $F
echo "# with a hog, NO_HRTICK_DL"
$SETPRIV /usr/local/bin/overrun 1000000 10000000 3
wait
