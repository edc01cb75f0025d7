#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# User stacks: what the symbol and unwind tables in the module cost.
# Per hit, in the guest under qemu -icount shift=0 (repeatable), a loop
# of getppid() calls four frames deep in a program built -O2
# -fomit-frame-pointer, with process.syscall probes filtered on it:
# the filter alone, ubacktrace() (the walk, hex), sprint_ubacktrace()
# (the walk and a symbol per frame), usymname(ustack(0)). At start-up:
# pass 3 + 4 time and the module's size without user stacks, with -d of
# the program, and with --ldd (libc's and the loader's tables too).
# SystemTap 4.8's modules of the same scripts run in the same boot
# (bench/stap48.sh; 6.1 only), a row under each of ours.
#   bench/ustack.sh [RELEASE] [CALLS]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=$top/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
calls=${2:-20000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
gcc -O2 -fomit-frame-pointer -o "$work/uloop" "$top/bench/ustack/loop.c"

filter='if ($syscall != 110) next'
echo "global n; probe process.syscall { $filter; n++ }" >filter.stp
echo "global s; probe process.syscall { $filter; s = ubacktrace() }" >bt.stp
echo "global s; probe process.syscall { $filter; s = sprint_ubacktrace() }" >sbt.stp
echo "global s; probe process.syscall { $filter; s = usymname(ustack(0)) }" >sym.stp
echo 'probe begin { }' >base.stp
for s in base filter bt sbt sym; do
	"$stap" -p4 $([ $s = base ] && echo -u) -r "$release" -m "u_$s" \
		-d "$work/uloop" "$s.stp" >/dev/null
done
secs() { /usr/bin/time -f %e "$@" 2>&1 >/dev/null | tail -1; }
echo "start-up, $release (pass 3 + 4, --poison-cache; module size):"
for opt in "" "-d $work/uloop" "-d $work/uloop --ldd"; do
	t=$(secs "$stap" -p4 --poison-cache -r "$release" -m u_size $opt sbt.stp)
	"$stap" -p4 -r "$release" -m u_size $opt sbt.stp >/dev/null
	printf '  %-28s %6s s %8s bytes\n' "${opt:-no objects}" "$t" \
		"$(stat -c %s u_size.ko)"
	rm -f u_size.ko
done
loop="./uloop $calls; ./uloop $calls; ./uloop $calls"
jobs=("u_base.ko::$loop" "u_filter.ko::$loop" "u_bt.ko::$loop" \
	"u_sbt.ko::$loop" "u_sym.ko::$loop")
files48=()
declare -A idx48=()
. "$top/bench/stap48.sh"
if stap48_init "$work"; then
	for s in filter bt sbt sym; do
		stap48_build "$release" "u48_$s" "$s.stp" -d "$work/uloop" ||
			continue
		idx48[$s]=${#jobs[@]}
		jobs+=("/usr/bin/staprun=>u48_$s.ko::$loop")
	done
	[ ${#idx48[@]} = 0 ] || files48=("${stap48_files[@]}")
fi
"$top/stap/stapvm" -r "$release" --staprun "$top/stap/staprun" --icount \
	--timeout 900 "${files48[@]}" --batch out "${jobs[@]}" >/dev/null
ns() { sed -n 's/^loop [0-9]* calls \([0-9]*\) ns$/\1/p' "$1" | sort -n | head -1; }
base=$(ns out/0.stdout)
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a / b }'; }
echo "per hit, $calls calls, $release, qemu -icount shift=0 (added ns):"
printf '  %-34s %8s ns per call\n' "baseline" "$(div "$base" "$calls")"
row() { # label job
	printf '  %-34s %+8s ns per hit\n' "$1" \
		"$(div $(( $(ns "out/$2.stdout") - base )) "$calls")"
}
i=1
for s in filter bt sbt sym; do
	case $s in
	filter) label="process.syscall filter, n++" ;;
	bt) label="s = ubacktrace() (5 frames)" ;;
	sbt) label="s = sprint_ubacktrace()" ;;
	sym) label="s = usymname(ustack(0))" ;;
	esac
	row "$label" $i
	[ -z "${idx48[$s]:-}" ] || row "  the same, SystemTap 4.8" "${idx48[$s]}"
	i=$((i + 1))
done
