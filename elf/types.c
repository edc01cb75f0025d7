// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DWARF types of an elf_file as BTF records (see elf.h), so that the
 * type table pass 2 already uses for the kernel (target/btf.h) serves a
 * user program's or a module's types too: one type system.
 *
 * The records are split BTF on a base the caller names (its type count
 * and string length), as a kernel module's .BTF is on vmlinux's: ids go
 * on from the base's, string offsets from the end of its strings. No type
 * refers to the base's.
 *
 * Every type DIE named at a unit's top level (or in a namespace) is
 * converted, and whatever it refers to. A DIE gets its id when first met
 * and is filled from a work list, so self-referencing structs and long
 * chains of pointers need no recursion. Types are not merged across
 * units: a name defined in several has several ids, alike.
 */
#define _GNU_SOURCE
#include "elf/internal.h"

#include <dwarf.h>
#include <linux/btf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/strbuf.h"

/* DIE offset -> local id + 1 (open addressing; 0 empty). */
struct idmap {
	uint64_t *key;
	uint32_t *val;
	size_t n, cap;
};

static uint32_t *idmap_slot(struct idmap *m, uint64_t k, bool add)
{
	if (add && 2 * (m->n + 1) > m->cap) {
		struct idmap g = { .cap = m->cap ? 2 * m->cap : 1024 };

		g.key = calloc(g.cap, sizeof(*g.key));
		g.val = calloc(g.cap, sizeof(*g.val));
		if (!g.key || !g.val)
			fatal("out of memory");
		for (size_t i = 0; i < m->cap; i++)
			if (m->val[i])
				*idmap_slot(&g, m->key[i], true) = m->val[i];
		free(m->key);
		free(m->val);
		g.n = m->n;
		*m = g;
	}
	if (!m->cap)
		return NULL;
	for (size_t i = (k * 0x9e3779b97f4a7c15ULL) >> 20 & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1)) {
		if (m->val[i] && m->key[i] == k)
			return &m->val[i];
		if (!m->val[i]) {
			if (!add)
				return NULL;
			m->key[i] = k;
			m->n++;
			return &m->val[i];
		}
	}
}

/* A type to write: a DIE's, or one the conversion makes up. */
struct rec {
	enum { REC_DIE, REC_INDEX, REC_DIM } kind;
	uint64_t die;		/* REC_DIE */
	uint32_t elem, nelems;	/* REC_DIM: an inner array dimension */
};

#define INFO(kind, kflag, vlen) \
	((uint32_t)(kflag) << 31 | (uint32_t)(kind) << 24 | (uint32_t)(vlen))

struct conv {
	Dwarf *dw;
	uint32_t base_types, base_strs;
	struct idmap ids;
	/* the records, each a run of words */
	uint32_t *words;
	size_t nwords, capwords;
	/* what each local id is; records are written in id order */
	struct rec *rec;
	uint32_t ntypes, captypes;
	uint32_t index_type;	/* the arrays' index type, 0 until needed */
	struct strbuf strs;
};

static uint32_t str_off(struct conv *c, const char *s)
{
	size_t at = c->strs.len;

	if (!s || !*s)
		return 0;
	sb_append(&c->strs, s, strlen(s) + 1);
	return c->base_strs + (uint32_t)at;
}

/* A new id for r. */
static uint32_t new_id(struct conv *c, struct rec r)
{
	VEC_PUSH(c->rec, c->ntypes, c->captypes, r);
	return c->base_types + c->ntypes - 1;
}

static bool type_die(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, out);
}

static bool is_type_tag(int tag)
{
	switch (tag) {
	case DW_TAG_base_type: case DW_TAG_pointer_type:
	case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
	case DW_TAG_const_type: case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: case DW_TAG_atomic_type:
	case DW_TAG_typedef: case DW_TAG_structure_type:
	case DW_TAG_class_type: case DW_TAG_union_type:
	case DW_TAG_enumeration_type: case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
		return true;
	}
	return false;
}

