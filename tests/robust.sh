# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run-tests.sh: bad input to the compiler (issue 15). The
# inputs are generated here (megabytes of script, not kept in git); each
# run is under `timeout`, so a regression fails instead of hanging the
# suite. No timing is asserted (bench/functions.sh shows pass 2's).
#
#   robust/chain-*     long flat chains compile (no stack overflow)
#   robust/too-deep    a tree deeper than AST_MAX_DEPTH: a clear error
#   robust/parens      nesting deeper than the parser's stack: a clear error
#   robust/one-line-deep  the same on one line of 2 MB: the error shows a
#                      cut of the line (stderr under 1 KB; it was 3 MB)
#   robust/else-if     a 5,000-arm else-if chain compiles
#   robust/functions   20,000 functions pass pass 2
#   robust/dev-zero, robust/stdin-zero   a script over 64 MiB: an error
#   robust/directory, robust/stdin-directory   a directory: an error
#   robust/tapset-fifo     an -I directory holding a FIFO named a.stp: not
#                          read (no hang at -p1 or -p2; SystemTap 4.8 hangs)
#   robust/tapset-dev-zero  a.stp -> /dev/zero there: not read (as 4.8),
#                          the directory's other tapsets still work
#   robust/tapset-too-big  a regular a.stp over 64 MiB: a warning, not read
#   robust/script-pipe     the script as a pipe (stap <(cmd)) is still read

# robust_run NAME TIMEOUT WANT_RC STDERR_REGEX STAP_ARGS...: the script is
# $work/robust.stp (made by the caller), run from $work.
robust_run() {
	local name=$1 secs=$2 want=$3 re=$4 rc
	shift 4
	wanted "$name" || return 0
	(cd "$work" && timeout "$secs" "$STAP" "$@") >/dev/null 2>"$work/robust.err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		fail "$name" "exit status $rc, expected $want: $(head -c 600 "$work/robust.err")"
	elif [ -n "$re" ] && ! head -c 2000 "$work/robust.err" | grep -qE -- "$re"; then
		fail "$name" "stderr does not match /$re/: $(head -c 600 "$work/robust.err")"
	else
		pass "$name"
	fi
}

# robust_chain N OP TERM: x = TERM OP TERM ... (N terms), one term a line
robust_chain() {
	awk -v n="$1" -v op="$2" -v t="$3" 'BEGIN {
		print "probe begin {\n\ta = 1\n\ts = \"a\""
		printf "\tx = %s", t
		for (i = 1; i < n; i++)
			printf " %s\n\t%s", op, t
		print "\n\tprintln(x)\n}"
	}' >"$work/robust.stp"
}

