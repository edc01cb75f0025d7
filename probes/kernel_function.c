// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.function("PATTERN[@FILE]") entry (.call, .inline) and .return
 * probes, and kernel.statement("FUNC[@FILE][:LINE|+N|:*]"): the functions
 * and lines of the target kernel's function catalog (target/, from the
 * debug vmlinux's DWARF), one derived probe per function or inlined copy
 * or statement address, with the function's variables as context values:
 * DWARF locations at the probed address as C over pt_regs
 * (kernel_function_vars.c), member chains through BTF,
 * $$parms/$$locals/$$vars/$$return, @entry(...) and $return in .return
 * probes, writes in guru mode. -l/-L: kernel_function_list.c.
 *
 * Two family objects share this file: entry and statement probes, and
 * .return probes, whose context differs ($return, @entry, values taken at
 * the entry); a body has the context of one of them only.
 */
#include "probes/kernel_function.h"
#include "probes/listing.h"
#include "target/moddebug.h"

#include <elf.h>
#include <limits.h>
#include <stdlib.h>

/* The BTF scope of module's types (its .BTF on top of vmlinux's), or -1. */
static int kf_module_btf(struct sema *se, const char *module)
{
	struct target *t = se->s->target;
	const char *file = t ? target_module_file(t, module) : NULL, *err;
	int scope = file ? target_module_btf(t, file, &err) : 0;

	return scope > 0 ? scope : -1;
}

/*
 * $x, $x->f..., $x[N] or (addr_of) &$x in a kernel.function body: a
 * context slot of its own, like a tracepoint's, whose root each derived
 * probe locates in its own function (dp->kf_locs); the member chain must
 * have the same layout in all of them. In a .return probe every such
 * value is taken at the entry (SystemTap 4.8: $param means
 * @entry($param) there).
 */
static enum type infer_kfvar(struct sema *se, struct node *n, bool addr_of,
			     bool write, bool whole)
{
	struct probe_body *b = sema_ctx(se);
	struct arena *a = &se->s->arena;
	const char *root = context_root(n);

	if (n->kind == N_TINDEX)
		infer(se, n->target.index, TY_LONG);
	if (!addr_of && !write) {
		int depth = context_pretty_depth(se, n);
		if (depth) {
			/* $file$, $file->f_inode$$: the pretty printing of
			 * the value this family reads */
			struct node *base = n->target.base;
			const char *unknown = n->kind == N_TARGET ?
					      kf_pretty_unknown(se, base, depth) :
					      NULL;
			if (unknown) {
				n->kind = N_STRING;
				n->str.value = unknown;
				n->str.len = strlen(unknown);
				n->sym = NULL;
				return n->type = TY_STRING;
			}
			/* $x$$ of a struct (kuid_t): its address */
			if (base->kind == N_TARGET)
				infer_kfvar(se, base, false, false, true);
			else
				infer(se, base, TY_LONG);
			if (!base->sym || (n->sym && n->sym->kind == SYM_TYPED))
				return n->type = TY_STRING;
			return infer_context_pretty(se, n, base, depth);
		}
	}
	if (addr_of && root && !strcmp(root, "$return")) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot take address of "
				   "'$return': the return value is in a "
				   "register");
		return n->type = TY_LONG;
	}
	if (root && root[1] == '$' && n->kind == N_TARGET && !addr_of && !write)
		return infer_kf_dollars(se, n, root);
	if (!root || root[1] == '$') {
		if (se->report)
			diag_error(se->s, n->loc, "'%s' of kernel.function "
				   "probes is not supported yet",
				   root ? root : "this expression");
		return n->type = TY_LONG;
	}
	char *key = context_key(a, n);
	const struct srcfile *sf = session_file(se->s, n->loc.file);
	if (se->report && !se->in_entry && !write &&
	    body_all_of(se, b, &kernel_return_family) &&
	    !(sf && sf->privileged))
		diag_warning(se->s, n->loc, "confusing usage, value is captured "
			     "as @entry(%s) in .return probe [man stapprobes] "
			     "RETURN PROBES", key);
	if (addr_of || write || whole)
		key = arena_printf(a, "%s%s", write ? "=" : addr_of ? "&" : "*",
				   key);
	for (int i = 0; i < b->nctxvars; i++)
		if (!strcmp(b->ctxvars[i]->name, key)) {
			n->sym = b->ctxvars[i];
			return n->type = TY_LONG;
		}
	if (b->nctxvars >= 64) {
		if (se->report)
			diag_error(se->s, n->loc, "too many context values in "
				   "one probe (at most 64)");
		return n->type = TY_LONG;
	}
	struct btf *btf = sema_btf(se);
	const char *dw_err = NULL;
	if (!btf) {
		if (se->report)
			diag_error(se->s, n->loc, "cannot resolve '%s': %s", key,
				   se->btf_err);
		return n->type = TY_LONG;
	}
	struct member_path *path = NULL;
	const struct derived_probe *first = NULL;
	unsigned write_size = 0;
	struct kf_loc **locs = arena_alloc(a, (size_t)se->prog->nprobes *
					   sizeof(*locs));
	const char *dropped = NULL;
	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (kf_of(dp)->dropped) {
			dropped = kf_of(dp)->dropped;
			continue;
		}
		if (kf_of(dp)->module && !kf_of(dp)->btf_scope)
			kf_of(dp)->btf_scope = kf_module_btf(se, kf_of(dp)->module);
		struct dwloc_file *dw = kf_dwarf(se, dp, &dw_err);
		if (!dw) {
			if (se->report)
				diag_error(se->s, n->loc, "cannot resolve '%s': "
					   "%s", key, dw_err);
			return n->type = TY_LONG;
		}
		const char *type = kf_var_type(dp, root + 1);
		if (!type)
			type = kf_global_type(a, dw, dp, root + 1);
		const struct node *at = n;
		struct member_path p;
		const char *msg;
		locs[i] = arena_alloc(a, sizeof(*locs[i]));
		if (!type)
			msg = kf_missing_var(se, dw, dp, root + 1);
		else
			msg = kf_var_resolve(a, btf, dw, dp, type, n, addr_of, write,
					     whole, locs[i], &p, &at);
		if (msg && kf_of(dp)->inlined) {
			/* an inlined copy may keep no trace of a variable
			 * the function's own copy has: that copy goes */
			dropped = arena_printf(a, "the inlined copy at 0x%"
					       PRIx64 " of %s: %s", kf_of(dp)->addr,
					       dp->pp, msg);
			kf_of(dp)->dropped = dropped;
			kf_of(dp)->dropped_at = n;
			continue;
		}
		if (msg) {
			if (se->report)
				diag_error(se->s, (at ? at : n)->loc, "%s (in %s)",
					   msg, dp->pp);
			return n->type = TY_LONG;
		}
		if (path && (!member_path_equal(path, &p) ||
			     locs[i]->write_size != write_size)) {
			if (se->report)
				diag_error(se->s, n->loc, "'%s' has another "
					   "layout in %s than in %s", key,
					   dp->pp, first->pp);
			return n->type = TY_LONG;
		}
		if (!path) {
			path = arena_alloc(a, sizeof(*path));
			*path = p;
			first = dp;
			write_size = locs[i]->write_size;
		}
	}
	if (!path) {	/* every copy was an inlined one without it */
		if (se->report)
			diag_error(se->s, n->loc, "%s", dropped ? dropped :
				   "no copy of the function");
		return n->type = TY_LONG;
	}
	struct symbol *sym = add_context_slot(se, b, n, key);
	sym->member_path = path && path->nsteps ? path : NULL;
	sym->ctx_root = root + 1;
	sym->may_fault = true;
	sym->write_size = write_size;
	for (int i = 0; i < se->prog->nprobes; i++) {
		struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != b)
			continue;
		if (!kf_of(dp)->locs)
			kf_of(dp)->locs = arena_alloc(a, 64 * sizeof(*kf_of(dp)->locs));
		kf_of(dp)->locs[sym->index] = locs[i];
	}
	n->sym = sym;
	return n->type = TY_LONG;
}

