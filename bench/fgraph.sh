#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of a function graph, per traced call, in the guest under qemu
# -icount shift=0 (guest time counts instructions: figures repeat). A
# getppid() loop runs with: nothing attached (baseline); the kernel's own
# function_graph tracer on __do_sys_getppid (the peer: the view
# function_graph.stp reproduces, written to the trace ring and not read);
# kernel.function("__do_sys_getppid").call and .return each counting
# (the attach floor of an entry and a return probe); and stap --graph
# __do_sys_getppid (fgraph_entry/fgraph_return: per-thread depth, the
# time, one formatted line per call, read by staprun into /dev/null).
# Prints ns per call added to the baseline.
#   bench/fgraph.sh [RELEASE] [CALLS]
# STAP_TREE=DIR measures the stap built in DIR (another worktree) instead.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${STAP_TREE:-$top}
stap=$tree/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
calls=${2:-20000}
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

gcc -static -O2 -o "$work/loop" "$top/bench/overhead/loop.c"
cd "$work"
echo 'probe begin { }' >base.stp
echo 'global n
probe kernel.function("__do_sys_getppid").call { n++ }
probe kernel.function("__do_sys_getppid").return { n++ }' >pair.stp
"$stap" -p4 -u -r "$release" -m g_base base.stp >/dev/null
"$stap" -p4 -r "$release" -m g_pair pair.stp >/dev/null
"$stap" -p4 -r "$release" -m g_graph --graph __do_sys_getppid >/dev/null

loop="/bin/loop $calls; /bin/loop $calls; /bin/loop $calls"
t=/sys/kernel/tracing
# (the guest's /init mounts tracefs)
ftrace="echo __do_sys_getppid >$t/set_ftrace_filter &&
echo function_graph >$t/current_tracer && $loop; echo nop >$t/current_tracer"
vm() { "$tree/stap/stapvm" -r "$release" --staprun "$tree/stap/staprun" --icount \
	--timeout 900 --file "$work/loop" "$@"; }
vm --staprun-arg -o --staprun-arg /dev/null --batch out \
	"g_base.ko::$loop" "g_base.ko::$ftrace" "g_pair.ko::$loop" \
	"g_graph.ko::$loop" >/dev/null

ns() { sed -n 's/^loop [0-9]* calls \([0-9]*\) ns$/\1/p' "$1" | sort -n | head -1; }
base=$(ns out/0.stdout)
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "function graph cost, $calls getppid() calls, $release, qemu -icount shift=0:"
printf '  %-44s %8s ns per call\n' "baseline (nothing attached)" "$(div "$base" "$calls")"
peer=$(( $(ns out/1.stdout) - base ))
report() { # label total-ns
	local added=$(( $2 - base ))
	printf '  %-44s %+8s ns per call  (%sx ftrace function_graph)\n' "$1" \
		"$(div "$added" "$calls")" "$(div "$added" "$peer")"
}
report "ftrace function_graph (the peer)" "$(ns out/1.stdout)"
report ".call + .return { n++ } (attach floor)" "$(ns out/2.stdout)"
report "stap --graph (fgraph_entry/fgraph_return)" "$(ns out/3.stdout)"
grep -h 'output records lost' out/3.stderr || echo "  stap --graph lines lost: 0"
