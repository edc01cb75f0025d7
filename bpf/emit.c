// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: expressions (values, map reads and updates,
 * calls, prints) as C that both halves build, through macros each half
 * defines (LOOKUP, UPDATE, PRINT_BEGIN ...). Statements are emit_stmt.c,
 * the program's layout emit_program.c.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/emit.h"
#include "parser/diag.h"
#include "lib/strbuf.h"
#include "semantic/regex.h"

static void emit_expr(struct emitter *e, const struct node *n);
static void emit_print(struct emitter *e, const struct node *n);
static void emit_where(struct emitter *e, const struct node *n);
static void emit_regex(struct emitter *e, const struct node *n);

int bpf_local_slot(struct emitter *e, const struct symbol *sym)
{
	for (int i = 0; i < e->body->nlocals; i++)
		if (e->body->locals[i] == sym)
			return e->tmp_base + i;
	return e->tmp_base;
}

/* A scalar variable's C lvalue: a global in the globals' struct, a
 * string local in its temporary, a long local in its C local. */
static const char *scalar_lvalue(struct emitter *e, const struct symbol *sym,
				 char *buf, size_t size)
{
	if (sym->kind == SYM_GLOBAL)
		snprintf(buf, size, "G.g%d", sym->index);
	else if (sym->type == TY_STRING)
		snprintf(buf, size, "TMP(%d)", bpf_local_slot(e, sym));
	else if (e->kernel && e->scratch_locals)
		snprintf(buf, size, "S->v[%d]", bpf_local_slot(e, sym));
	else
		snprintf(buf, size, "l%d", bpf_local_slot(e, sym));
	return buf;
}

int bpf_new_tmp(struct emitter *e)
{
	int t = e->tmp_base + e->body->nlocals + e->ntmp++;

	if (t + 1 > e->maxtmp)
		e->maxtmp = t + 1;
	return t;
}

const char *bpf_ctype(enum type t)
{
	return t == TY_STRING ? "struct stp_sv" : "long long";
}

static void emit_key_fields(struct emitter *e, const struct symbol *sym,
			    const struct node *keys, const char *name);

/* A map key of array sym from keys, into a C lvalue whose name (for
 * u) goes to name. A kernel key with a string is 520 bytes or more: on
 * the stack, a probe's and a foreach callback's together pass the
 * verifier's 512 bytes of two calls (6.1, 6.12), so it lives in as many
 * consecutive scratch temporaries as it needs. */
static void emit_key(struct emitter *e, const struct symbol *sym,
		     const struct node *keys, int u, char *name, size_t size)
{
	/* its bytes: STP_STR (BPF_STRLEN) a string, 8 a number */
	int bytes = 0;
	bool has_string = false;

	for (int i = 0; i < sym->nkeys; i++) {
		has_string |= sym->key_types[i] == TY_STRING;
		bytes += sym->key_types[i] == TY_STRING ? BPF_STRLEN : 8;
	}
	if (e->kernel && has_string) {
		int t = bpf_new_tmp(e);

		for (int b = BPF_STRLEN; b < bytes; b += BPF_STRLEN)
			bpf_new_tmp(e);
		snprintf(name, size, "(*_k%d)", u);
		fprintf(e->out, "struct stp_k%d *_k%d = (void *)TMP(%d); "
			"STP_ZERO(_k%d); ", sym->index, u, t, u);
	} else {
		snprintf(name, size, "_k%d", u);
		fprintf(e->out, "struct stp_k%d %s; __builtin_memset(&%s, 0, "
			"sizeof %s); ", sym->index, name, name, name);
	}
	emit_key_fields(e, sym, keys, name);
}

/* The fields of key name (declared and zeroed) from keys. */
static void emit_key_fields(struct emitter *e, const struct symbol *sym,
			    const struct node *keys, const char *name)
{
	int i = 0;
	for (struct node *k = (struct node *)keys; k; k = k->next) {
		if (sym->key_types[i] == TY_STRING) {
			fprintf(e->out, "STRCPY(%s.k%d, ", name, i);
			emit_expr(e, k);
			fputs("); ", e->out);
		} else {
			fprintf(e->out, "%s.k%d = (", name, i);
			emit_expr(e, k);
			fputs("); ", e->out);
		}
		i++;
	}
}

/* The value of a[keys] (0 or "" when absent). */
static void emit_index_read(struct emitter *e, const struct node *n)
{
	const struct symbol *sym = n->index.array->sym;
	int u = e->nuniq++;
	char key[32];

	fputs("({ ", e->out);
	emit_key(e, sym, n->index.keys, u, key, sizeof(key));
	if (n->type == TY_STRING) {
		int t = bpf_new_tmp(e);
		fprintf(e->out, "struct stp_sv _b%d, *_v%d = LOOKUP(%d, &%s, "
			"&_b%d); if (_v%d) STRCPY(TMP(%d), _v%d->s); else "
			"TMP(%d)[0] = 0; TMP(%d); })", u, u, sym->index, key,
			u, u, t, u, t, t);
	} else {
		fprintf(e->out, "long long _b%d, *_v%d = LOOKUP(%d, &%s, &_b%d);"
			" _v%d ? *_v%d : 0; })", u, u, sym->index, key, u, u,
			u);
	}
}

