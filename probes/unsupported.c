// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The family SystemTap has beyond ours: process(...). Its points and
 * context variables are checked as SystemTap checks them, the bodies are
 * elaborated, and then each point is reported as not supported yet: a
 * script that uses them fails at pass 2 for that reason alone.
 */
#include "probes/probes.h"

/* The context variables of a point, as SystemTap has them. */
enum point_ctx {
	CTX_NONE,			/* none at all */
	CTX_SYSCALL,			/* process.syscall: $syscall, $argN */
	CTX_SYSCALL_RETURN,		/* .syscall.return: $syscall, $return */
	CTX_UNCHECKED,			/* from a binary's DWARF: unknown */
	CTX_PLT,			/* process.plt: $$name only */
};


extern const struct probe_family unsupported_family;

struct other_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	const char *message;		/* the error that says it is refused */
	enum point_ctx ctx;
	const char *process;		/* process("PATH") */
};

static struct other_probe *other_of(const struct derived_probe *dp)
{
	return (struct other_probe *)dp;
}

/* Record a point of a family pass 3 cannot translate: its body is still
 * checked, then the point is an error (report_unsupported). */
static int unsupported(struct sema *se, struct node *point,
		       struct derived_probe *dp, const char *family,
		       enum point_ctx ctx)
{
	if (point->point.optional || se->optional)
		return false;	/* resolves to nothing */
	other_of(dp)->message = arena_printf(&se->s->arena, "%s probes are not "
				       "supported yet ('%s')", family, dp->pp);
	other_of(dp)->ctx = ctx;
	return true;
}

/* process[("PATH")|(PID)] needs a program: its own or -c / -x. */
static bool process_target(struct sema *se, struct node *point,
			   struct node *proc, struct derived_probe *dp)
{
	if (proc->comp.arg) {
		other_of(dp)->process = proc->comp.arg->kind == N_STRING ?
			      proc->comp.arg->str.value :
			      arena_printf(&se->s->arena, "%lld",
					   (long long)proc->comp.arg->num.value);
		/* its program, for @perf of a perf...process counter */
		if (proc->comp.arg->kind == N_STRING)
			dp->attach.filter.exe = other_of(dp)->process;
		return true;
	}
	if (se->s->target_cmd || se->s->target_pid) {
		dp->attach.filter.exe = "";	/* the -c / -x program */
		return true;
	}
	return point_error(se, point, proc, arena_printf(&se->s->arena,
			   "probe point not available without -c COMMAND or "
			   "-x PID (it names no program): '%s'", dp->pp));
}

/*
 * process(...).begin/.end/.thread.*, .syscall[.return], .function/
 * .statement/.plt/.mark/.library...: checked, then "not supported yet".
 */
static int derive_process(struct sema *se, struct node *point,
			  struct derived_probe *dp)
{
	struct node *proc = point->point.comps, *c = proc->next;
	enum point_ctx ctx;

	if (!c)
		return -1;
	bool binary = comp_is(c, "function") || comp_is(c, "statement") ||
		      comp_is(c, "plt") || comp_is(c, "mark") ||
		      comp_is(c, "library") || comp_is(c, "provider");
	if (binary) {
		/* .function, .plt, .mark...: a binary's symbols and DWARF,
		 * which pass 2 does not read: nothing matches */
		if (!process_target(se, point, proc, dp))
			return false;
		if (!unsupported(se, point, dp, "", comp_is(c, "plt") ?
				 CTX_PLT : CTX_UNCHECKED))
			return false;
		other_of(dp)->message = arena_printf(&se->s->arena, "no match for "
					       "probe point '%s': process(...)."
					       "%s probes are not supported yet",
					       dp->pp, c->comp.name);
		return true;
	}
	if (comp_is(c, "thread") && c->next &&
	    (comp_is(c->next, "begin") || comp_is(c->next, "end")) &&
	    !c->next->comp.arg && !c->next->next)
		ctx = CTX_NONE;
	else if ((comp_is(c, "begin") || comp_is(c, "end")) && !c->comp.arg &&
		 !c->next)
		ctx = CTX_NONE;
	else if (comp_is(c, "syscall") && !c->comp.arg && !c->next)
		ctx = CTX_SYSCALL;
	else if (comp_is(c, "syscall") && !c->comp.arg &&
		 comp_is(c->next, "return") && !c->next->next)
		ctx = CTX_SYSCALL_RETURN;
	else
		return -1;
	if (!process_target(se, point, proc, dp))
		return false;
	return unsupported(se, point, dp, "process", ctx);
}

