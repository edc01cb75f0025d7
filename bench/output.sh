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
# Each script's stdout goes to a file in the guest (a tmpfs file, sent to
# the host after the job); a line counts as delivered when it is there.
# Lost = lines printed (the script's own counters) - lines delivered; the
# loader's own loss warning is shown beside it (ours: "WARNING: N output
# records lost"; 4.8: "WARNING: There were N transport failures", one per
# failed flush of a probe's print buffer). The counters are also sent with
# warn() (stderr; in 4.8 the control channel, not the data channel) and
# read from there when the stdout line does not arrive.
#
# The same two scripts also run under SystemTap 4.8 (/usr/bin/stap -p4,
# its own /usr/bin/staprun and stapio with their shared libraries placed
# in the guest), in the same guest boots, after ours. 4.8's runtime is a
# copy of /usr/share/systemtap/runtime with task_work_cancel() renamed to
# task_work_cancel_func() (as in bench/turnaround.sh); its buffer is its
# default (16 MiB per CPU, less when the guest is short of memory).
#   bench/output.sh [RELEASE] [LINES] [CALLS]
# STAP_TREE=DIR measures the stap built in DIR (another worktree) instead.
# NO_STAP48=1 measures ours only.
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
	warn(sprintf("burst ns %d", t))
}
STP
cat >flood.stp <<'STP'
global n, t0
probe begin { t0 = gettimeofday_ns() }
probe kernel.trace("raw_syscalls:sys_enter") { n++; printf("%d\n", n) }
probe end {
	t = gettimeofday_ns() - t0
	printf("flood hits %d ns %d\n", n, t)
	warn(sprintf("flood hits %d ns %d", n, t))
}
STP
dd="dd if=/dev/zero of=/dev/null bs=1 count=$calls 2>/dev/null"
jobs=("o_burst.ko" "o_flood.ko::$dd")
"$stap" -p4 -r "$release" -m o_burst -DMAXACTION_INTERRUPTIBLE=100000000 \
	burst.stp >/dev/null
"$stap" -p4 -r "$release" -m o_flood flood.stp >/dev/null

# SystemTap 4.8: its modules, and its loader with what it needs in the guest
. "$top/bench/stap48.sh"
files=()
if stap48_init "$work" &&
   stap48_build "$release" o48_burst burst.stp -DMAXACTION_INTERRUPTIBLE=100000000 &&
   stap48_build "$release" o48_flood flood.stp; then
	files=("${stap48_files[@]}")
	jobs+=("/usr/bin/staprun=>o48_burst.ko" "/usr/bin/staprun=>o48_flood.ko::$dd")
fi

lps() { # lines ns
	awk -v l="$1" -v n="${2:-0}" 'BEGIN { if (n > 0) printf "%.0f", l / (n / 1e9); else print "?" }'
}
# the figures of job N of batch OUT: "burst" or "flood", then the columns
figures() { # out n kind
	local o=$1/$2 ok lost warned ns hits
	ok=$(grep -c '^[0-9]*$' "$o.stdout" || true)
	warned=$(sed -n -e 's/^WARNING: \([0-9]*\) output records lost.*/\1/p' \
		-e 's/^WARNING: There were \([0-9]*\) transport failures.*/\1/p' \
		"$o.stderr" | paste -sd+ - | bc 2>/dev/null || true)
	if [ "$3" = burst ]; then
		ns=$(sed -n 's/^\(WARNING: \)*burst ns \([0-9]*\)$/\2/p' \
			"$o.stdout" "$o.stderr" | head -1)
		hits=$lines
	else
		read -r hits ns < <(sed -n \
			's/^\(WARNING: \)*flood hits \([0-9]*\) ns \([0-9]*\)$/\2 \3/p' \
			"$o.stdout" "$o.stderr") || true
	fi
	if [ -z "$ns" ]; then
		printf '%26s' "failed (rc $(cat "$1/$2.rc"))"
		return
	fi
	lost=$(( ${hits:-0} - ok ))
	printf '%8s %7s %-5s %8s' "$ok" "$lost" "(${warned:-0})" "$(lps "$ok" "$ns")"
}

run() { # label vm-options...
	local label=$1 out=$work/out-$1
	shift
	"$tree/stap/stapvm" -r "$release" --staprun "$tree/stap/staprun" \
		--timeout 1500 "$@" "${files[@]}" --batch "$out" "${jobs[@]}" \
		>/dev/null || true
	echo "$label:"
	printf '  %-10s %s' "end burst" "$(figures "$out" 0 burst)"
	[ ${#jobs[@]} = 2 ] || printf '   %s' "$(figures "$out" 2 burst)"
	printf '\n  %-10s %s' "flood" "$(figures "$out" 1 flood)"
	[ ${#jobs[@]} = 2 ] || printf '   %s' "$(figures "$out" 3 flood)"
	printf '\n'
}
echo "output transport, $release, end burst $lines lines, flood dd bs=1 count=$calls"
echo "(lines delivered, lines lost (the loader's loss warning), delivered lines/s):"
printf '  %-10s %-26s' "" "ours (1 MiB ring per CPU)"
[ ${#jobs[@]} = 2 ] || printf '   %s' "SystemTap 4.8"
printf '\n'
run "1 vCPU (icount)" --icount
run "2 vCPUs (TCG)" --cpus 2