/* The id of the run-time error "division by 0 near operator '/' at ...". */
static int error_id(struct emitter *e, const char *what, const struct node *n)
{
	const char *msg = arena_printf(&e->s->arena, "%s near %s", what,
				       diag_describe_token(e->s, n->loc));

	for (int i = 0; i < e->nerrors; i++)
		if (!strcmp(e->errors[i], msg))
			return i;
	int nwhats = e->nerrors;
	VEC_PUSH(e->whats, nwhats, e->whats_cap, what);
	VEC_PUSH(e->errors, e->nerrors, e->errors_cap, msg);
	return e->nerrors - 1;
}

/* The error when array's map is full (its size limit, or MAXMAPENTRIES). */
static int overflow_id(struct emitter *e, const struct node *array)
{
	long long max = bpf_map_size(e->s, array->sym);

	return error_id(e, arena_printf(&e->s->arena, "Array overflow, check "
			"size limit (%lld)", max), array);
}

static const char *c_op(enum op op)
{
	switch (op) {
	case OP_ADD: return "+";
	case OP_SUB: return "-";
	case OP_MUL: return "*";
	case OP_SHL: return "<<";
	case OP_SHR: return ">>";
	case OP_LSHR: return ">>";
	case OP_BAND: return "&";
	case OP_BOR: return "|";
	case OP_BXOR: return "^";
	case OP_AND: return "&&";
	case OP_OR: return "||";
	case OP_EQ: return "==";
	case OP_NE: return "!=";
	case OP_LT: return "<";
	case OP_LE: return "<=";
	case OP_GT: return ">";
	case OP_GE: return ">=";
	default: return "+";
	}
}

/* lhs OP= the C expression in rhs (a long), its new value; post: the old. */
static void emit_long_update(struct emitter *e, const struct node *lhs,
			     enum op op, const struct node *rhs, long delta,
			     bool post)
{
	int u = e->nuniq++;

	fprintf(e->out, "({ long long _d%d = ", u);
	if (rhs)
		emit_expr(e, rhs);
	else
		fprintf(e->out, "%ld", delta);
	fputs("; ", e->out);
	if (lhs->kind == N_INDEX) {
		const struct symbol *sym = lhs->index.array->sym;
		char key[32];

		emit_key(e, sym, lhs->index.keys, u, key, sizeof(key));
		fprintf(e->out, "long long _b%d, *_v%d = LOOKUP(%d, &%s, &_b%d), "
			"_r%d; ", u, u, sym->index, key, u, u);
		if (op == OP_ADD || op == OP_SUB) {
			if (op == OP_SUB)
				fprintf(e->out, "_d%d = -_d%d; ", u, u);
			fprintf(e->out, "if (_v%d) _r%d = ADD_IN_PLACE(%d, &%s, "
				"_v%d, _d%d); else { _r%d = _d%d; if (%s(%d, "
				"&%s, &_r%d)) ERROR(%d); } ", u, u, sym->index,
				key, u, u, u, u, bpf_update_macro(sym),
				sym->index, key, u,
				overflow_id(e, lhs->index.array));
		} else if (op == OP_ASSIGN) {
			fprintf(e->out, "_r%d = _d%d; if (%s(%d, &%s, &_r%d)) "
				"ERROR(%d); ", u, u, bpf_update_macro(sym),
				sym->index, key, u,
				overflow_id(e, lhs->index.array));
		} else {
			fprintf(e->out, "_r%d = _v%d ? *_v%d : 0; ", u, u, u);
			if (op == OP_DIV || op == OP_MOD)
				fprintf(e->out, "if (!_d%d) ERROR(%d); _r%d = %s(_r%d, "
					"_d%d); ", u, error_id(e, "division by 0",
					rhs), u, op == OP_DIV ? "stp_sdiv" :
					"stp_smod", u, u);
			else
				fprintf(e->out, "_r%d = _r%d %s _d%d; ", u, u,
					c_op(op), u);
			fprintf(e->out, "if (%s(%d, &%s, &_r%d)) ERROR(%d); ",
				bpf_update_macro(sym), sym->index, key, u,
				overflow_id(e, lhs->index.array));
		}
		fprintf(e->out, "%s_r%d; })", "", u);
		if (post)
			fprintf(e->out, " - (%ld)", delta);
		return;
	}
	/* a scalar: a C lvalue */
	const struct symbol *sym = lhs->sym;
	char lv[48];

	scalar_lvalue(e, sym, lv, sizeof(lv));
	if (op == OP_ASSIGN)
		fprintf(e->out, "%s = _d%d; })", lv, u);
	else if (op == OP_DIV || op == OP_MOD)
		fprintf(e->out, "if (!_d%d) ERROR(%d); %s = %s(%s, _d%d); })", u,
			error_id(e, "division by 0", rhs), lv,
			op == OP_DIV ? "stp_sdiv" : "stp_smod", lv, u);
	else if (sym->kind == SYM_GLOBAL && (op == OP_ADD || op == OP_SUB))
		/* several CPUs may hit it at once: atomic in the kernel */
		fprintf(e->out, "ADD_GLOBAL(%s, %s_d%d); })", lv,
			op == OP_SUB ? "-" : "", u);
	else
		fprintf(e->out, "%s = %s %s _d%d; })", lv, lv, c_op(op), u);
	if (post)
		fprintf(e->out, " - (%ld)", delta);
}

