/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel tracepoint catalog for kernel.trace("SYSTEM:NAME").
 *
 * The catalog is read from the kernel headers' text, without compiling
 * anything: every trace header SystemTap would look at (the .h files of
 * include/trace/events, arch/ARCH/include/asm/trace, ...) is run through a
 * small preprocessor that evaluates #if against the build tree's .config,
 * expands the header's own macros, and picks up TRACE_EVENT /
 * DEFINE_EVENT / DECLARE_TRACE and their variants. TP_PROTO gives the
 * arguments, whose types are printed the way SystemTap prints them from
 * DWARF
 * ("struct task_struct*", "char const*", "long unsigned int").
 *
 * The parsed catalog is cached as a text file in cache_dir, keyed by the
 * release and a hash of the headers' paths, sizes and mtimes (and of the
 * .config), and rebuilt when any of them changes.
 *
 * A header describes a subsystem's tracepoints whether or not the kernel
 * was built with it, so the catalog then keeps only the tracepoints the
 * kernel defines: a __tracepoint_NAME symbol in the debug vmlinux or a
 * module under /lib/modules/RELEASE (tp_syms.h, cached on its own).
 * Without a debug vmlinux, or when a module cannot be read, nothing is
 * dropped (defined_from says so).
 *
 * Memory: everything a catalog holds lives in its own arena (c->arena);
 * tp_catalog_free() releases it at once. The array returned by
 * tp_catalog_match() is malloc'ed and must be free()d by the caller.
 */
#ifndef TARGET_TRACEPOINTS_H
#define TARGET_TRACEPOINTS_H

#include "lib/arena.h"

struct tp_arg {
	const char *name;	/* "prev" */
	const char *c_type;	/* "struct task_struct*": stap spelling */
};

struct tracepoint_info {
	const char *system;	/* TRACE_SYSTEM: "sched" */
	const char *name;	/* "sched_switch" */
	struct tp_arg *args;
	int nargs;
	/* TP_PROTO's parameter list as C ("bool preempt, struct task_struct
	 * *prev, ..."), or "void": an exact callback prototype is
	 * "void cb(void *data, <proto>)" (without ", <proto>" for "void"). */
	const char *proto;
	/* What to #include in the module: "trace/events/sched.h",
	 * "asm/trace/fpu.h"; an absolute path for a header outside an
	 * include directory. */
	const char *header;
	int args_ok;		/* 0: prototype not understood, no args */
	/* 1: defined by a module only (armed when the module is loaded);
	 * set by tp_catalog_drop_undefined, 0 when it could not tell */
	int in_module;
	/* in_module: the module file defining it, whose BTF types the
	 * arguments a struct of the module's (target_module_btf) */
	const char *module;
};

struct tp_catalog {
	struct tracepoint_info *tps;	/* sorted by system:name, unique */
	int n;
	int n_noargs;		/* tracepoints with args_ok == 0 */
	int n_headers;		/* trace headers scanned */
	int from_cache;		/* 1 when loaded from the cache file */
	int n_dropped;		/* tracepoints the kernel does not define */
	/* Whether tracepoints were judged by the kernel's symbols: "debug
	 * vmlinux and N modules", or why not ("no debug vmlinux ..."). */
	const char *defined_from;
	struct arena arena;	/* owns everything above */
};

/*
 * Load the catalog of every tracepoint the headers of kernel RELEASE
 * declare (none dropped: see tp_catalog_drop_undefined). build_dir defaults (NULL) to the
 * release's build tree (target.h); cache_dir NULL disables the cache (a cache
 * that cannot be written is silently skipped). Returns 0, or -1 with a
 * malloc'ed message in *err.
 */
int tp_catalog_load(const char *release, const char *build_dir,
		    const char *cache_dir, struct tp_catalog *out, char **err);

/* The same for a target (its build tree, .config and cache directory):
 * target_tracepoints() is the remembering front end, which also drops
 * what the kernel does not define. */
struct target;
int tp_catalog_build(struct target *t, struct tp_catalog *out, char **err);

/*
 * Keep only the tracepoints the target's kernel defines (tp_syms.h), in
 * catalog order; n_dropped counts the others. Sets defined_from; drops
 * nothing when the kernel's symbols cannot be read.
 */
void tp_catalog_drop_undefined(struct target *t, struct tp_catalog *c);

/*
 * Match "SYSTEM:NAME" or "NAME" (any system), fnmatch wildcards in both
 * parts. *out gets a malloc'ed array of the matches, in catalog order
 * (sorted by system:name); returns their number.
 */
int tp_catalog_match(const struct tp_catalog *c, const char *pattern,
		     const struct tracepoint_info ***out);

/* Find one tracepoint exactly, or NULL. */
const struct tracepoint_info *tp_catalog_find(const struct tp_catalog *c,
					      const char *system,
					      const char *name);

void tp_catalog_free(struct tp_catalog *c);


#endif /* TARGET_TRACEPOINTS_H */