static enum type infer_entry(struct sema *se, struct node *n, enum type want)
{
	struct node *arg = n->call.args;

	if (!body_all_of(se, se->body, &kernel_return_family)) {
		if (se->report)
			diag_error(se->s, n->loc, "@entry is only valid in "
				   ".return probes");
		return TY_UNKNOWN;
	}
	if (!arg || arg->next) {
		if (se->report)
			diag_error(se->s, n->loc, "@entry takes one expression");
		return TY_UNKNOWN;
	}
	const struct node *bad = entry_not_constant(arg);
	if (bad && bad->kind == N_TARGET) {
		if (se->report)
			diag_error(se->s, bad->loc, "'$return' has no value at "
				   "the entry");
		return TY_UNKNOWN;
	}
	if (bad && se->body->func) {
		/* the handler computes it at the entry, outside the function */
		if (se->report)
			diag_error(se->s, bad->loc, "@entry(...) of anything but "
				   "context variables, constants and operators "
				   "is not supported in a function yet");
		return TY_UNKNOWN;
	}
	se->in_entry++;
	n->type = infer(se, arg, bad ? TY_LONG : want);
	se->in_entry--;
	if (!bad)
		return n->type;
	/* run at the entry by the handler itself (see codegen) */
	if (n->type == TY_STRING) {
		if (se->report)
			diag_error(se->s, n->loc, "a string @entry(...) that "
				   "calls functions is not supported yet");
		return n->type;
	}
	if (!n->sym) {
		struct probe_body *b = se->body;
		n->sym = arena_alloc(&se->s->arena, sizeof(*n->sym));
		n->sym->name = "@entry";
		n->sym->kind = SYM_CONTEXT;
		n->sym->type = TY_LONG;
		n->sym->loc = n->loc;
		n->sym->index = b->nentry_values;
		GROW(se, b->entry_values, b->nentry_values, b->entry_values_cap);
		b->entry_values[b->nentry_values++] = n;
	}
	return n->type = TY_LONG;
}

/* @defined($x) in a kernel.function body: does every function have it?
 * $$vars, $$parms and $$locals always are (a text, maybe empty), $$return
 * in .return probes; $x$ and $x$$ when $x is. */
static int kf_defined(struct sema *se, const char *name)
{
	const char *base;

	if (pretty_suffix(&se->s->arena, name, &base))
		name = base;
	if (!strcmp(name, "$$vars") || !strcmp(name, "$$parms") ||
	    !strcmp(name, "$$locals"))
		return 1;
	if (!strcmp(name, "$$return"))
		name = "$return";
	for (int i = 0; i < se->prog->nprobes; i++) {
		const struct derived_probe *dp = se->prog->probes[i];
		if (dp->body != sema_ctx(se))
			continue;
		if (!strcmp(name, "$return") ? dp->family != &kernel_return_family ||
		    !kf_of(dp)->symbol : !kf_var_type(dp, name + 1))
			return 0;
	}
	return 1;
}


/* The target kernel's function catalog (from its debug vmlinux); or NULL. */
static const struct kf_catalog *kf_catalog(struct sema *se,
					  const char **err)
{
	const struct target *t = se->s->target;

	if (!t) {
		*err = "no target kernel release";
		return NULL;
	}
	if (!t->debug_vmlinux) {
		*err = arena_printf(&se->s->arena, "kernel.function needs "
					  "debuginfo: install linux-image-%s-dbg "
					  "(missing %s)", t->release,
					  t->debug_tried ? t->debug_tried :
					  "its debug vmlinux");
		return NULL;
	}
	return target_functions(se->s->target, err);
}

/*
 * The link-time address of an exported function the runtime finds the
 * KASLR offset with; 0 when the catalog has none.
 */
