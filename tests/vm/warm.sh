#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# warm.sh - stap --vm-keep: one guest kept between runs (vm/vm_warm.c,
# vm/vm_keeper.c), in a directory of the test's own (STAP_VM_DIR). For
# each kernel with headers (or WARM_RELEASES):
#   - two scripts in a row through one guest: each one's stdout, stderr
#     and exit status; the second did not boot (stap -v says "job 2 ...
#     no boot" with the first run's qemu, still running; keeper.log has
#     one boot)
#   - -c CMD runs in the guest; script arguments reach it
#   - a script that fails (error(): status 1) leaves the next run working
#     in the same guest
#   - SIGINT to stap reaches the guest's script: the end probe's output
#     arrives, status 0, and the guest serves the next run
# On the first kernel also:
#   - a run while another has the guest boots a guest of its own (and
#     says so); both outputs right
#   - a job that leaves a WARNING in the guest's dmesg: reported as in a
#     throwaway guest (status 1), that guest powered off, the next run
#     boots a new one
#   - stap killed (SIGKILL) in the middle of a job: the guest ends the job
#     and serves the next run
#   - --sign-module: the signed module runs
#   - STAP_VM_DIR writable by others: refused as the cache directory is
#     (the run boots a throwaway guest and says why)
#   - --vm-keep=2: the guest powers off 2 s after its last job (no qemu
#     of the test left)
# Every guest of the test is killed at the end.
# Prints PASS/FAIL per check; exits 1 if any check failed, 77 to skip.
# Usage: tests/vm/warm.sh (STAP=path/to/stap to test another build;
# WARM_RELEASES="R..." for some kernels only; WARM_KEEP_LOGS=FILE to keep
# the guests' keeper.log there)

set -u
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$(cd "$here/../.." && pwd)}
stap=${STAP:-$top_builddir/stap/stap}
t=$(mktemp -d /tmp/stap-warm.XXXXXX)
export STAP_VM_DIR=$t/vm
. "$here/checks.sh"

# our guests: qemu with $t/vm/ in its command line, and its keeper
ours() {
	local q
	for q in $(pgrep -f "$t/vm/"); do
		[ "$q" = $$ ] && continue
		echo "$q"
		ps -o ppid= -p "$q" 2>/dev/null | tr -d ' '
	done
}
cleanup() {
	local p
	for p in $(ours); do
		[ "$p" -gt 1 ] 2>/dev/null && kill -9 "$p" 2>/dev/null
	done
	rm -rf "$t"
}
trap cleanup EXIT
[ -n "${WARM_KEEP_LOGS:-}" ] && trap 'cat "$t"/vm/*/keeper.log >"$WARM_KEEP_LOGS" 2>/dev/null; cleanup' EXIT


command -v qemu-system-x86_64 >/dev/null ||
	{ echo "SKIP: no qemu-system-x86_64"; exit 77; }
[ -x "$stap" ] || { echo "SKIP: no $stap (build first)"; exit 77; }
releases=${WARM_RELEASES:-$(ls /boot/vmlinuz-* 2>/dev/null |
	sed 's|/boot/vmlinuz-||' | while read -r r; do
		[ -f "/lib/modules/$r/build/Makefile" ] && echo "$r"
	done | sort -V)}
[ -n "$releases" ] || { echo "SKIP: no kernel with image and headers"; exit 77; }


# run NAME ARGS...: stap -v --vm-keep ARGS, outputs in $t/NAME.{out,err},
# status in $t/NAME.rc; the -v lines of the loader and of the passes are
# left out of NAME.err, the warm guest's line kept in NAME.warm
run() {
	local name=$1
	shift
	(cd "$t" && "$stap" -v -r "$rel" --vm-keep "$@" >"$t/$name.out" \
		2>"$t/$name.allerr")
	echo $? >"$t/$name.rc"
	grep '^stap: warm guest' "$t/$name.allerr" >"$t/$name.warm"
	grep -v -e '^Pass [0-9]' -e '^stap: warm guest' -e '^stap: the guest:' \
		-e '^staprun:' "$t/$name.allerr" >"$t/$name.err"
}

