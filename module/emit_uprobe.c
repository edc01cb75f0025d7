// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_UPROBE in the kernel module: a place in a user binary (a
 * function's entry or return, a PLT stub, an SDT mark), armed by
 * runtime/uprobe.c (one uprobe consumer each, on the file's inode and
 * the place's offset). The context values are read at the hit by a
 * function of the task's user registers per probe (stp_up_vals_N), each
 * from its recipe: a mark's operand (a register, or memory at a
 * register plus offset, read fault-safely from the process), or a
 * constant; a function's variable at its DWARF location, then the
 * member steps of a chain ($p->f), read from the process. $return is
 * the return register at a .return probe's hit.
 */
#include "module/emit.h"
#include "module/loc_c.h"

/*
 * A function's variable at its DWARF location, into stp_addr: the
 * location program as C over the user registers (module/loc_c.h), its
 * memory reads the process's (stp_tp_read is stp_tp_uread in these
 * functions, see gen_up_vals).
 */
static void dwarf_c(FILE *out, struct cg *cg, const struct value_recipe *r)
{
	struct dwloc d;
	const char *err = loc_c(&cg->s->arena, r->dwarf, r->dwarf_size, &d);

	if (err) {
		/* pass 2 read the program; a form loc_c does not model */
		fprintf(out, "#error \"a user-space variable: %s\"\n", err);
		return;
	}
	for (const char *p = d.code; *p;) {
		size_t n = strcspn(p, "\n");
		fprintf(out, "\t\t%.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (r->reg_address) {
		/* a write's target: the register's slot in the saved user
		 * registers (stp_up_write) */
		fprintf(out, "\t\tstp_addr = (u64)(unsigned long)&regs->%s;\n",
			d.reg);
		return;
	}
	if (d.kind == DWL_MEMORY && r->address) {
		/* a struct by value: its address, read member by member */
		fprintf(out, "\t\tstp_addr = (u64)(%s);\n", d.expr);
		return;
	}
	if (d.kind == DWL_MEMORY) {
		fprintf(out, "\t\tif (stp_tp_read(&stp_addr, (unsigned long)%s, "
			"%u, %d)) {\n\t\t\tstp_addr = %s;\n"
			"\t\t\tgoto fault;\n\t\t}\n", d.expr, r->size,
			r->is_signed, d.expr);
		return;
	}
	fprintf(out, "\t\tstp_addr = %s;\n", d.expr);
	if (r->size && r->size < 8)
		fprintf(out, "\t\tstp_addr = (u64)(%s)(%s%d)stp_addr;\n",
			r->is_signed ? "s64" : "u64", r->is_signed ? "s" : "u",
			(int)r->size * 8);
}

/* One value's C: into stp_addr, or `goto fault` with the address. */
static void operand_c(FILE *out, const struct value_recipe *r)
{
	const struct value_operand *o = &r->operand;
	const char *sz = r->is_signed ? "s" : "u";

	if (r->root == ROOT_CONST) {
		fprintf(out, "\t\tstp_addr = (u64)%" PRId64 "LL;\n",
			r->constant);
		return;
	}
	fprintf(out, "\t\tstp_addr = (u64)%" PRId64 "LL", o->offset);
	if (o->reg)
		fprintf(out, " + (u64)regs->%s", o->reg);
	if (o->index)
		fprintf(out, " + (u64)regs->%s * %d", o->index,
			o->scale ? o->scale : 1);
	fputs(";\n", out);
	if (o->memory) {
		fprintf(out, "\t\tif (stp_tp_uread(&stp_addr, (unsigned long)"
			"stp_addr, %u, %d))\n\t\t\tgoto fault;\n",
			r->size ? r->size : 8, r->is_signed);
		return;
	}
	if (r->size && r->size < 8)
		fprintf(out, "\t\tstp_addr = (u64)(%s64)(%s%u)stp_addr;\n", sz,
			sz, r->size * 8);
}

static void gen_up_vals(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	bool any = false;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct probe_body *b = dp->body;

		if (dp->attach.kind != ATTACH_UPROBE || !dp->attach.values ||
		    !b->nctxvars)
			continue;
		struct strbuf pp = { 0 };
		sb_c_literal(&pp, dp->pp, strlen(dp->pp), true);
		if (!any)	/* the values' reads are the process's */
			fputs("\n#define stp_tp_read stp_tp_uread\n"
			      "#define stp_tp_read_bits stp_tp_uread_bits\n", out);
		any = true;
		fprintf(out, "\n/* context values of %s */\n"
			"static void stp_up_vals_%d(struct pt_regs *regs, "
			"int64_t *v, u64 *faults)\n{\n\t*faults = 0;\n",
			sb_str(&pp), i);
		sb_free(&pp);
		for (int k = 0; k < b->nctxvars; k++) {
			const struct value_recipe *r = dp->attach.values[k];
			if (!r)
				continue;
			fprintf(out, "\t{\t/* %s */\n\t\t__label__ fault;\n"
				"\t\tu64 stp_addr;\n\n", b->ctxvars[k]->name);
			if (r->root == ROOT_DWARF)
				dwarf_c(out, cg, r);
			else
				operand_c(out, r);
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
	if (any)
		fputs("#undef stp_tp_read\n#undef stp_tp_read_bits\n", out);
}

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

static void support(struct cg *cg, FILE *out)
{
	gen_up_vals(cg, out);
}

static void head_fields(struct cg *cg, int i, FILE *out)
{
	const struct derived_probe *dp = cg->prog->probes[i];

	if (dp->attach.values && dp->body->nctxvars)
		fprintf(out, ",\n\t  .vals = stp_up_vals_%d, .nvals = %d", i,
			dp->body->nctxvars);
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct derived_probe *dp = cg->prog->probes[i];
	const struct attach_uprobe *u = &dp->attach.uprobe;

	fprintf(out, ",\n\t  .path = %s, .offset = 0x%" PRIx64 "UL",
		c_string(cg, u->path, strlen(u->path)), u->offset);
	if (u->semaphore_offset)
		fprintf(out, ", .ref_ctr_offset = 0x%" PRIx64 "UL",
			u->semaphore_offset);
	if (u->ret)
		fputs(", .flags = STP_UP_RETURN", out);
	if (dp->attach.filter.pid)
		fprintf(out, ", .pid = %lld", (long long)dp->attach.filter.pid);
	if (u->provider)
		fprintf(out, ",\n\t  .provider = %s",
			c_string(cg, u->provider, strlen(u->provider)));
	if (u->name)
		fprintf(out, ", .name = %s",
			c_string(cg, u->name, strlen(u->name)));
}

/* A user function return's $return: its size and signedness. */
static void uprobe_ret(const struct attach *at, unsigned *size,
		       bool *is_signed)
{
	*size = at->uprobe.ret_size;
	*is_signed = at->uprobe.ret_signed;
}

/*
 * -g: `$x = v`, `$p->f = v` in a function's entry or statement probe:
 * the context value is the address to write (pass 2 checked the form).
 */
static const char *gen_up_write(struct cg *cg, struct node *n)
{
	const struct symbol *sym = n->binary.lhs->sym;

	if (!sym || sym->kind != SYM_CONTEXT || !sym->write_size)
		return NULL;
	const char *v = gen_ctx_write(cg, n, "stp_up_write");
	/* a later $x in the handler reads what was written, as in 4.8
	 * (which reads the register or memory again) */
	const struct probe_body *b = cg->scope;
	for (int k = 0; b && k < b->nctxvars; k++) {
		if (strcmp(b->ctxvars[k]->name, sym->name + 1))
			continue;
		bool sign = false;
		for (int i = 0; i < cg->prog->nprobes; i++) {
			const struct derived_probe *dp = cg->prog->probes[i];
			if (dp->body == b && dp->attach.values &&
			    dp->attach.values[k])
				sign = dp->attach.values[k]->is_signed;
		}
		emit(cg, "c->vals[%d] = (int64_t)(%s%u)%s;", k, sign ? "s" : "u",
		     sym->write_size * 8, v);
		emit(cg, "c->vals_args.faults &= ~(1ULL << %d);", k);
	}
	return v;
}

/* $return, $$name, $$provider, @entry(...). */
static const char *context_value(struct cg *cg, struct node *n)
{
	const char *name = n->kind == N_TARGET ? n->target.name : "";

	if (n->kind == N_ATFUNC && !strcmp(n->call.name, "@entry"))
		return gen_expr(cg, n->call.args);	/* read at the entry */
	if (!strcmp(name, "$return")) {
		const char *t = tmp_long(cg);
		emit(cg, "int64_t %s = (int64_t)%sregs_return_value(c->regs);",
		     t, return_cast(cg, ATTACH_UPROBE, uprobe_ret));
		return t;
	}
	if (!strcmp(name, "$$name"))
		return "stp_uprobe_of(c)->name";
	if (!strcmp(name, "$$provider"))
		return "stp_uprobe_of(c)->provider";
	unsupported(cg, n, ast_kind_name(n->kind));
	return "0";
}

const struct kind_emit emit_uprobe = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.support = support,
	.head_fields = head_fields,
	.table_type = "struct stp_uprobe_probe",
	.table_name = "stp_uprobe_probes",
	.table_ops = "stp_uprobe_kind",
	.fields = fields,
	.context = context_value,
	.assign = gen_up_write,
};
