#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The functions SystemTap 4.8 has that ours lacks (the suite's
# listing/functions48):
#
#   tests/listing/functions48/check.sh STAP
#
# dump-functions.6.1.txt is 4.8's own list (/usr/bin/stap -r
# 6.1.0-56-cloud-amd64 --dump-functions, written once); missing.txt names
# each of its functions ours does not list, with the reason. The
# difference must be exactly missing.txt: a function added, or one lost,
# fails until the list says so.
set -u
stap=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

sed 's/:.*//' "$here/dump-functions.6.1.txt" | sort -u >"$work/48"
if ! "$stap" --dump-functions >"$work/dump" 2>"$work/err"; then
	echo "--dump-functions failed: $(head -5 "$work/err")"
	exit 1
fi
sed 's/:.*//' "$work/dump" | sort -u >"$work/ours"
comm -23 "$work/48" "$work/ours" >"$work/missing"
grep -v '^#' "$here/missing.txt" | cut -f1 | sort >"$work/listed"
bad=0
gained=$(comm -13 "$work/missing" "$work/listed")
lost=$(comm -23 "$work/missing" "$work/listed")
[ -z "$gained" ] || { echo "now there, remove from missing.txt:" $gained; bad=1; }
[ -z "$lost" ] || { echo "missing, not in missing.txt:" $lost; bad=1; }
echo "$(wc -l <"$work/48") functions in 4.8, $(wc -l <"$work/missing") missing here"
exit $bad
