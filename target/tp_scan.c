// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading one trace header's text for the tracepoint catalog (see
 * tp_scan.h; the catalog itself is tracepoints.c).
 *
 * Per header: comments are removed and lines spliced, the text is split
 * into tokens, and a small preprocessor walks them: #if/#ifdef/#elif are
 * evaluated against .config (CONFIG_X=y/m, IS_ENABLED()) and the header's
 * own #defines; #include is ignored. Text outside directives is collected
 * and, whenever the macro table is about to change (#define, #undef) or at
 * the end, expanded with the header's function-like and object-like macros
 * (so "DEFINE_RPC_RUNNING_EVENT(begin)" becomes a DEFINE_EVENT), then
 * scanned for the event macros. Invariant: every tracepoint recorded has a
 * non-empty system and name; args are present only when args_ok.
 *
 * Scratch memory (text, tokens, macros) lives in a per-header arena freed
 * after the header; results are xmalloc'ed for the catalog to copy.
 */
#define _GNU_SOURCE
#include "target/tp_scan.h"
#include "target/target.h"
#include "lib/hash.h"
#include "lib/files.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Small helpers */

static bool is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static bool is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* ------------------------------------------------------------------ */
/* Kernel configuration (.config) */

struct cfg_ent {
	char *name;
	char *value;		/* "y", "m", "123", "\"str\"" */
	struct cfg_ent *next;
};

#define CFG_BUCKETS 4096

struct kconfig {
	struct cfg_ent *b[CFG_BUCKETS];
	struct arena arena;
};

static unsigned int hash_str(const char *s, size_t n)
{
	return (unsigned int)fnv1a(FNV_OFFSET, s, n);
}

const char *kconfig_get(const struct kconfig *k, const char *s, size_t n)
{
	const struct cfg_ent *e;

	for (e = k->b[hash_str(s, n) % CFG_BUCKETS]; e; e = e->next)
		if (strlen(e->name) == n && memcmp(e->name, s, n) == 0)
			return e->value;
	return NULL;
}

static void cfg_set(struct kconfig *k, const char *name, size_t n,
		    const char *value)
{
	struct cfg_ent *e = arena_alloc(&k->arena, sizeof(*e));
	unsigned int h = hash_str(name, n) % CFG_BUCKETS;

	e->name = arena_strndup(&k->arena, name, n);
	e->value = arena_strdup(&k->arena, value);
	e->next = k->b[h];
	k->b[h] = e;
}

/*
 * What the compiler and the headers a trace header is compiled with define
 * beyond .config: a module build (MODULE, __KERNEL__), CREATE_TRACE_POINTS
 * (module.h defines TRACE_SYSTEM only then), the word size, and the
 * architecture's __KVM_HAVE_* feature macros from its uapi kvm.h.
 */
void kconfig_predefine(struct kconfig *k, const char *arch,
			  const char *const *roots, int nroots)
{
	bool is64 = kconfig_get(k, "CONFIG_64BIT", 12) != NULL;

	cfg_set(k, "__KERNEL__", 10, "1");
	cfg_set(k, "MODULE", 6, "1");
	cfg_set(k, "CREATE_TRACE_POINTS", 19, "1");
	cfg_set(k, "__GNUC__", 8, "12");
	cfg_set(k, "BITS_PER_LONG", 13, is64 ? "64" : "32");
	cfg_set(k, "__BITS_PER_LONG", 15, is64 ? "64" : "32");
	if (strcmp(arch, "x86") == 0)
		cfg_set(k, is64 ? "__x86_64__" : "__i386__", is64 ? 10 : 8,
			"1");
	for (int r = 0; r < nroots; r++) {
		char path[PATH_MAX], *text, *p;

		snprintf(path, sizeof(path),
			 "%s/arch/%s/include/uapi/asm/kvm.h", roots[r], arch);
		text = read_file(path, NULL);
		if (!text)
			continue;
		for (p = text; (p = strstr(p, "#define __KVM_HAVE_"));) {
			char *e = p += 8;

			while (is_ident_char((unsigned char)*e))
				e++;
			cfg_set(k, p, (size_t)(e - p), "1");
			p = e;
		}
		free(text);
		break;
	}
}

struct kconfig *kconfig_new(struct target *t)
{
	struct kconfig *k = xmalloc(sizeof(*k));
	const char *name, *value;

	memset(k, 0, sizeof(*k));
	for (int i = 0; target_config_at(t, i, &name, &value); i++)
		cfg_set(k, name, strlen(name), value);
	return k;
}

void kconfig_free(struct kconfig *k)
{
	if (!k)
		return;
	arena_free(&k->arena);
	free(k);
}

/* ------------------------------------------------------------------ */
/* Tokens */

enum tok_kind { T_IDENT, T_NUM, T_STR, T_PUNCT };

struct tok {
	const char *s;
	int len;
	unsigned char kind;
	unsigned char bol;	/* first token of a line */
	unsigned char space;	/* whitespace before it */
	unsigned char noexp;	/* never expand (its macro is active) */
};

struct tvec {
	struct tok *v;
	int n, cap;
};

static void tv_push(struct tvec *t, struct tok k)
{
	VEC_PUSH(t->v, t->n, t->cap, k);
}

static void tv_append(struct tvec *t, const struct tok *v, int n)
{
	for (int i = 0; i < n; i++)
		tv_push(t, v[i]);
}

static bool tok_is(const struct tok *t, const char *s)
{
	return (int)strlen(s) == t->len && memcmp(t->s, s, (size_t)t->len) == 0;
}

static bool tok_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->len == 1 && t->s[0] == c;
}

