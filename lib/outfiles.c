// SPDX-License-Identifier: GPL-2.0-or-later
/* The -o output files and their rotation (outfiles.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/outfiles.h"

int out_files_parse_size(const char *arg, unsigned long long *size_max,
			 int *keep)
{
	const char *p = arg;
	unsigned long long mb = 0;
	unsigned long n = 0;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		mb = mb > (ULLONG_MAX >> 20) / 10 ? ULLONG_MAX >> 20 :
			mb * 10 + (unsigned)(*p - '0');
	if (*p == ',') {
		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++)
			n = n > INT_MAX / 10 ? INT_MAX : n * 10 + (unsigned)(*p - '0');
	}
	if (*p)
		return -1;
	*size_max = mb << 20;
	*keep = (int)(n > INT_MAX ? INT_MAX : n);
	return 0;
}

/* FILE without -S for the first file, else FILE.NUM */
static void file_name(const struct out_files *of, int num, char *path)
{
	if (num == 0 && !of->size_max)
		snprintf(path, PATH_MAX, "%s", of->name);
	else
		snprintf(path, PATH_MAX, "%s.%d", of->name, num);
}

static int open_num(struct out_files *of, char *path)
{
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;

	file_name(of, of->num, path);
	of->fd = of->open_fn ? of->open_fn(path, flags, 0666) :
			       open(path, flags, 0666);
	of->written = 0;
	return of->fd < 0 ? -1 : 0;
}

int out_files_open(struct out_files *of, char *path_out)
{
	of->num = 0;
	return open_num(of, path_out);
}

bool out_files_full(const struct out_files *of, size_t pending, size_t len)
{
	unsigned long long used = of->written + pending;

	/* a record is never split, nor does one leave a file empty */
	return of->size_max && used && used + len > of->size_max;
}

int out_files_next(struct out_files *of, char *path_out)
{
	if (out_files_close(of))
		return -1;
	of->num++;
	if (of->keep && of->num >= of->keep) {
		char old[PATH_MAX];

		file_name(of, of->num - of->keep, old);
		/* gone already: no matter */
		if (of->unlink_fn)
			of->unlink_fn(old);
		else
			unlink(old);
	}
	return open_num(of, path_out);
}

int out_files_write(struct out_files *of, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(of->fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
		of->written += (size_t)n;
	}
	return 0;
}

int out_files_close(struct out_files *of)
{
	int fd = of->fd;

	of->fd = -1;
	return fd >= 0 ? close(fd) : 0;
}