/* The id of the type DIE d (0: void or a type BTF cannot say). */
static uint32_t id_of(struct conv *c, Dwarf_Die *d)
{
	uint64_t off = dwarf_dieoffset(d);
	uint32_t *slot;

	if (!is_type_tag(dwarf_tag(d)))
		return 0;
	/* _Atomic T is T to a reader */
	if (dwarf_tag(d) == DW_TAG_atomic_type) {
		Dwarf_Die t;
		return type_die(d, &t) ? id_of(c, &t) : 0;
	}
	slot = idmap_slot(&c->ids, off, true);
	if (!*slot)
		*slot = new_id(c, (struct rec){ REC_DIE, off, 0, 0 }) + 1;
	return *slot - 1;
}

static uint32_t ref_of(struct conv *c, Dwarf_Die *d)
{
	Dwarf_Die t;

	return type_die(d, &t) ? id_of(c, &t) : 0;
}

static void put(struct conv *c, uint32_t w)
{
	VEC_PUSH(c->words, c->nwords, c->capwords, w);
}

static void head(struct conv *c, const char *name, unsigned kind,
		 unsigned vlen, bool kflag, uint32_t size_or_type)
{
	put(c, str_off(c, name));
	put(c, INFO(kind, kflag, vlen));
	put(c, size_or_type);
}

static uint64_t udata(Dwarf_Die *d, unsigned attr, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(d, attr, &a) || dwarf_formudata(&a, &w))
		return dflt;
	return w;
}

static uint32_t array_index_type(struct conv *c)
{
	if (!c->index_type)
		c->index_type = new_id(c, (struct rec){ .kind = REC_INDEX });
	return c->index_type;
}

static void write_int(struct conv *c, Dwarf_Die *d)
{
	unsigned size = (unsigned)udata(d, DW_AT_byte_size, 0);
	unsigned enc = 0;

	switch (udata(d, DW_AT_encoding, DW_ATE_unsigned)) {
	case DW_ATE_float:
		head(c, dwarf_diename(d), BTF_KIND_FLOAT, 0, false, size);
		return;
	case DW_ATE_signed:
		enc = BTF_INT_SIGNED;
		break;
	case DW_ATE_signed_char:
		enc = BTF_INT_SIGNED | BTF_INT_CHAR;
		break;
	case DW_ATE_unsigned_char:
		enc = BTF_INT_CHAR;
		break;
	case DW_ATE_boolean:
		enc = BTF_INT_BOOL;
		break;
	}
	head(c, dwarf_diename(d), BTF_KIND_INT, 0, false, size);
	put(c, enc << 24 | (size * 8 > 128 ? 128 : size * 8));
}

static void write_members(struct conv *c, Dwarf_Die *d, bool is_union)
{
	Dwarf_Die m;
	unsigned n = 0;
	bool bitfields = false;

	if (dwarf_child(d, &m) == 0)
		do {
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			n++;
			bitfields |= dwarf_hasattr(&m, DW_AT_bit_size);
		} while (dwarf_siblingof(&m, &m) == 0);
	head(c, dwarf_diename(d), is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT,
	     n, bitfields, (uint32_t)udata(d, DW_AT_byte_size, 0));
	if (!n || dwarf_child(d, &m) != 0)
		return;
	do {
		uint64_t bits = udata(&m, DW_AT_bit_size, 0), off;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (dwarf_hasattr(&m, DW_AT_data_bit_offset)) {
			off = udata(&m, DW_AT_data_bit_offset, 0);
		} else {
			off = 8 * udata(&m, DW_AT_data_member_location, 0);
			/* DWARF 2-3: bits counted from the storage unit's
			 * most significant end (little-endian here) */
			if (bits && dwarf_hasattr(&m, DW_AT_bit_offset))
				off += 8 * udata(&m, DW_AT_byte_size, 0) -
				       udata(&m, DW_AT_bit_offset, 0) - bits;
		}
		put(c, str_off(c, dwarf_diename(&m)));
		put(c, ref_of(c, &m));
		put(c, bitfields ? (uint32_t)(bits << 24 | (off & 0xffffff)) :
				   (uint32_t)off);
	} while (dwarf_siblingof(&m, &m) == 0);
}

