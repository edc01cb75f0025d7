#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stdin-input.sh - input.line and input.char (issue 27) fed from stap's
# standard input when the script runs in a guest: `printf ... | stap`
# in a throwaway guest (--vm) of each kernel with headers. The loader
# writes the bytes to the module's __stdin a byte at a time (both probes
# run on each), the host sends them to the guest's control loop and a
# FIFO gives them to the loader; a line fires input.line with its
# newline, the end of the input ends nothing (the script exits itself).
# Before: input.line was unknown (pass 2). A script without input.* keeps
# /dev/null as the job's standard input (-c cat ends at once). With
# --vm-keep, such a script boots a throwaway guest (a kept one has no
# channel for the input) and says so.
# Prints PASS/FAIL per check; exits 1 if any check failed, 77 to skip.
# Usage: tests/vm/stdin-input.sh (STAP=path/to/stap to test another build)

set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
stap=${STAP:-$top_builddir/stap/stap}
t=$(mktemp -d /tmp/stap-stdin-input.XXXXXX)
bound=300
. "$here/checks.sh"

cleanup() {
	kill_leftovers
	rm -rf "$t"
}
trap cleanup EXIT

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$stap" ] || { echo "SKIP: no $stap (build first)"; exit 77; }

cat >"$t/lines.stp" <<'EOT'
global chars
probe input.char { chars++ }
probe input.line {
	printf("line: %s", line)
	if (line == "second\n")
		exit()
}
probe end { printf("%d chars\n", chars) }
EOT
cat >"$t/nostdin.stp" <<'EOT'
probe begin { println("begin") }
EOT
mkdir "$t/tmp"
releases=$(ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V)
[ -n "$releases" ] || { echo "SKIP: no kernel headers"; exit 77; }
for r in $releases; do
	(cd "$t" && printf 'first line\nsecond\n' | TMPDIR=$t/tmp \
		timeout -k 5 $bound "$stap" --vm -r "$r" lines.stp \
		>"$t/$r.out" 2>"$t/$r.err")
	rc=$?
	want=$(printf 'line: first line\nline: second\n18 chars')
	[ $rc = 0 ] && [ "$(cat "$t/$r.out")" = "$want" ] &&
		pass "$r: input.line and input.char from stap's standard input" ||
		fail "$r: input" "rc $rc: $(tr '\n' '|' <"$t/$r.out") $(tail -3 "$t/$r.err")"
	(cd "$t" && printf 'not read\n' | TMPDIR=$t/tmp \
		timeout -k 5 $bound "$stap" --vm -r "$r" -c cat nostdin.stp \
		>"$t/$r.no.out" 2>"$t/$r.no.err")
	rc=$?
	[ $rc = 0 ] && [ "$(cat "$t/$r.no.out")" = begin ] &&
		pass "$r: without input.*, the command's standard input is /dev/null" ||
		fail "$r: without input.*" "rc $rc: $(tr '\n' '|' <"$t/$r.no.out") $(tail -3 "$t/$r.no.err")"
done
# --vm-keep: a kept guest gets no standard input, so such a script boots
# a throwaway one, and says so
r=$(echo "$releases" | head -1)
(cd "$t" && printf 'first line\nsecond\n' | STAP_VM_DIR=$t/vm TMPDIR=$t/tmp \
	timeout -k 5 $bound "$stap" --vm-keep -r "$r" lines.stp \
	>"$t/keep.out" 2>"$t/keep.err")
rc=$?
[ $rc = 0 ] && [ "$(cat "$t/keep.out")" = "$want" ] &&
	grep -q "which a kept guest does not get: booting one for this run" "$t/keep.err" &&
	pass "$r: --vm-keep: a throwaway guest gets the input" ||
	fail "$r: --vm-keep" "rc $rc: $(tr '\n' '|' <"$t/keep.out") $(tail -3 "$t/keep.err")"
if wait_for '[ -z "$(leftovers)" ]' 100; then
	pass "no qemu of the runs left"
else
	fail "processes left" "$(leftovers | xargs -r ps -o pid=,args= -p | cut -c1-150)"
fi
[ $fails = 0 ]
