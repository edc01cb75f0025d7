/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pass 1 grammar: SystemTap's language (SYSTEMTAP.md section 1).
 * Actions only build nodes; every check that needs more than the syntax
 * lives in semantic/. A syntax error skips to the next top-level keyword,
 * so one run reports several errors.
 *
 * SystemTap statements need no terminator, so after an expression a token
 * such as "-", "(" or "[" could continue it or start the next statement.
 * All 41 expected shift/reduce conflicts (%expect) are that choice, and
 * bison's shift (continue the expression) is what SystemTap does.
 */
%define api.pure full
%define api.location.type {struct yyltype}
%define parse.error custom
%locations
%param {void *scanner}
%parse-param {struct parse_state *st}
%expect 41

%code top {
#define _GNU_SOURCE	/* strverscmp */
}

%code requires {
#include "parser/parse_internal.h"

/* A rule's location is its first token's, with its file and expansion. */
#define YYLLOC_DEFAULT(cur, rhs, n)					\
	do {								\
		if (n) {						\
			(cur) = YYRHSLOC(rhs, 1);			\
			(cur).last_line = YYRHSLOC(rhs, n).last_line;	\
			(cur).last_column = YYRHSLOC(rhs, n).last_column; \
		} else {						\
			(cur) = YYRHSLOC(rhs, 0);			\
			(cur).first_line = (cur).last_line;		\
			(cur).first_column = (cur).last_column;		\
		}							\
	} while (0)
}

%union {
	struct node *node;
	const char *str;
	int64_t num;
	int op;
}

