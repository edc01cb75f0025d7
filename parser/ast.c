// SPDX-License-Identifier: GPL-2.0-or-later
/* Node construction and names; see ast.h. */
#include "parser/ast.h"
#include "lib/arena.h"

#include <stdlib.h>

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

/*
 * The child slots of a node: each is a list head (or a single node).
 * One table serves ast_clone and ast_visit, so a new payload field is
 * added in one place.
 */
int ast_child_slots(struct node *n, struct node **slot[6])
{
	int k = 0;

	switch (n->kind) {
	case N_PROBE:
		slot[k++] = &n->probe.points;
		slot[k++] = &n->probe.body;
		slot[k++] = &n->probe.epilogue;
		slot[k++] = &n->probe.alias_names;
		break;
	case N_PROBE_POINT:
		slot[k++] = &n->point.comps;
		slot[k++] = &n->point.cond;
		break;
	case N_COMPONENT:
		slot[k++] = &n->comp.arg;
		break;
	case N_GLOBAL:
		slot[k++] = &n->global.init;
		break;
	case N_FUNCTION:
		slot[k++] = &n->func.params;
		slot[k++] = &n->func.body;
		break;
	case N_BLOCK:
		slot[k++] = &n->block.stmts;
		break;
	case N_EXPR_STMT:
	case N_RETURN:
	case N_DELETE:
		slot[k++] = &n->stmt.expr;
		break;
	case N_IF:
	case N_TERNARY:
		slot[k++] = &n->cond.cond;
		slot[k++] = &n->cond.then;
		slot[k++] = &n->cond.els;
		break;
	case N_WHILE:
	case N_FOR:
		slot[k++] = &n->loop.init;
		slot[k++] = &n->loop.cond;
		slot[k++] = &n->loop.step;
		slot[k++] = &n->loop.body;
		break;
	case N_FOREACH:
		slot[k++] = &n->foreach.keys;
		slot[k++] = &n->foreach.value;
		slot[k++] = &n->foreach.array;
		slot[k++] = &n->foreach.slice;
		slot[k++] = &n->foreach.limit;
		slot[k++] = &n->foreach.body;
		break;
	case N_TRY:
		slot[k++] = &n->try.body;
		slot[k++] = &n->try.handler;
		break;
	case N_INDEX:
		slot[k++] = &n->index.array;
		slot[k++] = &n->index.keys;
		break;
	case N_CALL:
	case N_ATFUNC:
		slot[k++] = &n->call.args;
		break;
	case N_PRINT:
		slot[k++] = &n->print.args;
		break;
	case N_BINARY:
	case N_ASSIGN:
	case N_IN:
		slot[k++] = &n->binary.lhs;
		slot[k++] = &n->binary.rhs;
		break;
	case N_UNARY:
		slot[k++] = &n->unary.operand;
		break;
	case N_INCDEC:
		slot[k++] = &n->incdec.operand;
		break;
	case N_STAT:
	case N_HIST:
		slot[k++] = &n->stat.operand;
		slot[k++] = &n->stat.args;
		break;
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
		slot[k++] = &n->target.base;
		slot[k++] = &n->target.index;
		break;
	default:
		break;		/* leaves: numbers, strings, names, jumps */
	}
	return k;
}

struct node *ast_clone_node(struct session *s, const struct node *o)
{
	struct node *c = arena_alloc(&s->arena, sizeof(*c));
	struct node **slot[6];

	*c = *o;
	c->next = c->tail = NULL;
	c->type = TY_UNKNOWN;
	c->sym = NULL;
	for (int i = 0, k = ast_child_slots(c, slot); i < k; i++)
		*slot[i] = ast_clone(s, *slot[i]);
	return c;
}

struct node *ast_clone(struct session *s, const struct node *list)
{
	struct node *head = NULL, *last = NULL;

	for (const struct node *o = list; o; o = o->next) {
		struct node *c = ast_clone_node(s, o);

		if (last)
			last->next = c;
		else
			head = c;
		last = c;
	}
	if (head)
		head->tail = last;
	return head;
}

const struct node *ast_too_deep(const struct node *list, int max)
{
	/* the lists still to visit, with the depth of their nodes */
	struct pending {
		struct node *list;
		int depth;
	} *stack = NULL;
	int n = 0, cap = 0;
	const struct node *deep = NULL;

	VEC_PUSH(stack, n, cap, ((struct pending){ (struct node *)list, 1 }));
	while (n > 0 && !deep) {
		struct pending p = stack[--n];
		struct node **slot[6];
		int k;

		if (!p.list)
			continue;
		if (p.depth > max) {
			deep = p.list;
			break;
		}
		/* the rest of the list after this node's subtrees */
		VEC_PUSH(stack, n, cap, ((struct pending){ p.list->next, p.depth }));
		k = ast_child_slots(p.list, slot);
		while (k-- > 0)
			VEC_PUSH(stack, n, cap,
				 ((struct pending){ *slot[k], p.depth + 1 }));
	}
	free(stack);
	return deep;
}

void ast_visit(struct node *list, void (*fn)(struct node *n, void *arg),
	       void *arg)
{
	for (struct node *n = list; n; n = n->next) {
		struct node **slot[6];

		fn(n, arg);
		for (int i = 0, k = ast_child_slots(n, slot); i < k; i++)
			ast_visit(*slot[i], fn, arg);
	}
}
