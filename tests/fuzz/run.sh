#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Build the pass-1 fuzzer with clang's libFuzzer, ASan and UBSan, seed it
# with the corpus and the tests, and run it:  tests/fuzz/run.sh [SECONDS]
# (needs clang-14 and libclang-rt-14-dev; default 60 seconds).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
out=${FUZZ_DIR:-/tmp/stap-fuzz}
mkdir -p "$out/corpus" "$out/artifacts"
cc=clang-14
cd "$top"
[ -f parser/grammar.c ] || make -s parser/grammar.c parser/lexer.c
$cc -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$top" -DPKGDATADIR='""' -o "$out/fuzz_parser" \
	tests/fuzz/fuzz_parser.c lib/*.c target/*.c parser/session.c \
	parser/diag.c parser/ast.c parser/parse.c parser/preproc.c \
	parser/unparse.c parser/grammar.c parser/lexer.c -ldw -lelf
# seeds: SystemTap's corpus and our own tests
for f in "$top"/../shared/corpus/systemtap-testsuite/*/*.stp \
	 "$top"/tests/p1/*.stp "$top"/tests/e2e/*.stp "$top"/tests/diag/*.stp; do
	[ -f "$f" ] && cp "$f" "$out/corpus/" 2>/dev/null || true
done
"$out/fuzz_parser" -max_total_time="$secs" -max_len=8192 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$out/artifacts/" "$out/corpus"
