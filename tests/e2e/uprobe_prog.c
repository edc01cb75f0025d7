/* A program built by the e2e runner for the uprobe tests (uprobe_*.stp)
 * and run in the guest: functions with arguments and return values, a
 * call through the PLT, and sys/sdt.h marks, one with a semaphore. */
#include <stdlib.h>
#include <string.h>
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

__attribute__((noinline)) int greet(const char *who, int times)
{
	__asm__ volatile("");
	return (int)strlen(who) * times;
}

struct point {
	int x;
	long y;
	const char *name;
};

__attribute__((noinline)) long area(const struct point *p)
{
	__asm__ volatile("");
	return p->x * p->y + (p->name[0] != 'c');
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
	/* a string through the PLT and malloc: for .plt and libc probes */
	char *who = malloc(16);
	strcpy(who, argc > 2 ? argv[2] : "guest");
	s += greet(who, 2);
	free(who);
	struct point pt = { 3, -4, "corner" };
	s += area(&pt);
	return negate(s) == -34 ? 0 : 1;
}
