// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * process.begin/.end, .thread.begin/.thread.end, .syscall and
 * .syscall.return, for process("PATH"), process(PID) or every process
 * (process alone: SystemTap 4.8 probes everything then, -c or -x or not).
 * Each is an ATTACH_PROCESS probe with a task filter (the executable's
 * resolved path, or the process ID); the backend follows forks, execs
 * and exits itself. Context values: $syscall, $arg1..$arg6 (.syscall)
 * and $return (.syscall.return), longs read from the system call's
 * registers, each a ROOT_ARG recipe over PROC_VALUE_*.
 *
 * Not as 4.8: a PID is not checked against this machine's processes
 * (pass 5 may run in a guest, whose PIDs are its own), only for being
 * positive. $$parms (.syscall) is the six arguments in 4.8's text.
 */
#include "probes/probes.h"
#include "target/userpath.h"

struct process_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
};

static const char *const event_names[] = {
	[PROC_BEGIN] = "begin", [PROC_END] = "end",
	[PROC_THREAD_BEGIN] = "thread.begin",
	[PROC_THREAD_END] = "thread.end",
	[PROC_SYSCALL] = "syscall",
	[PROC_SYSCALL_RETURN] = "syscall.return",
};

/* The event the components after process(...) name, or -1. */
static int event_of(const struct node *c)
{
	if (!c || c->comp.arg)
		return -1;
	if (comp_is(c, "thread") && c->next && !c->next->comp.arg &&
	    !c->next->next)
		return comp_is(c->next, "begin") ? PROC_THREAD_BEGIN :
		       comp_is(c->next, "end") ? PROC_THREAD_END : -1;
	if (comp_is(c, "syscall") && !c->next)
		return PROC_SYSCALL;
	if (comp_is(c, "syscall") && comp_is(c->next, "return") &&
	    !c->next->comp.arg && !c->next->next)
		return PROC_SYSCALL_RETURN;
	if (c->next)
		return -1;
	return comp_is(c, "begin") ? PROC_BEGIN :
	       comp_is(c, "end") ? PROC_END : -1;
}

/*
 * process[("PATH")|(PID)].EVENT: the filter, and the point as SystemTap
 * names it after resolving (process("/usr/bin/ls").syscall).
 */
static int derive(struct sema *se, struct node *point,
		  struct derived_probe *dp)
{
	struct node *proc = point->point.comps;
	struct arena *a = &se->s->arena;
	int event = event_of(proc->next);
	const char *who = "process";

	if (event < 0)
		return -1;	/* .function, .mark ...: another family's */
	dp->attach.kind = ATTACH_PROCESS;
	dp->attach.process.event = (enum process_event)event;
	if (is_str_arg(proc)) {
		const char *path = proc->comp.arg->str.value;
		if (!*path)
			return point_error(se, point, proc, "empty module");
		dp->attach.filter.exe = userpath_program(a, path);
		who = arena_printf(a, "process(\"%s\")",
				   dp->attach.filter.exe);
	} else if (is_num_arg(proc)) {
		int64_t pid = proc->comp.arg->num.value;
		if (pid <= 0)
			return point_error(se, point, proc, arena_printf(a,
					   "cannot probe pid %lld: Invalid pid",
					   (long long)pid));
		dp->attach.filter.pid = pid;
		who = arena_printf(a, "process(%lld)", (long long)pid);
	} else if (proc->comp.arg) {
		return -1;
	}
	dp->pp = arena_printf(a, "%s.%s", who, event_names[event]);
	return 1;
}

/* The events of the body's probes: which values they have. */
static void body_events(struct sema *se, bool *entry, bool *ret, bool *other)
{
	int n;
	const struct derived_probe *const *dps =
		body_probes(se->prog, sema_ctx(se), &n);

	*entry = *ret = *other = false;
	for (int i = 0; i < n; i++) {
		enum process_event e = dps[i]->attach.process.event;
		if (e == PROC_SYSCALL)
			*entry = true;
		else if (e == PROC_SYSCALL_RETURN)
			*ret = true;
		else
			*other = true;
	}
}

/* $$parms of process.syscall, as SystemTap 4.8 writes it: the six
 * argument registers, sprintf("$arg1=%#x ... $arg6=%#x", $arg1, ...). */
static enum type syscall_parms(struct sema *se, struct node *n)
{
	struct arena *a = &se->s->arena;
	struct node *f = ast_new(se->s, N_STRING, n->loc);
	struct node *args = f;

	f->str.value = "$arg1=%#x $arg2=%#x $arg3=%#x $arg4=%#x $arg5=%#x "
		       "$arg6=%#x";
	f->str.len = strlen(f->str.value);
	for (int k = 1; k <= 6; k++) {
		struct node *v = ast_new(se->s, N_TARGET, n->loc);
		v->target.name = arena_printf(a, "$arg%d", k);
		args = ast_append(args, v);
	}
	n->kind = N_PRINT;
	n->print.kind = PRINT_SPRINTF;
	n->print.args = args;
	n->sym = NULL;
	return infer(se, n, TY_STRING);
}

/* $syscall, $argN, $return: SystemTap 4.8's checks and messages (op: an
 * assignment's operator, else 0). */
static enum type process_context(struct sema *se, struct node *n, int op)
{
	const char *root = context_root(n);
	struct probe_body *b = sema_ctx(se);
	bool entry, ret, other;
	const char *msg = NULL, *name = root;
	int value = -1;

