// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The target kernel's BTF: finding it, parsing it, answering type
 * questions about it; see btf.h.
 *
 * Finding it: the raw blob is copied out of a cache file, /sys, an ELF
 * vmlinux's .BTF section or a bzImage (btf_blob.c); here, the order the
 * sources are tried in.
 *
 * Parsing it: the blob stays as it is (little-endian, as on the host);
 * types[id] points at each type's record in it. Loading checks every
 * record's kind, length, name offset and referenced type id, so the
 * accessors below may trust them; unknown kinds fail the load. Two hash
 * tables index the types: named ones by (namespace, name) - the first
 * definition of a name wins over later ones and over forward
 * declarations - and anonymous derived ones (pointer, const, volatile,
 * restrict, array) by (kind, target, nelems), so btf_find_type() reuses
 * BTF's own pointer types and adds one only when BTF has none. Added
 * types are records in the same format, malloc'ed one by one.
 *
 * Every walk along type references is bounded (MAX_DEPTH), so a BTF with
 * a reference cycle gives wrong answers, never a hang.
 */
#define _GNU_SOURCE
#include "target/btf.h"
#include "target/btf_blob.h"
#include "target/btf_internal.h"
#include "lib/hash.h"
#include "target/target.h"
#include "lib/files.h"
#include "lib/arena.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static const struct raw_type *type_at(const struct btf *b, long id)
{
	if (id <= 0 || id >= b->n_types)
		return NULL;
	return b->types[id];
}

static const char *str_at(const struct btf *b, uint32_t off)
{
	if (off < b->strs_len)
		return b->strs + off;
	for (int k = 0; k < b->n_mods; k++) {
		const struct btf_module *m = &b->mods[k];

		if (off >= m->str_base && off - m->str_base < m->strs_len)
			return m->strs + (off - m->str_base);
	}
	return "";
}

int btf_scope_of(const struct btf *b, int id)
{
	for (int k = 0; k < b->n_mods; k++)
		if (id >= b->mods[k].first && id < b->mods[k].end)
			return k + 1;
	return 0;
}

int btf_type_scope(const struct btf *b, int id)
{
	struct btf_info info;

	for (int hops = 0; hops < 64; hops++) {
		btf_resolve(b, id, &info);
		if (info.cls != BTF_CLASS_PTR && info.cls != BTF_CLASS_ARRAY)
			break;
		id = info.target;
	}
	return btf_scope_of(b, info.id);
}

static const char *type_name_str(const struct btf *b, const struct raw_type *t)
{
	return str_at(b, t->name_off);
}

/* In-memory only (the name table), so any good mix of ns and name does. */
static uint32_t name_hash(enum name_space ns, const char *s, size_t n)
{
	uint64_t h = fnv1a(FNV_OFFSET ^ (uint64_t)ns * 0x9e3779b97f4a7c15ull,
			   s, n);

	return (uint32_t)(h ^ h >> 32);
}

static bool name_is(const struct btf *b, const struct raw_type *t,
		    const char *s, size_t n)
{
	const char *nm = type_name_str(b, t);

	return strncmp(nm, s, n) == 0 && nm[n] == '\0';
}

/*
 * The type named NAME (N bytes) in name space NS, 0 if none: in scope
 * SCOPE (a module's: its own type, else vmlinux's), vmlinux's for scope 0;
 * with def_only, a definition, not a forward declaration.
 */
static int lookup_name(const struct btf *b, enum name_space ns,
		       const char *s, size_t n, int scope, bool def_only)
{
	uint32_t i = name_hash(ns, s, n) & b->names_mask;
	int found = 0;

	for (; b->names[i]; i = (i + 1) & b->names_mask) {
		const struct raw_type *t = b->types[b->names[i]];
		int sc;

		if (name_space_of(t) != ns || !name_is(b, t, s, n) ||
		    (def_only && kind_of(t) == KIND_FWD))
			continue;
		sc = b->n_mods ? btf_scope_of(b, (int)b->names[i]) : 0;
		if (sc == scope)
			return (int)b->names[i];
		if (sc == 0)
			found = (int)b->names[i];
	}
	return found;
}

/* One entry per scope, name space and name: the first definition, else
 * the first forward declaration. */
static void index_name(struct btf *b, int id)
{
	const struct raw_type *t = b->types[id];
	enum name_space ns = name_space_of(t);
	const char *nm = type_name_str(b, t);
	int scope;
	uint32_t i;

	if (ns == NS_NONE || !*nm)
		return;
	scope = b->n_mods ? btf_scope_of(b, id) : 0;
	i = name_hash(ns, nm, strlen(nm)) & b->names_mask;
	for (; b->names[i]; i = (i + 1) & b->names_mask) {
		const struct raw_type *o = b->types[b->names[i]];

		if (name_space_of(o) == ns && strcmp(type_name_str(b, o),
						     nm) == 0 &&
		    (!b->n_mods || btf_scope_of(b, (int)b->names[i]) == scope)) {
			/* a definition replaces a forward declaration */
			if (kind_of(o) == KIND_FWD && kind_of(t) != KIND_FWD)
				b->names[i] = (uint32_t)id;
			return;
		}
	}
	b->names[i] = (uint32_t)id;
	b->n_names++;
}

void btf_names_reserve(struct btf *b, uint32_t extra)
{
	uint32_t mask = b->names_mask;

	while ((uint64_t)(b->n_names + extra) * 2 > (uint64_t)mask + 1)
		mask = mask * 2 + 1;
	if (mask == b->names_mask)
		return;
	free(b->names);
	b->names_mask = mask;
	b->names = calloc((size_t)mask + 1, sizeof(uint32_t));
	if (!b->names)
		fatal("out of memory");
	b->n_names = 0;
	for (int id = 1; id < b->n_types; id++)	/* in id order, as before */
		index_name(b, id);
}

