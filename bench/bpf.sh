#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF backend on this machine's own kernel beside bpftrace, in one run
# (root; no guest). Usage: bench/bpf.sh [CALLS]
#
#   per hit:      ns added to a getppid() call (CALLS of them, median of 5
#                 runs) by a probe on raw_syscalls:sys_enter, against the
#                 floor of an empty program on the same tracepoint (each
#                 tool its own floor: ours is a raw tracepoint, bpftrace's
#                 a perf-event tracepoint); rows: n++, c[pid()] <<< 1
#                 (@c[pid] = count()), printf per hit (to /dev/null);
#                 ours only: sprintf, try/catch, foreach, a statistic's
#                 read and strpos in the probe
#   fentry:       kernel.function("__x64_sys_getppid") { n++ } (kfunc: in
#                 bpftrace), where the kernel loads fentry programs
#   syscall.*:    global hits probe syscall.* { hits++ } (every alias of
#                 the syscall tapset) against bpftrace's
#                 tracepoint:syscalls:sys_enter_* { @n++ }
#   uprobe:       process("LOOP").function("hit") { n++ } and its .return
#                 (uprobe:/uretprobe: in bpftrace) on a function the loop
#                 calls beside each getppid(), against the loop alone
#   first event:  from the command to its first line of output, a
#                 sched_switch probe, the kernel's data cached (second run)
#
# bpftrace 0.17 finds tracepoints under /sys/kernel/debug/tracing or
# /sys/kernel/tracing: where tracefs is mounted at neither ("tracepoint not
# found: sched:sched_switch"), it is mounted at /sys/kernel/tracing for
# the run and unmounted after.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
stap=${STAP:-$top/stap/stap}
calls=${1:-1000000}
[ "$(id -u)" = 0 ] || { echo "bench/bpf.sh: needs root" >&2; exit 1; }
command -v bpftrace >/dev/null || { echo "bench/bpf.sh: no bpftrace" >&2; exit 1; }
t=$(mktemp -d)
mounted=
cleanup() {
	[ -n "$mounted" ] && umount /sys/kernel/tracing
	rm -rf "$t"
}
trap cleanup EXIT
if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ]; then
	mount -t tracefs tracefs /sys/kernel/tracing && mounted=1 &&
		echo "# tracefs mounted at /sys/kernel/tracing for bpftrace"
fi

cat >"$t/loop.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
/* the uprobe rows' function: one call a loop */
__attribute__((noinline)) int hit(long i)
{
	__asm__ volatile("");
	return (int)i;
}
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid), hit(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
EOF
cc -O2 -g -o "$t/loop" "$t/loop.c" || exit 1

# ns a call: the median of 5 runs of the loop
loop_ns() {
	for _ in 1 2 3 4 5; do "$t/loop" "$calls"; done | sort -n | sed -n 3p
}

# with TOOL ARGS...: the loop's ns a call while the tool runs (given
# $wait_s, 3 s unless set, to attach); "-" when the tool did not start
with() {
	"$@" >/dev/null 2>"$t/err" &
	local pid=$! ns
	sleep "${wait_s:-3}"
	if kill -0 $pid 2>/dev/null; then
		ns=$(loop_ns)
		kill -INT $pid
		wait $pid 2>/dev/null
		echo "$ns"
	else
		wait $pid 2>/dev/null
		echo "- ($(head -c 120 "$t/err" | tr '\n' ' '))"
	fi
}

ours() { with "$stap" --runtime=bpf -e "$1"; }
theirs() { with bpftrace -e "$1"; }
tp='kernel.trace("raw_syscalls:sys_enter")'
btp='tracepoint:raw_syscalls:sys_enter'

row() { # name ours-ns theirs-ns, each minus its floor
	local name=$1 o=$2 b=$3
	sub() { case $1 in -*) echo "$1" ;; *) echo "$1 $2" |
		awk '{ printf "%.0f", $1 - $2 }' ;; esac; }
	printf "%-22s %14s %14s\n" "$name" "$(sub "$o" "$of")" "$(sub "$b" "$bf")"
}

base=$(loop_ns)
of=$(with "$stap" -u --runtime=bpf -e "probe $tp { }")
bf=$(theirs "$btp { }")
echo "# getppid() loop alone: $base ns a call; with an empty program: ours $of, bpftrace's $bf"
printf "%-22s %14s %14s\n" "ns added a hit" "stap bpf" "bpftrace 0.17"
row "n++" "$(ours "global n probe $tp { n++ }")" "$(theirs "$btp { @n++ }")"
row "c[pid()] <<< 1" "$(ours "global c probe $tp { c[pid()] <<< 1 }")" \
	"$(theirs "$btp { @c[pid] = count() }")"
