// SPDX-License-Identifier: GPL-2.0-or-later
/* Location programs as C over pt_regs; see loc_c.h. */
#define _GNU_SOURCE
#include "module/loc_c.h"

#include <inttypes.h>

#include "elf/arch.h"
#include "lib/strbuf.h"

struct render {
	struct arena *a;
	struct strbuf code;	/* the reads from memory, in order */
	int ntemps;
	const struct dwloc_prog *p;
	int mod_slot;		/* p->mod_sym's in stp_modsyms[] */
};

static const char *c_reg(void *ctx, unsigned reg)
{
	struct render *r = ctx;

	return arena_printf(r->a, "((u64)regs->%s)", arch_reg_pt_regs(reg));
}

static const char *c_offset(void *ctx, const char *base, int64_t offset)
{
	struct render *r = ctx;

	return arena_printf(r->a, "(%s + (u64)%" PRId64 "LL)", base, offset);
}

static const char *c_plus(void *ctx, const char *a, uint64_t value)
{
	struct render *r = ctx;

	return arena_printf(r->a, "(%s + %" PRIu64 "ULL)", a, value);
}

static const char *c_constant(void *ctx, uint64_t value, bool is_signed)
{
	struct render *r = ctx;

	if (is_signed)
		return arena_printf(r->a, "((u64)%" PRId64 "LL)",
				    (int64_t)value);
	return arena_printf(r->a, "%" PRIu64 "ULL", value);
}

static const char *c_binary(void *ctx, const char *op, const char *a,
			    const char *b, bool is_signed)
{
	struct render *r = ctx;

	if (is_signed)	/* comparisons are then 1 or 0, computed in place */
		return arena_printf(r->a, "((u64)((s64)%s %s (s64)%s))", a,
				    op, b);
	return arena_printf(r->a, "(%s %s %s)", a, op, b);
}

static const char *c_unary(void *ctx, char op, const char *a)
{
	struct render *r = ctx;

	return arena_printf(r->a, "(%c%s)", op, a);
}

/* A fault-safe read of size bytes at addr into a temporary. */
static const char *c_deref(void *ctx, const char *addr, unsigned size)
{
	struct render *r = ctx;
	int t = r->ntemps++;

	sb_printf(&r->code, "u64 stp_dw%d;\n"
		  "if (stp_tp_read(&stp_dw%d, (unsigned long)%s, %u, 0)) {\n"
		  "\tstp_addr = %s;\n\tgoto fault;\n}\n", t, t, addr, size,
		  addr);
	return arena_printf(r->a, "stp_dw%d", t);
}

/* at the entry: the return address is all that was pushed */
static const char *c_cfa(void *ctx)
{
	struct render *r = ctx;

	return arena_printf(r->a, "((u64)regs->%s + 8ULL)",
			    arch_reg_pt_regs(ARCH_SP_REG));
}

/* a link-time address (a static variable): moved by the KASLR offset
 * at run time (runtime/probes.h) */
static const char *c_link_addr(void *ctx, uint64_t addr)
{
	struct render *r = ctx;

	/* a module's: its symbol where the module is now (0 while it is
	 * not loaded: the read then faults) */
	if (r->p->mod_sym)
		return arena_printf(r->a, "(READ_ONCE(stp_modsyms[%d].addr) + "
				    "(u64)%" PRId64 "LL)", r->mod_slot,
				    (int64_t)(addr - r->p->mod_sym_addr));
	return arena_printf(r->a, "STP_KERNEL_ADDR(0x%" PRIx64 "ULL)", addr);
}

static const struct dwloc_render c_render = {
	.reg = c_reg, .offset = c_offset, .plus = c_plus,
	.constant = c_constant, .binary = c_binary, .unary = c_unary,
	.deref = c_deref, .cfa = c_cfa, .link_addr = c_link_addr,
};

const char *loc_c(struct arena *a, const struct dwloc_prog *p,
		  unsigned value_size, struct dwloc *out)
{
	return loc_c_slot(a, p, value_size, -1, out);
}

const char *loc_c_slot(struct arena *a, const struct dwloc_prog *p,
		       unsigned value_size, int mod_slot, struct dwloc *out)
{
	struct render r = { .a = a, .p = p, .mod_slot = mod_slot };
	struct dwloc_value v;
	const char *err = dwloc_eval(a, p, value_size, &c_render, &r, &v);

	if (!err) {
		out->kind = v.kind;
		out->expr = v.expr;
		out->reg = v.reg >= 0 ? arch_reg_pt_regs((unsigned)v.reg) :
			   NULL;
		out->code = arena_strdup(a, sb_str(&r.code));
	}
	sb_free(&r.code);
	return err;
}

const char *loc_c_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, unsigned value_size,
		      struct dwloc *out)
{
	struct dwloc_prog p;
	const char *err = dwloc_var(f, a, addr, cu, name, &p);

	return err ? err : loc_c(a, &p, value_size, out);
}

const char *loc_c_var_at(struct dwloc_file *f, struct arena *a,
			 uint64_t entry, uint32_t cu, uint64_t pc,
			 const char *name, unsigned value_size,
			 struct dwloc *out)
{
	struct dwloc_prog p;
	const char *err = dwloc_var_at(f, a, entry, cu, pc, name, &p);

	return err ? err : loc_c(a, &p, value_size, out);
}
