/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable string buffer for printers and the C emitter. */
#ifndef LIB_STRBUF_H
#define LIB_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *data;		/* NUL-terminated; NULL until first append */
	size_t len, cap;
};

void sb_append(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putc(struct strbuf *sb, char c);
void sb_printf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap);
/*
 * s as a C string literal, quotes included: \ and " escaped, \n, other
 * control and non-ASCII bytes and '?' (trigraphs) in octal. for_comment:
 * '*' too (as \052), so the literal can sit inside a C comment without
 * closing or opening one -- how names the host chose (file paths, probe
 * points, the release) reach the generated C.
 */
void sb_c_literal(struct strbuf *sb, const char *s, size_t len,
		  bool for_comment);
const char *sb_str(struct strbuf *sb);	/* "" when empty */
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

#endif /* LIB_STRBUF_H */