	n->type = TY_LONG;
	if (!root)
		return TY_LONG;
	body_events(se, &entry, &ret, &other);
	bool argn = !strncmp(root, "$arg", 4) && root[4];
	const char *base;
	/* $$parms$ and $$parms$$ are $$parms: the values are numbers */
	bool parms = (pretty_suffix(&se->s->arena, root, &base),
		      !strcmp(base, "$$parms"));
	bool known = argn || parms ||
		     !strcmp(root, "$return") || !strcmp(root, "$syscall");
	if (other)
		msg = "only \"process(PATH_OR_PID).syscall\" and "
		      "\"process(PATH_OR_PID).syscall.return\" probes "
		      "support target symbols";
	else if (known && context_step(n))
		msg = arena_printf(&se->s->arena, "utrace variable '%s' may "
				   "not be used as %s", root,
				   context_step(n)->kind == N_TMEMBER ?
				   "a structure" : "array");
	else if (argn || parms) {
		char *end;
		long k = strtol(root + 4, &end, 10);
		if (ret)
			msg = "only \"process(PATH_OR_PID).syscall\" support "
			      "$argN or $$parms.";
		else if (!argn)
			;	/* $$parms: rewritten below */
		else if (*end || k < 1 || k > 6)
			msg = "invalid syscall argument number (1-6)";
		else {
			value = PROC_VALUE_ARG1 + (int)k - 1;
			name = "$argN";
		}
	} else if (!strcmp(root, "$return")) {
		if (entry)
			msg = "only \"process(PATH_OR_PID).syscall.return\" "
			      "support $return.";
		else
			value = PROC_VALUE_RETURN;
	} else if (!strcmp(root, "$syscall")) {
		value = PROC_VALUE_SYSCALL;
	} else {
		msg = "invalid target symbol for utrace probe, $syscall, "
		      "$return, $argN or $$parms expected";
	}
	if (!msg && op)
		msg = arena_printf(&se->s->arena, "utrace '%s' variable is "
				   "read-only", name);
	/* the variable, as SystemTap's "identifier '$x'" names it */
	if (msg)
		msg = arena_printf(&se->s->arena, "%s: '%s'", msg, root);
	if (msg) {
		if (se->report)
			diag_error(se->s, n->loc, "%s", msg);
		return TY_LONG;
	}
	(void)value;
	if (parms)
		return syscall_parms(se, n);
	for (int i = 0; i < b->nctxvars; i++)
		if (!strcmp(b->ctxvars[i]->name, root)) {
			n->sym = b->ctxvars[i];
			return TY_LONG;
		}
	n->sym = add_context_slot(se, b, n, root);
	return TY_LONG;
}

static enum type context(struct sema *se, struct node *n, bool addr_of)
{
	if (addr_of) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot take address of "
				   "utrace variable");
		return TY_LONG;
	}
	return process_context(se, n, 0);
}

static bool context_assign(struct sema *se, struct node *assign,
			   enum type *type)
{
	struct node *rhs = assign->binary.rhs;

	*type = process_context(se, assign->binary.lhs, assign->binary.op);
	expect(se, rhs, infer(se, rhs, *type), *type);
	return true;
}

/* @defined($x): what the checks above accept here. */
static int defined(struct sema *se, struct node *n)
{
	const char *root = n->target.name;
	bool entry, ret, other;

	body_events(se, &entry, &ret, &other);
	if (other)
		return 0;
	if (!strcmp(root, "$syscall"))
		return 1;
	if (!strcmp(root, "$return"))
		return !entry;
	if (!strncmp(root, "$arg", 4) && root[4] >= '1' && root[4] <= '6' &&
	    !root[5])
		return !ret;
	return 0;
}

/* Each context value as the event's value PROC_VALUE_*. */
static void describe(const struct program *prog, struct derived_probe *dp)
{
	const struct probe_body *b = dp->body;
	struct arena *a = &prog->s->arena;
	struct attach *at = &dp->attach;

	if (!b->nctxvars)
		return;
	const struct value_recipe **values = arena_alloc(a, (size_t)
		b->nctxvars * sizeof(*values));
	for (int k = 0; k < b->nctxvars; k++) {
		const char *name = b->ctxvars[k]->name;
		struct value_recipe *r = arena_alloc(a, sizeof(*r));

		r->root = ROOT_ARG;
		r->arg = !strcmp(name, "$syscall") ? PROC_VALUE_SYSCALL :
			 !strcmp(name, "$return") ? PROC_VALUE_RETURN :
			 PROC_VALUE_ARG1 + atoi(name + 4) - 1;
		r->size = 8;
		r->is_signed = true;
		r->space = SPACE_KERNEL;
		values[k] = r;
	}
	at->values = values;
	at->nvalues = b->nctxvars;
}

static const char *const roots[] = { "process", NULL };
static const char *const probe_types[] = {
	"process.begin", "process.end", "process.syscall",
	"process.syscall.return", "process.thread.begin",
	"process.thread.end", "process(number).begin",
	"process(number).end", "process(number).syscall",
	"process(number).syscall.return", "process(number).thread.begin",
	"process(number).thread.end", "process(string).begin",
	"process(string).end", "process(string).syscall",
	"process(string).syscall.return", "process(string).thread.begin",
	"process(string).thread.end", NULL,
};

const struct probe_family process_family = {
	.point_size = sizeof(struct process_probe),
	.name = "process",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
	.context = context,
	.context_assign = context_assign,
	.defined = defined,
	.has_return = true,
	.describe = describe,
};