static uint64_t kf_anchor(struct sema *se, const struct kf_catalog *cat)
{
	/* exported functions every kernel has: _printk since 5.15 */
	static const char *const anchors[] = { "_printk", "printk", "kfree" };
	struct kf_query q = { .line = -1, .kind = KF_EXPORTED_ONLY,
			      .guru = true };
	void **slot = program_family_data(se->prog, &kernel_function_family);
	struct kf_anchor *anchor = *slot;
	struct kf_point *pts = NULL;
	int n;

	if (anchor)
		return anchor->addr;
	for (size_t i = 0; i < sizeof(anchors) / sizeof(anchors[0]) &&
			   !anchor; i++) {
		q.func = anchors[i];
		n = kf_catalog_match(cat, &q, &pts);
		if (n == 1 && pts[0].ninst >= 1 &&
		    !(pts[0].inst[0]->flags & KF_INST_INLINE)) {
			anchor = arena_alloc(&se->s->arena, sizeof(*anchor));
			anchor->addr = pts[0].inst[0]->addr;
			anchor->sym = anchors[i];
			*slot = anchor;
		}
		kf_points_free(pts, n);
	}
	return anchor ? anchor->addr : 0;
}

/* What in a body needs bodies per point: KF_OWN_DEFINED for @defined(...),
 * KF_OWN_DOLLARS for $$parms, $$vars, $$locals, $$return (and their
 * pretty forms) and $x$, whose text is each copy's own variables; in the
 * body or in the functions it calls that read the probe's context (each
 * body gets copies of those: sema_visit_reached). */
enum { KF_OWN_DEFINED = 1, KF_OWN_DOLLARS = 2 };

static void find_defined(struct node *n, void *arg)
{
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@defined"))
		*(int *)arg |= KF_OWN_DEFINED;
	if (n->kind == N_TARGET && !strncmp(n->target.name, "$$", 2))
		*(int *)arg |= KF_OWN_DEFINED | KF_OWN_DOLLARS;
	/* $x$: "?" where x has no location, the value elsewhere */
	if (n->kind == N_TARGET && n->target.name[1] != '$' &&
	    n->target.name[strlen(n->target.name) - 1] == '$')
		*(int *)arg |= KF_OWN_DOLLARS;
}

/* Has another point of the probe given body b a derived probe already? */
static bool kf_body_used(const struct program *prog,
			 const struct probe_body *b)
{
	for (int i = prog->nprobes - 1; i >= 0; i--)
		if (prog->probes[i]->body == b)
			return true;
	return false;
}

static int module_catalogs(struct sema *se, struct node *point,
			   const char *pattern,
			   const struct kf_catalog ***cats,
			   const char ***names);

/*
 * .nearest of "FUNC@FILE:LINE" whose line has no code: the line with
 * code nearest to LINE inside a copy of the function (the later one of
 * two as near, as 4.8 picks), as "FUNC@FILE:NEAR"; NULL when the form
 * is another or LINE is too far outside the function's lines.
 */
static const char *nearest_line(struct sema *se, const struct kf_catalog *cat,
				const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char *end;

	if (!colon || !strchr(arg, '@') || colon < strchr(arg, '@'))
		return NULL;
	long line = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end)
		return NULL;
	const char *all = arena_printf(&se->s->arena, "%.*s:*",
				       (int)(colon - arg), arg);
	struct kf_stmt *pts = NULL;
	char *e = NULL;
	int n = kf_statement_points(cat, cat->vmlinux, all, se->s->guru,
				    false, &pts, &e);
	int lo = INT_MAX, hi = INT_MIN, best = -1;

	for (int i = 0; i < n; i++) {
		lo = pts[i].line < lo ? pts[i].line : lo;
		hi = pts[i].line > hi ? pts[i].line : hi;
		long d = labs(pts[i].line - line);
		if (best < 0 || d < labs(best - line) ||
		    (d == labs(best - line) && pts[i].line > best))
			best = pts[i].line;
	}
	if (n > 0)
		kf_stmts_free(pts, n);
	free(e);
	/* 4.8 takes a line up to 5 before the function's first line with
	 * code or after its last (measured on vfs_read, 6.1) */
	if (n <= 0 || line < lo - 5 || line > hi + 5)
		return NULL;
	return arena_printf(&se->s->arena, "%.*s:%d", (int)(colon - arg),
			    arg, best);
}

static int expand_kstatement(struct sema *se, struct node *point,
			     struct derived_probe *dp, struct probe_body *b)
{
	int per_point = 0;
	struct probe_body *pb = b;

	struct program *prog = se->prog;
	const char *module = kf_of(dp)->module;
	struct node *st = point->point.comps->next;
	const char *arg = st->comp.arg->str.value;
	const struct target *t = se->s->target;
	const struct kf_catalog *cat = NULL, **cats = &cat;
	const char **mods = NULL;
	int ncats = 1, derived = 0;
	char *err = NULL;

