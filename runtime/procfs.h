/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * procfs probes (procfs.c): the module's table of them, and the file's
 * text during a read or write probe.
 */
#ifndef RUNTIME_PROCFS_H
#define RUNTIME_PROCFS_H

struct stp_procfs_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	const char *path;		/* under /proc/systemtap/MODULE/ */
	bool write;			/* a .write probe (else .read) */
	u32 bufsize;			/* .read.maxsize(N), 0: MAXSTRINGLEN */
	u16 umask;			/* .umask(N) */
};

extern const struct stp_kind_ops stp_procfs_kind;

struct stp_procfs_data {
	char *buf;			/* NUL-terminated */
	size_t len, size;
};

struct stp_procfs_data *stp_procfs_data(struct stp_context *c);
void stp_procfs_set(struct stp_context *c, const char *s, bool append);

#endif /* RUNTIME_PROCFS_H */
