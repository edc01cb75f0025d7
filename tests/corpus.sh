# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/run-tests.sh: SystemTap's own pass-1 test scripts from
# ../shared/corpus/systemtap-testsuite, judged as upstream judges them.
#
#   parseok/   every script is accepted (exit 0)
#   parseko/   every script is rejected: exit status 1 with a
#              FILE:LINE:COL diagnostic for "#! stap" scripts, any clean
#              non-zero exit for shell scripts (a signal is a crash)
#   round trip for every "#! stap" script of parseok, semok, semko, transok,
#              transko, buildok, buildko that parses: printing the -p1 output
#              again gives the same text
#
# Scripts whose first line is "#! stap ARGS" run as `stap ARGS FILE`; the
# others are shell scripts that call stap themselves, run with our stap
# first in PATH. Cases in tests/known-failures are expected to fail (XFAIL);
# one that passes fails the run, so the list only shrinks.

corpus=$top_srcdir/../shared/corpus/systemtap-testsuite
known=$tests/known-failures

# Is NAME in the known-failures list? (prints the reason)
known_failure() {
	[ -f "$known" ] && awk -v n="$1" '$1 == n { $1 = ""; sub(/^ +/, ""); print; found = 1 }
		END { exit !found }' "$known"
}

# Record a result, honouring the known-failures list.
corpus_result() { # name ok(0/1) detail
	local name=$1 ok=$2 detail=${3:-} reason
	if reason=$(known_failure "$name"); then
		if [ "$ok" = 0 ]; then
			fail "$name" "unexpected pass: remove it from tests/known-failures"
		else
			npass=$((npass + 1))
			echo "XFAIL: $name ($reason)"
		fi
	elif [ "$ok" = 0 ]; then
		pass "$name"
	else
		fail "$name" "$detail"
	fi
}

# Run one corpus script; sets crun_rc and crun_err.
corpus_run() { # file
	local f=$1 first args
	first=$(head -1 "$f")
	case $first in
	"#! stap"*|"#!stap"*)
		args=${first#\#!}
		args=${args# }
		args=${args#stap}
		(cd "$(dirname "$f")" && timeout 60 "$STAP" $args "$(basename "$f")") \
			>/dev/null 2>"$work/corpus.err"
		crun_rc=$?
		crun_shell=0
		;;
	*)
		(cd "$(dirname "$f")" && PATH=$top_builddir/stap:$PATH \
			SRCDIR=$work/srcroot timeout 60 bash "$(basename "$f")") \
			>/dev/null 2>"$work/corpus.err" </dev/null
		crun_rc=$?
		crun_shell=1
		;;
	esac
	crun_err=$(head -c 3000 "$work/corpus.err")
}

if [ ! -d "$corpus" ]; then
	skip "corpus" "no SystemTap corpus at ${corpus#$top_srcdir/}"
else
	# shell cases find their data as ${SRCDIR}/testsuite/...
	mkdir -p "$work/srcroot"
	ln -sfn "$corpus" "$work/srcroot/testsuite"
	for f in "$corpus"/parseok/*.stp; do
		name=corpus/parseok/$(basename "$f" .stp)
		wanted "$name" || continue
		corpus_run "$f"
		[ $crun_rc = 0 ]
		corpus_result "$name" $? "exit status $crun_rc: $crun_err"
	done
	for f in "$corpus"/parseko/*.stp; do
		name=corpus/parseko/$(basename "$f" .stp)
		wanted "$name" || continue
		corpus_run "$f"
		ok=1 detail=
		if [ $crun_rc = 0 ]; then
			detail="accepted (exit status 0)"
		elif [ $crun_rc -ge 124 ]; then
			detail="crashed or hung (exit status $crun_rc): $crun_err"
		elif [ $crun_shell = 0 ] && ! grep -qE ':[0-9]+:[0-9]+: error: ' <<<"$crun_err"; then
			detail="rejected without a FILE:LINE:COL diagnostic: $crun_err"
		else
			ok=0
		fi
		corpus_result "$name" $ok "$detail"
	done

	# Pass 2: semok must be accepted, semko rejected (stap's exit status,
	# as upstream judges; a crash or hang is never the expected failure).
	for d in semok semko; do
		for f in "$corpus"/$d/*.stp; do
			name=corpus/$d/$(basename "$f" .stp)
			wanted "$name" || continue
			corpus_run "$f"
			if [ $d = semok ]; then
				[ $crun_rc = 0 ]
				corpus_result "$name" $? "exit status $crun_rc: $crun_err"
			elif [ $crun_rc = 0 ]; then
				corpus_result "$name" 1 "accepted (exit status 0)"
			elif [ $crun_rc -ge 124 ]; then
				corpus_result "$name" 1 "crashed or hung (exit status $crun_rc): $crun_err"
			else
				corpus_result "$name" 0
			fi
		done
	done

	# The -p1 round trip over every "#! stap" script that parses.
	if wanted corpus/round-trip; then
		rt_bad= rt_count=0
		for d in parseok semok semko transok transko buildok buildko; do
			for f in "$corpus"/$d/*.stp; do
				head -1 "$f" | grep -q '^#! *stap' || continue
				args=$(head -1 "$f" | sed 's/^#! *stap//')
				g=; case " $args " in *" -g "*|*" -gp"*) g=-g ;; esac
				(cd "$(dirname "$f")" && timeout 20 "$STAP" -p1 $g \
					"$(basename "$f")") >"$work/rt1" 2>/dev/null || continue
				tail -n +3 "$work/rt1" >"$work/rt1.stp"
				timeout 20 "$STAP" -p1 $g "$work/rt1.stp" 2>&1 |
					tail -n +3 >"$work/rt2"
				rt_count=$((rt_count + 1))
				cmp -s <(tail -n +3 "$work/rt1") "$work/rt2" ||
					rt_bad="$rt_bad $d/$(basename "$f")"
			done
		done
		if [ -z "$rt_bad" ]; then
			pass "corpus/round-trip ($rt_count scripts)"
		else
			fail "corpus/round-trip" "printing again differs for:$rt_bad"
		fi
	fi
fi
