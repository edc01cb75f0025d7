// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF location expressions -> C over the probed function's pt_regs; see
 * dwloc.h. The expression is run symbolically: each stack entry is a C
 * expression (u64), a DW_OP_deref becomes a fault-safe read into a
 * temporary. At the function's entry the canonical frame address is the
 * stack pointer plus the return address, so DW_OP_call_frame_cfa (the
 * usual DW_AT_frame_base) is regs->sp + 8, and DW_OP_entry_value(X) is X.
 */
#define _GNU_SOURCE
#include "target/dwloc.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/strbuf.h"

struct dwloc_file {
	int fd;
	Elf *elf;
	Dwarf *dw;
	/* the last CU looked up: offsets of CUs by number, as found */
	Dwarf_Off *cu_off;
	uint32_t ncu, capcu;
	Dwarf_Off next_off;	/* where dwarf_nextcu goes on */
	bool cus_done;
};

struct dwloc_file *dwloc_open(const char *vmlinux, char **err)
{
	struct dwloc_file *f = calloc(1, sizeof(*f));

	if (!f)
		fatal("out of memory");
	elf_version(EV_CURRENT);
	f->fd = open(vmlinux, O_RDONLY);
	if (f->fd < 0) {
		*err = xasprintf("cannot open %s: %s", vmlinux, strerror(errno));
		free(f);
		return NULL;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (f->elf)
		f->dw = dwarf_begin_elf(f->elf, DWARF_C_READ, NULL);
	if (!f->dw) {
		*err = xasprintf("%s has no DWARF: %s", vmlinux,
				 dwarf_errmsg(-1));
		dwloc_close(f);
		return NULL;
	}
	return f;
}

void dwloc_close(struct dwloc_file *f)
{
	if (!f)
		return;
	if (f->dw)
		dwarf_end(f->dw);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	free(f->cu_off);
	free(f);
}

/* The DIE of CU number cu (numbered as functions.c numbers them). */
static bool cu_die(struct dwloc_file *f, uint32_t cu, Dwarf_Die *out)
{
	while (cu >= f->ncu && !f->cus_done) {
		Dwarf_Off next;
		size_t hsize;

		if (dwarf_nextcu(f->dw, f->next_off, &next, &hsize, NULL, NULL,
				 NULL) != 0) {
			f->cus_done = true;
			break;
		}
		VEC_PUSH(f->cu_off, f->ncu, f->capcu, f->next_off + hsize);
		f->next_off = next;
	}
	return cu < f->ncu && dwarf_offdie(f->dw, f->cu_off[cu], out);
}

/* The entry pc of an out-of-line copy, as functions.c takes it. */
static bool func_entry(Dwarf_Die *d, uint64_t *pc)
{
	Dwarf_Addr a = 0, base = 0, start = 0, end;

	if (dwarf_entrypc(d, &a) == 0 && a) {
		*pc = a;
		return true;
	}
	if (dwarf_ranges(d, 0, &base, &start, &end) > 0) {
		*pc = base ? base : start;
		return *pc != 0;
	}
	return false;
}

/* A DIE's name, also through DW_AT_abstract_origin (an inlined copy's
 * parameters name nothing themselves). */
static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(d, DW_AT_name, &attr) ?
	       dwarf_formstring(&attr) : NULL;
}

static bool find_func(Dwarf_Die *parent, uint64_t addr, Dwarf_Die *out)
{
	Dwarf_Die d;
	uint64_t pc;

	if (dwarf_child(parent, &d) != 0)
		return false;
	do {
		if (dwarf_tag(&d) != DW_TAG_subprogram ||
		    dwarf_hasattr(&d, DW_AT_declaration))
			continue;
		if (func_entry(&d, &pc) && pc == addr) {
			*out = d;
			return true;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/* An inlined copy whose entry pc is addr, anywhere under parent. */
static bool find_inline(Dwarf_Die *parent, uint64_t addr, Dwarf_Die *out,
			int depth)
{
	Dwarf_Die d;
	Dwarf_Addr pc;

	if (depth > 64 || dwarf_child(parent, &d) != 0)
		return false;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_inlined_subroutine &&
		    dwarf_entrypc(&d, &pc) == 0 && pc == addr) {
			*out = d;
			return true;
		}
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		     tag == DW_TAG_inlined_subroutine) &&
		    find_inline(&d, addr, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&d, &d) == 0);
	return false;
}

