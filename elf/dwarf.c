// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DWARF of an elf_file (see elf.h): functions and their inlined
 * instances, line tables, variables' locations as programs. Programs
 * keep DWARF's order and meaning op by op; what an op means on a machine
 * (C over pt_regs, a BPF register read) is the backend's to decide.
 */
#define _GNU_SOURCE
#include "elf/internal.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elf/arch.h"
#include "lib/strbuf.h"

/* ------------------------------------------------------------------ */
/* Functions */

static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(d, DW_AT_name, &attr) ?
	       dwarf_formstring(&attr) : NULL;
}

struct walk {
	struct elf_file *f;
	int (*fn)(const struct elf_func *fn, void *arg);
	void *arg;
	Dwarf_Files *files;	/* the CU's, for DW_AT_call_file */
	struct elf_range *ranges;
	int cap;
};

static int die_ranges(struct walk *w, Dwarf_Die *d)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int n = 0;

	while ((off = dwarf_ranges(d, off, &base, &start, &end)) > 0)
		VEC_PUSH(w->ranges, n, w->cap,
			 ((struct elf_range){ start, end }));
	return n;
}

static int report(struct walk *w, Dwarf_Die *d, const char *caller)
{
	struct elf_func fn = { .name = die_name(d), .caller = caller };
	Dwarf_Addr pc;
	Dwarf_Word u;
	Dwarf_Attribute at;

	if (!fn.name)
		return 0;
	fn.inlined = dwarf_tag(d) == DW_TAG_inlined_subroutine;
	fn.nranges = die_ranges(w, d);
	fn.ranges = w->ranges;
	if (dwarf_entrypc(d, &pc) == 0)
		fn.entry_pc = pc;
	else if (fn.nranges)
		fn.entry_pc = fn.ranges[0].lo;
	else
		return 0;
	fn.decl_file = dwarf_decl_file(d);
	dwarf_decl_line(d, &fn.decl_line);
	if (fn.inlined) {
		if (dwarf_attr(d, DW_AT_call_file, &at) &&
		    dwarf_formudata(&at, &u) == 0 && w->files)
			fn.call_file = dwarf_filesrc(w->files, u, NULL, NULL);
		if (dwarf_attr(d, DW_AT_call_line, &at) &&
		    dwarf_formudata(&at, &u) == 0)
			fn.call_line = (int)u;
	}
	fn.die = dwarf_dieoffset(d);
	return w->fn(&fn, w->arg);
}

