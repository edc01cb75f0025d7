/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 3 on the BPF backend, inside bpf/: the emitter's state, shared by
 * emit.c (expressions), emit_stmt.c (statements, bodies, functions),
 * emit_program.c (the program's layout), emit_stat.c (statistics) and
 * emit_slice.c (array slices).
 */
#ifndef BPF_EMIT_H
#define BPF_EMIT_H

#include <stdio.h>

#include "bpf/bpf.h"
#include "semantic/semantic.h"

struct fmt {
	const struct node *print;	/* its N_PRINT (print_char: N_CALL) */
	char *fmt;			/* printf's format */
	size_t len;
	char types[16];			/* 'l' long, 's' string per argument */
};

struct emitter {
	struct session *s;
	struct program *prog;
	FILE *out;			/* the body being written */
	FILE *decls;			/* file-scope helpers (comparators) */
	FILE *decls_kernel;		/* the same in the kernel half (formats,
					 * foreach callbacks) */
	struct probe_body *body;
	int ntmp, maxtmp;		/* string temporaries of this body */
	int nuniq;			/* unique C names */
	struct fmt *fmts;
	int nfmts, fmts_cap;
	const char **errors;		/* run-time error messages, by id */
	const char **whats;		/* the same without "near ...": what
					 * a catch receives */
	int nerrors, errors_cap, whats_cap;
	bool kernel;			/* emitting the BPF half */
	const struct script_func *func;	/* the function being emitted */
	/* the user half's error handler where the statement is: the body's
	 * (stp_body_jb) or a try's; a loop's, for break and continue. In the
	 * kernel half the count of tries there (S->trying's value) */
	const char *catch_jb, *loop_jb;
	bool kernel_try;		/* a try in the kernel half: stp_kwhat */
	/* a kernel foreach's callback is being written (its depth), its
	 * body is the innermost loop (break: return 1), the enclosing
	 * code's long locals are in the scratch (S->v) */
	int callback_depth;
	bool loop_is_callback, scratch_locals;
	bool kernel_sort;		/* stp_scmp written */
	bool kernel_strings;		/* stp_k_strlen ... written */
	bool kernel_strcmp;		/* stp_g_strcmp written (emit.c) */
	bool regex_ready;		/* bpf_prelude_regex written */
	/* a kernel probe asks for a match's groups (bpf_kernel_groups) */
	bool kernel_groups, kernel_groups_known;
	int tmp_base;			/* the kernel's functions: their own
					 * scratch slots, after their callers' */
	/* the user half's foreach loops whose element a read of the array
	 * at the loop's keys takes (bpf_foreach_snapshot): the foreach
	 * and its element's C name number */
	const struct node *snap[8];
	int snap_u[8], nsnap;
};

void bpf_emit_expr(struct emitter *e, const struct node *n);
void bpf_emit_key(struct emitter *e, const struct symbol *sym,
		  const struct node *keys, char *name, size_t size);
int bpf_error_id(struct emitter *e, const char *what, const struct node *n);
int bpf_overflow_id(struct emitter *e, const struct node *array);
int bpf_local_slot(struct emitter *e, const struct symbol *sym);
int bpf_new_tmp(struct emitter *e);
const char *bpf_ctype(enum type t);
/* The entries array sym's map holds: its [N], else MAXMAPENTRIES. */
long long bpf_map_size(const struct session *s, const struct symbol *sym);

void bpf_emit_body(struct emitter *e, struct probe_body *b, FILE *out);
void bpf_func_signature(struct emitter *e, const struct script_func *f,
			FILE *out);
void bpf_emit_function(struct emitter *e, const struct script_func *f,
		       FILE *out);

int bpf_stat_nbuckets(const struct symbol *sym);
void bpf_stat_decls(FILE *out, const struct symbol *g);
void bpf_stat_kernel_reader(FILE *out, const struct symbol *g);
void bpf_kernel_clearer(FILE *out, const struct symbol *g);
void bpf_emit_stat_add(struct emitter *e, const struct node *lhs,
		       const struct node *rhs);
void bpf_emit_stat_read(struct emitter *e, const struct node *n);
void bpf_emit_hist_print(struct emitter *e, const struct node *h);
void bpf_emit_stat_dump(struct emitter *e, const struct symbol *arr, int u);
const char *bpf_stat_sort_field(enum stat_op op);
void bpf_emit_stat_clear(struct emitter *e, const struct symbol *sym);

/* A tapset function that is a macro of the prelude over its arguments
 * (tapset.c): a string's temporary tmp (or -1), the fault's error, then
 * the call's arguments. */
void bpf_emit_tapset_macro(struct emitter *e, const struct node *n,
			   const char *macro, int tmp);

bool bpf_emit_kernel_string_call(struct emitter *e, const struct node *n);
void bpf_emit_kernel_regex(struct emitter *e, const struct node *n);
bool bpf_kernel_groups(struct emitter *e);

bool bpf_wraps(const struct symbol *sym);
bool bpf_program_wraps(const struct program *prog);
void bpf_wrap_globals(FILE *out, const struct program *prog);
void bpf_wrap_kernel_decls(FILE *out, const struct session *s,
			   const struct program *prog);
void bpf_wrap_user_decls(FILE *out, const struct program *prog);
const char *bpf_update_macro(const struct symbol *sym);
const char *bpf_delete_macro(const struct symbol *sym);
void bpf_emit_kernel_sprint(struct emitter *e, const struct node *args,
			    const char *fmt, size_t len, int t);

bool bpf_has_wildcard(const struct node *keys);
void bpf_emit_slice_in(struct emitter *e, const struct symbol *arr,
		       const struct node *keys);
void bpf_emit_slice_delete(struct emitter *e, const struct symbol *arr,
			   const struct node *keys);
int bpf_kernel_slice_pattern(struct emitter *e, const struct symbol *arr,
			     const struct node *keys, int u);
void bpf_kernel_scmp(struct emitter *e);
bool bpf_snapshot_read(struct emitter *e, const struct node *n);
struct regex;
bool bpf_regex_compile(struct emitter *e, const struct node *n,
		       struct regex *re);
void bpf_emit_slice_filter(struct emitter *e, const struct symbol *arr,
			   const struct node *keys, int dump);

#endif /* BPF_EMIT_H */
