#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Uprobe overhead in the guest, under qemu -icount shift=0 (guest time
# counts instructions, so figures repeat). A static program calls a
# function that does nothing N times, passing a sys/sdt.h mark each time
# (bench/overhead/uloop.c), with: nothing attached (baseline), the floor
# (a plain module with one bare uprobe consumer that increments an
# atomic counter: bench/overhead/ufloor.c, on the function's entry, then
# on its return), and our scripts: process(...).function("uloop_hit")
# { n++ } (lean: no handler run), the same with a handler
# ({ n += cpu() }), .return { n++ }, and .mark("tick") { n++ } and
# { n += $arg1 }. All in one boot. Prints ns per call and the added ns
# per hit.
#   bench/uprobe.sh [RELEASE] [CALLS]
# STAP_TREE=DIR measures the stap built in DIR (another worktree) instead.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${STAP_TREE:-$top}
stap=$tree/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
calls=${2:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the guest runs jobs in the directory stapvm runs in, bound at its own
# path: the program is there under the path the probes name
gcc -static -O2 -o "$work/uloop" "$top/bench/overhead/uloop.c"
mkdir "$work/ufloor"
cp "$top/bench/overhead/ufloor.c" "$work/ufloor/"
echo 'obj-m := ufloor.o' >"$work/ufloor/Kbuild"
make -s -C "/lib/modules/$release/build" M="$work/ufloor" modules >/dev/null 2>&1
cp "$work/ufloor/ufloor.ko" "$work/"

cd "$work"
p="process(\"$work/uloop\")"
echo 'probe begin { }' >base.stp		# built with -u: not elided
echo "global n; probe $p.function(\"uloop_hit\") { n++ }" >fn.stp
echo "global n; probe $p.function(\"uloop_hit\") { n += cpu() }" >fnh.stp
echo "global n; probe $p.function(\"uloop_hit\").return { n++ }" >ret.stp
echo "global n; probe $p.mark(\"tick\") { n++ }" >mark.stp
echo "global n; probe $p.mark(\"tick\") { n += \$arg1 }" >markh.stp
for s in base fn fnh ret mark markh; do
	"$stap" -p4 $([ $s = base ] && echo -u) -r "$release" -m "u_$s" "$s.stp" >/dev/null
done
# the floor's places: the offsets pass 3 gives the probes
off() { "$stap" -p3 -r "$release" "$1" | sed -n 's/.*\.offset = \(0x[0-9a-f]*\)UL.*/\1/p' | head -1; }
fn_off=$(off fn.stp)
mark_off=$(off mark.stp)
loop="./uloop $calls; ./uloop $calls; ./uloop $calls"
floor() { # offset [ret]
	echo "u_base.ko::insmod /bin/ufloor.ko path=$work/uloop offset=$(($1))${2:+ ret=1} && $loop && rmmod ufloor"
}
"$tree/stap/stapvm" -r "$release" --staprun "$tree/stap/staprun" --icount \
	--timeout 900 --file "$work/ufloor.ko" --batch out \
	"u_base.ko::$loop" "$(floor "$fn_off")" "$(floor "$fn_off" ret)" \
	"$(floor "$mark_off")" "u_fn.ko::$loop" "u_fnh.ko::$loop" \
	"u_ret.ko::$loop" "u_mark.ko::$loop" "u_markh.ko::$loop" >/dev/null

ns() { sed -n 's/^loop [0-9]* calls \([0-9]*\) ns.*/\1/p' "$1" | sort -n | head -1; }
base=$(ns out/0.stdout)
echo "uprobe overhead, $calls calls, $release, qemu -icount shift=0:"
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '  %-40s %8s ns per call\n' "baseline (nothing attached)" "$(div "$base" "$calls")"
report() { # label job [floor job]
	local t added
	t=$(ns "out/$2.stdout")
	if [ -z "$t" ]; then
		printf '  %-40s failed: %s\n' "$1" "$(head -c 300 "out/$2.stderr")"
		return
	fi
	added=$(( t - base ))
	if [ -n "${3:-}" ]; then
		printf '  %-40s %+8s ns per hit  (%sx the floor)\n' "$1" \
			"$(div "$added" "$calls")" \
			"$(div "$added" "$(( $(ns "out/$3.stdout") - base ))")"
	else
		printf '  %-40s %+8s ns per hit\n' "$1" "$(div "$added" "$calls")"
	fi
}
report "floor: bare uprobe consumer (entry)" 1
report "floor: bare uretprobe consumer" 2
report "floor: bare uprobe consumer (mark)" 3
report "function(\"uloop_hit\") { n++ }" 4 1
report "  { n += cpu() } (a handler)" 5 1
report "function(\"uloop_hit\").return { n++ }" 6 2
report "mark(\"tick\") { n++ }" 7 3
report "mark(\"tick\") { n += \$arg1 }" 8 3
