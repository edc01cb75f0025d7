/*
 * bench/ustack.sh's program: CALLS getppid() system calls made four
 * calls deep (built -O2 -fomit-frame-pointer, each with its own syscall
 * instruction), then "loop CALLS calls NS ns".
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long __attribute__((noinline)) inner(long x)
{
	volatile long pad[4] = { x };
	long ret;

	__asm__ volatile("syscall" : "=a"(ret) : "a"(110L) : "rcx", "r11",
			 "memory");
	return ret + pad[0];
}

static long __attribute__((noinline)) middle(long x)
{
	volatile long pad[6] = { x };
	return inner(pad[0]) + 1;
}

static long __attribute__((noinline)) outer(long x)
{
	volatile long pad[2] = { x };
	return middle(pad[0]) + 2;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 10000, sum = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < calls; i++)
		sum += outer(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("loop %ld calls %lld ns\n", calls,
	       (long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
	       (b.tv_nsec - a.tv_nsec) + (sum == 42));
	return 0;
}
