#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Output transport throughput in the guest, with 1 vCPU (qemu -icount
# shift=0: repeatable) and 2 vCPUs (plain TCG: SMP hangs under icount):
#   - zero loss: an end probe prints LINES lines (its output waits for the
#     reader when the rings are full); lines/s from the end probe's start
#     to its last printf (the last 64 KiB still in the ring aside);
#   - flood: one line per system call of `dd bs=1 count=CALLS` (a 1 MiB
#     ring per CPU); lines delivered, lines lost, and delivered lines/s
#     from begin to end.
# Output goes to /dev/null in the guest (staprun -o).
#   bench/output.sh [RELEASE] [LINES] [CALLS]
# STAP_TREE=DIR measures the stap built in DIR (another worktree) instead.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${STAP_TREE:-$top}
stap=$tree/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
lines=${2:-200000}
calls=${3:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat >burst.stp <<STP
probe begin { exit() }
probe end {
	t0 = gettimeofday_ns()
	for (i = 0; i < $lines; i++)
		printf("%d\n", i)
	t = gettimeofday_ns() - t0
	printf("burst ns %d\n", t)
}
STP
cat >flood.stp <<'STP'
global n, t0
probe begin { t0 = gettimeofday_ns() }
probe kernel.trace("raw_syscalls:sys_enter") { n++; printf("%d\n", n) }
probe end { printf("flood hits %d ns %d\n", n, gettimeofday_ns() - t0) }
STP
"$stap" -p4 -r "$release" -m o_burst -DMAXACTION_INTERRUPTIBLE=100000000 \
	burst.stp >/dev/null
"$stap" -p4 -r "$release" -m o_flood flood.stp >/dev/null

run() { # label vm-options...
	local label=$1 out=$work/out-$1
	shift
	"$tree/stap/stapvm" -r "$release" --staprun "$tree/stap/staprun" \
		--timeout 900 "$@" --batch "$out" "o_burst.ko" \
		"o_flood.ko::dd if=/dev/zero of=/dev/null bs=1 count=$calls 2>/dev/null" \
		>/dev/null || true
	local bns bl fl fhits fns flost blost
	bns=$(sed -n 's/^burst ns //p' "$out/0.stdout")
	bl=$(grep -c '^[0-9]*$' "$out/0.stdout" || true)
	blost=$(sed -n 's/^WARNING: \([0-9]*\) output records lost.*/\1/p' \
		"$out/0.stderr" | paste -sd+ - | bc 2>/dev/null || true)
	fl=$(grep -c '^[0-9]*$' "$out/1.stdout" || true)
	read -r fhits fns < <(sed -n 's/^flood hits \([0-9]*\) ns \([0-9]*\)$/\1 \2/p' "$out/1.stdout") || true
	flost=$(sed -n 's/^WARNING: \([0-9]*\) output records lost.*/\1/p' \
		"$out/1.stderr" | paste -sd+ - | bc 2>/dev/null || true)
	printf '  %-22s end burst: %7s of %s lines, lost %s, %s lines/s\n' \
		"$label" "$bl" "$lines" "${blost:-0}" \
		"$(awk -v l="$bl" -v n="${bns:-0}" 'BEGIN { if (n > 0) printf "%.0f", l / (n / 1e9); else print "?" }')"
	printf '  %-22s flood: %7s of %s lines delivered, lost %s, %s lines/s\n' \
		"" "$fl" "${fhits:-?}" "${flost:-0}" \
		"$(awk -v l="$fl" -v n="${fns:-0}" 'BEGIN { if (n > 0) printf "%.0f", l / (n / 1e9); else print "?" }')"
}
echo "output transport, $release, end burst $lines lines, flood dd bs=1 count=$calls:"
run "1 vCPU (icount)" --icount
run "2 vCPUs (TCG)" --cpus 2
