#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# User stacks and source lines on the BPF backend, natively (root): the
# ns a process.syscall hit adds on bench/ustack/loop.c's getppid() loop
# (built -g -O2 -fomit-frame-pointer, four calls deep) for the filter
# alone, usymname(ustack(1)) and usymfileline(ustack(1)) (the walk to
# the caller, then its symbol or its line from the tables in the
# program); and the start-up of a script with the line tables of a big
# object (-d stap/stap) against the same without them: the first build
# (STAP_BPF_NO_CACHE=1) and a cached run, command to exit.
#   bench/bpf-ustack.sh [CALLS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=$top/stap/stap
calls=${1:-1000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
gcc -g -O2 -fomit-frame-pointer -o uloop "$top/bench/ustack/loop.c"

ns() { sed -n 's/^loop [0-9]* calls \([0-9]*\) ns$/\1/p'; }
run() { # body: the loop's best of 3 ns
	for i in 1 2 3; do
		"$stap" --runtime=bpf -d ./uloop -e "global s
probe process.syscall { if (\$syscall != 110 || pid() != target()) next; $1 }
probe end { if (s == \"never\") println(s) }" -c "./uloop $calls" | ns
	done | sort -n | head -1
}
base=$(for i in 1 2 3; do ./uloop "$calls" | ns; done | sort -n | head -1)
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a / b }'; }
echo "per hit, $calls calls, $(uname -r) (added ns, best of 3):"
printf '  %-34s %8s ns per call\n' "no probe" "$(div "$base" "$calls")"
for body in 's = "x"' 's = usymname(ustack(1))' 's = usymfileline(ustack(1))'; do
	printf '  %-34s %+8s ns per hit\n' "$body" \
		"$(div $(( $(run "$body") - base )) "$calls")"
done
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
echo "start-up, -d stap/stap (its tables in the program), command to exit:"
for fn in usymname usymfileline; do
	script="probe process.syscall { if (pid() == target()) println($fn(ustack(0))) }"
	first=$(STAP_BPF_NO_CACHE=1 secs "$stap" --runtime=bpf -d "$stap" \
		-e "$script" -c /bin/true)
	"$stap" --runtime=bpf -d "$stap" -e "$script" -c /bin/true >/dev/null
	cached=$(secs "$stap" --runtime=bpf -d "$stap" -e "$script" -c /bin/true)
	printf '  %-14s first build %5s s, cached %5s s\n' "$fn" "$first" \
		"$cached"
done
