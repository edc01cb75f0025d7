# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/run-tests.sh: every "Example:" of the tapsets' doc
# comments is checked (the convention is in HACKING.md, "Tapsets").
#
#   EXPR is VALUE.    VALUE a "string" literal or an integer: EXPR is
#                     evaluated in a begin probe in the guest and compared
#   COND holds.       COND is evaluated there and must be true
#   probe ... { ... } a probe (global declarations may come first): built
#                     and run in the guest for a moment, with a clean exit
#
# An example may go on over the next comment lines, up to an empty one.
#
#   library/examples       every example has one of those forms, and each
#                          passes pass 2 (no guest)
#   library/examples-TAG   the values, conditions and probes in a guest of
#                          each kernel (one boot): the script prints
#                          "FILE:LINE: ok" per example, or what it got

# FILE:LINE<TAB>KIND<TAB>EXPR<TAB>VALUE per example of the tapsets: KIND is
# str, num, cond, probe, or bad (no known form; EXPR is the whole text).
tapset_examples() {
	{ find "$top_srcdir/tapsets" -name '*.stp' -o -name '*.stpm'
	  echo "$top_srcdir/man/builtin-functions.stp"; } | sort | while read -r f; do
		awk -v file="${f#"$top_srcdir"/}" '
		function flush(   t, v) {
			if (ex == "") return
			t = ex; ex = ""
			sub(/[ \t]+$/, "", t)
			if (t ~ /^(probe|global)[ \t]/) {
				print where "\tprobe\t" t "\t"
			} else if (t ~ / holds\.?$/) {
				sub(/ holds\.?$/, "", t)
				print where "\tcond\t" t "\t"
			} else if (match(t, / is "([^"\\]|\\.)*"\.?$/)) {
				v = substr(t, RSTART + 4); sub(/\.$/, "", v)
				print where "\tstr\t" substr(t, 1, RSTART - 1) "\t" v
			} else if (match(t, / is -?(0x[0-9a-fA-F]+|[0-9]+)\.?$/)) {
				v = substr(t, RSTART + 4); sub(/\.$/, "", v)
				print where "\tnum\t" substr(t, 1, RSTART - 1) "\t" v
			} else {
				print where "\tbad\t" t "\t"
			}
		}
		/\/\*\*/ { doc = 1 }
		doc && /^[ \t]*\*[ \t]*Example:/ {
			flush()
			where = file ":" FNR
			ex = $0; sub(/^[ \t]*\*[ \t]*Example:[ \t]*/, "", ex)
			if (ex ~ /\*\/[ \t]*$/) { sub(/[ \t]*\*\/[ \t]*$/, "", ex); flush(); doc = 0 }
			next
		}
		doc && ex != "" && /^[ \t]*\*[ \t]*[^ \t\/]/ {
			l = $0; sub(/^[ \t]*\*[ \t]*/, "", l)
			if (l !~ /^@/) { ex = ex " " l; next }
		}
		ex != "" { flush() }
		/\*\// { doc = 0 }
		END { flush() }' "$f"
	done
}

# A script literal of text: backslashes and quotes escaped.
stp_quote() { sed 's/\\/\\\\/g; s/"/\\"/g'; }

# The begin probe that checks every value and condition example ($1: the
# examples), and the output it must print ($2).
examples_script() { # examples script expected
	local where kind expr value q n=0
	{
		echo "probe begin {"
		while IFS=$'\t' read -r where kind expr value; do
			q=$(stp_quote <<<"$expr" | sed 's/%/%%/g')
			n=$((n + 1))
			case $kind in
			str|num)
				echo "	try { v$n = $expr; if (v$n == $value) { println(\"$where: ok\") } else { printf(\"$where: $q is $([ $kind = str ] && echo '\"%s\"' || echo %d), the comment says %s\\n\", v$n, \"$(stp_quote <<<"$value")\") } } catch (e) { printf(\"$where: $q raised %s\\n\", e) } // $where"
				;;
			cond)
				echo "	try { if ($expr) { println(\"$where: ok\") } else { println(\"$where: $q is false\") } } catch (e) { printf(\"$where: $q raised %s\\n\", e) } // $where"
				;;
			*) continue ;;
			esac
			echo "$where: ok" >>"$3"
		done <"$1"
		echo "	exit()"
		echo "}"
	} >"$2"
}

# Each probe example as a script of its own ($2/N.stp), stopped after a
# moment if it does not stop itself; prints the scripts' names.
examples_probes() { # examples dir
	local where kind expr value n=0
	mkdir -p "$2"
	while IFS=$'\t' read -r where kind expr value; do
		[ "$kind" = probe ] || continue
		n=$((n + 1))
		{
			echo "// $where"
			echo "$expr"
			echo "probe timer.ms(300) { exit() }"
		} >"$2/$n.stp"
		echo "$2/$n.stp"
	done <"$1"
}

