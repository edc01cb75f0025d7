// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The preprocessor: a token filter between the flex scanner and the bison
 * parser (bison calls yylex() here, which pulls from lex_raw()).
 *
 *   %( COND %? TOKENS [%: TOKENS] %)   conditionals, nested; the untaken
 *                                      branch is only lexed
 *   @define NAME [(a, b)] %( BODY %)   macros, file-local; @NAME, @NAME(x, y)
 *   $N @N $# @#                        command-line arguments, pasted when
 *                                      the token is actually used
 *
 * COND is terms joined by && and || (&& binds tighter, no parentheses);
 * a term compares kernel_v, kernel_vr, arch, runtime, systemtap_v,
 * systemtap_privilege, guru_mode, CONFIG_*, strings or numbers.
 */
#define _GNU_SOURCE	/* strverscmp */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parse_internal.h"
#include "parser/grammar.h"
#include "target/target.h"

#define MAX_EXPANSIONS 10000
#define MAX_EXPANDED_TOKENS 200000	/* bounds recursive macros' output */

struct pp_token {
	int kind;
	YYSTYPE val;
	YYLTYPE loc;
};

struct token_list {
	struct pp_token *toks;
	int n, cap;
};

struct macro {
	const char *name;
	const char **params;
	int nparams;
	struct token_list body;
	YYLTYPE loc;
};

/* Macros of .stpm files, for every script of the session (arena memory). */
struct macro_table {
	struct macro *macros;
	int n, cap;
};

struct pp_state {
	struct token_list pending;	/* a stack: the next token is last */
	bool *cond_stack;		/* per open conditional: in its %? branch */
	int ncond, cond_cap;
	struct macro *macros;		/* this file's own */
	int nmacros, macros_cap;
	int expansions;
	long expanded_tokens;
	void *scanner;
};

int lex_raw(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);
struct parse_state *lex_state(void *scanner);
int lex_string_tokens(struct parse_state *st, const char *text,
		      void (*add)(void *ctx, int kind, YYSTYPE *val), void *ctx);

static void list_push(struct token_list *l, const struct pp_token *t)
{
	VEC_PUSH(l->toks, l->n, l->cap, *t);
}

static struct pp_state *pp_of(struct parse_state *st)
{
	if (!st->pp) {
		st->pp = xmalloc(sizeof(*st->pp));
		memset(st->pp, 0, sizeof(*st->pp));
	}
	return st->pp;
}

void pp_free(struct parse_state *st)
{
	struct pp_state *pp = st->pp;

	if (!pp)
		return;
	free(pp->pending.toks);
	free(pp->cond_stack);
	for (int i = 0; i < pp->nmacros; i++) {
		free(pp->macros[i].body.toks);
		free(pp->macros[i].params);
	}
	free(pp->macros);
	free(pp);
	st->pp = NULL;
}

static void pp_error(struct parse_state *st, YYLTYPE loc, const char *msg)
{
	diag_error(st->s, LOC_OF(st, loc), "%s", msg);
}

/* The next token: pushed-back ones first, then the scanner. */
static struct pp_token raw_next(struct parse_state *st)
{
	struct pp_state *pp = pp_of(st);
	struct pp_token t;

	if (pp->pending.n > 0)
		return pp->pending.toks[--pp->pending.n];
	memset(&t, 0, sizeof(t));
	t.kind = lex_raw(&t.val, &t.loc, pp->scanner);
	return t;
}

/* Push a sequence so that it comes out first, in order. */
static void push_front(struct parse_state *st, const struct pp_token *toks,
		       int n)
{
	struct pp_state *pp = pp_of(st);

	for (int i = n - 1; i >= 0; i--)
		list_push(&pp->pending, &toks[i]);
}

/* ---- command-line arguments ---------------------------------------- */

struct paste_ctx {
	struct token_list out;
	YYLTYPE loc;
};

static void paste_add(void *ctx, int kind, YYSTYPE *val)
{
	struct paste_ctx *pc = ctx;
	struct pp_token t = { .kind = kind, .val = *val, .loc = pc->loc };

	list_push(&pc->out, &t);
}