%code {
#include <string.h>

/*
 * The parser's stack grows (from malloc) with the nesting of the script:
 * about six symbols per else-if arm, two per parenthesis. Bison's default
 * (10,000) failed a 1,700-arm else-if chain; this allows 150,000 arms,
 * and still stops a script of nothing but '(' with an error (yyerror)
 * before the stack costs much memory (about 40 bytes a symbol).
 */
#define YYMAXDEPTH 1000000

int yylex(YYSTYPE *lval, YYLTYPE *lloc, void *scanner);
static void yyerror(YYLTYPE *loc, void *scanner, struct parse_state *st,
		    const char *msg);

#define L(yl) LOC_OF(st, yl)
#define NEW(kind, yl) ast_new(st->s, kind, L(yl))

static struct node *new_binary(struct parse_state *st, YYLTYPE yl, int op,
			       struct node *lhs, struct node *rhs)
{
	struct node *n = NEW(N_BINARY, yl);
	n->binary.op = op;
	n->binary.lhs = lhs;
	n->binary.rhs = rhs;
	return n;
}

static struct node *new_assign(struct parse_state *st, YYLTYPE yl, int op,
			       struct node *lhs, struct node *rhs)
{
	struct node *n = new_binary(st, yl, op, lhs, rhs);
	n->kind = N_ASSIGN;
	return n;
}

static struct node *new_unary(struct parse_state *st, YYLTYPE yl, int op,
			      struct node *e)
{
	struct node *n = NEW(N_UNARY, yl);
	n->unary.op = op;
	n->unary.operand = e;
	return n;
}

static struct node *new_incdec(struct parse_state *st, YYLTYPE yl, bool inc,
			       bool prefix, struct node *e)
{
	struct node *n = NEW(N_INCDEC, yl);
	n->incdec.increment = inc;
	n->incdec.prefix = prefix;
	n->incdec.operand = e;
	return n;
}

static struct node *new_stmt(struct parse_state *st, YYLTYPE yl,
			     enum node_kind kind, struct node *e)
{
	struct node *n = NEW(kind, yl);
	n->stmt.expr = e;
	return n;
}

static const struct {
	const char *name;
	enum print_kind kind;
} print_names[] = {
	{ "print", PRINT_PRINT }, { "println", PRINT_PRINTLN },
	{ "printf", PRINT_PRINTF }, { "printd", PRINT_PRINTD },
	{ "printdln", PRINT_PRINTDLN }, { "sprint", PRINT_SPRINT },
	{ "sprintln", PRINT_SPRINTLN }, { "sprintf", PRINT_SPRINTF },
	{ "sprintd", PRINT_SPRINTD }, { "sprintdln", PRINT_SPRINTDLN },
};

/* name(args): the print family gets its own node kind. */
static struct node *new_call(struct parse_state *st, YYLTYPE yl,
			     const char *name, struct node *args)
{
	for (size_t i = 0; i < sizeof(print_names) / sizeof(print_names[0]); i++)
		if (strcmp(name, print_names[i].name) == 0) {
			struct node *n = NEW(N_PRINT, yl);
			enum print_kind k = print_names[i].kind;
			n->print.kind = k;
			n->print.args = args;
			if (k == PRINT_PRINTD || k == PRINT_PRINTDLN ||
			    k == PRINT_SPRINTD || k == PRINT_SPRINTDLN) {
				if (!args || args->kind != N_STRING)
					diag_error(st->s, L(yl), "%s needs a string "
						   "literal delimiter first", name);
				else if (ast_list_length(args) < 3)
					diag_error(st->s, L(yl), "%s needs at least "
						   "two values after the delimiter",
						   name);
			}
			if ((k == PRINT_PRINTF || k == PRINT_SPRINTF) &&
			    (!args || args->kind != N_STRING))
				diag_error(st->s, L(yl), "the format of %s must "
					   "be a string literal", name);
			return n;
		}
	struct node *n = NEW(N_CALL, yl);
	n->call.name = name;
	n->call.args = args;
	return n;
}

static struct node *new_var(struct parse_state *st, YYLTYPE yl,
			    const char *name)
{
	struct node *n = NEW(N_VAR, yl);
	n->var.name = name;
	return n;
}

/* Is the language of --compatible VERSION older than version? */
static bool compat_before(struct parse_state *st, const char *version)
{
	return strverscmp(st->s->compatible, version) < 0;
}

/* $v, $v->f[2], @cast(...)->f: what -> and [] applied to before autocast. */
static bool is_target_chain(const struct node *n)
{
	while (n->kind == N_TMEMBER || n->kind == N_TINDEX)
		n = n->target.base;
	return n->kind == N_TARGET || (n->kind == N_ATFUNC &&
	       (!strcmp(n->call.name, "@cast") || !strcmp(n->call.name, "@var")));
}

/* Member access, indexing and $ on a plain value ("autocast") came in 2.6. */
static void check_autocast(struct parse_state *st, YYLTYPE yl,
			   const struct node *base)
{
	if (!is_target_chain(base) && compat_before(st, "2.6"))
		diag_error(st->s, L(yl), "this needs autocast, which "
			   "--compatible=%s does not have (2.6 or later)",
			   st->s->compatible);
}

static struct node *copy_node(struct parse_state *st, const struct node *n)
{
	struct node *c = ast_new(st->s, n->kind, n->loc);

	*c = *n;
	c->next = NULL;
	c->tail = NULL;
	return c;
}

/*
 * The component lists a brace-group point stands for: the cartesian product
 * of its groups' alternatives ({a,b}.{c,d} is a.c, a.d, b.c, b.d).
 * Returns a list of N_PROBE_POINT whose comps hold no groups. As in
 * SystemTap, an alternative of the last group keeps its own '?', '!' and
 * 'if' (kernel.{function("x")?,trace("y")}); one of an earlier group
 * cannot have them.
 */
static struct node *expand_comps(struct parse_state *st, struct node *comps)
{
	struct node *results = ast_new(st->s, N_PROBE_POINT, comps->loc);

	ast_foreach(c, comps) {
		struct node *next_results = NULL;
		struct node *alts;
		if (c->comp.name) {
			alts = ast_new(st->s, N_PROBE_POINT, c->loc);
			alts->point.comps = copy_node(st, c);
		} else {
			alts = c->comp.arg;	/* already expanded points */
			ast_foreach(a, alts) {
				if (!c->next || (!a->point.optional &&
						 !a->point.cond))
					continue;
				diag_error(st->s, a->loc, "'?', '!' or condition "
					   "must only be specified in suffix");
				break;
			}
		}
		ast_foreach(r, results) {
			ast_foreach(a, alts) {
				struct node *p = copy_node(st, r);
				struct node *list = NULL;
				ast_foreach(x, r->point.comps)
					list = ast_append(list, copy_node(st, x));
				ast_foreach(x, a->point.comps)
					list = ast_append(list, copy_node(st, x));
				p->point.comps = list;
				p->point.optional = a->point.optional;
				p->point.sufficient = a->point.sufficient;
				p->point.cond = a->point.cond;
				next_results = ast_append(next_results, p);
			}
		}
		results = next_results;
	}
	return results;
}

/*
 * The points of 'components [?|!] [if (cond)]': the suffix joins what the
 * last group's alternatives have, and may not repeat it (SystemTap's
 * "'?' or '!' respecified" at the '?', "condition respecified" at the ')').
 */
static struct node *new_points(struct parse_state *st, YYLTYPE yl,
			       struct node *comps, int flag, YYLTYPE flag_yl,
			       struct node *cond, YYLTYPE cond_yl)
{
	struct node *points = expand_comps(st, comps);
	bool flag_dup = false, cond_dup = false;

	ast_foreach(p, points) {
		p->loc = L(yl);
		if (flag && p->point.optional && !flag_dup) {
			diag_error(st->s, L(flag_yl),
				   "'?' or '!' respecified");
			flag_dup = true;
		}
		if (cond && p->point.cond && !cond_dup) {
			diag_error(st->s, L(cond_yl), "condition respecified");
			cond_dup = true;
		}
		if (flag) {
			p->point.optional = true;
			p->point.sufficient = flag == '!';
		}
		if (cond)
			p->point.cond = cond;
	}
	return points;
}

static void check_alias_name(struct parse_state *st, struct node *name)
{
	if (name->next)
		diag_error(st->s, name->next->loc, "braces are not allowed in a "
			   "probe alias name");
	if (name->point.optional || name->point.cond)
		diag_error(st->s, name->loc, "a probe alias name cannot be "
			   "optional or conditional");
}

/* s =~ "regex": the pattern is compiled at translation time. */
static struct node *new_regex(struct parse_state *st, YYLTYPE yl, int op,
			      struct node *lhs, struct node *rhs)
{
	if (rhs->kind != N_STRING)
		diag_error(st->s, rhs->loc, "the right side of '%s' must be a "
			   "string literal (a regular expression)",
			   op == OP_MATCH ? "=~" : "!~");
	return new_binary(st, yl, op, lhs, rhs);
}

/*
 * @const("NAME"): the value of a C constant (a macro or enumerator of the
 * headers the embedded C includes), as SystemTap 4.8 has it: embedded C
 * in an expression, so tapsets and guru mode only. The node becomes that
 * embedded expression.
 */
static struct node *new_const(struct parse_state *st, YYLTYPE yl,
			      struct node *n)
{
	struct node *arg = n->call.args;

	if (!st->privileged && !st->s->guru) {
		diag_error(st->s, L(yl), "using @const operator not permitted; "
			   "need stap -g");
		return n;
	}
	if (ast_list_length(arg) != 1 || arg->kind != N_STRING ||
	    !arg->str.value[0] || memchr(arg->str.value, '%', arg->str.len)) {
		diag_error(st->s, L(yl), "@const takes the name of a C "
			   "constant, a non-empty string literal");
		return n;
	}
	n->kind = N_EMBEDDED;
	n->embedded.code = arena_printf(&st->s->arena, "/* pure */ %s",
					arg->str.value);
	return n;
}

static struct node *new_atfunc(struct parse_state *st, YYLTYPE yl,
			       const char *name, struct node *args)
{
	struct node *n = NEW(N_ATFUNC, yl);

	n->call.name = name;
	n->call.args = args;
	if ((!strcmp(name, "@kregister") || !strcmp(name, "@uregister") ||
	     !strcmp(name, "@kderef") || !strcmp(name, "@uderef")) &&
	    !st->privileged && !st->s->guru)
		diag_error(st->s, L(yl), "%s is only allowed in guru mode "
			   "(stap -g)", name);
	if (!strcmp(name, "@perf") &&
	    (ast_list_length(args) != 1 || args->kind != N_STRING ||
	     !args->str.value[0]))
		diag_error(st->s, L(yl), "@perf takes the name of a counter, a "
			   "non-empty string literal");
	if (!strcmp(name, "@define"))
		diag_error(st->s, L(yl), "@define is only allowed at the start of "
			   "a macro definition");
	if (!strcmp(name, "@const"))
		return new_const(st, yl, n);
	return n;
}

/* Embedded C is only for tapsets and guru mode (-g). */
static void check_embedded(struct parse_state *st, YYLTYPE yl)
{
	if (!st->privileged && !st->s->guru)
		diag_error(st->s, L(yl), "embedded C code is only allowed in "
			   "tapsets and in guru mode (stap -g)");
}

static void add_decl(struct parse_state *st, struct node *n)
{
	st->decls = ast_append(st->decls, n);
}
}

