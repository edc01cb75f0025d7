// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace("[SYSTEM:]NAME"), with wildcards: the tracepoints of the
 * target kernel's catalog (target/), one derived probe each, with their
 * typed arguments as context values ($name, member chains through BTF,
 * $$parms, $$vars, $$system, $$name).
 */
#include "probes/probes.h"
#include "module/emit.h"
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
	struct member_path *path = NULL;
	const struct derived_probe *first = NULL;
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
		if (msg) {
			if (se->report)
				diag_error(se->s, (at ? at : n)->loc, "%s (in %s)",
					   msg, dp->pp);
			return NULL;
		}
		if (path && !member_path_equal(path, &p)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' has another "
					   "layout in %s than in %s", key,
					   dp->pp, first->pp);
			return NULL;
		}
		if (!path) {
			path = arena_alloc(a, sizeof(*path));
			*path = p;
			first = dp;
		}
	}
	struct symbol *sym = add_context_slot(se, b, n, key);
	sym->member_path = path;
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

/* ---- the kernel module ---------------------------------------------- */

/*
 * Run typed tracepoint probe i (table entry k) whose filter held: a
 * filtered lean body runs its counts (1 + N statements: the if too).
 */
static void gen_tp_run(struct cg *cg, FILE *out, int i, int k,
		       const char *indent)
{
	int b = cg->prog->probes[i]->body->index;

	if (cg->nlean[b] >= 0 && cg->filtered[b])
		fprintf(out, "%sif (MAXACTION > %d)\n%s\tstp_probe_lean("
			"&stp_probes[%d]);\n%selse\n%s\t", indent,
			cg->nlean[b] + 1, indent, k, indent, indent);
	else
		fputs(indent, out);
	fprintf(out, "stp_run_%d(&stp_probes[%d], &stp_a, NULL);\n", b, k);
}

/* Does this tracepoint probe need a callback with the exact prototype? */
static bool tp_typed(const struct derived_probe *dp)
{
	return dp->family == &tracepoint_family && tp_of(dp)->tp && tp_of(dp)->tp->args_ok &&
	       (dp->body->nctxvars || dp->body->parms);
}


/*
 * How a typed callback receives a tracepoint's arguments. Its prototype
 * is the tracepoint's, either as the trace header declares it (which the
 * module then includes, and whose check_trace_callback_type_NAME checks
 * it) or, when every argument's type is known to BTF, its own: each
 * argument as a type of the same size and calling convention (pointers
 * "const void *", integers and enums "uN"/"sN", aggregates of 1, 2, 4
 * or 8 bytes as such an integer, other aggregates as a struct of as many
 * bytes), named stp_pN; an enum BTF does not know (a module's) is 4
 * bytes, GCC's type for an enum whose values fit an int. Then the module needs no trace header: some
 * include private headers of their subsystem (bridge, dlm) or use types
 * only those define (ext4_group_t, enum afs_call_state). Where the
 * kernel's BTF has the tracepoint's own prototype (btf_trace_NAME, for
 * every tracepoint of vmlinux), its parameters are those types, checked
 * against the catalog's count. The callback's own names start with stp_,
 * which no kernel parameter does.
 */
struct tp_abi {
	const struct tracepoint_info *tp;
	bool own;		/* own prototype, no trace header */
	const char *params;	/* own: the parameters after stp_data */
	const char *blobs;	/* own: struct definitions they need */
	const char **ref;	/* [arg]: the C expression of argument arg */
	const char **widen;	/* [arg]: it as an int64_t expression */
};

/* Argument name's index in tp, or -1. */
static int tp_arg_index(const struct tracepoint_info *tp, const char *name)
{
	for (int i = 0; i < tp->nargs; i++)
		if (!strcmp(tp->args[i].name, name))
			return i;
	return -1;
}


/*
 * The C type to declare a by-value argument of BTF type id with; NULL
 * when there is none (a float, void, a type BTF cannot size). *blob: the
 * size of the struct it needs (0: none).
 */
