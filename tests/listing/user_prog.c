/* The program the user-space listings (tests/listing/*.uargs) list: built
 * with gcc -g -O2 by the test (and by from-systemtap.sh) as ./user_prog. */
#include <stdlib.h>
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

/* the marks' semaphores (sys/sdt.h names them so): "uprobe_prog:busy"
 * runs only while a probe raises its semaphore */
unsigned short uprobe_prog_tick_semaphore __attribute__((section(".probes")));
unsigned short uprobe_prog_busy_semaphore __attribute__((section(".probes")));

__attribute__((noinline)) int add(int a, int b)
{
	__asm__ volatile("");
	return a * 2 + b;
}

__attribute__((noinline)) long negate(long x)
{
	__asm__ volatile("");
	return -x;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long s = 0;

	for (int i = 0; i < n; i++) {
		s += add(i, 10);
		DTRACE_PROBE2(uprobe_prog, tick, i, s);
		if (uprobe_prog_busy_semaphore)
			DTRACE_PROBE1(uprobe_prog, busy, i);
	}
	return negate(s) == -36 ? 0 : 1;
}
