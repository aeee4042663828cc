#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side checks of the desksched userspace tools, run after
# `make tools`. Prints KTAP; exits non-zero if any check failed.
#
# Nothing here touches /proc/sys or /proc/*/ttygroup: ttyshare --nice is
# only given out-of-range values, which are rejected before anything runs.
# vplay runs only under SCHED_OTHER here: --policy=deadline is for guests,
# and so are ovh's benchmarks. dlrun is only given requests it must refuse
# before calling sched_setattr().
#
# Usage: tests/host/check-tools.sh [BINDIR]   (default: build/tools)

set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/build/tools}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A broken tool must fail its check, not hang the whole run.
T="timeout -k 2 20"

results=()
failed=0

# Diagnostics go into results[] too, to be printed after the plan.
diag() {
	local line

	while IFS= read -r line; do
		results+=("# $line")
	done
}

ntests=0
check() {
	local name=$1

	shift
	ntests=$((ntests + 1))
	if "$@"; then
		results+=("ok $ntests - $name")
	else
		results+=("not ok $ntests - $name")
		failed=$((failed + 1))
	fi
}

# ---- --help -------------------------------------------------------------

help_ok() {
	$T "$BIN/$1" --help >"$TMP/out" 2>"$TMP/err" &&
		grep -q '^Usage: ' "$TMP/out"
}

for tool in pert ptyrun ttyshare spin vplay ovh dlrun; do
	check "$tool --help exits 0" help_ok "$tool"
done

# ---- usage errors ------------------------------------------------------

# usage_fails TOOL ARGS...: must exit 2 with a message on stderr.
usage_fails() {
	local tool=$1 rc

	shift
	$T "$BIN/$tool" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ $rc -ne 2 ] || [ ! -s "$TMP/err" ]; then
		diag <<<"exit status $rc, stderr: $(head -c 200 "$TMP/err")"
		return 1
	fi
}

# bad_values TOOL OPTION TRAILER VALUE...: OPTION=VALUE is rejected. TRAILER
# holds the arguments the tool needs besides the bad one.
bad_values() {
	local tool=$1 opt=$2 trailer=$3 v

	shift 3
	for v in "$@"; do
		# shellcheck disable=SC2086
		check "$tool $opt '$v' is rejected" \
			usage_fails "$tool" "$opt" "$v" $trailer
	done
	check "$tool $opt without a value is rejected" \
		usage_fails "$tool" "$opt"
}

NOCPU=1023	# in 0..CPU_SETSIZE-1, but no test machine has it
bad_values pert --threshold-us "" abc 5x -1 0 1000001 "" nan
bad_values pert --interval-ms "" abc 5x -5 9 60001 ""
bad_values pert --seconds "" abc 5x -1 86401 ""
bad_values pert --cpu "" abc 5x -1 1024 $NOCPU ""
check "pert unknown option is rejected" usage_fails pert --bogus
check "pert stray argument is rejected" usage_fails pert 5

bad_values ptyrun --linger-ms "-- true" abc 5x -1 60001 ""
check "ptyrun unknown option is rejected" usage_fails ptyrun --bogus -- true
check "ptyrun without a command is rejected" usage_fails ptyrun --

bad_values ttyshare --hogs "--seconds 1" abc 5x 0 -1 257 "" 1,,1 1x0 1x65 \
	32x3,1x62 1,
bad_values ttyshare --seconds "--hogs 1" abc 5x -1 0 3601 "" inf
bad_values ttyshare --cpu "--hogs 1" abc 5x -1 1024 $NOCPU ""
bad_values ttyshare --nice "--hogs 1" abc 5x -21 20 ""
bad_values ttyshare --settle-ms "--hogs 1" abc 5x -1 60001 ""
check "ttyshare unknown option is rejected" usage_fails ttyshare --bogus
check "ttyshare without --hogs is rejected" usage_fails ttyshare

bad_values spin --count "--seconds 1" abc 5x -1 0 1025 ""
bad_values spin -n "--seconds 1" abc 5x -1 0 1025 ""
bad_values spin --cpu "--seconds 1" abc 5x -1 1024 $NOCPU ""
bad_values spin --seconds "-n 1" abc 5x -1 86401 ""
check "spin unknown option is rejected" usage_fails spin --bogus

# ---- pert --------------------------------------------------------------