/* $N pastes the argument's tokens, @N a string, $# and @# the count. */
static void expand_arg(struct parse_state *st, struct pp_token *t)
{
	struct session *s = st->s;
	const char *ref = t->val.str;
	struct pp_token r = { .loc = t->loc };

	if (ref[1] == '#') {
		if (ref[0] == '@') {
			r.kind = STRING;
			r.val.str = arena_printf(&s->arena, "%d", s->nscript_args);
		} else {
			r.kind = NUMBER;
			r.val.num = s->nscript_args;
		}
		push_front(st, &r, 1);
		return;
	}
	long idx = strtol(ref + 1, NULL, 10);
	if (idx < 1 || idx > s->nscript_args) {
		char msg[128];
		snprintf(msg, sizeof(msg), "command line argument %s out of range "
			 "(%d given)", ref, s->nscript_args);
		pp_error(st, t->loc, msg);
		r.kind = ref[0] == '@' ? STRING : NUMBER;
		if (r.kind == STRING)
			r.val.str = "";
		push_front(st, &r, 1);
		return;
	}
	const char *arg = s->script_args[idx - 1];
	if (ref[0] == '@') {
		r.kind = STRING;
		r.val.str = arena_strdup(&s->arena, arg);
		push_front(st, &r, 1);
		return;
	}
	/* numbers directly (so -7 and 0x10 need no re-scan), else as tokens */
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 0);
	if (*arg && !*end && !errno) {
		r.kind = NUMBER;
		r.val.num = v;
		push_front(st, &r, 1);
		return;
	}
	struct paste_ctx pc = { .loc = t->loc };
	lex_string_tokens(st, arg, paste_add, &pc);
	for (int i = 0; i < pc.out.n; i++)
		if (pc.out.toks[i].kind == ARGREF) {
			pp_error(st, t->loc, "a command line argument cannot "
				 "refer to another one");
			pc.out.n = 0;
		}
	push_front(st, pc.out.toks, pc.out.n);
	free(pc.out.toks);
}

/* ---- conditions ------------------------------------------------------ */

static struct macro *find_macro(struct parse_state *st, const char *name);
static void expand_macro(struct parse_state *st, struct macro *m,
			 YYLTYPE use);

/* The next token of a condition, with arguments and macros expanded (as
 * in SystemTap: %( @_IS_SREG_KERNEL %? ... %) ). */
static struct pp_token cond_next(struct parse_state *st)
{
	for (;;) {
		struct pp_token t = raw_next(st);
		struct macro *m;

		if (t.kind == ARGREF) {
			expand_arg(st, &t);
			continue;
		}
		if (t.kind == AT_MACRO && (m = find_macro(st, t.val.str + 1))) {
			expand_macro(st, m, t.loc);
			continue;
		}
		return t;
	}
}

/* CONFIG_X of the target (its .config is read once, by the target): the
 * value without quotes, "" when unset or no target kernel is known. */
static const char *config_value(struct parse_state *st, const char *name)
{
	const char *v = st->s->target ? target_config(st->s->target, name) :
					NULL;
	size_t len = v ? strlen(v) : 0;

	if (!v)
		return "";
	if (len >= 2 && v[0] == '"' && v[len - 1] == '"')
		return arena_strndup(&st->s->arena, v + 1, len - 2);
	return v;
}

/* "6.1.0-56-cloud-amd64" -> "6.1.0" */
static const char *kernel_version(struct parse_state *st)
{
	const char *r = st->s->release ? st->s->release : "";

	return arena_strndup(&st->s->arena, r, strcspn(r, "-"));
}

enum operand_kind { OPK_STRING, OPK_NUMBER, OPK_VERSION, OPK_BAD };

struct operand {
	enum operand_kind kind;
	const char *str;
	int64_t num;
	const char *word;	/* arch, runtime, guru_mode ... or NULL */
	bool literal;		/* a string or number literal (or $#, @1 ...) */
	bool config;		/* a CONFIG_* value */
};

