# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF backend in the qemu guests (stap --runtime=bpf -r RELEASE, which
# builds against RELEASE's BTF and runs stap/stapbpf in a guest of it):
# sourced by tests/run-tests.sh after tests/bpf.sh and the e2e part (its
# $releases, $vm_reason, run_batch, check_dmesg, normalized).
#
# Per installed kernel, ONE guest boot runs every tests/bpf/*.stp (as
# bpf/TAG/NAME, judged as natively: NAME.out, .rc, .err, .sed, .check,
# .err.sed) and every differential script (bpf/TAG/differential/NAME, as
# differential.list says for the place TAG), then the guest's dmesg must
# be clean (bpf/TAG/guest-dmesg). Each script is built here with -p4 (a
# refusal at pass 2 is judged from that) and the guest runs the program
# file -p4 printed with stapbpf, which the guest reads from this machine
# (virtio-fs: root only). A test's "# bpf-where: native WHY" or
# "# bpf-where: guest WHY" line keeps it to one kind of place.

# the place a tests/bpf script is for: native, guest or both
bpf_where() {
	local w
	w=$(sed -n 's/^# bpf-where: \([a-z]*\).*/\1/p' "$1" | head -1)
	echo "${w:-both}"
}

# differential.list's status of script $1 at place $2 (native, 6.1,
# 6.12): its "NAME@PLACE STATUS WHY" line, else its "NAME STATUS" line
bpf_diff_status() { # name place
	local l
	l=$(grep -E "^$1@$2( |\$)" "$bpf_diff_list" | head -1)
	[ -n "$l" ] || l=$(grep -E "^$1( |\$)" "$bpf_diff_list" | head -1)
	echo "$l" | awk '{print $2}'
}

# A differential script's options and arguments (its first line).
bpf_diff_opts() { # file: sets opts, args
	local first
	first=$(head -1 "$1")
	opts=()
	args=()
	case $first in
	"# opts: "*) read -ra opts <<<"${first#\# opts: }" ;;
	"# args: "*) read -ra args <<<"${first#\# args: }" ;;
	esac
}

