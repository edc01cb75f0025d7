# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/run-tests.sh: every tracepoint `stap -L
# 'kernel.trace("*")'` lists builds with $$parms (every argument read and
# widened in its callback), on each kernel with headers: one module per
# kernel, built at -p4 (tracepoints/build-TAG, its time printed), with a
# probe on every tracepoint (1,600-1,900: 15-20 s of kbuild on an idle
# machine). TP_SWEEP_TYPES=1 builds a quarter of them: the first of each
# system and every one that passes a type by value that the system's
# earlier ones do not, so each type a callback declares is still built. A system in
# tests/tp-known-failures (SYSTEM for every kernel, SYSTEM@TAG for one,
# with the reason) is left out of the module and shown as XFAIL; an entry
# for a system the kernel does not list fails the test (a stale entry).
# The listing has only the tracepoints the kernel defines (vmlinux and
# modules), so subsystems the kernel was built without are never seen.

if ls /lib/modules/*/build/Makefile >/dev/null 2>&1; then
	for r in $(ls /lib/modules 2>/dev/null | sort -V); do
		[ -f "/lib/modules/$r/build/Makefile" ] || continue
		tag=$(echo "$r" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
		wanted "tracepoints/build-$tag" || continue
		if ! "$STAP" -r "$r" -L 'kernel.trace("*")' >"$work/tps" 2>&1; then
			fail "tracepoints/build-$tag" "$(head -20 "$work/tps")"
			continue
		fi
		# every tracepoint, or (TP_SWEEP_TYPES=1) per system its first
		# and each one whose arguments have a type passed by value (no
		# pointer) that no tracepoint before it in the system has
		awk -v all="$([ "${TP_SWEEP_TYPES:-0}" = 1 ] && echo 0 || echo 1)" -v tag="$tag" \
			-v known="$tests/tp-known-failures" '
		BEGIN {
			while ((getline l <known) > 0)
				if (l !~ /^#/ && split(l, f, "\t") > 1)
					why[f[1]] = f[2]
		}
		{
			sys = $0; sub(/^kernel\.trace\("/, "", sys); sub(/:.*/, "", sys)
			tp = $1; sub(/^kernel\.trace\("[^:]*:/, "", tp); sub(/"\)$/, "", tp)
			if ((sys "@" tag) in why) w = why[sys "@" tag]
			else if (sys in why) w = why[sys]
			else w = ""
			if (w != "") {
				if (!(sys in xf)) print "XFAIL\t" sys "\t" w
				xf[sys] = 1
				next
			}
			args = $0; sub(/^[^)]*\)/, "", args)
			n = split(args, t, / \$[A-Za-z0-9_]+:/)
			pick = all || !(sys in seen)
			seen[sys] = 1
			for (i = 2; i <= n; i++)
				if (t[i] !~ /[*[]/ && !((sys SUBSEP t[i]) in cov)) {
					cov[sys SUBSEP t[i]] = 1
					pick = 1
				}
			if (pick) print "TP\t" sys ":" tp
		}
		END {
			for (k in why) {
				s = k
				if (sub("@" tag "$", "", s) == 0 && k ~ /@/)
					continue
				if (!(s in xf))
					print "STALE\t" k
			}
		}' "$work/tps" >"$work/tps.sel"
		if grep -q '^STALE' "$work/tps.sel"; then
			fail "tracepoints/build-$tag" "tp-known-failures names systems this kernel does not list:$(awk -F'\t' '$1 == "STALE" { printf " %s", $2 }' "$work/tps.sel")"
			continue
		fi
		nxfail=$(grep -c '^XFAIL' "$work/tps.sel")
		ntp=$(grep -c '^TP' "$work/tps.sel")
		nsys=$(awk -F'\t' '$1 == "TP" { sub(/:.*/, "", $2); s[$2] } END { print length(s) }' "$work/tps.sel")
		awk -F'\t' -v tag="$tag" '$1 == "XFAIL" {
			print "XFAIL: tracepoints/build-" tag " " $2 " (" $3 ")" }' "$work/tps.sel"
		awk -F'\t' '$1 == "TP" { printf "%skernel.trace(\"%s\")", n++ ? ",\n\t" : "probe ", $2 }
			END { print " { println($$parms) }" }' "$work/tps.sel" >"$work/tps.stp"
		t0=$(date +%s.%N)
		if (cd "$work" && "$STAP" -r "$r" -p4 -m tpsweep tps.stp) \
			>"$work/out" 2>&1; then
			pass "tracepoints/build-$tag ($ntp of $(wc -l <"$work/tps") tracepoints, $nsys systems, $nxfail left out, $(echo "$(date +%s.%N) - $t0" | bc | sed 's/\(\.[0-9]\).*/\1/') s)"
		else
			fail "tracepoints/build-$tag" "$(grep -m 20 -E 'error|Error' "$work/out")"
		fi
	done
elif wanted tracepoints/build; then
	skip tracepoints/build "no kernel headers"
fi
