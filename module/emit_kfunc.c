// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_KFUNC_ENTRY and ATTACH_KFUNC_RETURN in the kernel module: a
 * kernel function's entry (or a statement in it) and return, armed by
 * runtime/kfunc.c (ftrace, fprobe, kprobe or kretprobe: the runtime
 * chooses). The context values are read at the entry by a function of
 * the registers per probe (stp_kf_vals_N), each from its recipe: a DWARF
 * location, then member steps; a return probe's $return and @entry(...)
 * come from the handler itself.
 */
#include "module/emit.h"
#include "module/loc_c.h"

/* The program's anchor for the KASLR offset (any kernel function probe
 * carries it), or NULL: addresses are not used. */
static const struct attach_kfunc *kfunc_anchor(const struct program *prog)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct attach *a = &prog->probes[i]->attach;
		if ((a->kind == ATTACH_KFUNC_ENTRY ||
		     a->kind == ATTACH_KFUNC_RETURN) && a->kfunc.anchor_sym)
			return &a->kfunc;
	}
	return NULL;
}

/*
 * The module symbols whose run-time addresses the program's module
 * variables are read from (stp_modsyms[], runtime/kfunc.h): each
 * (module, symbol) once, in probe order. Calls fn with each new one and
 * its slot; returns the slot of the one matching prog, or the count.
 */
static int modsym_slots(const struct program *prog,
			const struct dwloc_prog *want,
			void (*fn)(const struct dwloc_prog *p, FILE *out),
			FILE *out)
{
	int n = 0;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct attach *a = &prog->probes[i]->attach;
		if (a->kind != ATTACH_KFUNC_ENTRY &&
		    a->kind != ATTACH_KFUNC_RETURN)
			continue;
		for (int v = 0; v < a->nvalues; v++) {
			const struct value_recipe *r = a->values[v];
			const struct dwloc_prog *p = r && r->root == ROOT_DWARF ?
						     r->dwarf : NULL;
			bool seen = false;
			if (!p || !p->mod_sym)
				continue;
			/* earlier ones up to this (probe, value) */
			for (int j = 0; j <= i && !seen; j++) {
				const struct attach *b = &prog->probes[j]->attach;
				if (b->kind != ATTACH_KFUNC_ENTRY &&
				    b->kind != ATTACH_KFUNC_RETURN)
					continue;
				for (int w = 0; w < b->nvalues && !seen &&
				     (j < i || w < v); w++) {
					const struct value_recipe *q =
						b->values[w];
					const struct dwloc_prog *o =
						q && q->root == ROOT_DWARF ?
						q->dwarf : NULL;
					seen = o && o->mod_sym &&
					       !strcmp(o->module, p->module) &&
					       !strcmp(o->mod_sym, p->mod_sym);
				}
			}
			if (seen)
				continue;
			if (want && !strcmp(want->module, p->module) &&
			    !strcmp(want->mod_sym, p->mod_sym))
				return n;
			if (fn)
				fn(p, out);
			n++;
		}
	}
	return n;
}

static void modsym_entry(const struct dwloc_prog *p, FILE *out)
{
	fprintf(out, " { .module = \"%s\", .symbol = \"%s\" },",
		p->module, p->mod_sym);
}

/*
 * `$x = v`, `$x->f = v` in a kernel.function probe (-g): the context
 * value is the address to write (a fault computing it is raised first).
 */
static const char *gen_kf_write(struct cg *cg, struct node *n)
{
	const struct symbol *sym = n->binary.lhs->sym;
	const struct node *lhs = n->binary.lhs;

	if (lhs->kind == N_TARGET && !strcmp(lhs->target.name, "$return") &&
	    n->binary.op == OP_ASSIGN) {
		/* -g, a .return probe (pass 2 checked) */
		const char *r = tmp_long(cg);
		emit(cg, "int64_t %s = %s;", r, gen_expr(cg, n->binary.rhs));
		emit(cg, "regs_set_return_value(c->regs, (unsigned long)%s);",
		     r);
		return r;
	}

	if (!sym || sym->kind != SYM_CONTEXT || !sym->write_size)
		return NULL;
	return gen_ctx_write(cg, n, "stp_kf_write");
}

