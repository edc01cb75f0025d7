// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * procfs[("PATH")][.umask(N)].read[.maxsize(N)] and .write: a file under
 * /proc/systemtap/MODULE/ whose reads and writes run the probe, with
 * SystemTap's path rules. Its one context variable is $value: the text a
 * read probe sets, or the bytes a write probe got.
 */
#include "probes/probes.h"

/*
 * The file (its attach description, semantic/attach.h): its path under
 * /proc/systemtap/MODULE/ ("command" by default), .write (else .read),
 * .read.maxsize(N) or 0, .umask(N) else SystemTap's default: 0044 read,
 * 0022 write.
 */
static const struct attach_procfs *procfs_of(const struct derived_probe *dp)
{
	return &dp->attach.procfs;
}

/* SystemTap's rules for a procfs file name; NULL when fine. */
static const char *procfs_path_error(const char *path)
{
	if (!*path)
		return "a procfs path cannot be empty";
	if (*path == '/')
		return "a procfs path cannot start with a '/'";
	if (path[strlen(path) - 1] == '/')
		return "a procfs path cannot end with a '/'";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0)
			return "a procfs path cannot have an empty component "
			       "('//')";
		if ((n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
			return "a procfs path cannot be relative (no '.' or "
			       "'..' components)";
		p += n;
		p += *p == '/';
	}
	return NULL;
}

/*
 * procfs[("PATH")][.umask(N)].read[.maxsize(N)] and
 * procfs[("PATH")][.umask(N)].write: a file /proc/systemtap/MODULE/PATH.
 */
static int derive_procfs(struct sema *se, struct node *point,
			 struct derived_probe *dp)
{
	struct node *c0 = point->point.comps, *c = c0->next;
	struct attach_procfs *pf = &dp->attach.procfs;

	dp->attach.kind = ATTACH_PROCFS;
	if (c0->comp.arg && !is_str_arg(c0))
		return point_error(se, point, c0, "procfs takes a path string: "
				   "procfs(\"name\")");
	pf->umask = -1;
	if (comp_is(c, "umask")) {
		if (!is_num_arg(c) || c->comp.arg->num.value < 0 ||
		    c->comp.arg->num.value > 0777)
			return point_error(se, point, c, "umask takes a number "
					   "from 0 to 0777");
		pf->umask = c->comp.arg->num.value;
		c = c->next;
	}
	if (!c || (!comp_is(c, "read") && !comp_is(c, "write")) || c->comp.arg)
		return -1;
	pf->write = comp_is(c, "write");
	/* SystemTap's defaults: a read probe's file is 0400, a write
	 * probe's 0200, both 0600 (runtime/procfs.c joins the masks) */
	if (pf->umask < 0)
		pf->umask = pf->write ? 0022 : 0044;
	c = c->next;
	if (!pf->write && comp_is(c, "maxsize")) {
		if (!is_num_arg(c))
			return point_error(se, point, c, "maxsize needs a number "
					   "(the largest file content in bytes)");
		if (c->comp.arg->num.value <= 0)
			return point_error(se, point, c, "maxsize must be greater "
					   "than 0");
		pf->maxsize = c->comp.arg->num.value;
		c = c->next;
	}
	if (c)
		return -1;
	pf->path = c0->comp.arg ? c0->comp.arg->str.value : "command";
	const char *why = procfs_path_error(pf->path);
	if (why)
		return point_error(se, point, c0, why);
	return true;
}

/* $value, read (op 0) or assigned with op: SystemTap's checks. */
static enum type value(struct sema *se, struct node *n, int op)
{
	/* procfs claims a body by its first probe (first_claims) */
	const struct derived_probe *dp = body_first_probe(se->prog, sema_ctx(se));
	const char *root = context_root(n);

	if (!root)
		return n->type = TY_LONG;
	const struct node *step = context_step(n);
	const char *msg = NULL;
	if (strcmp(root, "$value"))
		msg = arena_printf(&se->s->arena, "invalid context "
				   "variable '%s' in a procfs probe "
				   "(only $value)", root);
	else if (step)
		msg = step->kind == N_TMEMBER ?
		      "procfs variable '$value' cannot be used as a "
		      "structure" : "procfs variable '$value' cannot "
		      "be used as an array";
	else if (procfs_of(dp)->write && op)
		msg = "procfs variable '$value' is read-only in a "
		      "procfs write probe";
	else if (!procfs_of(dp)->write && !op)
		msg = "procfs variable '$value' cannot be read in a "
		      "procfs read probe (assign it with '=' or '.=')";
	else if (op && op != OP_ASSIGN && op != OP_CONCAT)
		msg = "only '=' and '.=' assign procfs variable "
		      "'$value'";
	if (msg && se->report)
		diag_error(se->s, n->loc, "%s", msg);
	return n->type = TY_STRING;
}

static enum type context(struct sema *se, struct node *n, bool addr_of)
{
	(void)addr_of;
	return value(se, n, 0);
}

/* @defined($value): in read and write probes alike, as SystemTap's. */
static int defined(struct sema *se, struct node *n)
{
	(void)se;
	return !strcmp(n->target.name, "$value");
}

static bool context_assign(struct sema *se, struct node *assign,
			   enum type *type)
{
	struct node *rhs = assign->binary.rhs;

	*type = value(se, assign->binary.lhs, assign->binary.op);
	expect(se, rhs, infer(se, rhs, *type), *type);
	return true;
}

static const char *const roots[] = { "procfs", NULL };
static const char *const probe_types[] = {
	"procfs(string).read", "procfs(string).read.maxsize(number)",
	"procfs(string).umask(number).read",
	"procfs(string).umask(number).read.maxsize(number)",
	"procfs(string).umask(number).write", "procfs(string).write",
	"procfs.read", "procfs.read.maxsize(number)",
	"procfs.umask(number).read", "procfs.umask(number).read.maxsize(number)",
	"procfs.umask(number).write", "procfs.write", NULL,
};

/*
 * A file has one read probe (its content), as in SystemTap: a second one
 * is an error at its point ("only one read procfs probe can exist for
 * procfs path"). Write probes may be several.
 */
extern const struct probe_family procfs_family;

static void finish(struct sema *se)
{
	const struct program *prog = se->prog;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		if (dp->family != &procfs_family || procfs_of(dp)->write)
			continue;
		for (int j = 0; j < i; j++) {
			const struct derived_probe *o = prog->probes[j];
			if (o->family != &procfs_family || procfs_of(o)->write ||
			    strcmp(procfs_of(o)->path, procfs_of(dp)->path))
				continue;
			diag_error(se->s, dp->point->loc, "only one read procfs "
				   "probe can exist for procfs path \"%s\"",
				   procfs_of(dp)->path);
			break;
		}
	}
}

const struct probe_family procfs_family = {
	.point_size = sizeof(struct derived_probe),
	.name = "procfs",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive_procfs,
	.context = context,
	.first_claims = true,
	.defined = defined,
	.context_assign = context_assign,
	.finish = finish,
};
