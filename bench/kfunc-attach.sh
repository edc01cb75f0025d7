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
# first script as the guest boots.
#   [SETTLE=S] bench/kfunc-attach.sh [RELEASE] [PATTERN[:SUFFIX]...]
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
# the loader, timed: load to unload
cat >timed <<'EOF'
#!/bin/sh
read t0 x </proc/uptime
/bin/staprun "$@"
rc=$?
read t1 x </proc/uptime
echo "timed: $t0 $t1" >&2
exit $rc
EOF
chmod +x timed
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
"$top/stap/stapvm" -r "$release" --staprun "$top/stap/staprun" --icount \
	--timeout 900 --file "$work/timed" --staprun-arg -v \
	--batch out "${jobs[@]}" >/dev/null

echo "kernel.function wildcards, start + stop, $release, qemu -icount shift=0, after ${settle} s:"
i=0
for arg in "$@"; do
	n=$("$stap" -r "$release" -l "$(point "$arg")" | wc -l)
	j=$((first + i))
	run=$(sed -n 's/^timed: \([0-9.]*\) \([0-9.]*\)$/\1 \2/p' \
		"out/$j.stderr" | awk '{ printf "%d", ($2 - $1) * 1000 }')
	printf '  %-14s %5d functions  %s, load to unload %s ms\n' "$arg" "$n" \
		"$(cat "out/$j.stdout" 2>/dev/null || echo '(no output)')" \
		"${run:-?}"
	grep -v -e '^staprun:' -e '^timed:' "out/$j.stderr" |
		sed 's/^/      /' || true
	i=$((i + 1))
done