	if (module) {
		ncats = module_catalogs(se, point, module, &cats, &mods);
		if (ncats < 0)
			return 0;
	} else {
		if (!t || !t->debug_vmlinux)
			return point_error(se, point, st, arena_printf(
				&se->s->arena, "kernel.statement needs "
				"debuginfo: install linux-image-%s-dbg "
				"(missing %s)", t ? t->release : "?",
				t && t->debug_tried ? t->debug_tried :
				"its debug vmlinux"));
		const char *why = NULL;
		if (!(cat = kf_catalog(se, &why)))
			return point_error(se, point, st, arena_printf(
				&se->s->arena, "cannot resolve "
				"kernel.statement: %s", why ? why :
				"no catalog"));
		if (!kf_anchor(se, cat))
			return point_error(se, point, st, arena_printf(
				&se->s->arena, "no match for probe point "
				"'%s': no anchor for the kernel's KASLR offset",
				point_string(se, point)));
	}
	/* each line's copies share a body: its own one when the body asks
	 * @defined (the variables differ from line to line), and each
	 * address its own for $$vars (its variables' locations differ) */
	sema_visit_reached(se, b->probe->probe.body, find_defined, &per_point);
	if ((per_point & KF_OWN_DOLLARS) && kf_body_used(prog, b))
		pb = sema_own_body(se, b);
	for (int c = 0; c < ncats; c++) {
		struct kf_stmt *pts = NULL;
		char *e = NULL;
		int n = kf_statement_points(cats[c], cats[c]->vmlinux, arg,
					    se->s->guru, true, &pts, &e);
		const char *near = !n && kf_of(dp)->nearest ?
				   nearest_line(se, cats[c], arg) : NULL;
		if (near) {
			free(e);
			e = NULL;
			n = kf_statement_points(cats[c], cats[c]->vmlinux,
						near, se->s->guru, true, &pts,
						&e);
		}
		if (n == -2) {
			free(cats == &cat ? NULL : cats);
			return point_error(se, point, st, "kernel.statement "
					   "needs \"FUNCTION\", \"FUNCTION@FILE\", "
					   "\"FUNCTION@FILE:LINE\", \"FUNCTION@"
					   "FILE:FIRST-LAST\", \"FUNCTION@FILE:*\""
					   " or \"FUNCTION@FILE+OFFSET\"");
		}
		if (n < 0) {
			point_error(se, point, st, arena_printf(&se->s->arena,
				    "cannot resolve %s: %s", module ?
				    "module statements" : "kernel.statement",
				    e));
			free(e);
			free(cats == &cat ? NULL : cats);
			return 0;
		}
		if (!err && e)
			err = e;
		else
			free(e);
		const char *root = mods ? arena_printf(&se->s->arena,
				       "module(\"%s\")", mods[c]) : "kernel";
		for (int i = 0; i < n; i++) {
			struct derived_probe *d = sema_clone_derived(se, dp);
			if (per_point && derived > 0 &&
			    ((per_point & KF_OWN_DOLLARS) || i == 0 ||
			     pts[i].line != pts[i - 1].line ||
			     strcmp(pts[i].func, pts[i - 1].func) ||
			     strcmp(pts[i].file, pts[i - 1].file)))
				pb = sema_own_body(se, b);
			kf_of(d)->module = mods ? mods[c] : NULL;
			kf_of(d)->addr = pts[i].addr;
			kf_of(d)->entry_pc = pts[i].entry;
			kf_of(d)->cu = pts[i].cu;
			kf_of(d)->symbol = arena_strdup(&se->s->arena, pts[i].func);
			kf_of(d)->nvars = 0;
			while (pts[i].vars[kf_of(d)->nvars])
				kf_of(d)->nvars++;
			kf_of(d)->vars = arena_alloc(&se->s->arena,
				((size_t)kf_of(d)->nvars + 1) *
				sizeof(*kf_of(d)->vars));
			for (int v = 0; v < kf_of(d)->nvars; v++)	/* without the '$' */
				kf_of(d)->vars[v] = arena_strdup(&se->s->arena,
							     pts[i].vars[v] + 1);
			d->pp = arena_printf(&se->s->arena,
					     "%s.statement(\"%s@%s:%d\")", root,
					     pts[i].func, pts[i].file,
					     pts[i].line);
			/* 4.8's derivation: the line found, .nearest */
			if (kf_of(dp)->nearest)
				d->pp_from = arena_printf(&se->s->arena,
							  "%s.nearest", d->pp);
			d->body = pb;
			GROW(se, prog->probes, prog->nprobes, prog->probes_cap);
			prog->probes[prog->nprobes++] = d;
			derived++;
		}
		kf_stmts_free(pts, n);
	}
	if (!derived)
		point_error(se, point, st, arena_printf(&se->s->arena,
			    "no match for probe point '%s': %s",
			    point_string(se, point), err ? err :
			    "no module has debuginfo"));
	free(err);
	free(cats == &cat ? NULL : cats);
	return derived;
}

/*
 * The instance whose DWARF gives d's context variables (dwloc.c finds
 * out-of-line and inlined copies by entry pc), with its variables copied
 * out of the catalog (freed before types are inferred).
 */
static void kf_keep_instance(struct sema *se, struct derived_probe *d,
			     const struct kf_catalog *cat,
			     const struct kf_inst *in)
{
	struct kf_probe *kf = kf_of(d);
	const uint32_t *list = cat->lists[in->vars];

	kf->addr = in->addr;
	kf->cu = in->cu;
	kf->nvars = (int)list[0];
	kf->vars = arena_alloc(&se->s->arena, (list[0] + 1) *
				 sizeof(*kf->vars));
	for (uint32_t v = 0; v < list[0]; v++)
		kf->vars[v] = arena_strdup(&se->s->arena,
					     cat->vars[list[1 + v]]);
}

/*
 * The size and signedness of a .return probe's $return: its function's
 * DWARF return type (as -L spells it) resolved through BTF. Left 0 (the
 * whole register) for a type BTF does not know or wider than 8 bytes.
 */
static void kf_ret_type(struct sema *se, struct derived_probe *d,
			const struct kfunc *f)
{
	struct kf_probe *kf = kf_of(d);
	struct btf *btf;
	struct btf_info bi;
	int id;

	kf->ret_size = 0;
	kf->ret_signed = false;
	kf->ret_ctype = d->family == &kernel_return_family ? f->ret_type : NULL;
	if (d->family != &kernel_return_family || !f->ret_type || !(btf = sema_btf(se)))
		return;
	id = btf_find_type(btf, f->ret_type);
	if (id <= 0)
		return;
	btf_resolve(btf, id, &bi);
	if ((bi.cls == BTF_CLASS_INT || bi.cls == BTF_CLASS_ENUM) &&
	    (bi.size == 1 || bi.size == 2 || bi.size == 4 || bi.size == 8)) {
		kf->ret_size = bi.size;
		kf->ret_signed = bi.is_signed;
	}
}

static void find_return(struct node *n, void *arg)
{
	if (n->kind == N_TARGET && !strcmp(n->target.name, "$return"))
		*(bool *)arg = true;
}

/*
 * Does body b already serve a .return probe whose $return has another
 * size or signedness than d's? Then d's function gets a body of its own
 * (sema_own_body): SystemTap elaborates each function apart, so in
 * kernel.function("vfs_*").return an int function's -22 is -22 while
 * ssize_t ones share a body; so do the points of a comma list.
 */
