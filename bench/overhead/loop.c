// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The benchmark's workload, run in the guest: N getppid() system calls,
 * timed with CLOCK_MONOTONIC. Under qemu -icount shift=0 guest time counts
 * instructions, so the figure is repeatable to the nanosecond.
 *   loop N    prints "loop N calls T ns"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	long long ns = (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
	printf("loop %ld calls %lld ns\n", n, ns);
	return 0;
}
