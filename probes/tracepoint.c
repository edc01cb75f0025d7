// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace("[SYSTEM:]NAME"), with wildcards: the tracepoints of the
 * target kernel's catalog (target/), one derived probe each, with their
 * typed arguments as context values ($name, member chains through BTF,
 * $$parms, $$vars, $$system, $$name).
 */
#include "probes/probes.h"
#include "probes/listing.h"
#include "target/tracepoints.h"
#include "target/btf.h"
#include "target/target.h"


extern const struct probe_family tracepoint_family;

struct tp_probe {
	struct derived_probe dp;	/* first (family.h, point_size) */
	const char *system, *name;	/* as the point names them */
	/* the catalog entry (a copy in the session arena) */
	const struct tracepoint_info *tp;
	/* "struct a;\nstruct b;\n": every struct the prototypes of tp's
	 * header name, to declare before including it (not all trace
	 * headers declare what they use) */
	const char *decls;
	/* $$parms$ (1) and $$parms$$ (2): per argument of tp, its pretty
	 * printing, or NULL ("=?") */
	const struct pretty **parms_pretty[3];
};

static struct tp_probe *tp_of(const struct derived_probe *dp)
{
	return (struct tp_probe *)dp;
}


static const struct tp_arg *tp_find_arg(const struct tracepoint_info *tp,
					const char *name)
{
	for (int i = 0; i < tp->nargs; i++)
		if (!strcmp(tp->args[i].name, name))
			return &tp->args[i];
	return NULL;
}

/* A scalar the callback can widen to a long: an integer or a pointer. */
static bool tp_scalar(const char *c_type)
{
	if (strpbrk(c_type, "*["))
		return true;
	return strncmp(c_type, "struct ", 7) && strncmp(c_type, "union ", 6);
}

static bool tp_special(const char *name)
{
	return !strcmp(name, "$$parms") || !strcmp(name, "$$vars") ||
	       !strcmp(name, "$$system") || !strcmp(name, "$$name");
}

/*
 * Is $name (without '$') an argument of every tracepoint of the body?
 * With report, say why not (at n).
 */
static bool tp_check_arg(struct sema *se, struct node *n, const char *name,
			 bool report)
{
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != sema_ctx(se))
			continue;
		const struct tracepoint_info *tp = tp_of(dp)->tp;
		const struct tp_arg *a = tp->args_ok ? tp_find_arg(tp, name) : NULL;
		if (a && tp_scalar(a->c_type))
			continue;
		if (!report)
			return false;
		if (!tp->args_ok) {
			diag_error(se->s, n->loc, "the arguments of %s are not "
				   "known", dp->pp);
		} else if (a) {
			diag_error(se->s, n->loc, "context variable '$%s' of %s "
				   "is a '%s', which is not supported yet",
				   name, dp->pp, a->c_type);
		} else {
			struct strbuf sb = { 0 };
			for (int k = 0; k < tp->nargs; k++)
				sb_printf(&sb, " $%s", tp->args[k].name);
			diag_error(se->s, n->loc, "context variable '$%s' is not "
				   "available in %s (it has:%s)", name, dp->pp,
				   tp->nargs ? sb_str(&sb) : " no arguments");
			sb_free(&sb);
		}
		return false;
	}
	return true;
}

/*
 * $arg->member..., $arg[N]: a context slot of its own, its path resolved
 * through BTF for every tracepoint of the body (they must agree). flags:
 * PATH_AGGREGATE (the base of a pretty printing may be a struct),
 * PATH_ADDRESS (&$arg->member, a slot of its own). NULL on an error.
 */
