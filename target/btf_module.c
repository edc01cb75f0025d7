// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A module's BTF added to vmlinux's (btf_add_module, see btf.h).
 *
 * A module's .BTF section is split BTF: its type ids go on from
 * vmlinux's last one (vmlinux's ids are used as they are), and its
 * string offsets from the end of vmlinux's string section. Two modules'
 * ids and offsets therefore overlap, and types added by btf_find_type()
 * sit right after vmlinux's. So the module's records are renumbered in
 * place: its ids to [first, end), the next free ids of the struct btf,
 * and its string offsets into one string space (vmlinux's strings, then
 * each module's in turn: btf_module.str_base). Every reference is
 * checked while it is rewritten, so the accessors of btf.c may trust the
 * records as they trust vmlinux's.
 */
#define _GNU_SOURCE
#include "target/btf.h"
#include "target/btf_blob.h"
#include "target/btf_internal.h"
#include "elf/elf.h"
#include "lib/arena.h"
#include "lib/files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct renumber {
	uint32_t base_n;	/* vmlinux's type count (its ids < base_n) */
	uint32_t count;		/* the module's types */
	uint32_t first;		/* where they go */
	uint32_t base_strs;	/* vmlinux's string section length */
	uint32_t strs_len;	/* the module's */
	uint32_t str_base;	/* where its strings go in the string space */
	bool bad;
};

static uint32_t new_id(struct renumber *r, uint32_t id)
{
	if (id < r->base_n)
		return id;
	if (id - r->base_n < r->count)
		return id - r->base_n + r->first;
	r->bad = true;
	return 0;
}

static uint32_t new_str(struct renumber *r, uint32_t off)
{
	if (off < r->base_strs)
		return off;
	if (off - r->base_strs < r->strs_len)
		return off - r->base_strs + r->str_base;
	r->bad = true;
	return 0;
}

/* Renumber the references of record T; false when one is out of range. */
static bool renumber_type(struct renumber *r, struct raw_type *t)
{
	unsigned v = vlen_of(t);
	struct raw_member *m = (void *)(t + 1);
	struct raw_param *p = (void *)(t + 1);
	struct raw_secinfo *si = (void *)(t + 1);
	struct raw_array *a = (void *)(t + 1);
	uint32_t *words = (void *)(t + 1);

	t->name_off = new_str(r, t->name_off);
	switch (kind_of(t)) {
	case KIND_PTR: case KIND_TYPEDEF: case KIND_VOLATILE: case KIND_CONST:
	case KIND_RESTRICT: case KIND_FUNC: case KIND_FUNC_PROTO:
	case KIND_VAR: case KIND_DECL_TAG: case KIND_TYPE_TAG:
		t->size_or_type = new_id(r, t->size_or_type);
		break;
	default:
		break;
	}
	switch (kind_of(t)) {
	case KIND_ARRAY:
		a->type = new_id(r, a->type);
		a->index_type = new_id(r, a->index_type);
		break;
	case KIND_STRUCT: case KIND_UNION:
		for (unsigned i = 0; i < v; i++) {
			m[i].name_off = new_str(r, m[i].name_off);
			m[i].type = new_id(r, m[i].type);
		}
		break;
	case KIND_FUNC_PROTO:
		for (unsigned i = 0; i < v; i++) {
			p[i].name_off = new_str(r, p[i].name_off);
			p[i].type = new_id(r, p[i].type);
		}
		break;
	case KIND_ENUM:
		for (unsigned i = 0; i < v; i++)
			words[2 * i] = new_str(r, words[2 * i]);
		break;
	case KIND_ENUM64:
		for (unsigned i = 0; i < v; i++)
			words[3 * i] = new_str(r, words[3 * i]);
		break;
	case KIND_DATASEC:
		for (unsigned i = 0; i < v; i++)
			si[i].type = new_id(r, si[i].type);
		break;
	default:
		break;
	}
	return !r->bad;
}

