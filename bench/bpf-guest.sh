#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The BPF backend in a qemu guest beside bpftrace, where the kernel loads
# fentry programs (this machine's own 6.18 refuses them: bench/bpf.sh).
# Usage, as root: bench/bpf-guest.sh [RELEASE] [CALLS]
#
# One boot under qemu -icount shift=0 (guest time counts instructions, so
# the figures repeat; 1 CPU). The guest runs this machine's bpftrace 0.17
# and our loader (stap/stapbpf, the program built here with -r RELEASE)
# from this machine's files (virtio-fs). Rows: ns added to a 1-byte
# read() of /dev/zero (CALLS of them, median of 5 runs) by
#   fentry n++       kernel.function("vfs_read") { n++ } /
#                    kfunc:vfs_read { @n++ }
#   tracepoint n++   kernel.trace("raw_syscalls:sys_enter") { n++ } /
#                    tracepoint:raw_syscalls:sys_enter { @n++ }
# each against the loop alone.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
stap=${STAP:-$top/stap/stap}
release=${1:-6.12.117+deb12-cloud-amd64}
calls=${2:-100000}
[ "$(id -u)" = 0 ] || { echo "bench/bpf-guest.sh: needs root" >&2; exit 1; }
t=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$t"' EXIT; echo "# work: $t" >&2

cat >"$t/loop.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	char c;
	int fd = open("/dev/zero", O_RDONLY);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
EOF
cc -O2 -o "$t/loop" "$t/loop.c" || exit 1
build() { # name script
	local so
	so=$("$stap" --runtime=bpf -r "$release" -p4 -e "$2") || exit 1
	cp "$so" "$t/$1.so"
}
build fentry 'global n probe kernel.function("vfs_read") { n++ }'
build trace 'global n probe kernel.trace("raw_syscalls:sys_enter") { n++ }'

# the guest's part: run by its /bin/sh from this directory
cat >"$t/guest.sh" <<EOF
cd "$t"
calls=$calls
loader=/host$top/stap/stapbpf
EOF
cat >>"$t/guest.sh" <<'EOF'
loop_ns() {
	for i in 1 2 3 4 5; do ./loop $calls; done | sort -n | sed -n 3p
}
# the loop's ns while "$@" runs (attached once it has printed WAIT_FOR,
# or after 3 s when that is empty); "-" when it did not start
with() {
	local want=$1 pid ns i
	shift
	"$@" >/tmp/out 2>/tmp/err &
	pid=$!
	for i in $(seq 1 120); do
		if [ -n "$want" ]; then grep -q "$want" /tmp/out /tmp/err && break
		elif [ $i -gt 3 ]; then break; fi
		kill -0 $pid 2>/dev/null || break
		sleep 1
	done
	sleep 1
	if kill -0 $pid 2>/dev/null; then
		ns=$(loop_ns)
		kill -INT $pid
		wait $pid
		echo "$ns"
	else
		echo "- ($(head -c 120 /tmp/err | tr '\n' ' '))"
	fi
}
base=$(loop_ns)
echo "base $base"
echo "fentry $(with '' $loader fentry.so) $(with Attaching bpftrace -e 'kfunc:vfs_read { @n++ }')"
echo "trace $(with '' $loader trace.so) $(with Attaching bpftrace -e 'tracepoint:raw_syscalls:sys_enter { @n++ }')"
EOF
cd "$t" && "$top/stap/stapvm" -r "$release" --staprun "$top/stap/staprun" \
	--icount --timeout 1500 --batch rows "/bin/sh=>$t/guest.sh" \
	>vm.log 2>&1 || { tail -20 vm.log; exit 1; }
[ -s rows/0.stderr ] && cat rows/0.stderr >&2
base=$(sed -n 's/^base //p' rows/0.stdout)
echo "# $release, qemu -icount shift=0, a 1-byte read() of /dev/zero alone: $base ns"
printf "%-22s %14s %14s\n" "ns added a hit" "stap bpf" "bpftrace 0.17"
sub() { case $1 in -*|'') echo "${1:--}" ;; *) echo "$1 $base" |
	awk '{ printf "%.0f", $1 - $2 }' ;; esac; }
while read -r name o b; do
	printf "%-22s %14s %14s\n" "$name n++" "$(sub "$o")" "$(sub "$b")"
done < <(grep -E '^(fentry|trace) ' rows/0.stdout)
