# SPDX-License-Identifier: GPL-2.0-or-later
#
# The differential corpus: scripts with SystemTap 4.8's exact outputs
# (../shared/corpus/differential, see its README.md). Sourced by
# tests/run-tests.sh, whose pass/fail/skip/wanted, $STAP, $STAPVM,
# $top_srcdir, $top_builddir, $tests, $work and $use_vm it uses.
#
# Each NAME.stp is copied into a fresh directory and built there with
# `stap -p4 [# opts:] NAME.stp [-- # args:]`, so that runtime errors quote
# the bare file name; all modules then run in one guest boot. A case
# passes when stdout equals NAME.out byte for byte, the exit status equals
# the rc= of NAME.meta and stderr equals the rest of NAME.meta.
#
# tests/known-failures lists cases that cannot pass yet, one a line:
# "differential/NAME  reason". A listed case that fails is an expected
# failure (XFAIL, counted as passed); a listed case that passes FAILs, so
# that the list only shrinks.

diff_corpus=$top_srcdir/../shared/corpus/differential
diff_known=$tests/known-failures
diff_kernel=6.1.0-56-cloud-amd64

# The reason NAME is a known failure, or nothing.
diff_known_reason() {
	[ -f "$diff_known" ] || return 0
	sed -n "s|^differential/$1[[:space:]]\{1,\}||p; s|^differential/$1\$|(no reason given)|p" \
		"$diff_known" | head -1
}

# Report a case that failed with a message, honouring known-failures.
diff_failed() { # name message
	local reason
	reason=$(diff_known_reason "$1")
	if [ -n "$reason" ]; then
		npass=$((npass + 1))
		echo "XFAIL: differential/$1 ($reason)"
	else
		fail "differential/$1" "$2"
	fi
}

diff_passed() { # name
	if [ -n "$(diff_known_reason "$1")" ]; then
		fail "differential/$1" "unexpected pass: remove it from tests/known-failures"
	else
		pass "differential/$1"
	fi
}

diff_run() {
	local names=() f name dir opts args release reason i
	local jobs=() built=()

	for f in "$diff_corpus"/*.stp; do
		name=$(basename "$f" .stp)
		wanted "differential/$name" && names+=("$name")
	done
	[ ${#names[@]} -gt 0 ] || return 0

	# the kernel the expected outputs were taken on (see the corpus's
	# README.md: kernel_v conditions depend on it), else the newest
	release=$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' |
		while read -r r; do
			[ -f "/lib/modules/$r/build/Makefile" ] && echo "$r"
		done | sort -V | awk -v want="$diff_kernel" \
			'$0 == want { found = $0 } { last = $0 }
			 END { print found != "" ? found : last }')
	reason=
	if [ "$use_vm" = 0 ]; then
		reason="--no-vm"
	elif ! command -v qemu-system-x86_64 >/dev/null; then
		reason="qemu-system-x86_64 is not installed"
	elif [ -z "$release" ]; then
		reason="no kernel with both image and headers installed"
	elif [ ! -x /bin/busybox ]; then
		reason="busybox-static is not installed"
	elif [ ! -x "$STAPVM" ]; then
		reason="stap/stapvm is not built"
	fi
	if [ -n "$reason" ]; then
		skip "differential (${#names[@]} cases)" "$reason"
		return 0
	fi

	mkdir -p "$work/diff"
	for name in "${names[@]}"; do
		dir=$work/diff/$name
		mkdir -p "$dir"
		cp "$diff_corpus/$name.stp" "$dir/"
		opts=$(sed -n '1s/^# opts: //p' "$dir/$name.stp")
		args=$(sed -n '1s/^# args: //p' "$dir/$name.stp")
		# word splitting of $opts and $args is intended
		# shellcheck disable=SC2086
		if ko=$(cd "$dir" && "$STAP" -p4 -r "$release" $opts "$name.stp" \
			${args:+-- $args} 2>"$dir/build.err"); then
			jobs+=("$ko")
			built+=("$name")
		else
			diff_failed "$name" "pass 4 failed: $(head -5 "$dir/build.err")"
		fi
	done
	[ ${#jobs[@]} -gt 0 ] || return 0

	echo "differential: running ${#jobs[@]} scripts in one $release guest boot"
	if ! run_batch "$release" "$work/diffvm" "$work/diffvm.log" "${jobs[@]}"; then
		for name in "${built[@]}"; do
			diff_failed "$name" "the guest did not run: $(tail -5 "$work/diffvm.log")"
		done
		return 0
	fi
	i=0
	for name in "${built[@]}"; do
		local out=$work/diffvm/$i.stdout err=$work/diffvm/$i.stderr
		local rc want_rc
		rc=$(cat "$work/diffvm/$i.rc" 2>/dev/null || echo none)
		want_rc=$(sed -n '1s/^rc=//p' "$diff_corpus/$name.meta")
		tail -n +2 "$diff_corpus/$name.meta" >"$work/diff/$name/want.err"
		i=$((i + 1))
		if why=$(run_differs "$want_rc" "$rc" "$diff_corpus/$name.out" "$out" \
			"$work/diff/$name/want.err" "$err"); then
			diff_failed "$name" "$why"
		else
			diff_passed "$name"
		fi
	done
	check_dmesg "differential/guest-dmesg" "$work/diffvm"
}

if [ -d "$diff_corpus" ]; then
	diff_run
else
	skip "differential" "corpus not found: $diff_corpus"
fi