static const char *tp_abi_ctype(struct arena *a, const struct btf *btf,
				int id, unsigned *blob)
{
	struct btf_info in;

	*blob = 0;
	btf_resolve(btf, id, &in);
	switch (in.cls) {
	case BTF_CLASS_PTR: case BTF_CLASS_FUNC_PTR: case BTF_CLASS_ARRAY:
		return "const void *";
	case BTF_CLASS_INT: case BTF_CLASS_ENUM:
	case BTF_CLASS_STRUCT: case BTF_CLASS_UNION:
		if (in.size == 1 || in.size == 2 || in.size == 4 ||
		    in.size == 8)
			return arena_printf(a, "%s%u",
					    in.is_signed ? "s" : "u",
					    in.size * 8);
		if (in.cls == BTF_CLASS_STRUCT || in.cls == BTF_CLASS_UNION) {
			if (!in.size)
				return NULL;
			*blob = in.size;
			return arena_printf(a, "struct stp_tp_blob_%u",
					    in.size);
		}
		return NULL;
	default:
		return NULL;
	}
}

/* tp's arguments as the callback declares and reads them. */
static struct tp_abi *tp_abi_of(struct cg *cg, const struct tracepoint_info *tp)
{
	struct arena *a = &cg->s->arena;
	struct tp_abi *abi = arena_alloc(a, sizeof(*abi));
	const char *err;
	struct btf *btf = cg->s->target ? target_btf(cg->s->target, &err) : NULL;
	struct strbuf params = { 0 }, blobs = { 0 };
	int proto = 0, n = tp->nargs;

	abi->tp = tp;
	abi->ref = arena_alloc(a, (size_t)(n + 1) * sizeof(*abi->ref));
	abi->widen = arena_alloc(a, (size_t)(n + 1) * sizeof(*abi->widen));
	abi->own = btf != NULL;
	if (btf) {
		struct btf_info in;
		char *tn = arena_printf(a, "btf_trace_%s", tp->name);
		int id = btf_find_type(btf, tn);

		btf_resolve(btf, id, &in);
		if (id && in.cls == BTF_CLASS_FUNC_PTR) {
			proto = in.target;
			/* void *data, then the tracepoint's own */
			if (btf_proto_param(btf, proto, -1) != n + 1)
				abi->own = false;
		}
	}
	for (int i = 0; abi->own && i < n; i++) {
		const char *ct = tp->args[i].c_type, *decl;
		unsigned blob = 0;
		int id;

		if (proto)
			id = btf_proto_param(btf, proto, i + 1);
		else if (strpbrk(ct, "*["))
			id = -1;	/* any pointer */
		else
			id = btf_find_type(btf, ct);
		if (id < 0)
			decl = "const void *";
		else if (id)
			decl = tp_abi_ctype(a, btf, id, &blob);
		else if (!strncmp(ct, "enum ", 5) && !strpbrk(ct + 5, " "))
			decl = "u32";	/* GCC's enum of int-sized values */
		else
			decl = NULL;
		if (!decl) {
			abi->own = false;
			break;
		}
		if (blob && !strstr(sb_str(&blobs), decl)) {
			sb_printf(&blobs, "%s { unsigned char b[%u]; };\n",
				  decl, blob);
		}
		sb_printf(&params, ", %s%sstp_p%d", decl,
			  decl[strlen(decl) - 1] == '*' ? "" : " ", i);
		abi->ref[i] = arena_printf(a, "stp_p%d", i);
		abi->widen[i] = blob ? "0" :
			arena_printf(a, "(int64_t)stp_p%d", i);
	}
	if (abi->own) {
		abi->params = arena_strdup(a, sb_str(&params));
		abi->blobs = arena_strdup(a, sb_str(&blobs));
	} else {
		for (int i = 0; i < n; i++) {
			abi->ref[i] = tp->args[i].name;
			abi->widen[i] = arena_printf(a, "(int64_t)(%s)",
						     tp->args[i].name);
		}
	}
	sb_free(&params);
	sb_free(&blobs);
	return abi;
}

/* Argument name of abi's tracepoint, as the callback names it. */
static const char *tp_ref(const struct tp_abi *abi, const char *name)
{
	int i = tp_arg_index(abi->tp, name);

	return i < 0 ? name : abi->ref[i];
}

/* The same widened to an int64_t. */
static const char *tp_widen(const struct tp_abi *abi,
			    const struct tracepoint_info *tp, const char *name)
{
	int i = tp_arg_index(tp, name);

	return i < 0 ? "0" : abi->widen[i];
}

/*
 * A body that starts with `if ($ARG != N) next` (the syscall tapset's
 * form, one alias per value of $id): the argument and N. Probes of one
 * tracepoint that all filter on the same argument share one callback
 * that switches on it, so `syscall.*` costs one call per event.
 */