static bool is_derived_kind(unsigned k)
{
	return k == KIND_PTR || k == KIND_CONST || k == KIND_VOLATILE ||
	       k == KIND_RESTRICT || k == KIND_ARRAY;
}

static uint32_t derived_target(const struct raw_type *t, uint32_t *nelems)
{
	if (kind_of(t) == KIND_ARRAY) {
		const struct raw_array *a = (const void *)(t + 1);

		*nelems = a->nelems;
		return a->type;
	}
	*nelems = 0;
	return t->size_or_type;
}

static uint32_t derived_hash(unsigned kind, uint32_t target, uint32_t nelems)
{
	uint64_t h = ((uint64_t)target << 8 | kind) * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)nelems * 0xc2b2ae3d27d4eb4full;
	return (uint32_t)(h >> 32);
}

static int lookup_derived(const struct btf *b, unsigned kind,
			  uint32_t target, uint32_t nelems)
{
	uint32_t i = derived_hash(kind, target, nelems) & b->derived_mask;

	for (; b->derived[i]; i = (i + 1) & b->derived_mask) {
		const struct raw_type *t = b->types[b->derived[i]];
		uint32_t n, tg = derived_target(t, &n);

		if (kind_of(t) == kind && tg == target && n == nelems)
			return (int)b->derived[i];
	}
	return 0;
}

static void index_derived(struct btf *b, int id);

static void grow_derived(struct btf *b)
{
	uint32_t *old = b->derived, old_mask = b->derived_mask;

	b->derived_mask = old_mask * 2 + 1;
	b->derived = calloc((size_t)b->derived_mask + 1, sizeof(uint32_t));
	if (!b->derived)
		fatal("out of memory");
	b->n_derived = 0;
	for (uint32_t i = 0; i <= old_mask; i++)
		if (old[i])
			index_derived(b, (int)old[i]);
	free(old);
}

static void index_derived(struct btf *b, int id)
{
	const struct raw_type *t = b->types[id];
	uint32_t n, tg, i;

	if (!is_derived_kind(kind_of(t)) || t->name_off)
		return;
	if ((b->n_derived + 1) * 2 > b->derived_mask + 1)
		grow_derived(b);
	tg = derived_target(t, &n);
	i = derived_hash(kind_of(t), tg, n) & b->derived_mask;
	for (; b->derived[i]; i = (i + 1) & b->derived_mask) {
		const struct raw_type *o = b->types[b->derived[i]];
		uint32_t on, otg = derived_target(o, &on);

		if (kind_of(o) == kind_of(t) && otg == tg && on == n)
			return;		/* the first one stays */
	}
	b->derived[i] = (uint32_t)id;
	b->n_derived++;
}

void btf_index_type(struct btf *b, int id)
{
	index_name(b, id);
	index_derived(b, id);
}

/* ------------------------------------------------------------------ */
/* Parsing and checking a raw blob */

static bool check_name(const struct btf *b, uint32_t off)
{
	return off < b->strs_len;
}

static bool check_id(const struct btf *b, uint32_t id)
{
	return id < (uint32_t)b->n_btf;
}

/* Every reference in type ID points inside the blob; NULL or why not. */
static char *check_type(const struct btf *b, int id)
{
	const struct raw_type *t = b->types[id];
	unsigned k = kind_of(t), v = vlen_of(t);
	const struct raw_member *m = (const void *)(t + 1);
	const struct raw_param *p = (const void *)(t + 1);
	const struct raw_secinfo *si = (const void *)(t + 1);
	const struct raw_array *a = (const void *)(t + 1);
	const uint32_t *words = (const void *)(t + 1);

	if (!check_name(b, t->name_off))
		return xasprintf("type %d: bad name offset", id);
	switch (k) {
	case KIND_PTR: case KIND_TYPEDEF: case KIND_VOLATILE: case KIND_CONST:
	case KIND_RESTRICT: case KIND_FUNC: case KIND_FUNC_PROTO:
	case KIND_VAR: case KIND_DECL_TAG: case KIND_TYPE_TAG:
		if (!check_id(b, t->size_or_type))
			return xasprintf("type %d: bad type id %u", id,
					  t->size_or_type);
		break;
	default:
		break;
	}
	switch (k) {
	case KIND_ARRAY:
		if (!check_id(b, a->type) || !check_id(b, a->index_type))
			return xasprintf("type %d: bad array type", id);
		break;
	case KIND_STRUCT: case KIND_UNION:
		for (unsigned i = 0; i < v; i++)
			if (!check_name(b, m[i].name_off) ||
			    !check_id(b, m[i].type))
				return xasprintf("type %d: bad member %u",
						  id, i);
		break;
	case KIND_FUNC_PROTO:
		for (unsigned i = 0; i < v; i++)
			if (!check_name(b, p[i].name_off) ||
			    !check_id(b, p[i].type))
				return xasprintf("type %d: bad parameter %u",
						  id, i);
		break;
	case KIND_ENUM:
		for (unsigned i = 0; i < v; i++)
			if (!check_name(b, words[2 * i]))
				return xasprintf("type %d: bad enumerator",
						  id);
		break;
	case KIND_ENUM64:
		for (unsigned i = 0; i < v; i++)
			if (!check_name(b, words[3 * i]))
				return xasprintf("type %d: bad enumerator",
						  id);
		break;
	case KIND_DATASEC:
		for (unsigned i = 0; i < v; i++)
			if (!check_id(b, si[i].type))
				return xasprintf("type %d: bad variable", id);
		break;
	default:
		break;
	}
	return NULL;
}

