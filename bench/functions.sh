#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Pass-2 wall time against the number of script functions: N functions
# f0..fN-1, each called once from a begin probe (a lookup per declaration
# and per call). The figures should grow linearly; before the name index
# (semantic/names.c) and the callee set (semantic/types.c) they grew
# quadratically: 5k/10k/20k/40k took 0.9/3.7/11.1/42.3 s. No pass or fail.
# Usage: bench/functions.sh [STAP]
stap=${1:-./stap/stap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 5000 10000 20000 40000 100000; do
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "function f%d(x) { return x + %d }\n", i, i
		print "probe begin {"
		for (i = 0; i < n; i++)
			printf "\ts += f%d(%d)\n", i, i
		print "\tprintln(s)\n}" }' >"$tmp/f.stp"
	t0=$(date +%s%N)
	"$stap" -p2 "$tmp/f.stp" >/dev/null 2>"$tmp/err" ||
		{ echo "functions: stap failed at $n: $(head -3 "$tmp/err")"; exit 1; }
	t1=$(date +%s%N)
	echo "stap -p2, $n functions: $(( (t1 - t0) / 1000000 )) ms"
done
