/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The abstract syntax tree: one node struct with a kind (from ast.def) and
 * a union of small payloads. Lists are chained through `next`. Nodes live
 * in the session arena. The grammar only builds nodes (ast_new_*); the
 * semantic passes fill in `type` and `sym`.
 */
#ifndef PARSER_AST_H
#define PARSER_AST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "parser/session.h"

enum node_kind {
#define X(kind, name) kind,
#include "parser/ast.def"
#undef X
	N__COUNT
};

/* Operators of N_BINARY, N_UNARY, N_ASSIGN (OP_ASSIGN or a compound). */
enum op {
	OP_NONE,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
	OP_SHL, OP_SHR, OP_LSHR,
	OP_BAND, OP_BOR, OP_BXOR,
	OP_AND, OP_OR,			/* && || */
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_MATCH, OP_NMATCH,		/* =~ !~ */
	OP_CONCAT,			/* . */
	OP_NEG, OP_PLUS, OP_NOT, OP_BNOT, OP_ADDR,	/* unary - + ! ~ & */
	OP_ASSIGN,			/* = */
	OP_AGG,				/* <<< */
	OP__COUNT
};

/* Print family (N_PRINT). */
enum print_kind {
	PRINT_PRINT, PRINT_PRINTLN, PRINT_PRINTF, PRINT_PRINTD, PRINT_PRINTDLN,
	PRINT_SPRINT, PRINT_SPRINTLN, PRINT_SPRINTF, PRINT_SPRINTD,
	PRINT_SPRINTDLN,
};

/* Statistic extractors (N_STAT) and histograms (N_HIST). */
enum stat_op {
	STAT_NONE, STAT_COUNT, STAT_SUM, STAT_MIN, STAT_MAX, STAT_AVG,
	STAT_VARIANCE, HIST_LINEAR, HIST_LOG,
};

/* Script-level types, set by pass 2. */
enum type {
	TY_UNKNOWN, TY_LONG, TY_STRING, TY_STATS,
};

struct symbol;			/* semantic/ */

struct node {
	enum node_kind kind;
	struct srcloc loc;		/* the token that names this node */
	struct node *next;		/* sibling in a list */
	struct node *tail;		/* on a list's head: its last node (or NULL) */
	enum type type;			/* pass 2: the value's type */
	struct symbol *sym;		/* pass 2: N_VAR, N_INDEX, N_CALL, N_FUNCTION ... */
	union {
		struct {		/* N_PROBE */
			struct node *points;	/* N_PROBE_POINT list */
			struct node *body;	/* N_BLOCK */
			struct node *epilogue;	/* a = b { } , { epilogue } */
			char alias;		/* 0, '=' prologue, '+' epilogue alias */
			struct node *alias_names; /* N_PROBE_POINT list (aliases) */
			bool is_private;
		} probe;
		struct {		/* N_PROBE_POINT */
			struct node *comps;	/* N_COMPONENT list */
			bool optional;		/* ? */
			bool sufficient;	/* ! */
			struct node *cond;	/* if (cond) or NULL */
		} point;
		struct {		/* N_COMPONENT */
			const char *name;	/* may contain '*' */
			struct node *arg;	/* N_NUMBER/N_STRING or NULL */
		} comp;			/* (brace groups are expanded by the parser) */
		struct {		/* N_GLOBAL */
			const char *name;
			struct node *init;	/* literal or NULL */
			int64_t max_entries;	/* [N], 0 if absent */
			bool wrap;		/* % */
			bool is_private;
		} global;
		struct {		/* N_FUNCTION */
			const char *name;
			struct node *params;	/* N_PARAM list */
			struct node *body;	/* N_BLOCK or N_EMBEDDED */
			enum type decl_type;	/* :long / :string */
			int64_t priority;	/* :N after the signature */
			bool is_private;
		} func;
		struct {		/* N_PARAM */
			const char *name;
			enum type decl_type;
		} param;
		struct {		/* N_EMBEDDED */
			const char *code;	/* text between %{ and %} */
		} embedded;
		struct {		/* N_BLOCK */
			struct node *stmts;
		} block;
		struct {		/* N_EXPR_STMT, N_RETURN, N_DELETE */
			struct node *expr;	/* NULL for a bare return */
		} stmt;
		struct {		/* N_IF, N_TERNARY */
			struct node *cond, *then, *els;
		} cond;
		struct {		/* N_WHILE, N_FOR */
			struct node *init, *cond, *step, *body;
		} loop;
		struct {		/* N_FOREACH */
			struct node *keys;	/* N_VAR list */
			struct node *value;	/* N_VAR or NULL */
			struct node *array;	/* N_VAR (array) or N_HIST */
			struct node *slice;	/* [k, *] keys to match, or NULL */
			enum stat_op sort_agg;	/* a@sum+: sort stats by @sum */
			struct node *limit;	/* or NULL */
			struct node *body;
			int sort_column;	/* 0 none, -1 value, k for key k (1-based) */
			int sort_dir;		/* +1 ascending, -1 descending */
		} foreach;
		struct {		/* N_TRY */
			struct node *body;
			const char *catch_var;	/* or NULL */
			struct srcloc catch_loc;
			struct node *handler;
		} try;
		struct {		/* N_NUMBER */
			int64_t value;
			/* pass 2's address of a kernel variable (@var):
			 * value is its link-time address, where it is
			 * at run time is anchor's address (an exported
			 * symbol) plus value - anchor_link; else NULL */
			const char *anchor;
			uint64_t anchor_link;
		} num;
		struct {		/* N_STRING */
			const char *value;	/* decoded bytes, NUL-terminated */
			size_t len;
		} str;
		struct {		/* N_VAR */
			const char *name;
		} var;
		struct {		/* N_INDEX */
			struct node *array;	/* N_VAR */
			struct node *keys;	/* expressions or N_WILDCARD */
		} index;
		struct {		/* N_CALL, N_ATFUNC */
			const char *name;	/* function name; "@cast" etc. */
			struct node *args;
		} call;
		struct {		/* N_PRINT */
			enum print_kind kind;
			struct node *args;	/* format/delimiter first */
		} print;
		struct {		/* N_BINARY, N_ASSIGN, N_IN (lhs = keys list) */
			enum op op;
			struct node *lhs, *rhs;
		} binary;
		struct {		/* N_UNARY */
			enum op op;
			struct node *operand;
		} unary;
		struct {		/* N_INCDEC */
			bool increment;
			bool prefix;
			struct node *operand;
		} incdec;
		struct {		/* N_STAT, N_HIST */
			enum stat_op op;
			struct node *operand;
			struct node *args;	/* histogram parameters */
			bool json;	/* N_HIST printed as JSON buckets
					 * (@json_print's lowering) */
		} stat;
		struct {		/* N_TARGET, N_TMEMBER, N_TINDEX */
			const char *name;	/* $name, or member name */
			struct node *base;	/* N_TMEMBER/N_TINDEX: the object */
			struct node *index;	/* N_TINDEX */
		} target;
	};
};

