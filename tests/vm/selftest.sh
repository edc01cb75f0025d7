#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# selftest.sh - checks the qemu VM runner (vm/vm.c, vm/stapvm.c) with a
# stand-in loader (fake_staprun.c).  Prints PASS/FAIL/SKIP per check; exits
# 1 if any check failed.  Needs gcc (with static libc), qemu-system-x86_64,
# /bin/busybox (static) and a kernel in /boot.
# Usage: tests/vm/selftest.sh [-r RELEASE]

set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
t=$(mktemp -d /tmp/stapvm-selftest.XXXXXX)
trap 'rm -rf "$t"' EXIT
. "$here/checks.sh"
cflags="-std=c11 -O2 -Wall -Wextra -Wshadow -Werror"

check() { if [ "$2" = 0 ]; then pass "$1"; else fail "$1" "${3:-}"; fi; }

# vm.c asks target/ for a release's kernel image (target/ is on elf/)
gcc $cflags -I"$top" -o "$t/stapvm" "$top/vm/stapvm.c" "$top/vm/vm.c" "$top/vm/vm_init.c" \
	"$top"/lib/*.c "$top"/elf/*.c "$top"/target/*.c -ldw -lelf -llzma -lz -lzstd ||
	{ echo "FAIL: build stapvm"; exit 1; }
gcc $cflags -static -o "$t/fake" "$here/fake_staprun.c" ||
	{ echo "FAIL: build fake_staprun"; exit 1; }
pass "build (-Wall -Wextra -Wshadow -Werror)"

S=("$t/stapvm" --staprun "$t/fake" "$@")
cd "$t" || exit 1
echo bytes >bytes.ko
echo args >args.ko
echo "sleep 120" >sleep.ko
echo "big 1000000" >big.ko
echo warn >warn.ko
echo crash >crash.ko

# expected output of the "bytes" and "big" modes
printf 'hello\n' >bytes.exp
for i in $(seq 0 255); do printf "\\$(printf %03o "$i")"; done >>bytes.exp
printf '\r\n\0end' >>bytes.exp
printf 'ERROR: fake\r\n\0x' >bytes.err.exp
python3 - <<'EOF' 2>/dev/null
x = 12345
b = bytearray()
for i in range(1000000):
    x = (x * 1103515245 + 12345) & 0xffffffff
    b.append((x >> 16) & 0xff)
open("big.exp", "wb").write(b)
EOF

# 1. stream mode: exact bytes on stdout and stderr, exit status
"${S[@]}" -v --stream bytes.ko >s.out 2>s.err
rc=$?
check "stream: exit status 3" "$([ $rc = 3 ]; echo $?)" "got $rc"
cmp -s s.out bytes.exp
check "stream: stdout byte-exact (NUL, CR, 0..255)" $?
grep -aq 'ERROR: fake' s.err
check "stream: stderr carries the script's stderr (-v)" $?
t_line=$(grep -a '^stap: vm: boot .* total' s.err)
if [ -n "$t_line" ]; then
	pass "timing with -v: ${t_line#stap: vm: }"
else
	fail "timing with -v"
fi
"${S[@]}" --stream bytes.ko >s2.out 2>s2.err
rc=$?
cmp -s s2.err bytes.err.exp
check "stream: stderr byte-exact (without -v)" $? \
	"status $rc, stderr: $(head -c 2000 s2.err | od -An -c | tr -s ' \n' ' ')"

# 2. large output streamed (drained before the guest powers off)
if [ -s big.exp ]; then
	"${S[@]}" --stream big.ko >big.out 2>big.err
	rc=$?
	cmp -s big.out big.exp
	check "stream: 1 MB stdout exact, status 0" "$(($? + rc))"
else
	echo "SKIP: stream: 1 MB output (no python3)"
fi

# 3. batch: five jobs in one boot, -c CMD, exact files, statuses; --file
# into /bin and to a path of its own, and jobs run by those (LOADER=>)
"${S[@]}" -v --file "$t/fake" --file "$t/fake:/usr/lib/x y/loader2" \
	--batch out bytes.ko "args.ko::echo 'a b' \"c\"" big.ko \
	"/usr/lib/x y/loader2=>args.ko::cmd" "/bin/fake=>args.ko" >b.log 2>&1
rc=$?
check "batch: exit 0" "$([ $rc = 0 ]; echo $?)" "got $rc"
n=$(grep -c '^stap: vm: qemu' b.log)
check "batch: one boot for 5 jobs" "$([ "$n" = 1 ]; echo $?)" "$n boots"
cmp -s out/0.stdout bytes.exp && cmp -s out/0.stderr bytes.err.exp
check "batch: job 0 stdout/stderr exact" $?
[ "$(cat out/0.rc out/1.rc out/2.rc | tr '\n' ' ')" = "3 0 0 " ]
check "batch: N.rc files" $? "$(cat out/*.rc | tr '\n' ' ')"
printf '%s\n' /bin/staprun -c "echo 'a b' \"c\"" /m/1/args.ko | cmp -s - out/1.stdout
check "batch: -c CMD passed verbatim" $?
printf '%s\n' "/usr/lib/x y/loader2" -c cmd /m/3/args.ko | cmp -s - out/3.stdout &&
	printf '%s\n' /bin/fake /m/4/args.ko | cmp -s - out/4.stdout
check "batch: --file HOST:/GUEST and HOST, LOADER=> jobs" $? \
	"$(cat out/3.stdout out/3.stderr out/4.stdout out/4.stderr | head -c 500)"
if [ -s big.exp ]; then
	cmp -s out/2.stdout big.exp
	check "batch: 1 MB job output exact" $?
fi
grep -q 'Linux version' out/dmesg.txt
check "batch: dmesg.txt fetched" $?

# 4. SIGINT to the host process reaches the guest's staprun
"${S[@]}" --stream sleep.ko >int.out 2>int.err &
pid=$!
for i in $(seq 1 300); do
	grep -q begin int.out 2>/dev/null && break
	sleep 0.1
done
start=$SECONDS
kill -INT $pid
wait $pid
rc=$?
[ $rc = 0 ] && grep -q 'end probe ran' int.out && [ $((SECONDS - start)) -lt 20 ]
check "SIGINT forwarded: end probes ran, clean shutdown" $? "rc $rc"

# SIGINT in batch mode: the running job gets it, the rest are skipped
"${S[@]}" -v --batch iout sleep.ko args.ko >ib.log 2>&1 &
pid=$!
for i in $(seq 1 300); do
	grep -aq '@@STAPVM start 0@@' ib.log 2>/dev/null && break
	sleep 0.1
done
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc = 1 ] && grep -q 'end probe ran' iout/0.stdout &&
	[ "$(cat iout/0.rc iout/1.rc | tr '\n' ' ')" = "0 -1 " ] &&
	grep -aq 'not run' ib.log
check "SIGINT in batch: job interrupted, rest skipped, exit 1" $? "rc $rc"

# 5. timeout
start=$SECONDS
"${S[@]}" --timeout 8 --stream sleep.ko >to.out 2>to.err
rc=$?
[ $rc = 1 ] && grep -q 'timed out after 8 s' to.err &&
	[ $((SECONDS - start)) -lt 20 ]
check "timeout: qemu killed and reported" $? "rc $rc"

# 6. guest kernel crash while the job runs
"${S[@]}" --timeout 60 --stream crash.ko >cr.out 2>cr.err
rc=$?
[ $rc = 1 ] && grep -q 'panicked' cr.err && grep -q 'sysrq' cr.err
check "guest panic: reported with console tail" $? "rc $rc"

# 7. /init dies (unusable busybox): kernel panics, reported
"${S[@]}" --timeout 60 --busybox "$t/fake" --stream args.ko >ni.out 2>ni.err
rc=$?
# the panic text itself may be lost when qemu exits at once: the report
# of a guest that died is what must be there
[ $rc = 1 ] && grep -qE 'kill init|guest kernel panicked|guest stopped before finishing' ni.err
check "/init exits: reported" $? "rc $rc: $(head -c 300 ni.err)"

# 8. kernel WARNING in dmesg: stream returns 1, batch exits 2
"${S[@]}" --stream warn.ko >w.out 2>w.err
rc=$?
[ $rc = 1 ] && grep -q '^stap: guest kernel: .*WARNING: fake' w.err
check "dmesg WARNING: stream reports it, status 1" $? "rc $rc"
"${S[@]}" --batch wout args.ko warn.ko >wb.log 2>&1
rc=$?
[ $rc = 2 ] && grep -q 'guest kernel problem' wb.log
check "dmesg WARNING: batch exits 2 with one-line report" $? "rc $rc"

# icount (repeatable timing): boots with one CPU
"${S[@]}" -v --icount --timeout 120 --batch icout bytes.ko >ic.log 2>&1
rc=$?
[ $rc = 0 ] && cmp -s icout/0.stdout bytes.exp && grep -q -- '-smp 1 -icount shift=0' ic.log
check "icount: $(grep -a '^stap: vm: boot' ic.log | sed 's/^stap: vm: //')" $? "rc $rc"

# 9. a real kbuild module, if a build tree for the guest kernel exists
rel=$(sed -n 's/.*-kernel \/boot\/vmlinuz-\([^ ]*\) .*/\1/p' b.log | head -1)
if [ -n "$rel" ] && [ -d "/lib/modules/$rel/build" ]; then
	mkdir kmod
	cat >kmod/stapvm_x.c <<'EOF'
#include <linux/module.h>
static int __init x_init(void) { pr_info("stapvm_x: hello\n"); return 0; }
static void __exit x_exit(void) { pr_info("stapvm_x: bye\n"); }
module_init(x_init);
module_exit(x_exit);
MODULE_LICENSE("GPL");
EOF
	echo 'obj-m := stapvm_x.o' >kmod/Makefile
	if make -s -C "/lib/modules/$rel/build" M="$t/kmod" modules \
		>kmod/log 2>&1; then
		"${S[@]}" --batch kout kmod/stapvm_x.ko >k.log 2>&1
		rc=$?
		[ $rc = 0 ] && grep -q 'loaded stapvm_x' kout/0.stdout &&
			grep -q 'stapvm_x: bye' kout/dmesg.txt
		check "real module loads and unloads in the guest" $? "rc $rc"
	else
		echo "SKIP: real module (kbuild failed, see $t/kmod/log)"
	fi
else
	echo "SKIP: real module (no build tree for $rel)"
fi

echo "$fails check(s) failed"
[ $fails = 0 ]
