#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Pass-2 and pass-3 wall time against the size of a script, ours beside
# SystemTap 4.8 (/usr/bin/stap -r RELEASE) in the same run. Three shapes:
#   functions  N script functions nothing calls, and one begin probe
#   globals    N globals, each read and written by one begin probe
#   probes     N timer probes, each adding its number to one global
# Each row: the shape, N, then ours and 4.8's seconds at -p2 and -p3 (a
# dash when 4.8 is not installed or NO_STAP48 is set; "fail" when a run
# fails; ">T" when it ran out of its T seconds: TIMEOUT, 600 by default,
# for ours, TIMEOUT48, 120 by default, for 4.8, which is not run again for
# the larger sizes of a shape and pass once it ran out). The figures
# should grow linearly. No pass or fail.
# Usage: bench/scale.sh [STAP] [SHAPE...]   (SIZES="10000 20000 ..."; the
#        default 10000 20000 50000 100000; RELEASE for 4.8's -r)
stap=${1:-./stap/stap}
[ $# -gt 0 ] && shift
shapes=${*:-functions globals probes}
sizes=${SIZES:-10000 20000 50000 100000}
release=${RELEASE:-6.1.0-56-cloud-amd64}
limit=${TIMEOUT:-600}
limit48=${TIMEOUT48:-120}
stap48=
[ -z "${NO_STAP48:-}" ] && [ -x /usr/bin/stap ] && stap48=/usr/bin/stap
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gen() {
	awk -v n="$2" -v shape="$1" 'BEGIN {
		if (shape == "functions") {
			for (i = 0; i < n; i++)
				printf "function f%d(x) { return x + %d }\n", i, i
			print "probe begin { exit() }"
		} else if (shape == "globals") {
			for (i = 0; i < n; i++)
				printf "global g%d\n", i
			print "probe begin {"
			for (i = 0; i < n; i++)
				printf "\tg%d += %d\n", i, i
			print "\texit()\n}"
		} else {
			print "global total"
			for (i = 0; i < n; i++)
				printf "probe timer.ms(%d) { total += %d }\n", \
					i % 1000 + 1, i
		}
	}'
}

# seconds of one run, or "fail", or ">TIMEOUT"
run() {
	local t0 t1 rc
	t0=$(date +%s%N)
	timeout "$limit" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 124 ] && { echo ">$limit"; return; }
	[ $rc = 0 ] || { echo fail; return; }
	t1=$(date +%s%N)
	awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2f", ns / 1e9 }'
}

printf '%-10s %7s %9s %9s %9s %9s\n' shape n "p2" "p2(4.8)" "p3" "p3(4.8)"
for shape in $shapes; do
	over48=()
	for n in $sizes; do
		gen "$shape" "$n" >"$tmp/s.stp"
		row=()
		for pass in 2 3; do
			row+=("$(run "$stap" -p$pass "$tmp/s.stp")")
			if [ -z "$stap48" ]; then
				row+=(-)
			elif [ -n "${over48[$pass]:-}" ]; then
				row+=(">$limit48")
			else
				t=$(limit=$limit48 run "$stap48" -r "$release" \
					-p$pass "$tmp/s.stp")
				row+=("$t")
				[ "$t" = ">$limit48" ] && over48[$pass]=1
			fi
		done
		printf '%-10s %7d %9s %9s %9s %9s\n' "$shape" "$n" "${row[@]}"
	done
done