static struct symbol *tp_chain_slot(struct sema *se, struct node *n,
				    int flags)
{
	struct probe_body *b = sema_ctx(se);
	const char *root = context_root(n);
	struct arena *a = &se->s->arena;

	if (n->kind == N_TINDEX)
		infer(se, n->target.index, TY_LONG);
	if (!root || root[1] == '$') {
		if (se->report)
			diag_error(se->s, n->loc, "member access and indexing "
				   "apply to tracepoint arguments ($arg) only, "
				   "for now");
		return NULL;
	}
	if (!tp_check_arg(se, n, root + 1, se->report))
		return NULL;
	char *key = context_key(a, n);
	if (flags & PATH_ADDRESS)
		key = arena_printf(a, "&%s", key);
	for (int i = 0; i < b->nctxvars; i++)
		if (!strcmp(b->ctxvars[i]->name, key))
			return b->ctxvars[i];
	if (b->nctxvars >= 64) {
		/* the callback flags faults in a 64-bit mask */
		if (se->report)
			diag_error(se->s, n->loc, "too many context values in "
				   "one probe (at most 64)");
		return NULL;
	}
	struct btf *btf = sema_btf(se);
	if (!btf) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot resolve '%s': %s", key,
				   se->btf_err);
		return NULL;
	}
	struct path_merge m = { 0 };
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		const struct tp_arg *arg = tp_find_arg(tp_of(dp)->tp, root + 1);
		struct member_path p;
		const struct node *at = n;
		const char *msg = NULL;
		int type = sema_ctype_btf(se, dp, arg->c_type, &msg), end;
		if (type)
			msg = type_path(a, btf, type, flags, n, &p, &end, &at);
		if (!path_merge_add(se, &m, dp, &p, msg, at, n, key))
			return NULL;
	}
	struct symbol *sym = add_context_slot(se, b, n, key);
	sym->member_path = m.path;
	sym->ctx_root = root + 1;
	return sym;
}

static enum type infer_member(struct sema *se, struct node *n)
{
	n->sym = tp_chain_slot(se, n, 0);
	return n->type = TY_LONG;
}

/* The C type of $name in dp, or NULL. */
static const char *tp_arg_type(const struct derived_probe *dp,
			       const char *name)
{
	const struct tp_probe *tpd = tp_of(dp);
	const struct tp_arg *arg = tpd->tp && tpd->tp->args_ok ?
		tp_find_arg(tpd->tp, name) : NULL;

	return arg ? arg->c_type : NULL;
}

/* A module's tracepoint: its arguments may be of the module's types. */
static const char *tp_var_module(const struct derived_probe *dp)
{
	return tp_of(dp)->tp ? tp_of(dp)->tp->module : NULL;
}

/*
 * $prev$, $prev->se$$ on tracepoints: the base value's slot, then its
 * pretty printing, the same in every tracepoint of the body.
 */
static enum type infer_tp_pretty(struct sema *se, struct node *n,
				 struct node *base, int depth)
{
	struct symbol *slot;

	if (base->kind == N_TARGET) {
		if (!tp_check_arg(se, base, base->target.name + 1, se->report))
			return n->type = TY_STRING;
		infer(se, base, TY_LONG);
		slot = base->sym;
	} else {
		slot = base->sym = tp_chain_slot(se, base, PATH_AGGREGATE);
	}
	if (!slot || (n->sym && n->sym->kind == SYM_TYPED))
		return n->type = TY_STRING;
	return infer_context_pretty(se, n, base, depth);
}

/* $$parms$ / $$parms$$: each tracepoint's arguments, pretty-printed. */
static void tp_parms_pretty(struct sema *se, int depth)
{
	struct arena *a = &se->s->arena;
	struct btf *btf = sema_btf(se);

	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		const struct tracepoint_info *tp = tp_of(dp)->tp;

		if (dp->body != sema_ctx(se) || !tp || !tp->args_ok ||
		    tp_of(dp)->parms_pretty[depth])
			continue;
		tp_of(dp)->parms_pretty[depth] = arena_alloc(a, (size_t)(tp->nargs + 1) *
					      sizeof(*tp_of(dp)->parms_pretty[depth]));
		for (int k = 0; btf && k < tp->nargs; k++) {
			int type = tp_scalar(tp->args[k].c_type) ?
				sema_ctype_btf(se, dp, tp->args[k].c_type,
					       NULL) : 0;
			struct pretty *p;

			if (!type)
				continue;	/* "=?" */
			p = arena_alloc(a, sizeof(*p));
			pretty_build(a, btf, type, depth == 2, p);
			tp_of(dp)->parms_pretty[depth][k] = p;
		}
	}
}

/* The target kernel's tracepoint catalog, loaded once per run; or NULL. */
static const struct tp_catalog *tp_catalog(struct sema *se,
					  const char **err)
{
	if (!se->s->target) {
		*err = "no target kernel release";
		return NULL;
	}
	return target_tracepoints(se->s->target, err);
}

/* A catalog entry copied into the session arena (the catalog is freed). */
static const struct tracepoint_info *copy_tp(struct sema *se,
					     const struct tracepoint_info *t)
{
	struct arena *a = &se->s->arena;
	struct tracepoint_info *c = arena_alloc(a, sizeof(*c));

	*c = *t;
	c->system = arena_strdup(a, t->system);
	c->name = arena_strdup(a, t->name);
	c->proto = t->proto ? arena_strdup(a, t->proto) : NULL;
	c->header = t->header ? arena_strdup(a, t->header) : NULL;
	c->module = t->module ? arena_strdup(a, t->module) : NULL;
	c->args = arena_alloc(a, (size_t)(t->nargs + 1) * sizeof(*c->args));
	for (int i = 0; i < t->nargs; i++) {
		c->args[i].name = arena_strdup(a, t->args[i].name);
		c->args[i].c_type = arena_strdup(a, t->args[i].c_type);
	}
	return c;
}