static struct operand cond_operand(struct parse_state *st, struct pp_token t,
				   bool *ok)
{
	struct operand o = { .kind = OPK_BAD };

	if (t.kind == STRING) {
		o.kind = OPK_STRING;
		o.str = t.val.str;
		o.literal = true;
	} else if (t.kind == NUMBER) {
		o.kind = OPK_NUMBER;
		o.num = t.val.num;
		o.literal = true;
	} else if (t.kind == '-') {
		struct pp_token n = cond_next(st);
		if (n.kind == NUMBER) {
			o.kind = OPK_NUMBER;
			o.num = (int64_t)(0 - (uint64_t)n.val.num);
			o.literal = true;
		}
	} else if (t.kind == IDENT) {
		const char *w = t.val.str;
		o.kind = OPK_STRING;
		o.word = w;
		o.config = !strncmp(w, "CONFIG_", 7);
		if (!strcmp(w, "kernel_v")) {
			o.kind = OPK_VERSION;
			o.str = kernel_version(st);
		} else if (!strcmp(w, "kernel_vr")) {
			o.kind = OPK_VERSION;
			o.str = st->s->release ? st->s->release : "";
		} else if (!strcmp(w, "systemtap_v")) {
			o.kind = OPK_VERSION;
			o.str = st->s->compatible;
		} else if (!strcmp(w, "arch")) {
			o.str = "x86_64";
		} else if (!strcmp(w, "runtime")) {
			o.str = st->s->runtime ? st->s->runtime : "kernel";
		} else if (!strcmp(w, "systemtap_privilege")) {
			o.str = "stapdev";
		} else if (!strcmp(w, "guru_mode")) {
			o.kind = OPK_NUMBER;
			o.num = st->s->guru;
		} else if (!strncmp(w, "CONFIG_", 7)) {
			o.str = config_value(st, w);
			/* numeric options compare as numbers with a number */
		} else {
			o.kind = OPK_BAD;
		}
	}
	if (o.kind == OPK_BAD) {
		pp_error(st, t.loc, "expected kernel_v, kernel_vr, arch, runtime, "
			 "systemtap_v, systemtap_privilege, guru_mode, CONFIG_*, "
			 "a string or a number in the conditional");
		*ok = false;
	}
	return o;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* One "left OP right" term. */
static bool cond_term(struct parse_state *st, struct pp_token first, bool *ok)
{
	struct operand l = cond_operand(st, first, ok);
	if (!*ok)
		return false;
	struct pp_token op = cond_next(st);
	if (op.kind != EQ && op.kind != NE && op.kind != '<' && op.kind != '>' &&
	    op.kind != LE && op.kind != GE) {
		pp_error(st, op.loc, "expected a comparison operator in the "
			 "conditional");
		*ok = false;
		return false;
	}
	struct operand r = cond_operand(st, cond_next(st), ok);
	if (!*ok)
		return false;
	const char *bad = NULL;
	bool eq_only = op.kind == EQ || op.kind == NE;
	if (l.word && (!strcmp(l.word, "arch") || !strcmp(l.word, "runtime") ||
		       !strcmp(l.word, "systemtap_privilege") ||
		       !strcmp(l.word, "guru_mode")) && !eq_only)
		bad = "only '==' and '!=' compare arch, runtime, "
		      "systemtap_privilege and guru_mode";
	else if (l.word && !strcmp(l.word, "guru_mode") &&
		 (r.kind != OPK_NUMBER || (r.num != 0 && r.num != 1)))
		bad = "guru_mode compares with 0 or 1";
	else if (l.literal && r.literal && l.kind != r.kind)
		bad = l.kind == OPK_NUMBER ? "expected a number as the right "
		      "value of the comparison" : "expected a string as the "
		      "right value of the comparison";
	else if (!l.config && !r.config && r.word && strcmp(r.word, "guru_mode"))
		bad = "the right value of the comparison must be a literal";
	else if ((l.kind == OPK_VERSION || (l.word && !l.config)) &&
		 r.kind == OPK_NUMBER && strcmp(l.word ? l.word : "", "guru_mode"))
		bad = "expected a string as the right value of the comparison";
	if (bad) {
		pp_error(st, op.loc, bad);
		*ok = false;
		return false;
	}

	int cmp;
	if (l.kind == OPK_NUMBER || r.kind == OPK_NUMBER) {
		/* a CONFIG_ value against a number compares numerically */
		int64_t a = l.kind == OPK_NUMBER ? l.num : strtoll(l.str, NULL, 0);
		int64_t b = r.kind == OPK_NUMBER ? r.num : strtoll(r.str, NULL, 0);
		if ((l.kind != OPK_NUMBER && l.kind != OPK_STRING) ||
		    (r.kind != OPK_NUMBER && r.kind != OPK_STRING)) {
			pp_error(st, op.loc, "cannot compare a version with a number");
			*ok = false;
			return false;
		}
		cmp = a < b ? -1 : a > b;
	} else if ((op.kind == EQ || op.kind == NE) && has_glob(r.str)) {
		cmp = fnmatch(r.str, l.str, 0) == 0 ? 0 : 1;
	} else if (l.kind == OPK_VERSION || r.kind == OPK_VERSION) {
		cmp = strverscmp(l.str, r.str);
	} else {
		cmp = strcmp(l.str, r.str);
	}
	switch (op.kind) {
	case EQ: return cmp == 0;
	case NE: return cmp != 0;
	case '<': return cmp < 0;
	case '>': return cmp > 0;
	case LE: return cmp <= 0;
	default: return cmp >= 0;
	}
}

/* COND up to %?: an || of && groups. */
static bool cond_eval(struct parse_state *st, YYLTYPE open_loc, bool *ok)
{
	bool any = false, group = true;

	for (;;) {
		struct pp_token t = cond_next(st);
		if (t.kind == 0) {
			pp_error(st, open_loc, "incomplete conditional: missing '%?'");
			*ok = false;
			return false;
		}
		group = cond_term(st, t, ok) && group;
		if (!*ok)
			return false;
		struct pp_token j = cond_next(st);
		if (j.kind == ANDAND)
			continue;
		any = any || group;
		group = true;
		if (j.kind == OROR)
			continue;
		if (j.kind == PP_THEN)
			return any;
		pp_error(st, j.loc, "expected '%?' marker for conditional");
		*ok = false;
		return false;
	}
}

/*
 * Skip an untaken branch up to its %: (stop_at_else) or %). Returns the
 * token that ended it (PP_ELSE, PP_CLOSE, or 0 at end of input).
 */
static int skip_branch(struct parse_state *st, bool stop_at_else)
{
	int depth = 0;

	for (;;) {
		struct pp_token t = raw_next(st);
		switch (t.kind) {
		case 0:
			return 0;
		case PP_THEN:
			if (depth == 0)
				pp_error(st, t.loc, "invalid conditional: duplicate "
					 "'%?'");
			break;
		case PP_OPEN:
			depth++;
			break;
		case PP_CLOSE:
			if (depth == 0)
				return PP_CLOSE;
			depth--;
			break;
		case PP_ELSE:
			if (depth == 0 && stop_at_else)
				return PP_ELSE;
			break;
		default:
			break;
		}
	}
}

static void cond_push(struct pp_state *pp, bool in_then)
{
	VEC_PUSH(pp->cond_stack, pp->ncond, pp->cond_cap, in_then);
}

static void conditional(struct parse_state *st, YYLTYPE open_loc)
{
	struct pp_state *pp = pp_of(st);
	bool ok = true;
	bool taken = cond_eval(st, open_loc, &ok);

	if (!ok) {
		/* resynchronise: drop the rest of the conditional, markers and all */
		for (int depth = 0;;) {
			int kind = raw_next(st).kind;
			if (kind == 0 || (kind == PP_CLOSE && depth-- == 0))
				break;
			if (kind == PP_OPEN)
				depth++;
		}
		return;
	}
	if (taken) {
		cond_push(pp, true);
		return;
	}
	int end = skip_branch(st, true);
	if (end == PP_ELSE)
		cond_push(pp, false);
	else if (end == 0)
		pp_error(st, open_loc, "incomplete conditional: missing '%)'");
}

/* ---- macros ---------------------------------------------------------- */

/* A file's own macros first, then the library's. */
static struct macro *find_macro(struct parse_state *st, const char *name)
{
	struct pp_state *pp = pp_of(st);
	struct macro_table *lib = st->s->library_macros;

	for (int i = 0; i < pp->nmacros; i++)
		if (!strcmp(pp->macros[i].name, name))
			return &pp->macros[i];
	for (int i = 0; lib && i < lib->n; i++)
		if (!strcmp(lib->macros[i].name, name))
			return &lib->macros[i];
	return NULL;
}

/* Keep a macro of a .stpm file for the whole session. */
static void add_library_macro(struct parse_state *st, struct macro *m)
{
	struct arena *a = &st->s->arena;
	struct macro_table *lib = st->s->library_macros;

	if (!lib)
		lib = st->s->library_macros = arena_alloc(a, sizeof(*lib));
	for (int i = 0; i < lib->n; i++)
		if (!strcmp(lib->macros[i].name, m->name)) {
			diag_warning(st->s, LOC_OF(st, m->loc), "macro @%s is "
				     "defined by several macro files; the first "
				     "one is used", m->name);
			free(m->params);
			free(m->body.toks);
			return;
		}
	if (lib->n == lib->cap) {
		int cap = lib->cap ? lib->cap * 2 : 16;
		struct macro *grown = arena_alloc(a, (size_t)cap * sizeof(*grown));
		if (lib->n)	/* lib->macros is NULL at first */
			memcpy(grown, lib->macros,
			       (size_t)lib->n * sizeof(*grown));
		lib->macros = grown;
		lib->cap = cap;
	}
	struct macro copy = *m;
	for (int i = 0; i < m->body.n; i++)
		if (m->body.toks[i].loc.file < 0)
			m->body.toks[i].loc.file = st->file;
	copy.params = arena_alloc(a, (size_t)m->nparams * sizeof(*m->params) + 1);
	if (m->nparams)
		memcpy(copy.params, m->params,
		       (size_t)m->nparams * sizeof(*m->params));
	copy.body.toks = arena_alloc(a, (size_t)m->body.n * sizeof(*m->body.toks) + 1);
	if (m->body.n)
		memcpy(copy.body.toks, m->body.toks,
		       (size_t)m->body.n * sizeof(*m->body.toks));
	copy.body.cap = m->body.n;
	free(m->params);
	free(m->body.toks);
	lib->macros[lib->n++] = copy;
}

/* @define NAME [(a, b)] %( BODY %) */
static void define_macro(struct parse_state *st, YYLTYPE at)
{
	struct pp_state *pp = pp_of(st);
	struct pp_token name = raw_next(st);

	if (name.kind != IDENT) {
		pp_error(st, name.loc, "expected a macro name after @define");
		return;
	}
	if (!strcmp(name.val.str, "define")) {
		pp_error(st, name.loc, "cannot redefine @define");
		return;
	}
	struct macro m = { .name = name.val.str, .loc = at };
	static const char *const builtins[] = {
		"cast", "defined", "entry", "var", "perf", "probewrite", "const",
		"kregister", "uregister", "kderef", "uderef", "count", "sum",
		"min", "max", "avg", "variance", "hist_linear", "hist_log",
	};
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(m.name, builtins[i]))
			diag_warning(st->s, LOC_OF(st, name.loc), "macro @%s hides "
				     "the built-in @%s", m.name, m.name);
	if (find_macro(st, m.name) && !st->macro_file) {
		char msg[256];
		snprintf(msg, sizeof(msg), "macro @%s is already defined", m.name);
		pp_error(st, name.loc, msg);
	}
	struct pp_token t = raw_next(st);
	if (t.kind == '(') {
		for (;;) {
			struct pp_token p = raw_next(st);
			if (p.kind == ')' && m.nparams == 0)
				break;
			if (p.kind != IDENT) {
				pp_error(st, p.loc, "expected a macro parameter name");
				free(m.params);
				return;
			}
			m.params = xrealloc(m.params, (size_t)(m.nparams + 1) *
					    sizeof(*m.params));
			m.params[m.nparams++] = p.val.str;
			struct pp_token sep = raw_next(st);
			if (sep.kind == ')')
				break;
			if (sep.kind != ',') {
				pp_error(st, sep.loc, "expected ',' or ')' in the "
					 "macro parameters");
				free(m.params);
				return;
			}
		}
		t = raw_next(st);
	}
	if (t.kind != PP_OPEN) {
		pp_error(st, t.loc, "expected '%(' to start the macro body");
		free(m.params);
		return;
	}
	int depth = 0;
	for (;;) {
		struct pp_token b = raw_next(st);
		if (b.kind == 0) {
			pp_error(st, at, "incomplete macro definition: missing '%)'");
			free(m.params);
			free(m.body.toks);
			return;
		}
		if (b.kind == PP_OPEN)
			depth++;
		if (b.kind == PP_CLOSE && depth-- == 0)
			break;
		if (b.kind == AT_FUNC && !strcmp(b.val.str, "@define")) {
			pp_error(st, b.loc, "@define is not allowed inside a macro body");
			continue;
		}
		list_push(&m.body, &b);
	}
	if (st->macro_file) {
		add_library_macro(st, &m);
		return;
	}
	VEC_PUSH(pp->macros, pp->nmacros, pp->macros_cap, m);
}