/* strcmp in the kernel half, of two strings copied into temporaries: a
 * global function (written once, where a program compares strings), so
 * the verifier walks its loop once a program, not at every comparison
 * (an inline loop over 512 bytes at each was over its 1M instructions) */
static const char kernel_strcmp[] =
"__attribute__((noinline)) int stp_g_strcmp(struct stp_sv *a, struct stp_sv *b)\n"
"{\n"
"\treturn a && b ? stp_strcmp(a->s, b->s) : 0;\n"
"}\n";

/* A string lvalue's C buffer, or NULL for an array element. */
static void emit_string_assign(struct emitter *e, const struct node *lhs,
			       enum op op, const struct node *rhs)
{
	int u = e->nuniq++;
	int t = bpf_new_tmp(e);

	fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
	emit_expr(e, rhs);
	fputs("); ", e->out);
	if (lhs->kind == N_INDEX) {
		const struct symbol *sym = lhs->index.array->sym;
		char key[32];

		emit_key(e, sym, lhs->index.keys, u, key, sizeof(key));
		/* a[k] .= s: the right side kept in a temporary of its own
		 * (a string is too big for the kernel's stack) */
		if (op == OP_CONCAT) {
			int c = bpf_new_tmp(e);
			fprintf(e->out, "{ struct stp_sv _b%d, *_v%d = "
				"LOOKUP(%d, &%s, &_b%d); "
				"STRCPY(TMP(%d), TMP(%d)); STRCPY(TMP(%d), _v%d ? "
				"_v%d->s : \"\"); stp_strcat(TMP(%d), TMP(%d)); } ",
				u, u, sym->index, key, u, c, t, t, u, u, t, c);
		}
		/* the kernel's value: the temporary itself (a stack copy
		 * would pass the two calls' 512 bytes in a foreach) */
		if (e->kernel)
			fprintf(e->out, "if (%s(%d, &%s, (struct stp_sv *)"
				"TMP(%d))) ERROR(%d); TMP(%d); })",
				bpf_update_macro(sym), sym->index,
				key, t, overflow_id(e, lhs->index.array), t);
		else
			fprintf(e->out, "struct stp_sv _s%d; __builtin_memset("
				"&_s%d, 0, sizeof _s%d); STRCPY(_s%d.s, TMP(%d)); "
				"if (%s(%d, &%s, &_s%d)) ERROR(%d); TMP(%d); })",
				u, u, u, u, t, bpf_update_macro(sym), sym->index,
				key, u,
				overflow_id(e, lhs->index.array), t);
		return;
	}
	const struct symbol *sym = lhs->sym;
	char lv[48];

	scalar_lvalue(e, sym, lv, sizeof(lv));
	if (op == OP_CONCAT)
		fprintf(e->out, "stp_strcat(%s, TMP(%d)); %s; })", lv, t, lv);
	else
		fprintf(e->out, "STRCPY(%s, TMP(%d)); %s; })", lv, t, lv);
}

/* A call of a script function (the user half: a C function; string
 * results into a temporary of the caller). */
static void emit_func_call(struct emitter *e, const struct node *n)
{
	const struct script_func *f = n->sym->func;
	int t = f->sym->type == TY_STRING ? bpf_new_tmp(e) : -1;

	int u = e->nuniq++;

	/* the kernel's: its scratch, the probe's MAXACTION count, and the
	 * probe ends when the function ended it (an error, next) */
	fprintf(e->out, "({ long long _r%d = stp_%sf%d(", u, e->kernel ? "k" :
		"", f->index);
	if (e->kernel)
		fputs("S, &stp_actions, stp_max_actions, ", e->out);
	if (t >= 0)
		fprintf(e->out, "TMP(%d)", t);
	else
		fputs("NULL", e->out);
	fprintf(e->out, ", %d", error_id(e, "MAXNESTING exceeded", n));
	ast_foreach(a, n->call.args) {
		fputs(", ", e->out);
		emit_expr(e, a);
	}
	fputs("); ", e->out);
	if (e->kernel)	/* the callee counted itself in (MAXNESTING) */
		fputs("S->depth--; if (S->err) STP_BAIL; ", e->out);
	if (t >= 0)
		fprintf(e->out, "(void)_r%d; TMP(%d); })", u, t);
	else
		fprintf(e->out, "_r%d; })", u);
}

/* The string builtins (user half): NAME(out, args...) returning out. */
static const char *const string_builtins[] = {
	"substr", "str_replace", "tokenize", NULL,
};

