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

#include "bpf/bpf.h"
#include "semantic/semantic.h"
#include "parser/diag.h"

struct fmt {
	const struct node *print;	/* its N_PRINT */
	char *fmt;			/* printf's format */
	char types[16];			/* 'l' long, 's' string per argument */
};

struct emitter {
	struct session *s;
	struct program *prog;
	FILE *out;			/* the body being written */
	FILE *decls;			/* file-scope helpers (comparators) */
	struct probe_body *body;
	int ntmp, maxtmp;		/* string temporaries of this body */
	int nuniq;			/* unique C names */
	struct fmt *fmts;
	int nfmts, fmts_cap;
	const char **errors;		/* run-time error messages, by id */
	int nerrors, errors_cap;
	bool kernel;			/* emitting the BPF half */
};

static void emit_expr(struct emitter *e, const struct node *n);
static void emit_stmt(struct emitter *e, const struct node *n);

static int local_slot(struct emitter *e, const struct symbol *sym)
{
	for (int i = 0; i < e->body->nlocals; i++)
		if (e->body->locals[i] == sym)
			return i;
	return 0;
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
	int t = e->body->nlocals + e->ntmp++;

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
				fprintf(e->out, "if (!_d%d) ERROR(%d); _r%d = _r%d "
					"%s _d%d; ", u, error_id(e, "division by 0",
					rhs), u, u, op == OP_DIV ? "/" : "%", u);
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
		fprintf(e->out, "if (!_d%d) ERROR(%d); %s = %s %s _d%d; })", u,
			error_id(e, "division by 0", rhs), lv, lv,
			op == OP_DIV ? "/" : "%", u);
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

static void emit_call(struct emitter *e, const struct node *n)
{
	const char *name = n->call.name;

	if (!strcmp(name, "exit"))
		fputs("(EXIT(), 0)", e->out);
	else if (!strcmp(name, "execname"))
		fprintf(e->out, "EXECNAME(TMP(%d))", new_tmp(e));
	else if (!strcmp(name, "pid"))
		fputs("PID()", e->out);
	else if (!strcmp(name, "tid"))
		fputs("TID()", e->out);
	else if (!strcmp(name, "cpu"))
		fputs("CPU()", e->out);
	else if (!strcmp(name, "gettimeofday_ns"))
		fputs("NOW_NS()", e->out);
	else if (!strcmp(name, "gettimeofday_us"))
		fputs("(NOW_NS() / 1000)", e->out);
	else if (!strcmp(name, "gettimeofday_ms"))
		fputs("(NOW_NS() / 1000000)", e->out);
	else if (!strcmp(name, "gettimeofday_s"))
		fputs("(NOW_NS() / 1000000000)", e->out);
	else
		diag_error(e->s, n->loc, "the bpf backend has no %s()", name);
}

static int fmt_id(struct emitter *e, const struct node *n)
{
	for (int i = 0; i < e->nfmts; i++)
		if (e->fmts[i].print == n)
			return i;
	VEC_PUSH(e->fmts, e->nfmts, e->fmts_cap, (struct fmt){ .print = n });
	struct fmt *f = &e->fmts[e->nfmts - 1];
	const struct node *args = n->print.args;
	int na = 0;

	if (n->print.kind == PRINT_PRINTF) {
		f->fmt = (char *)args->str.value;
		args = args->next;
	} else {
		f->fmt = args->type == TY_STRING ? "%s" : "%d";
		if (n->print.kind == PRINT_PRINTLN)
			f->fmt = args->type == TY_STRING ? "%s\n" : "%d\n";
	}
	for (struct node *a = (struct node *)args; a; a = a->next)
		if (na < (int)sizeof(f->types) - 1)
			f->types[na++] = a->type == TY_STRING ? 's' : 'l';
	if (ast_list_length(args) >= (int)sizeof(f->types))
		diag_error(e->s, n->loc, "the bpf backend prints up to %d values "
			   "at once", (int)sizeof(f->types) - 1);
	return e->nfmts - 1;
}

static void emit_print(struct emitter *e, const struct node *n)
{
	int id = fmt_id(e, n);
	const struct node *args = n->print.args;

	if (n->print.kind == PRINT_PRINTF)
		args = args->next;
	/* the values first: one may end the probe (a read fault's error)
	 * before a record is reserved */
	int u = e->nuniq++, i = 0;
	fputs("({ ", e->out);
	for (struct node *a = (struct node *)args; a; a = a->next, i++) {
		fprintf(e->out, a->type == TY_STRING ? "const char *_p%d_%d = " :
			"long long _p%d_%d = (", u, i);
		emit_expr(e, a);
		fputs(a->type == TY_STRING ? "; " : "); ", e->out);
	}
	fprintf(e->out, "PRINT_BEGIN(struct stp_rec%d) r->h.kind = 0; "
		"r->h.id = %d; ", id, id);
	i = 0;
	for (struct node *a = (struct node *)args; a; a = a->next, i++)
		fprintf(e->out, a->type == TY_STRING ? "STRCPY(r->a%d, _p%d_%d); " :
			"r->a%d = _p%d_%d; ", i, u, i);
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
		int u = e->nuniq++;
		char key[32];
		snprintf(key, sizeof(key), "_k%d", u);
		fputs("({ ", e->out);
		emit_key(e, sym, n->binary.lhs, key);
		fprintf(e->out, "%s _b%d; LOOKUP(%d, &%s, &_b%d) != 0; })",
			ctype(sym->type), u, sym->index, key, u);
		break;
	}
	case N_BINARY:
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
			fputs("(strcmp(", e->out);
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
			fprintf(e->out, "); if (!_y%d) ERROR(%d); _x%d %s _y%d; })",
				u, error_id(e, "division by 0", n), u,
				n->binary.op == OP_DIV ? "/" : "%", u);
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
	case N_INCDEC:
		emit_long_update(e, n->incdec.operand, OP_ADD, NULL,
				 n->incdec.increment ? 1 : -1, !n->incdec.prefix);
		break;
	case N_ASSIGN:
		if (n->binary.lhs->type == TY_STRING)
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
			if (k == -1)
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

	fprintf(e->out, "{ size_t _n%d; struct stp_e%d *_es%d = stp_dump(%d, "
		"sizeof(struct stp_k%d), offsetof(struct stp_e%d, v), "
		"sizeof(struct stp_e%d), &_n%d); ", u, arr->index, u,
		arr->index, arr->index, arr->index, arr->index, u);
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
	emit_stmt(e, n->foreach.body);
	fprintf(e->out, "} free(_es%d); }\n", u);
}

