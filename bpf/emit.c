// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: the elaborated program as one C file. Its
 * kernel half (#ifdef __bpf__) is built by clang -target bpf: the maps,
 * the globals (.bss, mmapped by the loader too) and one raw-tracepoint
 * program per kernel.trace probe. Its user half is built by cc -shared and
 * run by the loader: begin, end and timer bodies, whose map accesses are
 * bpf(2) calls on the same maps. A body is emitted once per half that runs
 * it, through macros each half defines (LOOKUP, UPDATE, PRINT_BEGIN ...),
 * so the two cannot disagree on layouts.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/emit.h"
#include "parser/diag.h"
#include "lib/strbuf.h"
#include "semantic/regex.h"

static void emit_expr(struct emitter *e, const struct node *n);
static void emit_stmt(struct emitter *e, const struct node *n);
static void emit_print(struct emitter *e, const struct node *n);
static void emit_where(struct emitter *e, const struct node *n);
static void emit_regex(struct emitter *e, const struct node *n);

/* struct stp_rt as the generated C declares it, from bpf.h's list */
#define RT_MEMBER_TEXT(ret, name, args) #ret " (*" #name ")" #args "; "
static const char rt_decl[] = "struct stp_rt { int *map_fds; void *globals; "
	"int ncpus; " STP_RT_FUNCS(RT_MEMBER_TEXT) "};\n";

static int local_slot(struct emitter *e, const struct symbol *sym)
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
		snprintf(buf, size, "TMP(%d)", local_slot(e, sym));
	else
		snprintf(buf, size, "l%d", local_slot(e, sym));
	return buf;
}

static int new_tmp(struct emitter *e)
{
	int t = e->tmp_base + e->body->nlocals + e->ntmp++;

	if (t + 1 > e->maxtmp)
		e->maxtmp = t + 1;
	return t;
}

static const char *ctype(enum type t)
{
	return t == TY_STRING ? "struct stp_sv" : "long long";
}

