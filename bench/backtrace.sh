#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of the stack and symbol functions per probe hit, in the guest
# under qemu -icount shift=0 (repeatable figures; see overhead.sh). A
# getppid() loop runs under probes on kernel.function("__x64_sys_getppid")
# (frames from the probe's registers) and raw_syscalls:sys_enter (frames
# from the handler, the module's own skipped), each doing n++ (the
# probe's own cost), bt[backtrace()] <<< 1 (walk only), or
# s = sprint_backtrace() (walk and a symbol lookup per frame). Prints
# the added ns per hit over the bare loop. BENCH_NAMES picks scripts
# ("base kf_bt" ...; base is required and first). Figures repeat within
# a boot but move by about a third between boots (addresses differ).
# Measured 2026-11-22, 6.12, 5000 calls: n++ +250, backtrace() +4100 to
# +6900 (about 1000 per frame, mostly the kernel's unwinder and its
# text-address checks), sprint_backtrace() +20500 ns per hit.
#   bench/backtrace.sh [RELEASE] [CALLS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=$top/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
calls=${2:-5000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -o "$work/loop" "$top/bench/overhead/loop.c"
cd "$work"
kf='kernel.function("__x64_sys_getppid")'
tp='kernel.trace("raw_syscalls:sys_enter")'
echo 'probe begin { }' >base.stp
echo "global n; probe $kf { n++ }" >kf_inc.stp
echo "global bt; probe $kf { bt[backtrace()] <<< 1 }" >kf_bt.stp
echo "global s; probe $kf { s = sprint_backtrace() }" >kf_sym.stp
echo "global n; probe $tp { n++ }" >tp_inc.stp
echo "global bt; probe $tp { bt[backtrace()] <<< 1 }" >tp_bt.stp
echo "global s; probe $tp { s = sprint_backtrace() }" >tp_sym.stp
names="${BENCH_NAMES:-base kf_inc kf_bt kf_sym tp_inc tp_bt tp_sym}"
jobs=()
for s in $names; do
	"$stap" -p4 -u -r "$release" -m "b_$s" "$s.stp" >/dev/null
	jobs+=("b_$s.ko::/bin/loop $calls")
done
"$top/stap/stapvm" -r "$release" --staprun "$top/stap/staprun" --icount \
	--timeout 900 --file "$work/loop" --batch out "${jobs[@]}" >/dev/null

ns() { sed -n 's/^loop [0-9]* calls \([0-9]*\) ns$/\1/p' "$1"; }
base=$(ns out/0.stdout)
echo "stack functions, $calls getppid() calls, $release, qemu -icount shift=0:"
i=1
for s in $names; do
	[ "$s" = base ] && continue
	printf '  %-8s %10s ns per hit\n' "$s" \
		"$(awk -v a="$(ns out/$i.stdout)" -v b="$base" -v n="$calls" \
			'BEGIN { printf "%+.0f", (a - b) / n }')"
	i=$((i + 1))
done
