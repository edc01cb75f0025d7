// SPDX-License-Identifier: GPL-2.0-or-later
/* Diagnostics with source line and caret; see diag.h. */
#include "parser/diag.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/arena.h"
#include "lib/hash.h"
#include "lib/hashset.h"

static const char *const keyword_list[] = {
	"probe", "global", "private", "function", "if", "else", "for",
	"foreach", "in", "limit", "return", "delete", "while", "break",
	"continue", "next", "string", "long", "try", "catch",
};

/* The start of 1-based line `line` of f, or NULL. */
static const char *line_start(const struct srcfile *f, int line)
{
	if (line < 1 || line > f->nlines)
		return NULL;
	return f->text + f->lines[line - 1];
}

static void render_note(FILE *out, const struct session *s,
			struct srcloc use, const char *name);
static void render_fmt(FILE *out, const struct session *s, struct srcloc loc,
		       const char *severity, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

void diag_render(FILE *out, const struct session *s, struct srcloc loc,
		 const char *severity, const char *fmt, va_list ap)
{
	const struct srcfile *f = session_file(s, loc.file);

	if (f)
		fprintf(out, "%s:%d:%d: %s: ", f->name, loc.line, loc.col,
			severity);
	else
		fprintf(out, "stap: %s: ", severity);
	vfprintf(out, fmt, ap);
	fputc('\n', out);
	if (!f || loc.line < 1)
		return;

	const char *p = line_start(f, loc.line);
	if (!p)
		return;
	const char *eol = memchr(p, '\n', (size_t)(f->text + f->len - p));
	size_t n = eol ? (size_t)(eol - p) : strlen(p);
	fprintf(out, "%.*s\n", (int)n, p);
	/* Keep tabs so the caret lines up under tab-indented code. */
	for (int i = 0; i < loc.col - 1 && (size_t)i < n; i++)
		fputc(p[i] == '\t' ? '\t' : ' ', out);
	fputs("^\n", out);

	/* from a macro: where it was used (and, nested, where that was) */
	if (loc.expansion > 0 && loc.expansion <= s->nexpansions) {
		const struct macro_expansion *e = &s->expansions[loc.expansion - 1];
		render_note(out, s, e->use, e->name);
	}
}

static void render_fmt(FILE *out, const struct session *s, struct srcloc loc,
		       const char *severity, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_render(out, s, loc, severity, fmt, ap);
	va_end(ap);
}

/* "note: in expansion of macro @NAME" at the place it was used. */
static void render_note(FILE *out, const struct session *s,
			struct srcloc use, const char *name)
{
	render_fmt(out, s, use, "note", "in expansion of macro @%s", name);
}

/* Whether the same message at the same place was shown already. */
static bool shown_before(struct session *s, struct srcloc loc,
			 const char *severity, const char *fmt, va_list ap)
{
	const int where[] = { loc.file, loc.line, loc.col, loc.expansion };
	char msg[1024];
	va_list copy;

	va_copy(copy, ap);
	vsnprintf(msg, sizeof(msg), fmt, copy);
	va_end(copy);
	uint64_t h = fnv1a(FNV_OFFSET, where, sizeof(where));
	h = fnv1a(h, severity, strlen(severity));
	h = fnv1a(h, msg, strlen(msg));
	return !hashset_add(&s->shown, h);
}

static void report(struct session *s, struct srcloc loc, const char *severity,
		   const char *fmt, va_list ap)
{
	diag_render(stderr, s, loc, severity, fmt, ap);
}

/*
 * The session's trail of notes (diag_trail), after an error or warning:
 * a long one (a chain of calls 20,000 deep) shows its first notes and its
 * last (the probe's), and how many it leaves out between them.
 */
static void report_trail(const struct session *s)
{
	enum { FIRST = 8 };
	const struct srcloc nowhere = { .file = -1 };
	int n = 0, i = 0;

	for (const struct diag_trail *t = s->trail; t; t = t->next)
		n++;
	for (const struct diag_trail *t = s->trail; t; t = t->next, i++) {
		if (n > FIRST + 1 && i == FIRST)
			render_fmt(stderr, s, nowhere, "note", "%d more calls "
				   "of functions", n - FIRST - 1);
		if (n > FIRST + 1 && i >= FIRST && t->next)
			continue;
		render_fmt(stderr, s, t->loc, "note", "%s", t->text);
	}
}

/* diag_error and diag_warning show a message once per place: a body
 * copied for each point of a wildcard (syscall.*) would repeat it once per
 * copy, and a repeat counts as nothing new. */

void diag_error(struct session *s, struct srcloc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bool seen = shown_before(s, loc, "error", fmt, ap);
	va_end(ap);
	if (seen)
		return;

	if (s->errors_are_warnings && !s->warnings_as_errors) {
		/* a broken library file must not stop a script that works */
		s->nwarnings++;
		if (s->suppress_warnings)
			return;
		va_start(ap, fmt);
		report(s, loc, "warning", fmt, ap);
		va_end(ap);
		report_trail(s);
		return;
	}
	s->nerrors++;
	if (s->nerrors > s->max_errors)
		return;
	va_start(ap, fmt);
	report(s, loc, "error", fmt, ap);
	va_end(ap);
	report_trail(s);
	if (s->nerrors == s->max_errors)
		fprintf(stderr, "stap: too many errors, stopping\n");
}

void diag_warning(struct session *s, struct srcloc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bool seen = shown_before(s, loc, "warning", fmt, ap);
	va_end(ap);
	if (seen)
		return;
	s->nwarnings++;
	if (s->suppress_warnings)	/* -w wins over -W, as in SystemTap */
		return;
	if (s->warnings_as_errors)
		s->nerrors++;
	va_start(ap, fmt);
	report(s, loc, s->warnings_as_errors ? "error" : "warning", fmt, ap);
	va_end(ap);
	report_trail(s);
}

void diag_note(struct session *s, struct srcloc loc, const char *fmt, ...)
{
	va_list ap;

	if (s->nerrors > s->max_errors)
		return;
	va_start(ap, fmt);
	report(s, loc, "note", fmt, ap);
	va_end(ap);
}

void diag_plain_error(struct session *s, const char *fmt, ...)
{
	va_list ap;

	s->nerrors++;
	if (s->nerrors > s->max_errors)
		return;
	va_start(ap, fmt);
	fputs("stap: error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static const char *token_text(struct session *s, struct srcloc loc,
			      bool with_loc)
{
	const struct srcfile *f = session_file(s, loc.file);
	const char *p = f ? line_start(f, loc.line) : NULL;

	if (!p)
		return "unknown location";
	p += loc.col - 1;
	const char *kind;
	size_t n = 1;
	if (isalpha((unsigned char)*p) || *p == '_' || *p == '$' || *p == '@') {
		while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '$')
			n++;
		kind = *p == '$' ? "identifier" : *p == '@' ? "operator" :
		       "identifier";
		for (size_t i = 0; i < sizeof(keyword_list) / sizeof(keyword_list[0]); i++)
			if (strlen(keyword_list[i]) == n &&
			    strncmp(keyword_list[i], p, n) == 0)
				kind = "keyword";
	} else if (isdigit((unsigned char)*p)) {
		while (isalnum((unsigned char)p[n]))
			n++;
		kind = "number";
	} else if (*p == '"') {
		while (p[n] && p[n] != '"' && p[n] != '\n')
			n += p[n] == '\\' && p[n + 1] ? 2 : 1;
		if (p[n] == '"')
			n++;
		kind = "string";
	} else {
		static const char *const ops[] = {
			"<<<", ">>>", "<<=", ">>=", "==", "!=", "<=", ">=",
			"=~", "!~", "+=", "-=", "*=", "/=", "%=", "&=", "^=",
			"|=", ".=", "&&", "||", "++", "--", "->", "<<", ">>",
		};
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (strncmp(p, ops[i], strlen(ops[i])) == 0) {
				n = strlen(ops[i]);
				break;
			}
		kind = "operator";
	}
	if (!with_loc)
		return arena_printf(&s->arena, "%s '%.*s'", kind, (int)n, p);
	return arena_printf(&s->arena, "%s '%.*s' at %s:%d:%d", kind, (int)n,
			    p, f->name, loc.line, loc.col);
}

const char *diag_describe_token(struct session *s, struct srcloc loc)
{
	return token_text(s, loc, true);
}

const char *diag_token_text(struct session *s, struct srcloc loc)
{
	return token_text(s, loc, false);
}