static bool tp_filter(const struct derived_probe *dp,
		      const struct symbol **arg, int64_t *value)
{
	const struct node *st = first_stmt(dp->body->probe->probe.body);
	const struct node *c, *then, *t, *num;

	if (!st || st->kind != N_IF || st->cond.els)
		return false;
	c = st->cond.cond;
	then = st->cond.then;
	if (then && then->kind == N_BLOCK && then->block.stmts &&
	    !then->block.stmts->next)
		then = then->block.stmts;
	if (!then || then->kind != N_NEXT || c->kind != N_BINARY ||
	    c->binary.op != OP_NE)
		return false;
	t = c->binary.lhs->kind == N_NUMBER ? c->binary.rhs : c->binary.lhs;
	num = t == c->binary.lhs ? c->binary.rhs : c->binary.lhs;
	if ((t->kind != N_TARGET && t->kind != N_TMEMBER) ||
	    num->kind != N_NUMBER || !t->sym || t->sym->kind != SYM_CONTEXT)
		return false;
	*arg = t->sym;		/* $id, or a chain like $regs->orig_ax */
	*value = num->num.value;
	return true;
}

/*
 * v[k] for a chain $arg->a->b[2]: walk it from the argument's value with
 * the offsets BTF gave pass 2 (no kernel struct definitions needed), every
 * read fault-safe; a fault leaves its address in v[k] and sets bit k of
 * a.faults, and the body raises the error only if it reads v[k].
 */
static void gen_tp_path(FILE *out, const struct tp_abi *abi,
			const struct symbol *sym, int k, const char *in)
{
	const struct member_path *path = sym->member_path;

	/* stp_ names cannot clash with the tracepoint's arguments; a local
	 * label, as several probes' values may share one callback */
	fprintf(out, "%s{\t/* %s */\n%s\t__label__ fault;\n", in, sym->name, in);
	fprintf(out, "%s\tu64 stp_addr = (u64)(unsigned long)(%s);\n", in,
		tp_ref(abi, sym->ctx_root));
	gen_path_steps(out, path, in);
	fprintf(out, "%s\tstp_v[%d] = (int64_t)stp_addr;\n", in, k);
	fprintf(out, "%s\tif (0) {\n%sfault:\n", in, in);
	fprintf(out, "%s\t\tstp_v[%d] = (int64_t)stp_addr;\n", in, k);
	fprintf(out, "%s\t\tstp_a.faults |= 1ULL << %d;\n%s\t}\n", in, k, in);
	fprintf(out, "%s}\n", in);
}

/* Fill v[] (the body's $x) and all[] (every argument) in a callback. */
static void gen_tp_values(FILE *out, const struct derived_probe *dp,
			  const struct tp_abi *abi, const char *indent,
			  bool with_v, bool with_all)
{
	const struct tracepoint_info *tp = tp_of(dp)->tp;
	const struct probe_body *b = dp->body;

	if (with_v)
		fprintf(out, "%sstp_a.faults = 0;\n", indent);
	for (int k = 0; with_v && k < b->nctxvars; k++)
		if (b->ctxvars[k]->member_path)
			gen_tp_path(out, abi, b->ctxvars[k], k, indent);
		else
			fprintf(out, "%sstp_v[%d] = %s;\n", indent, k,
				tp_widen(abi, tp, b->ctxvars[k]->name + 1));
	for (int a = 0; with_all && a < tp->nargs; a++)
		fprintf(out, "%sstp_all[%d] = %s;\n", indent, a,
			tp_scalar(tp->args[a].c_type) ?
			tp_widen(abi, tp, tp->args[a].name) : "0");
}

/*
 * In a dispatch group of TP_SHARED_MIN or more probes with handlers
 * (syscall.*: one per system call), a case sets the probe and the kind
 * of its handler (what it uses of a context, whether it takes locks,
 * whether its frame is empty: at most TP_SHARED_KINDS kinds, the last
 * taking the rest), and one fast path per kind after
 * the switch runs it, the handler called through the table: a fast path
 * inlined into each case made 347 copies of it, most of the compiler's
 * work on syscall.*. A probe shares it when its value is its
 * own and its body is no lean one run inline (a filtered lean body's
 * counts stay in its case).
 */
#define TP_SHARED_MIN 8
#define TP_SHARED_KINDS 8
/* a kind's handlers take no locks; have empty frames (the last kind,
 * which takes the rest, may mix: then neither) */