static bool kf_return_differs(const struct program *prog,
			      const struct probe_body *b,
			      const struct derived_probe *d)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *o = prog->probes[i];
		if (o->body == b && o->family == &kernel_return_family &&
		    (kf_of(o)->ret_size != kf_of(d)->ret_size ||
		     kf_of(o)->ret_signed != kf_of(d)->ret_signed))
			return true;
	}
	return false;
}

/* " (similar functions: a, b, c)" for a name no function has (a typo:
 * vfs_raed); "" for a pattern or when nothing is close. */
static const char *similar_functions(struct sema *se,
				     const struct kf_catalog *cat,
				     const char *name)
{
	struct similar sm;

	similar_init(&sm, name);
	for (int i = 0; i < cat->n; i++) {
		const char *f = cat->funcs[i].name;
		if (i && !strcmp(f, cat->funcs[i - 1].name))
			continue;	/* sorted: one name, several files */
		similar_add(&sm, f);
	}
	return similar_text(se, &sm);
}

/*
 * kernel.function("PATTERN[@FILE]")[.call|.inline|.return]: one derived
 * probe per instance, as SystemTap: a plain point covers the out-of-line
 * copies and the inlined ones, .call only the out-of-line copies, .inline
 * only the inlined ones, .return the out-of-line copies. Each carries its
 * link-time entry pc (the runtime relocates it by the KASLR offset, which
 * costs nothing per function). The functions of catalog cat, module
 * module's (NULL: the kernel's); *functions counts the functions given
 * probes so far. Returns how many probes were appended.
 */
static int expand_in(struct sema *se, struct derived_probe *dp,
		     struct probe_body *b,
		     const struct kf_catalog *cat, const char *module,
		     const struct kf_query *q, int *functions)
{
	struct program *prog = se->prog;
	struct kf_point *pts = NULL;
	const char *sfx = kf_of(dp)->suffix ? kf_of(dp)->suffix : "";
	const char *root = module ? arena_printf(&se->s->arena,
						 "module(\"%s\")", module) :
			   "kernel";
	int n, derived = 0;

	if (!module)
		kf_anchor(se, cat);
	n = kf_catalog_match(cat, q, &pts);
	int per_function = 0;
	sema_visit_reached(se, b->probe->probe.body, find_defined,
			   &per_function);
	if (n < 2 && !module)
		per_function &= KF_OWN_DOLLARS;
	bool reads_return = false;
	if (dp->family == &kernel_return_family)
		sema_visit_reached(se, b->probe->probe.body, find_return,
				   &reads_return);
	for (int i = 0; i < n; i++) {
		const struct kfunc *f = pts[i].f;
		const char *pp;

		if (*f->file && f->line > 0)
			pp = arena_printf(&se->s->arena,
					  "%s.function(\"%s@%s:%d\")%s", root,
					  f->name, f->file, f->line, sfx);
		else
			pp = arena_printf(&se->s->arena,
					  "%s.function(\"%s\")%s", root,
					  f->name, sfx);
		/* each function's copies share a body: its own one when the
		 * body asks @defined or reads $return of mixed types (see
		 * sema_own_body) */
		struct probe_body *fb = per_function && *functions ?
					sema_own_body(se, b) : b;
		if (!*functions && (per_function & KF_OWN_DOLLARS) &&
		    kf_body_used(prog, b))
			fb = sema_own_body(se, b);
		if (reads_return && !per_function) {
			struct kf_probe t = *kf_of(dp);
			kf_ret_type(se, &t.dp, f);
			if (kf_return_differs(prog, b, &t.dp))
				fb = sema_own_body(se, b);
		}
		(*functions)++;
		for (int k = 0; k < pts[i].ninst; k++) {
			const struct kf_inst *in = pts[i].inst[k];
			struct derived_probe *d = sema_clone_derived(se, dp);
			/* $$parms: each inlined copy's own (SystemTap's
			 * derived probes are per address) */
			if (k && (per_function & KF_OWN_DOLLARS))
				fb = sema_own_body(se, b);
			kf_of(d)->symbol = arena_strdup(&se->s->arena, f->name);
			kf_of(d)->module = module;
			kf_ret_type(se, d, f);
			/* a function only in the symbol table has no DWARF */
			if (!(f->flags & KF_SYMTAB))
				kf_keep_instance(se, d, cat, in);
			kf_of(d)->addr = in->addr;
			kf_of(d)->inlined = in->flags & KF_INST_INLINE;
			d->pp = pp;
			d->body = fb;
			GROW(se, prog->probes, prog->nprobes,
			     prog->probes_cap);
			prog->probes[prog->nprobes++] = d;
			derived++;
		}
	}
	kf_points_free(pts, n);
	return derived;
}

/*
 * The catalogs of the modules module("PATTERN") names (their debug files
 * extracted in one pass), in *cats (malloc'ed) with their names in
 * *names: the count, or -1 after an error at the point (a module named
 * without a wildcard and without debuginfo, or no module matching).
 */
static int module_catalogs(struct sema *se, struct node *point,
			   const char *pattern,
			   const struct kf_catalog ***cats,
			   const char ***names)
{
	struct target *t = se->s->target;
	const char **mods, *err = NULL;
	bool wild = strpbrk(pattern, "*?[") != NULL;
	int n, k = 0;

	*cats = NULL;
	if (!t) {
		point_error(se, point, point->point.comps,
			    "no target kernel release");
		return -1;
	}
	n = target_modules_matching(t, pattern, &mods);
	if (!n) {
		point_error(se, point, point->point.comps, arena_printf(
			&se->s->arena, "no match for probe point '%s': the "
			"target kernel has no module '%s'",
			point_string(se, point), pattern));
		return -1;
	}
	if (target_modules_debug_fetch(t, mods, n, &err) != 0 && !wild) {
		point_error(se, point, point->point.comps, arena_printf(
			&se->s->arena, "cannot resolve '%s': %s",
			point_string(se, point), err));
		return -1;
	}
	*cats = xmalloc((size_t)n * sizeof(**cats));
	*names = mods;
	for (int i = 0; i < n; i++) {
		const struct kf_catalog *c = target_module_functions(t, mods[i],
								     &err);
		if (!c && !wild) {
			point_error(se, point, point->point.comps, arena_printf(
				&se->s->arena, "cannot resolve '%s': %s",
				point_string(se, point), err));
			free(*cats);
			return -1;
		}
		if (c) {	/* a wildcard skips modules without debuginfo */
			mods[k] = mods[i];
			(*cats)[k++] = c;
		}
	}
	if (!k) {
		point_error(se, point, point->point.comps, arena_printf(
			&se->s->arena, "cannot resolve '%s': no module it "
			"names has debuginfo (%s)", point_string(se, point),
			err ? err : "?"));
		free(*cats);
		return -1;
	}
	return k;
}