static bool emit_tapset_call(struct emitter *e, const struct node *n)
{
	const char *name = n->call.name;
	static const char *const long_builtins[] = {
		"strlen", "stringat", "isinstr", "strpos", "strtol", NULL,
	};

	for (int i = 0; long_builtins[i]; i++)
		if (!strcmp(name, long_builtins[i])) {
			fprintf(e->out, "stp_f_%s(", name);
			ast_foreach(a, n->call.args) {
				emit_expr(e, a);
				if (a->next)
					fputs(", ", e->out);
			}
			fputs(")", e->out);
			return true;
		}
	for (int i = 0; string_builtins[i]; i++)
		if (!strcmp(name, string_builtins[i])) {
			fprintf(e->out, "stp_f_%s(TMP(%d)", name, bpf_new_tmp(e));
			ast_foreach(a, n->call.args) {
				fputs(", ", e->out);
				emit_expr(e, a);
			}
			fputs(")", e->out);
			return true;
		}
	if (!strcmp(name, "text_str") || !strcmp(name, "string_quoted") ||
	    !strcmp(name, "text_strn")) {
		fprintf(e->out, "stp_f_text(TMP(%d), ", bpf_new_tmp(e));
		emit_expr(e, n->call.args);
		if (!strcmp(name, "text_strn")) {
			fputs(", ", e->out);
			emit_expr(e, n->call.args->next);
			fputs(", ", e->out);
			emit_expr(e, n->call.args->next->next);
			fputs(")", e->out);
		} else {
			fprintf(e->out, ", 0, %d)", name[1] == 't');
		}
		return true;
	}
	if ((!strcmp(name, "matched") || !strcmp(name, "matched_str")) &&
	    e->kernel) {
		fprintf(e->out, "STP_KRE_MATCHED(TMP(%d), %d, %d, ",
			bpf_new_tmp(e), error_id(e, "Attempted to get "
			"subexpression %lld from failed match", n),
			error_id(e, "Attempted to get nonexistent "
				 "subexpression %lld", n));
		if (n->call.args)
			emit_expr(e, n->call.args);
		else
			fputs("0", e->out);
		fputs(")", e->out);
		return true;
	}
	if (!strcmp(name, "ngroups") && e->kernel) {
		fprintf(e->out, "STP_KRE_NGROUPS(%d)", error_id(e, "Attempted "
			"to get subexpression count from failed match", n));
		return true;
	}
	if (!strcmp(name, "matched") || !strcmp(name, "matched_str")) {
		fprintf(e->out, "stp_re_matched(TMP(%d), ", bpf_new_tmp(e));
		if (n->call.args)
			emit_expr(e, n->call.args);
		else
			fputs("0", e->out);
		fputs(", ", e->out);
		emit_where(e, n);
		fputs(")", e->out);
		return true;
	}
	if (!strcmp(name, "ngroups")) {
		fputs("stp_re_ngroups(", e->out);
		emit_where(e, n);
		fputs(")", e->out);
		return true;
	}
	if (!strcmp(name, "error") && e->kernel) {
		fputs("({ ERROR_MSG(", e->out);
		emit_expr(e, n->call.args);
		fputs("); 0; })", e->out);
		return true;
	}
	if (!strcmp(name, "error")) {
		int t = bpf_new_tmp(e);
		fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
		emit_expr(e, n->call.args);
		fprintf(e->out, "); stp_throw(TMP(%d), TMP(%d)); 0; })", t, t);
		return true;
	}
	return false;
}

static void emit_call(struct emitter *e, const struct node *n)
{
	const char *name = n->call.name;

	/* a tapset function in embedded C the backend has its own of */
	const char *tapset = bpf_tapset_call(n, e->kernel);	/* tapset.c */

	if (tapset && tapset[strlen(tapset) - 1] == '(')
		bpf_emit_tapset_macro(e, n, tapset, n->type == TY_STRING ?
				      bpf_new_tmp(e) : -1);
	else if (tapset)
		fputs(tapset, e->out);
	else if (n->sym && n->sym->kind == SYM_FUNCTION && n->sym->func &&
		 !bpf_func_native(n->sym->func))
		emit_func_call(e, n);
	else if (!strcmp(name, "exit"))
		fputs("(EXIT(), 0)", e->out);
	else if (!strcmp(name, "execname"))
		fprintf(e->out, "EXECNAME(TMP(%d))", bpf_new_tmp(e));
	else if (!strcmp(name, "pid"))
		fputs("PID()", e->out);
	else if (!strcmp(name, "tid"))
		fputs("TID()", e->out);
	else if (!strcmp(name, "cpu"))
		fputs("CPU()", e->out);
	else if (!strcmp(name, "target"))
		fputs("G.stp_target", e->out);
	else if (!strcmp(name, "print_char"))
		emit_print(e, n);
	else if (e->kernel && bpf_emit_kernel_string_call(e, n))
		;
	else if (e->kernel && !strcmp(name, "error"))
		emit_tapset_call(e, n);	/* ERROR_MSG */
	else if (e->kernel && (!strcmp(name, "matched") ||
			       !strcmp(name, "matched_str") ||
			       !strcmp(name, "ngroups")))
		emit_tapset_call(e, n);	/* emit_regex.c's state */
	else if (!e->kernel && bpf_tapset_known(n) &&
		 bpf_tapset_call(n, true) && !bpf_tapset_call(n, false)) {
		/* a kernel-only tapset function (stack()'s __stack_raw) in
		 * the user half's copy of a script function: pass 2 refuses
		 * the loader's probes that would reach it (refuse_walk
		 * follows the call graph), so this is never run */
		if (n->type == TY_STRING) {
			int t = bpf_new_tmp(e);
			fprintf(e->out, "({ TMP(%d)[0] = 0; TMP(%d); })", t, t);
		} else {
			fputs("0LL", e->out);
		}
	} else if (e->kernel || !emit_tapset_call(e, n))
		diag_error(e->s, n->loc, "the bpf backend has no %s()", name);
}

