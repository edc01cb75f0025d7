// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * begin, end, error and never (with an optional priority: begin(N)): the
 * probes the runtime runs itself, at start, at stop, and at stop after a
 * fatal error; never is checked and then dropped. They have no context
 * values.
 */
#include "probes/probes.h"
#include "module/emit.h"

struct once_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	enum { ONCE_BEGIN, ONCE_END, ONCE_ERROR, ONCE_NEVER } when;
	int64_t priority;		/* begin(N) ...: the order they run in */
};

static struct once_probe *once_of(const struct derived_probe *dp)
{
	return (struct once_probe *)dp;
}

static int derive(struct sema *se, struct node *point, struct derived_probe *dp)
{
	struct node *c0 = point->point.comps;
	const char *name = c0->comp.name;

	struct once_probe *o = once_of(dp);

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
		once_of(dp)->priority = c0->comp.arg->num.value;
	}
	return true;
}

static const char *const roots[] = { "begin", "end", "error", "never", NULL };
static const char *const probe_types[] = {
	"begin", "begin(number)", "end", "end(number)", "error",
	"error(number)", "never", NULL,
};

/* ---- the kernel module ---------------------------------------------- */

static const char *probe_type(const struct derived_probe *dp)
{
	switch (once_of(dp)->when) {
	case ONCE_BEGIN: return "STP_PROBE_BEGIN";
	case ONCE_END: return "STP_PROBE_END";
	case ONCE_ERROR: return "STP_PROBE_ERROR";
	default: return NULL;	/* never: checked, then dropped */
	}
}

/* the runtime runs begin, end and error probes by ascending priority */
static void head_fields(struct cg *cg, int i, FILE *out)
{
	const struct derived_probe *dp = cg->prog->probes[i];

	if (once_of(dp)->priority)
		fprintf(out, ",\n\t  .priority = %" PRId64 "LL", once_of(dp)->priority);
}

static const struct family_emit module = {
	.probe_type = probe_type,
	.head_fields = head_fields,
};

const struct probe_family begin_end_family = {
	.name = "begin",
	.point_size = sizeof(struct once_probe),
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
	.module = &module,
};