/* The inlined instances under d, depth first. */
static int walk_inlines(struct walk *w, Dwarf_Die *parent,
			const char *caller, int depth)
{
	Dwarf_Die d;
	int r;

	if (depth > 64 || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_inlined_subroutine &&
		    (r = report(w, &d, caller)))
			return r;
		if ((tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block) &&
		    (r = walk_inlines(w, &d, caller, depth + 1)))
			return r;
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

static int walk_scope(struct walk *w, Dwarf_Die *parent, int depth)
{
	Dwarf_Die d;
	int r;

	if (depth > 16 || dwarf_child(parent, &d) != 0)
		return 0;
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			if (dwarf_hasattr(&d, DW_AT_declaration) ||
			    (!dwarf_hasattr(&d, DW_AT_low_pc) &&
			     !dwarf_hasattr(&d, DW_AT_ranges)))
				break;
			if ((r = report(w, &d, NULL)) ||
			    (r = walk_inlines(w, &d, die_name(&d), 0)))
				return r;
			break;
		case DW_TAG_namespace:
			if ((r = walk_scope(w, &d, depth + 1)))
				return r;
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

int elf_file_functions(struct elf_file *f,
		       int (*fn)(const struct elf_func *fn, void *arg),
		       void *arg)
{
	struct walk w = { .f = f, .fn = fn, .arg = arg };
	Dwarf_Off off = 0, next;
	size_t hsize;
	int r = 0;

	if (!elf_file_dwarf(f))
		return -1;
	while (!r && dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL,
				  NULL) == 0) {
		Dwarf_Die cu;
		size_t nfiles;

		if (dwarf_offdie(f->dw, off + hsize, &cu)) {
			if (dwarf_getsrcfiles(&cu, &w.files, &nfiles) != 0)
				w.files = NULL;
			r = walk_scope(&w, &cu, 0);
		}
		off = next;
	}
	free(w.ranges);
	return r;
}

/* ------------------------------------------------------------------ */
/* Line tables */

static void fill_line(struct elf_file *f, Dwarf_Line *l, struct elf_line *out)
{
	Dwarf_Addr a = 0;
	bool stmt = false;
	const char *src = dwarf_linesrc(l, NULL, NULL);

	dwarf_lineaddr(l, &a);
	dwarf_lineno(l, &out->line);
	if (dwarf_linecol(l, &out->column) != 0)
		out->column = 0;
	dwarf_linebeginstatement(l, &stmt);
	out->addr = a;
	out->is_stmt = stmt;
	out->file = src ? arena_strdup(&f->arena, src) : "";
}

bool elf_file_line_at(struct elf_file *f, uint64_t addr,
		      struct elf_line *out)
{
	Dwarf_Die cu;
	Dwarf_Line *l;

	if (!elf_file_dwarf(f) || !dwarf_addrdie(f->dw, addr, &cu) ||
	    !(l = dwarf_getsrc_die(&cu, addr)))
		return false;
	fill_line(f, l, out);
	return true;
}

/* Does the CU's producer (gcc's "GNU C17 12.2.0 -mtune=generic -g -O2")
 * name an optimisation level above -O0? */
static bool cu_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	const char *p = dwarf_attr(cu, DW_AT_producer, &attr) ?
			dwarf_formstring(&attr) : NULL;
	bool opt = false;

	while (p && (p = strstr(p, " -O"))) {
		p += 3;
		opt = *p != '0';	/* the last -O counts */
	}
	return opt;
}

/* The end of the subprogram among scopes whose code starts at entry, or
 * 0. */
static uint64_t subprogram_end(Dwarf_Die *scopes, int n, uint64_t entry)
{
	for (int i = 0; i < n; i++) {
		Dwarf_Addr lo, hi;

		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (dwarf_lowpc(&scopes[i], &lo) == 0 && lo == entry &&
		    dwarf_highpc(&scopes[i], &hi) == 0)
			return hi;
		return 0;
	}
	return 0;
}

uint64_t elf_file_after_prologue(struct elf_file *f, uint64_t entry)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Lines *lines;
	size_t nl;
	uint64_t end, best = 0;
	int n;

	if (!elf_file_dwarf(f) || !dwarf_addrdie(f->dw, entry, &cu) ||
	    cu_optimized(&cu))
		return entry;
	n = dwarf_getscopes(&cu, entry, &scopes);
	end = n > 0 ? subprogram_end(scopes, n, entry) : 0;
	free(scopes);
	if (!end || dwarf_getsrclines(&cu, &lines, &nl) != 0)
		return entry;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool seq_end = false;

		if (!l || dwarf_lineaddr(l, &addr) != 0 ||
		    dwarf_lineendsequence(l, &seq_end) != 0 || seq_end)
			continue;
		if (addr > entry && addr < end && (!best || addr < best))
			best = addr;
	}
	return best ? best : entry;
}

/* The rows of the line table of the CU whose DIE is cu, to fn. */
static int cu_line_rows(Dwarf_Die *cu,
			int (*fn)(const struct elf_line *row, bool end,
				  void *arg),
			void *arg)
{
	Dwarf_Lines *lines;
	size_t nl;

	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		const char *src = dwarf_linesrc(l, NULL, NULL);
		struct elf_line row = { 0 };
		Dwarf_Addr a = 0;
		bool end = false;
		int r;

		dwarf_lineaddr(l, &a);
		dwarf_lineno(l, &row.line);
		dwarf_lineendsequence(l, &end);
		dwarf_linebeginstatement(l, &row.is_stmt);
		row.addr = a;
		row.file = src ? src : "";
		if ((r = fn(&row, end, arg)))
			return r;
	}
	return 0;
}

