/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A backend turns an elaborated program into something that runs: the
 * kernel-module backend (module/) today, a BPF one later. Each fills one
 * struct backend; the driver (stap/) picks one (--runtime) and calls its
 * steps in pass order, and pass 2 asks it about every derived probe, so a
 * script it cannot run fails at the probe point, naming a backend that
 * can. Families (probes/) never see a backend, nor a backend a family.
 */
#ifndef SEMANTIC_BACKEND_H
#define SEMANTIC_BACKEND_H

#include "parser/session.h"
#include "lib/files.h"

#include <sys/types.h>

struct derived_probe;
struct program;
struct backend;

/*
 * One run of stap, as the driver hands it to the backend's steps: the
 * paths and options any backend uses, then what each step made. What
 * only one backend uses (the module backend's -B, -R, --sign-module,
 * its guest, its units) is that backend's own struct, reached through
 * own (module/backend.h: struct module_run).
 */
struct driver {
	struct session *s;
	const struct backend *backend;	/* the one passes 3-5 use */
	void *own;			/* the backend's own options and
					 * state (the driver sets it) */
	char *source;			/* pass 3's output, source_len bytes
					 * (malloc'd: -p3 prints it) */
	size_t source_len;
	const char *exe_dir;		/* directory of the stap binary */
	const char *runtime_dir;	/* runtime/ with runtime.h (the module
					 * backend builds it in, the BPF loader
					 * uses its regex.h) */
	const char *tmpdir;		/* per-run work directory */
	char *ko_path;			/* result of pass 4 (-p4 prints it) */
	const char *flame_svg;		/* --flame: the SVG to write */
	const char *flame_title;	/* its title */
	const char *tmpdir_opt;		/* --tmpdir=DIR */
};

struct backend {
	const char *name;		/* as --runtime names it: "kernel" */
	/* Pass 2: why this backend cannot run dp (for the error at its
	 * point): its attach kind, or something its body (dp->body) uses;
	 * NULL: it can. */
	const char *(*refuses)(const struct derived_probe *dp);
	/* Pass 2: why the running kernel cannot place dp's point (it
	 * refuses its attach kind: an fentry program on a kernel that
	 * loads none), NULL if it can; NULL member: always can. A
	 * wildcard's match that cannot be placed is skipped when the
	 * wildcard has matches that can (backend_skips). */
	const char *(*unplaceable)(const struct derived_probe *dp);
	/* After pass 2: what pass 3 needs of the options (may fail with a
	 * message: 0 on success). */
	int (*prepare)(struct driver *d);
	/* Pass 3: the program as the backend's source, into d->source; 0
	 * on success, else errors were reported in the session. */
	int (*translate)(struct driver *d, struct program *prog);
	/* Pass 4: d->source, built in d->tmpdir; d->ko_path the result.
	 * 0 on success, else it said why. */
	int (*build)(struct driver *d);
	/* Pass 5: run it (here, or in a guest when d->use_vm); the script's
	 * exit status. */
	int (*run)(struct driver *d);
	/* -v's words for passes 3 and 4: "translated to C" ... */
	const char *translated, *built;
};

/*
 * Pass 2, after the families' last checks: an error at the point of
 * every derived probe that s->backend refuses, naming another of
 * s->backends that takes it, if any. Nothing when s->backend is NULL.
 */
void backend_check(struct session *s, struct program *prog);

/*
 * Whether b skips dp: a match of a wildcard the script wrote (syscall.*)
 * that b cannot place on the running kernel while others of the same
 * point it can, as SystemTap skips the functions of a wildcard it cannot
 * probe; a point named without a wildcard, or a wildcard none of whose
 * matches can be placed, is refused instead (an error).
 */
bool backend_skips(const struct backend *b, const struct program *prog,
		   const struct derived_probe *dp);

/* Drops from prog the probes b skips, saying which at -v. */
void backend_drop_skipped(struct session *s, struct program *prog,
			  const struct backend *b);

#endif /* SEMANTIC_BACKEND_H */
