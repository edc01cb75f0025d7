#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pipe-head.sh - `stap ... | head -2` ends when the script runs in a guest.
# A timer script that prints a line every 100 ms, its output piped into
# `head -2`, in a throwaway guest (--vm) and in a kept one (--vm-keep, in
# a STAP_VM_DIR of the test's own, twice: the second run finds the guest
# up). As SystemTap 4.8's stapio does when its output goes away: the run
# stops as on SIGTERM, the end probe runs (its warn() arrives on stderr,
# its printed line is dropped), stderr has 4.8's "Couldn't write to
# output" line and stap's status is 0. Each pipeline must end within
# BOUND seconds (it never ended before: the guest ran on until ^C); no
# qemu of the throwaway run is left, and the kept guest serves a next run.
# Prints PASS/FAIL per check; exits 1 if any check failed, 77 to skip.
# Usage: tests/vm/pipe-head.sh (STAP=path/to/stap to test another build)

set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
stap=${STAP:-$top_builddir/stap/stap}
t=$(mktemp -d /tmp/stap-pipe-head.XXXXXX)
export STAP_VM_DIR=$t/vm
bound=60
. "$here/checks.sh"

cleanup() {
	kill_leftovers
	rm -rf "$t"
}
trap cleanup EXIT

command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$stap" ] || { echo "SKIP: no $stap (build first)"; exit 77; }

cat >"$t/ticks.stp" <<'EOF'
global n
probe timer.ms(100) { printf("tick %d\n", n++) }
probe end { println("end printed"); warn("end ran") }
EOF
cat >"$t/once.stp" <<'EOF'
probe begin { println("next run"); exit() }
EOF
mkdir "$t/tmp"
(cd "$t" && TMPDIR=$t/tmp "$stap" -p4 ticks.stp >/dev/null 2>"$t/p4.err" &&
	TMPDIR=$t/tmp "$stap" -p4 once.stp >/dev/null 2>>"$t/p4.err") ||
	{ echo "FAIL: pass 4 of the test scripts: $(head -5 "$t/p4.err")"; exit 1; }

# piped NAME STAP-OPTIONS...: stap OPTIONS ticks.stp | head -2, bounded
piped() {
	local name=$1
	shift
	# timeout signals its whole process group: stap and head too
	TMPDIR=$t/tmp timeout -k 5 $bound bash -c 'cd "$1" &&
		{ "$2" "${@:4}" ticks.stp 2>"$3.err"; echo $? >"$3.rc"; } |
		head -2 >"$3.out"' piped "$t" "$stap" "$t/$name" "$@"
	local rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name: the pipeline did not end within $bound s"
		return
	fi
	pass "$name: the pipeline ended within $bound s"
	[ "$(cat "$t/$name.out")" = "$(printf 'tick 0\ntick 1')" ] &&
		pass "$name: head got the first two lines" ||
		fail "$name: head's lines" "$(head -3 "$t/$name.out" | tr '\n' '|')"
	[ "$(cat "$t/$name.rc" 2>/dev/null)" = 0 ] &&
		pass "$name: stap's exit status 0 (as SystemTap 4.8's)" ||
		fail "$name: stap's exit status" "got $(cat "$t/$name.rc" 2>/dev/null), want 0; $(tail -3 "$t/$name.err")"
	grep -qx "ERROR: Couldn't write to output 1 for cpu 0, exiting.: Broken pipe" "$t/$name.err" &&
		pass "$name: SystemTap 4.8's message for the closed output" ||
		fail "$name: no 'Couldn't write to output' message" "$(tail -3 "$t/$name.err")"
	grep -qx "WARNING: end ran" "$t/$name.err" &&
		pass "$name: the end probe ran" ||
		fail "$name: the end probe did not run" "$(tail -3 "$t/$name.err")"
}

piped throwaway --vm
if wait_for '[ -z "$(leftovers)" ]' 100; then
	pass "throwaway: no qemu of the run left"
else
	fail "throwaway: processes left" "$(leftovers | xargs -r ps -o pid=,args= -p | cut -c1-150)"
fi

piped kept-first --vm-keep
piped kept-again --vm-keep
(cd "$t" && TMPDIR=$t/tmp timeout -k 5 $bound "$stap" --vm-keep once.stp \
	>"$t/next.out" 2>"$t/next.err")
rc=$?
[ $rc = 0 ] && [ "$(cat "$t/next.out")" = "next run" ] &&
	pass "kept: the guest serves the next run" ||
	fail "kept: the next run" "rc $rc: $(tail -3 "$t/next.out" "$t/next.err")"

[ $fails = 0 ]