static void write_enum(struct conv *c, Dwarf_Die *d)
{
	Dwarf_Die e;
	unsigned n = 0;
	bool is_signed = false;
	Dwarf_Die t;

	if (type_die(d, &t))
		is_signed = udata(&t, DW_AT_encoding, 0) == DW_ATE_signed;
	if (dwarf_child(d, &e) == 0)
		do
			n += dwarf_tag(&e) == DW_TAG_enumerator;
		while (dwarf_siblingof(&e, &e) == 0);
	head(c, dwarf_diename(d), BTF_KIND_ENUM, n, is_signed,
	     (uint32_t)udata(d, DW_AT_byte_size, 4));
	if (!n || dwarf_child(d, &e) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword v = 0;

		if (dwarf_tag(&e) != DW_TAG_enumerator)
			continue;
		if (dwarf_attr(&e, DW_AT_const_value, &a))
			dwarf_formsdata(&a, &v);
		put(c, str_off(c, dwarf_diename(&e)));
		put(c, (uint32_t)v);
	} while (dwarf_siblingof(&e, &e) == 0);
}

/* An array of n subranges: one ARRAY per dimension, outermost first. */
static void write_array(struct conv *c, Dwarf_Die *d)
{
	Dwarf_Die s;
	uint64_t dims[16];
	int n = 0;

	if (dwarf_child(d, &s) == 0)
		do {
			if (dwarf_tag(&s) != DW_TAG_subrange_type || n == 16)
				continue;
			if (dwarf_hasattr(&s, DW_AT_count))
				dims[n++] = udata(&s, DW_AT_count, 0);
			else if (dwarf_hasattr(&s, DW_AT_upper_bound))
				dims[n++] = udata(&s, DW_AT_upper_bound, 0) + 1;
			else
				dims[n++] = 0;	/* flexible */
		} while (dwarf_siblingof(&s, &s) == 0);
	if (!n)
		dims[n++] = 0;
	/* this record is the outermost dimension; the inner ones get the
	 * next ids, written when their turn comes */
	uint32_t elem = ref_of(c, d), index = array_index_type(c);
	uint32_t inner = c->base_types + c->ntypes;

	for (int i = 1; i < n; i++)
		new_id(c, (struct rec){ .kind = REC_DIM, .nelems =
					(uint32_t)dims[i],
					.elem = i + 1 < n ? inner + (uint32_t)i :
							    elem });
	head(c, NULL, BTF_KIND_ARRAY, 0, false, 0);
	put(c, n > 1 ? inner : elem);
	put(c, index);
	put(c, (uint32_t)dims[0]);
}

static void write_proto(struct conv *c, Dwarf_Die *d)
{
	Dwarf_Die p;
	unsigned n = 0;

	if (dwarf_child(d, &p) == 0)
		do {
			int tag = dwarf_tag(&p);
			n += tag == DW_TAG_formal_parameter ||
			     tag == DW_TAG_unspecified_parameters;
		} while (dwarf_siblingof(&p, &p) == 0);
	head(c, NULL, BTF_KIND_FUNC_PROTO, n, false, ref_of(c, d));
	if (!n || dwarf_child(d, &p) != 0)
		return;
	do {
		int tag = dwarf_tag(&p);

		if (tag == DW_TAG_formal_parameter) {
			put(c, str_off(c, dwarf_diename(&p)));
			put(c, ref_of(c, &p));
		} else if (tag == DW_TAG_unspecified_parameters) {
			put(c, 0);
			put(c, 0);
		}
	} while (dwarf_siblingof(&p, &p) == 0);
}

