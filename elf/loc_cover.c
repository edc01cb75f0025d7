// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whether a variable's location covers a pc, for the kernel's function
 * catalog's build (target/functions.c; see elf/libdw.h):
 * elf_located_at() without libdw's cache.
 *
 * dwarf_getlocation_addr() parses each location expression it is asked
 * about once and keeps it in a search tree per CU until dwarf_end: for
 * the catalog's million questions that tree was a tenth of the cold
 * build's time and 40 MB. The answer the catalog needs is only whether
 * the first entry covering the pc (the only one, for an exprloc) has an
 * expression libdw 0.188 would accept with at least one operation; this
 * file walks DWARF 5 location lists and checks expressions with libdw
 * 0.188's rules (dwarf_getlocation.c, dwarf_ranges.c): the same bounds,
 * the same LEB128 reading (a truncated or overlong number reads as
 * UINT64_MAX), the same operand sizes. Whatever it does not read the
 * same way goes to libdw: DWARF 2-4 lists, DW_FORM_loclistx, index
 * entries (DW_LLE_*x*, which need .debug_addr), split units, compressed
 * or big-endian sections, and the operations whose check reaches past
 * the expression (DW_OP_call_ref, DW_OP_implicit_value, ...).
 */
#include "elf/libdw.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <string.h>

bool elf_located_at(Dwarf_Attribute *a, uint64_t pc)
{
	Dwarf_Op *expr;
	size_t len;

	return dwarf_getlocation_addr(a, pc, &expr, &len, 1) == 1 && len > 0;
}

void elf_loc_cover_init(struct elf_loc_cover *l, Elf *elf)
{
	const char *ident = elf_getident(elf, NULL);
	const uint16_t one = 1;

	GElf_Ehdr eh;

	memset(l, 0, sizeof(*l));
	/* a relocatable file's (a .ko's) raw DWARF is not relocated yet */
	if (!ident || ident[EI_DATA] != ELFDATA2LSB ||
	    *(const unsigned char *)&one != 1 || !gelf_getehdr(elf, &eh) ||
	    eh.e_type == ET_REL)
		return;
	elf_raw_section(elf, ".debug_info", &l->info, &l->ninfo);
	elf_raw_section(elf, ".debug_loclists", &l->lists, &l->nlists);
}

/*
 * LEB128 numbers as libdw 0.188 reads them (memory-access.h): the first
 * byte always, then up to 10 bytes in all (an SLEB128: 9, and a 10th
 * unless at end) but not past end; an unsigned one that no byte ends
 * is UINT64_MAX. (The expression reader does not check for end before a
 * number; neither does libdw's.)
 */
static uint64_t uleb(const unsigned char **p, const unsigned char *end)
{
	size_t max = *p < end ? (size_t)(end - *p) : 0;
	uint64_t v = 0;

	if (max > 10)
		max = 10;
	for (size_t i = 0; i == 0 || i < max; i++) {
		unsigned char b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << (i * 7);
		if (!(b & 0x80))
			return v;
	}
	return UINT64_MAX;
}

static void sleb(const unsigned char **p, const unsigned char *end)
{
	size_t max = *p < end ? (size_t)(end - *p) : 0;

	if (max > 9)
		max = 9;
	for (size_t i = 0; i == 0 || i < max; i++)
		if (!(*(*p)++ & 0x80))
			return;
	if (*p != end)
		(*p)++;
}

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

enum { EXPR_BAD, EXPR_OK, EXPR_ASK };

/*
 * Whether __libdw_intern_expression() accepts the expression [p, end)
 * (not empty), which lies in a section ending at sec_end: EXPR_OK,
 * EXPR_BAD, or EXPR_ASK for an operation left to libdw.
 */
