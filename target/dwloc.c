// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel function instances and their variables in the debug vmlinux
 * (see dwloc.h): finding an instance by its catalog's CU number and
 * entry pc, the scopes around a pc, the variables' names and shapes, and
 * their locations as elf/ programs. Rendering a program for a machine
 * (C over pt_regs) is the backend's (module/loc_c.c).
 */
#define _GNU_SOURCE
#include "target/dwloc.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elf/libdw.h"
#include "target/fn_internal.h"

struct dwloc_file {
	struct elf_file *ef;
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
	f->ef = elf_file_open(vmlinux, NULL, err);
	if (!f->ef) {
		free(f);
		return NULL;
	}
	f->dw = elf_file_dwarf(f->ef);
	/* a module's symbols where its DWARF puts its functions */
	elf_file_dwarf_layout(f->ef);
	if (!f->dw) {
		*err = xasprintf("%s has no DWARF: %s", vmlinux,
				 dwarf_errmsg(-1));
		dwloc_close(f);
		return NULL;
	}
	return f;
}

struct elf_file *dwloc_elf(struct dwloc_file *f)
{
	return f->ef;
}

void dwloc_close(struct dwloc_file *f)
{
	if (!f)
		return;
	elf_file_close(f->ef);
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
	nsc = elf_scopes_at(&fn, pc, sc, 64);
	for (int i = nsc - 1; i >= 0; i--)
		n = scope_names(&sc[i], a, out, n, &cap);
	return n;
}

/* A variable the compiler folded to a constant (DW_AT_const_value): the
 * program pushing it as its value. */
static const char *const_value(struct arena *a, Dwarf_Attribute *attr,
			       struct dwloc_prog *out)
{
	struct elf_loc *l = arena_alloc(a, sizeof(*l));
	struct elf_loc_op *o = arena_alloc(a, 2 * sizeof(*o));
	Dwarf_Sword sv;
	Dwarf_Word uv;

	o[0].kind = ELF_LOC_CONST;
	o[0].atom = DW_OP_constu;
	if (dwarf_formsdata(attr, &sv) == 0) {
		o[0].value = (uint64_t)sv;
		o[0].is_signed = true;
		o[0].atom = DW_OP_consts;
	} else if (dwarf_formudata(attr, &uv) == 0) {
		o[0].value = uv;
	} else {
		return "a constant of this form is not supported yet";
	}
	o[1].kind = ELF_LOC_STACK_VALUE;
	o[1].atom = DW_OP_stack_value;
	l->ops = o;
	l->n = 2;
	out->loc = l;
	out->inlined = out->stmt = false;
	out->cfa_known = false;
	return NULL;
}

const char *dwloc_var(struct dwloc_file *f, struct arena *a, uint64_t addr,
		      uint32_t cu, const char *name, struct dwloc_prog *out)
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

	*out = (struct dwloc_prog){ 0 };
	if (!find_instance(f, cu, addr, &fn, &inlined))
		return arena_printf(a, "no function at 0x%" PRIx64 " in the "
				    "kernel's DWARF", addr);
	found = elf_find_var_child(&fn, name, &child);
	if (!found)
		return arena_printf(a, "unable to find local '%s' near pc "
				    "0x%" PRIx64, name, addr);
	if (dwarf_attr_integrate(&child, DW_AT_const_value, &attr))
		return const_value(a, &attr, out);
	if (!dwarf_attr_integrate(&child, DW_AT_location, &attr) ||
	    location_at(&attr, pcs, inlined ? 1 : 4, &ops, &len, &pc) != 1)
		return arena_printf(a, "not accessible at this address "
				    "(pc: 0x%" PRIx64 ")", addr);

	out->loc = elf_loc_from_ops(f->ef, &attr, &fn, pc, ops, len);
	out->inlined = inlined;
	out->stmt = false;
	out->cfa_known = false;
	return NULL;
}

struct global_sym_find {
	const char *name;
	struct elf_sym found;
	bool ok;
};

static int find_global_sym(const struct elf_sym *s, void *arg)
{
	struct global_sym_find *g = arg;

	if (s->shndx == SHN_UNDEF || s->type == STT_FUNC ||
	    s->type == STT_FILE || s->type == STT_SECTION ||
	    (s->bind != STB_GLOBAL && s->bind != STB_WEAK) ||
	    strcmp(s->name, g->name))
		return 0;
	g->found = *s;
	g->ok = true;
	return 1;
}

