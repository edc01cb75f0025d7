#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Per-hit cost of a perf sample and of a netfilter hook in the guest,
# under qemu -icount shift=0 (guest time counts instructions: figures
# repeat), each beside its floor, all in one boot:
#   perf: N page faults (bench/events/work.c touches N fresh pages) with
#   nothing attached, with the floor (bench/events/efloor.c: a software
#   perf event sampling every page fault on each CPU, its overflow handler
#   an atomic increment), with perf.sw.page_faults.sample(1) { n++ } (a
#   lean probe) and { n += cpu() } (a handler);
#   netfilter: N UDP datagrams to ourselves on the loopback, with nothing,
#   with the floor (an IPv4 LOCAL_OUT hook in init_net: atomic increment,
#   NF_ACCEPT), with netfilter.hook("NF_INET_LOCAL_OUT").pf("NFPROTO_IPV4")
#   { n++ } and { n += cpu() }.
# Prints ns per event and the added ns per hit.
#   bench/events.sh [RELEASE] [EVENTS]
# STAP_TREE=DIR measures the stap built in DIR (another worktree) instead.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${STAP_TREE:-$top}
stap=$tree/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
n=${2:-5000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

gcc -static -O2 -o "$work/work" "$top/bench/events/work.c"
mkdir "$work/efloor"
cp "$top/bench/events/efloor.c" "$work/efloor/"
echo 'obj-m := efloor.o' >"$work/efloor/Kbuild"
make -s -C "/lib/modules/$release/build" M="$work/efloor" modules >/dev/null 2>&1
cp "$work/efloor/efloor.ko" "$work/"

cd "$work"
echo 'probe begin { }' >base.stp		# built with -u: not elided
echo 'global n; probe perf.sw.page_faults.sample(1) { n++ }' >pf.stp
echo 'global n; probe perf.sw.page_faults.sample(1) { n += cpu() }' >pfh.stp
nf='netfilter.hook("NF_INET_LOCAL_OUT").pf("NFPROTO_IPV4")'
echo "global n; probe $nf { n++ }" >nf.stp
echo "global n; probe $nf { n += cpu() }" >nfh.stp
for s in base pf pfh nf nfh; do
	"$stap" -p4 $([ $s = base ] && echo -u) -r "$release" -m "e_$s" "$s.stp" >/dev/null
done
# three runs a job, the fastest kept (a load's or a boot's own work lands
# on the first)
runs() { echo "/bin/work $1 $n; /bin/work $1 $n; /bin/work $1 $n"; }
"$tree/stap/stapvm" -r "$release" --staprun "$tree/stap/staprun" --icount \
	--timeout 900 --file "$work/work" --file "$work/efloor.ko" \
	--batch out "e_base.ko::$(runs faults)" \
	"e_base.ko::insmod /bin/efloor.ko && $(runs faults) && rmmod efloor" \
	"e_pf.ko::$(runs faults)" "e_pfh.ko::$(runs faults)" \
	"e_base.ko::$(runs udp)" \
	"e_base.ko::insmod /bin/efloor.ko mode=nf && $(runs udp) && rmmod efloor" \
	"e_nf.ko::$(runs udp)" "e_nfh.ko::$(runs udp)" >/dev/null

ns() { sed -n 's/^loop [0-9]* calls \([0-9]*\) ns$/\1/p' "$1" | sort -n | head -1; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "per-hit cost, $n events, $release, qemu -icount shift=0:"
group() { # title first-job labels...
	local title=$1 j=$2 base floor
	shift 2
	base=$(ns "out/$j.stdout")
	floor=$(( $(ns "out/$((j + 1)).stdout") - base ))
	printf '  %-44s %8s ns per event\n' "$title (nothing attached)" \
		"$(div "$base" "$n")"
	for label in "$@"; do
		j=$((j + 1))
		local added=$(( $(ns "out/$j.stdout") - base ))
		printf '  %-44s %+8s ns per hit  (%sx the floor)\n' "$label" \
			"$(div "$added" "$n")" "$(div "$added" "$floor")"
	done
}
group "page faults" 0 "floor: perf event, atomic inc" \
	"perf.sw.page_faults.sample(1) { n++ }" "  { n += cpu() } (a handler)"
group "UDP on lo" 4 "floor: netfilter hook, atomic inc" \
	"netfilter LOCAL_OUT { n++ }" "  { n += cpu() } (a handler)"
