// SPDX-License-Identifier: GPL-2.0-or-later
/* Diagnostics with source line and caret; see diag.h. */
#include "parser/diag.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * Source text is shown as it is, but for the bytes a terminal would act
 * on: control bytes (a tab is kept: it lines the caret up), DEL and the
 * C1 controls (UTF-8 C2 80..C2 9F) are shown as \xNN, four columns a
 * byte. These give a unit's length in bytes and its width in columns
 * (0 for a UTF-8 continuation byte: the lead byte took the column).
 */
static size_t unit_len(const unsigned char *p, size_t n)
{
	return n >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f ? 2 : 1;
}

static bool escaped(const unsigned char *p, size_t n)
{
	return (p[0] < 0x20 && p[0] != '\t') || p[0] == 0x7f ||
	       unit_len(p, n) == 2;
}

static size_t unit_width(const unsigned char *p, size_t n)
{
	if (escaped(p, n))
		return 4 * unit_len(p, n);
	return (p[0] & 0xc0) == 0x80 ? 0 : 1;
}

/* text[0..n) shown: control bytes as \xNN; a newline too unless keep_nl
 * (a message of several lines) */
static void put_shown(FILE *out, const char *text, size_t n, bool keep_nl)
{
	const unsigned char *p = (const unsigned char *)text;

	for (size_t i = 0; i < n;) {
		size_t len = unit_len(p + i, n - i);
		if (escaped(p + i, n - i) && !(keep_nl && p[i] == '\n'))
			for (size_t k = 0; k < len; k++)
				fprintf(out, "\\x%02x", p[i + k]);
		else
			fwrite(p + i, 1, len, out);
		i += len;
	}
}

/* under text[0..n): a tab for a tab, a space a column, so that what
 * follows sits under the byte after it */
static void put_padding(FILE *out, const char *text, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;

	for (size_t i = 0; i < n;) {
		size_t len = unit_len(p + i, n - i);
		if (p[i] == '\t')
			fputc('\t', out);
		else
			for (size_t w = unit_width(p + i, n - i); w; w--)
				fputc(' ', out);
		i += len;
	}
}

/*
 * The source line [p, p + n) and a caret under byte col - 1. A line wider
 * than SHOW_COLS columns is cut to SHOW_COLS around the caret (at most
 * SHOW_BEFORE columns before it), "..." marking each cut: a megabyte on
 * one line shows as one screen line.
 */
enum { SHOW_COLS = 160, SHOW_BEFORE = 60, MESSAGE_MAX = 2000 };

static void render_line(FILE *out, const char *line, size_t n, int col)
{
	const unsigned char *p = (const unsigned char *)line;
	size_t caret = col < 1 ? 0 : (size_t)col - 1 > n ? n : (size_t)col - 1;
	size_t width = 0, start = 0, end = n;

	for (size_t i = 0; i < n && width <= SHOW_COLS; i++)
		width += unit_width(p + i, n - i);
	if (width > SHOW_COLS) {
		width = 0;
		start = caret;
		while (start > 0) {
			size_t w = unit_width(p + start - 1, n - start + 1);
			if (width + w > SHOW_BEFORE)
				break;
			width += w;
			start--;
		}
		while (start > 0 && start < n && (p[start] & 0xc0) == 0x80)
			start--;	/* not inside a character */
		if (start > 0 && p[start - 1] == 0xc2 &&
		    unit_len(p + start - 1, n - start + 1) == 2)
			start--;	/* nor inside an escaped C1 */
		width = 0;
		end = start;
		while (end < n) {
			size_t len = unit_len(p + end, n - end);
			size_t w = unit_width(p + end, n - end);
			if (width + w > SHOW_COLS && end > caret)
				break;
			width += w;
			end += len;
		}
		while (end < n && (p[end] & 0xc0) == 0x80)
			end++;
	}
	if (start > 0)
		fputs("...", out);
	put_shown(out, line + start, end - start, false);
	fputs(end < n ? "...\n" : "\n", out);
	if (start > 0)
		fputs("   ", out);
	put_padding(out, line + start, caret - start);
	fputs("^\n", out);
}

/* a message, escaped as source is (its own newlines kept), a long one cut */
static void put_message(FILE *out, const char *fmt, va_list ap)
{
	char small[512];
	va_list copy;

	va_copy(copy, ap);
	int got = vsnprintf(small, sizeof(small), fmt, copy);
	va_end(copy);
	if (got < 0)
		return;
	size_t len = (size_t)got;
	char *msg = small;
	if (len >= sizeof(small)) {
		msg = malloc(len + 1);
		if (!msg)
			return;
		vsnprintf(msg, len + 1, fmt, ap);
	}
	if (len > MESSAGE_MAX) {
		len = MESSAGE_MAX;
		while (len > 0 && ((unsigned char)msg[len] & 0xc0) == 0x80)
			len--;	/* not inside a character */
	}
	put_shown(out, msg, len, true);
	if (len < (size_t)got)
		fputs("...", out);
	if (msg != small)
		free(msg);
}

void diag_render(FILE *out, const struct session *s, struct srcloc loc,
		 const char *severity, const char *fmt, va_list ap)
{
	const struct srcfile *f = session_file(s, loc.file);

	if (f) {
		put_shown(out, f->name, strlen(f->name), false);
		fprintf(out, ":%d:%d: %s: ", loc.line, loc.col, severity);
	} else {
		fprintf(out, "stap: %s: ", severity);
	}
	put_message(out, fmt, ap);
	fputc('\n', out);
	if (!f || loc.line < 1)
		return;

	const char *p = line_start(f, loc.line);
	if (!p)
		return;
	const char *eol = memchr(p, '\n', (size_t)(f->text + f->len - p));
	render_line(out, p, eol ? (size_t)(eol - p) : strlen(p), loc.col);

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
	put_message(stderr, fmt, ap);
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