/* The name (without '@') of a built-in statistic operator token. */
static const char *builtin_at_name(const struct pp_token *t)
{
	static const char *const stat_names[] = {
		[STAT_COUNT] = "count", [STAT_SUM] = "sum", [STAT_MIN] = "min",
		[STAT_MAX] = "max", [STAT_AVG] = "avg",
		[STAT_VARIANCE] = "variance",
	};

	if (t->kind == AT_HIST_LINEAR)
		return "hist_linear";
	if (t->kind == AT_HIST_LOG)
		return "hist_log";
	if (t->val.op > 0 && t->val.op <= STAT_VARIANCE)
		return stat_names[t->val.op];
	return "";
}

/*
 * The name (without '@') of an '@' token of a macro body, or NULL: a
 * parameter may be named like a built-in operator (@var, @cast, @count,
 * @hist_log), as in SystemTap, where the parameter wins.
 */
static const char *body_at_name(const struct pp_token *t)
{
	switch (t->kind) {
	case AT_MACRO:
	case AT_FUNC:
		return t->val.str + 1;
	case AT_STAT:
	case AT_HIST_LINEAR:
	case AT_HIST_LOG:
		return builtin_at_name(t);
	default:
		return NULL;
	}
}

/* @NAME or @NAME(args): its body with the parameters replaced. */
static void expand_macro(struct parse_state *st, struct macro *m,
			 YYLTYPE use)
{
	struct pp_state *pp = pp_of(st);
	struct token_list *args = NULL;
	int nargs = 0;

	if (++pp->expansions > MAX_EXPANSIONS) {
		if (pp->expansions == MAX_EXPANSIONS + 1)
			pp_error(st, use, "too many macro expansions (recursive "
				 "macro?)");
		return;
	}
	if (m->nparams > 0) {
		struct pp_token t = raw_next(st);
		if (t.kind != '(') {
			char msg[256];
			snprintf(msg, sizeof(msg), "macro @%s takes %d argument%s",
				 m->name, m->nparams, m->nparams == 1 ? "" : "s");
			pp_error(st, use, msg);
			push_front(st, &t, 1);
			return;
		}
		args = xmalloc(sizeof(*args));
		memset(args, 0, sizeof(*args));
		nargs = 1;
		int depth = 0;
		for (;;) {
			struct pp_token a = raw_next(st);
			/* %( %? %: %) are plain tokens here, as in SystemTap:
			 * a conditional in an argument is evaluated after
			 * the expansion (and a ',' in it still splits) */
			if (a.kind == 0) {
				char msg[256];
				snprintf(msg, sizeof(msg), "incomplete invocation of "
					 "macro @%s: missing ')'", m->name);
				pp_error(st, use, msg);
				for (int i = 0; i < nargs; i++)
					free(args[i].toks);
				free(args);
				return;
			}
			if (a.kind == '(' || a.kind == '[' || a.kind == '{')
				depth++;
			if (a.kind == ')' || a.kind == ']' || a.kind == '}') {
				if (depth == 0 && a.kind == ')')
					break;
				depth--;
			}
			if (a.kind == ',' && depth == 0) {
				args = xrealloc(args, (size_t)(nargs + 1) * sizeof(*args));
				memset(&args[nargs], 0, sizeof(*args));
				nargs++;
				continue;
			}
			list_push(&args[nargs - 1], &a);
		}
		if (nargs != m->nparams) {
			char msg[256];
			snprintf(msg, sizeof(msg), "macro @%s takes %d argument%s, "
				 "got %d", m->name, m->nparams,
				 m->nparams == 1 ? "" : "s", nargs);
			pp_error(st, use, msg);
		}
	}
	/* the body's tokens keep their place in the definition, marked
	 * with this expansion, so errors can name both */
	struct session *s = st->s;
	VEC_GROW(s->expansions, s->nexpansions, s->expansions_cap);
	s->expansions[s->nexpansions].name = m->name;
	s->expansions[s->nexpansions].use = LOC_OF(st, use);
	int expansion = ++s->nexpansions;

	struct token_list out = { 0 };
	for (int i = 0; i < m->body.n; i++) {
		struct pp_token b = m->body.toks[i];
		const char *name = body_at_name(&b);
		int p = -1;
		if (name)
			for (int k = 0; k < m->nparams && k < nargs; k++)
				if (!strcmp(name, m->params[k]))
					p = k;
		if (p < 0) {
			b.loc.expansion = expansion;
			list_push(&out, &b);
			continue;
		}
		for (int k = 0; k < args[p].n; k++)
			list_push(&out, &args[p].toks[k]);
	}
	pp->expanded_tokens += out.n;
	if (pp->expanded_tokens > MAX_EXPANDED_TOKENS) {
		if (pp->expansions <= MAX_EXPANSIONS) {
			pp_error(st, use, "macro expansions produce too many tokens "
				 "(recursive macro?)");
			pp->expansions = MAX_EXPANSIONS + 1;	/* report once */
		}
	} else {
		push_front(st, out.toks, out.n);
	}
	free(out.toks);
	for (int i = 0; i < nargs; i++)
		free(args[i].toks);
	free(args);
}