/* A kernel function return's $return: its size and signedness. */
static void kfunc_ret(const struct attach *at, unsigned *size, bool *is_signed)
{
	*size = at->kfunc.ret_size;
	*is_signed = at->kfunc.ret_signed;
}

/*
 * The root of a context value at a DWARF location, into stp_addr: the
 * one place a location becomes C (over the probed function's pt_regs).
 */
static void dwarf_root_c(struct cg *cg, FILE *out,
			 const struct value_recipe *l)
{
	struct dwloc loc;
	const struct dwloc *d = &loc;
	int slot = l->dwarf->mod_sym ?
		   modsym_slots(cg->prog, l->dwarf, NULL, NULL) : -1;
	const char *err = loc_c_slot(&cg->s->arena, l->dwarf, l->dwarf_size,
				     slot, &loc);

	if (err) {	/* pass 2 ran the same checks: not reached */
		diag_plain_error(cg->s, "a DWARF location: %s", err);
		cg->errors++;
		return;
	}

	for (const char *p = d->code; *p;) {	/* indent the statements */
		size_t n = strcspn(p, "\n");
		fprintf(out, "\t\t%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (d->kind == DWL_MEMORY && !l->address) {
		fprintf(out, "\t\tif (stp_tp_read(&stp_addr, (unsigned long)%s, "
			"%u, %d)) {\n\t\t\tstp_addr = %s;\n"
			"\t\t\tgoto fault;\n\t\t}\n", d->expr, l->size,
			l->is_signed, d->expr);
		return;
	}
	if (l->reg_address) {
		/* a write's target: the handlers load it back */
		fprintf(out, "\t\tstp_addr = (u64)(unsigned long)&regs->%s;\n",
			d->reg);
		return;
	}
	if (l->spill) {
		/* an aggregate in a register: walk its members in a copy */
		fprintf(out, "\t\tu64 stp_spill = %s;\n\n"
			"\t\tstp_addr = (u64)(unsigned long)&stp_spill;\n", d->expr);
		return;
	}
	fprintf(out, "\t\tstp_addr = %s;\n", d->expr);
	if (l->address || l->size >= 8)
		return;
	/* a register or computed value: only its low bytes are the value */
	fprintf(out, "\t\tstp_addr = (u64)(%s)(%s%d)stp_addr;\n",
		l->is_signed ? "s64" : "u64", l->is_signed ? "s" : "u",
		(int)l->size * 8);
}

/*
 * A kernel.function probe's context values: a function of the registers
 * at the probed function's entry (see stp_probe.kf_vals), one block per
 * value, each leaving the faulting address in v[k] and bit k in *faults.
 */
static void gen_kf_vals(struct cg *cg, FILE *out,
			const struct program *prog)
{
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct probe_body *b = dp->body;
		if ((dp->attach.kind != ATTACH_KFUNC_ENTRY &&
		     dp->attach.kind != ATTACH_KFUNC_RETURN) ||
		    !dp->attach.values || !b->nctxvars)
			continue;
		struct strbuf pp = { 0 };
		sb_c_literal(&pp, dp->pp, strlen(dp->pp), true);
		fprintf(out, "\n/* context values of %s */\n"
			"static void stp_kf_vals_%d(struct pt_regs *regs, "
			"int64_t *v, u64 *faults)\n{\n\t*faults = 0;\n",
			sb_str(&pp), i);
		sb_free(&pp);
		for (int k = 0; k < b->nctxvars; k++) {
			const struct symbol *sym = b->ctxvars[k];
			const struct value_recipe *r = dp->attach.values[k];
			if (!r)
				continue;
			fprintf(out, "\t{\t/* %s */\n\t\t__label__ fault;\n"
				"\t\tu64 stp_addr;\n\n", sym->name);
			dwarf_root_c(cg, out, r);
			if (r->steps)
				gen_path_steps(out, r->steps, "\t");
			fprintf(out, "\t\tv[%d] = (int64_t)stp_addr;\n"
				"\t\tif (0) {\nfault:\n"
				"\t\t\tv[%d] = (int64_t)stp_addr;\n"
				"\t\t\t*faults |= 1ULL << %d;\n\t\t}\n\t}\n",
				k, k, k);
		}
		fputs("}\n", out);
	}
}

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