/* A map key of array sym from keys, into C variable name. */
static void emit_key(struct emitter *e, const struct symbol *sym,
		     const struct node *keys, const char *name)
{
	fprintf(e->out, "struct stp_k%d %s; __builtin_memset(&%s, 0, sizeof "
		"%s); ", sym->index, name, name, name);
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

	snprintf(key, sizeof(key), "_k%d", u);
	fputs("({ ", e->out);
	emit_key(e, sym, n->index.keys, key);
	if (n->type == TY_STRING) {
		int t = new_tmp(e);
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
	const struct symbol *sym = array->sym;
	long long max = sym->decl && sym->decl->global.max_entries ?
			sym->decl->global.max_entries : 2048;

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

		snprintf(key, sizeof(key), "_k%d", u);
		emit_key(e, sym, lhs->index.keys, key);
		fprintf(e->out, "long long _b%d, *_v%d = LOOKUP(%d, &%s, &_b%d), "
			"_r%d; ", u, u, sym->index, key, u, u);
		if (op == OP_ADD || op == OP_SUB) {
			if (op == OP_SUB)
				fprintf(e->out, "_d%d = -_d%d; ", u, u);
			fprintf(e->out, "if (_v%d) _r%d = ADD_IN_PLACE(%d, &%s, "
				"_v%d, _d%d); else { _r%d = _d%d; if (UPDATE(%d, "
				"&%s, &_r%d)) ERROR(%d); } ", u, u, sym->index,
				key, u, u, u, u, sym->index, key, u,
				overflow_id(e, lhs->index.array));
		} else if (op == OP_ASSIGN) {
			fprintf(e->out, "_r%d = _d%d; if (UPDATE(%d, &%s, &_r%d)) "
				"ERROR(%d); ", u, u, sym->index, key, u,
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
			fprintf(e->out, "if (UPDATE(%d, &%s, &_r%d)) ERROR(%d); ",
				sym->index, key, u,
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

/* A string lvalue's C buffer, or NULL for an array element. */
static void emit_string_assign(struct emitter *e, const struct node *lhs,
			       enum op op, const struct node *rhs)
{
	int u = e->nuniq++;
	int t = new_tmp(e);

	fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
	emit_expr(e, rhs);
	fputs("); ", e->out);
	if (lhs->kind == N_INDEX) {
		const struct symbol *sym = lhs->index.array->sym;
		char key[32];

		snprintf(key, sizeof(key), "_k%d", u);
		emit_key(e, sym, lhs->index.keys, key);
		if (op == OP_CONCAT)
			fprintf(e->out, "{ struct stp_sv _b%d, *_v%d = "
				"LOOKUP(%d, &%s, &_b%d); char _c%d[STP_STR]; "
				"STRCPY(_c%d, TMP(%d)); STRCPY(TMP(%d), _v%d ? "
				"_v%d->s : \"\"); stp_strcat(TMP(%d), _c%d); } ",
				u, u, sym->index, key, u, u, u, t, t, u, u, t,
				u);
		fprintf(e->out, "struct stp_sv _s%d; __builtin_memset(&_s%d, 0, "
			"sizeof _s%d); STRCPY(_s%d.s, TMP(%d)); if (UPDATE(%d, &%s, "
			"&_s%d)) ERROR(%d); TMP(%d); })", u, u, u, u, t,
			sym->index, key, u, overflow_id(e, lhs->index.array), t);
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
	int t = f->sym->type == TY_STRING ? new_tmp(e) : -1;

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
	ast_foreach(a, n->call.args) {
		fputs(", ", e->out);
		emit_expr(e, a);
	}
	fputs("); ", e->out);
	if (e->kernel)
		fputs("if (S->err) STP_BAIL; ", e->out);
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
			fprintf(e->out, "stp_f_%s(TMP(%d)", name, new_tmp(e));
			ast_foreach(a, n->call.args) {
				fputs(", ", e->out);
				emit_expr(e, a);
			}
			fputs(")", e->out);
			return true;
		}
	if (!strcmp(name, "text_str") || !strcmp(name, "string_quoted") ||
	    !strcmp(name, "text_strn")) {
		fprintf(e->out, "stp_f_text(TMP(%d), ", new_tmp(e));
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
	if (!strcmp(name, "matched") || !strcmp(name, "matched_str")) {
		fprintf(e->out, "stp_re_matched(TMP(%d), ", new_tmp(e));
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
	if (!strcmp(name, "error")) {
		int t = new_tmp(e);
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
				      new_tmp(e) : -1);
	else if (tapset)
		fputs(tapset, e->out);
	else if (n->sym && n->sym->kind == SYM_FUNCTION && n->sym->func &&
		 !bpf_func_native(n->sym->func))
		emit_func_call(e, n);
	else if (!strcmp(name, "exit"))
		fputs("(EXIT(), 0)", e->out);
	else if (!strcmp(name, "execname"))
		fprintf(e->out, "EXECNAME(TMP(%d))", new_tmp(e));
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
	else if (e->kernel || !emit_tapset_call(e, n))
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

/* The format of print, println, printd ... as printf would write it. */
/* s =~ "re" (user half): the translator's tables at file scope, the
 * last match kept for matched() */
static void emit_regex(struct emitter *e, const struct node *n)
{
	const struct node *pat = n->binary.rhs;
	struct regex re;
	struct strbuf sb = { 0 };
	const char *err;
	size_t off;
	int u = e->nuniq++;

	if (pat->kind != N_STRING || regex_compile(&re, pat->str.value,
						   pat->str.len, &err, &off) < 0) {
		diag_error(e->s, n->loc, "the bpf backend cannot translate this "
			   "regular expression");
		fputs("0", e->out);
		return;
	}
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
	int t = sprint ? new_tmp(e) : -1;

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
		/* the kernel program read it into the scratch (attach.c) */
		if (n->kind == N_TARGET && !strcmp(n->target.name, "$return"))
			fputs("RETV()", e->out);
		else if (n->kind == N_TARGET && (!strcmp(n->target.name,
			 "$$name") || !strcmp(n->target.name, "$$provider")))
			/* a uprobe's, by the probe that runs the body */
			fprintf(e->out, "STP_UPNAME(TMP(%d), %d)", new_tmp(e),
				!strcmp(n->target.name, "$$provider"));
		else
			fprintf(e->out, "CTXV(%d, %d)", n->sym ? n->sym->index :
				0, n->sym && n->sym->member_path ? error_id(e,
				"read fault [man error::fault] at 0x%llx", n) :
				-1);
		break;
	case N_ATFUNC:
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
		snprintf(key, sizeof(key), "_k%d", u);
		fputs("({ ", e->out);
		emit_key(e, sym, n->binary.lhs, key);
		if (sym->type == TY_STATS && !e->kernel)
			fprintf(e->out, "char _b%d[sizeof(struct stp_s%d) * "
				"rt->ncpus]; ", u, sym->index);
		else if (sym->type == TY_STATS)
			fprintf(e->out, "struct stp_s%d _b%d; ", sym->index, u);
		else
			fprintf(e->out, "%s _b%d; ", ctype(sym->type), u);
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
			int t = new_tmp(e);
			fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
			emit_expr(e, n->binary.lhs);
			fprintf(e->out, "); stp_strcat(TMP(%d), ", t);
			emit_expr(e, n->binary.rhs);
			fprintf(e->out, "); TMP(%d); })", t);
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
		fprintf(e->out, "(%s(", n->unary.op == OP_NEG ? "-" :
			n->unary.op == OP_NOT ? "!" : n->unary.op == OP_BNOT ?
			"~" : "+");
		emit_expr(e, n->unary.operand);
		fputs("))", e->out);
		break;
	case N_TERNARY:
		if (n->type == TY_STRING) {
			int t = new_tmp(e);
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

static void emit_foreach(struct emitter *e, const struct node *n)
{
	const struct symbol *arr = n->foreach.array->sym;
	int u = e->nuniq++;
	int col = n->foreach.sort_column, dir = n->foreach.sort_dir;
	bool stats = arr->type == TY_STATS;

	/* the comparator: the sort column, then the keys in order */
	fprintf(e->decls, "static int stp_cmp%d(const void *pa, const void *pb)"
		"\n{\n\tconst struct stp_e%d *a = pa, *b = pb;\n\tint c;\n", u,
		arr->index);
	for (int pass = 0; pass < 2; pass++) {
		for (int k = -1; k < arr->nkeys; k++) {
			if (pass == 0 && !(col == -1 ? k == -1 : col == k + 1))
				continue;
			if (pass == 1 && k == -1)
				continue;
			int d = pass == 0 ? dir : 1;
			enum type t = k == -1 ? arr->type : arr->key_types[k];
			char f[32];
			if (k == -1 && stats)
				snprintf(f, sizeof(f), "%s", bpf_stat_sort_field(
					 n->foreach.sort_agg));
			else if (k == -1)
				snprintf(f, sizeof(f), "v%s", t == TY_STRING ?
					 ".s" : "");
			else
				snprintf(f, sizeof(f), "k.k%d", k);
			if (t == TY_STRING)
				fprintf(e->decls, "\tc = strcmp(a->%s, b->%s);\n",
					f, f);
			else
				fprintf(e->decls, "\tc = (a->%s > b->%s) - (a->%s "
					"< b->%s);\n", f, f, f, f);
			fprintf(e->decls, "\tif (c)\n\t\treturn %sc;\n",
				d < 0 ? "-" : "");
		}
	}
	fputs("\treturn 0;\n}\n\n", e->decls);

	fputs("{ ", e->out);
	if (stats)
		bpf_emit_stat_dump(e, arr, u);
	else
		fprintf(e->out, "size_t _n%d; struct stp_e%d *_es%d = stp_dump("
			"%d, sizeof(struct stp_k%d), offsetof(struct stp_e%d, "
			"v), sizeof(struct stp_e%d), &_n%d); ", u, arr->index,
			u, arr->index, arr->index, arr->index, arr->index, u);
	if (n->foreach.slice)
		bpf_emit_slice_filter(e, arr, n->foreach.slice, u);
	if (col)
		fprintf(e->out, "qsort(_es%d, _n%d, sizeof(*_es%d), stp_cmp%d); ",
			u, u, u, u);
	fprintf(e->out, "long long _lim%d = ", u);
	if (n->foreach.limit)
		emit_expr(e, n->foreach.limit);
	else
		fputs("-1", e->out);
	fprintf(e->out, "; for (size_t _i%d = 0; _i%d < _n%d && (_lim%d < 0 || "
		"(long long)_i%d < _lim%d); _i%d++) { struct stp_e%d *_e%d = "
		"&_es%d[_i%d]; ", u, u, u, u, u, u, u, arr->index, u, u, u);
	int k = 0;
	ast_foreach(v, n->foreach.keys) {
		if (arr->key_types[k] == TY_STRING)
			fprintf(e->out, "STRCPY(TMP(%d), _e%d->k.k%d); ",
				local_slot(e, v->sym), u, k);
		else
			fprintf(e->out, "l%d = _e%d->k.k%d; ",
				local_slot(e, v->sym), u, k);
		k++;
	}
	if (n->foreach.value) {
		const struct symbol *v = n->foreach.value->sym;
		if (arr->type == TY_STRING)
			fprintf(e->out, "STRCPY(TMP(%d), _e%d->v.s); ",
				local_slot(e, v), u);
		else
			fprintf(e->out, "l%d = _e%d->v; ", local_slot(e, v), u);
	}
	const char *saved = e->loop_jb;
	e->loop_jb = e->catch_jb;
	emit_stmt(e, n->foreach.body);
	e->loop_jb = saved;
	fprintf(e->out, "} free(_es%d); }\n", u);
}

static void emit_delete(struct emitter *e, const struct node *x)
{
	if (x->kind == N_INDEX && bpf_has_wildcard(x->index.keys)) {
		bpf_emit_slice_delete(e, x->index.array->sym, x->index.keys);
	} else if (x->kind == N_INDEX) {
		int u = e->nuniq++;
		char key[32];
		snprintf(key, sizeof(key), "_k%d", u);
		fputs("{ ", e->out);
		emit_key(e, x->index.array->sym, x->index.keys, key);
		fprintf(e->out, "DELETE(%d, &%s); }\n", x->index.array->sym->index,
			key);
	} else if (x->sym->type == TY_STATS) {
		bpf_emit_stat_clear(e, x->sym);
	} else if (x->sym->nkeys > 0) {
		fprintf(e->out, "stp_clear(%d, sizeof(struct stp_k%d));\n",
			x->sym->index, x->sym->index);
	} else if (x->type == TY_STRING) {
		emit_expr(e, x);
		fputs("[0] = 0;\n", e->out);
	} else {
		emit_expr(e, x);
		fputs(" = 0;\n", e->out);
	}
}

static void emit_loop_body(struct emitter *e, const struct node *body)
{
	const char *saved = e->loop_jb;

	e->loop_jb = e->catch_jb;
	emit_stmt(e, body);
	e->loop_jb = saved;
}

/* return [EXPR]: a probe's end, or the function's value and its end. */
static void emit_return(struct emitter *e, const struct node *n)
{
	if (!e->func) {
		fputs(e->kernel ? "return;\n" : "goto stp_out;\n", e->out);
		return;
	}
	if (n->stmt.expr && e->func->sym->type == TY_STRING) {
		fputs("STRCPY(stp_ret, ", e->out);
		emit_expr(e, n->stmt.expr);
		fputs(");\n", e->out);
	} else if (n->stmt.expr) {
		fputs("stp_rv = (", e->out);
		emit_expr(e, n->stmt.expr);
		fputs(");\n", e->out);
	}
	fputs("goto stp_out;\n", e->out);
}

/*
 * try { } catch (msg) { } in the user half: the try's own jmp_buf is the
 * innermost handler while its body runs; an error longjmps there with the
 * message (without "near ...") and the call depth of the try restored.
 */
static void emit_try(struct emitter *e, const struct node *n)
{
	int u = e->nuniq++;
	char jb[32];
	const char *saved = e->catch_jb;

	snprintf(jb, sizeof(jb), "&_jb%d", u);
	fprintf(e->out, "{ jmp_buf _jb%d; int _d%d = stp_depth; stp_catch = "
		"&_jb%d; if (!setjmp(_jb%d)) {\n", u, u, u, u);
	e->catch_jb = arena_strdup(&e->s->arena, jb);
	emit_stmt(e, n->try.body);
	e->catch_jb = saved;
	fprintf(e->out, "stp_catch = %s; } else { stp_catch = %s; stp_depth = "
		"_d%d;\n", saved, saved, u);
	if (n->try.catch_var) {
		/* the catch variable is a local of the body */
		for (int i = 0; i < e->body->nlocals; i++)
			if (!strcmp(e->body->locals[i]->name, n->try.catch_var))
				fprintf(e->out, "STRCPY(TMP(%d), stp_err_what);\n",
					i);
	}
	if (n->try.handler)
		emit_stmt(e, n->try.handler);
	fputs("} }\n", e->out);
}

/* Charge one statement against MAXACTION, as the module backend does. */
static void emit_action(struct emitter *e, const struct node *n)
{
	fprintf(e->out, "ACTION(%d);\n", error_id(e, "MAXACTION exceeded", n));
}

static void emit_loop_body(struct emitter *e, const struct node *body);
static void emit_return(struct emitter *e, const struct node *n);
static void emit_try(struct emitter *e, const struct node *n);

static void emit_stmt(struct emitter *e, const struct node *n)
{
	int saved = e->ntmp;

	/* a statement with its charge: one C statement, in braces */
	bool charged = n->kind != N_BLOCK && n->kind != N_NULL_STMT;
	if (charged) {
		fputs("{ ", e->out);
		emit_action(e, n);
	}
	if ((n->kind == N_WHILE || n->kind == N_FOR) &&
	    !stmt_charges_action(n->loop.body)) {
		/* an empty body still pays per iteration */
		struct node *body = (struct node *)n->loop.body;
		fputs(n->kind == N_WHILE ? "while (" : "for (", e->out);
		if (n->kind == N_FOR) {
			if (n->loop.init)
				emit_expr(e, n->loop.init);
			fputs("; ", e->out);
		}
		if (n->loop.cond)
			emit_expr(e, n->loop.cond);
		else
			fputs("1", e->out);
		if (n->kind == N_FOR) {
			fputs("; ", e->out);
			if (n->loop.step)
				emit_expr(e, n->loop.step);
		}
		fputs(") { ", e->out);
		emit_action(e, n);
		emit_loop_body(e, body);
		fputs("}\n}\n", e->out);
		e->ntmp = saved;
		return;
	}

	switch (n->kind) {
	case N_BLOCK:
		fputs("{\n", e->out);
		ast_foreach(st, n->block.stmts)
			emit_stmt(e, st);
		fputs("}\n", e->out);
		break;
	case N_NULL_STMT:
		fputs(";\n", e->out);
		break;
	case N_EXPR_STMT:
		fputs("(void)(", e->out);
		emit_expr(e, n->stmt.expr);
		fputs(");\n", e->out);
		break;
	case N_IF:
		fputs("if (", e->out);
		emit_expr(e, n->cond.cond);
		fputs(") ", e->out);
		emit_stmt(e, n->cond.then);
		if (n->cond.els) {
			fputs("else ", e->out);
			emit_stmt(e, n->cond.els);
		}
		break;
	case N_WHILE:
		fputs("while (", e->out);
		emit_expr(e, n->loop.cond);
		fputs(") ", e->out);
		emit_loop_body(e, n->loop.body);
		break;
	case N_FOR:
		fputs("for (", e->out);
		if (n->loop.init)
			emit_expr(e, n->loop.init);
		fputs("; ", e->out);
		if (n->loop.cond)
			emit_expr(e, n->loop.cond);
		else
			fputs("1", e->out);
		fputs("; ", e->out);
		if (n->loop.step)
			emit_expr(e, n->loop.step);
		fputs(") ", e->out);
		emit_loop_body(e, n->loop.body);
		break;
	case N_FOREACH:
		emit_foreach(e, n);
		break;
	case N_BREAK:
	case N_CONTINUE:
		/* out of a try inside the loop: the loop's handler again */
		if (!e->kernel && e->loop_jb != e->catch_jb)
			fprintf(e->out, "stp_catch = %s; ", e->loop_jb);
		fputs(n->kind == N_BREAK ? "break;\n" : "continue;\n", e->out);
		break;
	case N_NEXT:
		if (!e->kernel)
			fputs("stp_next();\n", e->out);
		else if (e->func)	/* the probe ends too */
			fputs("{ S->err = 2; STP_BAIL; }\n", e->out);
		else
			fputs("return;\n", e->out);
		break;
	case N_RETURN:
		emit_return(e, n);
		break;
	case N_TRY:
		emit_try(e, n);
		break;
	case N_DELETE:
		emit_delete(e, n->stmt.expr);
		break;
	default:
		diag_error(e->s, n->loc, "the bpf backend cannot translate %s",
			   ast_kind_name(n->kind));
	}
	if (charged)
		fputs("}\n", e->out);
	e->ntmp = saved;
}

/* A body's or function's locals: strings in their temporaries, longs
 * as C locals (volatile in the user half: a try's longjmp keeps them). */
static void emit_locals(struct emitter *e, struct probe_body *b, int from)
{
	for (int i = 0; i < b->nlocals; i++) {
		int k = e->tmp_base + i;
		if (b->locals[i]->type == TY_STRING && i >= from)
			fprintf(e->out, "\tTMP(%d)[0] = 0;\n", k);
		else if (b->locals[i]->type == TY_STRING)
			fprintf(e->out, "\tSTRCPY(TMP(%d), a%d);\n", k, i);
		else if (i < from)
			fprintf(e->out, "\t%slong long l%d = a%d; (void)l%d;\n",
				e->kernel ? "" : "volatile ", k, i, k);
		else
			fprintf(e->out, "\t%slong long l%d = 0; (void)l%d;\n",
				e->kernel ? "" : "volatile ", k, k);
		new_tmp(e);
	}
	e->ntmp = 0;
}

static void emit_body(struct emitter *e, struct probe_body *b, FILE *out)
{
	e->body = b;
	e->func = NULL;
	e->ntmp = 0;
	e->out = out;
	e->catch_jb = e->loop_jb = "&stp_jb";
	bool interruptible = false;
	for (int j = 0; j < e->prog->nprobes; j++) {
		enum bpf_place p = bpf_place_of(e->prog->probes[j], NULL, NULL);
		if (e->prog->probes[j]->body == b && (p == BPF_PLACE_BEGIN ||
						     p == BPF_PLACE_END))
			interruptible = true;
	}
	/* MAXACTION, and 10 times that for begin and end (the module's
	 * MAXACTION_INTERRUPTIBLE) */
	int max = interruptible ? 10000 : 1000;
	if (e->kernel) {
		fprintf(out, "STP_FN void stp_b%d(void)\n{\n\tBODY_PROLOGUE\n"
			"\tlong stp_actions = 0, stp_max_actions = %d;\n",
			b->index, max);
	} else {
		/* an error ends the probe here: said by the loader */
		fprintf(out, "static void stp_b%d(void)\n{\n"
			"\tchar stp_tmp[STP_TMPS][STP_STR];\n\tjmp_buf stp_jb;\n"
			"\tstp_actions = 0;\n\tstp_max_actions = %d;\n"
			"\tstp_depth = 0;\n\tstp_catch = stp_body_jb = &stp_jb;\n"
			"\tswitch (setjmp(stp_jb)) {\n\tcase 0: break;\n"
			"\tcase 1: rt->error_text(stp_err_full); return;\n"
			"\tdefault: return;\n\t}\n", b->index, max);
	}
	emit_locals(e, b, 0);
	emit_stmt(e, b->probe->probe.body);
	fputs(e->kernel ? "}\n\n" : "stp_out: ;\n}\n\n", out);
}

/* A script function's C signature (the user half). */
static void func_signature(struct emitter *e, const struct script_func *f,
			   FILE *out)
{
	if (e->kernel)
		fprintf(out, "STP_FN long long stp_kf%d(struct stp_scratch *S, "
			"long *stp_ap, long stp_max_actions, char *stp_ret",
			f->index);
	else
		fprintf(out, "static long long stp_f%d(char *stp_ret", f->index);
	for (int i = 0; i < f->nparams; i++)
		fprintf(out, f->scope->locals[i]->type == TY_STRING ?
			", const char *a%d" : ", long long a%d", i);
	fputc(')', out);
}

/* A script function (user half): its frame on the C stack, MAXNESTING
 * counted in stp_depth, a string result in the caller's stp_ret. */
static void emit_function(struct emitter *e, const struct script_func *f,
			  FILE *out)
{
	struct probe_body *b = f->scope;
	const struct program *prog = e->prog;
	int nesting = prog->max_nesting < 0 ? prog->recursive_nesting :
		      prog->max_nesting > 2 ? prog->max_nesting - 1 : 1;

	e->body = b;
	e->func = f;
	e->ntmp = 0;
	e->out = out;
	e->catch_jb = e->loop_jb = "stp_saved_catch";
	if (e->kernel) {
		/* inlined; no recursion (pass 2), so no nesting count */
		fputs("#undef STP_BAIL\n#define STP_BAIL return 0\n"
		      "#define stp_actions (*stp_ap)\n", out);
		func_signature(e, f, out);
		fputs("\n{\n\tlong long stp_rv = 0;\n\tif (stp_ret)\n"
		      "\t\tstp_ret[0] = 0;\n", out);
		emit_locals(e, b, f->nparams);
		emit_stmt(e, b->probe->func.body);
		fputs("stp_out:\n\treturn stp_rv;\n}\n#undef stp_actions\n"
		      "#undef STP_BAIL\n#define STP_BAIL return\n\n", out);
		e->func = NULL;
		return;
	}
	func_signature(e, f, out);
	fprintf(out, "\n{\n\tchar stp_tmp[STP_TMPS][STP_STR];\n"
		"\tlong long stp_rv = 0;\n\tjmp_buf *stp_saved_catch = "
		"stp_catch;\n\tif (stp_ret)\n\t\tstp_ret[0] = 0;\n"
		"\tif (stp_depth >= %d)\n\t\tERROR(%d);\n\tstp_depth++;\n",
		nesting, error_id(e, "MAXNESTING exceeded", f->decl));
	emit_locals(e, b, f->nparams);
	emit_stmt(e, b->probe->func.body);
	fputs("stp_out:\n\tstp_catch = stp_saved_catch;\n\tstp_depth--;\n"
	      "\treturn stp_rv;\n}\n\n", out);
	e->func = NULL;
}

void bpf_emit_expr(struct emitter *e, const struct node *n)
{
	emit_expr(e, n);
}

void bpf_emit_key(struct emitter *e, const struct symbol *sym,
		  const struct node *keys, const char *name)
{
	emit_key(e, sym, keys, name);
}

int bpf_error_id(struct emitter *e, const char *what, const struct node *n)
{
	return error_id(e, what, n);
}

int bpf_overflow_id(struct emitter *e, const struct node *array)
{
	return overflow_id(e, array);
}

static void mark_callees(const struct probe_body *b, bool *in_kernel)
{
	for (int i = 0; i < b->ncallees; i++) {
		const struct script_func *f = b->callees[i];
		if (in_kernel[f->index])
			continue;
		in_kernel[f->index] = true;
		mark_callees(f->scope, in_kernel);
	}
}

/* The functions kernel probes call, directly or not. */
static void kernel_functions(const struct program *prog, bool *in_kernel)
{
	for (int j = 0; j < prog->nprobes; j++)
		if (bpf_place_in_kernel(bpf_place_of(prog->probes[j], NULL,
							     NULL)))
			mark_callees(prog->probes[j]->body, in_kernel);
}

/* The most context values a body reads (the scratch's slots). */
static int max_ctxvars(const struct program *prog)
{
	int n = 1;

	for (int i = 0; i < prog->nbodies; i++)
		if (prog->bodies[i]->nctxvars > n)
			n = prog->bodies[i]->nctxvars;
	return n;
}

int bpf_emit(struct session *s, struct program *prog, FILE *out)
{
	struct emitter e = { .s = s, .prog = prog };
	char *kbuf = NULL, *ubuf = NULL, *dbuf = NULL;
	size_t klen = 0, ulen = 0, dlen = 0;
	FILE *kf = open_memstream(&kbuf, &klen);
	FILE *uf = open_memstream(&ubuf, &ulen);
	e.decls = open_memstream(&dbuf, &dlen);

	for (int i = 0; i < prog->nglobals; i++)
		prog->globals[i]->index = i;
	/* the functions kernel probes call, inlined there: each with
	 * scratch slots of its own (no recursion, pass 2) */
	char *fbuf = NULL;
	size_t flen = 0;
	FILE *ff = open_memstream(&fbuf, &flen);
	bool *in_kernel = calloc((size_t)prog->nfuncs + 1, sizeof(bool));
	kernel_functions(prog, in_kernel);
	e.kernel = true;
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!in_kernel[f->index] || bpf_func_native(f))
			continue;
		func_signature(&e, f, ff);
		fputs(";\n", ff);
	}
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!in_kernel[f->index] || bpf_func_native(f))
			continue;
		e.tmp_base = e.maxtmp;
		emit_function(&e, f, ff);
	}
	free(in_kernel);
	fclose(ff);
	int kernel_base = e.maxtmp;
	/* each body in the halves that run it */
	for (int i = 0; i < prog->nbodies; i++) {
		struct probe_body *b = prog->bodies[i];
		bool k = false, u = false;
		if (b->func)
			continue;
		for (int j = 0; j < prog->nprobes; j++) {
			if (prog->probes[j]->body != b)
				continue;
			enum bpf_place p = bpf_place_of(prog->probes[j], NULL,
							NULL);
			k |= bpf_place_in_kernel(p);
			u |= p == BPF_PLACE_BEGIN || p == BPF_PLACE_END ||
			     p == BPF_PLACE_TIMER;
		}
		e.kernel = true;
		e.tmp_base = kernel_base;
		if (k)
			emit_body(&e, b, kf);
		e.kernel = false;
		e.tmp_base = 0;
		if (u)
			emit_body(&e, b, uf);
	}
	/* the script functions, in the user half (pass 2 refuses calls in
	 * the kernel's): declared first, for recursion */
	e.kernel = false;
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!f->used || bpf_func_native(f))
			continue;
		func_signature(&e, f, e.decls);
		fputs(";\n", e.decls);
		emit_function(&e, f, uf);
	}
	fclose(kf);
	fclose(uf);
	fclose(e.decls);
	e.out = out;

	fprintf(out, "/* stap --runtime=bpf: clang -target bpf for the kernel "
		"half, cc -shared for the loader's */\n#define STP_TMPS %d\n"
		"#define STP_NCTX %d\n", e.maxtmp > 0 ? e.maxtmp : 1,
		max_ctxvars(prog));
	/* the prelude, struct stp_rt's declaration in it (bpf.h) */
	const char *decl = strstr(bpf_prelude, "STP_RT_DECL");
	fwrite(bpf_prelude, 1, (size_t)(decl - bpf_prelude), out);
	fputs(rt_decl, out);
	fputs(decl + strlen("STP_RT_DECL"), out);
	/* the globals: scalars in .bss, arrays as hash maps */
	/* the loader's fields first (bpf.h, struct stp_globals_head) */
	fputs("struct stp_globals {\n\tlong long stp_time_off;\n"
	      "\tunsigned long long stp_lost, stp_lost_errors, stp_exit;\n"
	      "\tlong long stp_target;\n",
	      out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (g->nkeys || g->type == TY_STATS)
			continue;
		if (g->type == TY_STRING)
			fprintf(out, "\tchar g%d[STP_STR];\n", i);
		else
			fprintf(out, "\tlong long g%d;\n", i);
	}
	fputs("};\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (!g->nkeys)
			continue;
		fprintf(out, "struct stp_k%d {", i);
		for (int k = 0; k < g->nkeys; k++)
			fprintf(out, g->key_types[k] == TY_STRING ?
				" char k%d[STP_STR];" : " long long k%d;", k);
		fputs(" };\n", out);
		if (g->type != TY_STATS)
			fprintf(out, "struct stp_e%d { struct stp_k%d k; %s v; };\n",
				i, i, ctype(g->type));
	}
	for (int i = 0; i < prog->nglobals; i++)
		if (prog->globals[i]->type == TY_STATS)
			bpf_stat_decls(out, prog->globals[i]);
	for (int i = 0; i < e.nfmts; i++) {
		fprintf(out, "struct stp_rec%d { struct stp_hdr h;", i);
		for (int a = 0; e.fmts[i].types[a]; a++)
			fprintf(out, e.fmts[i].types[a] == 's' ?
				" char a%d[STP_STR];" : " long long a%d;", a);
		fputs(" };\n", out);
	}
	fprintf(out, "#ifdef __bpf__\nstruct stp_globals G;\n"
		"struct stp_scratch { char t[STP_TMPS][STP_STR]; "
		"long long c[STP_NCTX], ret; unsigned long long fm; int err; "
		"unsigned probe; };\n"
		"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
		"__uint(max_entries, 1); __type(key, __u32); __type(value, "
		"struct stp_scratch); } stp_scr SEC(\".maps\");\n");
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		long long max = g->decl && g->decl->global.max_entries ?
				g->decl->global.max_entries : 2048;
		if (g->type == TY_STATS && !g->nkeys) {
			fprintf(out, "struct { __uint(type, "
				"BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, "
				"1); __type(key, __u32); __type(value, struct "
				"stp_s%d); } stp_m%d SEC(\".maps\");\n", i, i);
			continue;
		}
		if (!g->nkeys)
			continue;
		if (g->type == TY_STATS) {
			fprintf(out, "struct { __uint(type, "
				"BPF_MAP_TYPE_PERCPU_HASH); __uint(max_entries, "
				"%lld); __type(key, struct stp_k%d); __type(value,"
				" struct stp_s%d); } stp_m%d SEC(\".maps\");\n"
				"const struct stp_s%d stp_z%d;\n", max, i, i, i,
				i, i);
			continue;
		}
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_HASH); "
			"__uint(max_entries, %lld); __type(key, struct stp_k%d);"
			" __type(value, %s); } stp_m%d SEC(\".maps\");\n", max,
			i, ctype(g->type), i);
	}
	bpf_emit_uprobe_names(prog, out);
	bpf_emit_ustack(s, prog, out);
	bpf_emit_kstack(prog, out);
	fwrite(fbuf, 1, flen, out);
	fwrite(kbuf, 1, klen, out);
	free(fbuf);
	if (bpf_emit_programs(s, prog, out))
		s->nerrors++;
	fputs("#else\n", out);
	fwrite(dbuf, 1, dlen, out);
	fwrite(ubuf, 1, ulen, out);
	/* the loader's tables: begin(N) and end(N) in order of N, then
	 * of the script (the module's order) */
	static const char *const lists[] = { "begin", "end" };
	for (int l = 0; l < 2; l++) {
		fprintf(out, "void (*const stp_%s[])(void) = { ", lists[l]);
		long long lo = 0, hi = 0;
		for (int round = 0; round < 2; round++)
			for (int j = 0; j < prog->nprobes; j++) {
				const char *pp = prog->probes[j]->pp;
				long long prio = strchr(pp, '(') ?
					strtoll(strchr(pp, '(') + 1, NULL, 0) : 0;
				if (bpf_place_of(prog->probes[j], NULL, NULL) !=
				    (l ? BPF_PLACE_END : BPF_PLACE_BEGIN))
					continue;
				if (round == 0) {
					lo = prio < lo ? prio : lo;
					hi = prio > hi ? prio : hi;
				}
			}
		/* few distinct priorities in practice: one pass each */
		for (long long p = lo; p <= hi; p++) {
			long long next = hi + 1;
			for (int j = 0; j < prog->nprobes; j++) {
				const char *pp = prog->probes[j]->pp;
				long long prio = strchr(pp, '(') ?
					strtoll(strchr(pp, '(') + 1, NULL, 0) : 0;
				if (bpf_place_of(prog->probes[j], NULL, NULL) !=
				    (l ? BPF_PLACE_END : BPF_PLACE_BEGIN))
					continue;
				if (prio == p)
					fprintf(out, "stp_b%d, ",
						prog->probes[j]->body->index);
				else if (prio > p && prio < next)
					next = prio;
			}
			p = next - 1;
		}
		fputs("NULL };\n", out);
	}
	fputs("const struct { unsigned long long ns; void (*fn)(void); } "
	      "stp_timers[] = { ", out);
	for (int j = 0; j < prog->nprobes; j++) {
		unsigned long long ns;
		if (bpf_place_of(prog->probes[j], NULL, &ns) == BPF_PLACE_TIMER)
			fprintf(out, "{ %lluULL, stp_b%d }, ", ns,
				prog->probes[j]->body->index);
	}
	fputs("{ 0, NULL } };\n", out);
	bpf_emit_perf_table(s, prog, out);
	fputs("const struct { const char *fmt; unsigned len; "
	      "const char *types; } stp_fmts[] = {\n", out);
	for (int i = 0; i < e.nfmts; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.fmts[i].fmt;
		str.str.len = e.fmts[i].len;
		fputs("\t{ ", out);
		emit_expr(&e, &str);
		fprintf(out, ", %zu, \"%s\" },\n", e.fmts[i].len,
			e.fmts[i].types);
	}
	fputs("\t{ NULL, 0, NULL } };\nconst char *const stp_error_whats[] = {\n",
	      out);
	for (int i = 0; i < e.nerrors; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.whats[i];
		str.str.len = strlen(e.whats[i]);
		fputs("\t", out);
		emit_expr(&e, &str);
		fputs(",\n", out);
	}
	fputs("\tNULL };\nconst char *const stp_errors[] = {\n", out);
	for (int i = 0; i < e.nerrors; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.errors[i];
		str.str.len = strlen(e.errors[i]);
		fputs("\t", out);
		emit_expr(&e, &str);
		fputs(",\n", out);
	}
	fprintf(out, "\tNULL };\nconst int stp_nmaps = %d;\n"
		"void stp_user_init(struct stp_rt *r)\n{\n\trt = r;\n",
		prog->nglobals);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const struct node *init = g->decl ? g->decl->global.init : NULL;
		if (g->nkeys || !init)
			continue;
		if (g->type == TY_STRING) {
			fprintf(out, "\tstp_strcpy(G.g%d, ", i);
			emit_expr(&e, init);
			fputs(");\n", out);
		} else {
			fprintf(out, "\tG.g%d = ", i);
			emit_expr(&e, init);
			fputs(";\n", out);
		}
	}
	fputs("}\n#endif\n", out);
	free(e.fmts);
	free(e.errors);
	free(e.whats);
	free(kbuf);
	free(ubuf);
	free(dbuf);
	return s->nerrors ? 1 : 0;
}
