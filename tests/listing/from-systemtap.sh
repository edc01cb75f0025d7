#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Write the expected listings (NAME.TAG.out, NAME.TAG.rc when not 0) from
# Debian's SystemTap 4.8 (/usr/bin/stap), for every installed kernel whose
# debug vmlinux is present; TAG is the kernel's version (6.1, 6.12).
# The expected files are SystemTap's own output: review the diff, then
# commit it. Usage: tests/listing/from-systemtap.sh [NAME...]
# kprobe.* points: 4.8 reads the kernel's functions from the build tree's
# System.map (Debian's /boot/System.map-R is a placeholder), so those run
# with -r on a copy of the build tree (links) whose System.map is nm's of
# the debug vmlinux, as the kernel's own build writes it.
set -u
cd "$(dirname "$0")"
STAP=${SYSTEMTAP:-/usr/bin/stap}
maps=$(mktemp -d)
trap 'rm -rf "$maps"' EXIT
# the build tree of release $1 with a System.map, for kprobe points
kprobe_tree() {
	local dir=$maps/$1
	if [ ! -d "$dir" ]; then
		mkdir "$dir"
		for f in "/lib/modules/$1/build/"* "/lib/modules/$1/build/".[!.]*; do
			ln -s "$f" "$dir/"
		done
		rm -f "$dir/System.map"
		nm -n "/usr/lib/debug/boot/vmlinux-$1" |
			grep -v ' [aNUw] ' >"$dir/System.map"
	fi
	echo "$dir"
}
# module(...) points: our stap extracts the modules' debug files (from
# the -dbg package setup.sh keeps); 4.8 finds them by the installed
# module's path, which is .ko.xz on 6.12, so it gets a debug root of its
# own with build-id links to them
module_debug() { # release args...
	local release=$1 dir=$maps/debug-$1 f id
	shift
	../../stap/stap -r "$release" "$@" >/dev/null 2>&1
	mkdir -p "$dir"
	find "/usr/lib/debug/lib/modules/$release" -name '*.ko' 2>/dev/null |
	while read -r f; do
		id=$(readelf -n "$f" 2>/dev/null | sed -n 's/.*Build ID: //p')
		[ -n "$id" ] || continue
		mkdir -p "$dir/.build-id/${id:0:2}"
		ln -sf "$f" "$dir/.build-id/${id:0:2}/${id:2}.debug"
	done
	echo "$dir"
}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls *.args | sed 's/\.args$//'))
# user-space listings (NAME.uargs): run where user_prog.c is built as
# ./user_prog, that directory written @DIR@ (as run-tests.sh compares)
udir=$(mktemp -d)
trap 'rm -rf "$udir"' EXIT
cp user_prog.c "$udir/" &&
	(cd "$udir" && gcc -g -O2 -o user_prog user_prog.c) || exit 1
release=$(ls /boot/vmlinuz-* | head -1)
release=${release#/boot/vmlinuz-}
for f in *.uargs; do
	name=${f%.uargs}
	[ $# = 0 ] || [[ " $* " == *" $name "* ]] || continue
	read -ra args <"$f"
	(cd "$udir" && "$STAP" -r "$release" "${args[@]}" 2>/dev/null) |
		sed "s|$udir|@DIR@|g" >"$name.out"
	rc=${PIPESTATUS[0]}
	if [ $rc = 0 ]; then rm -f "$name.rc"; else echo $rc >"$name.rc"; fi
	echo "$name: $(wc -l <"$name.out") lines, exit $rc"
done
for img in /boot/vmlinuz-*; do
	release=${img#/boot/vmlinuz-}
	[ -s "/usr/lib/debug/boot/vmlinux-$release" ] || continue
	tag=$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	for name in "${names[@]}"; do
		[ -f "$name.args" ] || continue
		read -ra args <"$name.args"
		tree=$release
		case "${args[*]}" in *kprobe.*) tree=$(kprobe_tree "$release") ;; esac
		dpath=
		case "${args[*]}" in *module\(*) dpath=$(module_debug "$release" "${args[@]}") ;; esac
		# an empty SYSTEMTAP_DEBUGINFO_PATH hides the modules' debug
		# files from 4.8 (sunrpc.* aliases): set it only when needed
		if [ -n "$dpath" ]; then
			SYSTEMTAP_DEBUGINFO_PATH=+:.debug:/usr/lib/debug:$dpath \
			"$STAP" -r "$tree" "${args[@]}" >"$name.$tag.out" 2>/dev/null
		else
			"$STAP" -r "$tree" "${args[@]}" >"$name.$tag.out" 2>/dev/null
		fi
		rc=$?
		if [ $rc = 0 ]; then rm -f "$name.$tag.rc"; else echo $rc >"$name.$tag.rc"; fi
		echo "$tag $name: $(wc -l <"$name.$tag.out") lines, exit $rc"
	done
done
