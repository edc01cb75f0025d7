#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build a fuzzer with clang's libFuzzer, ASan and UBSan, seed it with the
# corpus and the tests, and run it:
#   tests/fuzz/run.sh [SECONDS] [parser|compile]
# parser (the default): pass 1 and its printed form (fuzz_parser.c);
# compile: passes 1-3 with the tapsets and the kernel's catalogs, driven
# by a token-level mutator (fuzz_compile.c; FUZZ_RELEASE picks the kernel).
# Needs clang-14 and libclang-rt-14-dev; default 60 seconds. Inputs that
# crash or hang land in $FUZZ_DIR/artifacts: reduce them, fix the bug, and
# keep the input in tests/fuzz/regressions/ (the suite replays it).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
mode=${2:-parser}
out=${FUZZ_DIR:-/tmp/stap-fuzz-$mode}
mkdir -p "$out/corpus" "$out/artifacts"
cc=clang-14
cd "$top"
[ -f parser/grammar.c ] || make -s parser/grammar.c parser/lexer.c
parser_src="lib/*.c target/*.c parser/session.c parser/diag.c parser/ast.c
	parser/parse.c parser/preproc.c parser/unparse.c parser/grammar.c
	parser/lexer.c"
# pass 3: the module backend's files in libstap.a (module/ also holds pass 4 and 5)
pass3_src=$(sed -n '/^libstap_a_SOURCES *=/,/[^\\]$/p' Makefile.am |
	tr ' \t\\' '\n\n\n' | grep '^module/.*\.c$')
case $mode in
parser)
	# shellcheck disable=SC2086
	$cc -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -I"$top" -DPKGDATADIR='""' \
		-o "$out/fuzz_parser" tests/fuzz/fuzz_parser.c $parser_src \
		-ldw -lelf -llzma -lz -lzstd
	limits="-timeout=10 -rss_limit_mb=2048" ;;
compile)
	# shellcheck disable=SC2086
	$cc -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -I"$top" -DPKGDATADIR='""' \
		-DFUZZ_TAPSETS="\"$top/tapsets\"" \
		-o "$out/fuzz_compile" tests/fuzz/fuzz_compile.c $parser_src \
		semantic/*.c $pass3_src probes/*.c -ldw -lelf -llzma -lz -lzstd
	# the first input loads the kernel's catalogs (seconds)
	limits="-timeout=60 -rss_limit_mb=4096" ;;
*)
	echo "usage: $0 [SECONDS] [parser|compile]" >&2
	exit 2 ;;
esac
# seeds: SystemTap's corpus and our own tests; for compile, not those
# whose probe points are wildcards over whole families (vfs.*, syscall.*,
# kernel.function("*")): elaborating one takes a minute under ASan, and
# the mutator's narrower points cover wildcards
for f in "$top"/../shared/corpus/systemtap-testsuite/*/*.stp \
	 "$top"/tests/p1/*.stp "$top"/tests/p2/*.stp "$top"/tests/e2e/*.stp \
	 "$top"/tests/diag/*.stp; do
	[ -f "$f" ] || continue
	[ "$mode" = compile ] && grep -qE '(^|[ ,])[a-z_]+(\.[a-z_]+)*\.\*|function\("\*' "$f" &&
		continue
	cp "$f" "$out/corpus/" 2>/dev/null || true
done
# shellcheck disable=SC2086
"$out/fuzz_$mode" -max_total_time="$secs" -max_len=8192 $limits \
	-artifact_prefix="$out/artifacts/" "$out/corpus"
