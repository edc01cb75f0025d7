/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The -o FILE output files of a run, as SystemTap 4.8's stapio writes them
 * in its stream mode:
 *
 *   without -S (or -S 0): FILE first; each switch_file() of the script
 *                         closes it and starts FILE.1, then FILE.2 ...
 *   -S SIZE[,N]:          FILE.0 first; the next file is started by
 *                         switch_file(), or before a record that would take
 *                         the current file past SIZE MB; with N, starting
 *                         file number K removes file K-N (N files kept).
 *
 * Used by staprun (which writes the files itself) and by stap for a run in
 * a guest, where the guest's loader sends the script's output in frames
 * (below) and stap writes the files.
 */
#ifndef LIB_OUTFILES_H
#define LIB_OUTFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct out_files {
	const char *name;		/* -o FILE */
	unsigned long long size_max;	/* -S SIZE in bytes; 0: no limit */
	int keep;			/* -S SIZE,N: N; 0: keep all */
	int num;			/* the current file's number */
	int fd;				/* the current file, or -1 */
	unsigned long long written;	/* bytes in the current file */
	/* open(2) and unlink(2) to use (a setuid loader's, as the real
	 * user), or NULL for the plain calls */
	int (*open_fn)(const char *path, int flags, mode_t mode);
	int (*unlink_fn)(const char *path);
};

/*
 * Parse -S's "SIZE[,N]" (digits, SIZE in MB): 0, or -1 when it is not of
 * that form (SystemTap 4.8's pattern ^[0-9]+(,[0-9]+)?$).
 */
int out_files_parse_size(const char *arg, unsigned long long *size_max,
			 int *keep);

/* Open the first file; -1 with errno set and the path in path_out (of
 * PATH_MAX bytes) when it fails. */
int out_files_open(struct out_files *of, char *path_out);

/* Whether a record of len bytes, after pending bytes not yet written,
 * must start the next file first (-S). */
bool out_files_full(const struct out_files *of, size_t pending, size_t len);

/* Close the current file and start the next one (removing the oldest
 * one past N); -1 with errno set and the failed path in path_out. */
int out_files_next(struct out_files *of, char *path_out);

/* Write all of buf to the current file; -1 with errno set. */
int out_files_write(struct out_files *of, const char *buf, size_t len);

/* Close the current file: -1 with errno set when close fails. */
int out_files_close(struct out_files *of);

/*
 * The frames of a guest loader's output for stap to write the files
 * (staprun -m): OUT_FRAME_DATA, a 4-byte little-endian length and that
 * many bytes of output; OUT_FRAME_NEXT: start the next file.
 */
#define OUT_FRAME_DATA 'D'
#define OUT_FRAME_NEXT 'N'

#endif /* LIB_OUTFILES_H */