static void emit_delete(struct emitter *e, const struct node *x)
{
	if (x->kind == N_INDEX) {
		int u = e->nuniq++;
		char key[32];
		snprintf(key, sizeof(key), "_k%d", u);
		fputs("{ ", e->out);
		emit_key(e, x->index.array->sym, x->index.keys, key);
		fprintf(e->out, "DELETE(%d, &%s); }\n", x->index.array->sym->index,
			key);
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

/* Charge one statement against MAXACTION, as the module backend does. */
static void emit_action(struct emitter *e, const struct node *n)
{
	fprintf(e->out, "ACTION(%d);\n", error_id(e, "MAXACTION exceeded", n));
}

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
		emit_stmt(e, body);
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
		emit_stmt(e, n->loop.body);
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
		emit_stmt(e, n->loop.body);
		break;
	case N_FOREACH:
		emit_foreach(e, n);
		break;
	case N_BREAK:
		fputs("break;\n", e->out);
		break;
	case N_CONTINUE:
		fputs("continue;\n", e->out);
		break;
	case N_NEXT:
	case N_RETURN:
		fputs("return;\n", e->out);
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

static void emit_body(struct emitter *e, struct probe_body *b, FILE *out)
{
	e->body = b;
	e->ntmp = 0;
	e->out = out;
	bool interruptible = false;
	for (int j = 0; j < e->prog->nprobes; j++) {
		enum bpf_place p = bpf_place_of(e->prog->probes[j], NULL, NULL);
		if (e->prog->probes[j]->body == b && (p == BPF_PLACE_BEGIN ||
						     p == BPF_PLACE_END))
			interruptible = true;
	}
	/* MAXACTION, and 10 times that for begin and end (the module's
	 * MAXACTION_INTERRUPTIBLE) */
	fprintf(out, "STP_FN void stp_b%d(void)\n{\n\tBODY_PROLOGUE\n"
		"\tlong stp_actions = 0, stp_max_actions = %d;\n", b->index,
		interruptible ? 10000 : 1000);
	for (int i = 0; i < b->nlocals; i++) {
		if (b->locals[i]->type == TY_STRING)
			fprintf(out, "\tTMP(%d)[0] = 0;\n", i);
		else
			fprintf(out, "\tlong long l%d = 0; (void)l%d;\n", i, i);
		new_tmp(e);
	}
	e->ntmp = 0;
	emit_stmt(e, b->probe->probe.body);
	fputs("}\n\n", out);
}

/* The C before the bodies: each half's macros. */
static const char prelude[] =
"#define STP_STR " "128" "\n"
"struct stp_hdr { unsigned kind, id; };\n"
"struct stp_sv { char s[STP_STR]; };\n"
"struct stp_fault { struct stp_hdr h; unsigned long long addr; };\n"
"#ifdef __bpf__\n"
"#include <linux/bpf.h>\n"
"#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_core_read.h>\n"
"#define CTXV(k, i) ({ if ((i) >= 0 && (S->fm & (1ULL << (k)))) { "
"struct stp_fault *x = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0); "
"G.stp_exit = 1; if (x) { x->h.kind = 3; x->h.id = (i); x->addr = S->c[k]; "
"bpf_ringbuf_submit(x, 0); } else __sync_fetch_and_add(&G.stp_lost_errors, "
"1); return; } S->c[k]; })\n#define RETV() (S->ret)\n"
"char LICENSE[] SEC(\"license\") = \"GPL\";\n"
"#define STP_FN static __attribute__((always_inline)) inline\n"
"#define LOOKUP(i, k, b) bpf_map_lookup_elem(&stp_m##i, k)\n"
"#define UPDATE(i, k, v) bpf_map_update_elem(&stp_m##i, k, v, BPF_ANY)\n"
"#define DELETE(i, k) bpf_map_delete_elem(&stp_m##i, k)\n"
"#define ADD_IN_PLACE(i, k, v, d) (__sync_fetch_and_add(v, d) + (d))\n"
"#define ADD_GLOBAL(lv, d) ({ long long d_ = (d); "
"__sync_fetch_and_add(&(lv), d_) + d_; })\n"
"#define STRCPY(d, s) bpf_probe_read_kernel_str(d, STP_STR, s)\n"
"#define TMP(i) (S->t[i])\n"
"#define PRINT_BEGIN(T) T *r = bpf_ringbuf_reserve(&stp_rb, sizeof(T), 0); "
"if (!r) __sync_fetch_and_add(&G.stp_lost, 1); else {\n"
"#define PRINT_END bpf_ringbuf_submit(r, 0); }\n"
"#define EXECNAME(d) (bpf_get_current_comm(d, 16), (d))\n"
"#define PID() ((long long)(bpf_get_current_pid_tgid() >> 32))\n"
"#define TID() ((long long)(unsigned)bpf_get_current_pid_tgid())\n"
"#define CPU() ((long long)bpf_get_smp_processor_id())\n"
"#define NOW_NS() ((long long)bpf_ktime_get_ns() + G.stp_time_off)\n"
"#define EXIT() ({ struct stp_hdr *x = bpf_ringbuf_reserve(&stp_rb, "
"sizeof(*x), 0); G.stp_exit = 1; if (x) { x->kind = 1; x->id = 0; "
"bpf_ringbuf_submit(x, 0); } })\n"
"#define ERROR(i) ({ struct stp_hdr *x = bpf_ringbuf_reserve(&stp_rb, "
"sizeof(*x), 0); G.stp_exit = 1; if (x) { x->kind = 2; x->id = i; "
"bpf_ringbuf_submit(x, 0); } else __sync_fetch_and_add(&G.stp_lost_errors, "
"1); return; })\n"
"#define ACTION(i) ({ if (++stp_actions > stp_max_actions) ERROR(i); })\n"
"#define BODY_PROLOGUE struct stp_scratch *S; { __u32 z = 0; "
"S = bpf_map_lookup_elem(&stp_scr, &z); if (!S) return; }\n"
"struct { __uint(type, BPF_MAP_TYPE_RINGBUF); __uint(max_entries, 1 << 20); }"
" stp_rb SEC(\".maps\");\n"
"#else\n"
"#include <stddef.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
"#include <string.h>\n#include <time.h>\n#include <unistd.h>\n"
"#include <sys/prctl.h>\n#include <sys/syscall.h>\n#include <bpf/bpf.h>\n"
"struct stp_rt { int *map_fds; void *globals; "
"void (*print)(const void *rec, unsigned len); void (*exit)(void); "
"void (*error)(unsigned id); };\n"
"static struct stp_rt *rt;\n"
"#define STP_FN static\n"
"#define G (*(struct stp_globals *)rt->globals)\n"
"#define LOOKUP(i, k, b) (bpf_map_lookup_elem(rt->map_fds[i], k, b) ? "
"NULL : (b))\n"
"#define UPDATE(i, k, v) bpf_map_update_elem(rt->map_fds[i], k, v, BPF_ANY)\n"
"#define DELETE(i, k) bpf_map_delete_elem(rt->map_fds[i], k)\n"
"#define ADD_IN_PLACE(i, k, v, d) (*(v) += (d), UPDATE(i, k, v), *(v))\n"
"#define ADD_GLOBAL(lv, d) ((lv) += (d))\n"
"#define STRCPY(d, s) stp_strcpy(d, s)\n"
"#define TMP(i) (stp_tmp[i])\n"
"#define PRINT_BEGIN(T) T rb_, *r = &rb_; memset(r, 0, sizeof(*r)); {\n"
"#define PRINT_END rt->print(r, sizeof(*r)); }\n"
"#define EXECNAME(d) (prctl(PR_GET_NAME, d), (d))\n"
"#define PID() ((long long)getpid())\n"
"#define TID() ((long long)syscall(SYS_gettid))\n"
"#define CPU() ((long long)sched_getcpu())\n"
"#define NOW_NS() stp_now_ns()\n"
"#define EXIT() rt->exit()\n"
"#define ERROR(i) ({ rt->error(i); return; })\n"
"#define ACTION(i) ({ if (++stp_actions > stp_max_actions) ERROR(i); })\n"
"#define BODY_PROLOGUE\n#define CTXV(k, i) 0LL\n#define RETV() 0LL\n"
"int sched_getcpu(void);\n"
"static char stp_tmp[STP_TMPS][STP_STR];\n"
"static char *stp_strcpy(char *d, const char *s)\n"
"{\n\tif (d != s) {\n\t\tsize_t n = strnlen(s, STP_STR - 1);\n"
"\t\tmemmove(d, s, n);\n\t\tmemset(d + n, 0, STP_STR - n);\n\t}\n"
"\treturn d;\n}\n"
"static long long stp_now_ns(void)\n{\n\tstruct timespec t;\n"
"\tclock_gettime(CLOCK_REALTIME, &t);\n"
"\treturn t.tv_sec * 1000000000LL + t.tv_nsec;\n}\n"
"static void *stp_dump(int m, size_t ks, size_t voff, size_t es, size_t *n)\n"
"{\n\tchar *buf = NULL, key[ks], next[ks];\n\tsize_t cap = 0;\n"
"\tvoid *prev = NULL;\n\t*n = 0;\n"
"\twhile (!bpf_map_get_next_key(rt->map_fds[m], prev, next)) {\n"
"\t\tif (*n == cap && !(buf = realloc(buf, (cap = cap * 2 + 16) * es)))\n"
"\t\t\tabort();\n"
"\t\tmemcpy(buf + *n * es, next, ks);\n"
"\t\tif (!bpf_map_lookup_elem(rt->map_fds[m], next, buf + *n * es + voff))\n"
"\t\t\t(*n)++;\n"
"\t\tmemcpy(key, next, ks);\n\t\tprev = key;\n\t}\n\treturn buf;\n}\n"
"static void stp_clear(int m, size_t ks)\n{\n\tchar key[ks];\n"
"\twhile (!bpf_map_get_next_key(rt->map_fds[m], NULL, key))\n"
"\t\tbpf_map_delete_elem(rt->map_fds[m], key);\n}\n"
"#endif\n"
"static char *stp_strcat(char *d, const char *s)\n{\n"
"\tunsigned i = 0, j = 0;\n"
"\twhile (i < STP_STR - 1 && d[i])\n\t\ti++;\n"
"\twhile (i < STP_STR - 1 && s[j])\n\t\td[i++] = s[j++];\n"
"\td[i] = 0;\n\treturn d;\n}\n";

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
		if (k)
			emit_body(&e, b, kf);
		e.kernel = false;
		if (u)
			emit_body(&e, b, uf);
	}
	fclose(kf);
	fclose(uf);
	fclose(e.decls);
	e.out = out;

	fprintf(out, "/* stap --runtime=bpf: clang -target bpf for the kernel "
		"half, cc -shared for the loader's */\n#define STP_TMPS %d\n"
		"#define STP_NCTX %d\n%s", e.maxtmp > 0 ? e.maxtmp : 1,
		max_ctxvars(prog), prelude);
	/* the globals: scalars in .bss, arrays as hash maps */
	/* the loader's fields first (bpf.h, struct stp_globals_head) */
	fputs("struct stp_globals {\n\tlong long stp_time_off;\n"
	      "\tunsigned long long stp_lost, stp_lost_errors, stp_exit;\n",
	      out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (g->nkeys)
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
		fprintf(out, " };\nstruct stp_e%d { struct stp_k%d k; %s v; };\n",
			i, i, ctype(g->type));
	}
	for (int i = 0; i < e.nfmts; i++) {
		fprintf(out, "struct stp_rec%d { struct stp_hdr h;", i);
		for (int a = 0; e.fmts[i].types[a]; a++)
			fprintf(out, e.fmts[i].types[a] == 's' ?
				" char a%d[STP_STR];" : " long long a%d;", a);
		fputs(" };\n", out);
	}
	fprintf(out, "#ifdef __bpf__\nstruct stp_globals G;\n"
		"struct stp_scratch { char t[STP_TMPS][STP_STR]; "
		"long long c[STP_NCTX], ret; unsigned long long fm; };\n"
		"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
		"__uint(max_entries, 1); __type(key, __u32); __type(value, "
		"struct stp_scratch); } stp_scr SEC(\".maps\");\n");
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (!g->nkeys)
			continue;
		long long max = g->decl && g->decl->global.max_entries ?
				g->decl->global.max_entries : 2048;
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_HASH); "
			"__uint(max_entries, %lld); __type(key, struct stp_k%d);"
			" __type(value, %s); } stp_m%d SEC(\".maps\");\n", max,
			i, ctype(g->type), i);
	}
	fwrite(kbuf, 1, klen, out);
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
	fputs("const struct { const char *fmt, *types; } "
	      "stp_fmts[] = {\n", out);
	for (int i = 0; i < e.nfmts; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.fmts[i].fmt;
		str.str.len = strlen(e.fmts[i].fmt);
		fputs("\t{ ", out);
		emit_expr(&e, &str);
		fprintf(out, ", \"%s\" },\n", e.fmts[i].types);
	}
	fputs("\t{ NULL, NULL } };\nconst char *const stp_errors[] = {\n", out);
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
	free(kbuf);
	free(ubuf);
	free(dbuf);
	return s->nerrors ? 1 : 0;
}
