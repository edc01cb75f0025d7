# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/corpus.sh: SystemTap's transok and buildok scripts must
# build at -p4 against each kernel with headers, 6.1 and 6.12
# (corpus/transok/NAME, corpus/buildok/NAME, shown with the kernel's tag;
# what needs a missing feature is in tests/known-failures with the feature
# named: a NAME line for every kernel, NAME@6.12 for one kernel only).
#
# A kbuild run costs ~20 s, so the "#! stap" scripts are translated one by
# one (-p3, with the options of their first line) and their modules are
# all compiled in one kbuild run (make -k), then linked in a second: a
# module passes when its .ko is built with no compiler warning in its C.
# Shell scripts call stap themselves, with our stap first in PATH: they
# run once, with the first kernel.

corpus_build() { # release tag first(1/0)
	local release=$1 tag=$2 first=$3
	local dir=$work/p4-$tag runtime=$top_srcdir/runtime d f base name args i
	local names=() mods=() ok_mods=() m err
	rm -rf "$dir"
	mkdir -p "$dir"
	i=0
	for d in transok buildok; do
		for f in "$corpus"/$d/*.stp; do
			base=$(basename "$f" .stp)
			name=corpus/$d/$base
			wanted "$name" || continue
			if ! head -1 "$f" | grep -q '^#! *stap'; then
				[ "$first" = 1 ] || continue
				corpus_run "$f"
				[ $crun_rc = 0 ]
				corpus_result "$name" $? "exit status $crun_rc: $crun_err"
				continue
			fi
			# the first line's options without its -pN
			args=$(head -1 "$f" | sed 's/^#! *stap//;
				s/\(^\| \)-p[0-9]\( \|$\)/ /; s/-\([a-zA-Z]\{1,\}\)p[0-9]/-\1/')
			m=stp_corpus_$i
			i=$((i + 1))
			if ! (cd "$(dirname "$f")" && timeout 60 "$STAP" $args -p3 \
				-r "$release" -m "$m" "$base.stp") \
				>"$dir/$m.c" 2>"$dir/$m.err" </dev/null; then
				corpus_result "$name" 1 "pass 3 failed: $(head -c 2000 "$dir/$m.err")" \
					"$tag" "$tag"
				continue
			fi
			names+=("$name")
			mods+=("$m")
		done
	done
	[ ${#mods[@]} -gt 0 ] || return 0

	# -D options of a script would be its module's CFLAGS; none has any
	# A module is its generated C and the runtime object (as stap's
	# pass 4 builds it): the runtime is compiled once, and each module
	# links its own copy of it (a kbuild "_shipped" file).
	# (a part of a module, so it is compiled as module code: -DMODULE)
	{
		echo "obj-m := stp_rt_mod.o"
		echo "stp_rt_mod-y := stp_rt.o"
		echo "ccflags-y := -I$runtime -Wno-declaration-after-statement"
	} >"$dir/Kbuild"
	echo '#include "runtime.c"' >"$dir/stp_rt.c"
	make -C "/lib/modules/$release/build" M="$dir" stp_rt.o \
		>"$dir/build0.log" 2>&1
	kbuild_modules() { # module...
		local m
		for m in "$@"; do
			echo "obj-m += $m.o"
			echo "$m-y := ${m}_src.o ${m}_rt.o"
		done
		echo "ccflags-y := -I$runtime -Wno-declaration-after-statement"
	}
	for m in "${mods[@]}"; do
		mv "$dir/$m.c" "$dir/${m}_src.c"
		ln -sf stp_rt.o "$dir/${m}_rt.o_shipped"
		: >"$dir/.${m}_rt.o.cmd"
	done
	kbuild_modules "${mods[@]}" >"$dir/Kbuild"
	make -C "/lib/modules/$release/build" M="$dir" -k -j2 modules \
		>"$dir/build1.log" 2>&1
	for m in "${mods[@]}"; do
		[ -f "$dir/${m}_src.o" ] && ok_mods+=("$m")
	done
	if [ ${#ok_mods[@]} -gt 0 ]; then
		kbuild_modules "${ok_mods[@]}" >"$dir/Kbuild"
		make -C "/lib/modules/$release/build" M="$dir" -j2 modules \
			>"$dir/build2.log" 2>&1
	fi
	for i in "${!mods[@]}"; do
		m=${mods[$i]}
		err=$(grep -E "(^|/)$m(_src)?\.(c|o|ko|mod)[:. ]|\b$m\b.*(undefined|error)" \
			"$dir/build0.log" "$dir/build1.log" "$dir/build2.log" \
			2>/dev/null | head -20)
		if [ ! -f "$dir/$m.ko" ]; then
			corpus_result "${names[$i]}" 1 "pass 4 failed: $err" "$tag" "$tag"
		elif grep -q "${m}_src\.c:[0-9]*:[0-9]*: warning:" "$dir/build1.log"; then
			corpus_result "${names[$i]}" 1 "kbuild warnings: $err" "$tag" "$tag"
		else
			corpus_result "${names[$i]}" 0 "" "$tag" "$tag"
		fi
	done
}

# Kernels with headers, in version order: 6.1 first (the shell scripts run
# with it), then 6.12
build_first=1
for build_release in $(ls /lib/modules 2>/dev/null | grep -E '^6\.(1|12)\.' | sort -V); do
	[ -f "/lib/modules/$build_release/build/Makefile" ] || continue
	corpus_build "$build_release" \
		"$(echo "$build_release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')" $build_first
	build_first=0
done
if [ $build_first = 1 ] && wanted corpus/buildok; then
	skip "corpus/buildok" "no kernel headers for 6.1 or 6.12"
fi