/*
 * Points of the families SystemTap has beyond ours, with SystemTap's
 * checks; true/false as derive_point, -1: not one of them (or not a
 * shape SystemTap knows), so the caller reports an unknown point.
 */
static int derive_other(struct sema *se, struct node *point,
			struct derived_probe *dp)
{
	const char *name = point->point.comps->comp.name;

	if (!strcmp(name, "process"))
		return derive_process(se, point, dp);
	return -1;
}

/* After the body checks: the points no pass 3 translation exists for. */
static void report_unsupported(struct sema *se)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->family == &unsupported_family)
			diag_error(se->s, dp->point->loc, "%s",
				   other_of(dp)->message);
	}
}

/* Context variables as SystemTap has them for these points; op is 0 for
 * a read, else the assignment operator. */
static enum type other_context(struct sema *se, struct node *n, int op)
{
	/* these families claim a body by its first probe (first_claims) */
	const struct derived_probe *dp = body_first_probe(se->prog, sema_ctx(se));
	enum type type = TY_LONG;

	const char *root = context_root(n);
	if (!root || other_of(dp)->ctx == CTX_UNCHECKED) {
		if (root && root[1] == '$')
			type = TY_STRING;	/* $$parms and the like */
		return n->type = type;	/* the point's own error says enough */
	}
	const struct node *step = context_step(n);
	const char *msg = NULL;
	bool args = other_of(dp)->ctx == CTX_SYSCALL, ret =
		    other_of(dp)->ctx == CTX_SYSCALL_RETURN;
	bool argn = !strncmp(root, "$arg", 4) && root[4] >= '1' &&
		    root[4] <= '6' && !root[5];
	bool known = argn || !strcmp(root, "$return") ||
		     !strcmp(root, "$syscall");
	if (other_of(dp)->ctx == CTX_PLT) {
		type = TY_STRING;
		if (strcmp(root, "$$name") || step || op)
			msg = arena_printf(&se->s->arena, "unknown "
					   "context variable '%s': .plt "
					   "probes have only $$name (the "
					   "function's name)", root);
	} else if (other_of(dp)->ctx == CTX_NONE)
		msg = arena_printf(&se->s->arena, "unknown context "
				   "variable '%s': %s has none", root,
				   dp->pp);
	else if (known && step)
		msg = arena_printf(&se->s->arena, "'%s' cannot be used "
				   "as %s", root, step->kind == N_TMEMBER ?
				   "a structure" : "an array");
	else if (argn && !args)
		msg = arena_printf(&se->s->arena, "'%s' is only "
				   "available in .syscall probes", root);
	else if (!strcmp(root, "$return") && !ret)
		msg = "'$return' is only available in .syscall.return "
		      "probes";
	else if (!known)
		msg = arena_printf(&se->s->arena, "unknown context "
				   "variable '%s' (%s has $syscall, %s)",
				   root, dp->pp, args ? "$arg1 to $arg6" :
				   "$return");
	else if (op)
		msg = arena_printf(&se->s->arena, "'%s' is read-only",
				   root);
	if (msg && se->report)
		diag_error(se->s, n->loc, "%s", msg);
	return n->type = type;
}

static enum type context(struct sema *se, struct node *n, bool addr_of)
{
	(void)addr_of;
	return other_context(se, n, 0);
}

static bool context_assign(struct sema *se, struct node *assign,
			   enum type *type)
{
	struct node *rhs = assign->binary.rhs;

	*type = other_context(se, assign->binary.lhs, assign->binary.op);
	expect(se, rhs, infer(se, rhs, *type), *type);
	return true;
}

/* After the body checks: every point of these families is an error. */
static void finish(struct sema *se)
{
	report_unsupported(se);
}

static const char *const roots[] = {
	"process", NULL,
};
static const char *const probe_types[] = { NULL };

const struct probe_family unsupported_family = {
	.point_size = sizeof(struct other_probe),
	.name = "unsupported",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive_other,
	.context = context,
	.first_claims = true,
	.context_assign = context_assign,
	.finish = finish,
};
