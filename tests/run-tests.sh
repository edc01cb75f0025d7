#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The test suite: unit tests, per-pass golden tests, diagnostics, and
# end-to-end runs of scripts in a qemu guest (several scripts per boot).
# Prints PASS/FAIL/SKIP per test and ends with "N passed, N failed, N skipped".
#
#   tests/run-tests.sh [--update] [--no-vm] [PATTERN...]
#     --update   rewrite the golden files (.p1 .p2 .err .out) from the output
#     --no-vm    skip the tests that boot a guest
#     PATTERN    only tests whose name contains one of the PATTERNs
#
# See tests/README.md for the layout and how to add a test.
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
STAP=$top_builddir/stap/stap
STAPVM=$top_builddir/stap/stapvm
tests=$top_srcdir/tests
update=0
use_vm=1
patterns=()
for arg in "$@"; do
	case $arg in
	--update) update=1 ;;
	--no-vm) use_vm=0 ;;
	*) patterns+=("$arg") ;;
	esac
done

npass=0 nfail=0 nskip=0
failed_names=
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

pass() { npass=$((npass + 1)); echo "PASS: $1"; }
fail() {
	nfail=$((nfail + 1))
	failed_names="$failed_names $1"
	echo "FAIL: $1"
	[ -n "${2:-}" ] && sed 's/^/    /' <<<"$2" | head -40
	return 0
}
skip() { nskip=$((nskip + 1)); echo "SKIP: $1 ($2)"; }
wanted() { # name: no pattern, or one the name contains
	local p
	[ ${#patterns[@]} -eq 0 ] && return 0
	for p in "${patterns[@]}"; do
		[[ $1 == *"$p"* ]] && return 0
	done
	return 1
}
# A pattern naming one test inside a group (library/aliases-6.1) still
# selects the group's run.
wanted_group() { # group
	local p
	wanted "$1" && return 0
	for p in "${patterns[@]}"; do
		[[ $p == "$1"* ]] && return 0
	done
	return 1
}

# Compare a file with expected output; with --update, rewrite it instead.
check_golden() { # name expected actual
	local name=$1 want=$2 got=$3
	if [ $update = 1 ]; then
		cp "$got" "$want"
		pass "$name (updated)"
	elif [ ! -f "$want" ]; then
		fail "$name" "missing golden file ${want#$top_srcdir/}"
	elif cmp -s "$want" "$got"; then
		pass "$name"
	else
		fail "$name" "$(diff -u "$want" "$got" | head -30)"
	fi
}

# Why a guest run differs from what is expected (exit status, then stdout,
# then stderr, byte for byte); prints nothing and fails when it matches.
run_differs() { # want_rc got_rc want_out got_out want_err got_err
	if [ "$2" != "$1" ]; then
		echo "exit status $2, expected $1
stdout: $(head -c 2000 "$4" 2>/dev/null)
stderr: $(head -c 2000 "$6" 2>/dev/null)"
	elif ! cmp -s "$3" "$4"; then
		echo "stdout differs:
$(diff -u "$3" "$4" | head -30)"
	elif ! cmp -s "$5" "$6"; then
		echo "stderr differs:
$(diff -u "$5" "$6" | head -30)"
	else
		return 1
	fi
}

# The guest kernel must stay healthy through a batch: its dmesg (fetched
# into OUTDIR/dmesg.txt) has no BUG:, Oops, WARNING:, general protection,
# RCU stall or hung task.
check_dmesg() { # name outdir
	local problems
	problems=$(grep -E 'BUG:|Oops|WARNING:|general protection|stalls? on CPU|self-detected stall|blocked for more than' \
		"$2/dmesg.txt" 2>/dev/null)
	if [ ! -s "$2/dmesg.txt" ]; then
		fail "$1" "no dmesg came back from the guest"
	elif [ -n "$problems" ]; then
		fail "$1" "$problems"
	else
		pass "$1"
	fi
}

# Options for a test script: a "# stap-args: ..." line at its top.
script_args() {
	sed -n 's/^# stap-args: //p' "$1" | head -1 |
		sed "s|\\\$OUT|${vm_cwd:-.}|g"
}

# Environment for a test script's stap: a "# stap-env: NAME=VALUE ..."
# line at its top (STAP_UNITS=3: its C in three translation units).
script_env() {
	sed -n 's/^# stap-env: //p' "$1" | head -1
}

# stap OPTIONS FILE from FILE's folder, with the file's own options and
# environment: error messages then quote the bare file name.
stap_here() { # file options...
	local f=$1
	shift
	(cd "$(dirname "$f")" && env $(script_env "$f") "$STAP" "$@" \
		$(script_args "$f") "$(basename "$f")")
}

# Run jobs in one guest boot with results in OUTDIR. Succeeds when the guest
# ran them all: stapvm's status 2 (it ran them, but the guest's dmesg shows
# a problem) is left to the callers' dmesg checks.
vm_files=()	# --file options for the guest (run_e2e sets them)
vm_cwd=	# the directory stapvm runs in (run_e2e sets it)
# $vm_opts: more stapvm options for the boot (e2e's "# stap-vm:").
vm_opts=
run_batch() { # release outdir log job...
	local release=$1 out=$2 log=$3 rc
	shift 3
	rm -rf "$out"
	mkdir -p "$out"
	# the guest's jobs start in stapvm's directory: e2e's built files
	(cd "${vm_cwd:-.}" && "$STAPVM" -r "$release" --staprun "$top_builddir/stap/staprun" \
		"${vm_files[@]}" --timeout 600 $vm_opts --batch "$out" "$@" >"$log" 2>&1)
	rc=$?
	[ $rc = 0 ] || [ $rc = 2 ]
}

### unit tests (C, linked with libstap.a)
for src in "$tests"/unit/test_*.c; do
	name=unit/$(basename "$src" .c)
	wanted "$name" || continue
	bin=$top_builddir/tests/unit/$(basename "$src" .c)
	if [ ! -x "$bin" ]; then
		fail "$name" "not built: run 'make check TESTS=' first"
		continue
	fi
	out=$("$bin" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		pass "$name"
	elif [ $rc = 77 ]; then	# automake's "skipped"
		skip "$name" "$(grep -m1 '^SKIP' <<<"$out" | sed 's/^SKIP: *//')"
	else
		fail "$name" "$out"
	fi
done

### the source layout: includes follow the dependency order, only probes/
### names a probe family, the family list is written once, no file over
### 1,500 lines (HACKING.md, "Layout")
if wanted layout/rules; then
	if out=$("$top_srcdir/tests/layering.sh" 2>&1); then
		pass layout/rules
	else
		fail layout/rules "$out"
	fi
fi

### the man pages: groff finds nothing to warn about in any page (the
### generated tapset pages included), every [man X] tag of the sources has
### a page, stap(1) names every option of stap --help (tests/man-pages.sh)
if wanted man/pages; then
	out=$(top_srcdir=$top_srcdir "$tests/man-pages.sh" "$STAP" "$work" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		pass man/pages
	elif [ $rc = 77 ]; then
		skip man/pages "$(tail -1 <<<"$out")"
	else
		fail man/pages "$out"
	fi
fi

### flame graphs (flame/flame.h through stap/stapflame): NAME.folded gives
### an SVG that a real XML parser reads, with exactly the frames of
### NAME.expect (x, width, title); a large input renders in time; and in
### headless Chromium the script runs, zooms and searches
STAPFLAME=$top_builddir/stap/stapflame
flame_ok=1
if ! ls "$tests"/flame/*.folded >/dev/null 2>&1; then
	flame_ok=0
elif [ ! -x "$STAPFLAME" ]; then
	flame_ok=0
	for f in "$tests"/flame/*.folded; do
		name=flame/$(basename "$f" .folded)
		wanted "$name" && fail "$name" "stap/stapflame is not built"
	done
elif ! python3 -c 'import xml.etree.ElementTree' 2>/dev/null; then
	flame_ok=0
	for f in "$tests"/flame/*.folded; do
		name=flame/$(basename "$f" .folded)
		wanted "$name" && skip "$name" "python3 with xml.etree is not installed"
	done
fi
if [ $flame_ok = 1 ]; then
	for f in "$tests"/flame/*.folded; do
		name=flame/$(basename "$f" .folded)
		wanted "$name" || continue
		if ! "$STAPFLAME" --title "$name" "$f" >"$work/flame.svg" 2>"$work/flame.err"; then
			fail "$name" "stapflame failed: $(cat "$work/flame.err")"
		elif out=$(python3 "$tests/flame/check-svg.py" "$work/flame.svg" \
			"${f%.folded}.expect" 2>&1); then
			pass "$name"
		else
			fail "$name" "$out"
		fi
	done
fi

# the command's errors and notes
if wanted flame/cli && [ -x "$STAPFLAME" ]; then
	problems=
	printf 'a;b 1\nbroken\n' | "$STAPFLAME" >/dev/null 2>"$work/err" &&
		grep -qx 'stapflame: 1 malformed line skipped' "$work/err" ||
		problems="malformed line: $(cat "$work/err")"
	"$STAPFLAME" --width 5 "$tests/flame/basic.folded" >/dev/null 2>"$work/err" &&
		problems="$problems
--width 5 accepted"
	grep -q 'width 5: must be' "$work/err" || problems="$problems
--width 5: $(cat "$work/err")"
	"$STAPFLAME" "$work/no-such-file" >/dev/null 2>&1 &&
		problems="$problems
a missing input file accepted"
	if [ -z "$problems" ]; then pass flame/cli; else fail flame/cli "$problems"; fi
fi

# 100,000 distinct stacks, 5 to 30 frames deep from a few thousand names
# (about 1.4 million distinct frames): seconds of margin for a busy machine
if wanted flame/large && [ -x "$STAPFLAME" ]; then
	awk 'BEGIN { srand(7); for (i = 0; i < 100000; i++) {
		d = 5 + int(rand() * 25); s = "main"
		for (j = 0; j < d; j++)
			s = s ";func_" int(rand() * (j < 3 ? 20 : 2000)) "_" j
		print s, 1 + int(rand() * 100) } }' >"$work/large.folded"
	start=$(date +%s%N)
	if ! "$STAPFLAME" "$work/large.folded" >"$work/large.svg" 2>"$work/err"; then
		fail flame/large "stapflame failed: $(cat "$work/err")"
	else
		ms=$((($(date +%s%N) - start) / 1000000))
		if [ $ms -gt 5000 ]; then
			fail flame/large "took ${ms} ms (limit 5000)"
		elif ! out=$(python3 -c 'import sys, xml.etree.ElementTree as E
E.parse(sys.argv[1])' "$work/large.svg" 2>&1); then
			fail flame/large "$out"
		else
			pass "flame/large (100000 stacks in ${ms} ms)"
		fi
	fi
fi

# Chromium loads the SVG of basic.folded with "#z=2&s=^c$": the script
# must run without an uncaught error, mark the root element ready, zoom
# into frame 2 (b: full width, its sibling c hidden) and match c (25%).
if wanted flame/chromium && [ -x "$STAPFLAME" ]; then
	if ! command -v chromium >/dev/null; then
		skip flame/chromium "chromium is not installed (scripts/setup.sh --test installs it)"
	else
		"$STAPFLAME" "$tests/flame/basic.folded" >"$work/chromium.svg"
		timeout 120 chromium --headless --disable-gpu --no-sandbox \
			--user-data-dir="$work/chromium-profile" \
			--enable-logging=stderr --v=0 --dump-dom \
			"file://$work/chromium.svg#z=2&s=%5Ec%24" \
			>"$work/dom" 2>"$work/chromium.err"
		problems=
		for want in 'data-flame-ready="4"' 'data-flame-zoom="2"' \
			'>Matched: 25.00%<' \
			'<title>b (3 samples, 75.00%)</title><rect x="10.00" y="36" width="1180.00"' \
			'<g class="f" data-o="3" data-s="1" style="display: none;"><title>c (1 sample'; do
			grep -qF -- "$want" "$work/dom" || problems="$problems
missing from the DOM: $want"
		done
		if grep -q 'CONSOLE.*Uncaught' "$work/chromium.err"; then
			problems="$problems
$(grep 'CONSOLE' "$work/chromium.err" | head -5)"
		fi
		if [ ! -s "$work/dom" ]; then
			problems="no DOM dumped: $(tail -5 "$work/chromium.err")"
		fi
		if [ -z "$problems" ]; then pass flame/chromium; else fail flame/chromium "$problems"; fi
	fi
fi

### pass 1: canonical print (.p1) and its round trip
for f in "$tests"/p1/*.stp; do
	name=p1/$(basename "$f" .stp)
	wanted "$name" || continue
	stap_here "$f" -p1 >"$work/out" 2>&1
	check_golden "$name" "${f%.stp}.p1" "$work/out"
	# the printed form parses again to the same text
	tail -n +3 "$work/out" >"$work/again.stp"
	"$STAP" -p1 "$work/again.stp" 2>&1 | tail -n +3 >"$work/out2"
	if cmp -s <(tail -n +3 "$work/out") "$work/out2"; then
		pass "$name (round trip)"
	else
		fail "$name (round trip)" "$(diff -u <(tail -n +3 "$work/out") "$work/out2")"
	fi
done

### inputs the fuzzers once found slow or crashing (tests/fuzz/run.sh,
### passes 1-3): passes 1-3 must end quickly, with or without errors
for f in "$tests"/fuzz/regressions/*; do
	name=fuzz/$(basename "$f")
	wanted "$name" || continue
	timeout 20 "$STAP" -p3 "$f" >/dev/null 2>&1
	rc=$?
	if [ $rc -le 1 ]; then pass "$name"; else fail "$name" "exit status $rc"; fi
done

### pass 2: resolved program (.p2)
for f in "$tests"/p2/*.stp; do
	name=p2/$(basename "$f" .stp)
	wanted "$name" || continue
	stap_here "$f" -p2 >"$work/out" 2>&1
	check_golden "$name" "${f%.stp}.p2" "$work/out"
done

### the tapset index: written on first use, trusted while a file's size
### and mtime stand, refreshed when they change
if wanted library/index; then
	lib=$work/libidx
	mkdir -p "$lib/tapsets" "$lib/cache"
	echo 'probe idx.one = begin { v = 1 }' >"$lib/tapsets/idx.stp"
	touch -d '2020-01-01 00:00:00' "$lib/tapsets/idx.stp"
	run_idx() { STAP_CACHE=$lib/cache "$STAP" -p2 -I "$lib/tapsets" -e "$1" 2>&1; }
	problems=
	run_idx 'probe idx.one { println(v) }' >"$work/out" ||
		problems="cold run: $(cat "$work/out")"
	ls "$lib"/cache/tapsets-*.idx >/dev/null 2>&1 || problems="$problems
no index written"
	# same size and mtime, new content: the index must be believed
	echo 'probe idx.two = begin { v = 2 }' >"$lib/tapsets/idx.stp"
	touch -d '2020-01-01 00:00:00' "$lib/tapsets/idx.stp"
	run_idx 'probe idx.two { println(v) }' >"$work/out" &&
		problems="$problems
warm run parsed the file instead of using the index"
	# a new mtime: re-indexed
	touch "$lib/tapsets/idx.stp"
	run_idx 'probe idx.two { println(v) }' >"$work/out" ||
		problems="$problems
changed file not re-indexed: $(cat "$work/out")"
	if [ -z "$problems" ]; then pass library/index; else fail library/index "$problems"; fi
fi

### the tapset library: one script calling every public function that
### --dump-functions lists (arguments of the declared types, 0 and "")
### passes pass 2 with every type known, and builds (pass 4, so the
### embedded C compiles) for every kernel with headers; -g for the guru ones
lib_calls() { # dump-functions output -> a script calling each function
	awk 'BEGIN { print "probe begin {\n\tif (pid() < 0) {" }
	{
		call = $0; sub(/:.*/, "", call)
		args = $0; sub(/^[^(]*\(/, "", args); sub(/\)$/, "", args)
		n = split(args, a, /, /)
		call = call "("
		for (i = 1; i <= n; i++) {
			t = a[i]; sub(/.*:/, "", t)
			call = call (i > 1 ? ", " : "") (t == "string" ? "\"\"" : "0")
		}
		print "\t\t" call ")"
	}
	END { print "\t}\n}" }' "$1"
}
if wanted library/functions || wanted library/build; then
	lib_ok=1
	if ! "$STAP" --dump-functions >"$work/fns" 2>"$work/fns.err" ||
		[ -s "$work/fns.err" ] || [ ! -s "$work/fns" ]; then
		lib_ok=0
		fail library/functions "--dump-functions: $(head -20 "$work/fns.err")"
	elif grep -v '^[A-Za-z_0-9]*:\(long\|string\|unknown\) (\([A-Za-z_0-9]*:\(long\|string\)\(, \)\?\)*)$' \
		"$work/fns" >"$work/fns.bad"; then
		lib_ok=0
		fail library/functions "parameters of unknown type:
$(head -20 "$work/fns.bad")"
	fi
	lib_calls "$work/fns" >"$work/allfns.stp"
	if [ $lib_ok = 1 ] && wanted library/functions; then
		if "$STAP" -g -p2 "$work/allfns.stp" >"$work/out" 2>&1; then
			pass "library/functions ($(wc -l <"$work/fns") functions)"
		else
			fail library/functions "$(grep -v '^ ' "$work/out" | head -20)"
		fi
	fi
	for r in $(ls /lib/modules 2>/dev/null | sort -V); do
		[ -f "/lib/modules/$r/build/Makefile" ] || continue
		tag=$(echo "$r" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
		wanted "library/build-$tag" || continue
		if [ $lib_ok = 0 ]; then
			skip "library/build-$tag" "library/functions failed"
		elif "$STAP" -g -p4 -r "$r" "$work/allfns.stp" >"$work/out" 2>&1; then
			pass "library/build-$tag"
		else
			fail "library/build-$tag" "$(tail -20 "$work/out")"
		fi
	done
fi

### every probe alias --dump-probe-aliases lists passes pass 2 on each
### kernel with headers: probed with '?' (some resolve on one kernel only,
### or nowhere, as SystemTap's), its body elaborated where it resolves
if ls /lib/modules/*/build/Makefile >/dev/null 2>&1 &&
	wanted_group library/aliases; then
	if ! "$STAP" --dump-probe-aliases >"$work/aliases" 2>"$work/aliases.err"; then
		fail library/aliases "--dump-probe-aliases: $(head -20 "$work/aliases.err")"
	else
		awk '{ print "probe " $1 " ? { }" }' "$work/aliases" >"$work/allaliases.stp"
		for r in $(ls /lib/modules 2>/dev/null | sort -V); do
			[ -f "/lib/modules/$r/build/Makefile" ] || continue
			tag=$(echo "$r" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
			wanted "library/aliases-$tag" || continue
			if "$STAP" -w -p2 -r "$r" "$work/allaliases.stp" >"$work/out" 2>&1; then
				pass "library/aliases-$tag ($(wc -l <"$work/aliases") aliases)"
			else
				fail "library/aliases-$tag" "$(grep -m 20 error "$work/out")"
			fi
		done
	fi
fi

### every tracepoint builds with $$parms on each kernel (tests/tp-sweep.sh)
. "$tests/tp-sweep.sh"

### every Example: in the tapsets' doc comments (tests/tapset-examples.sh)
. "$tests/tapset-examples.sh"

### bad input: long chains, deep nesting, huge or odd script files
### (tests/robust.sh; the inputs are generated)
. "$tests/robust.sh"

### the module cache as a trust boundary (tests/trust.sh)
. "$tests/trust.sh"

### listings: NAME.args (stap's arguments, run in tests/listing) gives

### command lines: NAME.args (stap's arguments, run in tests/cli) gives
### NAME.out exactly, and exit status NAME.rc (absent: 0)
for f in "$tests"/cli/*.args; do
	name=cli/$(basename "$f" .args)
	wanted "$name" || continue
	# word splitting is wanted: one line of arguments, no quoting
	# shellcheck disable=SC2046
	# "# library: none": the library is replaced by an empty one (the
	# fixtures come with -I), so its growth does not change the output
	lib=$top_srcdir/tapsets
	if grep -q '^# library: none' "$f"; then
		mkdir -p "$work/no-tapsets"
		lib=$work/no-tapsets
	fi
	# argv[0] is "stap", as a user types it: getopt's messages name it
	(cd "$tests/cli" && set -f && SYSTEMTAP_TAPSET=$lib \
		exec -a stap "$STAP" $(grep -v "^#" "$f")) >"$work/out" 2>&1
	rc=$?
	want_rc=0
	[ -f "${f%.args}.rc" ] && want_rc=$(cat "${f%.args}.rc")
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit status $rc, expected $want_rc: $(head -5 "$work/out")"
		continue
	fi
	check_golden "$name" "${f%.args}.out" "$work/out"
done

### builds: NAME.args (stap's arguments, run in tests/build) must build at
### -p4 against each kernel with headers (build/NAME-TAG)
for f in "$tests"/build/*.args; do
	[ -f "$f" ] || continue
	for r in $(ls /lib/modules 2>/dev/null | sort -V); do
		[ -f "/lib/modules/$r/build/Makefile" ] || continue
		tag=$(echo "$r" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
		name=build/$(basename "$f" .args)-$tag
		wanted "$name" || continue
		# shellcheck disable=SC2046
		if (cd "$tests/build" && set -f &&
			"$STAP" -p4 -r "$r" $(grep -v "^#" "$f")) >"$work/out" 2>&1; then
			pass "$name"
		else
			fail "$name" "$(grep -m 20 -i error "$work/out")"
		fi
	done
done

### pass 3: fragments of the generated C (.grep: one fixed string a line)
for f in "$tests"/p3/*.stp; do
	name=p3/$(basename "$f" .stp)
	wanted "$name" || continue
	if ! stap_here "$f" -p3 >"$work/out" 2>&1; then
		fail "$name" "$(head -20 "$work/out")"
		continue
	fi
	missing=
	while IFS= read -r line; do
		[ -z "$line" ] && continue
		grep -qF -- "$line" "$work/out" || missing="$missing
missing: $line"
	done <"${f%.stp}.grep"
	if [ -z "$missing" ]; then pass "$name"; else fail "$name" "$missing"; fi
done

### diagnostics: exact stderr (.err) and exit status 1
for f in "$tests"/diag/*.stp; do
	name=diag/$(basename "$f" .stp)
	wanted "$name" || continue
	# -p2 unless the script's own options say otherwise
	pass2=-p2
	[ -n "$(script_args "$f")" ] && pass2=
	stap_here "$f" $pass2 >/dev/null 2>"$work/err"
	rc=$?
	if [ $rc != 1 ]; then
		fail "$name" "exit status $rc, expected 1; stderr:
$(cat "$work/err")"
		continue
	fi
	check_golden "$name" "${f%.stp}.err" "$work/err"
done

### -l/-L of kernel.function: NAME.args (stap's options) on every installed
# kernel whose debug vmlinux is there. NAME.TAG.out is SystemTap 4.8's own
# output and NAME.TAG.rc its exit status when not 0, written by
# tests/listing/from-systemtap.sh (--update leaves them alone).
for f in "$tests"/listing/*.args; do
	name=listing/$(basename "$f" .args)
	wanted "$name" || continue
	read -ra largs <"$f"
	ran=0
	for img in /boot/vmlinuz-*; do
		release=${img#/boot/vmlinuz-}
		[ -s "/usr/lib/debug/boot/vmlinux-$release" ] || continue
		tag=$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
		want=${f%.args}.$tag
		ran=1
		if [ ! -f "$want.out" ]; then
			fail "$name/$tag" "missing ${want#$top_srcdir/}.out: run tests/listing/from-systemtap.sh"
			continue
		fi
		"$STAP" -r "$release" "${largs[@]}" >"$work/out" 2>"$work/err"
		rc=$?
		want_rc=$(cat "$want.rc" 2>/dev/null || echo 0)
		if [ "$rc" != "$want_rc" ]; then
			fail "$name/$tag" "exit status $rc, expected $want_rc: $(cat "$work/err")"
		elif cmp -s "$want.out" "$work/out"; then
			pass "$name/$tag"
		else
			fail "$name/$tag" "$(diff -u "$want.out" "$work/out" | head -30)"
		fi
	done
	[ $ran = 1 ] || skip "$name" "no kernel debuginfo in /usr/lib/debug/boot (scripts/setup.sh)"
done

### -l/-L of user-space points: NAME.uargs (stap's options, run in a
# directory where user_prog.c was built as ./user_prog with gcc -g -O2)
# gives NAME.out, that directory written @DIR@: SystemTap 4.8's own
# output, written by tests/listing/from-systemtap.sh; NAME.rc its exit
# status when not 0.
ubuilt=
for f in "$tests"/listing/*.uargs; do
	name=listing/$(basename "$f" .uargs)
	wanted "$name" || continue
	udir=$work/listing-user
	if [ -z "$ubuilt" ]; then
		mkdir -p "$udir"
		cp "$tests/listing/user_prog.c" "$udir/"
		(cd "$udir" && gcc -g -O2 -o user_prog user_prog.c) \
			>"$work/err" 2>&1 && ubuilt=1 || ubuilt=0
	fi
	if [ "$ubuilt" != 1 ]; then
		fail "$name" "cannot build user_prog.c: $(head -5 "$work/err")"
		continue
	fi
	read -ra largs <"$f"
	(cd "$udir" && "$STAP" "${largs[@]}") 2>"$work/err" |
		sed "s|$udir|@DIR@|g" >"$work/out"
	rc=${PIPESTATUS[0]}
	want_rc=$(cat "${f%.uargs}.rc" 2>/dev/null || echo 0)
	if [ "$rc" != "$want_rc" ]; then
		fail "$name" "exit status $rc, expected $want_rc: $(cat "$work/err")"
	else
		check_golden "$name" "${f%.uargs}.out" "$work/out"
	fi
done

### the functions SystemTap 4.8 has that ours lacks are exactly those
### tests/listing/functions48/missing.txt names (with the reason)
if wanted listing/functions48; then
	if "$tests/listing/functions48/check.sh" "$STAP" >"$work/out" 2>&1; then
		pass "listing/functions48 ($(tail -1 "$work/out"))"
	else
		fail listing/functions48 "$(head -20 "$work/out")"
	fi
fi

### SystemTap 4.8's syscall and nd_syscall names resolve on each kernel
### with headers (tests/listing/syscall-names48/check.sh)
for r in $(ls /lib/modules 2>/dev/null | sort -V); do
	[ -f "/lib/modules/$r/build/Makefile" ] || continue
	tag=$(echo "$r" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	name=listing/syscall-names48-$tag
	wanted "$name" || continue
	if [ ! -f "$tests/listing/syscall-names48/syscall.$tag.txt" ]; then
		skip "$name" "no list of SystemTap 4.8's names for $tag"
	elif "$tests/listing/syscall-names48/check.sh" "$STAP" "$r" "$tag" \
		>"$work/out" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(head -40 "$work/out")"
	fi
done

### end to end: every tests/e2e/*.stp runs in one guest boot per kernel
# NAME.out: exact stdout; NAME.err: exact stderr (default empty);
# NAME.rc: exit status (default 0); "# stap-cmd: CMD" runs CMD with -c;
# "# stap-guest-module: NAME" puts the kernel's module NAME.ko in /bin.
# Every installed kernel with both image and headers is tested (6.1, 6.12).
e2e=()
for f in "$tests"/e2e/*.stp; do
	name=e2e/$(basename "$f" .stp)
	wanted "$name" && e2e+=("$f")
done
# The examples run as e2e tests too: examples/NAME.stp is e2e/example_NAME,
# with tests/examples/NAME.head (its "# stap-..." and "# ASSERTION:" lines,
# put before the example) and NAME.out, .check, .sed, .err, .rc there.
for f in "$top_srcdir"/examples/*.stp; do
	n=$(basename "$f" .stp)
	name=e2e/example_$n
	wanted "$name" || continue
	if [ ! -f "$tests/examples/$n.head" ]; then
		fail "$name" "no tests/examples/$n.head: every example is run"
		continue
	fi
	mkdir -p "$work/examples"
	cat "$tests/examples/$n.head" "$f" >"$work/examples/example_$n.stp"
	for x in out err rc sed check err.sed; do
		[ -e "$tests/examples/$n.$x" ] &&
			ln -s "$tests/examples/$n.$x" "$work/examples/example_$n.$x"
	done
	e2e+=("$work/examples/example_$n.stp")
done
releases=$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' |
	while read -r r; do
		[ -f "/lib/modules/$r/build/Makefile" ] && echo "$r"
	done | sort -V)
### stap --sign-module on every kernel with headers (no guest)
. "$tests/sign-module.sh"

vm_reason=
if [ $use_vm = 0 ]; then
	vm_reason="--no-vm"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	vm_reason="qemu-system-x86_64 is not installed"
elif [ -z "$releases" ]; then
	vm_reason="no kernel with both image and headers installed"
elif [ ! -x /bin/busybox ]; then
	vm_reason="busybox-static is not installed"
elif [ ! -x "$STAPVM" ]; then
	vm_reason="stap/stapvm is not built"
fi

# The guest's copy of kernel module NAME of a release (decompressed: the
# guest's busybox insmod takes plain .ko files); prints its path.
guest_module() { # release name
	local ko dir=$work/guest-modules/$1
	ko=$(find "/lib/modules/$1/kernel" -name "$2.ko*" 2>/dev/null | head -1)
	[ -n "$ko" ] || return 1
	mkdir -p "$dir"
	case $ko in
	*.xz) xz -dc "$ko" >"$dir/$2.ko" ;;
	*.zst) zstd -qdc "$ko" >"$dir/$2.ko" ;;
	*) cp "$ko" "$dir/$2.ko" ;;
	esac && echo "$dir/$2.ko"
}

# The stdout to compare with NAME.out: the script's own, or, when NAME.sed
# exists (for output with times or counts that vary), that sed -E script's
# rewrite of it, or, when NAME.check exists (output to judge rather than
# compare: a flame graph's stacks), what that program prints given the
# stdout's path (with STAPFLAME set). Prints the file's path.
normalized() { # base stdout
	if [ -f "$1.sed" ]; then
		sed -E -f "$1.sed" "$2" >"$2.sed" && echo "$2.sed"
	elif [ -f "$1.check" ]; then
		STAPFLAME=$top_builddir/stap/stapflame "$1.check" "$2" \
			>"$2.check" 2>&1 && echo "$2.check"
	else
		echo "$2"
	fi
}

# A script's "# stap-vm: OPTIONS" line (e.g. --cpus 2) asks for a guest
# with those stapvm options: scripts are booted in one guest per set.
vm_line() { sed -n 's/^# stap-vm: //p' "$1" | head -1; }

run_e2e() { # release tag
	local f opts sets=()
	local -A seen=()
	for f in "${e2e[@]}"; do
		opts=$(vm_line "$f")
		[ -n "${seen["x$opts"]:-}" ] && continue
		seen["x$opts"]=1
		sets+=("$opts")
	done
	for opts in "${sets[@]}"; do
		run_e2e_boot "$1" "$2" "$opts"
	done
}

run_e2e_boot() { # release tag vm-options
	local release=$1 tag=$2 opts=$3 jobs=() built=() f name base i rc
	local want_rc want_err m path missing gs nv got bcmd
	vm_files=()
	vm_cwd=$work/e2e-files
	rm -rf "$vm_cwd"
	mkdir -p "$vm_cwd"
	for f in "${e2e[@]}"; do
		[ "$(vm_line "$f")" = "$opts" ] || continue
		name=e2e/$tag/$(basename "$f" .stp)
		# "# stap-build: CMD": run by sh in the script's folder with
		# $OUT the guest's current directory (the command's ./NAME)
		bcmd=$(sed -n 's/^# stap-build: //p' "$f" | head -1)
		if [ -n "$bcmd" ] && ! (cd "$(dirname "$f")" &&
			OUT=$vm_cwd sh -c "$bcmd") >"$work/build.err" 2>&1; then
			fail "$name" "stap-build failed: $(cat "$work/build.err")"
			continue
		fi
		# "# stap-guest-module: NAME": the release's module NAME is put
		# in the guest's /bin as NAME.ko for the script's command
		missing=
		for m in $(sed -n 's/^# stap-guest-module: //p' "$f"); do
			if path=$(guest_module "$release" "$m"); then
				vm_files+=(--file "$path")
			else
				missing=$m
			fi
		done
		if [ -n "$missing" ]; then
			skip "$name" "kernel module $missing of $release not found"
			continue
		fi
		# "# stap-guest-i386: NAME.s": NAME.s (beside the script)
		# assembled as a static 32-bit program, the guest's /bin/NAME
		for m in $(sed -n 's/^# stap-guest-i386: //p' "$f"); do
			path=$work/i386/$(basename "$m" .s)
			mkdir -p "$work/i386"
			if as --32 -o "$path.o" "$(dirname "$f")/$m" 2>"$work/as.err" &&
			   ld -m elf_i386 -o "$path" "$path.o" 2>>"$work/as.err"; then
				vm_files+=(--file "$path")
			else
				missing=$m
			fi
		done
		if [ -n "$missing" ]; then
			fail "$name" "cannot build $missing: $(cat "$work/as.err")"
			continue
		fi
		# a script with a built program is compiled from $OUT too, so
		# process("./NAME") names the program where the guest runs it
		if ko=$(if [ -n "$bcmd" ]; then
				cd "$vm_cwd" && env $(script_env "$f") "$STAP" \
					-p4 -r "$release" $(script_args "$f") \
					"$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
			else
				stap_here "$f" -p4 -r "$release"
			fi 2>"$work/build.err"); then
			cmd=$(sed -n 's/^# stap-cmd: //p' "$f" | head -1)
			# -G NAME=VALUE settings are the loader's: ,NAME=VALUE
			gs=$(script_args "$f" | grep -o -- '-G [^ ]*' |
				sed 's/^-G //' | paste -sd, -)
			# -v's are the module's stp_verbose, as stap -v passes
			# them through the loader
			nv=$(script_args "$f" | tr ' ' '\n' |
				sed -n 's/^-\(v\{1,\}\)$/\1/p' | tr -d '\n' | wc -c)
			[ "$nv" = 0 ] || gs=${gs:+$gs,}stp_verbose=$nv
			jobs+=("$ko${gs:+,$gs}${cmd:+::$cmd}")
			built+=("$f")
		else
			fail "$name" "pass 4 failed: $(cat "$work/build.err")"
		fi
	done
	[ ${#jobs[@]} -gt 0 ] || return 0
	echo "e2e: running ${#jobs[@]} scripts in one $release guest boot${opts:+ ($opts)}"
	vm_opts=$opts
	run_batch "$release" "$work/vm" "$work/vm.log" "${jobs[@]}"
	rc=$?
	vm_files=()
	vm_cwd=
	if [ $rc != 0 ]; then
		vm_opts=
		for f in "${built[@]}"; do
			fail "e2e/$tag/$(basename "$f" .stp)" "the guest did not run: $(tail -20 "$work/vm.log")"
		done
		return 0
	fi
	i=0
	for f in "${built[@]}"; do
		name=e2e/$tag/$(basename "$f" .stp)
		base=${f%.stp}
		rc=$(cat "$work/vm/$i.rc" 2>/dev/null || echo none)
		want_rc=$(cat "$base.rc" 2>/dev/null || echo 0)
		want_err=$base.err
		[ -f "$want_err" ] || want_err=/dev/null
		# NAME.err.sed: a sed -E script masking what varies in stderr
		# (also when updating: the golden is the masked text)
		got_err=$work/vm/$i.stderr
		if [ -f "$base.err.sed" ]; then
			sed -E -f "$base.err.sed" "$got_err" >"$got_err.sed"
			got_err=$got_err.sed
		fi
		if [ $update = 1 ]; then
			cp "$(normalized "$base" "$work/vm/$i.stdout")" "$base.out"
			if [ -s "$got_err" ]; then
				cp "$got_err" "$base.err"
			else
				rm -f "$base.err"
			fi
			if [ "$rc" = 0 ]; then rm -f "$base.rc"; else echo "$rc" >"$base.rc"; fi
			pass "$name (updated)"
		elif ! got=$(normalized "$base" "$work/vm/$i.stdout"); then
			fail "$name" "$base.sed or $base.check failed: $(head -5 "$work/vm/$i.stdout".* 2>/dev/null)"
		elif why=$(run_differs "$want_rc" "$rc" "$base.out" "$got" \
			"$want_err" "$got_err"); then
			fail "$name" "$why"
		else
			pass "$name"
		fi
		i=$((i + 1))
	done
	vm_opts=
	check_dmesg "e2e/$tag/guest-dmesg${opts:+ ($opts)}" "$work/vm"
}

### the BPF backend, natively on this machine's kernel (tests/bpf.sh):
### before the lane below, as its timers and samples want an unloaded machine
. "$tests/bpf.sh"

### A lane beside the guest groups: SystemTap's corpus (tests/corpus.sh)
### and passes 1-2 under ASan run in the background at nice 19. A guest
### under TCG keeps one core busy and the boots below would leave the
### other idle; these two groups are CPU work only. The lane has its own
### work directory and counts; its output is printed, and its results
### counted, where it is joined, before the summary.
lane_dir=$work/lane
mkdir -p "$lane_dir"
(
	trap - EXIT
	renice -n 19 -p "$BASHPID" >/dev/null 2>&1
	work=$lane_dir npass=0 nfail=0 nskip=0 failed_names=

	### SystemTap's pass-1 corpus (parseok, parseko, the -p1 round trip)
	. "$tests/corpus.sh"

	### passes 1-2 under ASan and UBSan over every script (corpus and tests)
	if wanted asan/corpus; then
		if ! echo 'int main(void){return 0;}' | gcc -x c -fsanitize=address,undefined \
			-o "$work/asan-probe" - 2>/dev/null; then
			skip "asan/corpus" "gcc cannot build with -fsanitize=address,undefined"
		elif out=$("$top_srcdir/scripts/check-asan.sh" "$work/asan" 2>&1); then
			pass "asan/corpus ($(tail -1 <<<"$out" | sed 's/^asan: //'))"
		else
			fail "asan/corpus" "$(tail -30 <<<"$out")"
		fi
	fi
	echo "$npass $nfail $nskip$failed_names" >"$lane_dir/counts"
) >"$lane_dir/log" 2>&1 &
lane_pid=$!
trap 'kill "$lane_pid" 2>/dev/null; rm -rf "$work"' EXIT

if [ ${#e2e[@]} -gt 0 ]; then
	if [ -n "$vm_reason" ]; then
		for f in "${e2e[@]}"; do skip "e2e/$(basename "$f" .stp)" "$vm_reason"; done
	else
		for release in $releases; do
			# tag: the kernel's version, e.g. 6.1 or 6.12
			run_e2e "$release" "$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')"
		done
	fi
fi

### the direct pass 4 against kbuild, built and run in a guest
. "$tests/directbuild.sh"

### the BPF backend in the qemu guests of 6.1 and 6.12, one boot per kernel
. "$tests/bpf_guest.sh"

### the differential corpus (SystemTap 4.8's exact outputs), if present
if [ -x "$tests/differential.sh" ] && wanted differential; then
	. "$tests/differential.sh"
fi

### the runtime's own VM test, the VM runner's self-test, stap's stop paths
for t in runtime/run-vm.sh vm/selftest.sh vm/stop-paths.sh vm/warm.sh \
	vm/pipe-head.sh vm/stdin-input.sh vm/output-files.sh; do
	name=${t%.sh}
	wanted "$name" || continue
	if [ $use_vm = 0 ]; then
		skip "$name" "--no-vm"
		continue
	fi
	out=$(STAPRUN=$top_builddir/stap/staprun STAPVM=$STAPVM top_builddir=$top_builddir \
		"$tests/$t" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		pass "$name"
	elif [ $rc = 77 ]; then
		skip "$name" "$(tail -1 <<<"$out")"
	else
		fail "$name" "$(tail -30 <<<"$out")"
	fi
done

### the lane, joined: its output, and its results in the counts
wait "$lane_pid"
cat "$lane_dir/log"
if read -r lane_pass lane_fail lane_skip lane_failed <"$lane_dir/counts"; then
	npass=$((npass + lane_pass))
	nfail=$((nfail + lane_fail))
	nskip=$((nskip + lane_skip))
	failed_names="$failed_names${lane_failed:+ $lane_failed}"
else
	fail "lane" "the corpus and ASan lane ended without its counts"
fi

echo
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$npass passed, $nfail failed, $nskip skipped"
[ $nfail = 0 ]