# check NAME RC STDOUT [STDERR-SUBSTRING]: the run's status and output
check() {
	local name=$1 rc=$2 out=$3 err=${4:-}
	if [ "$(cat "$t/$name.rc")" != "$rc" ]; then
		fail "$rel: $name: exit status" "got $(cat "$t/$name.rc"), want $rc; $(tail -5 "$t/$name.allerr")"
	elif [ "$(cat "$t/$name.out")" != "$out" ]; then
		fail "$rel: $name: stdout" "got '$(head -c 300 "$t/$name.out")', want '$out'"
	elif [ -n "$err" ] && ! grep -qF -- "$err" "$t/$name.err"; then
		fail "$rel: $name: stderr" "no '$err' in: $(head -c 300 "$t/$name.err")"
	elif [ -z "$err" ] && [ -s "$t/$name.err" ]; then
		fail "$rel: $name: stderr" "want none, got: $(head -c 300 "$t/$name.err")"
	else
		pass "$rel: $name: status $rc and its output"
	fi
}

# the qemu pid of a run's "booted" / "no boot" line
qemu_of() { sed -n 's/^stap: warm guest (qemu \([0-9]*\)).*/\1/p' "$t/$1.warm"; }

# reused NAME JOB: NAME ran as job JOB of the guest booted by $booted
reused() {
	local name=$1 job=$2
	if grep -q "^stap: warm guest (qemu $booted): job $job, up .* s, no boot\$" \
		"$t/$name.warm" && kill -0 "$booted" 2>/dev/null; then
		pass "$rel: $name: no boot, job $job of the same guest"
	else
		fail "$rel: $name: not job $job of guest $booted" "$(cat "$t/$name.warm")"
	fi
}

first=1
for rel in $releases; do
	tag=${rel%%-*}
	tag=${tag%.0}
	dir_glob="$t/vm/$rel-"

	# 1. a boot, then a second script without one
	run one-$tag -e 'probe begin { printf("one %s\n", @1) exit() }' x
	check one-$tag 0 "one x"
	booted=$(qemu_of one-$tag)
	if grep -q "^stap: warm guest (qemu [0-9]*): booted in" "$t/one-$tag.warm"; then
		pass "$rel: one: the guest booted (qemu $booted)"
	else
		fail "$rel: one: no boot line" "$(cat "$t/one-$tag.allerr" | tail -5)"
	fi
	run two-$tag -e 'probe begin { println("two") warn("w2") exit() }'
	check two-$tag 0 "two" "WARNING: w2"
	reused two-$tag 2
	boots=$(cat "$dir_glob"*/keeper.log 2>/dev/null | grep -c ' booted in ')
	[ "$boots" = 1 ] && pass "$rel: keeper.log: one boot for two runs" ||
		fail "$rel: keeper.log: $boots boots" "$(cat "$dir_glob"*/keeper.log)"

	# 2. -c CMD in the guest
	run cmd-$tag -c 'echo from-cmd' \
		-e 'probe begin { println("c-begin") } probe end { println("c-end") }'
	check cmd-$tag 0 "c-begin