%token <str> IDENT "identifier" TARGET "context variable" STRING "string"
%token <str> EMBEDDED "embedded C" AT_FUNC "@ operator" AT_MACRO "macro"
%token <str> ARGREF "command-line argument" PRETTY "'$'"
%token <num> NUMBER "number"
%token <op> AT_STAT "statistic operator"
%token AT_HIST_LINEAR "'@hist_linear'" AT_HIST_LOG "'@hist_log'"
%token PROBE "'probe'" GLOBAL "'global'" PRIVATE "'private'"
%token FUNCTION "'function'" IF "'if'" ELSE "'else'" FOR "'for'"
%token FOREACH "'foreach'" IN "'in'" LIMIT "'limit'" RETURN "'return'"
%token DELETE "'delete'" WHILE "'while'" BREAK "'break'"
%token CONTINUE "'continue'" NEXT "'next'" STRING_KW "'string'"
%token LONG_KW "'long'" TRY "'try'" CATCH "'catch'"
%token AGG "'<<<'" LSHR "'>>>'" SHL "'<<'" SHR "'>>'"
%token EQ "'=='" NE "'!='" LE "'<='" GE "'>='" MATCH "'=~'" NMATCH "'!~'"
%token ADD_ASSIGN "'+='" SUB_ASSIGN "'-='" MUL_ASSIGN "'*='"
%token DIV_ASSIGN "'/='" MOD_ASSIGN "'%='" AND_ASSIGN "'&='"
%token XOR_ASSIGN "'^='" OR_ASSIGN "'|='" CONCAT_ASSIGN "'.='"
%token SHL_ASSIGN "'<<='" SHR_ASSIGN "'>>='"
%token ANDAND "'&&'" OROR "'||'" INC "'++'" DEC "'--'" ARROW "'->'"
%token PP_OPEN "'%('" PP_THEN "'%?'" PP_ELSE "'%:'" PP_CLOSE "'%)'"

%type <node> alias_names decl probe_decl global_decl gdecl gdecl_list function_decl
%type <node> params param_list param points point components component
%type <node> literal block stmts stmt opt_expr expr args arg_list
%type <node> primary postfix_target keys key_list key foreach_keys fkey_list
%type <node> fkey opt_limit catch_part hist opt_slice foreach_base hist_num
%type <str> comp_name comp_piece kw_name member_name
%type <num> opt_fn_priority opt_size
%type <op> opt_type assign_op opt_sort opt_agg_sort opt_flag

%right '=' AGG ADD_ASSIGN SUB_ASSIGN MUL_ASSIGN DIV_ASSIGN MOD_ASSIGN AND_ASSIGN XOR_ASSIGN OR_ASSIGN CONCAT_ASSIGN SHL_ASSIGN SHR_ASSIGN
%right '?' ':'
%left OROR
%left ANDAND
%left '|'
%left '^'
%left '&'
%precedence IN
%left EQ NE '<' '>' LE GE MATCH NMATCH
%left SHL SHR LSHR
%left '.'
%left '+' '-'
%left '*' '/' '%'
%precedence UNARY '!' '~'
%precedence LOWER_THAN_ELSE
%precedence ELSE

