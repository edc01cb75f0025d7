/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growable string buffer for printers and the C emitter. */
#ifndef LIB_STRBUF_H
#define LIB_STRBUF_H

#include <stdarg.h>
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
const char *sb_str(struct strbuf *sb);	/* "" when empty */
void sb_reset(struct strbuf *sb);
void sb_free(struct strbuf *sb);

#endif /* LIB_STRBUF_H */
