// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.type(N).config(M)[.sample(N)][.counter("NAME")]: a perf event on
 * every CPU (ATTACH_PERF). Sampled, the body runs once per N events
 * (1,000,000 by default; .hz(N) instead: N times a second); with .counter("NAME") the event only counts,
 * the body never runs, and @perf("NAME") in any probe reads the count of
 * the CPU it runs on. perf.hw.*, perf.sw.* and perf.hw_cache.* are
 * aliases of tapsets/linux/perf.stp. .process("PATH") (or .process: the
 * -c/-x target) makes it an event per task of that program (the task
 * filter says which; the runtime makes one as each task execs it or is
 * created); @perf of such a counter must be in probes on that program
 * (process events, or its functions and marks), as SystemTap checks.
 */
#include "probes/probes.h"

#include "target/userpath.h"

extern const struct probe_family perf_family;

struct perf_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	struct node *process;		/* its .process component, or NULL */
};

static struct perf_probe *perf_of(const struct derived_probe *dp)
{
	return (struct perf_probe *)dp;
}

static int derive(struct sema *se, struct node *point,
		  struct derived_probe *dp)
{
	struct node *c = point->point.comps->next;
	struct attach_perf *pe = &dp->attach.perf;

	if (!comp_is(c, "type") || !is_num_arg(c) ||
	    !comp_is(c->next, "config") || !is_num_arg(c->next))
		return -1;
	dp->attach.kind = ATTACH_PERF;
	pe->type = (uint32_t)c->comp.arg->num.value;
	pe->config = (uint64_t)c->next->comp.arg->num.value;
	pe->sample = 1000000;
	c = c->next->next;
	if (comp_is(c, "sample")) {
		if (!is_num_arg(c))
			return -1;
		if (c->comp.arg->num.value <= 0)
			return point_error(se, point, c->comp.arg, arena_printf(
					   &se->s->arena, "invalid perf sample "
					   "period %" PRId64,
					   c->comp.arg->num.value));
		pe->sample = (uint64_t)c->comp.arg->num.value;
		c = c->next;
	} else if (comp_is(c, "hz")) {
		if (!is_num_arg(c))
			return -1;
		if (c->comp.arg->num.value <= 0)
			return point_error(se, point, c->comp.arg, arena_printf(
					   &se->s->arena, "invalid perf sample "
					   "frequency %" PRId64,
					   c->comp.arg->num.value));
		/* SystemTap names the point .sample(N) all the same */
		pe->sample = (uint64_t)c->comp.arg->num.value;
		pe->freq = true;
		c = c->next;
	}
	struct node *proc = NULL;
	if (comp_is(c, "process")) {
		if (c->comp.arg && !is_str_arg(c))
			return -1;
		proc = c;
		/* none: the -c command's program (4.8 names it), or "": the
		 * -x process */
		const char *cmd = se->s->target_cmd;
		if (!c->comp.arg && cmd)
			cmd += strspn(cmd, " \t");
		dp->attach.filter.exe = !c->comp.arg && cmd ?
					userpath_program(&se->s->arena,
						arena_strndup(&se->s->arena, cmd,
							      strcspn(cmd, " \t"))) :
					!c->comp.arg ? "" :
					!*c->comp.arg->str.value ? "" :
					userpath_program(&se->s->arena,
							 c->comp.arg->str.value);
		if (!c->comp.arg && !se->s->target_cmd && !se->s->target_pid)
			return point_error(se, point, c, arena_printf(
					   &se->s->arena, "probe point not "
					   "available without -c COMMAND or -x "
					   "PID (it names no program): '%s'",
					   dp->pp));
		c = c->next;
	}
	if (comp_is(c, "counter")) {
		if (!is_str_arg(c))
			return -1;
		if (!*c->comp.arg->str.value)
			return point_error(se, point, c, "missing perf probe "
					   "counter component name");
		pe->counter = c->comp.arg->str.value;
		pe->sample = 0;
		c = c->next;
	}
	if (c)
		return -1;
	perf_of(dp)->process = proc;
	/* SystemTap's -p2 names the point as aliases expanded it */
	dp->pp_from = point_string(se, point);
	const char *exe = dp->attach.filter.exe;
	dp->pp = arena_printf(&se->s->arena, "perf.type(%" PRIu32 ").config(%"
			      PRIu64 ").sample(%" PRIu64 ")%s%s%s%s%s%s%s",
			      pe->type, pe->config, pe->sample,
			      exe ? ".process" : "", exe && *exe ? "(\"" : "",
			      exe && *exe ? exe : "", exe && *exe ? "\")" : "",
			      pe->counter ? ".counter(\"" : "",
			      pe->counter ? pe->counter : "",
			      pe->counter ? "\")" : "");
	return true;
}

/* The derived perf probe that declares counter name, or NULL. */
static const struct derived_probe *counter_probe(const struct program *prog,
						 const char *name)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];

		if (dp->family == &perf_family && dp->attach.perf.counter &&
		    !strcmp(dp->attach.perf.counter, name))
			return dp;
	}
	return NULL;
}

/* Do the probes of the body being checked run in process exe only? */
static bool in_process(struct sema *se, const char *exe)
{
	const struct probe_body *b = sema_ctx(se);
	bool any = false;

	for (int i = 0; b && i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];

		if (dp->body != b)
			continue;
		/* a process event's program, or a user function's */
		const char *prog = dp->attach.filter.exe;
		if (!prog && dp->family->var_user)
			prog = dp->family->var_user(dp);
		if (!prog || strcmp(prog, exe))
			return false;
		any = true;
	}
	return any;
}

/*
 * @perf("NAME"), in any probe: the count of the counter a
 * perf....counter("NAME") point declares, on the CPU the probe runs on.
 */
static bool at_func(struct sema *se, struct node *n, enum type want,
		    enum type *type)
{
	const struct node *arg = n->call.args;
	const struct derived_probe *c;

	(void)want;
	if (strcmp(n->call.name, "@perf"))
		return false;
	*type = n->type = TY_LONG;
	if (!se->report)
		return true;
	if (!arg || arg->next || arg->kind != N_STRING)
		diag_error(se->s, n->loc, "@perf takes one literal string: "
			   "@perf(\"NAME\")");
	else if (!(c = counter_probe(se->prog, arg->str.value)))
		diag_error(se->s, n->loc, "perf counter '%s' not defined (no "
			   "perf....counter(\"%s\") point declares it)",
			   arg->str.value, arg->str.value);
	else if (c->attach.filter.exe && !in_process(se, c->attach.filter.exe))
		diag_error(se->s, n->loc, "perf counter '%s' not defined for "
			   "the process this probe runs in", arg->str.value);
	return true;
}

/* A counter's probe is kept even with an empty body (the usual one):
 * @perf reads its event. */
static void finish(struct sema *se)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];

		if (dp->family != &perf_family)
			continue;
		if (dp->attach.perf.counter)
			dp->body->kept = true;
	}
}

static const char *const roots[] = { "perf", NULL };
static const char *const probe_types[] = {
	"perf.type(number).config(number)",
	"perf.type(number).config(number).counter(string)",
	"perf.type(number).config(number).hz(number)",
	"perf.type(number).config(number).sample(number)",
	NULL,
};

const struct probe_family perf_family = {
	.point_size = sizeof(struct perf_probe),
	.name = "perf",
	.roots = roots,
	.tapset_aliases = true,		/* perf.hw.*, perf.sw.* (perf.stp) */
	.probe_types = probe_types,
	.derive = derive,
	.at_func = at_func,
	.finish = finish,
};