const char *ast_kind_name(enum node_kind kind);
const char *ast_op_name(enum op op);
const char *type_name(enum type t);

struct node *ast_new(struct session *s, enum node_kind kind, struct srcloc loc);
/* Append b to list a; returns the head. */
struct node *ast_append(struct node *a, struct node *b);
int ast_list_length(const struct node *n);
/* A deep copy of a list (types and symbols cleared), in the arena. */
struct node *ast_clone(struct session *s, const struct node *list);
/* A deep copy of one node (its `next` is not followed). */
struct node *ast_clone_node(struct session *s, const struct node *n);
/*
 * The deepest tree the compiler accepts: its walks recurse once a level
 * (a chain a + b + c is as deep as it has terms), on a stack sized for
 * this (lib/deep.h). Pass 2 adds a few levels (alias bodies in a block,
 * an 'if' for a point's condition).
 */
#define AST_MAX_DEPTH 200000

/*
 * The first node (parents first, in source order) deeper than max
 * levels below the top of list, or NULL; iterative, so any depth can be
 * checked.
 */
const struct node *ast_too_deep(const struct node *list, int max);
/* @hist_log(s)[b], @hist_linear(s, ...)[b]: a histogram bucket's count. */
static inline bool ast_hist_index(const struct node *n)
{
	return n->kind == N_TINDEX && n->target.base->kind == N_HIST;
}

/* The child slots of n (each a list head, or one node); their number. */
int ast_child_slots(struct node *n, struct node **slot[6]);
/* Call fn on every node of a list and its subtrees, parents first. */
void ast_visit(struct node *list, void (*fn)(struct node *n, void *arg),
	       void *arg);

#define ast_foreach(n, list) for (struct node *n = (list); n; n = n->next)

/* A parsed file: its top-level declarations in source order. */
struct ast_file {
	int file;			/* srcfile id */
	struct node *decls;		/* probes, globals, functions, embedded */
};

/* Canonical re-parseable form (the -p1 output). */
void ast_unparse_file(FILE *out, const struct session *s,
		      const struct ast_file *f);
/* One expression, fully parenthesised (for messages and -p2). */
void ast_unparse_expr(FILE *out, const struct node *n);
/* A probe point as written: kernel.trace("x").return? */
void ast_unparse_point(FILE *out, const struct node *point);
/* Escape a string for a script literal. */
void ast_print_string(FILE *out, const char *s, size_t len);

#endif /* PARSER_AST_H */