static int expr_ok(const unsigned char *p, const unsigned char *end,
		   const unsigned char *sec_end, int asz)
{
	while (p < end) {
		unsigned int op = *p++;
		uint64_t n;

		if ((op >= DW_OP_lit0 && op <= DW_OP_lit31) ||
		    (op >= DW_OP_reg0 && op <= DW_OP_reg31))
			continue;
		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			sleb(&p, end);
			continue;
		}
		switch (op) {
		case DW_OP_addr:
			/* read against the section, not the expression */
			if ((size_t)(sec_end - p) < (size_t)asz)
				return EXPR_BAD;
			p += asz;
			break;
		case DW_OP_deref: case DW_OP_dup: case DW_OP_drop:
		case DW_OP_over: case DW_OP_swap: case DW_OP_rot:
		case DW_OP_xderef: case DW_OP_abs: case DW_OP_and:
		case DW_OP_div: case DW_OP_minus: case DW_OP_mod:
		case DW_OP_mul: case DW_OP_neg: case DW_OP_not:
		case DW_OP_or: case DW_OP_plus: case DW_OP_shl:
		case DW_OP_shr: case DW_OP_shra: case DW_OP_xor:
		case DW_OP_eq: case DW_OP_ge: case DW_OP_gt:
		case DW_OP_le: case DW_OP_lt: case DW_OP_ne:
		case DW_OP_nop: case DW_OP_push_object_address:
		case DW_OP_call_frame_cfa: case DW_OP_form_tls_address:
		case DW_OP_GNU_push_tls_address: case DW_OP_stack_value:
			break;
		case DW_OP_const1u: case DW_OP_pick: case DW_OP_deref_size:
		case DW_OP_xderef_size: case DW_OP_const1s:
			if (p >= end)
				return EXPR_BAD;
			p++;
			break;
		case DW_OP_const2u: case DW_OP_const2s: case DW_OP_skip:
		case DW_OP_bra: case DW_OP_call2:
			if (end - p < 2)
				return EXPR_BAD;
			p += 2;
			break;
		case DW_OP_const4u: case DW_OP_const4s: case DW_OP_call4:
		case DW_OP_GNU_parameter_ref:
			if (end - p < 4)
				return EXPR_BAD;
			p += 4;
			break;
		case DW_OP_const8u: case DW_OP_const8s:
			if (end - p < 8)
				return EXPR_BAD;
			p += 8;
			break;
		case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx:
		case DW_OP_piece: case DW_OP_convert: case DW_OP_GNU_convert:
		case DW_OP_reinterpret: case DW_OP_GNU_reinterpret:
		case DW_OP_addrx: case DW_OP_GNU_addr_index:
		case DW_OP_constx: case DW_OP_GNU_const_index:
			uleb(&p, end);
			break;
		case DW_OP_consts: case DW_OP_fbreg:
			sleb(&p, end);
			break;
		case DW_OP_bregx:
			uleb(&p, end);
			if (p >= end)
				return EXPR_BAD;
			sleb(&p, end);
			break;
		case DW_OP_bit_piece:
		case DW_OP_regval_type: case DW_OP_GNU_regval_type:
			uleb(&p, end);
			if (p >= end)
				return EXPR_BAD;
			uleb(&p, end);
			break;
		case DW_OP_entry_value: case DW_OP_GNU_entry_value:
			n = uleb(&p, end);
			if ((uint64_t)(end - p) < n)
				return EXPR_BAD;
			p += n;
			break;
		case DW_OP_deref_type: case DW_OP_GNU_deref_type:
		case DW_OP_xderef_type:
			if (end - p <= 1)
				return EXPR_BAD;
			p++;
			uleb(&p, end);
			break;
		case DW_OP_const_type: case DW_OP_GNU_const_type:
			uleb(&p, end);
			if (p >= end)
				return EXPR_BAD;
			n = *p++;
			if ((uint64_t)(end - p) < n)
				return EXPR_BAD;
			p += n;
			break;
		default:
			return EXPR_ASK;
		}
	}
	return EXPR_OK;
}

