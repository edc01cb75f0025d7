// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's question to the chosen backend (semantic/backend.h): can it run
 * each derived probe? A refusal is an error at the probe point the user
 * wrote, once per point (a wildcard's matches share one), naming a backend
 * built in that takes the probe, so the user knows which --runtime to use.
 */
#include "semantic/backend.h"
#include "semantic/semantic.h"
#include "semantic/elaborate.h"
#include "parser/diag.h"

#include <stdio.h>

/* A backend built in, other than the chosen one, that runs dp; or NULL. */
static const struct backend *backend_taking(const struct session *s,
					    const struct derived_probe *dp)
{
	for (int i = 0; s->backends && s->backends[i]; i++) {
		const struct backend *b = s->backends[i];

		if (b != s->backend && (!b->refuses || !b->refuses(dp)))
			return b;
	}
	return NULL;
}

bool backend_skips(const struct backend *b, const struct program *prog,
		   const struct derived_probe *dp)
{
	if (!b || !b->unplaceable || !dp->user_point ||
	    !point_has_wildcard(dp->user_point) ||
	    !b->unplaceable(dp))
		return false;
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *o = prog->probes[i];

		if (o != dp && o->user_point == dp->user_point &&
		    !b->unplaceable(o))
			return true;
	}
	return false;
}

void backend_drop_skipped(struct session *s, struct program *prog,
			  const struct backend *b)
{
	bool *skip;
	int n = 0;

	if (!b || !b->unplaceable || !prog->nprobes)
		return;
	/* judged before any is dropped: a wildcard keeps its matches that
	 * can be placed, whatever the order */
	skip = arena_alloc(&s->arena, (size_t)prog->nprobes * sizeof(*skip));
	for (int i = 0; i < prog->nprobes; i++)
		skip[i] = backend_skips(b, prog, prog->probes[i]);
	for (int i = 0; i < prog->nprobes; i++) {
		struct derived_probe *dp = prog->probes[i];

		if (!skip[i]) {
			prog->probes[n++] = dp;
			continue;
		}
		if (s->verbose)
			fprintf(stderr, "stap: the %s backend skips probe %s "
				"of a wildcard: %s\n", b->name, dp->pp,
				b->unplaceable(dp));
	}
	prog->nprobes = n;
}

void backend_check(struct session *s, struct program *prog)
{
	const struct backend *b = s->backend;
	const struct node *reported = NULL;

	if (!b || !b->refuses)
		return;
	backend_drop_skipped(s, prog, b);
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const char *why = b->refuses(dp);

		if (!why || dp->point == reported)
			continue;
		reported = dp->point;
		const struct backend *other = backend_taking(s, dp);
		if (other)
			diag_error(s, dp->point->loc, "the %s backend cannot "
				   "run probe %s: %s (the %s backend can: "
				   "--runtime=%s)", b->name, dp->pp, why,
				   other->name, other->name);
		else
			diag_error(s, dp->point->loc, "the %s backend cannot "
				   "run probe %s: %s", b->name, dp->pp, why);
	}
}