static bool is_sprint(enum print_kind k)
{
	return k >= PRINT_SPRINT;
}

/* The values a print record carries: printf's after the format, printd's
 * after the delimiter, else all. */
static const struct node *print_values(const struct node *n)
{
	enum print_kind k = n->print.kind;

	if (n->kind == N_CALL)		/* print_char */
		return n->call.args;
	if (k == PRINT_PRINTF || k == PRINT_SPRINTF || k == PRINT_PRINTD ||
	    k == PRINT_PRINTDLN || k == PRINT_SPRINTD || k == PRINT_SPRINTDLN)
		return n->print.args->next;
	return n->print.args;
}

/* A literal for a format: '%' doubled. */
static void fmt_literal(struct strbuf *sb, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '%')
			sb_putc(sb, '%');
		sb_putc(sb, s[i]);
	}
}

/* The pattern of s =~ "re" compiled into re, or an error (and the
 * value 0 written) when it cannot be (pass 2 checked it: a literal). */
bool bpf_regex_compile(struct emitter *e, const struct node *n,
		       struct regex *re)
{
	const struct node *pat = n->binary.rhs;
	const char *err;
	size_t off;

	if (pat->kind != N_STRING || regex_compile(re, pat->str.value,
						   pat->str.len, &err, &off) < 0) {
		diag_error(e->s, n->loc, "the bpf backend cannot translate this "
			   "regular expression");
		fputs("0", e->out);
		return false;
	}
	return true;
}

/* s =~ "re" (user half): the translator's tables at file scope, the
 * last match kept for matched() */
static void emit_regex(struct emitter *e, const struct node *n)
{
	struct regex re;
	struct strbuf sb = { 0 };
	int u;

	if (e->kernel) {
		bpf_emit_kernel_regex(e, n);
		return;
	}
	u = e->nuniq++;
	if (!bpf_regex_compile(e, n, &re))
		return;
	if (!e->regex_ready) {
		fputs(bpf_prelude_regex, e->decls);
		e->regex_ready = true;
	}
	char name[32];
	snprintf(name, sizeof(name), "stp_re%d", u);
	regex_emit(&re, &sb, name, "", true);
	fprintf(e->decls, "%sstatic int stp_rs%d[%ld];\n", sb_str(&sb), u,
		regex_scratch_ints(&re));
	sb_free(&sb);
	regex_free(&re);
	fprintf(e->out, "(%sstp_re_match(&stp_re%d, ",
		n->binary.op == OP_NMATCH ? "!" : "", u);
	emit_expr(e, n->binary.lhs);
	fprintf(e->out, ", stp_rs%d))", u);
}

/* A C string literal of the place n is at, for run-time errors. */
static void emit_where(struct emitter *e, const struct node *n)
{
	struct node str = { .kind = N_STRING };

	str.str.value = diag_describe_token(e->s, n->loc);
	str.str.len = strlen(str.str.value);
	emit_expr(e, &str);
}

static int fmt_id(struct emitter *e, const struct node *n)
{
	for (int i = 0; i < e->nfmts; i++)
		if (e->fmts[i].print == n)
			return i;
	VEC_PUSH(e->fmts, e->nfmts, e->fmts_cap, (struct fmt){ .print = n });
	struct fmt *f = &e->fmts[e->nfmts - 1];
	const struct node *args = print_values(n);
	enum print_kind k = n->kind == N_CALL ? PRINT_PRINT : n->print.kind;
	struct strbuf sb = { 0 };
	int na = 0;

	if (n->kind == N_CALL) {
		sb_puts(&sb, "%c");
	} else if (k == PRINT_PRINTF || k == PRINT_SPRINTF) {
		const struct node *lit = n->print.args;
		sb_append(&sb, lit->str.value, lit->str.len);
	} else {
		bool delim = k == PRINT_PRINTD || k == PRINT_PRINTDLN ||
			     k == PRINT_SPRINTD || k == PRINT_SPRINTDLN;
		for (const struct node *a = args; a; a = a->next) {
			if (delim && a != args)
				fmt_literal(&sb, n->print.args->str.value,
					    n->print.args->str.len);
			sb_puts(&sb, a->type == TY_STRING ? "%s" : "%d");
		}
		if (k == PRINT_PRINTLN || k == PRINT_PRINTDLN ||
		    k == PRINT_SPRINTLN || k == PRINT_SPRINTDLN)
			sb_putc(&sb, '\n');
	}
	f->len = sb.len;
	f->fmt = arena_alloc(&e->s->arena, sb.len + 1);
	memcpy(f->fmt, sb_str(&sb), sb.len + 1);
	sb_free(&sb);
	for (const struct node *a = args; a; a = a->next)
		if (na < (int)sizeof(f->types) - 1)
			f->types[na++] = a->type == TY_STRING ? 's' : 'l';
	if (ast_list_length(args) >= (int)sizeof(f->types))
		diag_error(e->s, n->loc, "the bpf backend prints up to %d values "
			   "at once", (int)sizeof(f->types) - 1);
	return e->nfmts - 1;
}

/* A print record: to the ring buffer (kernel) or the loader's printf
 * (user half); sprint's into a string temporary. */