%%

file:
	  %empty
	| file decl		{ if ($2) add_decl(st, $2); }
	| file error		/* skip to the next probe/global/function */
	;

decl:
	  probe_decl
	| global_decl
	| function_decl
	| PRIVATE global_decl		{ ast_foreach(g, $2) g->global.is_private = true; $$ = $2; }
	| PRIVATE gdecl_list opt_semi	{ ast_foreach(g, $2) g->global.is_private = true; $$ = $2; }
	| PRIVATE function_decl		{ $2->func.is_private = true; $$ = $2; }
	| PRIVATE probe_decl {
		if (!$2->probe.alias)
			diag_error(st->s, L(@1), "only a probe alias can be private");
		$2->probe.is_private = true;
		$$ = $2;
	}
	| EMBEDDED {
		check_embedded(st, @1);
		$$ = NEW(N_EMBEDDED, @1);
		$$->embedded.code = $1;
	}
	;

opt_semi: %empty | ';' ;

/* probe begin, timer.s(1) { ... }   probe a = b { }   probe a += b { } */
probe_decl:
	  PROBE points block {
		$$ = NEW(N_PROBE, @1);
		$$->probe.points = $2;
		$$->probe.body = $3;
	}
	| alias_names points block {
		/* probe a = b { } -- the alias body runs before the user's */
		$$ = NEW(N_PROBE, @1);
		$$->probe.alias = '=';
		$$->probe.alias_names = $1;
		$$->probe.points = $2;
		$$->probe.body = $3;
	}
	| alias_names points block ',' block {
		/* probe a = b { prologue } , { epilogue } */
		$$ = NEW(N_PROBE, @1);
		$$->probe.alias = '=';
		$$->probe.alias_names = $1;
		$$->probe.points = $2;
		$$->probe.body = $3;
		$$->probe.epilogue = $5;
	}
	| PROBE point ADD_ASSIGN points block {
		check_alias_name(st, $2);
		$$ = NEW(N_PROBE, @1);
		$$->probe.alias = '+';
		$$->probe.alias_names = $2;
		$$->probe.points = $4;
		$$->probe.body = $5;
	}
	;

/* probe a = b = ...: several names for one alias */
alias_names:
	  PROBE point '='		{ check_alias_name(st, $2); $$ = $2; }
	| alias_names point '='		{ check_alias_name(st, $2); $$ = ast_append($1, $2); }
	;

points:
	  point
	| points ',' point	{ $$ = ast_append($1, $3); }
	;

/* kernel.function("x").return ? if (cond) */
point:
	  components opt_flag {
		$$ = new_points(st, @1, $1, $2, @2, NULL, @2);
	}
	| components opt_flag IF '(' expr ')' {
		$$ = new_points(st, @1, $1, $2, @2, $5, @6);
	}
	;

opt_flag:
	  %empty			{ $$ = 0; }
	| '?'				{ $$ = '?'; }
	| '!'				{ $$ = '!'; }
	;

components:
	  component
	| components '.' component	{ $$ = ast_append($1, $3); }
	;

component:
	  comp_name {
		$$ = NEW(N_COMPONENT, @1);
		$$->comp.name = $1;
	}
	| comp_name '(' literal ')' {
		$$ = NEW(N_COMPONENT, @1);
		$$->comp.name = $1;
		$$->comp.arg = $3;
	}
	| '{' points '}' {
		/* {a,b}.c: a group of alternatives, expanded by new_points */
		$$ = NEW(N_COMPONENT, @1);
		$$->comp.arg = $2;
	}
	;

/* A component name glues identifiers, keywords and '*': sys**open */
comp_name:
	  comp_piece
	| comp_name comp_piece {
		if (@1.last_line != @2.first_line || @1.last_column != @2.first_column)
			diag_error(st->s, L(@2), "whitespace inside a probe point "
				   "component ('%s' and '%s')", $1, $2);
		$$ = arena_printf(&st->s->arena, "%s%s", $1, $2);
	}
	;

comp_piece:
	  IDENT
	| '*'		{ $$ = "*"; }
	| kw_name
	;

/* Keywords that may name a probe point component or a struct member. */
kw_name:
	  PROBE		{ $$ = "probe"; }
	| GLOBAL	{ $$ = "global"; }
	| FUNCTION	{ $$ = "function"; }
	| RETURN	{ $$ = "return"; }
	| DELETE	{ $$ = "delete"; }
	| IN		{ $$ = "in"; }
	| LIMIT		{ $$ = "limit"; }
	| NEXT		{ $$ = "next"; }
	| STRING_KW	{ $$ = "string"; }
	| LONG_KW	{ $$ = "long"; }
	| FOR		{ $$ = "for"; }
	| WHILE		{ $$ = "while"; }
	| BREAK		{ $$ = "break"; }
	| CONTINUE	{ $$ = "continue"; }
	;

/* $p->next: a member may be named like any keyword */
member_name:
	  IDENT
	| kw_name
	| IF		{ $$ = "if"; }
	| ELSE		{ $$ = "else"; }
	| FOREACH	{ $$ = "foreach"; }
	| TRY		{ $$ = "try"; }
	| CATCH		{ $$ = "catch"; }
	| PRIVATE	{ $$ = "private"; }
	;