/*
 * Remove comments and backslash-newlines in place (a comment becomes one
 * space, newlines inside it are kept so lines stay lines), then split into
 * tokens.
 */
static void clean_text(char *p)
{
	char *r = p, *w = p;

	while (*r) {
		if (r[0] == '\\' && r[1] == '\n') {
			r += 2;
		} else if (r[0] == '\\' && r[1] == '\r' && r[2] == '\n') {
			r += 3;
		} else if (r[0] == '/' && r[1] == '*') {
			int nl = 0;

			r += 2;
			while (*r && !(r[0] == '*' && r[1] == '/')) {
				if (*r == '\n')
					nl++;
				r++;
			}
			if (*r)
				r += 2;
			*w++ = ' ';
			/* Keep line structure for directives after it. */
			while (nl--)
				*w++ = '\n';
		} else if (r[0] == '/' && r[1] == '/') {
			while (*r && *r != '\n') {
				if (r[0] == '\\' && r[1] == '\n')
					r++;
				r++;
			}
		} else if (*r == '"' || *r == '\'') {
			char q = *r;

			*w++ = *r++;
			while (*r && *r != q && *r != '\n') {
				if (*r == '\\' && r[1])
					*w++ = *r++;
				*w++ = *r++;
			}
			if (*r == q)
				*w++ = *r++;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static void tokenize(const char *p, struct tvec *out)
{
	bool bol = true, space = false;

	while (*p) {
		struct tok t = { .s = p };

		if (*p == '\n') {
			bol = true;
			space = true;
			p++;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			space = true;
			p++;
			continue;
		}
		if (is_ident_start((unsigned char)*p)) {
			while (is_ident_char((unsigned char)*p))
				p++;
			t.kind = T_IDENT;
		} else if (isdigit((unsigned char)*p) ||
			   (*p == '.' && isdigit((unsigned char)p[1]))) {
			while (is_ident_char((unsigned char)*p) || *p == '.')
				p++;
			t.kind = T_NUM;
		} else if (*p == '"' || *p == '\'') {
			char q = *p++;

			while (*p && *p != q && *p != '\n') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			if (*p == q)
				p++;
			t.kind = T_STR;
		} else {
			static const char *const two[] = {
				"##", "&&", "||", "==", "!=", "<=", ">=", "<<",
				">>", "->", "++", "--", "...", NULL
			};
			int n = 1;

			for (int i = 0; two[i]; i++) {
				size_t l = strlen(two[i]);

				if (strncmp(p, two[i], l) == 0) {
					n = (int)l;
					break;
				}
			}
			p += n;
			t.kind = T_PUNCT;
		}
		t.len = (int)(p - t.s);
		t.bol = bol;
		t.space = space;
		bol = false;
		space = false;
		tv_push(out, t);
	}
}

/* ------------------------------------------------------------------ */
/* The per-header preprocessor */

struct macro {
	const char *name;
	int nlen;
	int nparams;		/* -1: object-like */
	bool variadic;		/* last parameter is "..." */
	struct tok *params;
	struct tok *body;
	int nbody;
	bool active;
	struct macro *next;
};

#define MACRO_BUCKETS 256

struct scan {
	const struct kconfig *cfg;
	struct arena *scratch;
	struct macro *mb[MACRO_BUCKETS];
	const char *header;	/* include spelling for the results */
	/* results (xmalloc'ed, strings too) */
	struct raw_tp **tps;
	int *ntps, *cap;
	int depth;
};

static struct macro *macro_find(struct scan *sc, const char *s, int n)
{
	struct macro *m;

	for (m = sc->mb[hash_str(s, (size_t)n) % MACRO_BUCKETS]; m;
	     m = m->next)
		if (m->nlen == n && memcmp(m->name, s, (size_t)n) == 0)
			return m;
	return NULL;
}

static void macro_undef(struct scan *sc, const char *s, int n)
{
	struct macro **pp = &sc->mb[hash_str(s, (size_t)n) % MACRO_BUCKETS];

	for (; *pp; pp = &(*pp)->next) {
		if ((*pp)->nlen == n &&
		    memcmp((*pp)->name, s, (size_t)n) == 0) {
			*pp = (*pp)->next;
			return;
		}
	}
}

/* d[0] is the macro name; a '(' right after it (no space) opens params. */
static void macro_define(struct scan *sc, const struct tok *d, int n)
{
	struct macro *m;
	int i = 1;
	unsigned int h;

	if (n < 1 || d[0].kind != T_IDENT)
		return;
	macro_undef(sc, d[0].s, d[0].len);
	m = arena_alloc(sc->scratch, sizeof(*m));
	m->name = d[0].s;
	m->nlen = d[0].len;
	m->nparams = -1;
	if (n > 1 && tok_punct(&d[1], '(') && !d[1].space) {
		m->nparams = 0;
		m->params = arena_alloc(sc->scratch, (size_t)n * sizeof(*d));
		for (i = 2; i < n && !tok_punct(&d[i], ')'); i++) {
			if (d[i].kind == T_IDENT) {
				m->params[m->nparams++] = d[i];
			} else if (tok_is(&d[i], "...")) {
				if (m->nparams == 0 ||
				    !(i > 2 && d[i - 1].kind == T_IDENT)) {
					static const struct tok va = {
						"__VA_ARGS__", 11, T_IDENT,
						0, 0, 0
					};
					m->params[m->nparams++] = va;
				}
				m->variadic = true;
			}
		}
		i++;
	}
	m->body = (struct tok *)(d + i);
	m->nbody = n - i > 0 ? n - i : 0;
	h = hash_str(m->name, (size_t)m->nlen) % MACRO_BUCKETS;
	m->next = sc->mb[h];
	sc->mb[h] = m;
}

/* ---- #if expressions ---- */

struct ev {
	struct scan *sc;
	const struct tok *t;
	int n, i;
	int depth;
};

static long long ev_cond(struct ev *e);

static bool cfg_defined(struct scan *sc, const char *s, int n)
{
	if (macro_find(sc, s, n))
		return true;
	if (n > 7 && memcmp(s, "CONFIG_", 7) == 0) {
		const char *v = kconfig_get(sc->cfg, s, (size_t)n);

		if (v)
			return strcmp(v, "m") != 0;
		if (n > 14 && memcmp(s + n - 7, "_MODULE", 7) == 0) {
			v = kconfig_get(sc->cfg, s, (size_t)(n - 7));
			return v && strcmp(v, "m") == 0;
		}
		return false;
	}
	return kconfig_get(sc->cfg, s, (size_t)n) != NULL;
}

static long long ev_ident_value(struct ev *e, const struct tok *t)
{
	struct macro *m = macro_find(e->sc, t->s, t->len);

	if (m && m->nparams < 0 && e->depth < 16) {
		struct ev sub = { e->sc, m->body, m->nbody, 0, e->depth + 1 };

		m->active = true;
		long long v = m->nbody ? ev_cond(&sub) : 0;

		m->active = false;
		return v;
	}
	if (t->len > 7 && memcmp(t->s, "CONFIG_", 7) == 0) {
		const char *v = kconfig_get(e->sc->cfg, t->s, (size_t)t->len);

		if (!v || strcmp(v, "m") == 0 || v[0] == '"')
			return 0;
		if (strcmp(v, "y") == 0)
			return 1;
		return strtoll(v, NULL, 0);
	}
	{
		const char *v = kconfig_get(e->sc->cfg, t->s, (size_t)t->len);

		return v ? strtoll(v, NULL, 0) : 0;
	}
}

static const struct tok *ev_peek(struct ev *e)
{
	return e->i < e->n ? &e->t[e->i] : NULL;
}

static bool ev_accept(struct ev *e, const char *s)
{
	const struct tok *t = ev_peek(e);

	if (t && t->kind == T_PUNCT && tok_is(t, s)) {
		e->i++;
		return true;
	}
	return false;
}

static long long ev_unary(struct ev *e)
{
	const struct tok *t = ev_peek(e);

	if (!t)
		return 0;
	e->i++;
	if (t->kind == T_PUNCT) {
		if (tok_is(t, "!"))
			return !ev_unary(e);
		if (tok_is(t, "-"))
			return -ev_unary(e);
		if (tok_is(t, "+"))
			return ev_unary(e);
		if (tok_is(t, "~"))
			return ~ev_unary(e);
		if (tok_is(t, "(")) {
			long long v = ev_cond(e);

			ev_accept(e, ")");
			return v;
		}
		return 0;
	}
	if (t->kind == T_NUM)
		return strtoll(t->s, NULL, 0);
	if (t->kind == T_STR)
		return t->len > 2 ? (unsigned char)t->s[1] : 0;
	/* identifiers */
	if (tok_is(t, "defined")) {
		bool paren = ev_accept(e, "(");
		const struct tok *n = ev_peek(e);
		bool d = false;

		if (n && n->kind == T_IDENT) {
			d = cfg_defined(e->sc, n->s, n->len);
			e->i++;
		}
		if (paren)
			ev_accept(e, ")");
		return d;
	}
	if (tok_is(t, "IS_ENABLED") || tok_is(t, "IS_BUILTIN") ||
	    tok_is(t, "IS_MODULE") || tok_is(t, "IS_REACHABLE")) {
		const struct tok *n;
		const char *v = NULL;
		bool r = false;

		ev_accept(e, "(");
		n = ev_peek(e);
		if (n && n->kind == T_IDENT) {
			v = kconfig_get(e->sc->cfg, n->s, (size_t)n->len);
			e->i++;
		}
		ev_accept(e, ")");
		if (v) {
			bool y = strcmp(v, "y") == 0, m = strcmp(v, "m") == 0;

			if (tok_is(t, "IS_BUILTIN"))
				r = y;
			else if (tok_is(t, "IS_MODULE"))
				r = m;
			else
				r = y || m;
		}
		return r;
	}
	/* An unknown function-like macro call: skip its arguments. */
	if (ev_peek(e) && tok_is(ev_peek(e), "(") &&
	    !macro_find(e->sc, t->s, t->len)) {
		int depth = 0;

		do {
			if (tok_is(&e->t[e->i], "("))
				depth++;
			else if (tok_is(&e->t[e->i], ")"))
				depth--;
			e->i++;
		} while (e->i < e->n && depth > 0);
		return 0;
	}
	return ev_ident_value(e, t);
}

static int ev_prec(const struct tok *t)
{
	static const struct {
		const char *op;
		int prec;
	} ops[] = {
		{ "*", 10 }, { "/", 10 }, { "%", 10 }, { "+", 9 }, { "-", 9 },
		{ "<<", 8 }, { ">>", 8 }, { "<", 7 }, { ">", 7 }, { "<=", 7 },
		{ ">=", 7 }, { "==", 6 }, { "!=", 6 }, { "&", 5 }, { "^", 4 },
		{ "|", 3 }, { "&&", 2 }, { "||", 1 },
	};

	if (!t || t->kind != T_PUNCT)
		return 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (tok_is(t, ops[i].op))
			return ops[i].prec;
	return 0;
}

static long long ev_binary(struct ev *e, int min)
{
	long long l = ev_unary(e);
	const struct tok *t;
	int p;

	while ((t = ev_peek(e)) && (p = ev_prec(t)) >= min && p > 0) {
		long long r;

		e->i++;
		r = ev_binary(e, p + 1);
		if (tok_is(t, "*"))
			l *= r;
		else if (tok_is(t, "/"))
			l = r ? l / r : 0;
		else if (tok_is(t, "%"))
			l = r ? l % r : 0;
		else if (tok_is(t, "+"))
			l += r;
		else if (tok_is(t, "-"))
			l -= r;
		else if (tok_is(t, "<<"))
			l = r >= 0 && r < 63 ? l << r : 0;
		else if (tok_is(t, ">>"))
			l = r >= 0 && r < 63 ? l >> r : 0;
		else if (tok_is(t, "<"))
			l = l < r;
		else if (tok_is(t, ">"))
			l = l > r;
		else if (tok_is(t, "<="))
			l = l <= r;
		else if (tok_is(t, ">="))
			l = l >= r;
		else if (tok_is(t, "=="))
			l = l == r;
		else if (tok_is(t, "!="))
			l = l != r;
		else if (tok_is(t, "&"))
			l &= r;
		else if (tok_is(t, "^"))
			l ^= r;
		else if (tok_is(t, "|"))
			l |= r;
		else if (tok_is(t, "&&"))
			l = l && r;
		else
			l = l || r;
	}
	return l;
}

static long long ev_cond(struct ev *e)
{
	long long c = ev_binary(e, 1);

	if (ev_accept(e, "?")) {
		long long a = ev_cond(e), b;

		ev_accept(e, ":");
		b = ev_cond(e);
		return c ? a : b;
	}
	return c;
}

/* ---- macro expansion ---- */

static void expand(struct scan *sc, const struct tok *in, int n,
		   struct tvec *out);

/* Split in[open+1 .. close-1] at top-level commas; returns the count. */
static int split_args(const struct tok *in, int open, int close,
		      int *start, int *end, int max)
{
	int depth = 0, na = 0, s = open + 1;

	if (close == open + 1)
		return 0;
	for (int i = open + 1; i <= close; i++) {
		const struct tok *t = &in[i];

		if (i == close || (depth == 0 && tok_punct(t, ','))) {
			if (na < max) {
				start[na] = s;
				end[na] = i;
			}
			na++;
			s = i + 1;
			continue;
		}
		if (tok_punct(t, '(') || tok_punct(t, '[') || tok_punct(t, '{'))
			depth++;
		else if (tok_punct(t, ')') || tok_punct(t, ']') ||
			 tok_punct(t, '}'))
			depth--;
	}
	return na;
}

/* Index of the ')' matching in[open] == '(', or -1. */
static int match_paren(const struct tok *in, int n, int open)
{
	int depth = 0;

	for (int i = open; i < n; i++) {
		if (tok_punct(&in[i], '('))
			depth++;
		else if (tok_punct(&in[i], ')') && --depth == 0)
			return i;
	}
	return -1;
}

static struct tok make_tok(struct scan *sc, const char *s, size_t n,
			   bool space)
{
	struct tok t = { .s = arena_strndup(sc->scratch, s, n),
			 .len = (int)n, .space = space };

	if (n && is_ident_start((unsigned char)s[0]))
		t.kind = T_IDENT;
	else if (n && isdigit((unsigned char)s[0]))
		t.kind = T_NUM;
	else if (n && (s[0] == '"' || s[0] == '\''))
		t.kind = T_STR;
	else
		t.kind = T_PUNCT;
	return t;
}

static struct tok paste(struct scan *sc, struct tok a, struct tok b)
{
	char *s = arena_alloc(sc->scratch, (size_t)(a.len + b.len) + 1);

	memcpy(s, a.s, (size_t)a.len);
	memcpy(s + a.len, b.s, (size_t)b.len);
	return make_tok(sc, s, (size_t)(a.len + b.len), a.space);
}

static struct tok stringify(struct scan *sc, const struct tok *v, int n)
{
	size_t cap = 3, len = 0;
	char *s;

	for (int i = 0; i < n; i++)
		cap += 2 * (size_t)v[i].len + 1;
	s = arena_alloc(sc->scratch, cap);
	s[len++] = '"';
	for (int i = 0; i < n; i++) {
		if (i && v[i].space)
			s[len++] = ' ';
		for (int j = 0; j < v[i].len; j++) {
			if (v[i].kind == T_STR &&
			    (v[i].s[j] == '"' || v[i].s[j] == '\\'))
				s[len++] = '\\';
			s[len++] = v[i].s[j];
		}
	}
	s[len++] = '"';
	return make_tok(sc, s, len, true);
}

static int param_index(const struct macro *m, const struct tok *t)
{
	if (t->kind != T_IDENT)
		return -1;
	for (int i = 0; i < m->nparams; i++)
		if (m->params[i].len == t->len &&
		    memcmp(m->params[i].s, t->s, (size_t)t->len) == 0)
			return i;
	return -1;
}

/*
 * Substitute the arguments of one invocation of m into its body. args are
 * given as ranges of `in`; expanded versions are computed lazily.
 */
static void substitute(struct scan *sc, const struct macro *m,
		       const struct tok *in, const int *as, const int *ae,
		       int na, struct tvec *res, bool space)
{
	struct tvec *exp = xmalloc((size_t)(na + 1) * sizeof(*exp));
	bool *done = calloc((size_t)na + 1, 1);
	bool paste_next = false;

	memset(exp, 0, (size_t)(na + 1) * sizeof(*exp));
	for (int k = 0; k < m->nbody; k++) {
		const struct tok *t = &m->body[k];
		bool next_paste = k + 1 < m->nbody &&
				  tok_is(&m->body[k + 1], "##");
		const struct tok *v;
		struct tok one;
		int p, nv;

		if (tok_is(t, "##")) {
			paste_next = true;
			continue;
		}
		if (tok_punct(t, '#') && k + 1 < m->nbody &&
		    (p = param_index(m, &m->body[k + 1])) >= 0) {
			one = p < na ? stringify(sc, in + as[p], ae[p] - as[p])
				     : stringify(sc, NULL, 0);
			v = &one;
			nv = 1;
			k++;
		} else if ((p = param_index(m, t)) >= 0) {
			if (p >= na) {
				v = NULL;
				nv = 0;
			} else if (paste_next || next_paste) {
				v = in + as[p];
				nv = ae[p] - as[p];
			} else {
				if (!done[p]) {
					expand(sc, in + as[p], ae[p] - as[p],
					       &exp[p]);
					done[p] = true;
				}
				v = exp[p].v;
				nv = exp[p].n;
			}
			/* GNU ", ## __VA_ARGS__" with nothing to paste */
			if (paste_next && nv == 0 && m->variadic &&
			    p == m->nparams - 1 && res->n &&
			    tok_punct(&res->v[res->n - 1], ',')) {
				res->n--;
				paste_next = false;
				continue;
			}
		} else {
			one = *t;
			v = &one;
			nv = 1;
		}
		for (int j = 0; j < nv; j++) {
			struct tok x = v[j];

			if (j == 0 && paste_next && res->n) {
				res->v[res->n - 1] =
					paste(sc, res->v[res->n - 1], x);
			} else {
				if (res->n == 0)
					x.space = space;
				tv_push(res, x);
			}
		}
		if (nv)
			paste_next = false;
	}
	for (int i = 0; i < na; i++)
		free(exp[i].v);
	free(exp);
	free(done);
}

static void expand(struct scan *sc, const struct tok *in, int n,
		   struct tvec *out)
{
	if (++sc->depth > 64) {
		tv_append(out, in, n);
		sc->depth--;
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct tok *t = &in[i];
		struct macro *m;
		struct tvec res = { 0 };

		if (t->kind != T_IDENT || t->noexp ||
		    !(m = macro_find(sc, t->s, t->len))) {
			tv_push(out, *t);
			continue;
		}
		if (m->active) {
			struct tok x = *t;

			x.noexp = 1;
			tv_push(out, x);
			continue;
		}
		if (m->nparams < 0) {
			substitute(sc, m, in, NULL, NULL, 0, &res, t->space);
		} else {
			int close, na;
			int as[64], ae[64];

			if (i + 1 >= n || !tok_punct(&in[i + 1], '(') ||
			    (close = match_paren(in, n, i + 1)) < 0) {
				tv_push(out, *t);
				continue;
			}
			na = split_args(in, i + 1, close, as, ae, 64);
			if (na > 64)
				na = 64;
			/* Variadic: the last parameter takes the rest. */
			if (m->variadic && na > m->nparams && m->nparams > 0) {
				ae[m->nparams - 1] = ae[na - 1];
				na = m->nparams;
			}
			substitute(sc, m, in, as, ae, na, &res, t->space);
			i = close;
		}
		m->active = true;
		expand(sc, res.v, res.n, out);
		m->active = false;
		free(res.v);
	}
	sc->depth--;
}

/* ---- prototypes and types ---- */

static void str_add(char **buf, size_t *len, size_t *cap, const char *s,
		    size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Tokens as C text: a space where the source had one or two words meet. */
static char *toks_text(const struct tok *v, int n)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	str_add(&buf, &len, &cap, "", 0);
	for (int i = 0; i < n; i++) {
		if (i && (v[i].space ||
			  (v[i].kind != T_PUNCT && v[i - 1].kind != T_PUNCT)))
			str_add(&buf, &len, &cap, " ", 1);
		str_add(&buf, &len, &cap, v[i].s, (size_t)v[i].len);
	}
	return buf;
}

/* Sparse annotations and the like: not part of the type. */
static bool is_annotation(const struct tok *t)
{
	static const char *const words[] = {
		"__user", "__kernel", "__iomem", "__percpu", "__rcu",
		"__force", "__nocast", "__bitwise", "__private", "__safe",
		"__must_check", "__maybe_unused", "__always_unused",
		"__unused", "register", "restrict", "__restrict",
		"__restrict__", "__data_racy", "__counted_by", "__aligned",
		"__packed", "__attribute__", "__attribute", NULL
	};

	for (int i = 0; words[i]; i++)
		if (tok_is(t, words[i]))
			return true;
	return false;
}

static bool parse_param(const struct tok *v, int n, bool need_name,
			char **name, char **type);

/* "(unsigned int, struct hlist_node *)" -> "unsigned int, struct
 * hlist_node*" in buf; false if a parameter is not understood. */
static bool param_types(const struct tok *v, int n, char *buf, size_t size)
{
	int depth = 0, s = 0;
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i <= n; i++) {
		char *an, *at;

		if (i < n && !(depth == 0 && tok_punct(&v[i], ','))) {
			if (tok_punct(&v[i], '('))
				depth++;
			else if (tok_punct(&v[i], ')'))
				depth--;
			continue;
		}
		if (i == s)
			return n == 0;
		if (!parse_param(v + s, i - s, false, &an, &at))
			return false;
		len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
					"%s%s", s ? ", " : "", at);
		free(an);
		free(at);
		s = i + 1;
	}
	return len < size;
}

/*
 * One TP_PROTO parameter to (name, SystemTap type): the type as gcc's
 * DWARF names it, printed the way SystemTap prints it: base types in
 * gcc's spelling ("long unsigned int"), qualifiers after what they
 * qualify ("char const*"), no space before '*', function pointers as
 * "int (*) (unsigned int)". Returns false when the declaration is not
 * understood. Without need_name, a missing name gives *name == "".
 */
static bool parse_param(const struct tok *v, int n, bool need_name,
			char **name, char **type)
{
	char fn[512] = "";
	bool is_const = false, is_volatile = false, have_base = false;
	int n_unsigned = 0, n_signed = 0, n_long = 0, n_short = 0;
	int n_int = 0, n_char = 0;
	char base[256] = "", ptrs[256] = "";
	const struct tok *nm = NULL;
	int i = 0;

	/* declaration specifiers */
	for (; i < n; i++) {
		const struct tok *t = &v[i];

		if (t->kind != T_IDENT)
			break;
		if (is_annotation(t)) {
			if (i + 1 < n && tok_punct(&v[i + 1], '(')) {
				int c = match_paren(v, n, i + 1);

				if (c < 0)
					return false;
				i = c;
			}
			continue;
		}
		if (tok_is(t, "const")) {
			is_const = true;
		} else if (tok_is(t, "pgoff_t") && !have_base && !n_long) {
			/* a macro in linux/types.h, not a typedef */
			n_unsigned++;
			n_long++;
		} else if (tok_is(t, "volatile")) {
			is_volatile = true;
		} else if (tok_is(t, "unsigned")) {
			n_unsigned++;
		} else if (tok_is(t, "signed") || tok_is(t, "__signed__")) {
			n_signed++;
		} else if (tok_is(t, "long")) {
			n_long++;
		} else if (tok_is(t, "short")) {
			n_short++;
		} else if (tok_is(t, "int")) {
			n_int++;
		} else if (tok_is(t, "char")) {
			n_char++;
		} else if (tok_is(t, "struct") || tok_is(t, "union") ||
			   tok_is(t, "enum")) {
			if (have_base || i + 1 >= n ||
			    v[i + 1].kind != T_IDENT)
				return false;
			snprintf(base, sizeof(base), "%.*s %.*s", t->len,
				 t->s, v[i + 1].len, v[i + 1].s);
			have_base = true;
			i++;
		} else if (!have_base && !n_unsigned && !n_signed &&
			   !n_long && !n_short && !n_int && !n_char) {
			snprintf(base, sizeof(base), "%.*s", t->len, t->s);
			have_base = true;
		} else {
			break;	/* the parameter name */
		}
	}
	if (!have_base) {
		const char *sgn = n_unsigned ? "unsigned " : "";

		if (!n_unsigned && !n_signed && !n_long && !n_short &&
		    !n_int && !n_char)
			return false;
		if (n_char) {
			snprintf(base, sizeof(base), "%schar",
				 n_unsigned ? "unsigned " :
				 n_signed ? "signed " : "");
		} else if (n_short) {
			snprintf(base, sizeof(base), "short %sint", sgn);
		} else if (n_long >= 2) {
			snprintf(base, sizeof(base), "long long %sint", sgn);
		} else if (n_long == 1) {
			snprintf(base, sizeof(base), "long %sint", sgn);
		} else {
			snprintf(base, sizeof(base), "%sint", sgn);
		}
	}
	/* declarator: pointers with qualifiers, the name, arrays */
	for (; i < n; i++) {
		const struct tok *t = &v[i];
		size_t l = strlen(ptrs);

		if (tok_punct(t, '*')) {
			snprintf(ptrs + l, sizeof(ptrs) - l, "*");
		} else if (tok_is(t, "const")) {
			snprintf(ptrs + l, sizeof(ptrs) - l, " const");
		} else if (tok_is(t, "volatile")) {
			snprintf(ptrs + l, sizeof(ptrs) - l, " volatile");
		} else if (t->kind == T_IDENT && is_annotation(t)) {
			if (i + 1 < n && tok_punct(&v[i + 1], '(')) {
				int c = match_paren(v, n, i + 1);

				if (c < 0)
					return false;
				i = c;
			}
		} else if (t->kind == T_IDENT && !nm) {
			nm = t;
		} else if (tok_punct(t, '(') && i + 1 < n &&
			   tok_punct(&v[i + 1], '*') && !nm && !fn[0]) {
			/* function pointer: ( * [name] ) ( params ) */
			int c = match_paren(v, n, i), c2;
			char ps[400];

			if (c < 0 || c + 1 >= n || !tok_punct(&v[c + 1], '('))
				return false;
			c2 = match_paren(v, n, c + 1);
			if (c2 != n - 1)
				return false;
			for (int k = i + 2; k < c; k++) {
				if (v[k].kind == T_IDENT &&
				    !is_annotation(&v[k]) &&
				    !tok_is(&v[k], "const"))
					nm = &v[k];
				else if (!tok_is(&v[k], "const"))
					return false;
			}
			if (!param_types(v + c + 2, c2 - c - 2, ps, sizeof(ps)))
				return false;
			snprintf(fn, sizeof(fn), " (*) (%s)", ps);
			i = c2;
		} else if (tok_punct(t, '[') && nm) {
			while (i < n && !tok_punct(&v[i], ']'))
				i++;
			snprintf(ptrs + l, sizeof(ptrs) - l, "*");
		} else {
			return false;
		}
	}
	if (!nm && need_name)
		return false;
	*name = xmalloc(nm ? (size_t)nm->len + 1 : 1);
	if (nm)
		memcpy(*name, nm->s, (size_t)nm->len);
	(*name)[nm ? nm->len : 0] = '\0';
	if (asprintf(type, "%s%s%s%s%s", base, is_volatile ? " volatile" : "",
		     is_const ? " const" : "", ptrs, fn) < 0)
		fatal("out of memory");
	return true;
}

static void add_tp(struct scan *sc, const char *system, const struct tok *nm,
		   const struct tok *proto, int nproto)
{
	struct raw_tp *r;
	int as[128], ae[128], na;

	VEC_GROW(*sc->tps, *sc->ntps, *sc->cap);
	r = &(*sc->tps)[(*sc->ntps)++];
	memset(r, 0, sizeof(*r));
	r->system = xstrdup(system);
	r->name = xmalloc((size_t)nm->len + 1);
	memcpy(r->name, nm->s, (size_t)nm->len);
	r->name[nm->len] = '\0';
	r->header = xstrdup(sc->header);
	r->proto = toks_text(proto, nproto);
	r->args_ok = true;
	if (nproto == 0 || (nproto == 1 && tok_is(&proto[0], "void"))) {
		free(r->proto);
		r->proto = xstrdup("void");
		return;
	}
	/* split_args wants the range bracketed: fake it with indices. */
	{
		int s = 0;
		int depth = 0;

		na = 0;
		for (int i = 0; i <= nproto; i++) {
			if (i == nproto ||
			    (depth == 0 && tok_punct(&proto[i], ','))) {
				if (na < 128) {
					as[na] = s;
					ae[na] = i;
				}
				na++;
				s = i + 1;
				continue;
			}
			if (tok_punct(&proto[i], '(') ||
			    tok_punct(&proto[i], '['))
				depth++;
			else if (tok_punct(&proto[i], ')') ||
				 tok_punct(&proto[i], ']'))
				depth--;
		}
	}
	if (na > 128) {
		r->args_ok = false;
		return;
	}
	r->args = xmalloc((size_t)na * sizeof(*r->args));
	for (int i = 0; i < na; i++) {
		char *an, *at;

		if (!parse_param(proto + as[i], ae[i] - as[i], true, &an,
				 &at)) {
			for (int j = 0; j < r->nargs; j++) {
				free((char *)r->args[j].name);
				free((char *)r->args[j].c_type);
			}
			free(r->args);
			r->args = NULL;
			r->nargs = 0;
			r->args_ok = false;
			return;
		}
		r->args[r->nargs].name = an;
		r->args[r->nargs].c_type = at;
		r->nargs++;
	}
}

/*
 * The event macros: which argument is the tracepoint name and which the
 * prototype. A class (DECLARE_EVENT_CLASS) is no tracepoint; the *_NOP
 * variants create none either.
 */
static const struct {
	const char *macro;
	int name, proto;
} event_macros[] = {
	{ "TRACE_EVENT", 0, 1 },
	{ "TRACE_EVENT_FN", 0, 1 },
	{ "TRACE_EVENT_FN_COND", 0, 1 },
	{ "TRACE_EVENT_CONDITION", 0, 1 },
	{ "TRACE_EVENT_SYSCALL", 0, 1 },
	{ "DECLARE_TRACE", 0, 1 },
	{ "DECLARE_TRACE_CONDITION", 0, 1 },
	{ "DECLARE_TRACE_WRITABLE", 0, 1 },
	{ "DECLARE_TRACE_EVENT", 0, 1 },
	{ "DECLARE_TRACE_EVENT_CONDITION", 0, 1 },
	{ "DECLARE_TRACE_SYSCALL", 0, 1 },
	{ "DEFINE_EVENT", 1, 2 },
	{ "DEFINE_EVENT_FN", 1, 2 },
	{ "DEFINE_EVENT_CONDITION", 1, 2 },
	{ "DEFINE_EVENT_PRINT", 1, 2 },
	{ "DEFINE_EVENT_WRITABLE", 1, 2 },
};

static const char *current_system(struct scan *sc, char *buf, size_t size)
{
	struct macro *m = macro_find(sc, "TRACE_SYSTEM", 12);
	size_t len = 0;

	buf[0] = '\0';
	if (!m)
		return NULL;
	for (int i = 0; i < m->nbody && len + (size_t)m->body[i].len + 1 < size;
	     i++) {
		memcpy(buf + len, m->body[i].s, (size_t)m->body[i].len);
		len += (size_t)m->body[i].len;
	}
	buf[len] = '\0';
	return len ? buf : NULL;
}

static void scan_events(struct scan *sc, const struct tok *v, int n)
{
	char sysbuf[128];
	const char *system = NULL;
	bool sys_looked = false;

	for (int i = 0; i < n; i++) {
		int k, close, na, as[16], ae[16];
		const struct tok *pv;
		int pn;

		if (v[i].kind != T_IDENT || i + 1 >= n ||
		    !tok_punct(&v[i + 1], '('))
			continue;
		for (k = 0; k < (int)(sizeof(event_macros) /
				      sizeof(event_macros[0])); k++)
			if (tok_is(&v[i], event_macros[k].macro))
				break;
		if (k == (int)(sizeof(event_macros) / sizeof(event_macros[0])))
			continue;
		close = match_paren(v, n, i + 1);
		if (close < 0)
			return;
		na = split_args(v, i + 1, close, as, ae, 16);
		if (na > 16 || na <= event_macros[k].proto ||
		    ae[event_macros[k].name] - as[event_macros[k].name] != 1 ||
		    (v[as[event_macros[k].name]].kind != T_IDENT &&
		     v[as[event_macros[k].name]].kind != T_NUM)) {
			/* (a pp-number: 9p's events are "9p_client_req") */
			i = close;
			continue;
		}
		if (!sys_looked) {
			system = current_system(sc, sysbuf, sizeof(sysbuf));
			sys_looked = true;
		}
		if (!system) {
			i = close;
			continue;
		}
		pv = v + as[event_macros[k].proto];
		pn = ae[event_macros[k].proto] - as[event_macros[k].proto];
		/* TP_PROTO(...), PARAMS(...), PARAMS(TP_PROTO(...)): the
		 * inside of the parens */
		while (pn >= 3 && (tok_is(&pv[0], "TP_PROTO") ||
				   tok_is(&pv[0], "PARAMS")) &&
		       tok_punct(&pv[1], '(') &&
		       match_paren(pv, pn, 1) == pn - 1) {
			pv += 2;
			pn -= 3;
		}
		add_tp(sc, system, &v[as[event_macros[k].name]], pv, pn);
		i = close;
	}
}

static void flush_text(struct scan *sc, struct tvec *pend)
{
	struct tvec out = { 0 };

	if (!pend->n)
		return;
	expand(sc, pend->v, pend->n, &out);
	scan_events(sc, out.v, out.n);
	free(out.v);
	pend->n = 0;
}

/* Scan one header; the results are appended to sc->tps. */
static void scan_header(struct scan *sc, const char *path)
{
	char *text = read_file(path, NULL);
	struct tvec toks = { 0 }, pend = { 0 };
	/* conditional stack: active, any branch taken */
	bool act[256], taken[256];
	int top = 0;
	bool active = true;

	if (!text)
		return;
	clean_text(text);
	tokenize(text, &toks);
	for (int i = 0; i < toks.n;) {
		const struct tok *t = &toks.v[i];
		int j, dn;
		const struct tok *d;

		if (!(t->bol && tok_punct(t, '#'))) {
			if (active)
				tv_push(&pend, *t);
			i++;
			continue;
		}
		for (j = i + 1; j < toks.n && !toks.v[j].bol; j++)
			;
		d = &toks.v[i + 1];
		dn = j - i - 1;
		i = j;
		if (dn == 0 || d[0].kind != T_IDENT)
			continue;
		if (tok_is(&d[0], "if") || tok_is(&d[0], "ifdef") ||
		    tok_is(&d[0], "ifndef")) {
			bool c = false;

			if (active) {
				if (tok_is(&d[0], "if")) {
					struct ev e = { sc, d + 1, dn - 1, 0,
							0 };
					c = ev_cond(&e) != 0;
				} else {
					c = dn > 1 &&
					    cfg_defined(sc, d[1].s, d[1].len);
					if (tok_is(&d[0], "ifndef"))
						c = !c;
				}
			}
			if (top < 256) {
				act[top] = active;
				taken[top] = c;
			}
			top++;
			active = active && c;
		} else if (tok_is(&d[0], "elif")) {
			if (top == 0 || top > 256)
				continue;
			if (!act[top - 1] || taken[top - 1]) {
				active = false;
			} else {
				struct ev e = { sc, d + 1, dn - 1, 0, 0 };

				active = ev_cond(&e) != 0;
				taken[top - 1] = active;
			}
		} else if (tok_is(&d[0], "else")) {
			if (top == 0 || top > 256)
				continue;
			active = act[top - 1] && !taken[top - 1];
			taken[top - 1] = true;
		} else if (tok_is(&d[0], "endif")) {
			if (top == 0)
				continue;
			top--;
			active = top < 256 ? act[top] : false;
		} else if (!active) {
			continue;
		} else if (tok_is(&d[0], "define")) {
			flush_text(sc, &pend);
			macro_define(sc, d + 1, dn - 1);
		} else if (tok_is(&d[0], "undef")) {
			flush_text(sc, &pend);
			if (dn > 1)
				macro_undef(sc, d[1].s, d[1].len);
		}
	}
	flush_text(sc, &pend);
	free(pend.v);
	/* macro bodies point into toks.v: keep them until here */
	free(toks.v);
	free(text);
}


void tp_scan_header(const struct kconfig *k, const char *path,
		    const char *header, struct raw_tp **tps, int *ntps,
		    int *cap)
{
	struct arena scratch = { 0 };
	struct scan sc = {
		.cfg = k,
		.scratch = &scratch,
		.header = header,
		.tps = tps,
		.ntps = ntps,
		.cap = cap,
	};

	scan_header(&sc, path);
	arena_free(&scratch);
}
