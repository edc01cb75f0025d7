#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start + stop time of kernel.function wildcards in the guest, under qemu
# -icount shift=0 (guest time counts instructions, so figures repeat).
# Each script notes the time in a begin probe (before the event probes are
# armed) and prints the time elapsed in its end probe (after they are
# disarmed); a timer.ms(1) probe asks for exit at once, so the figure is
# attach + one staprun poll (10 ms) + detach. With -v the module also
# reports how it attached the functions and its own attach/detach times.
#   bench/kfunc-attach.sh [RELEASE] [PATTERN[:SUFFIX]...]
# SUFFIX: call (the default), return, inline, or empty for a plain point.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=$top/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
shift || true
[ $# -gt 0 ] || set -- 'vfs_*' 'vfs_*:return' 'tcp_*' 'ext4_*'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
jobs=()
i=0
point() { # PATTERN[:SUFFIX]
	local pat=${1%%:*} sfx=call
	case $1 in *:*) sfx=${1#*:} ;; esac
	echo "kernel.function(\"$pat\")${sfx:+.$sfx}"
}
for arg in "$@"; do
	cat >"k$i.stp" <<EOF
global t0, hits
probe begin { t0 = gettimeofday_us() }
probe $(point "$arg") { hits++ }
probe timer.ms(1) { exit() }
probe end { printf("%d us, hits %d\n", gettimeofday_us() - t0, hits > 0) }
EOF
	"$stap" -p4 -r "$release" -m "k_$i" "k$i.stp" >/dev/null
	jobs+=("k_$i.ko")
	i=$((i + 1))
done
"$top/stap/stapvm" -r "$release" --staprun "$top/stap/staprun" --icount \
	--timeout 900 --staprun-arg -v --batch out "${jobs[@]}" >/dev/null

echo "kernel.function wildcards, start + stop, $release, qemu -icount shift=0:"
i=0
for arg in "$@"; do
	n=$("$stap" -r "$release" -l "$(point "$arg")" | wc -l)
	printf '  %-14s %5d functions  %s\n' "$arg" "$n" \
		"$(cat "out/$i.stdout" 2>/dev/null || echo '(no output)')"
	grep -v '^staprun:' "out/$i.stderr" | sed 's/^/      /' || true
	i=$((i + 1))
done