literal:
	  NUMBER {
		$$ = NEW(N_NUMBER, @1);
		$$->num.value = $1;
	}
	| '-' NUMBER {
		$$ = NEW(N_NUMBER, @1);
		$$->num.value = (int64_t)(0 - (uint64_t)$2);
	}
	| STRING {
		$$ = NEW(N_STRING, @1);
		$$->str.value = $1;
		$$->str.len = strlen($1);
	}
	| literal STRING {
		/* adjacent literals concatenate */
		if (compat_before(st, "2.0"))
			diag_error(st->s, L(@2), "adjacent string literals are "
				   "joined only from --compatible=2.0 on");
		if ($1->kind != N_STRING) {
			diag_error(st->s, L(@2), "cannot concatenate a string to a number");
		} else {
			$1->str.value = arena_printf(&st->s->arena, "%s%s", $1->str.value, $2);
			$1->str.len = strlen($1->str.value);
		}
		$$ = $1;
	}
	;

/* global a, b[100], c%, d = 5 */
global_decl:
	  GLOBAL gdecl_list opt_semi	{ $$ = $2; }
	;

gdecl_list:
	  gdecl
	| gdecl_list ',' gdecl		{ $$ = ast_append($1, $3); }
	;

gdecl:
	  IDENT opt_size {
		$$ = NEW(N_GLOBAL, @1);
		$$->global.name = $1;
		$$->global.max_entries = $2;
	}
	| IDENT '%' opt_size {
		$$ = NEW(N_GLOBAL, @1);
		$$->global.name = $1;
		$$->global.wrap = true;
		$$->global.max_entries = $3;
	}
	| IDENT '=' literal {
		$$ = NEW(N_GLOBAL, @1);
		$$->global.name = $1;
		$$->global.init = $3;
	}
	;

opt_size:
	  %empty		{ $$ = 0; }
	| '[' NUMBER ']' {
		if ($2 < 1 || $2 > 2147483647)
			diag_error(st->s, L(@2), "array size must be between 1 and 2147483647");
		$$ = $2;
	}
	;

/* function name:long (a:long, b) { ... } */
function_decl:
	  FUNCTION IDENT opt_type '(' params ')' opt_fn_priority block {
		$$ = NEW(N_FUNCTION, @2);
		$$->func.name = $2;
		$$->func.decl_type = $3;
		$$->func.params = $5;
		$$->func.priority = $7;
		$$->func.body = $8;
	}
	| FUNCTION IDENT opt_type '(' params ')' opt_fn_priority EMBEDDED {
		check_embedded(st, @8);
		$$ = NEW(N_FUNCTION, @2);
		$$->func.name = $2;
		$$->func.decl_type = $3;
		$$->func.params = $5;
		$$->func.priority = $7;
		$$->func.body = NEW(N_EMBEDDED, @8);
		$$->func.body->embedded.code = $8;
	}
	;

opt_type:
	  %empty		{ $$ = TY_UNKNOWN; }
	| ':' LONG_KW		{ $$ = TY_LONG; }
	| ':' STRING_KW		{ $$ = TY_STRING; }
	;

opt_fn_priority:
	  %empty		{ $$ = 0; }
	| ':' NUMBER		{ $$ = $2; }
	;

params:
	  %empty		{ $$ = NULL; }
	| param_list
	;

param_list:
	  param
	| param_list ',' param {
		ast_foreach(p, $1)
			if (!strcmp(p->param.name, $3->param.name))
				diag_error(st->s, $3->loc, "duplicate parameter '%s'",
					   $3->param.name);
		$$ = ast_append($1, $3);
	}
	;

param:
	  IDENT opt_type {
		$$ = NEW(N_PARAM, @1);
		$$->param.name = $1;
		$$->param.decl_type = $2;
	}
	;

block:
	  '{' stmts '}' {
		$$ = NEW(N_BLOCK, @1);
		$$->block.stmts = $2;
	}
	;

stmts:
	  %empty		{ $$ = NULL; }
	| stmts stmt		{ $$ = ast_append($1, $2); }
	;

/* A ';' right after a statement is part of it, not an empty statement. */
stmt:
	  ';'			{ $$ = NEW(N_NULL_STMT, @1); }
	| block
	| expr opt_semi		{ $$ = new_stmt(st, @1, N_EXPR_STMT, $1); }
	| IF '(' expr ')' stmt %prec LOWER_THAN_ELSE {
		$$ = NEW(N_IF, @1);
		$$->cond.cond = $3;
		$$->cond.then = $5;
	}
	| IF '(' expr ')' stmt ELSE stmt {
		$$ = NEW(N_IF, @1);
		$$->cond.cond = $3;
		$$->cond.then = $5;
		$$->cond.els = $7;
	}
	| WHILE '(' expr ')' stmt {
		$$ = NEW(N_WHILE, @1);
		$$->loop.cond = $3;
		$$->loop.body = $5;
	}
	| FOR '(' opt_expr ';' opt_expr ';' opt_expr ')' stmt {
		$$ = NEW(N_FOR, @1);
		$$->loop.init = $3;
		$$->loop.cond = $5;
		$$->loop.step = $7;
		$$->loop.body = $9;
	}
	| FOREACH '(' foreach_keys IN foreach_base opt_slice opt_agg_sort opt_limit ')' stmt {
		$$ = $3;
		$$->loc = L(@1);
		$$->foreach.array = $5;
		$$->foreach.slice = $6;
		if ($7) {
			if ($$->foreach.sort_column)
				diag_error(st->s, L(@7), "only one sort marker is allowed in foreach");
			$$->foreach.sort_column = -1;
			$$->foreach.sort_dir = $7 > 0 ? 1 : -1;
			$$->foreach.sort_agg = $7 > 0 ? $7 - 1 : -$7 - 1;
		}
		$$->foreach.limit = $8;
		$$->foreach.body = $10;
	}
	| BREAK opt_semi	{ $$ = NEW(N_BREAK, @1); }
	| CONTINUE opt_semi	{ $$ = NEW(N_CONTINUE, @1); }
	| NEXT opt_semi		{ $$ = NEW(N_NEXT, @1); }
	| RETURN opt_semi	{ $$ = new_stmt(st, @1, N_RETURN, NULL); }
	| RETURN expr opt_semi	{ $$ = new_stmt(st, @1, N_RETURN, $2); }
	| DELETE expr opt_semi	{ $$ = new_stmt(st, @1, N_DELETE, $2); }
	| TRY block catch_part {
		$$ = $3;
		$$->loc = L(@1);
		$$->try.body = $2;
	}
	;

