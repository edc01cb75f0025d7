# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run-tests.sh: the direct pass 4 (module/directbuild.c, kbuild's
# commands run without make) against kbuild itself (STAP_KBUILD=1), on
# every kernel with headers, each in a cache of its own:
#
#   direct/compare-TAG    one script built both ways (-m, -v): -v names the
#                         path taken; the two .ko have the same sections
#                         (readelf -S: names, types, sizes, flags), the same
#                         __versions (each CRC and symbol, in order), the
#                         same modinfo, and the same bytes once the debug
#                         sections (the work directory's name), the build
#                         ID and BTF are taken out; the capture's commands
#                         are reused by a second script (no new capture)
#   direct/split-TAG      a script big enough to split (syscall.*), in
#                         three translation units (STAP_UNITS=3), built both
#                         ways: -v says so, and the same facts as compare
#   direct/undefined-TAG  a symbol the kernel does not export is a pass-4
#                         error naming it, as modpost's check would be
#   direct/run-TAG        both modules run in one guest boot (with a
#                         command that reads a file) with the same output
#                         and exit status (guest dmesg clean)

direct_script='global n, calls, s
probe kernel.trace("sched:sched_switch") { n++ }
probe kernel.function("vfs_read") { calls++ }
probe begin { s <<< 3; s <<< 5 }
probe end {
	printf("switches %s, reads %s, sum %d avg %d\n", n > 0 ? "yes" : "no",
	       calls > 0 ? "yes" : "no", @sum(s), @avg(s))
}'

split_script='global calls
probe syscall.* { calls[name]++ }
probe end { printf("read %s\n", calls["read"] > 0 ? "yes" : "no") }'

# the __versions entries of a module: "CRC NAME" a line, in order
direct_versions() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
def sh(i):
    return struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    name, typ, flags, addr, off, size = sh(i)[:6]
    n = d[stroff + name:d.index(b"\0", stroff + name)].decode()
    if n == "__versions":
        for k in range(0, size, 64):
            crc, = struct.unpack_from("<Q", d, off + k)
            sym = d[off + k + 8:off + k + 64].split(b"\0")[0].decode()
            print("%08x %s" % (crc, sym))
EOF
}

# what must match in both: sections, __versions, modinfo, stripped bytes
direct_facts() { # ko outdir
	readelf -SW "$1" | grep '^ *\[' >"$2/sections"
	direct_versions "$1" >"$2/versions"
	modinfo "$1" | grep -v '^filename:' >"$2/modinfo"
	objcopy --strip-debug --remove-section=.note.gnu.build-id \
		--remove-section=.BTF "$1" "$2/stripped.ko"
}

# syscall.* in three units, with kbuild and directly: the same module
direct_split() { # release tag dir
	local release=$1 tag=$2 d=$3/split f why=
	wanted "direct/split-$tag" || return 0
	mkdir -p "$d/kbuild" "$d/direct"
	if ! (cd "$d/kbuild" && STAP_UNITS=3 STAP_KBUILD=1 STAP_CACHE=$3/cache \
		"$STAP" -v -r "$release" -p4 -m stp_direct_split \
		-e "$split_script" >/dev/null 2>"$d/kbuild.err"); then
		fail "direct/split-$tag" "kbuild: $(tail -20 "$d/kbuild.err")"
		return
	fi
	if ! (cd "$d/direct" && STAP_UNITS=3 STAP_CACHE=$3/cache "$STAP" -v \
		-r "$release" -p4 -m stp_direct_split -e "$split_script" \
		>/dev/null 2>"$d/direct.err"); then
		fail "direct/split-$tag" "direct: $(tail -20 "$d/direct.err")"
		return
	fi
	direct_facts "$d/kbuild/stp_direct_split.ko" "$d/kbuild"
	direct_facts "$d/direct/stp_direct_split.ko" "$d/direct"
	if ! grep -q "^Pass 4: compiling .* KB of C (3 units, in parallel) with kbuild's commands for $release, without make" \
		"$d/direct.err"; then
		why="-v does not say 3 units: $(grep '^Pass 4' "$d/direct.err")"
	fi
	for f in sections versions modinfo; do
		[ -z "$why" ] || break
		cmp -s "$d/kbuild/$f" "$d/direct/$f" ||
			why="$f differ: $(diff "$d/kbuild/$f" "$d/direct/$f" | head -20)"
	done
	if [ -z "$why" ] && ! cmp -s "$d/kbuild/stripped.ko" "$d/direct/stripped.ko"; then
		why="the modules differ beyond debug info, build ID and BTF: $(cmp "$d/kbuild/stripped.ko" "$d/direct/stripped.ko")"
	fi
	if [ -n "$why" ]; then
		fail "direct/split-$tag" "$why"
	else
		pass "direct/split-$tag ($(wc -l <"$d/direct/sections") sections)"
	fi
}