INTERVAL_RE='^pert/s: [ 0-9]{8,} >[0-9]+\.[0-9]{2}us: [ 0-9]{8,} min:[ 0-9]{3,}\.[0-9]{2} max:[ 0-9]{5,}\.[0-9]{2} avg:[ 0-9]{4,}\.[0-9]{2} sum/s:[ 0-9]{6,}us overhead:[ 0-9]{2,}\.[0-9]{2}%$'
SUMMARY_RE='^pert: total [0-9]+\.[0-9]+s pert/s:[0-9.]+ overhead:[0-9]+\.[0-9]+% max:[0-9]+\.[0-9]+us$'

pert_two_seconds() {
	local lines

	$T "$BIN/pert" --seconds 2 >"$TMP/pert" 2>"$TMP/err" || return 1
	lines=$(grep -cvE "$INTERVAL_RE|$SUMMARY_RE|^#" "$TMP/pert")
	if [ "$(grep -cE "$INTERVAL_RE" "$TMP/pert")" != 2 ] ||
	   [ "$(grep -cE "$SUMMARY_RE" "$TMP/pert")" != 1 ] ||
	   [ "$(grep -c '^# .*threshold 1.000us' "$TMP/pert")" != 1 ] ||
	   [ "$lines" != 0 ]; then
		diag <"$TMP/pert"
		return 1
	fi
}
check "pert --seconds 2 prints 2 interval lines and a summary" \
	pert_two_seconds

pert_quiet() {
	$T "$BIN/pert" --quiet --seconds 1 --interval-ms 100 --cpu 0 \
		>"$TMP/pert" 2>"$TMP/err" || return 1
	[ "$(grep -cvE '^#' "$TMP/pert")" = 1 ] &&
		grep -qE "$SUMMARY_RE" "$TMP/pert" || { diag <"$TMP/pert"; false; }
}
check "pert --quiet prints only the summary" pert_quiet

pert_sigint() {
	local pid

	$T "$BIN/pert" >"$TMP/pert" 2>"$TMP/err" &
	pid=$!
	sleep 1.5
	kill -INT $pid
	wait $pid && grep -qE "$SUMMARY_RE" "$TMP/pert"
}
check "pert prints its summary on SIGINT" pert_sigint

# ---- ptyrun ------------------------------------------------------------

ptyrun_tty() {
	$T "$BIN/ptyrun" -- sh -c 'tty; echo $$' >"$TMP/out" 2>"$TMP/err" ||
		return 1
	sed -n 1p "$TMP/out" | grep -qE '^/dev/pts/[0-9]+$' &&
		sed -n 2p "$TMP/out" | grep -qE '^[0-9]+$' &&
		[ "$(wc -l <"$TMP/out")" = 2 ] || { diag <"$TMP/out"; false; }
}
check "ptyrun gives the command a /dev/pts controlling tty" ptyrun_tty

ptyrun_status() {
	local rc

	$T "$BIN/ptyrun" -- sh -c "$1" >/dev/null 2>&1
	rc=$?
	[ $rc = "$2" ] || { diag <<<"exit status $rc, want $2"; false; }
}
check "ptyrun passes on exit status 7" ptyrun_status 'exit 7' 7
check "ptyrun passes on exit status 0" ptyrun_status 'exit 0' 0
check "ptyrun reports death by SIGTERM as 143" ptyrun_status 'kill $$' 143
check "ptyrun exits 127 for a missing command" \
	ptyrun_status 'exec /nonexistent/cmd' 127

ptyrun_prefix() {
	$T "$BIN/ptyrun" --prefix '[t] ' -- sh -c 'printf "a\nb"; echo c' \
		>"$TMP/out" 2>/dev/null &&
		[ "$(cat "$TMP/out")" = "$(printf '[t] a\n[t] bc')" ]
}
check "ptyrun --prefix marks every line" ptyrun_prefix

ptyrun_print_tty() {
	$T "$BIN/ptyrun" --print-tty -- true >"$TMP/out" 2>"$TMP/err" &&
		grep -qE '^ptyrun: tty /dev/pts/[0-9]+ pid [0-9]+$' "$TMP/err"
}
check "ptyrun --print-tty names tty and pid on stderr" ptyrun_print_tty

# A descendant that ignores SIGHUP keeps the slave open after the leader
# exits; ptyrun must give up after --linger-ms, not wait for it.
ptyrun_linger() {
	local start end bg

	start=$(date +%s%N)
	$T "$BIN/ptyrun" --linger-ms 300 -- \
		sh -c '(trap "" HUP; exec sleep 10) & echo $!' \
		>"$TMP/out" 2>/dev/null
	end=$(date +%s%N)
	bg=$(head -n1 "$TMP/out")
	[ -n "$bg" ] && kill "$bg" 2>/dev/null
	[ $(( (end - start) / 1000000 )) -lt 3000 ] || {
		diag <<<"took $(( (end - start) / 1000000 )) ms"
		false
	}
}
check "ptyrun does not wait for descendants holding the tty" ptyrun_linger