catch_part:
	  CATCH block {
		$$ = NEW(N_TRY, @1);
		$$->try.handler = $2;
	}
	| CATCH '(' IDENT ')' block {
		$$ = NEW(N_TRY, @1);
		$$->try.catch_var = $3;
		$$->try.catch_loc = L(@3);
		$$->try.handler = $5;
	}
	;

/* an array, or a histogram's buckets: foreach (b in @hist_log(s)) */
foreach_base:
	  IDENT			{ $$ = new_var(st, @1, $1); }
	| hist
	;

/* foreach ([a, b] in x)   foreach (v = [a, b] in x)   foreach (k in x+) */
foreach_keys:
	  fkey {
		$$ = NEW(N_FOREACH, @1);
		$$->foreach.keys = $1;
		if ($1->type) {
			$$->foreach.sort_column = 1;
			$$->foreach.sort_dir = $1->type;
		}
		$1->type = TY_UNKNOWN;
	}
	| '[' fkey_list ']' {
		$$ = NEW(N_FOREACH, @1);
		$$->foreach.keys = $2;
		int col = 1;
		ast_foreach(k, $2) {
			if (k->type) {
				if ($$->foreach.sort_column)
					diag_error(st->s, k->loc, "only one sort marker is allowed in foreach");
				$$->foreach.sort_column = col;
				$$->foreach.sort_dir = k->type;
			}
			k->type = TY_UNKNOWN;
			col++;
		}
	}
	| fkey '=' foreach_keys {
		$$ = $3;
		$$->foreach.value = $1;
		if ($1->type) {
			if ($$->foreach.sort_column)
				diag_error(st->s, $1->loc, "only one sort marker is allowed in foreach");
			$$->foreach.sort_column = -1;
			$$->foreach.sort_dir = $1->type;
		}
		$1->type = TY_UNKNOWN;
	}
	;

fkey_list:
	  fkey
	| fkey_list ',' fkey	{ $$ = ast_append($1, $3); }
	;

/* The sort marker is parked in `type` until foreach_keys reads it. */
fkey:
	  IDENT opt_sort {
		$$ = new_var(st, @1, $1);
		$$->type = $2;
	}
	;

opt_sort:
	  %empty		{ $$ = 0; }
	| '+'			{ $$ = 1; }
	| '-'			{ $$ = -1; }
	;

/* foreach (k in a[*, 2])  -- iterate only over matching keys */
opt_slice:
	  %empty		{ $$ = NULL; }
	| '[' keys ']'		{ $$ = $2; }
	;

/* a+  a-  a@sum+: +/-(1 + the statistic used for the order) */
opt_agg_sort:
	  %empty		{ $$ = 0; }
	| '+'			{ $$ = 1; }
	| '-'			{ $$ = -1; }
	| AT_STAT '+'		{ $$ = 1 + $1; }
	| AT_STAT '-'		{ $$ = -1 - $1; }
	;

opt_limit:
	  %empty		{ $$ = NULL; }
	| LIMIT expr		{ $$ = $2; }
	;

opt_expr:
	  %empty		{ $$ = NULL; }
	| expr
	;

assign_op:
	  '='			{ $$ = OP_ASSIGN; }
	| AGG			{ $$ = OP_AGG; }
	| ADD_ASSIGN		{ $$ = OP_ADD; }
	| SUB_ASSIGN		{ $$ = OP_SUB; }
	| MUL_ASSIGN		{ $$ = OP_MUL; }
	| DIV_ASSIGN		{ $$ = OP_DIV; }
	| MOD_ASSIGN		{ $$ = OP_MOD; }
	| AND_ASSIGN		{ $$ = OP_BAND; }
	| XOR_ASSIGN		{ $$ = OP_BXOR; }
	| OR_ASSIGN		{ $$ = OP_BOR; }
	| CONCAT_ASSIGN		{ $$ = OP_CONCAT; }
	| SHL_ASSIGN		{ $$ = OP_SHL; }
	| SHR_ASSIGN		{ $$ = OP_SHR; }
	;