static void emit_print(struct emitter *e, const struct node *n)
{
	const struct node *args = print_values(n);

	if (n->kind == N_PRINT && args && !args->next && args->kind == N_HIST &&
	    (n->print.kind == PRINT_PRINT || n->print.kind == PRINT_PRINTLN)) {
		bpf_emit_hist_print(e, args);
		return;
	}
	int id = fmt_id(e, n);
	bool sprint = n->kind == N_PRINT && is_sprint(n->print.kind);
	int t = sprint ? bpf_new_tmp(e) : -1;

	if (sprint && e->kernel) {
		bpf_emit_kernel_sprint(e, args, e->fmts[id].fmt,
				       e->fmts[id].len, t);
		return;
	}

	/* the values first: an error while the kernel holds a reserved
	 * ring buffer record would leak it (the verifier refuses that) */
	int u = e->nuniq++, i = 0;
	fputs("({ ", e->out);
	for (struct node *a = (struct node *)args; a; a = a->next, i++) {
		if (a->type == TY_STRING) {
			fprintf(e->out, "const char *_v%d_%d = ", u, i);
			emit_expr(e, a);
		} else {
			fprintf(e->out, "long long _v%d_%d = (", u, i);
			emit_expr(e, a);
			fputs(")", e->out);
		}
		fputs("; ", e->out);
	}
	fprintf(e->out, "PRINT_BEGIN(struct stp_rec%d) r->h.kind = 0; "
		"r->h.id = %d; ", id, id);
	i = 0;
	for (struct node *a = (struct node *)args; a; a = a->next, i++) {
		if (a->type == TY_STRING)
			fprintf(e->out, "STRCPY(r->a%d, _v%d_%d); ", i, u, i);
		else
			fprintf(e->out, "r->a%d = _v%d_%d; ", i, u, i);
	}
	if (sprint)
		fprintf(e->out, "rt->format(TMP(%d), r, sizeof(*r)); } TMP(%d); })",
			t, t);
	else
		fputs("PRINT_END 0; })", e->out);
}

/*
 * A typed value of user memory (bpf_user_typed: autocast, @cast with a
 * program's types) in a kernel probe: its base's value, then the member
 * steps read from the process (bpf_probe_read_user); a fault is the
 * module's error at the address.
 */
static void emit_user_typed(struct emitter *e, const struct node *n)
{
	int u = e->nuniq++;

	if (!e->kernel) {	/* refused in the loader's probes */
		fputs("0LL", e->out);
		return;
	}
	fprintf(e->out, "({ __u64 _tb%d = (__u64)(", u);
	emit_expr(e, n->sym->typed_base);
	fprintf(e->out, "); long long _tv%d; { __u64 v = _tb%d; int f = 0;\n",
		u, u);
	if (n->sym->member_path)
		bpf_user_steps_c(n->sym->member_path, e->out);
	fprintf(e->out, "\tif (f) FAULT(%d, v); _tv%d = (long long)v; } "
		"_tv%d; })", error_id(e, "read fault [man error::fault] at "
				      "0x%llx", n), u, u);
}

/*
 * A typed value of kernel memory (@cast with the kernel's types, a member
 * chain on it, its address) in a kernel probe: its base's value, then the
 * member steps as CO-RE reads against the running kernel's BTF
 * (attach.c); a fault is the module's error at the address.
 */
static void emit_kernel_typed(struct emitter *e, const struct node *n)
{
	int u = e->nuniq++;
	char root[32], val[32], fault[32];

	if (!e->kernel) {	/* refused in the loader's probes */
		fputs("0LL", e->out);
		return;
	}
	snprintf(root, sizeof(root), "_kb%d", u);
	snprintf(val, sizeof(val), "_kv%d", u);
	snprintf(fault, sizeof(fault), "_kf%d", u);
	fprintf(e->out, "({ __u64 %s = (__u64)(", root);
	emit_expr(e, n->sym->typed_base);
	fprintf(e->out, "); long long %s = 0; int %s = 0;\n", val, fault);
	bpf_emit_kernel_cast(n, root, val, fault, e->out);
	fprintf(e->out, "\tif (%s) FAULT(%d, %s); %s; })", fault,
		error_id(e, "read fault [man error::fault] at 0x%llx", n), val,
		val);
}

/* A typed value (SYM_TYPED): of the kernel's memory or of the process's. */
static void emit_typed(struct emitter *e, const struct node *n)
{
	if (bpf_kernel_typed(n))
		emit_kernel_typed(e, n);
	else
		emit_user_typed(e, n);
}

/*
 * A tracepoint's $$system and $$name: literals of the body (each
 * tracepoint of a wildcard has its own body; the points of one body that
 * name them differently are an error here), and its $$parms or $$vars:
 * the string its program wrote before the body (attach.c). False: n is
 * none.
 */