/* The location of the global data symbol name of the symbol table (a
 * static one could be another file's): its link-time address, which the
 * backend relocates as a DW_OP_addr's. */
static bool global_symbol_loc(struct elf_file *ef, struct arena *a,
			      const char *name, struct dwloc_prog *out)
{
	struct global_sym_find g = { .name = name };
	struct elf_loc_op *op;
	struct elf_loc *loc;

	if (elf_file_symbols(ef, find_global_sym, &g) <= 0 || !g.ok)
		return false;
	op = arena_alloc(a, sizeof(*op));
	op->kind = ELF_LOC_ADDR;
	op->atom = DW_OP_addr;
	op->value = g.found.addr;
	loc = arena_alloc(a, sizeof(*loc));
	loc->ops = op;
	loc->n = 1;
	out->loc = loc;
	out->inlined = out->stmt = false;
	return true;
}

/* dwloc_global in the CU whose DIE is cud */
static const char *global_in_cu(struct dwloc_file *f, struct arena *a,
				Dwarf_Die *cud, const char *name,
				struct dwloc_prog *out, const char **c_type)
{
	Dwarf_Die var, type;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t len;
	struct strbuf o = { 0 };

	*out = (struct dwloc_prog){ 0 };
	if (!elf_find_var_child(cud, name, &var) ||
	    dwarf_tag(&var) != DW_TAG_variable)
		return arena_printf(a, "unable to find global '%s'", name);
	if (dwarf_attr_integrate(&var, DW_AT_const_value, &attr)) {
		const char *err = const_value(a, &attr, out);
		if (err)
			return err;
	} else if (!dwarf_attr(&var, DW_AT_location, &attr) ||
		   dwarf_getlocation(&attr, &ops, &len) != 0 || len == 0) {
		/* an extern declaration, defined elsewhere or by the linker
		 * script (jiffies): the symbol table has its address, as
		 * SystemTap takes it; else 4.8's message */
		if (!global_symbol_loc(f->ef, a, name, out))
			return arena_printf(a, "failed to retrieve location "
					    "attribute for '%s'", name);
	} else {
		out->loc = elf_loc_from_ops(f->ef, &attr, cud, 0, ops, len);
		out->inlined = out->stmt = false;
	}
	if (!kf_die_type(&var, &type) || !kf_type_spell(&type, &o)) {
		sb_free(&o);
		return arena_printf(a, "the type of global '%s' is not known",
				    name);
	}
	*c_type = arena_strdup(a, sb_str(&o));
	sb_free(&o);
	return NULL;
}

const char *dwloc_global(struct dwloc_file *f, struct arena *a, uint32_t cu,
			 const char *name, struct dwloc_prog *out,
			 const char **c_type)
{
	Dwarf_Die cud;

	*out = (struct dwloc_prog){ 0 };
	if (!cu_die(f, cu, &cud))
		return arena_printf(a, "unable to find global '%s'", name);
	return global_in_cu(f, a, &cud, name, out, c_type);
}

/* Does the CU's name end with file at a path component ("fork.c" and
 * "kernel/fork.c" of "kernel/fork.c", not "ork.c")? */
static bool cu_named(const char *cu_name, const char *file)
{
	size_t n = strlen(cu_name), k = strlen(file);

	return n >= k && !strcmp(cu_name + n - k, file) &&
	       (n == k || cu_name[n - k - 1] == '/');
}

/* Has the CU a variable name at its top, defined there (a location or a
 * constant) when defined is asked? */
static bool cu_has_global(Dwarf_Die *cud, const char *name, bool defined)
{
	Dwarf_Die var;

	if (!elf_find_var_child(cud, name, &var) ||
	    dwarf_tag(&var) != DW_TAG_variable)
		return false;
	return !defined || dwarf_hasattr(&var, DW_AT_location) ||
	       dwarf_hasattr_integrate(&var, DW_AT_const_value);
}

const char *dwloc_global_named(struct dwloc_file *f, struct arena *a,
			       const char *file, const char *name,
			       struct dwloc_prog *out, const char **c_type)
{
	Dwarf_Die best, cud;
	size_t best_len = SIZE_MAX;
	bool found = false;