#define KIND_NOLOCKS	0x10000u
#define KIND_BARE	0x20000u

static bool shared_run(const struct cg *cg, const int *group,
		       const int64_t *fval, int k)
{
	const struct program *prog = cg->prog;
	int b = prog->probes[k]->body->index;

	if (cg->nlean[b] >= 0 && cg->filtered[b])
		return false;
	for (int j = 0; j < prog->nprobes; j++)
		if (j != k && group[j] == group[k] && fval[j] == fval[k])
			return false;
	return true;
}

/*
 * Typed tracepoint callbacks, "void cb(void *data, TP_PROTO)" (checked
 * against the tracepoint by the header's check_trace_callback_type_NAME):
 * they widen the arguments to longs on their stack and run the probe with
 * them. One per probe (data is its table entry), or one per dispatch group
 * (see tp_filter): the group's first entry registers it, the others are
 * tp_shared. group[i] is the probe's group leader, or -1.
 */
static void gen_tp_callbacks(struct cg *cg, FILE *out, int *group,
			     struct tp_abi **abis)
{
	const struct program *prog = cg->prog;
	const char **done = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*done));
	int ndone = 0;
	struct strbuf blobs = { 0 };
	bool any = false;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		abis[i] = NULL;
		if (!tp_typed(dp))
			continue;
		abis[i] = tp_abi_of(cg, tp_of(dp)->tp);
		if (!any)
			fputs("\n/* typed tracepoint callbacks */\n", out);
		any = true;
		if (abis[i]->own) {
			/* each struct once */
			for (const char *b = abis[i]->blobs; *b; ) {
				const char *e = strchr(b, '\n') + 1;
				char *line = arena_strndup(&cg->s->arena, b,
							   (size_t)(e - b));
				if (!strstr(sb_str(&blobs), line)) {
					sb_puts(&blobs, line);
					fputs(line, out);
				}
				b = e;
			}
			continue;
		}
		bool seen = false;
		for (int k = 0; k < ndone; k++)
			seen |= !strcmp(done[k], tp_of(dp)->tp->header);
		if (seen)
			continue;
		done[ndone++] = tp_of(dp)->tp->header;
		fputs(tp_of(dp)->decls ? tp_of(dp)->decls : "", out);
		fprintf(out, "#include %s%s%s\n",
			tp_of(dp)->tp->header[0] == '/' ? "\"" : "<", tp_of(dp)->tp->header,
			tp_of(dp)->tp->header[0] == '/' ? "\"" : ">");
	}
	free(done);
	sb_free(&blobs);

	/* dispatch groups: same tracepoint, same filtered argument */
	const struct symbol **farg = xmalloc((size_t)(prog->nprobes + 1) *
					     sizeof(*farg));
	int64_t *fval = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*fval));
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		group[i] = -1;
		farg[i] = NULL;
		if (!tp_typed(dp) || !tp_filter(dp, &farg[i], &fval[i]))
			continue;
		for (int j = 0; j < i && group[i] < 0; j++)
			if (farg[j] && !strcmp(farg[j]->name, farg[i]->name) &&
			    !strcmp(tp_of(prog->probes[j])->tp->system, tp_of(dp)->tp->system) &&
			    !strcmp(tp_of(prog->probes[j])->tp->name, tp_of(dp)->tp->name))
				group[i] = group[j] >= 0 ? group[j] : j;
		if (group[i] >= 0)
			group[group[i]] = group[i];
	}

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct tracepoint_info *tp = tp_of(dp)->tp;
		if (!tp_typed(dp) || (group[i] >= 0 && group[i] != i))
			continue;
		int nv = dp->body->nctxvars;
		for (int j = i + 1; group[i] == i && j < prog->nprobes; j++)
			if (group[j] == i && prog->probes[j]->body->nctxvars > nv)
				nv = prog->probes[j]->body->nctxvars;
		const struct tp_abi *abi = abis[i];
		bool isvoid = !strcmp(tp->proto, "void");
		if (abi->own)
			fprintf(out, "static void stp_tp_cb_%d(void *stp_data%s)"
				"\n{\n", i, abi->params);
		else
			fprintf(out, "static void stp_tp_cb_%d(void *stp_data%s%s)"
				"\n{\n", i, isvoid ? "" : ", ",
				isvoid ? "" : tp->proto);
		fprintf(out, "\tint64_t stp_v[%d], stp_all[%d];\n"
			"\tstruct stp_tp_args stp_a = { .v = stp_v, "
			".all = stp_all };\n\n",
			nv ? nv : 1, tp->nargs ? tp->nargs : 1);
		if (!abi->own)
			fprintf(out, "\tcheck_trace_callback_type_%s("
				"stp_tp_cb_%d);\n", tp->name, i);
		if (group[i] != i) {
			/* its own callback: the entry is known here, so a
			 * lean probe's counts compile to immediates */
			int b = dp->body->index;
			gen_tp_values(out, dp, abi, "\t", true, true);
			if (cg->nlean[b] >= 0 && cg->filtered[b] &&
			    !farg[i]->member_path) {
				/* the filter here: its `next` is all a
				 * hit it rejects would do */
				fprintf(out, "\tif (%s != %" PRId64
					"LL)\n\t\treturn;\n",
					tp_widen(abi, tp, farg[i]->name + 1),
					fval[i]);
				gen_tp_run(cg, out, i, table_index(prog, i), "\t");
			} else {
				fprintf(out, "\tstp_run_%d(&stp_probes[%d], "
					"&stp_a, NULL);\n", b,
					table_index(prog, i));
			}
			fputs("}\n", out);
			continue;
		}
		gen_tp_values(out, dp, abi, "\t", false, true);
		/* many handlers: the fast path once per set of what the
		 * handlers use (their STP_USE_* bits), after the switch */
		struct strbuf use[TP_SHARED_KINDS] = { { 0 } };
		unsigned kinds[TP_SHARED_KINDS];
		int nkinds = 0, nshared = 0, nterms[TP_SHARED_KINDS] = { 0 };
		int *kind = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*kind));
		for (int j = i; j < prog->nprobes; j++) {
			kind[j] = -1;
			if (group[j] != i || !shared_run(cg, group, fval, j))
				continue;
			int b = prog->probes[j]->body->index, k = 0;
			unsigned key = cg->use[b] |
				(lock_plan_nlocks(cg->locks, b) ? 0 : KIND_NOLOCKS) |
				(cg->bare[b] ? KIND_BARE : 0);
			while (k < nkinds && kinds[k] != key)
				k++;
			if (k == nkinds && nkinds < TP_SHARED_KINDS)
				kinds[nkinds++] = key;
			else if (k == nkinds)
				/* the last kind takes the rest */
				kinds[--k] &= key | ~(KIND_NOLOCKS | KIND_BARE);
			kind[j] = k;
			sb_printf(&use[k], "%sSTP_USE_%d", !nterms[k] ? "" :
				  nterms[k] % 6 ? " | " : " |\n\t\t\t       ",
				  b);
			nterms[k]++;
			nshared++;
		}
		bool shared = nshared >= TP_SHARED_MIN;
		if (shared)
			fputs("\tconst struct stp_probe *stp_p = NULL;\n"
			      "\tint stp_kind = 0;\n\n", out);
		if (farg[i]->member_path) {
			/* the key once; a fault matches no case */
			fputs("\tstp_a.faults = 0;\n", out);
			gen_tp_path(out, abi, farg[i], farg[i]->index, "\t");
			fprintf(out, "\tif (!stp_a.faults)\n\tswitch (stp_v[%d]) {\n",
				farg[i]->index);
		} else {
			fprintf(out, "\tswitch (%s) {\n",
				tp_widen(abi, tp, farg[i]->name + 1));
		}
		for (int j = i; j < prog->nprobes; j++) {
			bool emitted = false;
			if (group[j] != i)
				continue;
			for (int m = i; m < j && !emitted; m++)
				emitted = group[m] == i && fval[m] == fval[j];
			if (emitted)
				continue;
			/* one case per value; several probes may want it */
			fprintf(out, "\tcase %" PRId64 "LL:\n", fval[j]);
			for (int k = j; k < prog->nprobes; k++) {
				if (group[k] != i || fval[k] != fval[j])
					continue;
				gen_tp_values(out, prog->probes[k], abi, "\t\t",
					      true, false);
				if (shared && kind[k] >= 0)
					fprintf(out, "\t\tstp_p = &stp_probes[%d];"
						"\n\t\tstp_kind = %d;\n",
						table_index(prog, k), kind[k]);
				else
					gen_tp_run(cg, out, k,
						   table_index(prog, k), "\t\t");
			}
			fputs("\t\tbreak;\n", out);
		}
		fputs("\t}\n", out);
		for (int k = 0; shared && k < nkinds; k++)
			fprintf(out, "\t%sif (stp_p && stp_kind == %d)\n\t\t"
				"stp_probe_fast(stp_p, stp_p->handler,\n\t\t\t"
				"       %s%s,\n\t\t\t       %s, &stp_a, NULL);\n",
				k ? "else " : "", k, sb_str(&use[k]),
				kinds[k] & KIND_NOLOCKS ? " |\n\t\t\t       "
				"STP_USE_NOLOCKS" : "", kinds[k] & KIND_BARE ?
				"1" : "stp_p->frame_size");
		for (int k = 0; k < nkinds; k++)
			sb_free(&use[k]);
		free(kind);
		fputs("}\n", out);
	}
	free(farg);
	free(fval);
}