/* The runtime's KASLR offset: run-time minus link-time address of one
 * exported function. */
static void defines(struct cg *cg, FILE *out)
{
	const struct attach_kfunc *a = kfunc_anchor(cg->prog);

	if (a)
		fprintf(out, "#define STP_KFUNC_ANCHOR_SYM %s\n"
			"#define STP_KFUNC_ANCHOR_LINK 0x%" PRIx64 "UL\n",
			a->anchor_sym, a->anchor_addr);
	if (modsym_slots(cg->prog, NULL, NULL, NULL) > 0) {
		fputs("#define STP_KF_MODSYMS", out);
		modsym_slots(cg->prog, NULL, modsym_entry, out);
		fputs("\n", out);
	}
}

/* Is body b lean, its counts run by an ftrace function of its own? */
static bool lean_unfiltered(const struct cg *cg, const struct probe_body *b)
{
	return cg->nlean[b->index] >= 0 && !cg->filtered[b->index];
}

/*
 * The only entry probe of the program, when it has a handler: the index
 * of the probe whose ftrace function runs it with no search (STP_KF_HIT;
 * the runtime uses it when ftrace attaches that one probe), else -1.
 */
static int sole_entry_handler(const struct cg *cg)
{
	const struct program *prog = cg->prog;
	int found = -1;

	for (int i = 0; i < prog->nprobes; i++) {
		if (prog->probes[i]->attach.kind != ATTACH_KFUNC_ENTRY)
			continue;
		if (found >= 0)
			return -1;
		found = i;
	}
	if (found >= 0 && lean_unfiltered(cg, prog->probes[found]->body))
		return -1;
	return found;
}

/*
 * The context value readers; a lean body's own ftrace function (entry
 * probes), on its first entry probe: the counts compile to immediates;
 * the one entry probe's own function when it has a handler.
 */
static void support(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	int sole = sole_entry_handler(cg);

	gen_kf_vals(cg, out, prog);
	if (sole >= 0)
		fprintf(out, "STP_KF_HIT(stp_kf_hit_%d, stp_run_%d, "
			"&stp_probes[%d], STP_USE_%d)\n", sole,
			prog->probes[sole]->body->index,
			table_index(prog, sole), prog->probes[sole]->body->index);
	for (int b = 0; b < prog->nbodies; b++) {
		if (!lean_unfiltered(cg, prog->bodies[b]))
			continue;
		for (int i = 0; i < prog->nprobes; i++)
			if (prog->probes[i]->body == prog->bodies[b] &&
			    prog->probes[i]->attach.kind == ATTACH_KFUNC_ENTRY) {
				fprintf(out, "STP_KF_LEAN_HIT(stp_kf_lean_%d, "
					"&stp_probes[%d])\n", b,
					table_index(prog, i));
				break;
			}
	}
}

/* The probe table's: the function of the registers that reads the
 * context values. */