	*out = (struct dwloc_prog){ 0 };
	if (file) {
		/* the CU of that name with the shortest path, as SystemTap
		 * picks it */
		for (uint32_t cu = 0; cu_die(f, cu, &cud); cu++) {
			const char *cn = dwarf_diename(&cud);
			if (cn && cu_named(cn, file) && strlen(cn) < best_len) {
				best = cud;
				best_len = strlen(cn);
				found = true;
			}
		}
		if (!found || !cu_has_global(&best, name, false))
			return arena_printf(a, "unable to find global '%s' in "
					    "kernel, in %s", name, file);
		return global_in_cu(f, a, &best, name, out, c_type);
	}
	/* the first CU that defines it, else the first that declares it */
	for (int defined = 1; defined >= 0; defined--)
		for (uint32_t cu = 0; cu_die(f, cu, &cud); cu++)
			if (cu_has_global(&cud, name, defined))
				return global_in_cu(f, a, &cud, name, out,
						    c_type);
	return arena_printf(a, "unable to find global '%s' in kernel", name);
}

bool dwloc_var_scalar(struct dwloc_file *f, uint64_t addr, uint32_t cu,
		      uint64_t pc, const char *name, unsigned *size,
		      bool *is_signed)
{
	Dwarf_Die fn, child, t, sc[64];
	Dwarf_Attribute attr;
	Dwarf_Word enc;
	bool inlined, found = false;

	if (!find_instance(f, cu, addr, &fn, &inlined))
		return false;
	if (pc) {
		int nsc = elf_scopes_at(&fn, pc, sc, 64);
		for (int s = nsc - 1; s >= 0 && !found; s--)
			found = elf_find_var_child(&sc[s], name, &child);
	} else {
		found = elf_find_var_child(&fn, name, &child);
	}
	if (!found || !dwarf_attr_integrate(&child, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &t))
		return false;
	for (int depth = 0; depth < 16; depth++) {
		int tag = dwarf_tag(&t);

		if (tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
		    tag == DW_TAG_volatile_type ||
		    tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type) {
			if (!dwarf_attr_integrate(&t, DW_AT_type, &attr) ||
			    !dwarf_formref_die(&attr, &t))
				return false;	/* const void */
			continue;
		}
		if (tag == DW_TAG_pointer_type ||
		    tag == DW_TAG_reference_type ||
		    tag == DW_TAG_rvalue_reference_type) {
			*size = 8;
			*is_signed = false;
			return true;
		}
		if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
			return false;
		int sz = dwarf_bytesize(&t);
		if (sz <= 0 || sz > 8)
			return false;
		*size = (unsigned)sz;
		*is_signed = tag == DW_TAG_enumeration_type ||
			     (dwarf_attr_integrate(&t, DW_AT_encoding, &attr) &&
			      !dwarf_formudata(&attr, &enc) &&
			      (enc == DW_ATE_signed || enc == DW_ATE_signed_char));
		return true;
	}
	return false;
}

const char *dwloc_var_at(struct dwloc_file *f, struct arena *a,
			 uint64_t entry, uint32_t cu, uint64_t pc,
			 const char *name, struct dwloc_prog *out)
{
	Dwarf_Die fn, sc[64], child;
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t len;
	uint64_t at;
	int nsc;
	bool found = false, inlined;

	*out = (struct dwloc_prog){ 0 };
	if (!find_instance(f, cu, entry, &fn, &inlined))
		return arena_printf(a, "no function at 0x%" PRIx64 " in the "
				    "kernel's DWARF", entry);
	nsc = elf_scopes_at(&fn, pc, sc, 64);
	for (int s = nsc - 1; s >= 0 && !found; s--)
		found = elf_find_var_child(&sc[s], name, &child);
	if (!found)
		return arena_printf(a, "unable to find local '%s' near pc "
				    "0x%" PRIx64, name, pc);
	if (dwarf_attr_integrate(&child, DW_AT_const_value, &attr))
		return const_value(a, &attr, out);	/* in a block too */
	if (!dwarf_attr_integrate(&child, DW_AT_location, &attr) ||
	    location_at(&attr, &pc, 1, &ops, &len, &at) != 1)
		return arena_printf(a, "not accessible at this address "
				    "(pc: 0x%" PRIx64 ")", pc);

	out->loc = elf_loc_from_ops(f->ef, &attr, &fn, pc, ops, len);
	out->inlined = out->stmt = true;
	out->cfa_known = false;
	return NULL;
}
