#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The man pages (the suite's man/pages; HACKING.md, "Man pages"):
#   - every page, hand-written (man/) and generated from the tapsets
#     (scripts/gen-tapset-man.sh), formats with groff -ww without a
#     warning;
#   - every "[man X]" tag the sources can print (not tests/) has a page;
#   - every function stap --dump-functions lists has a function:: page;
#   - every option "stap --help" lists is in stap(1).
# Prints the problems found; exit status 0 (none), 1, or 77 when groff is
# not installed (apt-get install groff-base; scripts/setup.sh does).
#
#   tests/man-pages.sh STAP WORKDIR
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
stap=$1 work=$2
man=$top_srcdir/man

if ! command -v groff >/dev/null; then
	echo "groff is not installed (apt-get install groff-base)"
	exit 77
fi
problems=0
problem() { echo "$*"; problems=$((problems + 1)); }

# the generated pages, from this tree's tapsets
gen=$work/man-gen
rm -rf "$gen"
if ! out=$(sh "$top_srcdir/scripts/gen-tapset-man.sh" "$gen" test \
	"$man/stapprobes.3stap.in" "$top_srcdir"/tapsets/*.stp \
	"$top_srcdir"/tapsets/linux/*.stp \
	"$top_srcdir"/tapsets/linux/x86_64/*.stp "$top_srcdir"/tapsets/*.stpm \
	"$top_srcdir"/tapsets/linux/*.stpm "$man/builtin-functions.stp" 2>&1); then
	problem "scripts/gen-tapset-man.sh failed: $out"
fi
ls "$gen"/function::*.3stap >/dev/null 2>&1 ||
	problem "no function pages generated"
[ -s "$gen/stapfuncs.3stap" ] || problem "no stapfuncs.3stap generated"
# every function stap --dump-functions lists has its page (the builtins'
# from man/builtin-functions.stp)
nopage=$("$stap" --dump-functions 2>/dev/null | sed 's/:.*//' | sort -u |
	while read -r f; do
		[ -f "$gen/function::$f.3stap" ] || printf ' %s' "$f"
	done)
[ -z "$nopage" ] || problem "functions without a man page:$nopage"
# and the compiler's own that SystemTap 4.8 documents (issue 25)
for f in execname pid tid target cpu exit kernel_string pp pn strlen; do
	[ -f "$gen/function::$f.3stap" ] || problem "no page function::$f"
done

# groff's warnings (-ww: all of them). The hand-written pages one by one,
# the ~600 generated ones in one run (their warnings name the file).
pages=("$man"/*.[0-9] "$man"/*.[0-9]stap)
for p in "${pages[@]}"; do
	out=$(groff -man -Tutf8 -ww -z "$p" 2>&1)
	[ -z "$out" ] || problem "groff warnings for ${p#$top_srcdir/}: $out"
done
out=$(cd "$gen" && groff -man -Tutf8 -ww -z ./*.3stap 2>&1)
[ -z "$out" ] || problem "groff warnings for the generated pages:
$(head -20 <<<"$out")"

# the [man X] tags of every message (C, headers, tapsets; not tests/)
tags=$(cd "$top_srcdir" && grep -rhoE '\[man [^]\\ ]+' --include='*.c' \
	--include='*.h' --include='*.stp' --exclude-dir=tests \
	--exclude-dir=.git . | sed 's/^\[man //' | sort -u)
[ -n "$tags" ] || problem "no [man X] tags found in the sources"
for t in $tags; do
	found=
	for p in "$man/$t".* "$gen/$t".*; do
		[ -e "$p" ] && found=1
	done
	[ -n "$found" ] || problem "no page for [man $t]"
done

# every option of stap --help in stap(1), as a word of the rendered text
help=$("$stap" --help) || problem "stap --help failed"
opts=$(sed 's/--rlimit-{\([^}]*\)}/\n--rlimit-{\1}\n/' <<<"$help" |
	awk '/^--rlimit-\{/ { s = $0; sub(/^--rlimit-\{/, "", s); sub(/\}.*/, "", s)
		n = split(s, a, ","); for (i = 1; i <= n; i++) print "--rlimit-" a[i]
		next }
		{ print }' |
	grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z]*' | sed 's/^[ ,]*//' | sort -u)
[ -n "$opts" ] || problem "no options found in stap --help"
grep -qE '^  --  ' <<<"$help" && opts="$opts --"
text=$(groff -man -Tascii -P-cbou -rLL=200n "$man/stap.1" 2>/dev/null)
for o in $opts; do
	# not part of a longer option: no letter or '-' either side
	grep -qE -- "(^|[^-A-Za-z])$o([^-A-Za-z]|\$)" <<<"$text" ||
		problem "stap(1) does not mention $o (listed by stap --help)"
done

[ $problems = 0 ]
