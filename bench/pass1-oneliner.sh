#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Wall time of a whole `stap -p1` and `stap -p2` for a one-line script,
# averaged over 20 runs (SystemTap 4.8 spends about 250 ms in pass 1).
stap=${1:-./stap/stap}
for pass in 1 2; do
	start=$(date +%s%N)
	i=0
	while [ $i -lt 20 ]; do
		"$stap" -p$pass -e 'probe begin { printf("hi\n"); exit() }' >/dev/null
		i=$((i + 1))
	done
	end=$(date +%s%N)
	echo "stap -p$pass one-liner: $(( (end - start) / 20000 )) us per run"
done
