#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what running stap needs from Debian's packages (when missing) and
# build it. Idempotent: fast when everything is already there.
#   scripts/setup.sh          what building and running scripts need
#   scripts/setup.sh --test   and what only the test suite uses (scripts/test.sh)
set -eu
cd "$(dirname "$0")/.."

# Build tools, libdw, and the test VM: qemu, a static busybox and the two
# Debian cloud kernels (image + headers) that scripts are compiled for and
# tested on: 6.1 and 6.12. lz4 and zstd decompress the kernel images
# (6.1's vmlinuz is lz4, 6.12's zstd) to read their BTF type information;
# liblzma, zlib and libzstd decompress the kernel's modules (.ko.xz/.gz/.zst)
# to read which tracepoints they define. clang and libbpf build and load
# the BPF backend's programs (--runtime=bpf).
packages="gcc make autoconf automake flex bison libc6-dev libdw-dev libelf-dev
	liblzma-dev zlib1g-dev libzstd-dev
	lz4 zstd
	qemu-system-x86 busybox-static linux-image-cloud-amd64
	linux-headers-cloud-amd64 linux-image-6.12-cloud-amd64
	linux-headers-6.12-cloud-amd64 clang libbpf-dev"
# Only the tests: groff-base checks the man pages (the suite's man/pages);
# python3 and chromium check the flame graphs' SVG (its XML, and its
# script in a headless browser: tests/run-tests.sh, flame/); jq reads the
# JSON lines of the e2e tests json_*. systemtap-sdt-dev's sys/sdt.h marks
# the program the ELF/DWARF reader's unit test builds (tests/unit/test_elf.c);
# binutils' objcopy splits its debug file. bpftool checks that a BPF test
# leaves nothing loaded (tests/bpf.sh); bpftrace is the BPF benches' peer.
test_packages="groff-base python3 chromium jq systemtap-sdt-dev binutils
	bpftool bpftrace"
case ${1:-} in
--test) packages="$packages $test_packages" ;;
"") ;;
*) echo "usage: scripts/setup.sh [--test]" >&2; exit 2 ;;
esac

missing=
for p in $packages; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
if [ -n "$missing" ]; then
	echo "setup: installing:$missing"
	if [ "$(id -u)" != 0 ]; then
		echo "setup: run as root to install packages" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

# kernel.function needs each target kernel's DWARF, module("M").function
# its modules': Debian's linux-image-RELEASE-dbg (about 280 MB download,
# 1.7 GB unpacked, 1.2 GB of it the modules' debug files). The package is
# kept as /var/cache/stap/linux-image-RELEASE-dbg.deb; only the vmlinux is
# extracted here, to /usr/lib/debug/boot/vmlinux-RELEASE, and stap
# extracts a module's debug file from the package when a script first
# names the module (target/moddebug.h). Skipped when both are there.
debs=/var/cache/stap
for img in /boot/vmlinuz-*; do
	[ -e "$img" ] || continue
	release=${img#/boot/vmlinuz-}
	dbg=/usr/lib/debug/boot/vmlinux-$release
	deb=$debs/linux-image-$release-dbg.deb
	[ -s "$dbg" ] && [ -s "$deb" ] && continue
	version=$(dpkg-query -W -f='${Version}' "linux-image-$release" 2>/dev/null) ||
		continue
	if [ "$(id -u)" != 0 ]; then
		echo "setup: run as root to install $dbg and $deb" \
			"(linux-image-$release-dbg)" >&2
		exit 1
	fi
	if [ ! -s "$deb" ]; then
		echo "setup: downloading linux-image-$release-dbg $version to $deb"
		mkdir -p "$debs"
		tmp=$(mktemp -d "$debs/.dl-XXXXXX")
		if ! (cd "$tmp" && apt-get download -q \
			"linux-image-$release-dbg=$version" >/dev/null 2>&1); then
			apt-get update -q >/dev/null
			(cd "$tmp" && apt-get download -q \
				"linux-image-$release-dbg=$version" >/dev/null) || {
				rm -rf "$tmp"
				echo "setup: cannot download linux-image-$release-dbg" >&2
				exit 1
			}
		fi
		# a whole file or none: an interrupted run leaves no half one
		mv "$tmp"/*.deb "$deb"
		rm -rf "$tmp"
	fi
	[ -s "$dbg" ] && continue
	echo "setup: extracting $dbg from $deb"
	tmp=$(mktemp -d)
	if dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" "./usr/lib/debug/boot/vmlinux-$release" &&
		[ -s "$tmp/usr/lib/debug/boot/vmlinux-$release" ]; then
		mkdir -p /usr/lib/debug/boot
		mv "$tmp/usr/lib/debug/boot/vmlinux-$release" "$dbg.tmp$$"
		mv "$dbg.tmp$$" "$dbg"
	else
		rm -rf "$tmp"
		echo "setup: no vmlinux-$release in $deb" >&2
		exit 1
	fi
	rm -rf "$tmp"
done

if [ ! -x configure ]; then
	./autogen.sh >/dev/null
fi
if [ ! -f Makefile ]; then
	./configure -q
fi
make -s -j"$(nproc)" all
