#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runtime floor test: builds test_mod.c in every scenario plus a static
# staprun, boots them in a qemu VM (TCG) and compares the console output
# with expected.txt.  Exit 77 (skip) without kernel headers/image or qemu.
#   tests/runtime/run-vm.sh [KERNEL_RELEASE]      (-u: rewrite expected.txt)
set -eu
update=0
[ "${1:-}" = -u ] && { update=1; shift; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# default: the newest installed kernel with both image and headers
newest=$(ls /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' |
	while read -r r; do [ -f "/lib/modules/$r/build/Makefile" ] && echo "$r"; done |
	sort -V | tail -1)
kver=${1:-$newest}
kdir=/lib/modules/$kver/build
kimg=/boot/vmlinuz-$kver
bb=$(command -v busybox || true)
if [ ! -d "$kdir" ] || [ ! -r "$kimg" ] || [ -z "$bb" ] ||
   ! command -v qemu-system-x86_64 >/dev/null; then
	echo "SKIP: need $kdir, $kimg, busybox and qemu-system-x86_64"
	exit 77
fi
w=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "work dir: $w"; else trap 'rm -rf "$w"' EXIT; fi

cp "$here/test_mod.c" "$w/"
objs=
i=1
for n in print events maxaction divzero notp forever endfail flood contend \
	kfunc nokfunc kfrefused; do
	# a module is its scenario and the runtime object, as stap builds it
	printf '#define STP_TEST %d\n#include "test_mod.c"\n' $i >"$w/t_${n}_main.c"
	printf '#include "runtime.c"\n' >"$w/t_${n}_rt.c"
	objs="$objs t_$n.o"
	parts="${parts:-}t_$n-y := t_${n}_main.o t_${n}_rt.o
"
	i=$((i + 1))
done
# kfunc: vfs_read by link-time address, moved by KASLR's offset, which the
# module finds from _printk's link-time address. Debian's System.map is a
# stub: the addresses come from the debug vmlinux (scripts/setup.sh);
# without it that probe names vfs_read by symbol instead.
dbg=/usr/lib/debug/boot/vmlinux-$kver
kf_flags=
if [ -r "$dbg" ]; then
	nm "$dbg" 2>/dev/null | awk '$3 == "vfs_read" || $3 == "_printk"' >"$w/link.txt"
	link() { awk -v s="$1" '$3 == s { print "0x" $1 "UL"; exit }' "$w/link.txt"; }
	if [ -n "$(link vfs_read)" ] && [ -n "$(link _printk)" ]; then
		kf_flags="-DKF_VFS_READ_LINK=$(link vfs_read) -DSTP_KFUNC_ANCHOR_SYM=_printk -DSTP_KFUNC_ANCHOR_LINK=$(link _printk)"
	fi
fi
[ -n "$kf_flags" ] || echo "note: no $dbg: kfunc's by-address probe goes by symbol" >&2
cat >"$w/Kbuild" <<EOK
obj-m := $objs
${parts}ccflags-y := -I$top/runtime -I\$(src)
CFLAGS_t_flood_main.o := -DSTP_BUFFER_SIZE=4096 -DSTP_CTL_BUFFER_SIZE=4096 -DSTP_PRINT_BUF_SIZE=1024
CFLAGS_t_flood_rt.o := -DSTP_BUFFER_SIZE=4096 -DSTP_CTL_BUFFER_SIZE=4096 -DSTP_PRINT_BUF_SIZE=1024
CFLAGS_t_kfunc_main.o := $kf_flags
EOK
if ! make -C "$kdir" M="$w" modules >"$w/build.log" 2>&1 ||
   grep -E 'warning:|error:' "$w/build.log"; then
	cat "$w/build.log"
	echo "FAIL: module build"
	exit 1
fi
gcc -std=c11 -O2 -Wall -Wextra -Werror -static -I"$top" \
	-pthread -o "$w/staprun" "$top/module/staprun.c" "$top/lib/outfiles.c"

r=$w/root
mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
cp "$bb" "$r/bin/busybox"
cp "$w"/*.ko "$w/staprun" "$r/"
{
	echo '#!/bin/busybox sh'
	echo '/bin/busybox --install -s /bin'
	echo 'mount -t proc proc /proc; mount -t sysfs sys /sys'
	echo 'mount -t devtmpfs dev /dev'
	cat "$here/vm-tests.sh"
	echo 'poweroff -f'
} >"$r/init"
chmod +x "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1 >"$w/initrd.gz")
timeout 300 qemu-system-x86_64 -accel tcg,thread=single -smp 2 -m 512 -nographic \
	-no-reboot -kernel "$kimg" -initrd "$w/initrd.gz" \
	-append "console=ttyS0 quiet loglevel=3 panic=-1" -net none \
	</dev/null >"$w/console.log" 2>&1 || true
tr -d '\r' <"$w/console.log" | sed -n '/=== BEGIN/,/^=== END/p' |
	sed '1s/.*=== BEGIN/=== BEGIN/' >"$w/got"
if [ $update = 1 ]; then
	cp "$w/got" "$here/expected.txt"
	exit 0
fi
if diff -u "$here/expected.txt" "$w/got"; then
	echo "PASS: runtime VM test ($kver)"
else
	echo "FAIL: runtime VM test ($kver)"
	exit 1
fi
