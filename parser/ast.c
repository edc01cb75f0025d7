// SPDX-License-Identifier: GPL-2.0-or-later
/* Node construction and names; see ast.h. */
#include "parser/ast.h"

static const char *const kind_names[] = {
#define X(kind, name) [kind] = name,
#include "parser/ast.def"
#undef X
};

static const char *const op_names[OP__COUNT] = {
	[OP_NONE] = "?", [OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*",
	[OP_DIV] = "/", [OP_MOD] = "%", [OP_SHL] = "<<", [OP_SHR] = ">>",
	[OP_LSHR] = ">>>", [OP_BAND] = "&", [OP_BOR] = "|", [OP_BXOR] = "^",
	[OP_AND] = "&&", [OP_OR] = "||", [OP_EQ] = "==", [OP_NE] = "!=",
	[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
	[OP_MATCH] = "=~", [OP_NMATCH] = "!~", [OP_CONCAT] = ".",
	[OP_NEG] = "-", [OP_PLUS] = "+", [OP_NOT] = "!", [OP_BNOT] = "~",
	[OP_ADDR] = "&", [OP_ASSIGN] = "=", [OP_AGG] = "<<<",
};

const char *ast_kind_name(enum node_kind kind)
{
	return kind < N__COUNT ? kind_names[kind] : "?";
}

const char *ast_op_name(enum op op)
{
	return op < OP__COUNT ? op_names[op] : "?";
}

const char *type_name(enum type t)
{
	switch (t) {
	case TY_LONG:
		return "long";
	case TY_STRING:
		return "string";
	case TY_STATS:
		return "stats";
	default:
		return "unknown";
	}
}

struct node *ast_new(struct session *s, enum node_kind kind, struct srcloc loc)
{
	struct node *n = arena_alloc(&s->arena, sizeof(*n));

	n->kind = kind;
	n->loc = loc;
	return n;
}

/*
 * The head of a list remembers its last node, so building a list of n
 * nodes is O(n) (the fuzzer found macro expansions that made it O(n^2)).
 * A stale or missing tail is found again by walking.
 */
static struct node *list_tail(struct node *head)
{
	struct node *t = head->tail ? head->tail : head;

	while (t->next)
		t = t->next;
	return t;
}

struct node *ast_append(struct node *a, struct node *b)
{
	if (!b)
		return a;
	if (!a) {
		b->tail = list_tail(b);
		return b;
	}
	list_tail(a)->next = b;
	a->tail = list_tail(b);
	return a;
}

int ast_list_length(const struct node *n)
{
	int len = 0;

	for (; n; n = n->next)
		len++;
	return len;
}
