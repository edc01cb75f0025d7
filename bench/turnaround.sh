#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Turnaround: the wall time of stap -p4 for a script that changed since
# the last build (so a new module is built each time), ours and SystemTap
# 4.8's side by side in one run, with every cache warm (kernel data,
# tapsets, our runtime object, SystemTap's tracepoint headers): the loop of
# editing a script and running it again. Then the time to a script's first
# output line, boot of the qemu guest included, and with a guest kept warm
# from the run before (stap --vm-keep; ours only: SystemTap cannot load
# modules on this host).
#
# Each figure is the median of RUNS builds (default 3), each with a new
# constant in the script. SystemTap 4.8's runtime does not build for 6.1's
# newer stable releases (task_work_cancel() returns bool since 6.1.9x):
# it runs from a copy of /usr/share/systemtap/runtime with that one call
# renamed to task_work_cancel_func(), which has the old contract.
#   [RUNS=N] bench/turnaround.sh [RELEASE]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=$top/stap/stap
release=${1:-6.1.0-56-cloud-amd64}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

ref=
if [ -x /usr/bin/stap ] && [ -d /usr/share/systemtap/runtime ]; then
	cp -r /usr/share/systemtap/runtime "$work/stp48-runtime"
	sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' \
		"$work/stp48-runtime/stp_task_work.c"
	ref=/usr/bin/stap
fi

# ms of one run of the command
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
	t1=$(date +%s%N)
	echo $(( (t1 - t0) / 1000000 ))
}
median() { tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# build NAME SCRIPT: SCRIPT has @K@ where each run puts a new constant
build() {
	local name=$1 script=$2 ours=() theirs=() i k o t warm
	warm=${script//@K@/0}
	# warm every cache first (not timed)
	"$stap" -p4 -r "$release" -e "$warm" >/dev/null 2>&1 || true
	[ -z "$ref" ] || "$ref" -R "$work/stp48-runtime" -p4 -r "$release" \
		-e "$warm" >/dev/null 2>&1 || true
	for i in $(seq 1 "$runs"); do
		k=$(( RANDOM * 32768 + RANDOM + i ))
		o=$(ms "$stap" -p4 -r "$release" -e "${script//@K@/$k}") || o=fail
		ours+=("$o")
		if [ -n "$ref" ]; then
			t=$(ms "$ref" -R "$work/stp48-runtime" -p4 -r "$release" \
				-e "${script//@K@/$k}") || t=fail
			theirs+=("$t")
		fi
	done
	o=$(echo "${ours[*]}" | median)
	if [ -n "$ref" ] && ! [[ " ${theirs[*]} " == *" fail "* ]]; then
		t=$(echo "${theirs[*]}" | median)
		printf '%-34s %7s ms %9s ms %6s%%\n' "$name" "$o" "$t" \
			"$(( o * 100 / t ))"
	else
		printf '%-34s %7s ms %9s\n' "$name" "$o" "n/a"
	fi
}

echo "stap -p4, a changed script, caches warm ($release, median of $runs)"
printf '%-34s %10s %12s %7s\n' "script" "ours" "stap 4.8" "ratio"
build "tracepoint one-liner" \
	'global n probe kernel.trace("sched:sched_switch") { n++ } probe end { println(n + @K@) }'
build "syscall.* { a[name] += 1 }" \
	'global a probe syscall.* { a[name] += 1 } probe end { println(@K@) }'
build 'kernel.function("vfs_*") count' \
	'global a probe kernel.function("vfs_*") { a[ppfunc()]++ } probe end { println(@K@) }'

# time to the first line of a cached module's output: in a guest booted
# for the run (cold), and in a guest kept from the run before (stap
# --vm-keep, in a directory of the bench's own; warm); median of RUNS
first='probe begin { println("first") exit() }'
"$stap" -r "$release" -e "$first" >/dev/null 2>&1 || true
export STAP_VM_DIR=$work/vm
trap 'for q in $(pgrep -f "$work/vm/"); do kill -9 "$q" $(ps -o ppid= -p "$q"); done 2>/dev/null; rm -rf "$work"' EXIT
# ms from the start of stap to its first line of output
first_ms() {
	local t0
	t0=$(date +%s%N)
	"$stap" -r "$release" "$@" -e "$first" 2>/dev/null |
		{ read -r _ && date +%s%N >"$work/t1"; cat >/dev/null; }
	echo $(( ($(cat "$work/t1") - t0) / 1000000 ))
}
cold=() warm=()
first_ms --vm-keep >/dev/null	# boots the warm guest (not timed)
for i in $(seq 1 "$runs"); do
	cold+=("$(first_ms)")
	warm+=("$(first_ms --vm-keep)")
done
first_ms --vm-keep=0 >/dev/null	# and powers it off
echo "first output of a cached one-liner (median of $runs):" \
	"cold guest (boot included) $(echo "${cold[*]}" | median) ms," \
	"warm guest (--vm-keep) $(echo "${warm[*]}" | median) ms"
