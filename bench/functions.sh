#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Pass-2 wall time against the number of script functions: N functions
# f0..fN-1, each called once from a begin probe (a lookup per declaration
# and per call). The figures should grow linearly; before the name index
# (semantic/names.c) and the callee set (semantic/types.c) they grew
# quadratically: 5k/10k/20k/40k took 0.9/3.7/11.1/42.3 s. Then the same
# with functions reading $prev->pid called from a tracepoint probe: each
# is copied for the probe (semantic/copies.c), a lookup per call; before
# that lookup was a hash set, 5k/10k/20k took 0.7/1.8/9.0 s. No pass or
# fail.
# Usage: bench/functions.sh [STAP]
stap=${1:-./stap/stap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for kind in plain copies; do
for n in 5000 10000 20000 40000 100000; do
	awk -v n="$n" -v kind="$kind" 'BEGIN {
		ctx = kind == "copies" ? " + $prev->pid" : ""
		for (i = 0; i < n; i++)
			printf "function f%d(x) { return x%s + %d }\n", i, ctx, i
		print kind == "copies" ? \
			"probe kernel.trace(\"sched:sched_switch\") {" : \
			"probe begin {"
		for (i = 0; i < n; i++)
			printf "\ts += f%d(%d)\n", i, i
		print "\tprintln(s)\n}" }' >"$tmp/f.stp"
	t0=$(date +%s%N)
	"$stap" -p2 "$tmp/f.stp" >/dev/null 2>"$tmp/err" ||
		{ echo "functions: stap failed at $n: $(head -3 "$tmp/err")"; exit 1; }
	t1=$(date +%s%N)
	echo "stap -p2, $n functions ($kind): $(( (t1 - t0) / 1000000 )) ms"
done
done
