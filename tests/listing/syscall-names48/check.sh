#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SystemTap 4.8's syscall probe names, on one kernel (the suite's
# listing/syscall-names48-TAG):
#
#   tests/listing/syscall-names48/check.sh STAP RELEASE TAG
#
# The lists here are 4.8's own output (/usr/bin/stap -r RELEASE -l
# 'syscall.*' and -l 'nd_syscall.*', -L 'syscall.*' for vars.6.1.txt,
# written once; see README in this folder). On each kernel:
#   - every name 4.8 lists for that kernel, and every name it lists for
#     6.1 but those not-on.TAG.txt says the kernel lacks, is in our
#     -l 'syscall.*' (or 'nd_syscall.*');
#   - a script probing each of them and its .return (no '?') passes -p2;
#   - on 6.1, each such probe has every variable 4.8's -L shows, but
#     those vars-missing.6.1.txt lists (ours lacks them today), with
#     4.8's type: that file must be exactly what is missing, so it
#     shrinks as they are added.
set -u
stap=$1 release=$2 tag=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0
say() { echo "$*"; bad=1; }

for fam in syscall nd_syscall; do
	{
		cat "$here/$fam.$tag.txt"
		if [ "$tag" != 6.1 ]; then
			grep -vxF -f <(sed -n "s/^\([a-z0-9_]*\) .*/$fam.\1/p" \
				"$here/not-on.$tag.txt" 2>/dev/null) \
				"$here/$fam.6.1.txt"
		fi
	} | sort -u >"$work/want.$fam"
	if ! "$stap" -r "$release" -l "$fam.*" >"$work/ours.$fam" 2>"$work/err"; then
		say "-l '$fam.*' failed: $(head -5 "$work/err")"
		continue
	fi
	missing=$(sort "$work/ours.$fam" | comm -23 "$work/want.$fam" -)
	[ -z "$missing" ] || say "-l '$fam.*' lacks" $missing
	sed 's/.*/probe &, &.return { }/' "$work/want.$fam" >"$work/$fam.stp"
	if ! "$stap" -r "$release" -p2 "$work/$fam.stp" >/dev/null 2>"$work/err"; then
		say "-p2 of every $fam name failed: $(head -20 "$work/err")"
	fi
done

# a name of 6.1's list that a kernel lacks must be missing there
if [ -f "$here/not-on.$tag.txt" ]; then
	for n in $(sed -n 's/^\([a-z0-9_]*\) .*/\1/p' "$here/not-on.$tag.txt"); do
		! grep -qx "syscall.$n" "$work/ours.syscall" ||
			say "not-on.$tag.txt: syscall.$n is there"
	done
fi

if [ "$tag" = 6.1 ]; then
	"$stap" -r "$release" -L 'syscall.*' >"$work/L" 2>"$work/err" ||
		say "-L 'syscall.*' failed: $(head -5 "$work/err")"
	# vars.6.1.txt is NAME:TYPE per variable; ours must have the name
	# with the same type (a type that differs is reported at once)
	awk 'NR == FNR { for (i = 2; i <= NF; i++) { split($i, v, ":")
				have[$1, v[1]] = v[2] }
			 next }
	     { lack = ""
	       for (i = 2; i <= NF; i++) {
		       split($i, v, ":")
		       if (!(($1, v[1]) in have))
			       lack = lack " " v[1]
		       else if (have[$1, v[1]] != v[2])
			       print $1 " " v[1] ": ours is " have[$1, v[1]] \
				     ", 4.8 has " v[2] >"/dev/stderr"
	       }
	       if (lack != "")
		       print $1 lack }' "$work/L" "$here/vars.6.1.txt" \
		>"$work/vars-missing" 2>"$work/types"
	[ ! -s "$work/types" ] ||
		say "variables whose type is not 4.8's:" "$(head -30 "$work/types")"
	diff -u "$here/vars-missing.6.1.txt" "$work/vars-missing" >"$work/d" ||
		say "variables 4.8 has that ours lacks changed" \
		    "(vars-missing.6.1.txt):" "$(head -30 "$work/d")"
fi
exit $bad