direct_tests() { # release tag
	local release=$1 tag=$2 d=$work/direct-$2 k why f
	rm -rf "$d"
	mkdir -p "$d/kbuild" "$d/direct"
	if ! (cd "$d/kbuild" && STAP_KBUILD=1 STAP_CACHE=$d/cache "$STAP" -v \
		-r "$release" -p4 -m stp_direct_cmp -e "$direct_script" \
		>/dev/null 2>"$d/kbuild.err"); then
		fail "direct/compare-$tag" "kbuild: $(tail -20 "$d/kbuild.err")"
		return
	fi
	if ! (cd "$d/direct" && STAP_CACHE=$d/cache "$STAP" -v -r "$release" \
		-p4 -m stp_direct_cmp -e "$direct_script" \
		>/dev/null 2>"$d/direct.err"); then
		fail "direct/compare-$tag" "direct: $(tail -20 "$d/direct.err")"
		return
	fi
	direct_facts "$d/kbuild/stp_direct_cmp.ko" "$d/kbuild"
	direct_facts "$d/direct/stp_direct_cmp.ko" "$d/direct"
	why=
	if ! grep -q '^Pass 4: building with kbuild: STAP_KBUILD is set$' \
		"$d/kbuild.err"; then
		why="STAP_KBUILD=1 -v does not say kbuild: $(grep '^Pass 4' "$d/kbuild.err")"
	elif ! grep -q "^Pass 4: compiling .* with kbuild's commands for $release, without make" \
		"$d/direct.err"; then
		why="-v does not say the direct path: $(grep '^Pass 4' "$d/direct.err")"
	elif [ "$(wc -l <"$d/direct/versions")" -lt 20 ]; then
		why="few __versions: $(cat "$d/direct/versions")"
	else
		for f in sections versions modinfo; do
			if ! cmp -s "$d/kbuild/$f" "$d/direct/$f"; then
				why="$f differ: $(diff "$d/kbuild/$f" "$d/direct/$f" | head -20)"
				break
			fi
		done
	fi
	if [ -z "$why" ] && ! cmp -s "$d/kbuild/stripped.ko" "$d/direct/stripped.ko"; then
		why="the modules differ beyond debug info, build ID and BTF: $(cmp "$d/kbuild/stripped.ko" "$d/direct/stripped.ko")"
	fi
	# a second script: the captured commands are reused
	if [ -z "$why" ] && ! (cd "$d/direct" && STAP_CACHE=$d/cache "$STAP" -v \
		-r "$release" -p4 -e 'probe begin { println("again") exit() }' \
		>/dev/null 2>"$d/again.err"); then
		why="second script: $(tail -20 "$d/again.err")"
	elif [ -z "$why" ] && grep -q 'capturing' "$d/again.err"; then
		why="the second script captured again: $(grep '^Pass 4' "$d/again.err")"
	fi
	if [ -n "$why" ]; then
		fail "direct/compare-$tag" "$why"
	else
		pass "direct/compare-$tag ($(wc -l <"$d/direct/versions") __versions, $(wc -l <"$d/direct/sections") sections)"
	fi

	direct_split "$release" "$tag" "$d"

	# a symbol nobody exports: modpost's "undefined!", as a pass-4 error
	if (cd "$d/direct" && STAP_CACHE=$d/cache "$STAP" -g -r "$release" -p4 \
		-e '%{ extern void stp_no_such_symbol(void); %}
function f() %{ stp_no_such_symbol(); %}
probe begin { f() exit() }' >/dev/null 2>"$d/undef.err"); then
		fail "direct/undefined-$tag" "built"
	elif [ "$(head -2 "$d/undef.err")" != "stap: error: building the module failed (pass 4 for $release, as modpost checks it):
\"stp_no_such_symbol\" is undefined: neither the module nor $release (Module.symvers) defines it" ]; then
		fail "direct/undefined-$tag" "$(cat "$d/undef.err")"
	else
		pass "direct/undefined-$tag"
	fi

	name=direct/run-$tag
	if ! wanted "$name"; then
		:
	elif [ -n "$vm_reason" ]; then
		skip "$name" "$vm_reason"
	elif [ -f "$d/kbuild/stp_direct_cmp.ko" ] && [ -f "$d/direct/stp_direct_cmp.ko" ]; then
		if ! run_batch "$release" "$d/vm" "$d/vm.log" \
			"$d/kbuild/stp_direct_cmp.ko::read x </proc/version" \
			"$d/direct/stp_direct_cmp.ko::read x </proc/version"; then
			fail "$name" "the guest did not run: $(tail -20 "$d/vm.log")"
		elif ! grep -qx 'switches yes, reads yes, sum 8 avg 4' "$d/vm/0.stdout" ||
		     [ "$(cat "$d/vm/0.rc")" != 0 ] || [ -s "$d/vm/0.stderr" ] ||
		     ! cmp -s "$d/vm/0.stdout" "$d/vm/1.stdout" ||
		     ! cmp -s "$d/vm/0.stderr" "$d/vm/1.stderr" ||
		     [ "$(cat "$d/vm/0.rc")" != "$(cat "$d/vm/1.rc")" ]; then
			fail "$name" "kbuild: rc $(cat "$d/vm/0.rc") $(cat "$d/vm/0.stdout" "$d/vm/0.stderr"); direct: rc $(cat "$d/vm/1.rc") $(cat "$d/vm/1.stdout" "$d/vm/1.stderr")"
		else
			check_dmesg "$name" "$d/vm"
		fi
	fi
	rm -rf "$d"
}

if wanted_group direct/; then
	if ! command -v modinfo >/dev/null || ! command -v objcopy >/dev/null; then
		skip "direct/" "needs modinfo (kmod) and objcopy (binutils)"
	else
		for release in $releases; do
			direct_tests "$release" "$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')"
		done
	fi
fi