ptyrun_forward() {
	local pid

	$T "$BIN/ptyrun" -- sh -c 'trap "exit 5" TERM; echo up; while :; do sleep 0.1; done' \
		>"$TMP/out" 2>&1 &
	pid=$!
	sleep 0.5
	kill -TERM $pid
	wait $pid
	[ $? = 5 ]
}
check "ptyrun forwards SIGTERM to the command" ptyrun_forward

# ---- vplay -------------------------------------------------------------

bad_values vplay --fps "-s 0.1" abc 5x -1 0 1001 ""
bad_values vplay --work-ms "-s 0.1" abc -1 0 1001 "" nan
bad_values vplay --deadline-ms "-s 0.1" abc -1 0 1001 ""
bad_values vplay --seconds "" abc -1 0 3601 ""
bad_values vplay --policy "-s 0.1" fifo "" DEADLINE
bad_values vplay --runtime-ms "--policy deadline -s 0.1" abc -1 0 1001 ""
check "vplay unknown option is rejected" usage_fails vplay --bogus
check "vplay stray argument is rejected" usage_fails vplay 5
check "vplay --runtime-ms without --policy deadline is rejected" \
	usage_fails vplay --runtime-ms 5 -s 0.1
check "vplay work longer than the deadline is rejected" \
	usage_fails vplay --fps 20 --deadline-ms 5 --work-ms 6 -s 0.1
check "vplay deadline longer than the frame is rejected" \
	usage_fails vplay --fps 20 --deadline-ms 60 -s 0.1

VPLAY_RE='^vplay: total frames 25 on_time [0-9]+ late [0-9]+ dropped [0-9]+ lateness_ms p50 -?[0-9]+\.[0-9]{2} p99 -?[0-9]+\.[0-9]{2} max -?[0-9]+\.[0-9]{2} degraded 0 quality 1\.00$'
vplay_plays() {
	local on late dropped

	$T "$BIN/vplay" --fps 25 --work-ms 1 --seconds 1 --quiet \
		>"$TMP/out" 2>"$TMP/err" || return 1
	[ "$(wc -l <"$TMP/out")" = 2 ] && grep -qE "$VPLAY_RE" "$TMP/out" || {
		diag <"$TMP/out"
		return 1
	}
	read -r on late dropped < <(sed -E 's/.* on_time ([0-9]+) late ([0-9]+) dropped ([0-9]+) .*/\1 \2 \3/' "$TMP/out" | tail -1)
	[ $((on + late + dropped)) = 25 ]
}
check "vplay --quiet plays every frame and prints header and summary" vplay_plays

bad_values vplay --work "-s 0.1" "" CPU loop 1
bad_values vplay --work-dist "-s 0.1" "" GOP mpeg 2

# Loops calibrated to the CPU time asked: all frames of the gop played,
# with the calibration reported.
vplay_loops() {
	$T "$BIN/vplay" --fps 25 --work-ms 1 --seconds 1 --quiet --work loops \
		--work-dist gop >"$TMP/out" 2>"$TMP/err" || return 1
	grep -qE '^vplay: calibrated loops_per_us [0-9]+\.[0-9]$' "$TMP/out" &&
	grep -qE '^vplay: total frames 25 ' "$TMP/out" || {
		diag <"$TMP/out"
		return 1
	}
}
check "vplay --work loops --work-dist gop calibrates and plays every frame" vplay_loops

# Decoding ahead: five frames of 30 ms at once every 200 ms, each due
# when displayed, five frame periods after its own (the last of a batch
# at 150 ms of work has 360 ms); due at their own period's end, as
# without a buffer, the last three of each batch would be late.
bad_values vplay --buffer "-s 0.1" abc -1 0 51 ""
check "vplay --buffer with --deadline-ms is rejected" \
	usage_fails vplay --buffer 2 --deadline-ms 10 -s 0.1
