/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The driver's passes 4 and 5 and the paths they share. */
#ifndef STAP_DRIVER_H
#define STAP_DRIVER_H

#include "parser/session.h"
#include "lib/files.h"

#include <sys/types.h>

struct driver {
	struct session *s;
	const char *exe_dir;		/* directory of the stap binary */
	const char *runtime_dir;	/* runtime/ with runtime.h */
	const char *staprun;		/* the loader binary */
	const char *tmpdir;		/* per-run work directory */
	const char *module_name;
	int nunits;			/* translation units: MODULE_src.c,
					 * then MODULE_src1.c ... (with
					 * stp_units.h, what they share) */
	size_t c_bytes;			/* the C's size, all units */
	char *ko_path;			/* result of pass 4 */
	bool use_vm;			/* pass 5 in a qemu guest */
	bool force_vm;			/* --vm */
	const char *host_refusal;	/* why the host cannot load modules
					 * (NULL: it can) */
	int vm_memory_mb;		/* --vm-memory, 0: the default */
	int vm_cpus;			/* --vm-cpus, 0: the default */
	bool vm_keep;			/* --vm-keep[=SECONDS]: a warm guest */
	int vm_keep_s;			/* its idle seconds */
	const char *flame_svg;		/* --flame: the SVG to write */
	const char *runtime_opt;	/* -R DIR */
	const char *tmpdir_opt;		/* --tmpdir=DIR */
	bool poison_cache;		/* --poison-cache: rebuild */
	char **make_args;		/* -B NAME=VALUE, for kbuild's make */
	int nmake_args;
	const char *flame_title;	/* its title */
	bool sign_module;		/* --sign-module[=KEYDIR] */
	const char *sign_keydir;	/* KEYDIR, NULL: under the cache */
	const char *sign_key;		/* KEYDIR/signing_key.pem */
	const char *sign_cert;		/* KEYDIR/signing_key.x509 (DER) */
	char *sign_cert_data;		/* its bytes, for the cache key */
	size_t sign_cert_len;
};

/* Pass 3's C into d->tmpdir: one file, or a split module's units (pass
 * 3 says where each starts) and their shared part. 0 on success. */
int write_sources(struct driver *d, const char *c, size_t len);
/* The CPUs this process may run on (at least 1). */
int usable_cpus(void);
/* Pass 4: build the module (or take it from the cache). 0 on success. */
int build_module(struct driver *d);
/* A stable hash of the generated C, release, -D options and runtime. */
unsigned long long build_hash(struct driver *d, const char *c_source,
			      size_t len);
/* Pass 5: load and run the module; returns the script's exit status.
 * With --flame, the script's output is folded stacks, rendered into
 * d->flame_svg when the run ends. */
int run_module(struct driver *d);

/* The per-run directory is removed by a watchdog process when stap ends,
 * however it ends (SIGKILL included): stap/guard.c. tmpdir_guard() starts
 * it (0, or -1 when it cannot fork), keep (-k): the directory stays;
 * tmpdir_guard_end() ends it and returns once it is done. */
int tmpdir_guard(const char *dir, bool keep);
void tmpdir_guard_end(void);
/* A command working in the directory runs in process group pgid, which
 * the watchdog kills if stap dies meanwhile; 0: it has ended. */
void tmpdir_guard_group(pid_t pgid);

/* --sign-module (stap/sign.c): the key pair in d->sign_keydir, made
 * when missing, and its certificate read (before build_hash); then the
 * built module signed in place with the kernel's scripts/sign-file. */
int sign_prepare(struct driver *d);
int sign_module_file(struct driver *d, const char *ko);

/* Helpers (files: lib/files.h) */
int run_command(char *const argv[], const char *log_path, bool quiet);

#endif /* STAP_DRIVER_H */