/*
 * $$parms tables of probe i (struct stp_tp_parm[], see runtime/pretty.h),
 * one per mode the body uses: mode 0 prints each argument "%p" (a
 * pointer) or "%#x", modes 1 and 2 its pretty printing ("=?" when its
 * type is unknown), as SystemTap 4.8 does.
 */
static void gen_tp_parms(struct cg *cg, FILE *out, int i)
{
	const struct derived_probe *dp = cg->prog->probes[i];
	const struct tracepoint_info *tp = tp_of(dp)->tp;

	for (int m = 0; m < 3; m++) {
		if (!(dp->body->parms_modes & (1u << m)))
			continue;
		for (int k = 0; m && k < tp->nargs; k++) {
			const struct pretty *p = tp_of(dp)->parms_pretty[m] ?
				tp_of(dp)->parms_pretty[m][k] : NULL;
			if (!p)
				continue;
			fprintf(out, "static const struct stp_pp_item "
				"stp_tppi_%d_%d_%d[] = {\n", i, m, k);
			pretty_items(cg, out, p, "\t");
			fprintf(out, "};\nstatic const struct stp_pretty "
				"stp_tpp_%d_%d_%d = { stp_tppi_%d_%d_%d, %d };\n",
				i, m, k, i, m, k, p->nitems);
		}
		fprintf(out, "static const struct stp_tp_parm stp_tp_parms_%d_%d[] "
			"= {\n", i, m);
		for (int k = 0; k < tp->nargs; k++) {
			const char *name = tp->args[k].name;
			const char *sep = k ? " " : "";
			if (!m) {
				fprintf(out, "\t{ \"%s%s=\", &stp_pp_%s, %d },\n",
					sep, name, strchr(tp->args[k].c_type, '*') ?
					"ptr" : "hex", k);
			} else if (tp_of(dp)->parms_pretty[m] &&
				   tp_of(dp)->parms_pretty[m][k]) {
				fprintf(out, "\t{ \"%s%s=\", &stp_tpp_%d_%d_%d, "
					"%d },\n", sep, name, i, m, k, k);
			} else {
				fprintf(out, "\t{ \"%s%s=?\", NULL, %d },\n", sep,
					name, k);
			}
		}
		fputs("\t{ NULL }\n};\n", out);
	}
}

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_TRACEPOINT";
}