/* The CU's facts the lists need, read once per CU: false if libdw must. */
static bool cu_facts(struct elf_loc_cover *l, Dwarf_CU *cu)
{
	Dwarf_Half version;
	uint8_t ut, asz, osz;
	Dwarf_Die cudie;
	Dwarf_Attribute a;
	Dwarf_Addr base;

	if (cu == l->cu)
		return l->fast;
	l->cu = cu;
	l->fast = false;
	if (dwarf_cu_info(cu, &version, &ut, &cudie, NULL, NULL, &asz,
			  &osz) != 0 || version != 5 ||
	    (ut != DW_UT_compile && ut != DW_UT_partial) ||
	    (asz != 4 && asz != 8) || (osz != 4 && osz != 8))
		return false;
	/* __libdw_cu_base_address() */
	if (dwarf_lowpc(&cudie, &base) != 0 &&
	    dwarf_formaddr(dwarf_attr(&cudie, DW_AT_entry_pc, &a),
			   &base) != 0)
		base = 0;
	l->asz = asz;
	l->osz = osz;
	l->base = base;
	l->fast = true;
	return true;
}

/* The list at off in .debug_loclists, as getlocations_addr() walks it
 * for the first entry covering pc. */
static int list_at(const struct elf_loc_cover *l, uint64_t off, uint64_t pc)
{
	const unsigned char *p = l->lists + off, *end = l->lists + l->nlists;
	uint64_t base = l->base, lo, hi, len;
	int w = l->asz;

	for (;;) {
		if (p >= end)
			return EXPR_BAD;
		switch (*p++) {
		case DW_LLE_end_of_list:
			return EXPR_BAD;	/* none covers pc */
		case DW_LLE_offset_pair:
			if (p >= end)
				return EXPR_BAD;
			lo = uleb(&p, end);
			if (p >= end)
				return EXPR_BAD;
			hi = uleb(&p, end);
			lo += base;
			hi += base;
			break;
		case DW_LLE_default_location:
			lo = 0;
			hi = UINT64_MAX;
			break;
		case DW_LLE_base_address:
			if (end - p < w)
				return EXPR_BAD;
			base = rd(p, w);
			p += w;
			continue;
		case DW_LLE_start_end:
			if (end - p < 2 * w)
				return EXPR_BAD;
			lo = rd(p, w);
			hi = rd(p + w, w);
			p += 2 * w;
			break;
		case DW_LLE_start_length:
			if (end - p < w)
				return EXPR_BAD;
			lo = rd(p, w);
			p += w;
			if (p >= end)
				return EXPR_BAD;
			hi = lo + uleb(&p, end);
			break;
		case DW_LLE_base_addressx:
		case DW_LLE_startx_endx:
		case DW_LLE_startx_length:
			return EXPR_ASK;	/* through .debug_addr */
		default:
			return EXPR_BAD;
		}
		/* the entry's expression */
		if (p >= end)
			return EXPR_BAD;
		len = uleb(&p, end);
		if ((ptrdiff_t)(end - p) < (ptrdiff_t)len)
			return EXPR_BAD;
		if ((uint64_t)(end - p) < len)
			return EXPR_ASK;	/* libdw's signed compare let it by */
		if (pc >= lo && pc < hi)
			return len == 0 ? EXPR_BAD
					: expr_ok(p, p + len, end, w);
		p += len;
	}
}

bool elf_loc_cover_at(struct elf_loc_cover *l, Dwarf_Attribute *a, uint64_t pc)
{
	Dwarf_Block blk;
	uint64_t off;
	int r = EXPR_ASK;

	if (!l->info || !cu_facts(l, a->cu))
		return elf_located_at(a, pc);
	if (a->form == DW_FORM_exprloc) {
		if (dwarf_formblock(a, &blk) != 0)
			return elf_located_at(a, pc);
		if (blk.length == 0)
			return false;
		if (blk.data < l->info || blk.data + blk.length > l->info +
							   l->ninfo)
			return elf_located_at(a, pc);
		r = expr_ok(blk.data, blk.data + blk.length,
			    l->info + l->ninfo, l->asz);
	} else if (a->form == DW_FORM_sec_offset && l->lists) {
		off = rd(a->valp, l->osz);
		if (off < l->nlists)
			r = list_at(l, off, pc);
	}
	return r == EXPR_ASK ? elf_located_at(a, pc) : r == EXPR_OK;
}
