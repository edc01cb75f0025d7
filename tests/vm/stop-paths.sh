#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# stop-paths.sh - however stap ends, the guest and the temporary files go
# with it. Runs `stap --vm` of a script with a timer.s(100) probe, waits
# for its begin probe's output, and ends stap with SIGTERM, SIGHUP or
# SIGKILL; then checks that no process of the run is left (qemu, the
# watchdog, virtiofsd) and TMPDIR is empty, and for SIGTERM/SIGHUP that the end probe
# ran, its output arrived and stap exited 0 (SIGINT's behaviour). Also:
# -k with SIGKILL (the directory kept, the guest gone), SIGKILL in the
# middle of pass 4 (kbuild), and -x PID in a guest.
# Prints PASS/FAIL per check; exits 1 if any check failed, 77 to skip.
# Usage: tests/vm/stop-paths.sh (STAP=path/to/stap to test another build)

set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
stap=${STAP:-$top_builddir/stap/stap}
t=$(mktemp -d /tmp/stap-stop-paths.XXXXXX)
. "$here/checks.sh"

cleanup() {
	kill_leftovers
	rm -rf "$t"
}
trap cleanup EXIT


command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$stap" ] || { echo "SKIP: no $stap (build first)"; exit 77; }

script="$t/timer.stp"
cat >"$script" <<'EOF'
probe begin { println("begun") }
probe timer.s(100) { println("tick") }
probe end { println("end ran") }
EOF
mkdir "$t/tmp"


# no process of the run and nothing in TMPDIR, 10 s after stap ended
check_gone() {
	local what=$1
	if wait_for '[ -z "$(leftovers)" ]' 100; then
		pass "$what: no qemu or other process of the run left"
	else
		fail "$what: processes left" "$(leftovers | xargs -r ps -o pid=,args= -p | cut -c1-150)"
	fi
	if wait_for '[ -z "$(ls -A "$t/tmp")" ]' 100; then
		pass "$what: the temporary directory is gone"
	else
		fail "$what: left in TMPDIR" "$(ls -A "$t/tmp" | head -5)"
	fi
	kill_leftovers
	rm -rf "${t:?}"/tmp/*
}

# build once (the module cache): each run below then starts the guest
(cd "$t" && TMPDIR=$t/tmp "$stap" -p4 "$script" >/dev/null 2>"$t/p4.err") ||
	{ echo "FAIL: pass 4 of the test script: $(head -5 "$t/p4.err")"; exit 1; }

for sig in TERM HUP KILL; do
	(cd "$t" && TMPDIR=$t/tmp exec "$stap" --vm "$script" >"$t/$sig.out" \
		2>"$t/$sig.err") &
	pid=$!
	if ! wait_for 'grep -qs begun "$t/$sig.out"' 3000; then
		fail "SIG$sig: the guest never ran the begin probe" "$(tail -5 "$t/$sig.err")"
		kill -9 $pid
		wait $pid
		check_gone "SIG$sig"
		continue
	fi
	# the guest's view of this machine's files: virtiofsd runs beside
	# qemu (as root, where it is installed) and must go with it too
	if [ "$(id -u)" = 0 ] && [ -x /usr/lib/qemu/virtiofsd ]; then
		pgrep -f "virtiofsd --socket-path=$t/" >/dev/null &&
			pass "SIG$sig: virtiofsd of the run was running" ||
			fail "SIG$sig: no virtiofsd of the run" "$(pgrep -af virtiofsd)"
	fi
	kill -$sig $pid
	wait $pid
	rc=$?
	if [ $sig = KILL ]; then
		[ $rc = 137 ] && pass "SIGKILL: stap killed" ||
			fail "SIGKILL: exit status" "got $rc, want 137"
	else
		[ $rc = 0 ] && pass "SIG$sig: exit status 0" ||
			fail "SIG$sig: exit status" "got $rc, want 0; $(tail -3 "$t/$sig.err")"
		grep -qx 'end ran' "$t/$sig.out" &&
			pass "SIG$sig: the end probe's output arrived" ||
			fail "SIG$sig: no end probe output" "$(tail -3 "$t/$sig.out")"
	fi
	check_gone "SIG$sig"
done

# -k: the directory is kept, even when stap is killed; the guest is not
(cd "$t" && TMPDIR=$t/tmp exec "$stap" --vm -k "$script" >"$t/k.out" \
	2>"$t/k.err") &
pid=$!
if wait_for 'grep -qs begun "$t/k.out"' 3000; then
	kill -9 $pid
	wait $pid
	sleep 1
	if wait_for '[ -z "$(leftovers)" ]' 100; then
		pass "-k, SIGKILL: no qemu or other process of the run left"
	else
		fail "-k, SIGKILL: processes left" "$(leftovers | xargs -r ps -o pid=,args= -p | cut -c1-150)"
	fi
	ls -d "$t"/tmp/stap* >/dev/null 2>&1 &&
		pass "-k, SIGKILL: the temporary directory is kept" ||
		fail "-k, SIGKILL: the temporary directory is gone"
else
	fail "-k: the guest never ran the begin probe" "$(tail -5 "$t/k.err")"
	kill -9 $pid
	wait $pid
fi
kill_leftovers
rm -rf "${t:?}"/tmp/*

# SIGKILL in pass 4: kbuild (not killed with stap) must not keep the
# directory alive, nor leave gcc's temporary files in TMPDIR
(cd "$t" && TMPDIR=$t/tmp STAP_CACHE=$t/cache exec "$stap" -p4 \
	--poison-cache "$script" >/dev/null 2>&1) &
pid=$!
if wait_for '[ -n "$(pgrep -f "M=$t/tmp")" ]' 1200; then
	sleep 1
	kill -9 $pid
	wait $pid
	check_gone "SIGKILL in pass 4"
else
	fail "SIGKILL in pass 4: kbuild never started"
	kill -9 $pid
	wait $pid
fi

# -x PID has no meaning in a guest: refused, nothing left behind
(cd "$t" && TMPDIR=$t/tmp "$stap" --vm -x $$ "$script" >"$t/x.out" 2>"$t/x.err")
rc=$?
[ $rc = 1 ] && grep -q -- 'which has no process of this host; use -c CMD' "$t/x.err" &&
	pass "-x PID in a guest refused" ||
	fail "-x PID in a guest" "rc $rc: $(cat "$t/x.err")"
check_gone "-x PID"

[ $fails = 0 ]