expr:
	  expr assign_op expr %prec '='	{ $$ = new_assign(st, @2, $2, $1, $3); }
	| expr '?' expr ':' expr {
		$$ = NEW(N_TERNARY, @2);
		$$->cond.cond = $1;
		$$->cond.then = $3;
		$$->cond.els = $5;
	}
	| expr OROR expr	{ $$ = new_binary(st, @2, OP_OR, $1, $3); }
	| expr ANDAND expr	{ $$ = new_binary(st, @2, OP_AND, $1, $3); }
	| expr '|' expr		{ $$ = new_binary(st, @2, OP_BOR, $1, $3); }
	| expr '^' expr		{ $$ = new_binary(st, @2, OP_BXOR, $1, $3); }
	| expr '&' expr		{ $$ = new_binary(st, @2, OP_BAND, $1, $3); }
	| expr IN foreach_base {
		$$ = NEW(N_IN, @2);
		$$->binary.lhs = $1;
		$$->binary.rhs = $3;
	}
	| '[' keys ']' IN foreach_base {
		$$ = NEW(N_IN, @4);
		$$->binary.lhs = $2;
		$$->binary.rhs = $5;
	}
	| expr EQ expr		{ $$ = new_binary(st, @2, OP_EQ, $1, $3); }
	| expr NE expr		{ $$ = new_binary(st, @2, OP_NE, $1, $3); }
	| expr '<' expr		{ $$ = new_binary(st, @2, OP_LT, $1, $3); }
	| expr LE expr		{ $$ = new_binary(st, @2, OP_LE, $1, $3); }
	| expr '>' expr		{ $$ = new_binary(st, @2, OP_GT, $1, $3); }
	| expr GE expr		{ $$ = new_binary(st, @2, OP_GE, $1, $3); }
	| expr MATCH expr	{ $$ = new_regex(st, @2, OP_MATCH, $1, $3); }
	| expr NMATCH expr	{ $$ = new_regex(st, @2, OP_NMATCH, $1, $3); }
	| expr SHL expr		{ $$ = new_binary(st, @2, OP_SHL, $1, $3); }
	| expr SHR expr		{ $$ = new_binary(st, @2, OP_SHR, $1, $3); }
	| expr LSHR expr	{ $$ = new_binary(st, @2, OP_LSHR, $1, $3); }
	| expr '.' expr		{ $$ = new_binary(st, @2, OP_CONCAT, $1, $3); }
	| expr '+' expr		{ $$ = new_binary(st, @2, OP_ADD, $1, $3); }
	| expr '-' expr		{ $$ = new_binary(st, @2, OP_SUB, $1, $3); }
	| expr '*' expr		{ $$ = new_binary(st, @2, OP_MUL, $1, $3); }
	| expr '/' expr		{ $$ = new_binary(st, @2, OP_DIV, $1, $3); }
	| expr '%' expr		{ $$ = new_binary(st, @2, OP_MOD, $1, $3); }
	| '-' expr %prec UNARY	{ $$ = new_unary(st, @1, OP_NEG, $2); }
	| '+' expr %prec UNARY	{ $$ = new_unary(st, @1, OP_PLUS, $2); }
	| '!' expr		{ $$ = new_unary(st, @1, OP_NOT, $2); }
	| '~' expr		{ $$ = new_unary(st, @1, OP_BNOT, $2); }
	| '&' expr %prec UNARY	{
		check_autocast(st, @1, $2);
		$$ = new_unary(st, @1, OP_ADDR, $2);
	}
	| INC expr %prec UNARY	{ $$ = new_incdec(st, @1, true, true, $2); }
	| DEC expr %prec UNARY	{ $$ = new_incdec(st, @1, false, true, $2); }
	| primary INC		{ $$ = new_incdec(st, @2, true, false, $1); }
	| primary DEC		{ $$ = new_incdec(st, @2, false, false, $1); }
	| primary
	;

primary:
	  NUMBER {
		$$ = NEW(N_NUMBER, @1);
		$$->num.value = $1;
	}
	| STRING {
		$$ = NEW(N_STRING, @1);
		$$->str.value = $1;
		$$->str.len = strlen($1);
	}
	| primary STRING {
		/* "a" "b" is one literal */
		if (compat_before(st, "2.0"))
			diag_error(st->s, L(@2), "adjacent string literals are "
				   "joined only from --compatible=2.0 on");
		if ($1->kind != N_STRING) {
			diag_error(st->s, L(@2), "unexpected string after an expression");
		} else {
			$1->str.value = arena_printf(&st->s->arena, "%s%s", $1->str.value, $2);
			$1->str.len = strlen($1->str.value);
		}
		$$ = $1;
	}
	| IDENT			{ $$ = new_var(st, @1, $1); }
	| IDENT '[' keys ']' {
		$$ = NEW(N_INDEX, @1);
		$$->index.array = new_var(st, @1, $1);
		$$->index.keys = $3;
	}
	| IDENT '(' args ')'	{ $$ = new_call(st, @1, $1, $3); }
	| '(' expr ')'		{ $$ = $2; }
	| AT_STAT '(' expr ')' {
		$$ = NEW(N_STAT, @1);
		$$->stat.op = $1;
		$$->stat.operand = $3;
	}
	| AT_STAT '(' expr ',' expr ')' {
		/* @variance(s, N): the bit shift of its fixed-point arithmetic */
		$$ = NEW(N_STAT, @1);
		$$->stat.op = $1;
		$$->stat.operand = $3;
		$$->stat.args = $5;
		if ($1 != STAT_VARIANCE)
			diag_error(st->s, L(@4), "only @variance takes a second "
				   "argument");
	}
	| hist
	| postfix_target
	| primary ARROW member_name {
		/* $var->f, and "autocast" on any value: (p)->f, x->f */
		check_autocast(st, @2, $1);
		$$ = NEW(N_TMEMBER, @3);
		$$->target.base = $1;
		$$->target.name = $3;
	}
	| primary PRETTY {
		/* (p)$ (p)$$: the value printed with its members */
		check_autocast(st, @2, $1);
		$$ = NEW(N_TMEMBER, @2);
		$$->target.base = $1;
		$$->target.name = $2;
	}
	| primary '[' expr ']' {
		/* $var[3], (p)[1], @hist_log(s)[3]; name[k] is an array index */
		if ($1->kind != N_HIST)
			check_autocast(st, @2, $1);
		$$ = NEW(N_TINDEX, @2);
		$$->target.base = $1;
		$$->target.index = $3;
	}
	| EMBEDDED {
		check_embedded(st, @1);
		$$ = NEW(N_EMBEDDED, @1);
		$$->embedded.code = $1;
	}
	| AT_MACRO {
		diag_error(st->s, L(@1), "unknown macro or operator '%s'", $1);
		$$ = NEW(N_NUMBER, @1);
	}
	;

