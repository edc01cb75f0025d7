#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Start + stop time of kernel.function wildcards in the guest, under qemu
# -icount shift=0 (guest time counts instructions, so figures repeat).
# Each script notes the time in a begin probe (before the event probes are
# armed) and prints the time elapsed in its end probe (after they are
# disarmed); a timer.ms(1) probe asks for exit at once, so the figure is
# attach + one staprun poll (10 ms) + detach. The loader's whole run (load
# to unload, from the guest's /proc/uptime: 10 ms steps) is shown too:
# work the kernel leaves to a worker after the detach (the kprobe
# optimiser's) delays the module's unload. With -v the module also
# reports how it attached the functions and its own attach/detach times.
# The scripts run after the guest has settled (SETTLE=3 seconds of guest
# time, a first job that sleeps): on 6.12 the crypto self-tests
# (cryptomgr_test kthreads) take the one vCPU for about 0.7 s after boot,
# which doubled the first script's figures (and an RCU-tasks grace period,
# in every ftrace detach, waits for those kthreads). SETTLE=0 measures the
# first script as the guest boots. STAP48=1 runs each script under
# SystemTap 4.8 too, in the same boot (bench/stap48.sh; its pass 4 takes
# about a minute for ext4_*, and fails on 6.12, which its runtime predates).
# Load to unload, before and after the kprobes were registered disabled
# and enabled together (2026-11-27, 6.1 / 6.12): 'ext4_*:' 12570 -> 12130
# ms / 12270 -> 12340 ms, 'ext4_*' 890 -> 500 ms / 350 -> 350 ms, 'vfs_*:'
# 549 -> 550 ms / 359 -> 359 ms; SystemTap 4.8 on 6.1: 22000, 8919, 1589.
#   [SETTLE=S] [STAP48=1] bench/kfunc-attach.sh [RELEASE] [PATTERN[:SUFFIX]...]
# SUFFIX: call (the default), return, inline, or empty for a plain point.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=$top/stap/stap
release=${1:-$(ls /boot/vmlinuz-* | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)}
shift || true
[ $# -gt 0 ] || set -- 'vfs_*:' 'vfs_*' 'vfs_*:return' 'tcp_*' 'ext4_*'
settle=${SETTLE:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cd "$work"
jobs=()
if [ "$settle" != 0 ]; then
	echo 'probe begin { print("") }' >settle.stp
	"$stap" -p4 -r "$release" -m settle settle.stp >/dev/null
	jobs+=("settle.ko::sleep $settle")
fi
# the loaders, timed: load to unload (4.8's without -v)
timed() { # LOADER FILE [drop -v]
	{
		echo '#!/bin/sh'
		[ $# = 2 ] || echo 'while [ "$1" = -v ]; do shift; done'
		echo 'read t0 x </proc/uptime'
		echo "$1"' "$@"'
		echo 'rc=$?'
		echo 'read t1 x </proc/uptime'
		echo 'echo "timed: $t0 $t1" >&2'
		echo 'exit $rc'
	} >"$2"
	chmod +x "$2"
}
timed /bin/staprun timed
timed /usr/bin/staprun timed48 -v
files48=()
if [ "${STAP48:-0}" = 1 ]; then
	. "$top/bench/stap48.sh"
	stap48_init "$work" && files48=("${stap48_files[@]}" --file "$work/timed48")
fi
first=${#jobs[@]}
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
	jobs+=("/bin/timed=>k_$i.ko")
	i=$((i + 1))
done
n48=0
if [ ${#files48[@]} -gt 0 ]; then
	i=0
	for arg in "$@"; do
		if why48=$(stap48_build "$release" "k48_$i" "k$i.stp" -w); then
			jobs+=("/bin/timed48=>k48_$i.ko")
			n48=$((n48 + 1))
		else
			break
		fi
		i=$((i + 1))
	done
fi
"$top/stap/stapvm" -r "$release" --staprun "$top/stap/staprun" --icount \
	--timeout 1800 --file "$work/timed" "${files48[@]}" --staprun-arg -v \
	--batch out "${jobs[@]}" >/dev/null

result() { # job: "T us, hits H, load to unload L ms"
	local run
	run=$(sed -n 's/^timed: \([0-9.]*\) \([0-9.]*\)$/\1 \2/p' \
		"out/$1.stderr" | awk '{ printf "%d", ($2 - $1) * 1000 }')
	echo "$(cat "out/$1.stdout" 2>/dev/null || echo '(no output)')," \
		"load to unload ${run:-?} ms"
}
echo "kernel.function wildcards, start + stop, $release, qemu -icount shift=0, after ${settle} s:"
i=0
for arg in "$@"; do
	n=$("$stap" -r "$release" -l "$(point "$arg")" | wc -l)
	j=$((first + i))
	printf '  %-14s %5d functions  %s\n' "$arg" "$n" "$(result "$j")"
	grep -v -e '^staprun:' -e '^timed:' "out/$j.stderr" |
		sed 's/^/      /' || true
	if [ $i -lt $n48 ]; then
		j=$((first + $# + i))
		printf '      SystemTap 4.8: %s (%d warnings)\n' "$(result "$j")" \
			"$(grep -c '^WARNING:' "out/$j.stderr" || true)"
	fi
	i=$((i + 1))
done
[ ${#files48[@]} = 0 ] || [ $n48 = $# ] || echo "  $why48"