static int expand_kfunc(struct sema *se, struct node *point,
			struct derived_probe *dp, struct probe_body *b)
{
	struct kf_probe *kf = kf_of(dp);
	struct node *fn = point->point.comps->next;
	if (kf->statement)
		return expand_kstatement(se, point, dp, b);
	const char *why = NULL;
	const struct kf_catalog *cat = NULL, **cats = &cat;
	const char **mods = NULL;
	struct kf_query q = { .line = -1, .guru = se->s->guru };
	char *pattern = arena_strdup(&se->s->arena, fn->comp.arg->str.value);
	char *at = strchr(pattern, '@'), msg[512];
	const char *sfx = kf->suffix ? kf->suffix : "";
	int ncats = 1, derived = 0, functions = 0;

	if (kf->module) {
		ncats = module_catalogs(se, point, kf->module, &cats, &mods);
		if (ncats < 0)
			return 0;
	} else if (!(cat = kf_catalog(se, &why))) {
		snprintf(msg, sizeof(msg), "cannot resolve kernel functions: %s",
			 why);
		point_error(se, point, fn, msg);
		return 0;
	}
	if (at) {
		char *colon = strchr(at + 1, ':');
		*at = '\0';
		q.file = at + 1;
		if (colon) {
			*colon = '\0';
			q.line = atoi(colon + 1);
		}
	}
	q.func = pattern;
	q.kind = dp->family == &kernel_return_family ? KF_RETURN :
		 !strcmp(sfx, ".call") ? KF_CALL :
		 !strcmp(sfx, ".inline") ? KF_INLINE :
		 !strcmp(sfx, ".exported") ? KF_EXPORTED_ONLY : KF_ANY;
	for (int i = 0; i < ncats; i++)
		derived += expand_in(se, dp, b, cats[i],
				     mods ? mods[i] : NULL, &q, &functions);
	if (!derived) {
		if (q.kind == KF_INLINE)
			snprintf(msg, sizeof(msg), "no match for probe point "
				 "'%s': no inlined copies",
				 point_string(se, point));
		else
			snprintf(msg, sizeof(msg), "no match for probe point "
				 "'%s': no %s function matches%s%s",
				 point_string(se, point),
				 kf->module ? "module" : "kernel",
				 strpbrk(pattern, "*?[") || q.kind == KF_ANY ?
				 "" : " (or it is only inlined, or on the "
				 "blocklist)", ncats == 1 ?
				 similar_functions(se, cats[0], pattern) : "");
		point_error(se, point, fn, msg);
	}
	if (kf->module)
		free(cats);
	return derived;
}

/*
 * Inlined copies left out for a context variable they lack (infer_kfvar).
 * The user hears of it when the variable is the script's own: a tapset
 * alias reading one (socket.close's $sock) is no business of theirs.
 */
static void drop_kf_copies(struct sema *se)
{
	struct program *prog = se->prog;
	int kept = 0;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		if (!is_kf(dp) || !kf_of(dp)->dropped)
			prog->probes[kept++] = prog->probes[i];
		else if (dp->body->user_probe && !session_file(se->s,
			 dp->body->user_probe->loc.file)->privileged &&
			 !session_file(se->s,
			 kf_of(dp)->dropped_at->loc.file)->privileged)
			diag_warning(se->s, kf_of(dp)->dropped_at->loc,
				     "skipping %s", kf_of(dp)->dropped);
	}
	prog->nprobes = kept;
}

/*
 * kernel.function("PATTERN[@FILE]")[.call|.inline|.return[.maxactive(N)]]
 * and kernel.statement("...") (a kprobe at each address the pattern
 * names): the point's shape; expand() finds the functions.
 */

/*
 * The suffixes SystemTap 4.8 has on kernel.function and kernel.statement:
 * NULL-terminated, those this compiler takes first; the rest (after the
 * empty string) it knows but does not support yet.
 */
static const char *const function_suffixes[] = {
	"call", "return", "inline", "maxactive", "exported", "",
	"callee", "callees", "label", NULL,
};
static const char *const statement_suffixes[] = {
	"nearest", "", "absolute", NULL,
};
/* what a taken suffix out of place is told: the combinations taken */
static const char function_taken[] = ".call, .return[.maxactive(N)], "
				     ".inline or .exported, one of them";
static const char statement_taken[] = ".nearest, once";

/* A suffix the family does not take: not supported yet, or unknown (with
 * the closest known one). */
static bool suffix_error(struct sema *se, struct node *point,
			 struct node *sfx, const char *family,
			 const char *const *known, const char *taken)
{
	const char *name = sfx->comp.name;
	const char *names[16];
	bool later = false;
	int n = 0;

	for (; *known && n < 16; known++) {
		if (!**known) {
			later = true;
			continue;
		}
		if (!strcmp(*known, name))
			return point_error(se, point, sfx, arena_printf(
				&se->s->arena, later ? "'.%s' on %s is not "
				"supported yet" : "'.%s' is out of place on %s "
				"(%s)", name, family, taken));
		names[n++] = *known;
	}
	const char *close = suggest(name, names, n);
	return point_error(se, point, sfx, arena_printf(&se->s->arena,
		"'.%s' is not a %s suffix%s%s%s", name, family,
		close ? " (did you mean '." : "", close ? close : "",
		close ? "'?)" : ""));
}