from-cmd
c-end"
	reused cmd-$tag 3

	# 3. a failing script, then the next one works in the same guest
	run boom-$tag -e 'probe begin { error("boom") }'
	check boom-$tag 1 "" "ERROR: boom"
	run after-$tag -e 'probe begin { printf("one %s\n", @1) exit() }' y
	check after-$tag 0 "one y"
	reused after-$tag 5

	# 4. SIGINT reaches the guest's script
	(cd "$t" && exec "$stap" -v -r "$rel" --vm-keep -e 'probe begin { println("begun") }
probe timer.s(100) { println("tick") } probe end { println("end ran") }' \
		>"$t/int-$tag.out" 2>"$t/int-$tag.allerr") &
	pid=$!
	if wait_for 'grep -qs begun "$t/int-$tag.out"' 3000; then
		kill -INT $pid
		wait $pid 2>/dev/null
		rc=$?
		[ $rc = 0 ] && [ "$(cat "$t/int-$tag.out")" = "begun
end ran" ] && pass "$rel: SIGINT: the end probe ran, status 0" ||
			fail "$rel: SIGINT" "rc $rc, stdout $(cat "$t/int-$tag.out"), $(tail -3 "$t/int-$tag.allerr")"
	else
		fail "$rel: SIGINT: the begin probe never ran" "$(tail -5 "$t/int-$tag.allerr")"
		kill -9 $pid
		wait $pid 2>/dev/null
	fi
	run next-$tag -e 'probe begin { printf("one %s\n", @1) exit() }' z
	check next-$tag 0 "one z"
	reused next-$tag 7

	if [ $first = 1 ]; then
		first=0

		# 5. busy: a second run boots a guest of its own
		(cd "$t" && exec "$stap" -r "$rel" --vm-keep -e 'probe begin { println("begun") }
probe timer.s(100) { println("tick") } probe end { println("end ran") }' \
			>"$t/hold.out" 2>"$t/hold.err") &
		pid=$!
		if wait_for 'grep -qs begun "$t/hold.out"' 3000; then
			run busy -e 'probe begin { printf("one %s\n", @1) exit() }' b
			check busy 0 "one b" "stap: the warm guest is busy with another run: booting a guest of this run's own"
			kill -INT $pid
			wait $pid 2>/dev/null
			rc=$?
			[ $rc = 0 ] && [ "$(cat "$t/hold.out")" = "begun
end ran" ] && pass "$rel: busy: the first run's output intact" ||
				fail "$rel: busy: the first run" "rc $rc, $(cat "$t/hold.out")"
		else
			fail "$rel: busy: the first run never began" "$(tail -5 "$t/hold.err")"
			kill -9 $pid
			wait $pid 2>/dev/null
		fi

		# 6. SIGKILL of stap mid-job: the guest stays and serves
		(cd "$t" && exec "$stap" -r "$rel" --vm-keep -e 'probe begin { println("begun") }
probe timer.s(100) { println("tick") } probe end { println("end ran") }' \
			>"$t/killed.out" 2>"$t/killed.err") &
		pid=$!
		if wait_for 'grep -qs begun "$t/killed.out"' 3000; then
			kill -9 $pid
			wait $pid 2>/dev/null
			run orphan -e 'probe begin { printf("one %s\n", @1) exit() }' o
			check orphan 0 "one o"
			reused orphan 10
		else
			fail "$rel: SIGKILL: the run never began" "$(tail -5 "$t/killed.err")"
			kill -9 $pid
			wait $pid 2>/dev/null
		fi

		# 7. a kernel WARNING: reported, and the guest is replaced
		run warn -g -e 'function w() %{ WARN_ON(1); %} probe begin { w() exit() }'
		check warn 1 "" "stap: guest kernel: "
		if wait_for '! kill -0 $booted 2>/dev/null' 300; then
			pass "$rel: warn: the guest in doubt powered off"
		else
			fail "$rel: warn: qemu $booted still runs"
		fi
		run fresh -e 'probe begin { printf("one %s\n", @1) exit() }' f
		check fresh 0 "one f"
		if grep -q "^stap: warm guest (qemu [0-9]*): booted in" "$t/fresh.warm" &&
		   [ "$(qemu_of fresh)" != "$booted" ]; then
			pass "$rel: fresh: a new guest booted"
		else
			fail "$rel: fresh: no new boot" "$(cat "$t/fresh.warm")"
		fi
		booted=$(qemu_of fresh)

		# 8. a signed module
		run signed --sign-module="$t/keys" \
			-e 'probe begin { printf("one %s\n", @1) exit() }' s
		check signed 0 "one s" "stap: made the module signing key"
		reused signed 2

		# 9. a directory others may write is refused, as the cache is:
		# the run boots a throwaway guest
		mkdir -m 0777 "$t/open" && chmod 0777 "$t/open"
		STAP_VM_DIR=$t/open run refused -e 'probe begin { printf("one %s\n", @1) exit() }' r
		check refused 0 "one r" "stap: cannot keep a warm guest: $t/open: it is writable by group and others (mode 0777): they could replace what it holds: booting a guest of this run's own"
		[ -z "$(ls -A "$t/open")" ] &&
			pass "$rel: refused: nothing kept there" ||
			fail "$rel: refused: $(ls -A "$t/open")"

		# 10. the idle time: powered off 2 s after the last job
		run idle --vm-keep=2 -e 'probe begin { printf("one %s\n", @1) exit() }' i
		check idle 0 "one i"
		if wait_for '[ -z "$(ours)" ]' 300; then
			pass "$rel: idle: the guest powered off after 2 s idle"
		else
			fail "$rel: idle: qemu of the test still running 30 s after" \
				"$(ours | xargs -r ps -o pid=,args= -p | cut -c1-120)"
		fi
		grep -q 'powering off: idle for 2 s' "$dir_glob"*/keeper.log &&
			pass "$rel: idle: keeper.log says why" ||
			fail "$rel: idle: keeper.log" "$(tail -3 "$dir_glob"*/keeper.log)"
	fi

	# this kernel's guest goes before the next kernel's
	for p in $(ours); do
		[ "$p" -gt 1 ] 2>/dev/null && kill -9 "$p" 2>/dev/null
	done
	wait_for '[ -z "$(ours)" ]' 100
done

[ $fails = 0 ]