/* Take BLOB (malloc'ed; owned by *out afterwards, freed on failure). */
static int btf_from_blob(uint8_t *blob, size_t len, const char *source,
			 struct btf **out, char **err)
{
	struct btf *b = xmalloc(sizeof(*b));
	struct raw_header h;
	const uint8_t *ts;
	size_t pos, n_named = 0;
	char *why = NULL;

	memset(b, 0, sizeof(*b));
	b->first_added = INT32_MAX;	/* nothing added to free yet */
	b->blob = blob;
	b->blob_len = len;
	b->source = xstrdup(source);
	if (len < sizeof(h)) {
		why = xasprintf("too short for a BTF header");
		goto fail;
	}
	memcpy(&h, blob, sizeof(h));
	if (h.magic != BTF_MAGIC_LE) {
		why = xasprintf(h.magic == 0x9feb ? "big-endian BTF" :
				 "no BTF magic");
		goto fail;
	}
	if (h.version != 1 || h.hdr_len < sizeof(h) || h.hdr_len > len ||
	    h.type_off > len - h.hdr_len ||
	    h.type_len > len - h.hdr_len - h.type_off ||
	    h.str_off > len - h.hdr_len ||
	    h.str_len > len - h.hdr_len - h.str_off ||
	    (h.hdr_len + h.type_off) % 4 != 0) {
		why = xasprintf("bad BTF header (version %u)", h.version);
		goto fail;
	}
	b->strs = (const char *)blob + h.hdr_len + h.str_off;
	b->strs_len = h.str_len;
	if (!h.str_len || b->strs[0] || b->strs[h.str_len - 1]) {
		why = xasprintf("bad BTF string section");
		goto fail;
	}
	ts = blob + h.hdr_len + h.type_off;
	b->cap_types = 1024;
	b->types = xmalloc((size_t)b->cap_types * sizeof(*b->types));
	b->types[0] = NULL;
	b->n_types = 1;
	for (pos = 0; pos < h.type_len;) {
		const struct raw_type *t = (const void *)(ts + pos);
		long extra;

		if (h.type_len - pos < sizeof(*t)) {
			why = xasprintf("truncated type %d", b->n_types);
			goto fail;
		}
		extra = extra_size(t);
		if (extra < 0 || kind_of(t) == KIND_UNKNOWN) {
			why = xasprintf("type %d has unknown kind %u",
					 b->n_types, kind_of(t));
			goto fail;
		}
		if ((size_t)extra > h.type_len - pos - sizeof(*t)) {
			why = xasprintf("truncated type %d", b->n_types);
			goto fail;
		}
		VEC_GROW(b->types, b->n_types, b->cap_types);
		if (b->n_types > 0xfffff) {
			why = xasprintf("too many types");
			goto fail;
		}
		b->types[b->n_types++] = t;
		pos += sizeof(*t) + (size_t)extra;
		if (t->name_off && name_space_of(t) != NS_NONE)
			n_named++;
	}
	b->n_btf = b->n_types;
	b->first_added = b->n_types;
	for (int id = 1; id < b->n_types; id++) {
		why = check_type(b, id);
		if (why)
			goto fail;
	}
	for (b->names_mask = 1023; b->names_mask + 1 < 2 * n_named;)
		b->names_mask = b->names_mask * 2 + 1;
	b->names = calloc((size_t)b->names_mask + 1, sizeof(uint32_t));
	b->derived_mask = 1023;
	b->derived = calloc((size_t)b->derived_mask + 1, sizeof(uint32_t));
	if (!b->names || !b->derived)
		fatal("out of memory");
	for (int id = 1; id < b->n_types; id++)
		btf_index_type(b, id);
	*out = b;
	return 0;
fail:
	*err = xasprintf("%s: %s", source, why);
	free(why);
	btf_free(b);
	return -1;
}

void btf_free(struct btf *b)
{
	if (!b)
		return;
	for (int id = b->first_added; id < b->n_types; id++)
		if (!btf_scope_of(b, id))
			free((void *)b->types[id]);
	for (int k = 0; k < b->n_mods; k++) {
		free(b->mods[k].name);
		free(b->mods[k].blob);
	}
	free(b->mods);
	free(b->types);
	free(b->names);
	free(b->derived);
	free(b->blob);
	free(b->source);
	free(b);
}

const char *btf_source(const struct btf *b)
{
	return b->source;
}

/* ------------------------------------------------------------------ */
/* btf_load */

int btf_load_file(const char *path, struct btf **out, char **err)
{
	uint8_t *blob;
	size_t len;

	*out = NULL;
	*err = NULL;
	if (btf_blob_from_file(path, &blob, &len, err) != 0)
		return -1;
	return btf_from_blob(blob, len, path, out, err);
}

static bool is_running_kernel(const char *release)
{
	struct utsname u;

	return uname(&u) == 0 && strcmp(u.release, release) == 0;
}