int elf_file_line_rows(struct elf_file *f,
		       int (*fn)(const struct elf_line *row, bool end,
				 void *arg),
		       void *arg)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (!elf_file_dwarf(f))
		return -1;
	while (dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		int r;

		if (dwarf_offdie(f->dw, off + hsize, &cu) &&
		    (r = cu_line_rows(&cu, fn, arg)))
			return r;
		off = next;
	}
	return 0;
}

uint64_t elf_file_cu_at(struct elf_file *f, uint64_t addr)
{
	Dwarf_Die cu;

	if (!elf_file_dwarf(f) || !dwarf_addrdie(f->dw, addr, &cu))
		return 0;
	return dwarf_dieoffset(&cu);
}

int elf_file_cu_line_rows(struct elf_file *f, uint64_t cu_off,
			  int (*fn)(const struct elf_line *row, bool end,
				    void *arg),
			  void *arg)
{
	Dwarf_Die cu;

	if (!elf_file_dwarf(f) || !dwarf_offdie(f->dw, cu_off, &cu))
		return -1;
	return cu_line_rows(&cu, fn, arg);
}

/* path is file, or ends with "/file" */
static bool same_file(const char *path, const char *file)
{
	size_t np = strlen(path), nf = strlen(file);

	if (np < nf || strcmp(path + np - nf, file))
		return false;
	return np == nf || path[np - nf - 1] == '/';
}

