/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CO-RE reads of the kernel's memory (core_read.c), and the target
 * kernel's BTF they are typed by (attach.c).
 */
#ifndef BPF_CORE_READ_H
#define BPF_CORE_READ_H

#include <stdbool.h>
#include <stdio.h>

struct btf;
struct ltype;
struct member_path;

/* The local types a program's chains declare, and the first reason a
 * chain could not be read. */
struct core {
	const struct btf *b;
	struct ltype *t;
	int nt, cap;
	int anon;
	char *err;		/* the first reason a chain cannot be read */
	/* > 0: the local types' names end in it (task_struct___stp7), each
	 * @cast's own in a body (CO-RE ignores what follows "___") */
	int tag;
};

/* The C spelling of a scalar of kernel type id ("__s32"); NULL for one
 * this backend does not read. */
const char *core_scalar_c(const struct btf *b, int id);
/* The cast that sign-extends a plain scalar slot of kernel type type. */
const char *core_cast_of(const struct btf *b, int type);
/* The C that sets S->c[k] from root, of kernel type type, through path:
 * a fault leaves the failing address in S->c[k] and bit k of S->fm set.
 * False (c->err set) when a step cannot be read on this backend. */
bool core_emit_chain(struct core *c, FILE *out, int k, const char *root,
		     int type, const struct member_path *path);
/* Every local type of c, each after those it embeds. */
void core_emit_types(struct core *c, FILE *out);
void core_free(struct core *c);

/* The target kernel's BTF, loaded once (NULL: none, *why says), and a
 * type id with its typedefs and qualifiers skipped (attach.c). */
struct btf *bpf_kernel_btf(const char **why);
int bpf_skip_mods(const struct btf *b, int id);

#endif /* BPF_CORE_READ_H */
