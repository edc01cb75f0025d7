// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader's half of ATTACH_PROCESS (bpf/attach_process.c writes the
 * programs): the executables' identities the filters compare
 * (stp_pexes) and the tasks already running when the probes are
 * attached (stp_ptasks), from /proc. Linked into stap and into stapbpf,
 * the loader a guest runs.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/bpf.h"

/* the table's value, as the program declares it (struct stp_ptask) */
struct bpf_proc_task {
	unsigned long long ino;
	unsigned int dev, pending, leader_gone, pad;
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* the value of stp_pexes (struct stp_pexe) */
struct bpf_proc_exe {
	unsigned long long ino;
	unsigned int dev, pad;
};

void bpf_process_exes(struct bpf_object *obj, const char *const *exes)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "stp_pexes");

	for (unsigned i = 0; m && exes && exes[i]; i++) {
		struct bpf_proc_exe v = { 0 };
		struct stat st;
		/* a path that does not exist matches nothing (ino 0) */
		if (!stat(exes[i], &st)) {
			v.ino = st.st_ino;
			v.dev = major(st.st_dev) << 20 | minor(st.st_dev);
		}
		bpf_map__update_elem(m, &i, sizeof(i), &v, sizeof(v), BPF_ANY);
	}
}

int bpf_process_scan(struct bpf_object *obj, int how)
{
	struct bpf_map *tasks = bpf_object__find_map_by_name(obj, "stp_ptasks");
	struct bpf_map *pend = bpf_object__find_map_by_name(obj, "stp_ppend");

	if (!how || !tasks || !pend)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long *count = mmap(NULL, (size_t)page, PROT_READ |
					 PROT_WRITE, MAP_SHARED,
					 bpf_map__fd(pend), 0);
	if (count == MAP_FAILED) {
		fprintf(stderr, "stap: error: process probes: mapping the "
			"count of pending begins: %s\n", strerror(errno));
		return 1;
	}
	DIR *proc = opendir("/proc");
	struct dirent *d;

	while (proc && (d = readdir(proc))) {
		char path[600];
		if (!all_digits(d->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", d->d_name);
		DIR *td = opendir(path);
		struct dirent *t;
		while (td && (t = readdir(td))) {
			struct stat st;
			if (!all_digits(t->d_name))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/exe",
				 d->d_name, t->d_name);
			if (stat(path, &st))
				continue;	/* a kernel thread, or gone */
			unsigned int tid = (unsigned int)atoi(t->d_name);
			struct bpf_proc_task v = {
				.ino = st.st_ino,
				.dev = major(st.st_dev) << 20 | minor(st.st_dev),
			};
			if (how == 2)
				v.pending = strcmp(d->d_name, t->d_name) ? 2 : 1;
			/* a task forked since the attach is there already */
			if (!bpf_map__update_elem(tasks, &tid, sizeof(tid), &v,
						  sizeof(v), BPF_NOEXIST) &&
			    v.pending)
				__sync_fetch_and_add(count, 1);
		}
		if (td)
			closedir(td);
	}
	if (proc)
		closedir(proc);
	munmap(count, (size_t)page);
	return 0;
}
