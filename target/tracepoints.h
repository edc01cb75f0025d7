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
};

struct tp_catalog {
	struct tracepoint_info *tps;	/* sorted by system:name, unique */
	int n;
	int n_noargs;		/* tracepoints with args_ok == 0 */
	int n_headers;		/* trace headers scanned */
	int from_cache;		/* 1 when loaded from the cache file */
	struct arena arena;	/* owns everything above */
};

/*
 * Load the catalog for kernel RELEASE. build_dir defaults (NULL) to the
 * release's build tree (target.h); cache_dir NULL disables the cache (a cache
 * that cannot be written is silently skipped). Returns 0, or -1 with a
 * malloc'ed message in *err.
 */
int tp_catalog_load(const char *release, const char *build_dir,
		    const char *cache_dir, struct tp_catalog *out, char **err);

/* The same for a target (its build tree, .config and cache directory):
 * target_tracepoints() is the remembering front end. */
struct target;
int tp_catalog_build(struct target *t, struct tp_catalog *out, char **err);

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