static void head_fields(struct cg *cg, int i, FILE *out)
{
	const struct derived_probe *dp = cg->prog->probes[i];

	if (dp->attach.values && dp->body->nctxvars)
		fprintf(out, ",\n\t  .vals = stp_kf_vals_%d, .nvals = %d", i,
			dp->body->nctxvars);
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct program *prog = cg->prog;
	const struct derived_probe *dp = prog->probes[i];
	const struct probe_body *b = dp->body;
	const struct attach_kfunc *kf = &dp->attach.kfunc;
	bool ret = dp->attach.kind == ATTACH_KFUNC_RETURN;
	bool vals = dp->attach.values && b->nctxvars;
	/* a module's addr is an offset into its symbol, no anchor needed */
	bool placed = kf->addr && (kfunc_anchor(prog) || kf->module);
	const char *flags = kf->absolute ? "STP_KF_STMT | STP_KF_ABS" :
			    placed && kf->inlined ? "STP_KF_INLINE" :
			    placed && kf->statement ? "STP_KF_STMT" : NULL;

	if (ret || flags)
		fprintf(out, ", .flags = %s%s%s", ret ? "STP_KF_RETURN" : "",
			ret && flags ? " | " : "", flags ? flags : "");
	if (!ret && lean_unfiltered(cg, b))
		fprintf(out, ",\n\t  .lean_hit = "
			"STP_KF_LEAN_REF(stp_kf_lean_%d)", b->index);
	else if (!ret && sole_entry_handler(cg) == i)
		fprintf(out, ",\n\t  .hit = STP_KF_LEAN_REF(stp_kf_hit_%d)",
			i);
	/* an inlined copy has no symbol to fall back on */
	if (kf->symbol && (!kf->inlined || kf->module))
		fprintf(out, ",\n\t  .symbol = %s, .maxactive = %d",
			c_string(cg, kf->symbol, strlen(kf->symbol)),
			(int)kf->maxactive);
	if (kf->module)
		fprintf(out, ",\n\t  .module = %s",
			c_string(cg, kf->module, strlen(kf->module)));
	if (placed || (kf->addr && kf->absolute))
		fprintf(out, ",\n\t  .addr = 0x%" PRIx64 "UL", kf->addr);
	if (ret && b->nentry_values)
		fprintf(out, ",\n\t  .nentry = %d", b->nentry_values);
	if (ret && (vals || b->nentry_values))
		fprintf(out, ",\n\t  .entry = stp_kf_save_entry, "
			".data_size = sizeof(u64) * (1 + %d)",
			(dp->attach.values ? b->nctxvars : 0) +
			b->nentry_values);
}

/* A .return probe's @entry(...) values, run by the handler at the entry. */
static void prologue(struct cg *cg, const struct probe_body *b)
{
	if (!b->nentry_values)
		return;
	emit(cg, "if (c->entry_out) {");
	cg->depth++;
	for (int j = 0; j < b->nentry_values; j++) {
		const char *v = gen_expr(cg, b->entry_values[j]->call.args);
		emit(cg, "c->entry_out[%d] = %s;", j, v);
	}
	emit(cg, "goto out;");
	cg->depth--;
	emit(cg, "}");
}

/* @entry(...) and $return in a .return probe. */
static const char *context_value(struct cg *cg, struct node *n)
{
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@entry") && n->sym) {
		/* computed by the handler's prologue at the entry */
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = c->tp->v[c->probe->nvals + %d];", t,
		     n->sym->index);
		return t;
	}
	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@entry"))
		return gen_expr(cg, n->call.args);	/* values from the entry */
	if (n->kind == N_TARGET && !strcmp(n->target.name, "$return")) {
		/* pass 2 allows it in .return probes only */
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = (int64_t)%sregs_return_value(c->regs);",
		     t, return_cast(cg, ATTACH_KFUNC_RETURN, kfunc_ret));
		return t;
	}
	unsupported(cg, n, ast_kind_name(n->kind));
	return "0";
}

const struct kind_emit emit_kfunc = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.defines = defines,
	.support = support,
	.head_fields = head_fields,
	.table_type = "struct stp_kfunc_probe",
	.table_name = "stp_kfunc_probes",
	.table_ops = "stp_kfunc_kind",
	.fields = fields,
	.prologue = prologue,
	.context = context_value,
	.assign = gen_kf_write,
};