vplay_buffered() {
	$T "$BIN/vplay" --fps 25 --work-ms 30 --seconds 1 --quiet --buffer 5 \
		>"$TMP/out" 2>"$TMP/err" || return 1
	grep -qE '^vplay: fps 25 work_ms 30.00 deadline_ms 200.00 .* buffer 5 threads 1$' "$TMP/out" &&
	grep -qE '^vplay: total frames 25 on_time 25 late 0 dropped 0 ' "$TMP/out" || {
		diag <"$TMP/out"
		return 1
	}
}
check "vplay --buffer 5 decodes ahead, each frame due when displayed" vplay_buffered

# Three threads hand each frame on: all the work is counted, none late.
vplay_threads() {
	$T "$BIN/vplay" --fps 10 --work-ms 15 --seconds 1 --quiet --threads 3 \
		>"$TMP/out" 2>"$TMP/err" || return 1
	grep -qE '^vplay: fps 10 .* threads 3$' "$TMP/out" &&
	grep -qE '^vplay: total frames 10 on_time 10 late 0 dropped 0 ' "$TMP/out" || {
		diag <"$TMP/out"
		return 1
	}
}
check "vplay --threads 3 decodes each frame in a pipeline of three threads" vplay_threads
bad_values vplay --threads "" abc 0 -1 9 1.5 ""
check "vplay --threads with --elastic is rejected" \
	usage_fails vplay --threads 2 --elastic

bad_values vplay --slice-ms "-s 0.1" abc -1 0 0.05 101 ""
check "vplay --slice-ms with --policy deadline is rejected" \
	usage_fails vplay --slice-ms 1 --policy deadline -s 0.1
check "vplay --elastic checks --runtime-ms" \
	usage_fails vplay --elastic --runtime-ms abc -s 0.1

# ---- dlrun -------------------------------------------------------------

bad_values dlrun --runtime "-p 10ms true" abc 5x 1.5xs -1 +1 " 1" "" 0 nan 1e30s
bad_values dlrun --period "-r 1ms true" abc 10m -10ms "" 0
bad_values dlrun --deadline "-r 1ms -p 10ms true" abc 2h "" 0
bad_values dlrun --pid "-r 1ms -p 10ms" abc 0 -1 99999999999 ""
check "dlrun without --runtime is rejected" usage_fails dlrun -p 10ms true
check "dlrun without --period is rejected" usage_fails dlrun -r 1ms true
check "dlrun runtime over the deadline is rejected" \
	usage_fails dlrun -r 6ms -d 5ms -p 10ms true
check "dlrun deadline over the period is rejected" \
	usage_fails dlrun -r 1ms -d 20ms -p 10ms true
check "dlrun without a command is rejected" usage_fails dlrun -r 1ms -p 10ms
check "dlrun --pid with a command is rejected" \
	usage_fails dlrun -r 1ms -p 10ms --pid 1 true
check "dlrun unknown option is rejected" usage_fails dlrun --bogus -r 1ms -p 10ms true
check "dlrun --app with --elastic is rejected" \
	usage_fails dlrun --app --elastic -r 1ms -p 10ms true
check "dlrun --app with --reset-on-fork is rejected" \
	usage_fails dlrun --app -R -r 1ms -p 10ms true
check "dlrun --app with a deadline is rejected" \
	usage_fails dlrun --app -r 1ms -d 5ms -p 10ms true
check "dlrun --app without --runtime or --auto is rejected" \
	usage_fails dlrun --app -p 10ms true

# ---- ovh ---------------------------------------------------------------
# Only its argument checks: the pty and setattr benchmarks are for guests.

bad_values ovh --seconds "pipe" abc -1 0 601 ""
check "ovh unknown benchmark is rejected" usage_fails ovh bogus
check "ovh unknown option is rejected" usage_fails ovh --bogus

# ---- ttyshare ----------------------------------------------------------

TERM_RE='^terminal [0-9]+ hogs [0-9]+ cpu_ms [0-9]+\.[0-9] share [01]\.[0-9]{4}$'

# all_gone PID...: none of these processes exists any more, not even as a
# zombie (ttyshare and spin reap what they start).
all_gone() {
	local p

	for p in "$@"; do
		if [ -e "/proc/$p" ]; then
			diag <<<"process $p survived"
			return 1
		fi
	done
}