int btf_load_target(const struct target *t, struct btf **out, char **err)
{
	const char *release = t->release, *cache_dir = t->cache_dir;
	char *cache_path = NULL, *src = NULL, *sys = NULL, *why = NULL;
	const char *candidates[3] = {
		t->debug_tried, t->build_vmlinux, t->image
	};
	struct strbuf tried = { 0 };
	uint8_t *blob;
	size_t len;
	int rc = -1, n_present = 0;

	*out = NULL;
	*err = NULL;
	if (cache_dir) {
		if (asprintf(&cache_path, "%s/btf-%s", cache_dir,
			     release) < 0)
			fatal("out of memory");
		if (btf_cache_read(cache_path, &blob, &len, &src) == 0) {
			if (asprintf(&sys, "cache %s (from %s)", cache_path,
				     src) < 0)
				fatal("out of memory");
			rc = btf_from_blob(blob, len, sys, out, &why);
			free(sys);
			free(src);
			free(why);	/* a bad cache: rebuild it */
			why = NULL;
			if (rc == 0) {
				free(cache_path);
				return 0;
			}
		}
	}
	if (is_running_kernel(release) &&
	    btf_load_file("/sys/kernel/btf/vmlinux", out, &why) == 0) {
		free(cache_path);
		return 0;
	}
	free(why);
	why = NULL;
	for (int i = 0; i < 3 && rc != 0; i++) {
		struct stat st;

		if (stat(candidates[i], &st) != 0)
			continue;
		n_present++;
		if (btf_blob_from_file(candidates[i], &blob, &len, &why) != 0) {
			sb_printf(&tried, "%s%s", tried.len ? "; " : "", why);
			free(why);
			why = NULL;
			continue;
		}
		if (cache_path)
			btf_cache_write(cache_dir, cache_path, candidates[i], &st,
				    blob, len);
		rc = btf_from_blob(blob, len, candidates[i], out, &why);
		if (rc != 0) {
			sb_printf(&tried, "%s%s", tried.len ? "; " : "", why);
			free(why);
			why = NULL;
			if (cache_path)
				unlink(cache_path);
		}
	}
	if (rc != 0 && !n_present)
		*err = xasprintf("no BTF type information for kernel %s: "
				  "none of %s, %s, %s exists", release,
				  candidates[0], candidates[1],
				  candidates[2]);
	else if (rc != 0)
		*err = xasprintf("no BTF type information for kernel %s: %s",
				  release, sb_str(&tried));
	sb_free(&tried);
	free(cache_path);
	return rc;
}

/*
 * The raw BTF of t's kernel, for a program built here and loaded by that
 * kernel (the BPF backend in a guest, whose types libbpf reads from the
 * blob): the cache's copy (btf_load_target writes it), else the first of
 * t's files that has BTF. 0 with a malloc'ed *blob, or -1 with *err.
 */
int btf_target_blob(const struct target *t, uint8_t **blob, size_t *len,
		    char **err)
{
	const char *candidates[3] = {
		t->debug_tried, t->build_vmlinux, t->image
	};
	char *cache_path = NULL, *src = NULL;
	struct btf *b = NULL;

	*err = NULL;
	if (t->cache_dir) {
		cache_path = xasprintf("%s/btf-%s", t->cache_dir, t->release);
		if (btf_cache_read(cache_path, blob, len, &src) == 0 ||
		    (btf_load_target(t, &b, err) == 0 &&
		     btf_cache_read(cache_path, blob, len, &src) == 0)) {
			btf_free(b);
			free(src);
			free(cache_path);
			free(*err);
			*err = NULL;
			return 0;
		}
		btf_free(b);
		free(cache_path);
		free(*err);
		*err = NULL;
	}
	for (int i = 0; i < 3; i++) {
		char *why = NULL;
		if (candidates[i] && !access(candidates[i], R_OK) &&
		    btf_blob_from_file(candidates[i], blob, len, &why) == 0)
			return 0;
		free(why);
	}
	*err = xasprintf("no BTF type information for kernel %s", t->release);
	return -1;
}

