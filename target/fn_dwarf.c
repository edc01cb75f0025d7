// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF reading shared by the function catalog's build (functions.c) and
 * its statement queries (fn_query.c): C type names as SystemTap's -L
 * spells them (cached by type DIE offset, interned), entry pcs, whether a
 * location covers a pc, and the address map both use. See fn_internal.h.
 */
#define _GNU_SOURCE
#include "target/fn_internal.h"
#include "lib/arena.h"
#include "lib/strbuf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void u64map_grow(struct u64map *m)
{
	struct u64map g = { 0 };

	g.nslot = m->nslot ? 2 * m->nslot : 256;
	g.slot = xmalloc(g.nslot * sizeof(*g.slot));
	for (size_t i = 0; i < g.nslot; i++)
		g.slot[i].key = UINT64_MAX;
	for (size_t i = 0; i < m->nslot; i++)
		if (m->slot[i].key != UINT64_MAX)
			u64map_put(&g, m->slot[i].key, m->slot[i].val);
	free(m->slot);
	*m = g;
}

uint32_t *u64map_slot(const struct u64map *m, uint64_t k)
{
	size_t h;

	if (!m->nslot)
		return NULL;
	for (h = mix64(k) & (m->nslot - 1); m->slot[h].key != UINT64_MAX;
	     h = (h + 1) & (m->nslot - 1))
		if (m->slot[h].key == k)
			return &m->slot[h].val;
	return NULL;
}

void u64map_put(struct u64map *m, uint64_t k, uint32_t v)
{
	uint32_t *p = u64map_slot(m, k);
	size_t h;

	if (p) {
		*p = v;
		return;
	}
	if ((m->n + 1) * 2 > m->nslot)
		u64map_grow(m);
	for (h = mix64(k) & (m->nslot - 1); m->slot[h].key != UINT64_MAX;
	     h = (h + 1) & (m->nslot - 1))
		;
	m->slot[h].key = k;
	m->slot[h].val = v;
	m->n++;
}

void u64map_clear(struct u64map *m)
{
	if (m->n) {
		for (size_t i = 0; i < m->nslot; i++)
			m->slot[i].key = UINT64_MAX;
		m->n = 0;
	}
}

void u64map_free(struct u64map *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}


/* ------------------------------------------------------------------ */
/* Type names, spelled as SystemTap's -L spells them */

unsigned int kf_abbrev(struct kf_abbrevs *t, Dwarf_Die *die)
{
	const unsigned char *p = die->addr;
	unsigned int code;

	if (!t)
		return 0;
	if (die->cu != t->cu) {
		memset(t->of, 0, sizeof(t->of));
		memset(t->user, 0, sizeof(t->user));
		t->cu = die->cu;
	}
	/* the DIE's code, a ULEB128 of one or two bytes here */
	code = p[0];
	if (code & 0x80) {
		if (p[1] & 0x80)
			return 0;
		code = (code & 0x7f) | (unsigned int)p[1] << 7;
	}
	if (code == 0 || code >= KF_ABBREV_CODES)
		return 0;
	if (t->of[code]) {
		if (!die->abbrev)
			die->abbrev = t->of[code];
		return code;
	}
	/* libdw's own lookup, which it keeps in die->abbrev */
	if (dwarf_tag(die) == DW_TAG_invalid)
		return 0;
	t->of[code] = die->abbrev;
	return code;
}

Dwarf_Attribute *kf_chain_attr(struct kf_chain *c, unsigned int name,
			       Dwarf_Attribute *a)
{
	for (int i = 0;; i++) {
		if (i == c->n) {
			Dwarf_Die *last = &c->die[c->n - 1];
			Dwarf_Attribute r;

			if (c->end || c->n == KF_CHAIN_MAX)
				return NULL;
			if ((!dwarf_attr(last, DW_AT_abstract_origin, &r) &&
			     !dwarf_attr(last, DW_AT_specification, &r)) ||
			    !dwarf_formref_die(&r, &c->die[c->n])) {
				c->end = true;
				return NULL;
			}
			kf_abbrev(c->ab, &c->die[c->n++]);
		}
		if (dwarf_attr(&c->die[i], name, a))
			return a;
	}
}

/* The type a DW_AT_type attribute names (through DW_AT_signature). */
static bool type_of(Dwarf_Attribute *at, Dwarf_Die *out,
		    struct kf_abbrevs *ab)
{
	Dwarf_Attribute a;

	if (!at || !dwarf_formref_die(at, out))
		return false;
	kf_abbrev(ab, out);
	if (dwarf_attr(out, DW_AT_signature, &a)) {
		if (!dwarf_formref_die(&a, out))
			return false;
		if (dwarf_tag(out) == DW_TAG_type_unit &&
		    dwarf_child(out, out) != 0)
			return false;
	}
	return true;
}

bool kf_die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return type_of(dwarf_attr_integrate(die, DW_AT_type, &a), out, NULL);
}

bool kf_chain_type(struct kf_chain *c, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return type_of(kf_chain_attr(c, DW_AT_type, &a), out, c->ab);
}

static bool type_decl(struct kf_types *b, Dwarf_Die *t, struct strbuf *o);