/* Forward declarations of the structs the protos of header name. */
static const char *tp_header_decls(struct sema *se,
				   const struct tp_catalog *cat,
				   const char *header)
{
	struct strbuf sb = { 0 };

	for (int i = 0; i < cat->n; i++) {
		const char *p = cat->tps[i].proto;
		if (!p || !cat->tps[i].header || strcmp(cat->tps[i].header, header))
			continue;
		while ((p = strstr(p, "struct "))) {
			p += 7;
			size_t len = strspn(p, "abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
			char *decl = arena_printf(&se->s->arena, "struct %.*s;\n",
						  (int)len, p);
			if (len && !strstr(sb_str(&sb), decl))
				sb_puts(&sb, decl);
		}
	}
	const char *r = arena_strdup(&se->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

/* The closest "system:name" to a misspelt tracepoint, or NULL. */
static const char *tp_suggest(struct sema *se, const struct tp_catalog *cat,
			      const char *sys, const char *name)
{
	const struct tracepoint_info *best = NULL;
	int best_d = (int)strlen(name) / 4 > 2 ? (int)strlen(name) / 4 : 2;

	for (int i = 0; i < cat->n; i++) {
		const struct tracepoint_info *t = &cat->tps[i];
		int d = edit_distance(name, t->name);
		if (sys)
			d += edit_distance(sys, t->system);
		if (d <= best_d && (!best || d < best_d)) {
			best = t;
			best_d = d;
		}
	}
	return best ? arena_printf(&se->s->arena, "%s:%s", best->system,
				   best->name) : NULL;
}

/*
 * Resolve a kernel.trace point through the catalog: one derived probe per
 * matching tracepoint, sorted by system:name, each with the canonical pp
 * kernel.trace("SYSTEM:NAME"). dp (filled by derive_point) is the first.
 * Returns how many were appended to the program.
 */
static int expand_tracepoint(struct sema *se, struct node *point,
			     struct derived_probe *dp, struct probe_body *b)
{
	struct program *prog = se->prog;
	struct node *tr = point->point.comps->next;
	const char *pattern = tr->comp.arg->str.value;
	const char *why = NULL;
	const struct tp_catalog *cat = tp_catalog(se, &why);
	const struct tracepoint_info **m = NULL;
	char msg[512];

	if (!cat) {
		snprintf(msg, sizeof(msg), "cannot resolve tracepoints: %s",
			 why);
		point_error(se, point, tr, msg);
		return 0;
	}
	int n = tp_catalog_match(cat, pattern, &m);
	if (n == 0) {
		const char *hint = NULL;
		if (!strpbrk(pattern, "*?["))
			hint = tp_suggest(se, cat, tp_of(dp)->system, tp_of(dp)->name);
		if (strpbrk(pattern, "*?["))
			snprintf(msg, sizeof(msg), "no tracepoint matches '%s'",
				 pattern);
		else if (hint)
			snprintf(msg, sizeof(msg), "unknown tracepoint '%s' "
				 "(did you mean '%s'?)", pattern, hint);
		else
			snprintf(msg, sizeof(msg), "unknown tracepoint '%s'",
				 pattern);
		point_error(se, point, tr, msg);
		free(m);
		return 0;
	}
	/* @defined($x) is each tracepoint's own answer (SystemTap
	 * elaborates each apart): a body per tracepoint then */
	bool own = n > 1 && sema_asks_defined(se, b->probe->probe.body);
	for (int i = 0; i < n; i++) {
		struct derived_probe *d = i ? sema_clone_derived(se, dp) : dp;
		tp_of(d)->tp = copy_tp(se, m[i]);
		if (i && m[i]->header && m[i - 1]->header &&
		    !strcmp(m[i]->header, m[i - 1]->header))
			tp_of(d)->decls = tp_of(prog->probes[prog->nprobes - 1])->decls;
		else if (m[i]->header)
			tp_of(d)->decls = tp_header_decls(se, cat, m[i]->header);
		tp_of(d)->system = tp_of(d)->tp->system;
		tp_of(d)->name = tp_of(d)->tp->name;
		d->pp = arena_printf(&se->s->arena, "kernel.trace(\"%s:%s\")",
				     tp_of(d)->system, tp_of(d)->name);
		d->body = own && i ? sema_own_body(se, b) : b;
		GROW(se, prog->probes, prog->nprobes, prog->probes_cap);
		prog->probes[prog->nprobes++] = d;
	}
	free(m);
	return n;
}

/* kernel.trace("[SYSTEM:]NAME"): the point's shape; expand() matches
 * the catalog. */
static int derive(struct sema *se, struct node *point, struct derived_probe *dp)
{
	struct tp_probe *tpd = tp_of(dp);
	struct node *c0 = point->point.comps;
	const char *name = c0->comp.name;

	if (!strcmp(name, "kernel") && comp_is(c0->next, "trace")) {
		struct node *tr = c0->next;
		if (!tr->comp.arg || tr->comp.arg->kind != N_STRING)
			return point_error(se, point, tr, "kernel.trace needs a "
					   "tracepoint name: kernel.trace(\"sched:"
					   "sched_switch\")");
		if (tr->next)
			return point_error(se, point, tr->next, "unexpected "
					   "component after kernel.trace(...)");
		const char *arg = tr->comp.arg->str.value;
		const char *colon = strchr(arg, ':');
		if (colon) {
			tpd->system = arena_strndup(&se->s->arena, arg,
						      (size_t)(colon - arg));
			tpd->name = colon + 1;
		} else {
			tpd->name = arg;
		}
		if (!*tpd->name)
			return point_error(se, point, tr, "empty tracepoint name");
		return true;
	}
	return -1;
}

/*
 * A tracepoint's context values: its arguments $name (and member chains
 * on them, pretty printing $x$), $$parms / $$vars in three modes,
 * $$system and $$name. Every tracepoint of the body must have them.
 */
static enum type context(struct sema *se, struct node *n, bool addr_of)
{
	struct probe_body *b = sema_ctx(se);
	const char *name = n->target.name;
	int depth = 0;

	if (addr_of) {
		/* &$arg->member: a slot of its own (not &$arg itself) */
		if (n->kind == N_TARGET)
			return TY_UNKNOWN;
		n->sym = tp_chain_slot(se, n, PATH_ADDRESS);
		return TY_LONG;
	}
	if (n->kind == N_TMEMBER && (!strcmp(name, "$") || !strcmp(name, "$$")))
		depth = (int)strlen(name);
	if (depth)
		return infer_tp_pretty(se, n, n->target.base, depth);
	if (n->kind != N_TARGET)
		return infer_member(se, n);
	const char *base_name;
	depth = pretty_suffix(&se->s->arena, name, &base_name);
	if (depth && (!strcmp(base_name, "$$parms") ||
		      !strcmp(base_name, "$$vars"))) {
		b->parms = true;
		b->parms_modes |= 1u << depth;
		tp_parms_pretty(se, depth);
		return n->type = TY_STRING;
	}
	if (depth && base_name[1] != '$') {
		/* $prev$: the pretty printing of the plain $prev */
		if (!n->target.base) {
			n->target.base = ast_new(se->s, N_TARGET, n->loc);
			n->target.base->target.name = base_name;
		}
		return infer_tp_pretty(se, n, n->target.base, depth);
	}
	if (tp_special(name)) {
		if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
			b->parms_modes |= 1u;
		if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars"))
			b->parms = true;
		return n->type = TY_STRING;
	}
	if (name[1] == '$') {
		if (se->report)
			diag_error(se->s, n->loc, "unknown context variable "
				   "'%s' (tracepoints have $$parms, $$vars, "
				   "$$system and $$name)", name);
		return TY_STRING;
	}
	if (!tp_check_arg(se, n, name + 1, se->report))
		return TY_LONG;
	for (int i = 0; i < b->nctxvars; i++)
		if (!strcmp(b->ctxvars[i]->name, name)) {
			n->sym = b->ctxvars[i];
			return n->type = TY_LONG;
		}
	n->sym = add_context_slot(se, b, n, name);
	return n->type = TY_LONG;
}

/* A tracepoint has context values once the catalog knows it. */
static bool own_context(const struct derived_probe *dp)
{
	return tp_of(dp)->tp != NULL;
}

/* @defined($name): every tracepoint of the body has it. */
static int defined(struct sema *se, struct node *n)
{
	const char *name;

	pretty_suffix(&se->s->arena, n->target.name, &name);
	if (tp_special(name))
		return 1;
	return name[1] != '$' && tp_check_arg(se, n, name + 1, false);
}

/* -L of an alias on a tracepoint: its arguments. */
static void list_vars(const struct derived_probe *dp, struct strbuf *out)
{
	const struct tp_probe *tpd = tp_of(dp);
	for (int a = 0; tpd->tp && a < tpd->tp->nargs; a++)
		sb_printf(out, " $%s:%s", tpd->tp->args[a].name,
			  tpd->tp->args[a].c_type);
}

/* ---- the attach description ------------------------------------------ */

/*
 * What a backend attaches: the tracepoint, its argument layout (the
 * catalog entry), and each context value of the body as an argument,
 * then the member steps of its chain.
 */
static void describe(const struct program *prog, struct derived_probe *dp)
{
	const struct tp_probe *t = tp_of(dp);
	const struct probe_body *b = dp->body;
	struct attach *at = &dp->attach;
	struct arena *a = &prog->s->arena;

	at->kind = ATTACH_TRACEPOINT;
	at->tracepoint.system = t->system;
	at->tracepoint.name = t->name;
	at->tracepoint.info = t->tp;
	at->tracepoint.decls = t->decls;
	for (int m = 0; m < 3; m++)
		at->tracepoint.parms_pretty[m] = t->parms_pretty[m];
	if (!t->tp || !b->nctxvars)
		return;
	const struct value_recipe **values = arena_alloc(a, (size_t)
		b->nctxvars * sizeof(*values));
	for (int k = 0; k < b->nctxvars; k++) {
		const struct symbol *sym = b->ctxvars[k];
		struct value_recipe *r = arena_alloc(a, sizeof(*r));
		const char *root = sym->member_path ? sym->ctx_root :
				   sym->name + 1;
		const struct tp_arg *arg = tp_find_arg(t->tp, root);

		r->root = ROOT_ARG;
		r->arg = arg ? (int)(arg - t->tp->args) : -1;
		r->size = 8;
		r->steps = sym->member_path;
		r->space = SPACE_KERNEL;
		values[k] = r;
	}
	at->values = values;
	at->nvalues = b->nctxvars;
}

/* ---- listing --------------------------------------------------------- */

/*
 * The catalog is sorted and unique by system:name, so its matches come
 * out in SystemTap's order (a std::map keyed on the printed probe point)
 * without sorting again.
 */
int list_tracepoints(const struct tp_catalog *c, const char *pattern,
		     bool with_vars, FILE *out)
{
	const struct tracepoint_info **m;
	int n = tp_catalog_match(c, pattern, &m);

	for (int i = 0; i < n; i++) {
		fprintf(out, "kernel.trace(\"%s:%s\")", m[i]->system,
			m[i]->name);
		if (with_vars)
			for (int a = 0; a < m[i]->nargs; a++)
				fprintf(out, " $%s:%s", m[i]->args[a].name,
					m[i]->args[a].c_type);
		fputc('\n', out);
	}
	free(m);
	return n;
}

/* -l/-L kernel.trace("PATTERN"): straight from the catalog. */
static int list(struct session *s, const char *spec, bool with_vars)
{
	static const char prefix[] = "kernel.trace(\"";
	size_t len = strlen(spec), plen = sizeof(prefix) - 1;
	const struct tp_catalog *cat = NULL;
	const char *err = NULL;

	if (strncmp(spec, prefix, plen) || len <= plen + 2 ||
	    strcmp(spec + len - 2, "\")"))
		return -1;
	if (!s->target || !(cat = target_tracepoints(s->target, &err))) {
		fprintf(stderr, "stap: error: no tracepoints: %s\n",
			err ? err : "no target kernel");
		return 0;
	}
	if (s->verbose > 1)
		fprintf(stderr, "stap: %d tracepoints, %d of the headers' not "
			"defined by the kernel left out (%s)\n", cat->n,
			cat->n_dropped, cat->defined_from ? cat->defined_from :
			"not judged");
	char *pattern = arena_strndup(&s->arena, spec + plen, len - plen - 2);
	return list_tracepoints(cat, pattern, with_vars, stdout);
}

static const char *const roots[] = { "kernel", NULL };
static const char *const probe_types[] = { "kernel.trace(string)", NULL };

const struct probe_family tracepoint_family = {
	.point_size = sizeof(struct tp_probe),
	.name = "kernel.trace",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
	.expand = expand_tracepoint,
	.context = context,
	.own_context = own_context,
	.defined = defined,
	.var_ctype = tp_arg_type,
	.var_module = tp_var_module,
	.list_vars = list_vars,
	.list = list,
	.describe = describe,
};
