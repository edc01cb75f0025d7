#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Write the expected listings (NAME.TAG.out, NAME.TAG.rc when not 0) from
# Debian's SystemTap 4.8 (/usr/bin/stap), for every installed kernel whose
# debug vmlinux is present; TAG is the kernel's version (6.1, 6.12).
# The expected files are SystemTap's own output: review the diff, then
# commit it. Usage: tests/listing/from-systemtap.sh [NAME...]
set -u
cd "$(dirname "$0")"
STAP=${SYSTEMTAP:-/usr/bin/stap}
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls *.args | sed 's/\.args$//'))
for img in /boot/vmlinuz-*; do
	release=${img#/boot/vmlinuz-}
	[ -s "/usr/lib/debug/boot/vmlinux-$release" ] || continue
	tag=$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
	for name in "${names[@]}"; do
		read -ra args <"$name.args"
		"$STAP" -r "$release" "${args[@]}" >"$name.$tag.out" 2>/dev/null
		rc=$?
		if [ $rc = 0 ]; then rm -f "$name.$tag.rc"; else echo $rc >"$name.$tag.rc"; fi
		echo "$tag $name: $(wc -l <"$name.$tag.out") lines, exit $rc"
	done
done
