/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * BTF's record format and struct btf, shared by btf.c (loading vmlinux's
 * BTF, the questions of btf.h) and btf_module.c (adding a module's split
 * BTF); nothing else includes this.
 */
#ifndef TARGET_BTF_INTERNAL_H
#define TARGET_BTF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* The BTF format (include/uapi/linux/btf.h), our own spelling */

#define MAX_DEPTH 64		/* longest chain of type references walked */
#define POINTER_SIZE 8		/* x86-64 targets only */

enum btf_kind {
	KIND_UNKNOWN, KIND_INT, KIND_PTR, KIND_ARRAY, KIND_STRUCT, KIND_UNION,
	KIND_ENUM, KIND_FWD, KIND_TYPEDEF, KIND_VOLATILE, KIND_CONST,
	KIND_RESTRICT, KIND_FUNC, KIND_FUNC_PROTO, KIND_VAR, KIND_DATASEC,
	KIND_FLOAT, KIND_DECL_TAG, KIND_TYPE_TAG, KIND_ENUM64, KIND_COUNT
};

#define INT_SIGNED 1u		/* in the INT record's encoding bits */

struct raw_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off;	/* relative to the end of the header */
	uint32_t type_len;
	uint32_t str_off;
	uint32_t str_len;
};

struct raw_type {
	uint32_t name_off;
	uint32_t info;		/* vlen 0-15, kind 24-28, kind_flag 31 */
	uint32_t size_or_type;	/* size (INT, ENUM*, STRUCT, UNION, DATASEC,
				 * FLOAT) or a type id (the others) */
};

struct raw_array {
	uint32_t type;
	uint32_t index_type;
	uint32_t nelems;
};

struct raw_member {
	uint32_t name_off;
	uint32_t type;
	uint32_t offset;	/* kind_flag: bitfield size 24-31, offset
				 * 0-23; else the bit offset */
};

struct raw_param {
	uint32_t name_off;
	uint32_t type;		/* last param with type 0: "..." */
};

struct raw_secinfo {
	uint32_t type;
	uint32_t offset;
	uint32_t size;
};

static inline unsigned kind_of(const struct raw_type *t)
{
	return (t->info >> 24) & 0x1f;
}

static inline unsigned vlen_of(const struct raw_type *t)
{
	return t->info & 0xffff;
}

static inline bool kflag_of(const struct raw_type *t)
{
	return t->info >> 31;
}

static inline uint32_t make_info(unsigned kind, unsigned vlen, bool kflag)
{
	return (uint32_t)kind << 24 | vlen | (kflag ? 1u << 31 : 0);
}

/* Bytes of data after the record, by kind; -1 for a kind we do not know. */
static inline long extra_size(const struct raw_type *t)
{
	long v = vlen_of(t);

	switch (kind_of(t)) {
	case KIND_INT: case KIND_VAR: case KIND_DECL_TAG:
		return 4;
	case KIND_ARRAY:
		return (long)sizeof(struct raw_array);
	case KIND_STRUCT: case KIND_UNION:
		return v * (long)sizeof(struct raw_member);
	case KIND_ENUM: case KIND_FUNC_PROTO:
		return v * 8;
	case KIND_DATASEC: case KIND_ENUM64:
		return v * 12;
	case KIND_PTR: case KIND_FWD: case KIND_TYPEDEF: case KIND_VOLATILE:
	case KIND_CONST: case KIND_RESTRICT: case KIND_FUNC: case KIND_FLOAT:
	case KIND_TYPE_TAG:
		return 0;
	default:
		return -1;
	}
}

/* The name spaces of C: struct and union tags, enum tags, and ordinary
 * identifiers (typedefs and base types). */
enum name_space { NS_NONE, NS_STRUCT, NS_UNION, NS_ENUM, NS_ORDINARY };

static inline enum name_space name_space_of(const struct raw_type *t)
{
	switch (kind_of(t)) {
	case KIND_STRUCT:
		return NS_STRUCT;
	case KIND_UNION:
		return NS_UNION;
	case KIND_FWD:
		return kflag_of(t) ? NS_UNION : NS_STRUCT;
	case KIND_ENUM: case KIND_ENUM64:
		return NS_ENUM;
	case KIND_INT: case KIND_TYPEDEF: case KIND_FLOAT:
		return NS_ORDINARY;
	default:
		return NS_NONE;
	}
}

/* ------------------------------------------------------------------ */
/* struct btf */

struct btf {
	uint8_t *blob;		/* the raw BTF, header first (malloc'ed) */
	size_t blob_len;
	const char *strs;	/* string section, NUL-terminated at both
				 * ends */
	uint32_t strs_len;
	const struct raw_type **types;	/* by id; [0] NULL: void */
	int n_types;		/* BTF's, added ones and modules' */
	int n_btf;		/* ids below this are vmlinux's BTF's */
	int cap_types;
	uint32_t *names;	/* hash: named type ids, 0 empty; one entry
				 * per (scope, name space, name) */
	uint32_t names_mask;
	uint32_t n_names;	/* entries in names */
	uint32_t *derived;	/* hash: anonymous derived type ids */
	uint32_t derived_mask;
	uint32_t n_derived;
	int first_added;	/* id of the first added type; the ids from
				 * there on are added types except the
				 * modules' ranges */
	char *source;		/* btf_source() */
	struct btf_module *mods;	/* the modules added, scope K at
					 * mods[K - 1] */
	int n_mods;
};

/*
 * A module's split BTF, added by btf_add_module(): its records stay in its
 * blob, renumbered in place to ids [first, end) of the struct btf, their
 * string offsets made offsets into one string space: vmlinux's strings,
 * then each module's in turn (str_base).
 */
struct btf_module {
	char *name;		/* "watchdog" */
	uint8_t *blob;		/* malloc'ed */
	int first, end;		/* its type ids */
	const char *strs;	/* its string section */
	uint32_t str_base, strs_len;	/* its strings' offsets in the
					 * string space */
};

/* Type id id's scope: 0 for vmlinux's types and added ones, K for the
 * types of module K (b->mods[K - 1]). */
int btf_scope_of(const struct btf *b, int id);

/* Index type id (its name, or as a derived type). */
void btf_index_type(struct btf *b, int id);

/* Room in the name index for extra more named types. */
void btf_names_reserve(struct btf *b, uint32_t extra);

#endif /* TARGET_BTF_INTERNAL_H */