bpf_guest_run() { # release tag
	local release=$1 tag=$2 f n name base ko bcmd cmd rc status dir
	local jobs=() jnames=() jbases=() jkinds=() i out got got_err
	local want_rc want_out want_err ran=0 matches=0 opts args
	local loader t0=$SECONDS t1
	loader=/host$(cd "$top_builddir" && pwd)/stap/stapbpf
	vm_files=()
	vm_cwd=$work/bpf-guest-files
	rm -rf "$vm_cwd"
	mkdir -p "$vm_cwd"
	for f in "${bpf_guest_tests[@]}"; do
		name=bpf/$tag/$(basename "$f" .stp)
		base=${f%.stp}
		if [ "$(bpf_where "$f")" = native ]; then
			skip "$name" "$(sed -n 's/^# bpf-where: native *//p' "$f" | head -1)"
			continue
		fi
		bcmd=$(sed -n 's/^# stap-build: //p' "$f" | head -1)
		cmd=$(sed -n 's/^# stap-cmd: //p' "$f" | head -1)
		if [ -n "$bcmd" ]; then
			if ! (cd "$(dirname "$f")" && OUT=$vm_cwd sh -c "$bcmd") \
					>"$work/build.err" 2>&1; then
				fail "$name" "stap-build failed: $(cat "$work/build.err")"
				continue
			fi
			cp "$f" "$vm_cwd/"
			ko=$(cd "$vm_cwd" && "$STAP" --runtime=bpf -r "$release" \
				-p4 $(script_args "$f") "$(basename "$f")" \
				2>"$work/build.err")
		else
			ko=$(stap_here "$f" --runtime=bpf -r "$release" -p4 \
				2>"$work/build.err")
		fi
		rc=$?
		if [ $rc != 0 ]; then
			# refused at pass 2: judged by its messages here
			want_rc=$(cat "$base.rc" 2>/dev/null || echo 0)
			want_err=$base.err
			[ -f "$want_err" ] || want_err=/dev/null
			if [ -f "$base.err.sed" ]; then
				sed -E -f "$base.err.sed" "$work/build.err" \
					>"$work/build.err.sed"
				mv "$work/build.err.sed" "$work/build.err"
			fi
			if why=$(run_differs "$want_rc" "$rc" /dev/null /dev/null \
					"$want_err" "$work/build.err"); then
				fail "$name" "pass 4: $why"
			else
				pass "$name (refused at pass 2)"
			fi
			continue
		fi
		jobs+=("$loader=>$ko${cmd:+::$cmd}")
		jnames+=("$name")
		jbases+=("$base")
		jkinds+=(test)
	done
	for n in "${bpf_guest_diff[@]}"; do
		name=bpf/$tag/differential/$n
		status=$(bpf_diff_status "$n" "$tag")
		if [ -z "$status" ]; then
			fail "$name" "not in tests/bpf/differential.list"
			continue
		fi
		ran=$((ran + 1))
		dir=$work/bpfgdiff/$tag/$n
		rm -rf "$dir"
		mkdir -p "$dir"
		cp "$bpf_diff_corpus/$n.stp" "$dir/"
		bpf_diff_opts "$dir/$n.stp"
		ko=$(cd "$dir" && if [ ${#args[@]} -gt 0 ]; then
			"$STAP" --runtime=bpf -r "$release" -p4 -w "${opts[@]}" \
				"$n.stp" -- "${args[@]}"
		else
			"$STAP" --runtime=bpf -r "$release" -p4 -w "${opts[@]}" \
				"$n.stp"
		fi 2>"$dir/err")
		rc=$?
		if [ "$status" = refused ]; then
			if [ "$rc" = 1 ] &&
			   grep -q -- "error: the bpf backend cannot run .*--runtime=kernel" "$dir/err" &&
			   grep -q "^Pass 2: analysis failed" "$dir/err"; then
				pass "$name (refused at pass 2)"
			else
				fail "$name" "expected a pass-2 refusal naming --runtime=kernel; status $rc
$(head -c 1500 "$dir/err")"
			fi
			continue
		fi
		if [ $rc != 0 ]; then
			fail "$name" "pass 4 failed: $(head -c 1500 "$dir/err")"
			continue
		fi
		jobs+=("$loader=>$ko")
		jnames+=("$name")
		jbases+=("$n")
		jkinds+=("$status")
	done
	if [ ${#jobs[@]} -gt 0 ]; then
		t1=$SECONDS
		echo "bpf: running ${#jobs[@]} programs in one $release guest boot (built in $((t1 - t0)) s)"
		out=$work/bpfvm-$tag
		run_batch "$release" "$out" "$out.log" "${jobs[@]}"
		rc=$?
		echo "bpf: the $release guest ran them in $((SECONDS - t1)) s"
		if [ $rc != 0 ]; then
			for name in "${jnames[@]}"; do
				fail "$name" "the guest did not run: $(tail -20 "$out.log")"
			done
			vm_cwd=
			return 0
		fi
		for i in "${!jobs[@]}"; do
			name=${jnames[$i]}
			base=${jbases[$i]}
			rc=$(cat "$out/$i.rc" 2>/dev/null || echo none)
			got_err=$out/$i.stderr
			if [ "${jkinds[$i]}" = test ]; then
				want_rc=$(cat "$base.rc" 2>/dev/null || echo 0)
				want_out=$base.out
				[ -f "$want_out" ] || want_out=/dev/null
				want_err=$base.err
				[ -f "$want_err" ] || want_err=/dev/null
				if [ -f "$base.err.sed" ]; then
					sed -E -f "$base.err.sed" "$got_err" >"$got_err.sed"
					got_err=$got_err.sed
				fi
				if ! got=$(normalized "$base" "$out/$i.stdout"); then
					fail "$name" "$base.sed or $base.check failed"
				elif why=$(run_differs "$want_rc" "$rc" "$want_out" \
						"$got" "$want_err" "$got_err"); then
					fail "$name" "$why"
				else
					pass "$name"
				fi
				continue
			fi
			# a differential script: match, or kernel (the corpus's
			# kernel's bytes only there)
			sed -n '2,$p' "$bpf_diff_corpus/$base.meta" >"$out/$i.want_err"
			want_rc=$(sed -n '1s/^rc=//p' "$bpf_diff_corpus/$base.meta")
			if [ "${jkinds[$i]}" = kernel ] && [ "$release" != "$bpf_diff_kernel" ]; then
				pass "$name (the corpus's kernel only; status $rc)"
			elif why=$(run_differs "$want_rc" "$rc" \
					"$bpf_diff_corpus/$base.out" "$out/$i.stdout" \
					"$out/$i.want_err" "$got_err"); then
				fail "$name" "$why"
			else
				matches=$((matches + 1))
				pass "$name"
			fi
		done
		check_dmesg "bpf/$tag/guest-dmesg" "$out"
	fi
	vm_cwd=
	# the share, over the whole corpus only
	if [ "$ran" -gt 0 ] &&
	   [ "$ran" = "$(ls "$bpf_diff_corpus"/*.stp | wc -l)" ]; then
		if [ $((matches * 100)) -ge $((ran * 80)) ]; then
			pass "bpf/$tag/differential: $matches of $ran scripts give SystemTap 4.8's bytes"
		else
			fail "bpf/$tag/differential" "$matches of $ran give 4.8's bytes: under 80 %"
		fi
	fi
}

# stap itself runs a program in a guest (its own boot: bpf_run_guest,
# through stapvm's stream mode): -r of another kernel, with -c, the
# kernel's function entry and return; --vm on the newest kernel.
bpf_guest_stap_run() {
	local release tag name want place
	for release in $releases; do
		wanted bpf/stap-run || break
		tag=$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
		name=bpf/$tag/stap-run
		"$STAP" --runtime=bpf -r "$release" \
			-c 'cat /proc/sys/kernel/osrelease' -e 'global n, m
probe kernel.function("vfs_read") { if (pid() == target()) n++ }
probe kernel.function("vfs_read").return { if (pid() == target() && $return > 0) m++ }
probe end { printf("%d %d\n", n > 1, m > 1) }' \
			>"$work/out" 2>"$work/err"
		rc=$?
		want="$release
1 1"
		if [ $rc != 0 ] || [ "$(cat "$work/out")" != "$want" ]; then
			fail "$name" "rc $rc: $(head -5 "$work/out" "$work/err")"
		elif [ "$(cat "$work/err")" != "stap: $release is not the running kernel: running in a qemu guest of it" ]; then
			fail "$name" "stderr: $(head -5 "$work/err")"
		else
			pass "$name"
		fi
	done
	# -o FILE: the script's output in the file, here and from a guest
	if wanted bpf/output-file; then
		for place in native "$(echo "$releases" | head -1)"; do
			name=bpf/output-file/$place
			rm -f "$work/bpf-o.txt"
			if [ $place = native ]; then
				"$STAP" --runtime=bpf -o "$work/bpf-o.txt" \
					-e 'probe begin { println("begin") exit() } probe end { println("end") }'
			else
				"$STAP" --runtime=bpf -r "$place" -o "$work/bpf-o.txt" \
					-e 'probe begin { println("begin") exit() } probe end { println("end") }'
			fi >"$work/out" 2>/dev/null
			rc=$?
			if [ $rc != 0 ] || [ -s "$work/out" ] ||
			   [ "$(cat "$work/bpf-o.txt" 2>&1)" != "begin
end" ]; then
				fail "$name" "rc $rc: stdout $(head -c 300 "$work/out"); the file: $(head -c 300 "$work/bpf-o.txt" 2>&1)"
			else
				pass "$name"
			fi
		done
	fi
	wanted bpf/stap-run-vm || return 0
	name=bpf/stap-run-vm
	"$STAP" --runtime=bpf --vm -c 'cat /proc/sys/kernel/osrelease' \
		-e 'probe end { println("end") }' >"$work/out" 2>"$work/err"
	rc=$?
	# --vm with no -r: the newest installed kernel, as the module backend
	want="$(echo "$releases" | tail -1)
end"
	if [ $rc != 0 ] || [ "$(cat "$work/out")" != "$want" ] || [ -s "$work/err" ]; then
		fail "$name" "rc $rc: $(head -5 "$work/out" "$work/err")"
	else
		pass "$name"
	fi
}

# Not root: said before pass 1, the guest could not run the loader (no
# guest is booted for it).
if wanted bpf/guest-needs-root && [ "$(id -u)" = 0 ] &&
   command -v setpriv >/dev/null && [ -n "$releases" ]; then
	release=$(echo "$releases" | head -1)
	# a home of its own (the work directory is root's alone)
	nobody_home=$(mktemp -d /tmp/stap-nobody.XXXXXX)
	chown 65534:65534 "$nobody_home"
	(cd "$nobody_home" && setpriv --reuid=65534 --regid=65534 \
		--clear-groups env HOME="$nobody_home" "$STAP" --runtime=bpf \
		-r "$release" -e 'probe begin { exit() }') \
		>"$work/out" 2>"$work/err"
	rc=$?
	rm -rf "$nobody_home"
	if [ $rc = 1 ] && [ ! -s "$work/out" ] &&
	   [ "$(cat "$work/err")" = "stap: error: the bpf backend in a guest of $release needs this machine's files in it (virtio-fs: root, and virtiofsd): its loader and libbpf are there" ]; then
		pass bpf/guest-needs-root
	else
		fail bpf/guest-needs-root "rc $rc: $(head -3 "$work/out" "$work/err")"
	fi
fi

bpf_guest_tests=()
for f in "$tests"/bpf/*.stp; do
	wanted "bpf/$(basename "$f" .stp)" && bpf_guest_tests+=("$f")
done
bpf_guest_diff=()
if [ -d "$bpf_diff_corpus" ]; then
	for f in "$bpf_diff_corpus"/*.stp; do
		n=$(basename "$f" .stp)
		wanted "bpf/differential/$n" && bpf_guest_diff+=("$n")
	done
fi
why=
if [ -n "$vm_reason" ]; then
	why=$vm_reason
elif [ "$(id -u)" != 0 ]; then
	why="not root (the guest reads stapbpf and libbpf from this machine over virtio-fs)"
elif [ ! -x "${STAPVM_VIRTIOFSD:-/usr/lib/qemu/virtiofsd}" ]; then
	why="no virtiofsd (the guest reads stapbpf and libbpf from this machine)"
elif ! command -v clang >/dev/null || [ ! -f /usr/include/bpf/libbpf.h ]; then
	why="no clang or libbpf-dev"
fi
if [ ${#bpf_guest_tests[@]} -gt 0 ] || [ ${#bpf_guest_diff[@]} -gt 0 ]; then
	if [ -n "$why" ]; then
		skip "bpf/(guests)" "$why"
	else
		for release in $releases; do
			bpf_guest_run "$release" \
				"$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')"
		done
	fi
fi
if [ -z "$why" ]; then
	bpf_guest_stap_run
fi
