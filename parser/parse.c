// SPDX-License-Identifier: GPL-2.0-or-later
/* Pass 1 entry points; see parser.h. */
#include "parser/parse_internal.h"
#include "lib/deep.h"
#include "lib/intern.h"

#include <stdlib.h>
#include <string.h>

/* 'return' belongs to functions; SystemTap rejects it in probes in pass 1. */
static void check_no_return(struct session *s, const struct node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_RETURN:
		diag_error(s, n->loc, "'return' is only allowed in functions; "
			   "use 'next' to leave a probe");
		return;
	case N_BLOCK:
		ast_foreach(st, n->block.stmts)
			check_no_return(s, st);
		return;
	case N_IF:
		check_no_return(s, n->cond.then);
		check_no_return(s, n->cond.els);
		return;
	case N_WHILE:
	case N_FOR:
		check_no_return(s, n->loop.body);
		return;
	case N_FOREACH:
		check_no_return(s, n->foreach.body);
		return;
	case N_TRY:
		check_no_return(s, n->try.body);
		check_no_return(s, n->try.handler);
		return;
	default:
		return;
	}
}

/*
 * A histogram (@hist_log, @hist_linear) is no value. SystemTap's parser
 * takes one only indexed (@hist_log(s)[b]), after 'in' (b in
 * @hist_log(s), foreach), and as the one argument of print, println,
 * sprint or sprintln; this compiler also as @json_print's argument.
 */
static bool hist_place(struct session *s, const struct node *parent,
		       struct node **slot, const struct node *h)
{
	switch (parent->kind) {
	case N_TINDEX:
		return slot == &parent->target.base;
	case N_FOREACH:
		return slot == &parent->foreach.array;
	case N_IN:
		return slot == &parent->binary.rhs;
	case N_ATFUNC:
		return !strcmp(parent->call.name, "@json_print") &&
		       h == parent->call.args;
	case N_PRINT:
		if (h != parent->print.args ||
		    (parent->print.kind != PRINT_PRINT &&
		     parent->print.kind != PRINT_PRINTLN &&
		     parent->print.kind != PRINT_SPRINT &&
		     parent->print.kind != PRINT_SPRINTLN))
			return false;
		if (h->next)
			diag_error(s, h->next->loc, "expected ')': a histogram "
				   "is printed alone, the one argument of "
				   "print, println, sprint or sprintln");
		return true;
	default:
		return false;
	}
}

static void check_hist(struct node *n, void *arg)
{
	struct session *s = arg;
	struct node **slot[6];

	for (int i = 0, k = ast_child_slots(n, slot); i < k; i++)
		ast_foreach(c, *slot[i])
			if (c->kind == N_HIST && !hist_place(s, n, slot[i], c))
				diag_error(s, c->loc, "base histogram operator "
					   "where expression expected");
}

/* Checks SystemTap makes while parsing: duplicate globals in one file
 * (names interned: first[id] is the first declaration of name id). */
static void validate(struct session *s, struct node *decls)
{
	struct arena names = { 0 };
	struct intern seen = { .arena = &names };
	struct node **first = NULL;
	int nfirst = 0, first_cap = 0;

	ast_visit(decls, check_hist, s);
	ast_foreach(d, decls) {
		if (d->kind == N_PROBE)
			check_no_return(s, d->probe.body);
		if (d->kind != N_GLOBAL)
			continue;
		int id = intern_add(&seen, d->global.name,
				    strlen(d->global.name));
		if (id < nfirst) {
			diag_error(s, d->loc, "global '%s' is already "
				   "declared at line %d", d->global.name,
				   first[id]->loc.line);
			continue;
		}
		VEC_PUSH(first, nfirst, first_cap, d);
	}
	free(first);
	intern_free(&seen);
	arena_free(&names);
}

/*
 * A tree deeper than the walks' stack allows is refused here, once, so no
 * later pass has to check (ast.h, AST_MAX_DEPTH).
 */
static bool check_depth(struct session *s, const struct node *decls)
{
	const struct node *deep = ast_too_deep(decls, AST_MAX_DEPTH);

	if (!deep)
		return true;
	diag_error(s, deep->loc, "nesting too deep: more than %d levels of "
		   "expressions and statements", AST_MAX_DEPTH);
	return false;
}

struct parse_job {
	struct session *s;
	struct ast_file *af;
};

static void parse_deep(void *arg)
{
	struct parse_job *job = arg;
	struct session *s = job->s;
	const struct srcfile *f = session_file(s, job->af->file);
	struct parse_state st = {
		.s = s,
		.file = job->af->file,
		.privileged = f->privileged,
	};

	lex_parse(&st);
	if (!check_depth(s, st.decls))
		return;		/* af->decls stays empty */
	validate(s, st.decls);
	job->af->decls = st.decls;
}

struct ast_file *parse_source(struct session *s, int file)
{
	struct ast_file *af = arena_alloc(&s->arena, sizeof(*af));
	struct parse_job job = { s, af };

	af->file = file;
	deep_call(parse_deep, &job);
	return af;
}

struct ast_file *parse_string(struct session *s, const char *name,
			      const char *text, bool privileged)
{
	int file = session_add_source(s, name, text, strlen(text), privileged);

	return parse_source(s, file);
}

void parse_macro_file(struct session *s, int file)
{
	struct parse_state st = {
		.s = s,
		.file = file,
		.privileged = true,
		.macro_file = true,
	};

	lex_parse(&st);
}