ex_releases=$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V |
	while read -r r; do
		[ -f "/lib/modules/$r/build/Makefile" ] && echo "$r"
	done)
ex_wanted=0
wanted library/examples && ex_wanted=1
for r in $ex_releases; do
	wanted "library/examples-$(echo "$r" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')" && ex_wanted=1
done
if [ $ex_wanted = 1 ]; then
	ex_dir=$work/examples
	mkdir -p "$ex_dir"
	tapset_examples >"$ex_dir/all"
	ex_ok=1
	if ! [ -s "$ex_dir/all" ]; then
		ex_ok=0
		wanted library/examples && fail library/examples "no Example: found in the tapsets"
	elif grep -q $'\tbad\t' "$ex_dir/all"; then
		ex_ok=0
		wanted library/examples && fail library/examples "examples of no known form (EXPR is VALUE, COND holds, probe ...; see HACKING.md):
$(awk -F '\t' '$2 == "bad" { print $1 ": " $3 }' "$ex_dir/all")"
	fi
	: >"$ex_dir/expected"
	examples_script "$ex_dir/all" "$ex_dir/values.stp" "$ex_dir/expected"
	mapfile -t ex_probes < <(examples_probes "$ex_dir/all" "$ex_dir/probes")
	if [ $ex_ok = 1 ] && wanted library/examples; then
		problems=
		if ! "$STAP" -g -p2 "$ex_dir/values.stp" >"$work/out" 2>&1; then
			problems="$(grep -v '^ *\^' "$work/out" | head -30)"
		fi
		for p in "${ex_probes[@]}"; do
			"$STAP" -g -p2 "$p" >"$work/out" 2>&1 && continue
			problems="$problems
$(head -1 "$p" | sed 's|^// ||'): $(head -5 "$work/out")"
		done
		if [ -z "$problems" ]; then
			pass "library/examples ($(wc -l <"$ex_dir/expected") values, ${#ex_probes[@]} probes)"
		else
			ex_ok=0
			fail library/examples "$problems"
		fi
	fi
	for release in $ex_releases; do
		tag=$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
		name=library/examples-$tag
		wanted "$name" || continue
		if [ $use_vm = 0 ]; then
			skip "$name" "--no-vm"
			continue
		elif [ $ex_ok = 0 ]; then
			skip "$name" "library/examples fails"
			continue
		elif ! [ -x "$STAPVM" ] || ! command -v qemu-system-x86_64 >/dev/null ||
			! [ -x /bin/busybox ]; then
			skip "$name" "no guest (qemu, busybox or stap/stapvm missing)"
			continue
		fi
		ex_jobs=()
		problems=
		for p in "$ex_dir/values.stp" "${ex_probes[@]}"; do
			if ko=$("$STAP" -g -p4 -r "$release" "$p" 2>"$work/build.err"); then
				ex_jobs+=("$ko")
			else
				problems="$problems
$(head -1 "$p" | sed 's|^// ||'): pass 4 failed: $(tail -10 "$work/build.err")"
			fi
		done
		if [ -n "$problems" ]; then
			fail "$name" "$problems"
			continue
		fi
		if ! run_batch "$release" "$work/exvm" "$work/exvm.log" "${ex_jobs[@]}"; then
			fail "$name" "the guest did not run: $(tail -20 "$work/exvm.log")"
			continue
		fi
		if ! cmp -s "$ex_dir/expected" "$work/exvm/0.stdout" ||
			[ "$(cat "$work/exvm/0.rc" 2>/dev/null)" != 0 ]; then
			problems="values (exit status $(cat "$work/exvm/0.rc" 2>/dev/null)):
$(diff "$ex_dir/expected" "$work/exvm/0.stdout" | grep '^[<>]')
$(cat "$work/exvm/0.stderr" 2>/dev/null)"
		fi
		i=1
		for p in "${ex_probes[@]}"; do
			rc=$(cat "$work/exvm/$i.rc" 2>/dev/null || echo none)
			if [ "$rc" != 0 ] || [ -s "$work/exvm/$i.stderr" ]; then
				problems="$problems
$(head -1 "$p" | sed 's|^// ||'): exit status $rc: $(head -5 "$work/exvm/$i.stderr" 2>/dev/null)"
			fi
			i=$((i + 1))
		done
		if [ -z "$problems" ]; then
			pass "$name"
		else
			fail "$name" "$problems"
		fi
		check_dmesg "$name/guest-dmesg" "$work/exvm"
	done
fi