hist:
	  AT_HIST_LOG '(' expr ')' {
		$$ = NEW(N_HIST, @1);
		$$->stat.op = HIST_LOG;
		$$->stat.operand = $3;
	}
	| AT_HIST_LINEAR '(' expr ',' hist_num ',' hist_num ',' hist_num ')' {
		$$ = NEW(N_HIST, @1);
		$$->stat.op = HIST_LINEAR;
		$$->stat.operand = $3;
		$$->stat.args = ast_append(ast_append($5, $7), $9);
	}
	;

/* A histogram's parameters are number literals, maybe negative, as in
 * SystemTap's parser (no expressions, no parentheses). */
hist_num:
	  NUMBER {
		$$ = NEW(N_NUMBER, @1);
		$$->num.value = $1;
	}
	| '-' NUMBER {
		$$ = NEW(N_NUMBER, @1);
		$$->num.value = (int64_t)(0 - (uint64_t)$2);
	}
	;

/* $var   @cast(p, "struct x")  (members and indexes: see primary) */
postfix_target:
	  TARGET {
		$$ = NEW(N_TARGET, @1);
		$$->target.name = $1;
	}
	| AT_FUNC '(' args ')'	{ $$ = new_atfunc(st, @1, $1, $3); }
	;

keys:
	  key_list
	;

key_list:
	  key
	| key_list ',' key	{ $$ = ast_append($1, $3); }
	;

key:
	  expr
	| '*'			{ $$ = NEW(N_WILDCARD, @1); }
	;

args:
	  %empty		{ $$ = NULL; }
	| arg_list
	;

arg_list:
	  expr
	| arg_list ',' expr	{ $$ = ast_append($1, $3); }
	;

%%

static void yyerror(YYLTYPE *loc, void *scanner, struct parse_state *st,
		    const char *msg)
{
	(void)scanner;
	/* bison's one other message: its stack reached YYMAXDEPTH */
	if (!strcmp(msg, "memory exhausted"))
		diag_error(st->s, L(*loc), "nesting too deep for the parser "
			   "(its stack holds %d symbols)", YYMAXDEPTH);
	else
		diag_error(st->s, L(*loc), "%s", msg);
}

/*
 * "expected ')', got 'if'": the expected tokens are listed when there are
 * few; when an expression could come, "expected an expression".
 */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner,
				 struct parse_state *st)
{
	enum { MAX_EXPECTED = 64 };
	yysymbol_kind_t expected[MAX_EXPECTED];
	yysymbol_kind_t got = yypcontext_token(ctx);
	struct srcloc loc = L(*yypcontext_location(ctx));
	int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
	const char *got_text;
	char want[256] = "";
	size_t len = 0;

	(void)scanner;
	if (got == YYSYMBOL_YYEOF)
		got_text = "end of input";
	else if (got == YYSYMBOL_IDENT || got == YYSYMBOL_NUMBER ||
		 got == YYSYMBOL_STRING || got == YYSYMBOL_TARGET)
		got_text = diag_token_text(st->s, loc);
	else
		got_text = yysymbol_name(got);

	bool expression = false;
	for (int i = 0; i < n; i++)
		if (expected[i] == YYSYMBOL_NUMBER)
			expression = true;
	if (expression && n == 2 &&
	    (!strcmp(yysymbol_name(expected[0]), "'-'") ||
	     !strcmp(yysymbol_name(expected[1]), "'-'"))) {
		/* a histogram's parameter: a number literal, maybe negative */
		snprintf(want, sizeof(want), "a number");
	} else if (expression) {
		snprintf(want, sizeof(want), "an expression");
	} else if (n > 0 && n <= 4) {
		for (int i = 0; i < n; i++) {
			const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
			len += (size_t)snprintf(want + len, sizeof(want) - len,
						"%s%s", sep, yysymbol_name(expected[i]));
		}
	}
	if (want[0])
		diag_error(st->s, loc, "expected %s, got %s", want, got_text);
	else
		diag_error(st->s, loc, "unexpected %s", got_text);
	return 0;
}