int btf_load(const char *release, const char *cache_dir, struct btf **out,
	     char **err)
{
	struct target *t = target_new(release, NULL);
	int rc;

	target_set_cache_dir(t, cache_dir);
	rc = btf_load_target(t, out, err);
	target_free(t);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Questions */

/* TYPE_ID without typedefs, qualifiers and type tags; a forward
 * declaration becomes its definition when BTF has one. */
static int strip(const struct btf *b, int id)
{
	for (int hops = 0; hops < MAX_DEPTH; hops++) {
		const struct raw_type *t = type_at(b, id);
		int def;

		if (!t)
			return id;
		switch (kind_of(t)) {
		case KIND_TYPEDEF: case KIND_CONST: case KIND_VOLATILE:
		case KIND_RESTRICT: case KIND_TYPE_TAG:
			id = (int)t->size_or_type;
			break;
		case KIND_FWD: {
			const char *nm = type_name_str(b, t);

			def = lookup_name(b, name_space_of(t), nm, strlen(nm),
					  b->n_mods ? btf_scope_of(b, id) : 0,
					  true);
			return def ? def : id;
		}
		default:
			return id;
		}
	}
	return -1;
}

static bool is_char_int(const struct btf *b, int id)
{
	const struct raw_type *t = type_at(b, id);
	const char *nm;

	if (!t || kind_of(t) != KIND_INT || t->size_or_type != 1)
		return false;
	nm = type_name_str(b, t);
	return strcmp(nm, "char") == 0 || strcmp(nm, "signed char") == 0 ||
	       strcmp(nm, "unsigned char") == 0;
}

static void resolve(const struct btf *b, int id, struct btf_info *out,
		    int depth)
{
	const struct raw_type *t;
	int s = strip(b, id);

	memset(out, 0, sizeof(*out));
	out->cls = BTF_CLASS_OTHER;
	out->id = s;
	if (s == 0) {
		out->cls = BTF_CLASS_VOID;
		return;
	}
	t = type_at(b, s);
	if (!t || depth > MAX_DEPTH)
		return;
	switch (kind_of(t)) {
	case KIND_INT:
		out->cls = BTF_CLASS_INT;
		out->size = t->size_or_type;
		out->is_signed = *(const uint32_t *)(t + 1) >> 24 & INT_SIGNED;
		out->is_char = is_char_int(b, s);
		break;
	case KIND_ENUM: case KIND_ENUM64:
		out->cls = BTF_CLASS_ENUM;
		out->size = t->size_or_type;
		out->is_signed = kflag_of(t);
		break;
	case KIND_PTR: {
		int target = strip(b, (int)t->size_or_type);
		const struct raw_type *tt = type_at(b, target);

		out->size = POINTER_SIZE;
		out->target = (int)t->size_or_type;
		if (tt && kind_of(tt) == KIND_FUNC_PROTO) {
			out->cls = BTF_CLASS_FUNC_PTR;
			out->target = target;
		} else {
			out->cls = BTF_CLASS_PTR;
			out->is_char = is_char_int(b, target);
		}
		break;
	}
	case KIND_ARRAY: {
		const struct raw_array *a = (const void *)(t + 1);
		struct btf_info elem;
		uint64_t size;

		resolve(b, (int)a->type, &elem, depth + 1);
		size = (uint64_t)elem.size * a->nelems;
		out->cls = BTF_CLASS_ARRAY;
		out->target = (int)a->type;
		out->nelems = a->nelems;
		out->size = size > UINT32_MAX ? UINT32_MAX : (unsigned)size;
		out->is_char = elem.cls == BTF_CLASS_INT && elem.is_char;
		break;
	}
	case KIND_STRUCT:
		out->cls = BTF_CLASS_STRUCT;
		out->size = t->size_or_type;
		break;
	case KIND_UNION:
		out->cls = BTF_CLASS_UNION;
		out->size = t->size_or_type;
		break;
	case KIND_FLOAT:
		out->cls = BTF_CLASS_FLOAT;
		out->size = t->size_or_type;
		break;
	default:
		break;
	}
}

void btf_resolve(const struct btf *b, int id, struct btf_info *out)
{
	resolve(b, id, out, 0);
}

int btf_proto_param(const struct btf *b, int proto_id, int i)
{
	const struct raw_type *t = type_at(b, strip(b, proto_id));
	const struct raw_param *p;

	if (!t || kind_of(t) != KIND_FUNC_PROTO)
		return -1;
	if (i < 0)
		return (int)vlen_of(t);
	if ((unsigned)i >= vlen_of(t))
		return -1;
	p = (const void *)(t + 1);
	return (int)p[i].type;
}

static int find_member(const struct btf *b, int sid, const char *name,
		       unsigned base, int depth, int *type_id,
		       unsigned *bit_offset, unsigned *bitfield_size)
{
	const struct raw_type *t = type_at(b, sid);
	const struct raw_member *m;

	if (!t || depth > MAX_DEPTH ||
	    (kind_of(t) != KIND_STRUCT && kind_of(t) != KIND_UNION))
		return -1;
	m = (const void *)(t + 1);
	for (unsigned i = 0; i < vlen_of(t); i++) {
		unsigned off = kflag_of(t) ? m[i].offset & 0xffffff
					   : m[i].offset;
		unsigned bits = kflag_of(t) ? m[i].offset >> 24 : 0;

		if (m[i].name_off) {
			const struct raw_type *it;
			int mt;

			if (strcmp(str_at(b, m[i].name_off), name) != 0)
				continue;
			/* old-style bitfield: the width is in the INT */
			mt = strip(b, (int)m[i].type);
			it = type_at(b, mt);
			if (!kflag_of(t) && it && kind_of(it) == KIND_INT) {
				uint32_t enc = *(const uint32_t *)(it + 1);
				unsigned nbits = enc & 0xff;

				if (nbits != it->size_or_type * 8 ||
				    (enc >> 16 & 0xff)) {
					bits = nbits;
					off += enc >> 16 & 0xff;
				}
			}
			*type_id = (int)m[i].type;
			*bit_offset = base + off;
			*bitfield_size = bits;
			return 0;
		}
		if (find_member(b, strip(b, (int)m[i].type), name, base + off,
				depth + 1, type_id, bit_offset,
				bitfield_size) == 0)
			return 0;
	}
	return -1;
}

int btf_member(const struct btf *b, int struct_id, const char *name,
	       int *type_id, unsigned *bit_offset, unsigned *bitfield_size)
{
	return find_member(b, strip(b, struct_id), name, 0, 0, type_id,
			   bit_offset, bitfield_size);
}

int btf_member_at(const struct btf *b, int struct_id, int i,
		  const char **name, int *type_id, unsigned *bit_offset,
		  unsigned *bitfield_size)
{
	const struct raw_type *t = type_at(b, strip(b, struct_id));
	const struct raw_member *m;

	if (!t || (kind_of(t) != KIND_STRUCT && kind_of(t) != KIND_UNION))
		return -1;
	if (i < 0)
		return (int)vlen_of(t);
	if ((unsigned)i >= vlen_of(t))
		return -1;
	m = (const struct raw_member *)(t + 1) + i;
	*name = str_at(b, m->name_off);
	*type_id = (int)m->type;
	*bit_offset = kflag_of(t) ? m->offset & 0xffffff : m->offset;
	*bitfield_size = kflag_of(t) ? m->offset >> 24 : 0;
	if (!kflag_of(t)) {
		/* old-style bitfield: the width is in the INT (find_member) */
		const struct raw_type *it = type_at(b, strip(b, (int)m->type));

		if (it && kind_of(it) == KIND_INT) {
			uint32_t enc = *(const uint32_t *)(it + 1);
			unsigned nbits = enc & 0xff;

			if (nbits != it->size_or_type * 8 ||
			    (enc >> 16 & 0xff)) {
				*bitfield_size = nbits;
				*bit_offset += enc >> 16 & 0xff;
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Names, as SystemTap's dwarf_type_name() prints them */

/*
 * Base type first, then each modifier's suffix ("*", "[]", " const"),
 * innermost first. A function prototype prints nothing: its id goes to
 * *proto and the caller wraps the modifiers in "RET (MODS) (PARAMS)".
 * False for an id that is no type.
 */
static bool name_into(const struct btf *b, int id, struct strbuf *sb,
		      int *proto, int depth)
{
	const struct raw_type *t, *tt;
	const char *nm, *suffix;
	int target;

	if (id == 0) {
		sb_puts(sb, "void");
		return true;
	}
	t = type_at(b, id);
	if (!t || depth > MAX_DEPTH)
		return false;
	nm = type_name_str(b, t);
	switch (kind_of(t)) {
	case KIND_STRUCT: case KIND_UNION: case KIND_ENUM: case KIND_ENUM64:
	case KIND_FWD:
		sb_puts(sb, name_space_of(t) == NS_STRUCT ? "struct " :
			    name_space_of(t) == NS_UNION ? "union " : "enum ");
		sb_puts(sb, *nm ? nm : "{...}");
		return true;
	case KIND_INT: case KIND_TYPEDEF: case KIND_FLOAT:
		sb_puts(sb, nm);
		return true;
	case KIND_FUNC_PROTO:
		*proto = id;
		return true;
	case KIND_TYPE_TAG:
		return name_into(b, (int)t->size_or_type, sb, proto,
				 depth + 1);
	case KIND_PTR:
		target = (int)t->size_or_type;
		tt = type_at(b, target);
		if (tt && kind_of(tt) == KIND_STRUCT &&
		    strcmp(type_name_str(b, tt), "__va_list_tag") == 0) {
			sb_puts(sb, "va_list");
			return true;
		}
		suffix = "*";
		break;
	case KIND_ARRAY:
		/* gcc describes int[2][3] as one array: one "[]" */
		do {
			target = (int)((const struct raw_array *)(t + 1))->type;
			t = type_at(b, target);
		} while (t && kind_of(t) == KIND_ARRAY);
		suffix = "[]";
		break;
	case KIND_CONST:
		target = (int)t->size_or_type;
		suffix = " const";
		break;
	case KIND_VOLATILE:
		target = (int)t->size_or_type;
		suffix = " volatile";
		break;
	case KIND_RESTRICT:
		target = (int)t->size_or_type;
		suffix = " restrict";
		break;
	default:
		return false;
	}
	if (!name_into(b, target, sb, proto, depth + 1))
		sb_puts(sb, "void");
	sb_puts(sb, suffix);
	return true;
}

static bool full_name(const struct btf *b, int id, struct strbuf *out,
		      int depth)
{
	struct strbuf mods = { 0 };
	const struct raw_type *t;
	const struct raw_param *p;
	int proto = 0;
	bool ok;

	if (depth > MAX_DEPTH || !name_into(b, id, &mods, &proto, depth)) {
		sb_free(&mods);
		return false;
	}
	if (!proto) {
		sb_puts(out, sb_str(&mods));
		sb_free(&mods);
		return true;
	}
	t = type_at(b, proto);
	p = (const void *)(t + 1);
	ok = full_name(b, (int)t->size_or_type, out, depth + 1);
	sb_printf(out, " (%s) (", sb_str(&mods));
	sb_free(&mods);
	for (unsigned i = 0; ok && i < vlen_of(t); i++) {
		if (i)
			sb_puts(out, ", ");
		if (p[i].type == 0 && i + 1 == vlen_of(t))
			sb_puts(out, "...");
		else
			ok = full_name(b, (int)p[i].type, out, depth + 1);
	}
	if (!vlen_of(t))
		sb_puts(out, "void");
	sb_putc(out, ')');
	return ok;
}

char *btf_type_name(const struct btf *b, int id)
{
	struct strbuf sb = { 0 };

	if (!full_name(b, id, &sb, 0)) {
		sb_free(&sb);
		return xstrdup("<unknown>");
	}
	return sb.data ? sb.data : xstrdup("");
}

/* ------------------------------------------------------------------ */
/* btf_find_type: C spellings to ids */

static int add_type(struct btf *b, struct raw_type *t)
{
	if (b->n_types > 0xfffff)
		fatal("too many BTF types");
	VEC_GROW(b->types, b->n_types, b->cap_types);
	b->types[b->n_types] = t;
	return b->n_types++;
}

/* The anonymous KIND (pointer, qualifier, array) of TARGET: BTF's own,
 * or a new one. */
static int derive(struct btf *b, unsigned kind, int target, uint32_t nelems)
{
	struct raw_type *t;
	int id = lookup_derived(b, kind, (uint32_t)target, nelems);

	if (id)
		return id;
	if (kind == KIND_ARRAY) {
		struct raw_array *a;

		t = xmalloc(sizeof(*t) + sizeof(*a));
		a = (void *)(t + 1);
		a->type = (uint32_t)target;
		a->index_type = 0;
		a->nelems = nelems;
		t->size_or_type = 0;
	} else {
		t = xmalloc(sizeof(*t));
		t->size_or_type = (uint32_t)target;
	}
	t->name_off = 0;
	t->info = make_info(kind, 0, false);
	id = add_type(b, t);
	index_derived(b, id);
	return id;
}

/* Whether ids A and B denote the same C type (BTF may hold duplicates
 * that deduplication kept apart, and added types duplicate nothing). */
static bool same_type(const struct btf *b, int x, int y, int depth)
{
	const struct raw_type *tx, *ty;

	if (x == y)
		return true;
	tx = type_at(b, x);
	ty = type_at(b, y);
	if (!tx || !ty || depth > MAX_DEPTH || kind_of(tx) != kind_of(ty))
		return false;
	switch (kind_of(tx)) {
	case KIND_PTR: case KIND_CONST: case KIND_VOLATILE:
	case KIND_RESTRICT: case KIND_TYPE_TAG:
		return same_type(b, (int)tx->size_or_type,
				 (int)ty->size_or_type, depth + 1);
	case KIND_ARRAY: {
		const struct raw_array *ax = (const void *)(tx + 1);
		const struct raw_array *ay = (const void *)(ty + 1);

		return ax->nelems == ay->nelems &&
		       same_type(b, (int)ax->type, (int)ay->type, depth + 1);
	}
	case KIND_FUNC_PROTO: {
		const struct raw_param *px = (const void *)(tx + 1);
		const struct raw_param *py = (const void *)(ty + 1);

		if (vlen_of(tx) != vlen_of(ty) ||
		    !same_type(b, (int)tx->size_or_type,
			       (int)ty->size_or_type, depth + 1))
			return false;
		for (unsigned i = 0; i < vlen_of(tx); i++)
			if (!same_type(b, (int)px[i].type, (int)py[i].type,
				       depth + 1))
				return false;
		return true;
	}
	default:	/* named types: same name space and name */
		return *type_name_str(b, tx) &&
		       name_space_of(tx) == name_space_of(ty) &&
		       strcmp(type_name_str(b, tx), type_name_str(b, ty)) == 0;
	}
}

/* The prototype RET (PARAMS): BTF's, else a new one. */
static int find_proto(struct btf *b, int ret, const int *params, int n)
{
	struct raw_type *t;
	struct raw_param *p;

	for (int id = 1; id < b->n_types; id++) {
		const struct raw_type *c = b->types[id];
		const struct raw_param *cp = (const void *)(c + 1);
		int i;

		if (kind_of(c) != KIND_FUNC_PROTO || vlen_of(c) != (unsigned)n ||
		    !same_type(b, (int)c->size_or_type, ret, 0))
			continue;
		for (i = 0; i < n; i++)
			if (!same_type(b, (int)cp[i].type, params[i], 0))
				break;
		if (i == n)
			return id;
	}
	t = xmalloc(sizeof(*t) + (size_t)n * sizeof(*p));
	p = (void *)(t + 1);
	t->name_off = 0;
	t->info = make_info(KIND_FUNC_PROTO, (unsigned)n, false);
	t->size_or_type = (uint32_t)ret;
	for (int i = 0; i < n; i++) {
		p[i].name_off = 0;
		p[i].type = (uint32_t)params[i];
	}
	return add_type(b, t);
}

struct type_parser {
	struct btf *b;
	int scope;		/* whose names: btf_find_type_in() */
	const char *p;		/* next character */
	const char *tok;	/* the current token */
	size_t len;		/* its length; 0 at the end */
};

static void next_token(struct type_parser *ps)
{
	const char *p = ps->p;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	ps->tok = p;
	if (!*p) {
		ps->len = 0;
	} else if (*p == '_' || (*p >= 'a' && *p <= 'z') ||
		   (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) {
		while (*p == '_' || (*p >= 'a' && *p <= 'z') ||
		       (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))
			p++;
		ps->len = (size_t)(p - ps->tok);
	} else if (strncmp(p, "...", 3) == 0) {
		ps->len = 3;
	} else {
		ps->len = 1;
	}
	ps->p = ps->tok + ps->len;
}

static bool tok_is(const struct type_parser *ps, const char *s)
{
	return ps->len == strlen(s) && strncmp(ps->tok, s, ps->len) == 0;
}

static bool tok_is_word(const struct type_parser *ps)
{
	return ps->len && (*ps->tok == '_' || (*ps->tok >= 'a' &&
		*ps->tok <= 'z') || (*ps->tok >= 'A' && *ps->tok <= 'Z'));
}

static bool tok_is_qualifier(const struct type_parser *ps)
{
	return tok_is(ps, "const") || tok_is(ps, "volatile") ||
	       tok_is(ps, "restrict") || tok_is(ps, "__restrict") ||
	       tok_is(ps, "__restrict__");
}

/* const and volatile are derived types; restrict is dropped (a
 * parameter's restrict is no part of the type SystemTap shows). */
static int qualify(struct btf *b, const struct type_parser *ps, int id)
{
	if (tok_is(ps, "const"))
		return derive(b, KIND_CONST, id, 0);
	if (tok_is(ps, "volatile"))
		return derive(b, KIND_VOLATILE, id, 0);
	return id;
}

static int parse_type(struct type_parser *ps);

/* Declaration specifiers: the base type, with leading qualifiers. */
static int parse_specifiers(struct type_parser *ps)
{
	struct btf *b = ps->b;
	int n_unsigned = 0, n_signed = 0, n_short = 0, n_long = 0, n_int = 0;
	int n_char = 0, base = -1;
	bool is_const = false, is_volatile = false;
	char name[64];

	for (; tok_is_word(ps); next_token(ps)) {
		if (tok_is(ps, "const")) {
			is_const = true;
		} else if (tok_is(ps, "volatile")) {
			is_volatile = true;
		} else if (tok_is_qualifier(ps)) {
			/* restrict */
		} else if (tok_is(ps, "unsigned")) {
			n_unsigned++;
		} else if (tok_is(ps, "signed") || tok_is(ps, "__signed__")) {
			n_signed++;
		} else if (tok_is(ps, "short")) {
			n_short++;
		} else if (tok_is(ps, "long")) {
			n_long++;
		} else if (tok_is(ps, "int")) {
			n_int++;
		} else if (tok_is(ps, "char")) {
			n_char++;
		} else if (base >= 0) {
			break;		/* a declarator's name */
		} else if (tok_is(ps, "void")) {
			base = 0;
		} else if (tok_is(ps, "struct") || tok_is(ps, "union") ||
			   tok_is(ps, "enum")) {
			enum name_space ns = tok_is(ps, "struct") ? NS_STRUCT :
					     tok_is(ps, "union") ? NS_UNION :
					     NS_ENUM;

			next_token(ps);
			if (!tok_is_word(ps))
				return -1;
			base = lookup_name(b, ns, ps->tok, ps->len, ps->scope,
					   false);
			if (!base)
				return -1;
		} else if (n_unsigned || n_signed || n_short || n_long ||
			   n_int || n_char) {
			break;		/* "unsigned x" */
		} else {
			base = lookup_name(b, NS_ORDINARY, ps->tok, ps->len,
					   ps->scope, false);
			if (!base)
				return -1;
		}
	}
	if (n_unsigned || n_signed || n_short || n_long || n_int || n_char) {
		const char *sign = n_unsigned ? " unsigned" : "";

		if (base >= 0 || (n_unsigned && n_signed) || n_unsigned > 1 ||
		    n_signed > 1 || n_int > 1 || n_char > 1 || n_long > 2 ||
		    (n_char && (n_short || n_long || n_int)) ||
		    (n_short && (n_long || n_short > 1)))
			return -1;
		if (n_char)	/* gcc's names for the base types */
			snprintf(name, sizeof(name), "%schar",
				 n_unsigned ? "unsigned " :
				 n_signed ? "signed " : "");
		else if (n_short)
			snprintf(name, sizeof(name), "short%s int", sign);
		else if (n_long == 2)
			snprintf(name, sizeof(name), "long long%s int", sign);
		else if (n_long == 1)
			snprintf(name, sizeof(name), "long%s int", sign);
		else
			snprintf(name, sizeof(name), "%sint",
				 n_unsigned ? "unsigned " : "");
		base = lookup_name(b, NS_ORDINARY, name, strlen(name),
				   ps->scope, false);
		if (!base)
			return -1;
	}
	if (base < 0)
		return -1;
	if (is_volatile)
		base = derive(b, KIND_VOLATILE, base, 0);
	if (is_const)
		base = derive(b, KIND_CONST, base, 0);
	return base;
}

/* "(*) (PARAMS)" after the return type RET, at the "(". */
static int parse_function_pointer(struct type_parser *ps, int ret)
{
	int mods[16], n_mods = 0, params[256], n = 0, id;

	next_token(ps);
	while (tok_is(ps, "*") || tok_is_qualifier(ps)) {
		if (n_mods == 16)
			return -1;
		mods[n_mods++] = tok_is(ps, "*") ? 1 : tok_is(ps, "const") ?
				 2 : tok_is(ps, "volatile") ? 3 : 0;
		next_token(ps);
	}
	if (tok_is_word(ps))
		next_token(ps);		/* a name: "int (*fn)(int)" */
	if (!n_mods || mods[0] != 1 || !tok_is(ps, ")"))
		return -1;
	next_token(ps);
	if (!tok_is(ps, "("))
		return -1;
	next_token(ps);
	if (tok_is(ps, "void") && ps->p[strspn(ps->p, " ")] == ')') {
		next_token(ps);
	} else if (!tok_is(ps, ")")) {
		for (;;) {
			if (n == 256)
				return -1;
			if (tok_is(ps, "...")) {
				params[n++] = 0;
				next_token(ps);
			} else {
				params[n] = parse_type(ps);
				if (params[n++] <= 0)
					return -1;
			}
			if (!tok_is(ps, ","))
				break;
			next_token(ps);
		}
	}
	if (!tok_is(ps, ")"))
		return -1;
	next_token(ps);
	id = find_proto(ps->b, ret, params, n);
	for (int i = 0; i < n_mods; i++)
		id = mods[i] == 1 ? derive(ps->b, KIND_PTR, id, 0) :
		     mods[i] == 2 ? derive(ps->b, KIND_CONST, id, 0) :
		     mods[i] == 3 ? derive(ps->b, KIND_VOLATILE, id, 0) : id;
	return id;
}

/*
 * One type, up to a "," or ")" or the end: specifiers, then modifiers
 * left to right, each applying to everything before it ("char const*":
 * pointer to const char, SystemTap's order), a declarator name skipped,
 * consecutive array bounds in C's order (int[2][3]: two arrays of three),
 * and a function pointer's "(*) (PARAMS)". -1 when not understood.
 */
static int parse_type(struct type_parser *ps)
{
	int id = parse_specifiers(ps);

	while (id >= 0 && ps->len && !tok_is(ps, ",") && !tok_is(ps, ")")) {
		if (tok_is(ps, "*")) {
			id = derive(ps->b, KIND_PTR, id, 0);
			next_token(ps);
		} else if (tok_is_qualifier(ps)) {
			id = qualify(ps->b, ps, id);
			next_token(ps);
		} else if (tok_is(ps, "[")) {
			uint32_t dims[8];
			int nd = 0;

			while (tok_is(ps, "[")) {
				char *end;
				unsigned long v = 0;

				next_token(ps);
				if (!tok_is(ps, "]")) {
					v = strtoul(ps->tok, &end, 0);
					if (end != ps->tok + ps->len ||
					    v > UINT32_MAX)
						return -1;
					next_token(ps);
				}
				if (!tok_is(ps, "]") || nd == 8)
					return -1;
				dims[nd++] = (uint32_t)v;
				next_token(ps);
			}
			while (nd > 0)
				id = derive(ps->b, KIND_ARRAY, id, dims[--nd]);
		} else if (tok_is(ps, "(")) {
			id = parse_function_pointer(ps, id);
		} else if (tok_is_word(ps)) {
			next_token(ps);		/* a name */
		} else {
			return -1;
		}
	}
	return id;
}

int btf_find_type(struct btf *b, const char *c_type)
{
	return btf_find_type_in(b, c_type, 0);
}

int btf_find_type_in(struct btf *b, const char *c_type, int scope)
{
	struct type_parser ps = { .b = b, .p = c_type, .scope = scope };
	int id;

	next_token(&ps);
	id = parse_type(&ps);
	return id < 0 || ps.len ? 0 : id;
}
