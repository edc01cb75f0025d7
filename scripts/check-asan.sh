#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the compiler (passes 1-3) with ASan and UBSan and run it over every
# script of SystemTap's corpus and of tests/ at -p1 and -p2; any sanitizer
# report fails. Used by the test suite (asan/corpus) and `make check-asan`.
#   scripts/check-asan.sh [WORKDIR]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$top" || exit 1
[ -f parser/grammar.c ] && [ -f parser/lexer.c ] || make -s parser/grammar.c parser/lexer.c
bin=$work/stap-asan
# stap's own sources, as Makefile.am lists them (a new file cannot be missed)
am_list() { # VARIABLE: its .c files, continuation lines joined, $(VAR)s expanded
	local w
	for w in $(sed -n "/^$1 *=/,/[^\\]\$/p" Makefile.am | sed "s/\\\\$//; s/^$1 *=//"); do
		case $w in
		'$('*')') am_list "${w:2:${#w}-3}" ;;
		*.c) echo "$w" ;;
		esac
	done
}
stap_sources=$(am_list stap_stap_SOURCES | sort -u)
# passes 1-3 (libstap.a: lib/, elf/, target/, parser/, semantic/, probes/
# and the module backend's pass 3), with the parser bison and flex wrote
lib_sources=$(am_list libstap_a_SOURCES | sort -u)
[ -n "$stap_sources" ] || { echo "asan: no stap_stap_SOURCES in Makefile.am"; exit 1; }
if ! gcc -std=gnu11 -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined -I"$top" -I. \
	-DPKGDATADIR='"/nonexistent"' -DABS_TOP_SRCDIR="\"$top\"" \
	-DABS_TOP_BUILDDIR="\"$top\"" -o "$bin" \
	$stap_sources $lib_sources parser/grammar.c parser/lexer.c \
	-ldw -lelf -llzma -lz -lzstd -lbpf -ldl 2>"$work/build.log"; then
	echo "asan: build failed:"; cat "$work/build.log"; exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=99} UBSAN_OPTIONS=print_stacktrace=1
bad=0 count=0
for f in "$top"/../shared/corpus/systemtap-testsuite/*/*.stp "$top"/tests/*/*.stp; do
	[ -f "$f" ] || continue
	head -1 "$f" | grep -q '^#!.*sh' && continue	# shell-driven cases
	for p in ${PASSES:-2}; do
		count=$((count + 1))
		(cd "$(dirname "$f")" && timeout 60 "$bin" -p$p -g "$(basename "$f")") \
			>/dev/null 2>"$work/err"
		if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$work/err"; then
			bad=$((bad + 1))
			echo "asan: -p$p $f:"
			grep -E -A12 'AddressSanitizer|LeakSanitizer|runtime error:' "$work/err" | head -20
		fi
	done
done
echo "asan: $count runs, $bad with sanitizer reports"
[ $bad = 0 ]
