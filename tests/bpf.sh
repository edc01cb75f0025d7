# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF backend on this machine's own kernel (no guest): sourced by
# tests/run-tests.sh, whose pass/fail/skip/wanted/normalized, $STAP,
# $tests and $work it uses.
#
# Each tests/bpf/NAME.stp runs as `stap --runtime=bpf [# stap-args:]
# NAME.stp` from its folder (or from a work directory after its
# `# stap-build:`, with `-c` for its `# stap-cmd:`). It passes when stdout equals NAME.out (after
# NAME.sed or NAME.check, as in e2e/), the exit status NAME.rc (absent: 0)
# and stderr NAME.err (absent: empty); then no BPF program, map or link of
# ours (names stp_*, stp.bss, stp.rodata) may be left in the kernel. The
# whole folder is skipped, visibly, where BPF cannot run: not root, no
# BTF, no clang, libbpf-dev or bpftool.

bpf_unavailable() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root"
	elif [ ! -r /sys/kernel/btf/vmlinux ]; then
		echo "the kernel has no BTF (/sys/kernel/btf/vmlinux)"
	elif ! command -v clang >/dev/null; then
		echo "no clang: apt-get install clang"
	elif [ ! -f /usr/include/bpf/libbpf.h ]; then
		echo "no libbpf: apt-get install libbpf-dev"
	elif ! command -v bpftool >/dev/null; then
		echo "no bpftool: apt-get install bpftool"
	fi
}

# What of ours is still in the kernel (the kernel frees a closed map a
# moment later: asked for up to 3 s).
bpf_leftovers() {
	local i left
	for i in 1 2 3 4 5 6; do
		left=$( (bpftool prog show; bpftool map show;
			 bpftool link show) 2>/dev/null |
			grep -E 'name (stp_|stp\.(bss|rodata))')
		[ -z "$left" ] && return 0
		sleep 0.5
	done
	echo "$left"
}

bpf_tests=()
for f in "$tests"/bpf/*.stp; do
	wanted "bpf/$(basename "$f" .stp)" && bpf_tests+=("$f")
done
why=$(bpf_unavailable)
if [ ${#bpf_tests[@]} -gt 0 ] && [ -n "$why" ]; then
	skip "bpf/" "$why"
	bpf_tests=()
fi
for f in "${bpf_tests[@]}"; do
	name=bpf/$(basename "$f" .stp)
	base=${f%.stp}
	# "# bpf-where: guest WHY": for the guests' kernels only
	# (tests/bpf_guest.sh)
	if grep -q '^# bpf-where: guest' "$f"; then
		skip "$name" "$(sed -n 's/^# bpf-where: guest *//p' "$f" | head -1)"
		continue
	fi
	# "# stap-build: CMD" (as in e2e/): run by sh in the folder with
	# $OUT a work directory, where the script then runs from (its
	# process("./NAME")); "# stap-cmd: CMD" runs CMD with -c
	bcmd=$(sed -n 's/^# stap-build: //p' "$f" | head -1)
	cmd=$(sed -n 's/^# stap-cmd: //p' "$f" | head -1)
	run=$f
	if [ -n "$bcmd" ]; then
		bout=$work/bpf-files
		mkdir -p "$bout"
		if ! (cd "$(dirname "$f")" && OUT=$bout sh -c "$bcmd") \
				>"$work/build.err" 2>&1; then
			fail "$name" "stap-build failed: $(cat "$work/build.err")"
			continue
		fi
		cp "$f" "$bout/"
		run=$bout/$(basename "$f")
	fi
	cmd_opt=()
	[ -n "$cmd" ] && cmd_opt=(-c "$cmd")
	stap_here "$run" --runtime=bpf "${cmd_opt[@]}" >"$work/out" 2>"$work/err"
	rc=$?
	want_rc=0
	[ -f "$base.rc" ] && want_rc=$(cat "$base.rc")
	want_out=$base.out
	[ -f "$want_out" ] || want_out=/dev/null
	want_err=$base.err
	[ -f "$want_err" ] || want_err=/dev/null
	got=$(normalized "$base" "$work/out")
	# counts that vary (records lost) masked as in e2e/
	if [ -f "$base.err.sed" ]; then
		sed -E -f "$base.err.sed" "$work/err" >"$work/err.masked"
		mv "$work/err.masked" "$work/err"
	fi
	if [ $update = 1 ] && [ "$rc" = "$want_rc" ]; then
		[ -s "$work/out" ] && [ ! -f "$base.sed" ] &&
			[ ! -f "$base.check" ] && cp "$work/out" "$base.out"
		[ -s "$work/err" ] && cp "$work/err" "$base.err"
		pass "$name (updated)"
	elif why=$(run_differs "$want_rc" "$rc" "$want_out" "$got" \
			"$want_err" "$work/err"); then
		fail "$name" "$why"
	elif left=$(bpf_leftovers); then
		pass "$name"
	else
		fail "$name" "left in the kernel after the run:
$left"
	fi
done

# The backend chosen with no -r, no --runtime and no --vm (stap/main.c,
# choose_backend): on this kernel, which loads no modules, a script the
# BPF backend runs runs here, and -v says so in one line. (A script it
# refuses goes to a guest: not run here, a guest boot is the e2e tests'.)
if wanted bpf/auto-choice && [ -z "$(bpf_unavailable)" ] &&
   [ ! -e /proc/modules ]; then
	"$STAP" -v -e 'probe begin { println("here") exit() }' \
		>"$work/out" 2>"$work/err"
	rc=$?
	line=$(grep '^stap: the .* backend' "$work/err")
	if [ $rc != 0 ] || [ "$(cat "$work/out")" != here ]; then
		fail bpf/auto-choice "rc $rc: $(head -3 "$work/out" "$work/err")"
	elif ! echo "$line" | grep -q '^stap: the bpf backend on the running kernel (it cannot load modules: .*)$'; then
		fail bpf/auto-choice "the -v line: '$line'"
	elif [ "$(grep -c '^stap: the .* backend' "$work/err")" != 1 ]; then
		fail bpf/auto-choice "more than one line of the choice"
	else
		pass bpf/auto-choice
	fi
fi
# -c CMD and -x PID in the same choice: the loader runs CMD (target() is
# its pid) or takes -x's pid of this host, so neither sends the run to a
# guest any more when the BPF backend takes every probe.
if wanted bpf/auto-choice-target && [ -z "$(bpf_unavailable)" ] &&
   [ ! -e /proc/modules ]; then
	"$STAP" -v -c 'echo cmd' -e 'probe begin { println(target() > 0) }
		probe end { println("end") }' >"$work/out" 2>"$work/err"
	rc=$?
	"$STAP" -v -x $$ -e "probe begin { println(target() == $$) exit() }" \
		>"$work/out2" 2>"$work/err2"
	rc2=$?
	n=$(cat "$work/err" "$work/err2" |
	    grep -c '^stap: the bpf backend on the running kernel (it cannot load modules: .*)$')
	if [ $rc != 0 ] || [ "$(cat "$work/out")" != "1
cmd
end" ]; then
		fail bpf/auto-choice-target "-c: rc $rc: $(head -3 "$work/out" "$work/err")"
	elif [ $rc2 != 0 ] || [ "$(cat "$work/out2")" != 1 ]; then
		fail bpf/auto-choice-target "-x: rc $rc2: $(head -3 "$work/out2" "$work/err2")"
	elif [ "$n" != 2 ]; then
		fail bpf/auto-choice-target "the -v lines: $(grep '^stap: the' "$work/err" "$work/err2")"
	else
		pass bpf/auto-choice-target
	fi
fi
# The differential corpus on BPF (tests/bpf/differential.list): each
# script as the list says (same bytes as SystemTap 4.8, or refused at pass
# 2 naming the module backend), and the share of matches at least the
# issue's 80 %.
bpf_diff_corpus=$top_srcdir/../shared/corpus/differential
bpf_diff_list=$tests/bpf/differential.list
bpf_diff_kernel=6.1.0-56-cloud-amd64
bpf_diff_names=()
if [ -d "$bpf_diff_corpus" ]; then
	for f in "$bpf_diff_corpus"/*.stp; do
		n=$(basename "$f" .stp)
		wanted "bpf/differential/$n" && bpf_diff_names+=("$n")
	done
fi
if [ ${#bpf_diff_names[@]} -gt 0 ] && [ -n "$(bpf_unavailable)" ]; then
	skip "bpf/differential/" "$(bpf_unavailable)"
	bpf_diff_names=()
fi
bpf_diff_matches=0
for n in "${bpf_diff_names[@]}"; do
	name=bpf/differential/$n
	line=$(grep -E "^$n( |\$)" "$bpf_diff_list")
	status=$(echo "$line" | awk '{print $2}')
	if [ -z "$status" ]; then
		fail "$name" "not in tests/bpf/differential.list"
		continue
	fi
	dir=$work/bpfdiff/$n
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$bpf_diff_corpus/$n.stp" "$dir/"
	first=$(head -1 "$dir/$n.stp")
	opts=()
	args=()
	case $first in
	"# opts: "*) read -ra opts <<<"${first#\# opts: }" ;;
	"# args: "*) read -ra args <<<"${first#\# args: }" ;;
	esac
	(cd "$dir" && if [ ${#args[@]} -gt 0 ]; then
		"$STAP" --runtime=bpf -w "${opts[@]}" "$n.stp" -- "${args[@]}"
	else
		"$STAP" --runtime=bpf -w "${opts[@]}" "$n.stp"
	fi) >"$dir/out" 2>"$dir/err"
	rc=$?
	sed -n '2,$p' "$bpf_diff_corpus/$n.meta" >"$dir/want_err"
	want_rc=$(sed -n '1s/^rc=//p' "$bpf_diff_corpus/$n.meta")
	case $status in
	match)
		if why=$(run_differs "$want_rc" "$rc" \
				"$bpf_diff_corpus/$n.out" "$dir/out" \
				"$dir/want_err" "$dir/err"); then
			fail "$name" "$why"
		else
			bpf_diff_matches=$((bpf_diff_matches + 1))
			pass "$name"
		fi ;;
	refused)
		if [ "$rc" = 1 ] && [ ! -s "$dir/out" ] &&
		   grep -q -- "error: the bpf backend cannot run .*--runtime=kernel" "$dir/err" &&
		   grep -q "^Pass 2: analysis failed" "$dir/err"; then
			pass "$name (refused at pass 2)"
		else
			fail "$name" "expected a pass-2 refusal naming --runtime=kernel; status $rc
$(head -c 1500 "$dir/err")"
		fi ;;
	kernel)
		if [ "$(uname -r)" != "$bpf_diff_kernel" ]; then
			pass "$name (the corpus's kernel only; ran on $(uname -r), status $rc)"
		elif why=$(run_differs "$want_rc" "$rc" \
				"$bpf_diff_corpus/$n.out" "$dir/out" \
				"$dir/want_err" "$dir/err"); then
			fail "$name" "$why"
		else
			bpf_diff_matches=$((bpf_diff_matches + 1))
			pass "$name"
		fi ;;
	*)
		fail "$name" "unknown status '$status' in differential.list" ;;
	esac
done
# the share (over the whole corpus: only when all of it ran)
if [ ${#bpf_diff_names[@]} -gt 0 ] &&
   [ ${#bpf_diff_names[@]} = "$(ls "$bpf_diff_corpus"/*.stp | wc -l)" ]; then
	total=${#bpf_diff_names[@]}
	if [ $((bpf_diff_matches * 100)) -ge $((total * 80)) ]; then
		pass "bpf/differential: $bpf_diff_matches of $total scripts give SystemTap 4.8's bytes"
	else
		fail "bpf/differential" "$bpf_diff_matches of $total give 4.8's bytes: under 80 %"
	fi
fi
