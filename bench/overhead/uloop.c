// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The uprobe benchmark's workload (bench/uprobe.sh), run in the guest:
 * N calls of a function that does nothing, each also passing a sys/sdt.h
 * mark, timed with CLOCK_MONOTONIC (repeatable under qemu -icount).
 *   uloop N    prints "loop N calls T ns"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

__attribute__((noinline)) long uloop_hit(long i)
{
	__asm__ volatile("" : : : "memory");
	return i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, s = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		s += uloop_hit(i);
		DTRACE_PROBE1(uloop, tick, i);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	printf("loop %ld calls %lld ns (%ld)\n", n, ns, s);
	return 0;
}