static int line_cmp(const void *a, const void *b)
{
	const struct elf_line *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int elf_file_lines_of(struct elf_file *f, const char *file, int line,
		      const struct elf_line **out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	struct elf_line *v = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (!elf_file_dwarf(f))
		return 0;
	while (dwarf_nextcu(f->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;
		bool in_block = false;

		if (dwarf_offdie(f->dw, off + hsize, &cu) &&
		    dwarf_getsrclines(&cu, &lines, &nl) == 0) {
			for (size_t i = 0; i < nl; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				const char *src = dwarf_linesrc(l, NULL, NULL);
				int ln = 0;
				bool stmt = false, end = false;

				dwarf_lineno(l, &ln);
				dwarf_linebeginstatement(l, &stmt);
				dwarf_lineendsequence(l, &end);
				if (end || ln != line || !src ||
				    !same_file(src, file)) {
					in_block = false;
					continue;
				}
				if (!stmt || in_block)
					continue;
				in_block = true;
				VEC_GROW(v, n, cap);
				fill_line(f, l, &v[n++]);
			}
		}
		off = next;
	}
	if (n > 1)
		qsort(v, (size_t)n, sizeof(*v), line_cmp);
	if (n) {
		struct elf_line *keep = arena_alloc(&f->arena,
						    (size_t)n * sizeof(*v));
		memcpy(keep, v, (size_t)n * sizeof(*v));
		*out = keep;
	}
	free(v);
	return n;
}

/* ------------------------------------------------------------------ */
/* Location programs */

static const struct elf_loc *loc_program(struct elf_file *f,
					 Dwarf_Attribute *attr,
					 Dwarf_Die *func, uint64_t pc,
					 const Dwarf_Op *ops, size_t len,
					 int depth);

/* func's DW_AT_frame_base at pc, as a program; NULL if none. */
static const struct elf_loc *frame_base(struct elf_file *f, Dwarf_Die *func,
					uint64_t pc, int depth)
{
	Dwarf_Attribute fa;
	Dwarf_Op *ops;
	size_t len;

	if (depth > 2 || !func ||
	    !dwarf_attr_integrate(func, DW_AT_frame_base, &fa) ||
	    dwarf_getlocation_addr(&fa, pc, &ops, &len, 1) != 1)
		return NULL;
	return loc_program(f, &fa, func, pc, ops, len, depth + 1);
}

static void classify(struct elf_file *f, Dwarf_Attribute *attr,
		     const Dwarf_Op *op, struct elf_loc_op *o)
{
	unsigned atom = op->atom;

	o->atom = atom;
	o->value = op->number;
	if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) {
		o->kind = ELF_LOC_CONST;
		o->value = atom - DW_OP_lit0;
		return;
	}
	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
		o->kind = ELF_LOC_REG;
		o->reg = atom - DW_OP_reg0;
		return;
	}
	if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
		o->kind = ELF_LOC_BREG;
		o->reg = atom - DW_OP_breg0;
		o->offset = (int64_t)op->number;
		return;
	}
	switch (atom) {
	case DW_OP_regx:
		o->kind = ELF_LOC_REG;
		o->reg = (unsigned)op->number;
		break;
	case DW_OP_bregx:
		o->kind = ELF_LOC_BREG;
		o->reg = (unsigned)op->number;
		o->offset = (int64_t)op->number2;
		break;
	case DW_OP_fbreg:
		o->kind = ELF_LOC_FBREG;
		o->offset = (int64_t)op->number;
		break;
	case DW_OP_call_frame_cfa:
		o->kind = ELF_LOC_CFA;
		break;
	case DW_OP_addr:
		o->kind = ELF_LOC_ADDR;
		break;
	case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
	case DW_OP_const8u: case DW_OP_constu:
		o->kind = ELF_LOC_CONST;
		break;
	case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s:
	case DW_OP_const8s: case DW_OP_consts:
		o->kind = ELF_LOC_CONST;
		o->is_signed = true;
		break;
	case DW_OP_deref:
		o->kind = ELF_LOC_DEREF;
		o->size = 8;
		break;
	case DW_OP_deref_size:
		o->kind = ELF_LOC_DEREF;
		o->size = op->number;
		break;
	case DW_OP_stack_value:
		o->kind = ELF_LOC_STACK_VALUE;
		break;
	case DW_OP_piece:
		o->kind = ELF_LOC_PIECE;
		o->size = op->number;
		break;
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value: {
		Dwarf_Attribute inner;
		Dwarf_Op *ops;
		size_t len;

		o->kind = ELF_LOC_ENTRY_VALUE;
		if (attr && dwarf_getlocation_attr(attr, op, &inner) == 0 &&
		    dwarf_getlocation(&inner, &ops, &len) == 0)
			o->sub = loc_program(f, NULL, NULL, 0, ops, len, 3);
		break;
	}
	case DW_OP_GNU_parameter_ref:
		o->kind = ELF_LOC_PARAM_REF;
		break;
	case DW_OP_implicit_value:
	case DW_OP_implicit_pointer:
	case DW_OP_GNU_implicit_pointer:
		o->kind = ELF_LOC_IMPLICIT;
		break;
	case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_pick:
	case DW_OP_swap: case DW_OP_rot: case DW_OP_abs: case DW_OP_and:
	case DW_OP_div: case DW_OP_minus: case DW_OP_mod: case DW_OP_mul:
	case DW_OP_neg: case DW_OP_not: case DW_OP_or: case DW_OP_plus:
	case DW_OP_plus_uconst: case DW_OP_shl: case DW_OP_shr:
	case DW_OP_shra: case DW_OP_xor: case DW_OP_eq: case DW_OP_ge:
	case DW_OP_gt: case DW_OP_le: case DW_OP_lt: case DW_OP_ne:
	case DW_OP_nop:
		o->kind = ELF_LOC_STACK;
		break;
	default:
		o->kind = ELF_LOC_OTHER;
		break;
	}
}

static const struct elf_loc *loc_program(struct elf_file *f,
					 Dwarf_Attribute *attr,
					 Dwarf_Die *func, uint64_t pc,
					 const Dwarf_Op *ops, size_t len,
					 int depth)
{
	struct elf_loc *l = arena_alloc(&f->arena, sizeof(*l));
	struct elf_loc_op *o = arena_alloc(&f->arena,
					   (len ? len : 1) * sizeof(*o));
	bool fbreg = false;

	for (size_t i = 0; i < len; i++) {
		classify(f, attr, &ops[i], &o[i]);
		fbreg |= o[i].kind == ELF_LOC_FBREG;
	}
	l->ops = o;
	l->n = (int)len;
	l->pc = pc;
	if (fbreg)
		l->frame_base = frame_base(f, func, pc, depth);
	return l;
}

const struct elf_loc *elf_loc_from_ops(struct elf_file *f,
				       Dwarf_Attribute *attr, Dwarf_Die *func,
				       uint64_t pc, const Dwarf_Op *ops,
				       size_t len)
{
	return loc_program(f, attr, func, pc, ops, len, 0);
}

