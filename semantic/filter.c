// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The leading filter of a probe body (filter.h): what the backends'
 * dispatches of syscall.* read.
 */
#include <string.h>

#include "semantic/filter.h"
#include "semantic/semantic.h"

const struct node *first_stmt(const struct node *n)
{
	while (n && (n->kind == N_BLOCK || n->kind == N_NULL_STMT)) {
		if (n->kind == N_NULL_STMT) {
			n = n->next;
			continue;
		}
		const struct node *inner = first_stmt(n->block.stmts);
		if (inner)
			return inner;
		n = n->next;
	}
	return n;
}

/*
 * `__sysc_compat()` or `!__sysc_compat()`: 1 (the task is in a 32-bit
 * system call) or 0 (it is not); -1 for anything else.
 */
static int compat_test(const struct node *n)
{
	bool not = n->kind == N_UNARY && n->unary.op == OP_NOT;

	if (not)
		n = n->unary.operand;
	if (n->kind != N_CALL || n->call.args ||
	    strcmp(n->call.name, "__sysc_compat"))
		return -1;
	return not ? 1 : 0;
}

bool probe_number_filter(const struct derived_probe *dp,
			 const struct symbol **arg, int64_t *value,
			 int *compat)
{
	const struct node *st = first_stmt(dp->body->probe->probe.body);
	const struct node *c, *then, *t, *num;

	if (!st || st->kind != N_IF || st->cond.els)
		return false;
	c = st->cond.cond;
	then = st->cond.then;
	if (then && then->kind == N_BLOCK && then->block.stmts &&
	    !then->block.stmts->next)
		then = then->block.stmts;
	*compat = -1;
	if (c->kind == N_BINARY && c->binary.op == OP_OR) {
		*compat = compat_test(c->binary.rhs);
		if (*compat < 0)
			return false;
		c = c->binary.lhs;
	}
	if (!then || then->kind != N_NEXT || c->kind != N_BINARY ||
	    c->binary.op != OP_NE)
		return false;
	t = c->binary.lhs->kind == N_NUMBER ? c->binary.rhs : c->binary.lhs;
	num = t == c->binary.lhs ? c->binary.rhs : c->binary.lhs;
	if ((t->kind != N_TARGET && t->kind != N_TMEMBER) ||
	    num->kind != N_NUMBER || !t->sym || t->sym->kind != SYM_CONTEXT)
		return false;
	*arg = t->sym;		/* $id, or a chain like $regs->orig_ax */
	*value = num->num.value;
	return true;
}