/* A probe whose callback checks the body's filter itself (tp_filter). */
static bool filters(const struct derived_probe *dp)
{
	const struct symbol *arg;
	int64_t value;

	return tp_typed(dp) && tp_filter(dp, &arg, &value);
}

/*
 * The typed callbacks and their dispatch groups (kept for the table's
 * fields), the $$parms tables, and a lean body's own callback on its
 * first untyped probe: the counts compile to immediates.
 */
static void support(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	int *group = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*group));
	bool parms = false;

	struct tp_abi **abis = xmalloc((size_t)(prog->nprobes + 1) *
				       sizeof(*abis));

	*family_state(cg, &tracepoint_family) = group;
	gen_tp_callbacks(cg, out, group, abis);
	free(abis);
	for (int i = 0; i < prog->nprobes; i++)
		parms |= tp_typed(prog->probes[i]) &&
			 prog->probes[i]->body->parms_modes;
	if (parms)
		fputs("\n/* $$parms */\n"
		      "static const struct stp_pp_item stp_ppi_hex[] = {\n"
		      "\t{ \"\", 'x', STP_PP_VALUE }, { \"\" } };\n"
		      "static const struct stp_pretty stp_pp_hex __maybe_unused = "
		      "{ stp_ppi_hex, 2 };\n"
		      "static const struct stp_pp_item stp_ppi_ptr[] = {\n"
		      "\t{ \"\", 'p', STP_PP_VALUE }, { \"\" } };\n"
		      "static const struct stp_pretty stp_pp_ptr __maybe_unused = "
		      "{ stp_ppi_ptr, 2 };\n", out);
	for (int i = 0; i < prog->nprobes; i++)
		if (tp_typed(prog->probes[i]) &&
		    prog->probes[i]->body->parms_modes)
			gen_tp_parms(cg, out, i);
	/* an untyped probe with a handler: its own callback, the
	 * handler inlined */
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		int b = dp->body->index;
		if (dp->family == &tracepoint_family && !tp_typed(dp) &&
		    (cg->nlean[b] < 0 || cg->filtered[b]))
			fprintf(out, "STP_TP_HIT(stp_tp_hit_%d, stp_run_%d, "
				"&stp_probes[%d])\n", i, b,
				table_index(prog, i));
	}
	/* a lean body's hit: with its first untyped probe's entry */
	int *first = xmalloc(((size_t)prog->nbodies + 1) * sizeof(*first));
	for (int b = 0; b < prog->nbodies; b++)
		first[b] = -1;
	for (int i = prog->nprobes - 1; i >= 0; i--) {
		const struct derived_probe *dp = prog->probes[i];
		if (dp->family == &tracepoint_family && !tp_typed(dp))
			first[dp->body->index] = i;
	}
	for (int b = 0; b < prog->nbodies; b++)
		if (cg->nlean[b] >= 0 && !cg->filtered[b] && first[b] >= 0)
			fprintf(out, "STP_TP_LEAN_HIT(stp_tp_lean_%d, "
				"&stp_probes[%d])\n", b,
				table_index(prog, first[b]));
	free(first);
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct derived_probe *dp = cg->prog->probes[i];
	const int *group = *family_state(cg, &tracepoint_family);
	int lb = dp->body->index;

	fprintf(out, ",\n\t  .tp_name = %s",
		c_string(cg, tp_of(dp)->name, strlen(tp_of(dp)->name)));
	if (tp_of(dp)->tp)
		fprintf(out, ", .tp_system = %s",
			c_string(cg, tp_of(dp)->tp->system, strlen(tp_of(dp)->tp->system)));
	if (tp_of(dp)->tp && tp_of(dp)->tp->in_module)
		fputs(", .tp_in_module = true", out);
	if (tp_typed(dp) && group[i] >= 0 && group[i] != i)
		fprintf(out, ",\n\t  .tp_shared = true");
	else if (tp_typed(dp))
		fprintf(out, ",\n\t  .tp_callback = stp_tp_cb_%d", i);
	else if (cg->nlean[lb] >= 0 && !cg->filtered[lb])
		fprintf(out, ",\n\t  .tp_callback = stp_tp_lean_%d", lb);
	else
		fprintf(out, ",\n\t  .tp_callback = stp_tp_hit_%d", i);
	if (tp_typed(dp) && dp->body->parms_modes) {
		fputs(",\n\t  .tp_parms = {", out);
		for (int m = 0; m < 3; m++)
			if (dp->body->parms_modes & (1u << m))
				fprintf(out, " [%d] = stp_tp_parms_%d_%d,",
					m, i, m);
		fputs(" }", out);
	}
}

/* $$parms (three modes), $$system, $$name. */
static const char *context_value(struct cg *cg, struct node *n)
{
	const char *name = n->kind == N_ATFUNC ? n->call.name :
			   n->target.name;

	if (!strncmp(name, "$$parms", 7) || !strncmp(name, "$$vars", 6)) {
		/* $$parms, $$parms$, $$parms$$: mode 0, 1, 2 */
		const char *t = tmp_string(cg), *scratch = tmp_string(cg);
		size_t len = strlen(name), mode = 0;
		while (mode < 2 && name[len - 1 - mode] == '$')
			mode++;
		emit(cg, "stp_tp_parms(c, %s, %zu, %s);", t, mode, scratch);
		return t;
	}
	if (!strcmp(name, "$$system"))
		return "c->probe->tp_system";
	if (!strcmp(name, "$$name"))
		return "c->probe->tp_name";
	unsupported(cg, n, ast_kind_name(n->kind));
	return "0";
}

static const struct family_emit module = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.own_hits = true,
	.filters = filters,
	.support = support,
	.fields = fields,
	.context = context_value,
};

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
	.module = &module,
};