int elf_scopes_at(Dwarf_Die *fn, uint64_t pc, Dwarf_Die *sc, int max)
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

bool elf_find_var_child(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
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

enum elf_var_result elf_var_location(struct elf_file *f, uint64_t func,
				     const char *name, uint64_t pc,
				     const struct elf_loc **loc,
				     int64_t *value)
{
	Dwarf_Die fn, sc[64], var;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t len;
	Dwarf_Sword sv;
	Dwarf_Word uv;
	bool found = false;
	int nsc;

	if (!elf_file_dwarf(f) || !dwarf_offdie(f->dw, func, &fn))
		return ELF_VAR_NONE;
	nsc = elf_scopes_at(&fn, pc, sc, 64);
	for (int s = nsc - 1; s >= 0 && !found; s--)
		found = elf_find_var_child(&sc[s], name, &var);
	if (!found)
		return ELF_VAR_NONE;
	if (dwarf_attr_integrate(&var, DW_AT_const_value, &attr)) {
		if (dwarf_formsdata(&attr, &sv) == 0)
			*value = sv;
		else if (dwarf_formudata(&attr, &uv) == 0)
			*value = (int64_t)uv;
		else
			return ELF_VAR_NO_LOCATION;
		return ELF_VAR_CONST;
	}
	if (!dwarf_attr_integrate(&var, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, pc, &ops, &len, 1) != 1 || !len)
		return ELF_VAR_NO_LOCATION;
	*loc = loc_program(f, &attr, &fn, pc, ops, len, 0);
	return ELF_VAR_LOCATION;
}

static void op_text(struct strbuf *sb, struct elf_file *f,
		    const struct elf_loc_op *o)
{
	const char *r = arch_reg_name(o->reg);

	switch (o->kind) {
	case ELF_LOC_REG:
		sb_printf(sb, "reg:%s", r ? r : "?");
		break;
	case ELF_LOC_BREG:
		sb_printf(sb, "breg:%s%+" PRId64, r ? r : "?", o->offset);
		break;
	case ELF_LOC_FBREG:
		sb_printf(sb, "fbreg%+" PRId64, o->offset);
		break;
	case ELF_LOC_CFA:
		sb_puts(sb, "cfa");
		break;
	case ELF_LOC_ADDR:
		sb_printf(sb, "addr:0x%" PRIx64, o->value);
		break;
	case ELF_LOC_CONST:
		if (o->is_signed)
			sb_printf(sb, "const:%" PRId64, (int64_t)o->value);
		else
			sb_printf(sb, "const:%" PRIu64, o->value);
		break;
	case ELF_LOC_DEREF:
		sb_printf(sb, "deref%" PRIu64, o->size);
		break;
	case ELF_LOC_STACK_VALUE:
		sb_puts(sb, "stack_value");
		break;
	case ELF_LOC_PIECE:
		sb_printf(sb, "piece%" PRIu64, o->size);
		break;
	case ELF_LOC_ENTRY_VALUE:
		sb_printf(sb, "entry_value(%s)",
			  o->sub ? elf_loc_text(f, o->sub) : "?");
		break;
	case ELF_LOC_PARAM_REF:
		sb_puts(sb, "param_ref");
		break;
	case ELF_LOC_IMPLICIT:
		sb_puts(sb, "implicit");
		break;
	case ELF_LOC_STACK:
	case ELF_LOC_OTHER:
		sb_printf(sb, "op:0x%x", o->atom);
		break;
	}
}

const char *elf_loc_text(struct elf_file *f, const struct elf_loc *loc)
{
	struct strbuf sb = { 0 };
	const char *s;

	for (int i = 0; i < loc->n; i++) {
		if (i)
			sb_putc(&sb, ' ');
		op_text(&sb, f, &loc->ops[i]);
	}
	if (loc->frame_base) {
		sb_puts(&sb, " [frame_base: ");
		sb_puts(&sb, elf_loc_text(f, loc->frame_base));
		sb_putc(&sb, ']');
	}
	s = arena_strdup(&f->arena, sb_str(&sb));
	sb_free(&sb);
	return s;
}
