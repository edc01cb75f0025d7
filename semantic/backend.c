// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 2's question to the chosen backend (semantic/backend.h): can it run
 * each derived probe? A refusal is an error at the probe point the user
 * wrote, once per point (a wildcard's matches share one), naming a backend
 * built in that takes the probe, so the user knows which --runtime to use.
 */
#include "semantic/backend.h"
#include "semantic/semantic.h"
#include "parser/diag.h"

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

void backend_check(struct session *s, struct program *prog)
{
	const struct backend *b = s->backend;
	const struct node *reported = NULL;

	if (!b || !b->refuses)
		return;
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
