/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3: the locks event probes take on globals (see locks.c for the
 * design): one rwlock per shared global (a statistic: one lock per CPU),
 * a per-handler list in global order, in read or write mode.
 */
#ifndef CODEGEN_LOCKS_H
#define CODEGEN_LOCKS_H

#include <stdbool.h>
#include <stdio.h>

#include "semantic/semantic.h"

/* One global a scope touches, directly or through its callees. */
struct lock_access {
	int global;			/* its index */
	unsigned char acc;		/* access bits (locks.c), never 0 */
};

struct lock_scope {
	struct lock_access *acc;	/* in global order */
	int n;
};

struct lock_plan {
	const struct program *prog;
	struct lock_scope *scope;	/* [body index, then nbodies + function
					 * index] */
	unsigned char *locked;		/* [global]: has a lock */
	int *counter;			/* [global]: 1 + its counter slot, or
					 * 0: not a counter (see locks.c) */
	int ncounters;
	unsigned char *event_body;	/* [body]: some event probe runs it */
};

void lock_plan_build(struct lock_plan *lp, const struct program *prog);
void lock_plan_free(struct lock_plan *lp);
/* The counter slot of a global, or -1 when it is no counter. */
int lock_plan_counter(const struct lock_plan *lp, const struct symbol *sym);
/* The global a counter statement (`n++;`, `n += e;`, ...) counts in, when
 * stmt is one: an N_VAR node, or NULL. */
const struct node *count_target(const struct node *stmt);
/* The locks and each event handler's stp_lock list (after the globals). */
void lock_plan_emit_locks(const struct lock_plan *lp, FILE *out);
/* How many locks body b's hits take. */
int lock_plan_nlocks(const struct lock_plan *lp, int b);
/* ",\n\t  .locks = ..., .nlocks = N" for dp's probe table entry, or nothing. */
void lock_plan_table_fields(const struct lock_plan *lp,
			    const struct derived_probe *dp, FILE *out);

#endif /* CODEGEN_LOCKS_H */
