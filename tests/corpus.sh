# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/run-tests.sh: SystemTap's own pass-1 test scripts from
# ../shared/corpus/systemtap-testsuite, judged as upstream judges them.
#
#   parseok/   every script is accepted (exit 0)
#   parseko/   every script is rejected: exit status 1 with a
#              FILE:LINE:COL diagnostic for "#! stap" scripts, any clean
#              non-zero exit for shell scripts (a signal is a crash)
#   semok/     every script is accepted (exit 0)
#   semko/     every script is rejected for the right reason: a clean
#              non-zero exit (1..123) and stderr matching the script's
#              pattern in tests/semko-reasons; corpus/semko-summary checks
#              that at least 95% of them are
#   transok/, buildok/  every script builds at -p4 against each kernel
#              with headers, 6.1 and 6.12 (tests/corpus-build.sh: one
#              kbuild run per kernel for all of them)
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

# Is NAME in the known-failures list? (prints the reason) With a kernel
# TAG (6.1, 6.12), a "NAME@TAG" line is for that kernel only and comes
# first; a plain "NAME" line is for every kernel.
known_failure() { # name [tag]
	[ -f "$known" ] && awk -v n="$1" -v t="${2:+$1@$2}" '
		t != "" && $1 == t { $1 = ""; sub(/^ +/, ""); tagged = $0 }
		$1 == n { $1 = ""; sub(/^ +/, ""); plain = $0 }
		END {
			if (tagged != "") print tagged; else if (plain != "") print plain
			exit (tagged == "" && plain == "")
		}' "$known"
}

# The pattern tests/semko-reasons gives for a semko script (fails if none).
semko_reason() { # name
	[ -f "$tests/semko-reasons" ] && awk -F '\t' -v n="$1" '
		/^#/ { next }
		$1 == n { sub(/^[^\t]*\t/, ""); print; found = 1; exit }
		END { exit !found }' "$tests/semko-reasons"
}

# Record a result, honouring the known-failures list; a note, if any, is
# shown after the name whatever the result.
corpus_result() { # name ok(0/1) detail [note] [kernel tag]
	local name=$1 ok=$2 detail=${3:-} note=${4:+ (${4})} reason
	if reason=$(known_failure "$name" "${5:-}"); then
		if [ "$ok" = 0 ]; then
			fail "$name$note" "unexpected pass: remove it from tests/known-failures"
		else
			npass=$((npass + 1))
			echo "XFAIL: $name$note ($reason)"
		fi
	elif [ "$ok" = 0 ]; then
		pass "$name$note"
	else
		fail "$name$note" "$detail"
	fi
}

# Run one corpus script; sets crun_rc and crun_err.
corpus_run() { # file [stap options]
	local f=$1 first args
	shift
	first=$(head -1 "$f")
	case $first in
	"#! stap"*|"#!stap"*)
		args=${first#\#!}
		args=${args# }
		args=${args#stap}
		(cd "$(dirname "$f")" && timeout 60 "$STAP" "$@" $args "$(basename "$f")") \
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

	# Pass 2: semok must be accepted (stap's exit status, as upstream
	# judges; a crash or hang is never the expected failure).
	for f in "$corpus"/semok/*.stp; do
		name=corpus/semok/$(basename "$f" .stp)
		wanted "$name" || continue
		corpus_run "$f"
		[ $crun_rc = 0 ]
		corpus_result "$name" $? "exit status $crun_rc: $crun_err"
	done

	# semko must be rejected, and for the reason tests/semko-reasons
	# gives (an extended regex some line of stderr must match).
	# The reasons were recorded with SystemTap on the 6.1 kernel (see
	# tests/semko-reasons): the "#! stap" scripts are judged on it too
	# (a function the script names may exist in one kernel only).
	semko_kernel=()
	for r in $(ls /lib/modules 2>/dev/null); do
		case $r in 6.1.*) [ -f "/lib/modules/$r/build/Makefile" ] &&
			semko_kernel=(-r "$r") ;;
		esac
	done
	# A script whose reason is "accepted by SystemTap 4.8" is one 4.8
	# itself accepts (the corpus dates from a SystemTap that rejected
	# it): it must be accepted, as 4.8 does, and is left out of the share.
	semko_total=0 semko_run=0 semko_right=0
	for f in "$corpus"/semko/*.stp; do
		base=$(basename "$f" .stp)
		name=corpus/semko/$base
		if [ "$(semko_reason "$base")" = "accepted by SystemTap 4.8" ]; then
			wanted "$name" || continue
			corpus_run "$f" "${semko_kernel[@]}"
			[ $crun_rc = 0 ]
			corpus_result "$name" $? "rejected (exit status $crun_rc), as SystemTap 4.8 does not: $crun_err"
			continue
		fi
		semko_total=$((semko_total + 1))
		wanted "$name" || continue
		semko_run=$((semko_run + 1))
		corpus_run "$f" "${semko_kernel[@]}"
		ok=1 detail=
		if [ $crun_rc = 0 ]; then
			detail="accepted (exit status 0)"
		elif [ $crun_rc -ge 124 ]; then
			detail="crashed or hung (exit status $crun_rc): $crun_err"
		elif ! semko_pattern=$(semko_reason "$base"); then
			detail="no expected reason recorded in tests/semko-reasons: $crun_err"
		elif ! grep -qE -- "$semko_pattern" "$work/corpus.err"; then
			detail="rejected for another reason (expected /$semko_pattern/): $crun_err"
		else
			ok=0
			semko_right=$((semko_right + 1))
		fi
		corpus_result "$name" $ok "$detail"
	done
	if wanted corpus/semko-summary; then
		summary="semko: $semko_right of $semko_total rejected for the right reason"
		if [ $semko_run != $semko_total ]; then
			skip corpus/semko-summary "only $semko_run of $semko_total semko scripts selected"
		else
			summary="$summary, $((semko_right * 100 / semko_total))%, at least 95% needed"
			[ $((semko_right * 100)) -ge $((semko_total * 95)) ]
			corpus_result corpus/semko-summary $? "$summary" "$summary"
		fi
	fi

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

	# transok and buildok at -p4 (each kernel)
	. "$tests/corpus-build.sh"
fi
