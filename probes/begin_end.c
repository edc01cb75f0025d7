// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * begin, end, error and never (with an optional priority: begin(N)): the
 * probes the runtime runs itself, at start, at stop, and at stop after a
 * fatal error; never is checked and then dropped. They have no context
 * values.
 */
#include "probes/probes.h"

static int derive(struct sema *se, struct node *point, struct derived_probe *dp)
{
	struct node *c0 = point->point.comps;
	const char *name = c0->comp.name;

	struct attach_once *o = &dp->attach.once;

	dp->attach.kind = ATTACH_ONCE;
	o->when = !strcmp(name, "begin") ? ONCE_BEGIN :
		  !strcmp(name, "end") ? ONCE_END :
		  !strcmp(name, "error") ? ONCE_ERROR : ONCE_NEVER;
	if (c0->next)
		return point_error(se, point, c0->next, "unexpected "
				   "component after this probe point");
	if (c0->comp.arg) {
		if (c0->comp.arg->kind != N_NUMBER || o->when == ONCE_NEVER)
			return point_error(se, point, c0, o->when == ONCE_NEVER ?
					   "'never' takes no argument" :
					   "the priority must be a number");
		o->priority = c0->comp.arg->num.value;
	}
	return true;
}

static const char *const roots[] = { "begin", "end", "error", "never", NULL };
static const char *const probe_types[] = {
	"begin", "begin(number)", "end", "end(number)", "error",
	"error(number)", "never", NULL,
};

const struct probe_family begin_end_family = {
	.name = "begin",
	.point_size = sizeof(struct derived_probe),
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
};
