#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The first use of kernel-function data: stap -L on a kernel.function
# pattern with no catalog cache yet (cold: the catalog is built from the
# whole debug vmlinux, target/functions.c) and again with it (warm: the
# cache file is read), beside SystemTap 4.8's stap -L, which keeps no such
# cache (every run of it reads the DWARF again). Prints the wall time,
# the CPU time (user + system) and the peak RSS of each, the median of
# RUNS runs (default 3); our cache is a private directory, removed after.
# On a loaded machine the wall time follows the load: compare CPU times.
# BENCH_P4=1 adds a cold -p4 build of a vfs_read probe (catalog, runtime
# object and module: the peak RSS is that of the largest process, stap
# or a compiler; SystemTap 4.8 runs its runtime patched as in
# turnaround.sh). STAP_TREE=DIR measures the stap built in DIR (another
# worktree) instead.
#   [RUNS=N] [BENCH_P4=1] bench/catalog.sh [RELEASE] [PATTERN]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
stap=${STAP_TREE:-$top}/stap/stap
release=${1:-6.1.0-56-cloud-amd64}
pattern=${2:-vfs_*}
runs=${RUNS:-3}
point="kernel.function(\"$pattern\")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ref=
[ -x /usr/bin/stap ] && ref=/usr/bin/stap

# run NAME CMD...: one run, "wall cpu kb" appended to $work/NAME
run() {
	local name=$1
	shift
	/usr/bin/time -o "$work/t" -f '%e %U %S %M' "$@" >"$work/out" \
		2>"$work/err" || { cat "$work/err" >&2; return 1; }
	awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$work/t" \
		>>"$work/$name"
}

# row LABEL NAME: the medians of NAME's runs
row() {
	local label=$1 f=$work/$2 w c k
	med() {
		cut -d' ' -f"$1" "$f" | sort -n |
			awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	}
	w=$(med 1) c=$(med 2) k=$(med 3)
	printf '  %-22s %8s s %8s s %8d MB\n' "$label" "$w" "$c" \
		$(( (k + 512) / 1024 ))
}

for i in $(seq 1 "$runs"); do
	rm -rf "$work/cache"
	STAP_CACHE=$work/cache run cold "$stap" -r "$release" -L "$point"
	cp "$work/out" "$work/cold.out"
	STAP_CACHE=$work/cache run warm "$stap" -r "$release" -L "$point"
	cmp -s "$work/out" "$work/cold.out" ||
		{ echo "catalog: cold and warm listings differ" >&2; exit 1; }
	[ -z "$ref" ] || run ref "$ref" -r "$release" -L "$point"
done
[ -z "$ref" ] || cp "$work/out" "$work/ref.out"

echo "stap -L '$point' on $release, median of $runs:"
printf '  %-22s %10s %10s %11s\n' "" wall cpu "peak RSS"
row "ours, cold" cold
row "ours, warm" warm
if [ -n "$ref" ]; then
	row "SystemTap 4.8" ref
	echo "  points: ours $(wc -l <"$work/cold.out"), SystemTap 4.8" \
	     "$(wc -l <"$work/ref.out")"
else
	echo "  points: ours $(wc -l <"$work/cold.out") (no /usr/bin/stap)"
fi

[ -n "${BENCH_P4:-}" ] || exit 0
script='probe kernel.function("vfs_read") { printf("%d\n", $count) }'
rm -rf "$work/cache"
STAP_CACHE=$work/cache run p4 "$stap" -p4 -r "$release" -e "$script"
if [ -n "$ref" ] && [ -d /usr/share/systemtap/runtime ]; then
	cp -r /usr/share/systemtap/runtime "$work/stp48-runtime"
	sed -i 's/\btask_work_cancel\b/task_work_cancel_func/g' \
		"$work/stp48-runtime/stp_task_work.c"
	mkdir -p "$work/home"
	HOME=$work/home run p4ref "$ref" -R "$work/stp48-runtime" -p4 \
		-r "$release" -e "$script"
fi
echo "stap -p4 of a vfs_read probe, cold (empty caches), one run:"
row "ours" p4
[ ! -s "$work/p4ref" ] || row "SystemTap 4.8" p4ref