row "printf per hit" "$(ours "probe $tp { printf(\"%d\\n\", pid()) }")" \
	"$(theirs "$btp { printf(\"%d\\n\", pid) }")"
# the language in kernel programs (no bpftrace row: it has no sprintf,
# try or foreach in a probe): sprintf into a string (bpf_snprintf), the
# same value printed (formatted by the loader), try around n++, and
# foreach over a 10-element map (bpf_for_each_map_elem, which walks every
# bucket of the hash: MAXMAPENTRIES 2048 of them, or the declared size)
row "sprintf per hit" \
	"$(ours "global s probe $tp { s = sprintf(\"%d %s\", pid(), \"x\") }")" "-"
row "try { n++ } catch" "$(ours "global n probe $tp { try { n++ } catch { } }")" "-"
row "foreach 10 per hit" "$(ours "global a, n probe begin { for (i = 0; i < 10; i++) a[i] = i } probe $tp { foreach (k in a) n += a[k] }")" "-"
row "foreach 10 of a[16]" "$(ours "global a[16], n probe begin { for (i = 0; i < 10; i++) a[i] = i } probe $tp { foreach (k in a) n += a[k] }")" "-"
# a statistic read in the probe (every CPU's slot merged by bpf_loop) and
# strpos (one bpf_loop step a byte compared: 41 steps here)
row "c <<< 1; @avg(c)" "$(ours "global c, x probe $tp { c <<< 1; x = @avg(c) }")" "-"
row "strpos 43 bytes" "$(ours "global h, x probe begin { h = \"the quick brown fox jumps over the lazy dog\" } probe $tp { x = strpos(h, \"dog\") }")" "-"
# strings of MAXSTRINGLEN (512) bytes: a concatenation to 400 bytes
# (bpf_probe_read_kernel_str twice), a comparison of two 400-byte strings
# equal but for the last byte (copies, then stp_g_strcmp's loop), and
# strpos's worst: a 511-byte haystack of near misses
row ". to 400 bytes" "$(ours "global a, b, x probe begin { a = sprintf(\"%0200d\", 0); b = a } probe $tp { x = a . b }")" "-"
row "== of 400 bytes" "$(ours "global a, b, x probe begin { a = sprintf(\"%0399d1\", 0); b = sprintf(\"%0399d2\", 0) } probe $tp { x = a == b }")" "-"
row "strpos 511 near misses" "$(ours "global h, x probe begin { h = sprintf(\"%0511d\", 0) } probe $tp { x = strpos(h, \"00000000001\") }")" "-"
# =~ on execname() (the search DFA walked a byte a step), a store into a
# full wrapping array (each a new key: the oldest found by a walk of the
# order map's 16 buckets, then deleted)
row "execname() =~ re" "$(ours "global x probe $tp { x = execname() =~ \"^(sshd|loo+p)$\" }")" "-"
row "w%[16] new key" "$(ours "global w%[16], n probe $tp { w[n++] = 1 }")" "-"
# a match's groups (the submatch simulation: bpf_loop steps a position,
# a thread, an instruction) and one read of them
row "=~ (..)-(..); matched" "$(ours "global x probe $tp { if (\"loop-42\" =~ \"^([a-z]+)-([0-9]+)$\") x = matched(1) }")" "-"
of=$base bf=$base
row "fentry n++ (vs loop)" \
	"$(ours 'global n probe kernel.function("__x64_sys_getppid") { n++ }')" \
	"$(theirs 'kfunc:__x64_sys_getppid { @n++ }')"
# syscall.*: every alias of the syscall tapset; ours is one program on
# sys_enter that tail-calls the alias of the call's number
# (bpf/attach_dispatch.c; before it, some 400 programs each run at every
# call), bpftrace's its 360 syscalls:sys_enter_* tracepoints; given 60 s
# to start (bpftrace compiles one program a tracepoint: some 35 s here)
row "syscall.* n++ (vs loop)" \
	"$(wait_s=60 ours 'global hits probe syscall.* { hits++ }')" \
	"$(wait_s=60 theirs 'tracepoint:syscalls:sys_enter_* { @n++ }')"
row "uprobe n++ (vs loop)" \
	"$(ours "global n probe process(\"$t/loop\").function(\"hit\") { n++ }")" \
	"$(theirs "uprobe:$t/loop:hit { @n++ }")"
row "uretprobe n++ (vs loop)" \
	"$(ours "global n probe process(\"$t/loop\").function(\"hit\").return { n++ }")" \
	"$(theirs "uretprobe:$t/loop:hit { @n++ }")"

# first event: the command to its first line, twice (the second is reported)
first() {
	python3 - "$@" <<'EOF'
import subprocess, sys, time
t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
line = p.stdout.readline()
t = time.monotonic() - t0
p.terminate(); p.wait()
print("%.2f s" % t if line else "- (no output)")
EOF
}
for i in 1 2; do
	o=$(first "$stap" --runtime=bpf -e 'probe kernel.trace("sched:sched_switch") { printf("%d\n", pid()) }')
	b=$(first bpftrace -e 'tracepoint:sched:sched_switch { printf("%d\n", pid) }')
done
printf "%-22s %14s %14s\n" "first event" "$o" "$b"
