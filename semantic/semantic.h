/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 2: resolve names, derive probe points, infer types. The result is
 * a struct program that pass 3 translates. Nothing here allocates AST
 * nodes; it annotates them (node.type, node.sym).
 */
#ifndef SEMANTIC_SEMANTIC_H
#define SEMANTIC_SEMANTIC_H

#include <stdint.h>
#include <stdio.h>

#include "parser/parser.h"

enum sym_kind {
	SYM_GLOBAL,
	SYM_LOCAL,		/* probe local (function locals later) */
	SYM_BUILTIN,		/* a function the compiler provides */
};

#define MAX_KEYS 9

struct symbol {
	const char *name;
	enum sym_kind kind;
	enum type type;			/* value type */
	struct srcloc type_loc;		/* where the type was first inferred */
	struct srcloc loc;		/* declaration or first use */
	struct node *decl;		/* N_GLOBAL, or NULL */
	int nkeys;			/* > 0: an array with these keys */
	enum type key_types[MAX_KEYS];
	int index;			/* for names in generated C */
	bool written, read;
	/* SYM_BUILTIN */
	int nargs;			/* -1: variadic */
	enum type arg_types[4];
	const char *c_expr;		/* how pass 3 computes it */
};

enum probe_family {
	PF_BEGIN, PF_END, PF_ERROR, PF_NEVER, PF_TIMER, PF_TRACEPOINT,
};

/* One probe point of a probe, resolved: what the runtime registers. */
struct derived_probe {
	struct node *point;		/* the user's N_PROBE_POINT */
	struct probe_body *body;
	enum probe_family family;
	const char *pp;			/* canonical point, e.g. timer.s(1) */
	int64_t priority;		/* begin(N)/end(N) */
	uint64_t period_ns;		/* timers */
	const char *tp_system, *tp_name; /* tracepoints */
};

/* A probe handler: one body shared by its derived probes. */
struct probe_body {
	struct node *probe;		/* N_PROBE */
	struct symbol **locals;
	int nlocals, locals_cap;
	int index;			/* stp_probe_<index> */
	bool reads_globals, writes_globals;
};

struct program {
	struct session *s;
	struct ast_file **files;
	int nfiles;
	struct symbol **globals;
	int nglobals, globals_cap;
	struct symbol **builtins_used;
	int nbuiltins_used, builtins_used_cap;
	struct probe_body **bodies;
	int nbodies, bodies_cap;
	struct derived_probe **probes;
	int nprobes, probes_cap;
};

/* Elaborate the parsed files; returns the number of errors. */
int sema_run(struct session *s, struct ast_file **files, int nfiles,
	     struct program *out);

/* -p2 listing: globals, functions and probes with their types. */
void sema_dump(FILE *out, const struct program *prog);

#endif /* SEMANTIC_SEMANTIC_H */