/*
 * The function instance at addr: an out-of-line copy (*inlined false), or
 * an inlined copy, where only the registers are known (no frame).
 */
static bool find_instance(struct dwloc_file *f, uint32_t cu, uint64_t addr,
			  Dwarf_Die *out, bool *inlined)
{
	Dwarf_Die cud;

	if (!cu_die(f, cu, &cud))
		return false;
	*inlined = false;
	if (find_func(&cud, addr, out))
		return true;
	*inlined = true;
	return find_inline(&cud, addr, out, 0);
}

static const char *const x86_regs[] = {
	"ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

struct xlate {
	struct arena *a;
	struct strbuf code;
	const char *stack[32];
	int n;
	int ntemps;
	const char *err;
	Dwarf_Attribute *attr;	/* for DW_OP_entry_value's block */
	Dwarf_Die *func;	/* for DW_OP_fbreg's frame base */
	uint64_t pc;
	int depth;
	bool inlined;		/* not at a function's entry: no CFA */
	bool stmt;		/* inside the function: no entry values */
};

static const char *reg_value(struct xlate *x, uint64_t reg)
{
	if (reg >= sizeof(x86_regs) / sizeof(x86_regs[0])) {
		x->err = arena_printf(x->a, "DWARF register %" PRIu64 " is not "
				      "a general purpose register", reg);
		return NULL;
	}
	return arena_printf(x->a, "((u64)regs->%s)", x86_regs[reg]);
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

static int translate(struct xlate *x, Dwarf_Op *ops, size_t len,
		     struct dwloc *out);

/* The frame base of x->func at x->pc, as an address expression. */
static const char *frame_base(struct xlate *x)
{
	Dwarf_Attribute fa;
	Dwarf_Op *ops;
	size_t len;
	struct dwloc fb;
	struct xlate sub = { .a = x->a, .func = x->func, .pc = x->pc,
			     .depth = x->depth + 1, .ntemps = x->ntemps,
			     .inlined = x->inlined };

	if (x->depth > 2 ||
	    !dwarf_attr_integrate(x->func, DW_AT_frame_base, &fa) ||
	    dwarf_getlocation_addr(&fa, x->pc, &ops, &len, 1) != 1) {
		x->err = "the function has no frame base at this address";
		return NULL;
	}
	sub.attr = &fa;
	if (translate(&sub, ops, len, &fb) != 0) {
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
static void deref(struct xlate *x, unsigned size)
{
	const char *addr = pop(x);
	int t = x->ntemps++;

	if (size == 0 || size > 8) {
		x->err = "DW_OP_deref_size of an unsupported size";
		return;
	}
	sb_printf(&x->code, "u64 stp_dw%d;\n"
		  "if (stp_tp_read(&stp_dw%d, (unsigned long)%s, %u, 0)) {\n"
		  "\tstp_addr = %s;\n\tgoto fault;\n}\n", t, t, addr, size,
		  addr);
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
static void entry_value(struct xlate *x, Dwarf_Op *op)
{
	Dwarf_Attribute inner;
	Dwarf_Op *ops;
	size_t len;

	if (x->stmt) {
		x->err = "a value from the function's entry "
			 "(DW_OP_entry_value) is not known at a statement";
		return;
	}
	if (!x->attr || dwarf_getlocation_attr(x->attr, op, &inner) != 0 ||
	    dwarf_getlocation(&inner, &ops, &len) != 0 || len != 1) {
		x->err = "unsupported DW_OP_entry_value";
		return;
	}
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		push(x, reg_value(x, ops[0].atom - DW_OP_reg0));
	else if (ops[0].atom == DW_OP_regx)
		push(x, reg_value(x, ops[0].number));
	else
		x->err = "unsupported DW_OP_entry_value";
}

/*
 * Run ops; 0 and *out, or -1 with x->err. A DW_OP_piece ends the
 * translation: pieces are taken only when the first covers the value
 * (the caller checks the size).
 */
static int translate(struct xlate *x, Dwarf_Op *ops, size_t len,
		     struct dwloc *out)
{
	out->kind = DWL_MEMORY;
	out->reg = NULL;
	for (size_t i = 0; i < len && !x->err; i++) {
		Dwarf_Op *op = &ops[i];
		uint8_t atom = op->atom;

		if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
			push(x, arena_printf(x->a, "%uULL", atom - DW_OP_lit0));
			continue;
		}
		if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
			if (i + 1 < len && ops[i + 1].atom != DW_OP_piece) {
				x->err = "a register location followed by more "
					 "operations";
				break;
			}
			out->kind = DWL_REGISTER;
			out->expr = reg_value(x, atom - DW_OP_reg0);
			if (out->expr)
				out->reg = x86_regs[atom - DW_OP_reg0];
			break;
		}
		if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
			const char *r = reg_value(x, atom - DW_OP_breg0);
			if (r)
				push(x, arena_printf(x->a, "(%s + (u64)%" PRId64
						     "LL)", r, (int64_t)op->number));
			continue;
		}
		switch (atom) {
		case DW_OP_regx:
			out->kind = DWL_REGISTER;
			out->expr = reg_value(x, op->number);
			if (out->expr)
				out->reg = x86_regs[op->number];
			goto done;
		case DW_OP_bregx: {
			const char *r = reg_value(x, op->number);
			if (r)
				push(x, arena_printf(x->a, "(%s + (u64)%" PRId64
						     "LL)", r, (int64_t)op->number2));
			break;
		}
		case DW_OP_fbreg: {
			const char *fb = frame_base(x);
			if (fb)
				push(x, arena_printf(x->a, "(%s + (u64)%" PRId64
						     "LL)", fb, (int64_t)op->number));
			break;
		}
		case DW_OP_call_frame_cfa:
			/* at the entry: the return address is all that was pushed */
			if (x->inlined)
				x->err = "a location on the stack frame of an "
					 "inlined copy is not supported yet";
			else
				push(x, "((u64)regs->sp + 8ULL)");
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu:
			push(x, arena_printf(x->a, "%" PRIu64 "ULL", op->number));
			break;
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
		case DW_OP_const8s: case DW_OP_consts:
			push(x, arena_printf(x->a, "((u64)%" PRId64 "LL)",
					     (int64_t)op->number));
			break;
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
					     op->number));
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
		case DW_OP_deref:
			deref(x, 8);
			break;
		case DW_OP_deref_size:
			deref(x, (unsigned)op->number);
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			entry_value(x, op);
			break;
		case DW_OP_stack_value:
			out->kind = DWL_VALUE;
			out->expr = pop(x);
			if (i + 1 < len && ops[i + 1].atom != DW_OP_piece)
				x->err = "DW_OP_stack_value before the end";
			goto done;
		case DW_OP_piece:
			goto done;
		case DW_OP_nop:
			break;
		case DW_OP_addr:
			/* a link-time address (a static variable): moved by
			 * the KASLR offset at run time (runtime/probes.h) */
			push(x, arena_printf(x->a, "STP_KERNEL_ADDR(0x%" PRIx64
					     "ULL)", op->number));
			break;
		case DW_OP_GNU_parameter_ref:
			/* a caller's argument, known only at its call site
			 * (SystemTap 4.8's message) */
			x->err = "no DW_TAG_GNU_call_sites found";
			break;
		case DW_OP_implicit_value:
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
			x->err = "an implicit value or pointer is not supported "
				 "yet";
			break;
		default:
			x->err = arena_printf(x->a, "DWARF operation 0x%x is not "
					      "supported yet", atom);
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

/* The location of attr at the first of pcs that has one: 1, 0, -1. */
static int location_at(Dwarf_Attribute *attr, const uint64_t *pcs, int npcs,
		       Dwarf_Op **ops, size_t *len, uint64_t *pc)
{
	for (int i = 0; i < npcs; i++) {
		int r = dwarf_getlocation_addr(attr, pcs[i], ops, len, 1);
		if (r < 0)
			return -1;
		if (r == 1 && *len > 0) {
			*pc = pcs[i];
			return 1;
		}
	}
	return 0;
}

/* The function, then its lexical blocks around pc, inwards: how many. */
static int scopes_at(Dwarf_Die *fn, uint64_t pc, Dwarf_Die *sc, int max)
{
	Dwarf_Die child;
	int nsc = 0;

	sc[nsc++] = *fn;
	while (nsc < max && dwarf_child(&sc[nsc - 1], &child) == 0) {
		bool deeper = false;

		do {
			if (dwarf_tag(&child) == DW_TAG_lexical_block &&
			    dwarf_haspc(&child, pc) == 1) {
				sc[nsc++] = child;
				deeper = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
		if (!deeper)
			break;
	}
	return nsc;
}

/* What SystemTap's $$vars shows of a variable of die's type whatever its
 * location: '{' a struct, union or class, '[' an array, 0 a value; *tag
 * the C name of a named struct or union ("struct fd"), else NULL. */
static char type_shape(Dwarf_Die *die, struct arena *a, const char **tag)
{
	Dwarf_Attribute at;
	Dwarf_Die t = *die;

	for (int depth = 0; depth < 64; depth++) {
		if (!dwarf_attr_integrate(&t, DW_AT_type, &at) ||
		    !dwarf_formref_die(&at, &t))
			return 0;
		switch (dwarf_tag(&t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			continue;
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (die_name(&t))
				*tag = arena_printf(a, "%s %s",
						    dwarf_tag(&t) ==
						    DW_TAG_union_type ?
						    "union" : "struct",
						    die_name(&t));
			return '{';
		case DW_TAG_class_type:
			return '{';
		case DW_TAG_array_type:
			return '[';
		default:
			return 0;
		}
	}
	return 0;
}

/* Add the named parameters and variables declared directly in scope. */
static int scope_names(Dwarf_Die *scope, struct arena *a,
		       struct dwloc_name **out, int n, int *cap)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return n;
	do {
		int tag = dwarf_tag(&child);
		const char *name = die_name(&child);

		if ((tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) ||
		    !name)
			continue;
		if (n == *cap) {
			struct dwloc_name *grown;
			*cap = *cap ? 2 * *cap : 16;
			grown = arena_alloc(a, (size_t)*cap * sizeof(*grown));
			if (n)
				memcpy(grown, *out, (size_t)n * sizeof(*grown));
			*out = grown;
		}
		(*out)[n].name = arena_strdup(a, name);
		(*out)[n].is_param = tag == DW_TAG_formal_parameter;
		(*out)[n].tag = NULL;
		(*out)[n].shape = type_shape(&child, a, &(*out)[n].tag);
		n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

int dwloc_names(struct dwloc_file *f, struct arena *a, uint64_t addr,
		uint32_t cu, struct dwloc_name **out)
{
	Dwarf_Die fn;
	int cap = 0;
	bool inlined;

	*out = NULL;
	if (!find_instance(f, cu, addr, &fn, &inlined))
		return -1;
	return scope_names(&fn, a, out, 0, &cap);
}

int dwloc_names_at(struct dwloc_file *f, struct arena *a, uint64_t entry,
		   uint32_t cu, uint64_t pc, struct dwloc_name **out)
{
	Dwarf_Die fn, sc[64];
	int n = 0, cap = 0, nsc;
	bool inlined;

	*out = NULL;
	if (!find_instance(f, cu, entry, &fn, &inlined))
		return -1;
	nsc = scopes_at(&fn, pc, sc, 64);
	for (int i = nsc - 1; i >= 0; i--)
		n = scope_names(&sc[i], a, out, n, &cap);
	return n;
}

/* A variable's location ops as C in out; NULL, or why not. */
static const char *translate_var(struct xlate *x, Dwarf_Op *ops, size_t len,
				 unsigned value_size, struct dwloc *out)
{
	int rc = translate(x, ops, len, out);

	sb_free(&x->code);
	if (rc != 0)
		return x->err;
	/* pieces: only a first piece that holds the whole value */
	for (size_t i = 0; i < len; i++)
		if (ops[i].atom == DW_OP_piece) {
			if (ops[i].number < value_size)
				return "a value split into pieces is not "
				       "supported yet";
			break;
		}
	return NULL;
}

/* The parameter or variable NAME declared directly in scope, in *out. */
static bool find_var_child(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
{
	if (dwarf_child(scope, out) != 0)
		return false;
	do {
		int tag = dwarf_tag(out);
		const char *n;

		if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable)
			continue;
		n = die_name(out);
		if (n && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/* A variable the compiler folded to a constant (DW_AT_const_value). */
static const char *const_value(struct arena *a, Dwarf_Attribute *attr,
			       struct dwloc *out)
{
	Dwarf_Sword sv;
	Dwarf_Word uv;

	out->kind = DWL_VALUE;
	out->code = "";
	if (dwarf_formsdata(attr, &sv) == 0)
		out->expr = arena_printf(a, "((u64)%" PRId64 "LL)", (int64_t)sv);
	else if (dwarf_formudata(attr, &uv) == 0)
		out->expr = arena_printf(a, "%" PRIu64 "ULL", (uint64_t)uv);
	else
		return "a constant of this form is not supported yet";
	return NULL;
}

const char *dwloc_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, unsigned value_size,
		      struct dwloc *out)
{
	Dwarf_Die fn, child;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t len;
	/* the entry, after an endbr64, after the fentry call, after both
	 * (an inlined copy: its entry only) */
	const uint64_t pcs[] = { addr, addr + 4, addr + 5, addr + 9 };
	uint64_t pc;
	bool found = false, inlined;

	if (!find_instance(f, cu, addr, &fn, &inlined))
		return arena_printf(a, "no function at 0x%" PRIx64 " in the "
				    "kernel's DWARF", addr);
	found = find_var_child(&fn, name, &child);
	if (!found)
		return arena_printf(a, "unable to find local '%s' near pc "
				    "0x%" PRIx64, name, addr);
	if (dwarf_attr_integrate(&child, DW_AT_const_value, &attr))
		return const_value(a, &attr, out);
	if (!dwarf_attr_integrate(&child, DW_AT_location, &attr) ||
	    location_at(&attr, pcs, inlined ? 1 : 4, &ops, &len, &pc) != 1)
		return arena_printf(a, "not accessible at this address "
				    "(pc: 0x%" PRIx64 ")", addr);

	struct xlate x = { .a = a, .attr = &attr, .func = &fn, .pc = pc,
			   .inlined = inlined };
	return translate_var(&x, ops, len, value_size, out);
}

const char *dwloc_var_at(struct dwloc_file *f, struct arena *a,
			 uint64_t entry, uint32_t cu, uint64_t pc,
			 const char *name, unsigned value_size,
			 struct dwloc *out)
{
	Dwarf_Die fn, sc[64], child;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t len;
	uint64_t at;
	int nsc;
	bool found = false, inlined;

	if (!find_instance(f, cu, entry, &fn, &inlined))
		return arena_printf(a, "no function at 0x%" PRIx64 " in the "
				    "kernel's DWARF", entry);
	nsc = scopes_at(&fn, pc, sc, 64);
	for (int s = nsc - 1; s >= 0 && !found; s--)
		found = find_var_child(&sc[s], name, &child);
	if (!found)
		return arena_printf(a, "unable to find local '%s' near pc "
				    "0x%" PRIx64, name, pc);
	if (dwarf_attr_integrate(&child, DW_AT_const_value, &attr))
		return const_value(a, &attr, out);	/* in a block too */
	if (!dwarf_attr_integrate(&child, DW_AT_location, &attr) ||
	    location_at(&attr, &pc, 1, &ops, &len, &at) != 1)
		return arena_printf(a, "not accessible at this address "
				    "(pc: 0x%" PRIx64 ")", pc);

	struct xlate x = { .a = a, .attr = &attr, .func = &fn, .pc = pc,
			   .inlined = true, .stmt = true };
	return translate_var(&x, ops, len, value_size, out);
}
