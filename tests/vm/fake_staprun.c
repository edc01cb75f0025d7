// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fake_staprun.c - stand-in for the guest loader, used by selftest.sh.
 * Usage like staprun: fake_staprun [ARGS...] MODULE.  The "module" is a
 * text file whose first word picks the behaviour:
 *   bytes        hello + every byte value on stdout, a line on stderr, exit 3
 *   args         print argv (one per line) on stdout, exit 0
 *   sleep N      print "begin", wait up to N s for SIGINT; on SIGINT print
 *                "end probe ran" and exit 0, else exit 5
 *   big N        N pseudo-random bytes on stdout, exit 0
 *   warn         write a WARNING: line to the kernel log, exit 0
 *   crash        crash the guest kernel via sysrq
 * A real ELF .ko is loaded with init_module and removed again; prints
 * "loaded NAME" and exits 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t got_int;

static void on_int(int sig)
{
	(void)sig;
	got_int = 1;
}

static void put(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w <= 0)
			exit(9);
		s += w;
		n -= w;
	}
}

/* Load and unload a real module; NAME is the file name minus ".ko". */
static int load_ko(const char *path)
{
	char name[64], *dot;
	const char *base = strrchr(path, '/');
	struct stat st;
	char *img;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return 10;
	img = malloc(st.st_size);
	if (!img || read(fd, img, st.st_size) != st.st_size)
		return 10;
	close(fd);
	if (syscall(SYS_init_module, img, (unsigned long)st.st_size, "")) {
		perror("init_module");
		return 11;
	}
	snprintf(name, sizeof(name), "%s", base ? base + 1 : path);
	dot = strstr(name, ".ko");
	if (dot)
		*dot = '\0';
	printf("loaded %s\n", name);
	fflush(stdout);
	if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
		perror("delete_module");
		return 12;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char mode[32] = "";
	long arg = 0;
	FILE *f;
	int i;

	if (argc < 2)
		return 8;
	f = fopen(argv[argc - 1], "r");
	if (f && fread(mode, 1, 4, f) == 4 && !memcmp(mode, "\177ELF", 4)) {
		fclose(f);
		return load_ko(argv[argc - 1]);
	}
	memset(mode, 0, sizeof(mode));
	if (f)
		rewind(f);
	if (!f || fscanf(f, "%31s %ld", mode, &arg) < 1)
		return 7;
	fclose(f);

	if (!strcmp(mode, "bytes")) {
		char all[256];

		for (i = 0; i < 256; i++)
			all[i] = (char)i;
		put(1, "hello\n", 6);
		put(1, all, sizeof(all));
		put(1, "\r\n\0end", 6);
		put(2, "ERROR: fake\r\n\0x", 15);
		return 3;
	}
	if (!strcmp(mode, "args")) {
		for (i = 0; i < argc; i++)
			printf("%s\n", argv[i]);
		return 0;
	}
	if (!strcmp(mode, "sleep")) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_int;
		sigaction(SIGINT, &sa, NULL);
		put(1, "begin\n", 6);
		for (i = 0; i < arg * 10 && !got_int; i++)
			usleep(100000);
		if (!got_int)
			return 5;
		put(1, "end probe ran\n", 14);
		return 0;
	}
	if (!strcmp(mode, "big")) {
		unsigned int x = 12345;
		char buf[4096];
		long done = 0;

		while (done < arg) {
			size_t n = arg - done < 4096 ? arg - done : 4096;
			size_t k;

			for (k = 0; k < n; k++) {
				x = x * 1103515245u + 12345u;
				buf[k] = (char)(x >> 16);
			}
			put(1, buf, n);
			done += n;
		}
		return 0;
	}
	if (!strcmp(mode, "warn")) {
		int fd = open("/dev/kmsg", O_WRONLY);

		if (fd >= 0)
			put(fd, "WARNING: fake kernel warning\n", 29);
		return 0;
	}
	if (!strcmp(mode, "crash")) {
		int fd = open("/proc/sysrq-trigger", O_WRONLY);

		if (fd >= 0)
			put(fd, "c", 1);
		sleep(10);
		return 6;
	}
	return 7;
}
