#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Pass-2 wall time for a one-liner on a tapset alias family, from a cold
# and from a warm library index. The library is the real tapsets/ plus a
# generated family shaped like SystemTap's syscall tapset: 400 files, each
# with NAME and NAME.return aliases over a tracepoint and a few locals
# (SystemTap 4.8 takes 0.9-1.1 s for such one-liners).
# Usage: bench/pass2-library.sh [STAP]
stap=${1:-./stap/stap}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib" "$tmp/cache"
i=0
while [ $i -lt 400 ]; do
	cat >"$tmp/lib/fam_$i.stp" <<EOT
probe fam.call$i = kernel.trace("raw_syscalls:sys_enter") {
	name = "call$i"; nr = \$id; argstr = sprintf("%d", nr)
}
probe fam.call$i.return = kernel.trace("raw_syscalls:sys_exit") {
	name = "call$i"; retval = \$ret; retstr = sprintf("%d", retval)
}
function fam_helper$i:long (x:long) { return x + $i }
EOT
	i=$((i + 1))
done
run() {
	STAP_CACHE=$tmp/cache "$stap" -p2 -I "$tmp/lib" \
		-e 'probe fam.call1* { printf("%s %s\n", name, argstr) }' >/dev/null
}
ms() { echo $(( ($2 - $1) / 1000000 )); }
# the tracepoint catalog is cached separately: warm it first
run || { echo "pass2-library: stap failed"; exit 1; }
rm -f "$tmp"/cache/tapsets-*.idx
t0=$(date +%s%N); run; t1=$(date +%s%N)
echo "stap -p2 'probe fam.call1* ...' (111 aliases of 800): cold index $(ms "$t0" "$t1") ms"
t0=$(date +%s%N)
n=0
while [ $n -lt 10 ]; do run; n=$((n + 1)); done
t1=$(date +%s%N)
echo "stap -p2 'probe fam.call1* ...' (111 aliases of 800): warm index $(( ($t1 - $t0) / 10000000 )) ms"