int btf_add_module(struct btf *b, const char *name, uint8_t *blob,
		   size_t len, char **err)
{
	struct raw_header h;
	struct renumber r = { 0 };
	struct btf_module *mod;
	const uint8_t *ts;
	uint32_t n = 0, n_named = 0;
	size_t pos;
	const char *why = NULL;
	int first;

	*err = NULL;
	if (len < sizeof(h)) {
		why = "too short for a BTF header";
		goto fail;
	}
	memcpy(&h, blob, sizeof(h));
	if (h.magic != BTF_MAGIC_LE || h.version != 1 ||
	    h.hdr_len < sizeof(h) || h.hdr_len > len ||
	    h.type_off > len - h.hdr_len ||
	    h.type_len > len - h.hdr_len - h.type_off ||
	    h.str_off > len - h.hdr_len ||
	    h.str_len > len - h.hdr_len - h.str_off ||
	    (h.hdr_len + h.type_off) % 4 != 0) {
		why = "bad BTF header";
		goto fail;
	}
	/* split BTF's offsets go on from the end of the base's strings:
	 * its own section has no leading "" */
	if (h.str_len && blob[h.hdr_len + h.str_off + h.str_len - 1]) {
		why = "bad BTF string section";
		goto fail;
	}
	ts = blob + h.hdr_len + h.type_off;
	for (pos = 0; pos < h.type_len; n++) {
		const struct raw_type *t = (const void *)(ts + pos);
		long extra;

		if (h.type_len - pos < sizeof(*t) ||
		    (extra = extra_size(t)) < 0 ||
		    kind_of(t) == KIND_UNKNOWN ||
		    (size_t)extra > h.type_len - pos - sizeof(*t)) {
			why = "a bad or truncated type record";
			goto fail;
		}
		pos += sizeof(*t) + (size_t)extra;
		if (t->name_off && name_space_of(t) != NS_NONE)
			n_named++;
	}
	if (n > 0xfffff || (uint64_t)b->n_types + n > 0xfffff) {
		why = "too many types";
		goto fail;
	}
	first = b->n_types;
	r.base_n = (uint32_t)b->n_btf;
	r.count = n;
	r.first = (uint32_t)first;
	r.base_strs = b->strs_len;
	r.strs_len = h.str_len;
	r.str_base = b->n_mods ? b->mods[b->n_mods - 1].str_base +
				 b->mods[b->n_mods - 1].strs_len :
				 b->strs_len;
	if ((uint64_t)r.str_base + r.strs_len > UINT32_MAX) {
		why = "too many strings";
		goto fail;
	}
	for (pos = 0; pos < h.type_len;) {
		struct raw_type *t = (void *)(blob + h.hdr_len + h.type_off +
					      pos);

		pos += sizeof(*t) + (size_t)extra_size(t);
		if (!renumber_type(&r, t)) {
			why = "a type refers to a type or string it does not "
			      "have (not split BTF on this kernel's)";
			goto fail;
		}
	}
	/* no failure from here on */
	b->mods = xrealloc(b->mods, (size_t)(b->n_mods + 1) * sizeof(*b->mods));
	mod = &b->mods[b->n_mods++];
	mod->name = xstrdup(name);
	mod->blob = blob;
	mod->first = first;
	mod->end = first + (int)n;
	mod->strs = (const char *)blob + h.hdr_len + h.str_off;
	mod->str_base = r.str_base;
	mod->strs_len = r.strs_len;
	btf_names_reserve(b, n_named);	/* before the new ids exist */
	for (pos = 0; pos < h.type_len;) {
		const struct raw_type *t = (const void *)(ts + pos);

		VEC_GROW(b->types, b->n_types, b->cap_types);
		b->types[b->n_types++] = t;
		pos += sizeof(*t) + (size_t)extra_size(t);
	}
	for (int id = first; id < mod->end; id++)
		btf_index_type(b, id);
	return b->n_mods;
fail:
	*err = xasprintf("the BTF of module %s: %s", name, why);
	free(blob);
	return 0;
}

int btf_add_elf(struct btf *b, const char *name, struct elf_file *f,
		char **err)
{
	uint8_t *blob;
	size_t len;

	/* split on vmlinux's types, as a module's .BTF is */
	if (elf_file_btf(f, (uint32_t)b->n_btf, b->strs_len, &blob, &len,
			 err) != 0)
		return 0;
	return btf_add_module(b, name, blob, len, err);
}