static bool emit_tp_special(struct emitter *e, const struct node *n)
{
	int np = 0;
	const struct derived_probe *const *dps = e->func ? NULL :
		body_probes(e->prog, e->body, &np);

	if (!np || !bpf_tp_special(dps[0], n))
		return false;
	const char *name = n->target.name;
	if (!strcmp(name, "$$parms") || !strcmp(name, "$$vars")) {
		fputs("((char *)S->parms)", e->out);
		return true;
	}
	bool sys = !strcmp(name, "$$system");
	const char *v = sys ? dps[0]->attach.tracepoint.system :
			dps[0]->attach.tracepoint.name;
	for (int i = 1; i < np; i++) {
		const struct attach_tracepoint *tp = &dps[i]->attach.tracepoint;
		const char *w = sys ? tp->system : tp->name;
		if (dps[i]->attach.kind != ATTACH_TRACEPOINT || !v || !w ||
		    strcmp(v, w)) {
			diag_error(e->s, n->loc, "%s in a probe body of several "
				   "tracepoints is not on the bpf backend yet "
				   "(the kernel backend has it: "
				   "--runtime=kernel)", name);
			break;
		}
	}
	bpf_c_string(e->out, v ? v : "");
	return true;
}

static void emit_expr(struct emitter *e, const struct node *n)
{
	switch (n->kind) {
	case N_NUMBER:
		fprintf(e->out, "%lldLL", (long long)n->num.value);
		if (n->num.value == INT64_MIN)
			fputs("/* min */", e->out);
		break;
	case N_STRING:
		fputc('"', e->out);
		for (size_t i = 0; i < n->str.len; i++) {
			unsigned char c = (unsigned char)n->str.value[i];
			if (c == '"' || c == '\\' || c < 32 || c >= 127)
				fprintf(e->out, "\\%03o", c);
			else
				fputc(c, e->out);
		}
		fputc('"', e->out);
		break;
	case N_VAR: {
		char lv[48];
		fputs(scalar_lvalue(e, n->sym, lv, sizeof(lv)), e->out);
		break;
	}
	case N_INDEX:
		if (e->kernel || !bpf_snapshot_read(e, n))
			emit_index_read(e, n);
		break;
	case N_CALL:
		emit_call(e, n);
		break;
	case N_PRINT:
		emit_print(e, n);
		break;
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
		if (n->sym && n->sym->kind == SYM_TYPED) {
			emit_typed(e, n);
			break;
		}
		if (emit_tp_special(e, n))
			break;
		/* the kernel program read it into the scratch (attach.c) */
		if (n->kind == N_TARGET && !strcmp(n->target.name, "$return"))
			fputs("RETV()", e->out);
		else if (n->kind == N_TARGET && (!strcmp(n->target.name,
			 "$$name") || !strcmp(n->target.name, "$$provider")))
			/* a uprobe's, by the probe that runs the body */
			fprintf(e->out, "STP_UPNAME(TMP(%d), %d)", bpf_new_tmp(e),
				!strcmp(n->target.name, "$$provider"));
		else
			fprintf(e->out, "CTXV(%d, %d)", n->sym ? n->sym->index :
				0, n->sym && n->sym->member_path ? error_id(e,
				"read fault [man error::fault] at 0x%llx", n) :
				-1);
		break;
	case N_ATFUNC:
		if (n->sym && n->sym->kind == SYM_TYPED) {
			emit_typed(e, n);	/* @cast(p, "T"[, "PATH"]) */
			break;
		}
		if (!strcmp(n->call.name, "@entry"))
			emit_expr(e, n->call.args);	/* fexit: entry values */
		else
			fprintf(e->out, "%dLL", n->sym && n->sym->index ? 1 : 0);
		break;
	case N_IN: {
		const struct symbol *sym = n->binary.rhs->sym;
		if (bpf_has_wildcard(n->binary.lhs)) {
			bpf_emit_slice_in(e, sym, n->binary.lhs);
			break;
		}
		int u = e->nuniq++;
		char key[32];
		fputs("({ ", e->out);
		emit_key(e, sym, n->binary.lhs, u, key, sizeof(key));
		if (sym->type == TY_STATS && !e->kernel)
			fprintf(e->out, "char _b%d[sizeof(struct stp_s%d) * "
				"rt->ncpus]; ", u, sym->index);
		else if (sym->type == TY_STATS)
			fprintf(e->out, "struct stp_s%d _b%d; ", sym->index, u);
		else
			fprintf(e->out, "%s _b%d; ", bpf_ctype(sym->type), u);
		fprintf(e->out, "LOOKUP(%d, &%s, &_b%d) != 0; })",
			sym->index, key, u);
		break;
	}
	case N_BINARY:
		if (n->binary.op == OP_MATCH || n->binary.op == OP_NMATCH) {
			emit_regex(e, n);
			break;
		}
		if (n->binary.op == OP_CONCAT) {
			int t = bpf_new_tmp(e);
			fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
			emit_expr(e, n->binary.lhs);
			fprintf(e->out, "); stp_strcat(TMP(%d), ", t);
			emit_expr(e, n->binary.rhs);
			fprintf(e->out, "); TMP(%d); })", t);
			break;
		}
		if (n->binary.lhs->type == TY_STRING && e->kernel) {
			/* both copied into temporaries (stp_g_strcmp's
			 * arguments: STP_STR bytes of a map value each) */
			int a = bpf_new_tmp(e), b = bpf_new_tmp(e);
			if (!e->kernel_strcmp) {
				fputs(kernel_strcmp, e->decls_kernel);
				e->kernel_strcmp = true;
			}
			fprintf(e->out, "({ STRCPY(TMP(%d), ", a);
			emit_expr(e, n->binary.lhs);
			fprintf(e->out, "); STRCPY(TMP(%d), ", b);
			emit_expr(e, n->binary.rhs);
			fprintf(e->out, "); stp_g_strcmp((void *)TMP(%d), (void *)"
				"TMP(%d)) %s 0; })", a, b, c_op(n->binary.op));
			break;
		}
		if (n->binary.lhs->type == TY_STRING) {
			fputs("(stp_strcmp(", e->out);
			emit_expr(e, n->binary.lhs);
			fputs(", ", e->out);
			emit_expr(e, n->binary.rhs);
			fprintf(e->out, ") %s 0)", c_op(n->binary.op));
			break;
		}
		if (n->binary.op == OP_DIV || n->binary.op == OP_MOD) {
			int u = e->nuniq++;
			fprintf(e->out, "({ long long _x%d = (", u);
			emit_expr(e, n->binary.lhs);
			fprintf(e->out, "), _y%d = (", u);
			emit_expr(e, n->binary.rhs);
			fprintf(e->out, "); if (!_y%d) ERROR(%d); %s(_x%d, _y%d); })",
				u, error_id(e, "division by 0", n),
				n->binary.op == OP_DIV ? "stp_sdiv" : "stp_smod",
				u, u);
			break;
		}
		if (n->binary.op == OP_LSHR) {
			fputs("((long long)((unsigned long long)(", e->out);
			emit_expr(e, n->binary.lhs);
			fputs(") >> ((", e->out);
			emit_expr(e, n->binary.rhs);
			fputs(") & 63)))", e->out);
			break;
		}
		/* shifts count modulo 64, as x86 does for the module's C */
		bool shift = n->binary.op == OP_SHL || n->binary.op == OP_SHR;
		fputs("((long long)(", e->out);
		emit_expr(e, n->binary.lhs);
		fprintf(e->out, ") %s (%s", c_op(n->binary.op), shift ? "(" : "");
		emit_expr(e, n->binary.rhs);
		fputs(shift ? ") & 63))" : "))", e->out);
		break;
	case N_UNARY:
		if (n->sym && n->sym->kind == SYM_TYPED) {
			emit_typed(e, n);	/* &@cast(...)->f */
			break;
		}
		if (n->unary.op == OP_ADDR && n->sym &&
		    n->sym->kind == SYM_CONTEXT) {
			/* &$x->f of a uprobe: the program computed it */
			fprintf(e->out, "CTXV(%d, -1)", n->sym->index);
			break;
		}
		fprintf(e->out, "(%s(", n->unary.op == OP_NEG ? "-" :
			n->unary.op == OP_NOT ? "!" : n->unary.op == OP_BNOT ?
			"~" : "+");
		emit_expr(e, n->unary.operand);
		fputs("))", e->out);
		break;
	case N_TERNARY:
		if (n->type == TY_STRING) {
			int t = bpf_new_tmp(e);
			fputs("({ if (", e->out);
			emit_expr(e, n->cond.cond);
			fprintf(e->out, ") STRCPY(TMP(%d), ", t);
			emit_expr(e, n->cond.then);
			fprintf(e->out, "); else STRCPY(TMP(%d), ", t);
			emit_expr(e, n->cond.els);
			fprintf(e->out, "); TMP(%d); })", t);
			break;
		}
		fputs("((", e->out);
		emit_expr(e, n->cond.cond);
		fputs(") ? (", e->out);
		emit_expr(e, n->cond.then);
		fputs(") : (", e->out);
		emit_expr(e, n->cond.els);
		fputs("))", e->out);
		break;
	case N_STAT:
		bpf_emit_stat_read(e, n);
		break;
	case N_INCDEC:
		emit_long_update(e, n->incdec.operand, OP_ADD, NULL,
				 n->incdec.increment ? 1 : -1, !n->incdec.prefix);
		break;
	case N_ASSIGN:
		if (n->binary.op == OP_AGG)
			bpf_emit_stat_add(e, n->binary.lhs, n->binary.rhs);
		else if (n->binary.lhs->type == TY_STRING)
			emit_string_assign(e, n->binary.lhs, n->binary.op,
					   n->binary.rhs);
		else
			emit_long_update(e, n->binary.lhs, n->binary.op,
					 n->binary.rhs, 0, false);
		break;
	default:
		diag_error(e->s, n->loc, "the bpf backend cannot translate %s",
			   ast_kind_name(n->kind));
		fputs("0", e->out);
	}
}

void bpf_emit_expr(struct emitter *e, const struct node *n)
{
	emit_expr(e, n);
}

void bpf_emit_key(struct emitter *e, const struct symbol *sym,
		  const struct node *keys, char *name, size_t size)
{
	emit_key(e, sym, keys, e->nuniq++, name, size);
}

int bpf_error_id(struct emitter *e, const char *what, const struct node *n)
{
	return error_id(e, what, n);
}

long long bpf_map_size(const struct session *s, const struct symbol *sym)
{
	return sym->decl && sym->decl->global.max_entries ?
	       sym->decl->global.max_entries : bpf_limit(s, "MAXMAPENTRIES");
}

int bpf_overflow_id(struct emitter *e, const struct node *array)
{
	return overflow_id(e, array);
}
