#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install what the project needs from Debian's packages (when missing) and
# build it. Idempotent: fast when everything is already there.
set -eu
cd "$(dirname "$0")/.."

# Build tools, libdw, and the test VM: qemu, a static busybox and the two
# Debian cloud kernels (image + headers) that scripts are compiled for and
# tested on: 6.1 and 6.12. lz4 and zstd decompress the kernel images
# (6.1's vmlinuz is lz4, 6.12's zstd) to read their BTF type information.
packages="gcc make autoconf automake flex bison libc6-dev libdw-dev libelf-dev
	lz4 zstd
	qemu-system-x86 busybox-static linux-image-cloud-amd64
	linux-headers-cloud-amd64 linux-image-6.12-cloud-amd64
	linux-headers-6.12-cloud-amd64"

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

if [ ! -x configure ]; then
	./autogen.sh >/dev/null
fi
if [ ! -f Makefile ]; then
	./configure -q
fi
make -s -j"$(nproc)" all