static int derive(struct sema *se, struct node *point, struct derived_probe *dp)
{
	struct kf_probe *kf = kf_of(dp);
	struct node *c0 = point->point.comps;
	const char *name = c0->comp.name;

	/* module("NAME").function/.statement: the kernel's points, in the
	 * modules NAME matches (expand) */
	if (!strcmp(name, "module")) {
		if (!c0->comp.arg || c0->comp.arg->kind != N_STRING ||
		    !*c0->comp.arg->str.value)
			return point_error(se, point, c0, "module needs a module "
					   "name: module(\"ext4\")");
		if (!comp_is(c0->next, "function") &&
		    !comp_is(c0->next, "statement"))
			return -1;
		kf->module = c0->comp.arg->str.value;
		name = "kernel";
	}
	if (!strcmp(name, "kernel") && comp_is(c0->next, "function")) {
		struct node *fn = c0->next, *sfx = fn->next;
		if (!fn->comp.arg || fn->comp.arg->kind != N_STRING)
			return point_error(se, point, fn, "kernel.function needs "
					   "a function name: kernel.function("
					   "\"vfs_read\")");
		if (sfx && comp_is(sfx, "call")) {
			kf->suffix = ".call";
			sfx = sfx->next;
		}
		else if (sfx && comp_is(sfx, "return")) {
			dp->family = &kernel_return_family;
			kf->suffix = ".return";
			sfx = sfx->next;
			if (sfx && comp_is(sfx, "inline"))
				return point_error(se, point, sfx, "'.inline' "
						   "cannot follow '.return' "
						   "(an inlined copy has no "
						   "return to probe)");
			if (sfx && comp_is(sfx, "maxactive")) {
				if (!sfx->comp.arg || sfx->comp.arg->kind != N_NUMBER)
					return point_error(se, point, sfx, "maxactive "
							   "takes a number (0 to "
							   "32767)");
				if (sfx->comp.arg->num.value < 0 ||
				    sfx->comp.arg->num.value > 32767)
					return point_error(se, point, sfx, "maxactive "
							   "value out of range (0 to "
							   "32767)");
				kf->maxactive = sfx->comp.arg->num.value;
				sfx = sfx->next;
			}
		}
		if (sfx && comp_is(sfx, "inline") && !sfx->next &&
		    !kf->suffix) {
			kf->suffix = ".inline";
			return true;
		}
		/* the functions the kernel (or the module) exports, called
		 * as .call is: no inlined copies, no .return form (4.8) */
		if (sfx && comp_is(sfx, "exported") && !sfx->next &&
		    !sfx->comp.arg && !kf->suffix) {
			kf->suffix = ".exported";
			return true;
		}
		if (sfx && comp_is(sfx, "maxactive"))
			return point_error(se, point, sfx, "'.maxactive' applies "
					   "to .return probes only");
		if (sfx)
			return suffix_error(se, point, sfx, "kernel.function",
					    function_suffixes, function_taken);
		return true;
	}
	if (!strcmp(name, "kernel") && comp_is(c0->next, "statement") &&
	    c0->next->comp.arg && c0->next->comp.arg->kind == N_STRING) {
		struct node *sfx = c0->next->next;
		if (sfx && comp_is(sfx, "nearest") && !sfx->comp.arg) {
			kf->nearest = true;
			sfx = sfx->next;	/* anything after it is wrong */
		}
		if (sfx)
			return suffix_error(se, point, sfx, "kernel.statement",
					    statement_suffixes, statement_taken);
		kf->statement = true;
		return true;
	}
	return -1;
}

/* $x, $x->f, &$x, $$parms... of a kernel function or statement. */
static enum type context(struct sema *se, struct node *n, bool addr_of)
{
	if (n->kind == N_TARGET && !strcmp(n->target.name, "$return") &&
	    !addr_of && body_all_of(se, se->body, &kernel_return_family))
		return n->type = TY_LONG;	/* pass 3: the return register */
	return infer_kfvar(se, n, addr_of, false, false);
}

/* -g: `$x = v` writes an entry probe's variable. */
static bool context_assign(struct sema *se, struct node *assign,
			   enum type *type)
{
	struct node *rhs = assign->binary.rhs;

	if (assign->binary.op != OP_ASSIGN || !se->s->guru ||
	    !body_all_of(se, se->body, &kernel_function_family))
		return false;
	expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
	infer_kfvar(se, assign->binary.lhs, false, true, false);
	*type = TY_LONG;
	return true;
}

/*
 * -g: `$return = v` in a .return probe sets the value the function
 * returns (the return register, which the kretprobe or fprobe trampoline
 * restores from the handler's registers), as in SystemTap.
 */
static bool return_assign(struct sema *se, struct node *assign,
			  enum type *type)
{
	struct node *lhs = assign->binary.lhs, *rhs = assign->binary.rhs;

	if (assign->binary.op != OP_ASSIGN || !se->s->guru ||
	    !body_all_of(se, se->body, &kernel_return_family))
		return false;
	if (lhs->kind != N_TARGET || strcmp(lhs->target.name, "$return")) {
		/* the others are copies taken at the entry (4.8's words) */
		if (se->report)
			diag_error(se->s, lhs->loc, "write to target variable "
				   "not permitted in .return probes");
		*type = TY_LONG;
		return true;
	}
	expect(se, rhs, infer(se, rhs, TY_LONG), TY_LONG);
	lhs->type = TY_LONG;
	lhs->sym = NULL;
	*type = TY_LONG;
	return true;
}

static int defined(struct sema *se, struct node *n)
{
	return kf_defined(se, n->target.name);
}

static bool at_func(struct sema *se, struct node *n, enum type want,
		    enum type *type)
{
	if (strcmp(n->call.name, "@entry"))
		return false;
	*type = infer_entry(se, n, want);
	return true;
}

static void finish(struct sema *se)
{
	drop_kf_copies(se);
}

/* -L of an alias on a kernel function: $return and its variables, as -L
 * of the point gives them ("name:type"). */
