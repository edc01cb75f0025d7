// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/events.sh's workloads, run in the guest, timed with
 * CLOCK_MONOTONIC (repeatable under qemu -icount):
 *   work faults N   N page faults: touch N fresh anonymous pages
 *   work udp N      N UDP datagrams to ourselves on the loopback
 * Each prints "loop N calls T ns", as bench/overhead/loop.c does.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int faults(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	munmap(p, n * page);
	return 0;
}

static int udp(long n)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	char buf[16] = "x";
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(s, (struct sockaddr *)&a, &len))
		return 1;
	for (long i = 0; i < n; i++) {
		if (sendto(s, buf, 1, 0, (struct sockaddr *)&a, len) != 1 ||
		    recv(s, buf, sizeof(buf), 0) != 1)
			return 1;
	}
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10000;
	long long t0 = now_ns();
	int err = argc > 1 && !strcmp(argv[1], "udp") ? udp(n) : faults(n);

	if (err) {
		perror("work");
		return 1;
	}
	printf("loop %ld calls %lld ns\n", n, now_ns() - t0);
	return 0;
}