if wanted_group robust/; then
	robust_chain 40000 + 1
	robust_run robust/chain-plus-p3 60 0 '' -p3 robust.stp
	robust_chain 100000 + a
	robust_run robust/chain-plus-p2 60 0 '' -p2 robust.stp
	robust_chain 50000 . s
	robust_run robust/chain-concat-p3 60 0 '' -p3 robust.stp
	robust_chain 50000 '&&' a
	robust_run robust/chain-and-p3 60 0 '' -p3 robust.stp
	robust_chain 250000 + a
	robust_run robust/too-deep 60 1 \
		'^robust\.stp:[0-9]+:[0-9]+: error: nesting too deep: more than 200000 levels of expressions and statements$' \
		-p1 robust.stp
	# the caret line under the quoted source line
	if wanted robust/too-deep && ! sed -n 3p "$work/robust.err" | grep -qx '[[:space:]]*^'; then
		fail robust/too-deep-caret "no caret: $(head -3 "$work/robust.err")"
	fi
	awk 'BEGIN { print "probe begin {\n\tx = "
		for (i = 0; i < 1200000; i++) print "("
		print "1"
		for (i = 0; i < 1200000; i++) print ")"
		print "}" }' >"$work/robust.stp"
	robust_run robust/parens 60 1 \
		'^robust\.stp:[0-9]+:[0-9]+: error: nesting too deep for the parser' \
		-p1 robust.stp
	awk 'BEGIN { printf "probe begin { x = "
		for (i = 0; i < 1000000; i++) printf "("
		printf "1"
		for (i = 0; i < 1000000; i++) printf ")"
		print " }" }' >"$work/robust.stp"
	robust_run robust/one-line-deep 60 1 \
		'^robust\.stp:1:[0-9]+: error: nesting too deep for the parser' \
		-p1 robust.stp
	if wanted robust/one-line-deep &&
	   [ "$(wc -c <"$work/robust.err")" -gt 1024 ]; then
		fail robust/one-line-deep-size "$(wc -c <"$work/robust.err") bytes of stderr"
	fi
	awk 'BEGIN { print "probe begin {\n\ta = 1\n\tif (a == 0) x = 0"
		for (i = 1; i < 5000; i++)
			printf "\telse if (a == %d) x = %d\n", i, i
		print "\tprintln(x)\n}" }' >"$work/robust.stp"
	robust_run robust/else-if 60 0 '' -p3 robust.stp
	awk 'BEGIN {
		for (i = 0; i < 20000; i++)
			printf "function f%d(x) { return x + %d }\n", i, i
		print "probe begin {"
		for (i = 0; i < 20000; i++)
			printf "\ts += f%d(%d)\n", i, i
		print "\tprintln(s)\n}" }' >"$work/robust.stp"
	robust_run robust/functions 60 0 '' -p2 robust.stp
	robust_run robust/dev-zero 20 1 \
		"^stap: error: script '/dev/zero' is larger than 64 MiB, the limit$" \
		-p1 /dev/zero
	wanted robust/stdin-zero && robust_run robust/stdin-zero 20 1 \
		"^stap: error: script '<stdin>' is larger than 64 MiB, the limit$" \
		-p1 - </dev/zero
	mkdir -p "$work/robust.d"
	robust_run robust/directory 20 1 \
		"^stap: error: cannot read 'robust.d': Is a directory$" \
		-p1 robust.d
	wanted robust/stdin-directory && robust_run robust/stdin-directory 20 1 \
		"^stap: error: cannot read '<stdin>': Is a directory$" \
		-p1 - <"$work/robust.d"
	# hostile files in a tapset directory (only regular files are read)
	mkdir -p "$work/robust-fifo" "$work/robust-zero" "$work/robust-big"
	rm -f "$work/robust-fifo/a.stp" "$work/robust-zero/a.stp"
	mkfifo "$work/robust-fifo/a.stp"
	ln -s /dev/zero "$work/robust-zero/a.stp"
	ln -s /dev/zero "$work/robust-zero/z.stpm"
	echo 'function robust_good() { return 42 }' >"$work/robust-zero/b.stp"
	truncate -s 65M "$work/robust-big/a.stp"
	robust_run robust/tapset-fifo 20 0 '' \
		-I robust-fifo -p1 -e 'probe begin {}'
	robust_run robust/tapset-fifo-p2 20 0 '' \
		-I robust-fifo -p2 -e 'probe begin { println(pid()) }'
	robust_run robust/tapset-dev-zero 20 0 '' \
		-I robust-zero -p2 -e 'probe begin { println(robust_good()) }'
	robust_run robust/tapset-too-big 20 0 \
		"^stap: warning: tapset file 'robust-big/a.stp' is larger than 64 MiB, the limit: not read\$" \
		-I robust-big -p1 -e 'probe begin {}'
	if wanted robust/script-pipe; then
		out=$(cd "$work" && timeout 20 "$STAP" -p1 \
			<(echo 'probe begin { println("piped") }') 2>&1)
		if [ $? = 0 ] && grep -q 'println("piped")' <<<"$out"; then
			pass robust/script-pipe
		else
			fail robust/script-pipe "$(head -c 600 <<<"$out")"
		fi
	fi
fi