static void list_vars(const struct derived_probe *dp, struct strbuf *out)
{
	const struct kf_probe *kf = kf_of(dp);
	if (kf->ret_ctype)
		sb_printf(out, " $return:%s", kf->ret_ctype);
	for (int k = 0; k < kf->nvars; k++)
		sb_printf(out, " $%s", kf->vars[k]);
}

/* ---- the attach description ------------------------------------------ */

/*
 * The function symbol of kf's module that holds kf's address (the
 * catalog's, in the DWARF's layout), and the address's offset into it;
 * NULL when none does.
 */
static const char *kf_module_symbol(const struct program *prog,
				    const struct kf_probe *kf,
				    uint64_t *offset)
{
	struct target *t = prog->s->target;
	const char *err, *path;
	struct elf_sym sym;

	bool entry = !kf->inlined && !kf->statement;

	if (!t || !(path = target_module_debug(t, kf->module, &err)))
		return entry ? kf->symbol : NULL;
	struct dwloc_file *dw = target_module_dwarf(t, kf->module, &err);
	struct elf_file *ef = dw ? dwloc_elf(dw) : NULL;
	/* a function's entry: its own symbol, which may be another name
	 * (foo.isra.0, foo.constprop.0) than the function's */
	if (!ef || !elf_file_symbol_at(ef, kf->addr, &sym) ||
	    sym.type != STT_FUNC || (entry && sym.addr != kf->addr))
		return entry ? kf->symbol : NULL;
	/* a name the module has twice (foo.constprop.0 in two of its
	 * files): the kernel would find the first; by a symbol it has once
	 * and the offset from it */
	if (!kf_module_anchor(ef, kf->addr, &sym))
		return entry ? kf->symbol : NULL;
	*offset = kf->addr - sym.addr;
	return arena_strdup(&prog->s->arena, sym.name);
}

/*
 * What a backend attaches: the function's entry (or statement) or
 * return, where (symbol, instance address, the program's KASLR anchor),
 * and each context value of the body as its DWARF location at the probed
 * address, then the member steps of its chain.
 */
static void describe(const struct program *prog, struct derived_probe *dp)
{
	const struct kf_probe *kf = kf_of(dp);
	const struct kf_anchor *anchor = program_family_get(prog,
						&kernel_function_family);
	const struct probe_body *b = dp->body;
	struct attach *at = &dp->attach;
	struct attach_kfunc *k = &at->kfunc;

	at->kind = dp->family == &kernel_return_family ? ATTACH_KFUNC_RETURN :
		   ATTACH_KFUNC_ENTRY;
	k->symbol = kf->symbol;
	k->addr = kf->addr;
	if (kf->module) {
		/* by its symbol in the module, armed while the module is
		 * loaded; an inlined copy or a statement at its offset into
		 * the function that holds it */
		uint64_t offset = 0;
		const char *sym = kf_module_symbol(prog, kf, &offset);
		k->module = kf->module;
		k->symbol = sym ? arena_printf(&prog->s->arena, "%s:%s",
					       kf->module, sym) : NULL;
		/* an entry's offset: from another symbol (a name the
		 * module has twice) */
		k->addr = offset;
		anchor = NULL;
	}
	k->inlined = kf->inlined;
	k->statement = kf->statement;
	k->maxactive = kf->maxactive;
	k->ret_size = kf->ret_size;
	k->ret_signed = kf->ret_signed;
	if (anchor) {
		k->anchor_sym = anchor->sym;
		k->anchor_addr = anchor->addr;
	}
	if (!kf->locs || !b->nctxvars)
		return;
	const struct value_recipe **values = arena_alloc(&prog->s->arena,
		(size_t)b->nctxvars * sizeof(*values));
	for (int i = 0; i < b->nctxvars; i++) {
		const struct kf_loc *l = kf->locs[i];
		struct value_recipe *r;
		if (!l)
			continue;
		r = arena_alloc(&prog->s->arena, sizeof(*r));
		r->root = ROOT_DWARF;
		r->dwarf = &l->prog;
		r->dwarf_size = l->prog_size;
		r->size = l->size;
		r->is_signed = l->is_signed;
		r->address = l->address;
		r->spill = l->spill;
		r->reg_address = l->reg_address;
		r->steps = b->ctxvars[i]->member_path;
		r->space = SPACE_KERNEL;
		values[i] = r;
	}
	at->values = values;
	at->nvalues = b->nctxvars;
}

static const char *const roots[] = { "kernel", "module", NULL };
static const char *const probe_types[] = {
	"kernel.function(string)",
	"kernel.function(string).call",
	"kernel.function(string).exported",
	"kernel.function(string).inline",
	"kernel.function(string).return",
	"kernel.function(string).return.maxactive(number)",
	"kernel.statement(string)",
	"kernel.statement(string).nearest",
	"module(string).function(string)",
	"module(string).function(string).call",
	"module(string).function(string).exported",
	"module(string).function(string).inline",
	"module(string).function(string).return",
	"module(string).function(string).return.maxactive(number)",
	"module(string).statement(string)",
	"module(string).statement(string).nearest",
	NULL,
};
/* listed once, by kernel_function_family */
static const char *const no_probe_types[] = { NULL };

const struct probe_family kernel_function_family = {
	.point_size = sizeof(struct kf_probe),
	.name = "kernel.function",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
	.expand = expand_kfunc,
	.context = context,
	.context_assign = context_assign,
	.writable = true,
	.defined = defined,
	.var_ctype = kf_var_type,
	.at_func = at_func,
	.finish = finish,
	.list_vars = list_vars,
	.list = kernel_function_list,
	.describe = describe,
};

/* Derived by kernel_function_family.derive for a .return point. */
const struct probe_family kernel_return_family = {
	.point_size = sizeof(struct kf_probe),
	.name = "kernel.function",
	.roots = roots,
	.probe_types = no_probe_types,
	.derive = derive,
	.expand = expand_kfunc,
	.context = context,
	.context_assign = return_assign,
	.writable = true,
	.has_return = true,
	.defined = defined,
	.var_ctype = kf_var_type,
	.list_vars = list_vars,
	.describe = describe,
};
