// SPDX-License-Identifier: GPL-2.0-or-later
/* Location programs as C over pt_regs; see loc_c.h. */
#define _GNU_SOURCE
#include "module/loc_c.h"

#include <dwarf.h>
#include <inttypes.h>

#include "elf/arch.h"
#include "lib/strbuf.h"

struct xlate {
	struct arena *a;
	struct strbuf code;
	const char *stack[32];
	int n;
	int ntemps;
	const char *err;
	int depth;
	bool inlined;		/* not at a function's entry: no CFA */
	bool stmt;		/* inside the function: no entry values */
};

static const char *reg_value(struct xlate *x, uint64_t reg)
{
	if (reg >= ARCH_NGPR) {
		x->err = arena_printf(x->a, "DWARF register %" PRIu64 " is not "
				      "a general purpose register", reg);
		return NULL;
	}
	return arena_printf(x->a, "((u64)regs->%s)",
			    arch_reg_pt_regs((unsigned)reg));
}

static void push(struct xlate *x, const char *e)
{
	if (!e)
		return;
	if (x->n == 32) {
		x->err = "DWARF expression too deep";
		return;
	}
	x->stack[x->n++] = e;
}

static const char *pop(struct xlate *x)
{
	if (!x->n) {
		x->err = "malformed DWARF expression (stack underflow)";
		return "0";
	}
	return x->stack[--x->n];
}

static int translate(struct xlate *x, const struct elf_loc *l,
		     struct dwloc *out);

/* The frame base of l, as an address expression. */
static const char *frame_base(struct xlate *x, const struct elf_loc *l)
{
	struct dwloc fb;
	struct xlate sub = { .a = x->a, .depth = x->depth + 1,
			     .ntemps = x->ntemps, .inlined = x->inlined };

	if (x->depth > 2 || !l->frame_base) {
		x->err = "the function has no frame base at this address";
		return NULL;
	}
	if (translate(&sub, l->frame_base, &fb) != 0) {
		x->err = sub.err;
		sb_free(&sub.code);
		return NULL;
	}
	sb_puts(&x->code, sb_str(&sub.code));
	x->ntemps = sub.ntemps;
	sb_free(&sub.code);
	/* DW_OP_regN as a frame base means that register's value */
	return fb.expr;
}

/* A fault-safe read of size bytes at the address on top of the stack. */
static void deref(struct xlate *x, uint64_t size)
{
	const char *addr = pop(x);
	int t = x->ntemps++;

	if (size == 0 || size > 8) {
		x->err = "DW_OP_deref_size of an unsupported size";
		return;
	}
	sb_printf(&x->code, "u64 stp_dw%d;\n"
		  "if (stp_tp_read(&stp_dw%d, (unsigned long)%s, %u, 0)) {\n"
		  "\tstp_addr = %s;\n\tgoto fault;\n}\n", t, t, addr,
		  (unsigned)size, addr);
	push(x, arena_printf(x->a, "stp_dw%d", t));
}

static void binary(struct xlate *x, const char *op, bool is_signed)
{
	const char *b = pop(x), *a = pop(x);

	if (is_signed)
		push(x, arena_printf(x->a, "((u64)((s64)%s %s (s64)%s))", a, op,
				     b));
	else
		push(x, arena_printf(x->a, "(%s %s %s)", a, op, b));
}

/* DW_OP_entry_value(BLOCK): at the entry, BLOCK's value now. */
static void entry_value(struct xlate *x, const struct elf_loc_op *op)
{
	if (x->stmt) {
		x->err = "a value from the function's entry "
			 "(DW_OP_entry_value) is not known at a statement";
		return;
	}
	if (!op->sub || op->sub->n != 1 || op->sub->ops[0].kind != ELF_LOC_REG) {
		x->err = "unsupported DW_OP_entry_value";
		return;
	}
	push(x, reg_value(x, op->sub->ops[0].reg));
}

/* A stack or arithmetic op; false for one not modelled. */
static bool stack_op(struct xlate *x, const struct elf_loc_op *op)
{
	switch (op->atom) {
	case DW_OP_dup:
		if (x->n)
			push(x, x->stack[x->n - 1]);
		else
			pop(x);
		break;
	case DW_OP_drop:
		pop(x);
		break;
	case DW_OP_plus_uconst:
		push(x, arena_printf(x->a, "(%s + %" PRIu64 "ULL)", pop(x),
				     op->value));
		break;
	case DW_OP_plus: binary(x, "+", false); break;
	case DW_OP_minus: binary(x, "-", false); break;
	case DW_OP_mul: binary(x, "*", false); break;
	case DW_OP_and: binary(x, "&", false); break;
	case DW_OP_or: binary(x, "|", false); break;
	case DW_OP_xor: binary(x, "^", false); break;
	case DW_OP_shl: binary(x, "<<", false); break;
	case DW_OP_shr: binary(x, ">>", false); break;
	case DW_OP_shra: binary(x, ">>", true); break;
	/* comparisons: signed, 1 or 0 (a bool computed in place) */
	case DW_OP_eq: binary(x, "==", true); break;
	case DW_OP_ne: binary(x, "!=", true); break;
	case DW_OP_lt: binary(x, "<", true); break;
	case DW_OP_le: binary(x, "<=", true); break;
	case DW_OP_gt: binary(x, ">", true); break;
	case DW_OP_ge: binary(x, ">=", true); break;
	case DW_OP_neg:
		push(x, arena_printf(x->a, "(-%s)", pop(x)));
		break;
	case DW_OP_not:
		push(x, arena_printf(x->a, "(~%s)", pop(x)));
		break;
	case DW_OP_nop:
		break;
	default:
		return false;
	}
	return true;
}