ttyshare_basic() {
	local pids

	$T "$BIN/ttyshare" --hogs 1,1 --seconds 1 --pids \
		>"$TMP/out" 2>"$TMP/err" || { diag <"$TMP/err"; return 1; }
	pids=$(awk '/^terminal [0-9]+ pid /{print $4}' "$TMP/out")
	if [ "$(grep -cE "$TERM_RE" "$TMP/out")" != 2 ] ||
	   [ "$(echo "$pids" | wc -w)" != 2 ] ||
	   ! grep -qE '^first_hog_share [01]\.[0-9]{4}$' "$TMP/out" ||
	   ! awk '/^terminal .* share /{s += $NF} END{exit !(s > 0.99 && s < 1.01)}' \
		"$TMP/out"; then
		diag <"$TMP/out"
		return 1
	fi
	# shellcheck disable=SC2086
	all_gone $pids
}
check "ttyshare --hogs 1,1 reports shares summing to 1, leaves nothing" \
	ttyshare_basic

ttyshare_repeat() {
	$T "$BIN/ttyshare" --hogs 1,2x3 --seconds 0.2 --settle-ms 0 \
		>"$TMP/out" 2>"$TMP/err" &&
		[ "$(grep -cE "$TERM_RE" "$TMP/out")" = 4 ] &&
		[ "$(grep -c ' hogs 2 ' "$TMP/out")" = 3 ] ||
		{ diag <"$TMP/out"; false; }
}
check "ttyshare --hogs 1,2x3 runs four terminals" ttyshare_repeat

# ctty_of_hogs EXPECT OPTIONS...: while ttyshare runs, every hog is in a
# session of its own and has (EXPECT=yes) or lacks a controlling tty.
ctty_of_hogs() {
	local want=$1 pid p stat tty sid ok=0 pids

	shift
	$T "$BIN/ttyshare" --hogs 2,1 --seconds 2 --pids "$@" \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	for _ in $(seq 50); do
		[ "$(grep -c ' pid ' "$TMP/out")" = 3 ] && break
		sleep 0.05
	done
	pids=$(awk '/ pid /{print $4}' "$TMP/out")
	for p in $pids; do
		stat=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null) || ok=1
		# shellcheck disable=SC2086
		set -- $stat
		sid=$4 tty=$5
		if [ "$sid" = "$(ps -o sid= $$ | tr -d ' ')" ] ||
		   { [ $want = yes ] && [ "$tty" = 0 ]; } ||
		   { [ $want = no ] && [ "$tty" != 0 ]; }; then
			diag <<<"hog $p: session $sid tty_nr $tty"
			ok=1
		fi
	done
	[ -n "$pids" ] || ok=1
	wait $pid || ok=1
	# shellcheck disable=SC2086
	all_gone $pids || ok=1
	return $ok
}
check "ttyshare hogs run in their own session with a controlling tty" \
	ctty_of_hogs yes
check "ttyshare --no-ctty hogs have no controlling tty" ctty_of_hogs no --no-ctty

ttyshare_sigterm() {
	local pid pids

	$T "$BIN/ttyshare" --hogs 3,3 --seconds 30 --pids \
		>"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 1
	pids=$(awk '/ pid /{print $4}' "$TMP/out")
	kill -TERM $pid
	wait $pid
	[ $? = 143 ] && [ "$(echo "$pids" | wc -w)" = 6 ] &&
		all_gone $pids
}
check "ttyshare on SIGTERM exits 143 and leaves nothing" ttyshare_sigterm

# ---- spin --------------------------------------------------------------

# spin_run SIGNAL WANT ARGS...: spin's children exist while it runs and are
# all gone afterwards; SIGNAL (or "none") is sent after 0.5 s.
spin_run() {
	local sig=$1 want=$2 pid kids rc

	shift 2
	$T "$BIN/spin" "$@" >"$TMP/out" 2>"$TMP/err" &
	pid=$!
	sleep 0.5
	# $pid is timeout(1); spin is its only child.
	kids=$(pgrep -P "$(pgrep -P $pid)")
	[ "$sig" = none ] || kill -"$sig" $pid
	wait $pid
	rc=$?
	if [ $rc != "$want" ] || [ "$(echo $kids | wc -w)" != 3 ]; then
		diag <<<"exit status $rc (want $want), children: $kids"
		return 1
	fi
	# shellcheck disable=SC2086
	all_gone $kids
}
check "spin -n 3 --seconds 1 runs 3 hogs and leaves nothing" \
	spin_run none 0 -n 3 --seconds 1
check "spin -n 3 on SIGTERM exits 143 and leaves nothing" \
	spin_run TERM 143 -n 3 --cpu 0

# ---- report ------------------------------------------------------------

echo "TAP version 13"
echo "1..$ntests"
printf '%s\n' "${results[@]}"
[ $failed = 0 ] || echo "# $failed of $ntests checks failed"
exit $((failed != 0))
