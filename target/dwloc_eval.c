// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A location program run symbolically (dwloc.h: dwloc_eval): the stack
 * machine, the checks that can fail and their messages, with the values
 * made by a backend's renderer (module/loc_c.c: C over pt_regs), or by
 * none when pass 2 only asks whether a program can be read. Either way
 * the same ops are taken and refused at the same points, so a program
 * pass 2 accepts is one the backend can render.
 *
 * At a function's entry the canonical frame address is the stack pointer
 * plus the return address (DW_OP_call_frame_cfa, the usual frame base),
 * and DW_OP_entry_value(X) is X.
 */
#define _GNU_SOURCE
#include "target/dwloc.h"

#include <dwarf.h>
#include <inttypes.h>

#include "elf/arch.h"

struct eval {
	struct arena *a;
	const struct dwloc_render *r;	/* NULL: check only */
	void *ctx;
	const char *stack[32];
	int n;
	const char *err;
	int depth;
	bool inlined;		/* not at a function's entry: no CFA */
	bool stmt;		/* inside the function: no entry values */
	const struct dwloc_prog *p;	/* its cfa_* (dwloc.h) */
};

/* Without a renderer every value is this. */
static const char checked[] = "";

static const char *reg_value(struct eval *x, uint64_t reg)
{
	if (reg >= ARCH_NGPR) {
		x->err = arena_printf(x->a, "DWARF register %" PRIu64 " is not "
				      "a general purpose register", reg);
		return NULL;
	}
	return x->r ? x->r->reg(x->ctx, (unsigned)reg) : checked;
}

static void push(struct eval *x, const char *e)
{
	if (!e)
		return;
	if (x->n == 32) {
		x->err = "DWARF expression too deep";
		return;
	}
	x->stack[x->n++] = e;
}

static const char *pop(struct eval *x)
{
	if (!x->n) {
		x->err = "malformed DWARF expression (stack underflow)";
		return x->r ? x->r->constant(x->ctx, 0, false) : checked;
	}
	return x->stack[--x->n];
}

static int run(struct eval *x, const struct elf_loc *l,
	       struct dwloc_value *out);

/* The frame base of l, as an address. */
static const char *frame_base(struct eval *x, const struct elf_loc *l)
{
	struct dwloc_value fb;
	struct eval sub = { .a = x->a, .r = x->r, .ctx = x->ctx,
			    .depth = x->depth + 1, .inlined = x->inlined,
			    .p = x->p };

	if (x->depth > 2 || !l->frame_base) {
		x->err = "the function has no frame base at this address";
		return NULL;
	}
	if (run(&sub, l->frame_base, &fb) != 0) {
		x->err = sub.err;
		return NULL;
	}
	/* DW_OP_regN as a frame base means that register's value */
	return fb.expr;
}

/* A fault-safe read of size bytes at the address on top of the stack. */
static void deref(struct eval *x, uint64_t size)
{
	const char *addr = pop(x);

	if (size == 0 || size > 8) {
		x->err = "DW_OP_deref_size of an unsupported size";
		return;
	}
	push(x, x->r ? x->r->deref(x->ctx, addr, (unsigned)size) : checked);
}

static void binary(struct eval *x, const char *op, bool is_signed)
{
	const char *b = pop(x), *a = pop(x);

	push(x, x->r ? x->r->binary(x->ctx, op, a, b, is_signed) : checked);
}

static void unary(struct eval *x, char op)
{
	const char *a = pop(x);

	push(x, x->r ? x->r->unary(x->ctx, op, a) : checked);
}

/* DW_OP_entry_value(BLOCK): at the entry, BLOCK's value now. */
static void entry_value(struct eval *x, const struct elf_loc_op *op)
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
static bool stack_op(struct eval *x, const struct elf_loc_op *op)
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
	case DW_OP_plus_uconst: {
		const char *a = pop(x);
		push(x, x->r ? x->r->plus(x->ctx, a, op->value) : checked);
		break;
	}
	case DW_OP_plus: binary(x, "+", false); break;
	case DW_OP_minus: binary(x, "-", false); break;
	case DW_OP_mul: binary(x, "*", false); break;
	case DW_OP_and: binary(x, "&", false); break;
	case DW_OP_or: binary(x, "|", false); break;
	case DW_OP_xor: binary(x, "^", false); break;
	case DW_OP_shl: binary(x, "<<", false); break;
	case DW_OP_shr: binary(x, ">>", false); break;
	case DW_OP_shra: binary(x, ">>", true); break;
	/* comparisons: signed, 1 or 0 */
	case DW_OP_eq: binary(x, "==", true); break;
	case DW_OP_ne: binary(x, "!=", true); break;
	case DW_OP_lt: binary(x, "<", true); break;
	case DW_OP_le: binary(x, "<=", true); break;
	case DW_OP_gt: binary(x, ">", true); break;
	case DW_OP_ge: binary(x, ">=", true); break;
	case DW_OP_neg: unary(x, '-'); break;
	case DW_OP_not: unary(x, '~'); break;
	case DW_OP_nop:
		break;
	default:
		return false;
	}
	return true;
}

/*
 * Run l's ops; 0 and *out, or -1 with x->err. A DW_OP_piece ends the
 * run: pieces are taken only when the first covers the value (the
 * caller checks the size).
 */
static int run(struct eval *x, const struct elf_loc *l,
	       struct dwloc_value *out)
{
	out->kind = DWL_MEMORY;
	out->reg = -1;
	out->expr = NULL;
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
				out->reg = (int)op->reg;
			goto done;
		case ELF_LOC_BREG: {
			const char *r = reg_value(x, op->reg);
			if (r)
				push(x, x->r ? x->r->offset(x->ctx, r, op->offset) :
				     checked);
			break;
		}
		case ELF_LOC_FBREG: {
			const char *fb = frame_base(x, l);
			if (fb)
				push(x, x->r ? x->r->offset(x->ctx, fb,
							    op->offset) :
				     checked);
			break;
		}
		case ELF_LOC_CFA:
			if (x->p && x->p->cfa_known) {	/* the CFI's, at the pc */
				const char *r = reg_value(x, x->p->cfa_reg);
				if (r)
					push(x, x->r ? x->r->offset(x->ctx, r,
						x->p->cfa_offset) : checked);
				break;
			}
			/* at the entry: the return address is all that was pushed */
			if (x->inlined)
				x->err = "a location on the stack frame of an "
					 "inlined copy is not supported yet";
			else
				push(x, x->r ? x->r->cfa(x->ctx) : checked);
			break;
		case ELF_LOC_CONST:
			push(x, x->r ? x->r->constant(x->ctx, op->value,
						      op->is_signed) : checked);
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
			/* a link-time address (a static variable), which the
			 * kernel's KASLR may have moved */
			push(x, x->r ? x->r->link_addr(x->ctx, op->value) :
			     checked);
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
	return x->err ? -1 : 0;
}

const char *dwloc_eval(struct arena *a, const struct dwloc_prog *p,
		       unsigned value_size, const struct dwloc_render *r,
		       void *ctx, struct dwloc_value *out)
{
	struct eval x = { .a = a, .r = r, .ctx = ctx, .inlined = p->inlined,
			  .stmt = p->stmt, .p = p };

	if (run(&x, p->loc, out) != 0)
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
