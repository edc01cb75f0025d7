/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One target kernel release: where its files are, its configuration, its
 * cache directory, and its catalogs (BTF types, tracepoints, functions,
 * DWARF locations), each loaded on first use and remembered, failure
 * included. Nothing here knows about scripts.
 *
 * The paths are computed once, by target_new(), and every other part of
 * the compiler asks here instead of spelling them again:
 *   build_dir      /lib/modules/R/build, else /usr/src/linux-headers-R
 *                  (the first with a Makefile), or an explicit one;
 *   debug_vmlinux  /usr/lib/debug/boot/vmlinux-R, else
 *                  /usr/lib/debug/lib/modules/R/vmlinux (Debian's -dbg);
 *   build_vmlinux  /lib/modules/R/build/vmlinux (a kernel built here);
 *   image          /boot/vmlinuz-R;
 *   modules_dir    /lib/modules/R (its modules, compressed or not);
 *   config_path    BUILD/.config, read once by target_config().
 *
 * Memory: a target owns its strings and catalogs; target_free() releases
 * them. Error strings returned through err belong to the target.
 */
#ifndef TARGET_TARGET_H
#define TARGET_TARGET_H

#include <stdbool.h>

#include "lib/arena.h"

struct btf;
struct tp_catalog;
struct kf_catalog;
struct dwloc_file;

/* A catalog's load state: tried once, then remembered. */
struct target_lazy {
	int state;		/* 0 not tried, 1 loaded, -1 failed */
	char *err;		/* malloc'ed, when state is -1 */
};

struct target {
	/* read-only after target_new() */
	const char *release;		/* "6.1.0-56-cloud-amd64" */
	const char *build_dir;		/* NULL: no build tree installed */
	const char *debug_vmlinux;	/* NULL: no debuginfo installed */
	const char *debug_tried;	/* the first debug vmlinux path, for
					 * "missing ..." messages */
	const char *build_vmlinux;
	const char *image;
	const char *modules_dir;
	const char *config_path;	/* NULL without a build tree */
	const char *cache_dir;		/* NULL: caches off */

	/* private: see target.c */
	struct arena arena;
	bool config_loaded;
	struct target_config *config;
	struct target_lazy btf_st, tp_st, kf_st, dw_st;
	struct btf *btf;
	struct tp_catalog *tps;
	struct kf_catalog *kfs;
	struct dwloc_file *dw;
	struct target_module *mods;	/* target_module_btf's answers */
	int n_mods, cap_mods;
	struct target_moddebug *moddebug;	/* moddebug.c's */
};

/*
 * The DWARF types of the user binary PATH (a program or library) added
 * to target_btf()'s as a scope of their own (btf_add_elf) on the first
 * call, then the same answer: the scope, or 0 and *err.
 */
int target_user_btf(struct target *t, const char *path, const char **err);

/*
 * The DWARF types of the C headers "<a.h><b.h>" (@cast's module as
 * SystemTap 4.8 takes it): a shared object gcc compiles from them, kept
 * in the cache (target/typequery.c), as a scope as target_user_btf's.
 */
int target_header_btf(struct target *t, const char *headers,
		      const char **err);

/* A module whose BTF was asked for: its scope in the target's BTF, or 0
 * and why not. */
struct target_module {
	const char *path;
	int scope;
	const char *err;
};

/*
 * The target for RELEASE. build_dir NULL: the rule above. The cache is
 * the user's (lib/files.h cache_dir()); target_set_cache_dir() changes it
 * (NULL: no cache) before the first catalog is loaded. No file is read
 * here beyond a few stat() calls.
 */
struct target *target_new(const char *release, const char *build_dir);
void target_set_cache_dir(struct target *t, const char *dir);
void target_free(struct target *t);

/*
 * The value of CONFIG_X as .config spells it ("y", "m", "123",
 * "\"string\"" with its quotes), or NULL when unset or there is no
 * configuration. The file is parsed on the first call.
 */
const char *target_config(struct target *t, const char *name);

/* Entry i of the configuration, in file order: false past the last. */
bool target_config_at(struct target *t, int i, const char **name,
		      const char **value);

/*
 * The catalogs: loaded on the first call, then the same answer (the
 * catalog, or NULL with the same *err) every time.
 */
struct btf *target_btf(struct target *t, const char **err);
const struct tp_catalog *target_tracepoints(struct target *t,
					    const char **err);
const struct kf_catalog *target_functions(struct target *t, const char **err);
struct dwloc_file *target_dwarf(struct target *t, const char **err);

/* The exported function whose address, here and at link time, gives the
 * kernel's load offset (KASLR) to a program that names a kernel address
 * without placing a probe there (kernel.data, @var). */
#define TARGET_KERNEL_ANCHOR "kfree"

/*
 * The types of the module file PATH (a .ko, .ko.xz, .ko.gz or .ko.zst
 * under modules_dir): its .BTF section added to target_btf()'s on the
 * first call (btf_add_module; the blob is cached as CACHE/RELEASE/btf-NAME
 * while the module file keeps its size and mtime), then the same answer:
 * the module's scope
 * for btf_find_type_in(), or 0 with *err (the target's) saying why not.
 */
int target_module_btf(struct target *t, const char *path, const char **err);

/* The file of module NAME ("watchdog", "nf_tables": '-' and '_' alike)
 * under modules_dir, or NULL; the target's. */
const char *target_module_file(struct target *t, const char *name);

/*
 * Free a catalog that is no longer needed (the function catalog is
 * hundreds of MB); asking for it again loads it again.
 */
void target_release_functions(struct target *t);
void target_release_tracepoints(struct target *t);

/*
 * The newest release R with /boot/vmlinuz-R and a build tree, or NULL;
 * static storage. For running a guest when the host cannot load modules.
 */
const char *target_newest_installed(void);

/* Whether RELEASE has a build tree directory at all (with or without a
 * Makefile). */
bool target_has_build_tree(const char *release);

/*
 * Why the running kernel (its /proc and /sys under root: "" for this
 * machine) cannot load our modules: no module support,
 * kernel.modules_disabled, and unless they are signed (stap
 * --sign-module: the kernel then judges the key when it loads one),
 * module.sig_enforce or a kernel lockdown (which refuses unsigned
 * modules); NULL when it can. Static text.
 */
const char *target_host_refusal(const char *root, bool signed_modules);

/* The build tree of RELEASE by the rule above, malloc'ed, or NULL. */
char *target_find_build_dir(const char *release);

#endif /* TARGET_TARGET_H */