/*
 * Run l's ops; 0 and *out, or -1 with x->err. A DW_OP_piece ends the
 * translation: pieces are taken only when the first covers the value
 * (the caller checks the size).
 */
static int translate(struct xlate *x, const struct elf_loc *l,
		     struct dwloc *out)
{
	out->kind = DWL_MEMORY;
	out->reg = NULL;
	for (int i = 0; i < l->n && !x->err; i++) {
		const struct elf_loc_op *op = &l->ops[i];
		bool last = i + 1 >= l->n || l->ops[i + 1].kind == ELF_LOC_PIECE;

		switch (op->kind) {
		case ELF_LOC_REG:
			if (!last) {
				x->err = "a register location followed by more "
					 "operations";
				goto done;
			}
			out->kind = DWL_REGISTER;
			out->expr = reg_value(x, op->reg);
			if (out->expr)
				out->reg = arch_reg_pt_regs(op->reg);
			goto done;
		case ELF_LOC_BREG: {
			const char *r = reg_value(x, op->reg);
			if (r)
				push(x, arena_printf(x->a, "(%s + (u64)%" PRId64
						     "LL)", r, op->offset));
			break;
		}
		case ELF_LOC_FBREG: {
			const char *fb = frame_base(x, l);
			if (fb)
				push(x, arena_printf(x->a, "(%s + (u64)%" PRId64
						     "LL)", fb, op->offset));
			break;
		}
		case ELF_LOC_CFA:
			/* at the entry: the return address is all that was pushed */
			if (x->inlined)
				x->err = "a location on the stack frame of an "
					 "inlined copy is not supported yet";
			else
				push(x, arena_printf(x->a, "((u64)regs->%s + 8ULL)",
						     arch_reg_pt_regs(ARCH_SP_REG)));
			break;
		case ELF_LOC_CONST:
			if (op->is_signed)
				push(x, arena_printf(x->a, "((u64)%" PRId64 "LL)",
						     (int64_t)op->value));
			else
				push(x, arena_printf(x->a, "%" PRIu64 "ULL",
						     op->value));
			break;
		case ELF_LOC_STACK:
			if (!stack_op(x, op))
				x->err = arena_printf(x->a, "DWARF operation 0x%x "
						      "is not supported yet",
						      op->atom);
			break;
		case ELF_LOC_DEREF:
			deref(x, op->size);
			break;
		case ELF_LOC_ENTRY_VALUE:
			entry_value(x, op);
			break;
		case ELF_LOC_STACK_VALUE:
			out->kind = DWL_VALUE;
			out->expr = pop(x);
			if (!last)
				x->err = "DW_OP_stack_value before the end";
			goto done;
		case ELF_LOC_PIECE:
			/* the value's first piece: its address; none (the
			 * piece is optimized out) is a split value too */
			if (out->kind == DWL_MEMORY && !x->n)
				x->err = "a value split into pieces is not "
					 "supported yet";
			else if (out->kind == DWL_MEMORY)
				out->expr = pop(x);
			goto done;
		case ELF_LOC_ADDR:
			/* a link-time address (a static variable): moved by
			 * the KASLR offset at run time (runtime/probes.h) */
			push(x, arena_printf(x->a, "STP_KERNEL_ADDR(0x%" PRIx64
					     "ULL)", op->value));
			break;
		case ELF_LOC_PARAM_REF:
			/* a caller's argument, known only at its call site
			 * (SystemTap 4.8's message) */
			x->err = "no DW_TAG_GNU_call_sites found";
			break;
		case ELF_LOC_IMPLICIT:
			x->err = "an implicit value or pointer is not supported "
				 "yet";
			break;
		case ELF_LOC_OTHER:
			x->err = arena_printf(x->a, "DWARF operation 0x%x is not "
					      "supported yet", op->atom);
			break;
		}
	}
	if (!x->err && out->kind == DWL_MEMORY)
		out->expr = pop(x);
done:
	if (x->err)
		return -1;
	out->code = arena_strdup(x->a, sb_str(&x->code));
	return 0;
}

const char *loc_c(struct arena *a, const struct dwloc_prog *p,
		  unsigned value_size, struct dwloc *out)
{
	struct xlate x = { .a = a, .inlined = p->inlined, .stmt = p->stmt };
	int rc = translate(&x, p->loc, out);

	sb_free(&x.code);
	if (rc != 0)
		return x.err;
	/* pieces: only a first piece that holds the whole value */
	for (int i = 0; i < p->loc->n; i++)
		if (p->loc->ops[i].kind == ELF_LOC_PIECE) {
			if (p->loc->ops[i].size < value_size)
				return "a value split into pieces is not "
				       "supported yet";
			break;
		}
	return NULL;
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
