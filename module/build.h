/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 4's parts: build.c (the module cache, feature tests, the runtime
 * object, the choice of path, kbuild itself), directbuild.c (the direct
 * path: kbuild's commands captured once, run without make), modpost.c
 * (modpost's checks and MOD.mod.c for the direct path).
 */
#ifndef STAP_BUILD_H
#define STAP_BUILD_H

#include "module/backend.h"
#include "lib/strbuf.h"

/*
 * kbuild's commands for one kernel and set of flags, captured from a
 * kbuild build of a small module (directbuild.c). Each is a shell
 * command run in the kernel's build tree, with @@DIR@@ for the work
 * directory and @@MOD@@ for the module's name.
 */
struct recipe {
	char *src;	/* MOD_src.c -> MOD_src.o (6.1: and objtool) */
	char *rt;	/* stp_runtime.c -> stp_runtime.o */
	char *link;	/* the objects listed in MOD.mod -> MOD.o
			 * (6.12: and objtool --link) */
	char *modo;	/* MOD.mod.c -> MOD.mod.o */
	char *ko;	/* MOD.o MOD.mod.o [.module-common.o] -> MOD.ko */
	char *btf;	/* MOD.ko's BTF (pahole, resolve_btfids) when the
			 * build tree has a vmlinux; NULL: kbuild adds none */
	char *modc;	/* MOD.mod.c as modpost writes it, @@VERSIONS@@ for
			 * the __versions entries, @@DEPENDS@@ for depends= */
	char *extra;	/* what modpost adds to __versions itself, by
			 * name, space-separated (module_layout) */
	char *env;	/* "export NAME='VALUE' ...; ": what make adds to
			 * the environment of its commands, or "" */
	char *common;	/* the cached .module-common.o (6.12), NULL: none */
	const char *path;	/* the recipe's cache file, NULL: not cached */
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

/* Pass 5 (run.c): load and run the module, here or in a guest (vm/);
 * returns the script's exit status. */
int run_module(struct driver *d);

/* --sign-module (sign.c): the key pair in module_run(d)->sign_keydir,
 * made when missing, and its certificate read (before build_hash); then
 * the built module signed in place with the kernel's scripts/sign-file. */
int sign_prepare(struct driver *d);
int sign_module_file(struct driver *d, const char *ko);

/* build.c */
int run_command(char *const argv[], const char *log_path, bool quiet);
int run_command_in(char *const argv[], const char *cwd, const char *log,
		   bool append);
char *cache_fetch(struct driver *d, const char *path, const char *what,
		  size_t *len);
void cache_store(const char *from, const char *to);
void print_file(const char *path);
unsigned long long hash_dir(unsigned long long h, const char *dir);
/* kbuild of the module in d->tmpdir (Kbuild written), 0 on success */
int kbuild_module(struct driver *d, bool have_rt);

/*
 * directbuild.c: the recipe for these flags (the Kbuild lines of ccflags
 * without the feature header's, which features adds), from the cache or
 * captured now; NULL with why set when it cannot be had.
 */
struct recipe *direct_recipe(struct driver *d, const char *ccflags,
			     bool features, char *why, size_t n);
/*
 * Build d->tmpdir/MOD.ko from MOD_src.c and the runtime object
 * (rt_cached: its sealed cache file, compiled here when missing; NULL:
 * no cache). 0: built; -1: failed (said why); 1: this module needs
 * kbuild (why set: modpost would write more than the direct path does).
 */
int direct_module(struct driver *d, const struct recipe *r,
		  const char *rt_cached, char *why, size_t n);

/* build.c: the objects of the script's units, "MOD_src.o MOD_src1.o ..."
 * (each as dir/NAME when dir is not NULL), joined by sep */
/* The base name of unit K's C and object: "MOD_src", "MOD_src1", ... */
const char *unit_base(struct driver *d, int k);
const char *unit_objects(struct driver *d, const char *dir, const char *sep);

/* modpost.c */
/* MOD.mod.c for the linked object obj (NULL: errors in err, or
 * *special set: modpost would do more, e.g. exports) */
char *modpost_modc(const struct recipe *r, const char *obj,
		   const char *symvers, const char *release, struct strbuf *err,
		   const char **special);
/* The recipe's modc and extra from modpost's text for the capture
 * module and its object; NULL with why set. */
char *modpost_template(const char *modc, const char *obj, char **extra,
		       char *why, size_t n);

#endif /* STAP_BUILD_H */