/* ---- the filter ------------------------------------------------------ */

int yylex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);

int yylex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner)
{
	struct parse_state *st = lex_state(scanner);
	struct pp_state *pp = pp_of(st);

	pp->scanner = scanner;
	for (;;) {
		struct pp_token t = raw_next(st);
		switch (t.kind) {
		case PP_OPEN:
			conditional(st, t.loc);
			continue;
		case PP_ELSE:
			if (pp->ncond > 0 && pp->cond_stack[pp->ncond - 1]) {
				/* end of the taken %? branch: skip the %: one */
				if (skip_branch(st, false) == 0)
					pp_error(st, t.loc, "incomplete conditional");
				pp->ncond--;
				continue;
			}
			pp_error(st, t.loc, pp->ncond ? "invalid conditional: "
				 "duplicate '%:'" : "'%:' outside a conditional");
			continue;
		case PP_CLOSE:
			if (pp->ncond > 0) {
				pp->ncond--;
				continue;
			}
			pp_error(st, t.loc, "'%)' outside a conditional");
			continue;
		case PP_THEN:
			pp_error(st, t.loc, pp->ncond ? "invalid conditional: "
				 "duplicate '%?'" : "'%?' outside a conditional");
			continue;
		case ARGREF:
			expand_arg(st, &t);
			continue;
		case AT_FUNC:
			if (!strcmp(t.val.str, "@define")) {
				define_macro(st, t.loc);
				continue;
			}
			break;
		case AT_MACRO: {
			struct macro *m = find_macro(st, t.val.str + 1);
			if (m) {
				expand_macro(st, m, t.loc);
				continue;
			}
			break;
		}
		case AT_STAT:
		case AT_HIST_LINEAR:
		case AT_HIST_LOG: {
			/* a macro may shadow a built-in operator (@min) */
			struct macro *m = find_macro(st, builtin_at_name(&t));
			if (m) {
				expand_macro(st, m, t.loc);
				continue;
			}
			break;
		}
		case 0:
			if (pp->ncond > 0) {
				pp_error(st, t.loc, "incomplete conditional: "
					 "missing '%)'");
				pp->ncond = 0;
			}
			break;
		default:
			if (st->macro_file) {
				pp_error(st, t.loc, "a macro file (.stpm) may only "
					 "contain @define and conditionals");
				/* one error per file is enough */
				while (raw_next(st).kind != 0)
					;
				t.kind = 0;
			}
			break;
		}
		*lval = t.val;
		*lloc = t.loc;
		return t.kind;
	}
}