/*
 * Append t's name to o. Modifiers (pointer, const, array, ...) come after
 * the type they modify ("char const*"). At a function type the walk stops
 * and *fn is set: the modifiers seen so far then go between the return
 * type and the parameters, "int (*) (unsigned int, void*)".
 */
static bool type_name(struct kf_types *b, Dwarf_Die *t, struct strbuf *o,
		      Dwarf_Die *fn, bool *have_fn)
{
	int tag = dwarf_tag(t);
	const char *kw = NULL, *name;
	Dwarf_Die inner;
	bool has_inner;

	switch (tag) {
	case DW_TAG_enumeration_type:
		kw = "enum ";
		break;
	case DW_TAG_structure_type:
		kw = "struct ";
		break;
	case DW_TAG_union_type:
		kw = "union ";
		break;
	case DW_TAG_class_type:
		kw = "class ";
		break;
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		kw = "";
		break;
	case DW_TAG_subroutine_type:
		*fn = *t;
		*have_fn = true;
		return true;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_array_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
		break;
	default:
		return false;
	}
	if (kw) {
		name = dwarf_diename(t);
		sb_puts(o, kw);
		sb_puts(o, name ? name : "{...}");	/* anonymous */
		return true;
	}
	has_inner = kf_die_type(t, &inner);
	if (has_inner && tag == DW_TAG_pointer_type &&
	    dwarf_tag(&inner) == DW_TAG_structure_type &&
	    (name = dwarf_diename(&inner)) &&
	    strcmp(name, "__va_list_tag") == 0) {
		sb_puts(o, "va_list");
		return true;
	}
	if (!has_inner || !type_name(b, &inner, o, fn, have_fn))
		sb_puts(o, "void");
	switch (tag) {
	case DW_TAG_pointer_type:
		sb_putc(o, '*');
		break;
	case DW_TAG_reference_type:
		sb_putc(o, '&');
		break;
	case DW_TAG_rvalue_reference_type:
		sb_puts(o, "&&");
		break;
	case DW_TAG_array_type:
		sb_puts(o, "[]");
		break;
	case DW_TAG_const_type:
		/* a const on a reference says nothing more */
		if (!has_inner ||
		    (dwarf_tag(&inner) != DW_TAG_reference_type &&
		     dwarf_tag(&inner) != DW_TAG_rvalue_reference_type))
			sb_puts(o, " const");
		break;
	case DW_TAG_volatile_type:
		sb_puts(o, " volatile");
		break;
	case DW_TAG_restrict_type:
		sb_puts(o, " restrict");
		break;
	}
	return true;
}

/* "RET (MODIFIERS) (PARAM, ...)" for a function type. */
static bool fn_type_name(struct kf_types *b, Dwarf_Die *fn, const char *mods,
			 struct strbuf *o)
{
	Dwarf_Die ret, child;
	bool first = true;

	if (!kf_die_type(fn, &ret))
		sb_puts(o, "void");
	else if (!type_decl(b, &ret, o))
		return false;
	sb_printf(o, " (%s) (", mods);
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Die pt;

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_unspecified_parameters)
				continue;
			if (!first)
				sb_puts(o, ", ");
			first = false;
			if (tag == DW_TAG_unspecified_parameters)
				sb_puts(o, "...");
			else if (!kf_die_type(&child, &pt))
				sb_puts(o, "void");
			else if (!type_decl(b, &pt, o))
				return false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (first)
		sb_puts(o, "void");
	sb_putc(o, ')');
	return true;
}

static bool type_decl(struct kf_types *b, Dwarf_Die *t, struct strbuf *o)
{
	struct strbuf mods = { 0 };
	Dwarf_Die fn;
	bool have_fn = false, ok;

	ok = type_name(b, t, &mods, &fn, &have_fn);
	if (ok && have_fn)
		ok = fn_type_name(b, &fn, sb_str(&mods), o);
	else if (ok)
		sb_puts(o, sb_str(&mods));
	sb_free(&mods);
	return ok;
}

bool kf_type_spell(Dwarf_Die *t, struct strbuf *o)
{
	return type_decl(NULL, t, o);
}

/* The strs id of t's name, or -1; cached by DIE offset. */
int kf_type_id(struct kf_types *b, Dwarf_Die *t)
{
	uint64_t off = dwarf_dieoffset(t);
	uint32_t *v = u64map_slot(&b->ids, off);
	struct strbuf o = { 0 };
	int id = -1;

	if (v)
		return (int)*v - 1;
	if (type_decl(b, t, &o))
		id = intern_add(b->strs, sb_str(&o), o.len);
	sb_free(&o);
	u64map_put(&b->ids, off, (uint32_t)(id + 1));
	return id;
}


/* An entry pc, from DW_AT_entry_pc / low_pc, else the first range. */
bool kf_entry_pc(Dwarf_Die *die, uint64_t *pc)
{
	Dwarf_Addr base = 0, start = 0, end, a = 0;

	if (dwarf_entrypc(die, &a) == 0) {
		*pc = a;
		return a != 0;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*pc = start;
		return start != 0;
	}
	return false;
}