/* Write the record of local type i (whose id is reserved). */
static void write_type(struct conv *c, uint32_t i)
{
	struct rec r = c->rec[i];
	Dwarf_Die d;
	const char *name;

	if (r.kind == REC_INDEX) {
		head(c, "__ARRAY_SIZE_TYPE__", BTF_KIND_INT, 0, false, 4);
		put(c, 32);
		return;
	}
	if (r.kind == REC_DIM) {
		head(c, NULL, BTF_KIND_ARRAY, 0, false, 0);
		put(c, r.elem);
		put(c, array_index_type(c));
		put(c, r.nelems);
		return;
	}
	if (!dwarf_offdie(c->dw, r.die, &d)) {
		head(c, NULL, BTF_KIND_INT, 0, false, 0);	/* not reached */
		put(c, 0);
		return;
	}
	name = dwarf_diename(&d);
	switch (dwarf_tag(&d)) {
	case DW_TAG_base_type:
		write_int(c, &d);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		head(c, NULL, BTF_KIND_PTR, 0, false, ref_of(c, &d));
		break;
	case DW_TAG_const_type:
		head(c, NULL, BTF_KIND_CONST, 0, false, ref_of(c, &d));
		break;
	case DW_TAG_volatile_type:
		head(c, NULL, BTF_KIND_VOLATILE, 0, false, ref_of(c, &d));
		break;
	case DW_TAG_restrict_type:
		head(c, NULL, BTF_KIND_RESTRICT, 0, false, ref_of(c, &d));
		break;
	case DW_TAG_typedef:
		head(c, name, BTF_KIND_TYPEDEF, 0, false, ref_of(c, &d));
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type: {
		bool is_union = dwarf_tag(&d) == DW_TAG_union_type;

		if (dwarf_hasattr(&d, DW_AT_declaration))
			head(c, name, BTF_KIND_FWD, 0, is_union, 0);
		else
			write_members(c, &d, is_union);
		break;
	}
	case DW_TAG_enumeration_type:
		if (dwarf_hasattr(&d, DW_AT_declaration))
			head(c, name, BTF_KIND_FWD, 0, false, 0);
		else
			write_enum(c, &d);
		break;
	case DW_TAG_array_type:
		write_array(c, &d);
		break;
	case DW_TAG_subroutine_type:
		write_proto(c, &d);
		break;
	}
}

/* Reserve ids for the named types under scope (a unit, a namespace). */
static void seed(struct conv *c, Dwarf_Die *scope, int depth)
{
	Dwarf_Die d;

	if (depth > 16 || dwarf_child(scope, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);

		if (tag == DW_TAG_namespace)
			seed(c, &d, depth + 1);
		else if (is_type_tag(tag) && dwarf_diename(&d))
			id_of(c, &d);
	} while (dwarf_siblingof(&d, &d) == 0);
}

int elf_file_btf(struct elf_file *f, uint32_t base_types, uint32_t base_strs,
		 uint8_t **blob, size_t *len, char **err)
{
	struct conv c = { .dw = elf_file_dwarf(f), .base_types = base_types,
			  .base_strs = base_strs };
	Dwarf_Off off = 0, next;
	size_t hsize;
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h) };

	if (!c.dw) {
		*err = xasprintf("%s has no DWARF", f->path);
		return -1;
	}
	while (dwarf_nextcu(c.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(c.dw, off + hsize, &cu))
			seed(&c, &cu, 0);
		off = next;
	}
	/* ids are handed out while records are written: the loop's bound
	 * grows as it goes */
	for (uint32_t i = 0; i < c.ntypes; i++)
		write_type(&c, i);
	if (c.ntypes > 0xfffff) {
		*err = xasprintf("%s: too many types for BTF", f->path);
		free(c.words);
		free(c.rec);
		free(c.ids.key);
		free(c.ids.val);
		sb_free(&c.strs);
		return -1;
	}
	h.type_off = 0;
	h.type_len = (uint32_t)(c.nwords * 4);
	h.str_off = h.type_len;
	h.str_len = (uint32_t)c.strs.len;
	*len = sizeof(h) + h.type_len + h.str_len;
	*blob = xmalloc(*len ? *len : 1);
	memcpy(*blob, &h, sizeof(h));
	if (c.nwords)
		memcpy(*blob + sizeof(h), c.words, h.type_len);
	if (c.strs.len)
		memcpy(*blob + sizeof(h) + h.type_len, sb_str(&c.strs),
		       c.strs.len);
	free(c.words);
	free(c.rec);
	free(c.ids.key);
	free(c.ids.val);
	sb_free(&c.strs);
	return 0;
}
