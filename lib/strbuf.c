// SPDX-License-Identifier: GPL-2.0-or-later
/* Growable string buffer; see strbuf.h. */
#include "lib/strbuf.h"
#include "lib/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sb_reserve(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap * 2 : 256;
	while (cap < sb->len + extra + 1)
		cap *= 2;
	sb->data = xrealloc(sb->data, cap);
	sb->cap = cap;
}

void sb_append(struct strbuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	memcpy(sb->data + sb->len, s, n);
	sb->len += n;
	sb->data[sb->len] = '\0';
}

void sb_puts(struct strbuf *sb, const char *s)
{
	sb_append(sb, s, strlen(s));
}

void sb_putc(struct strbuf *sb, char c)
{
	sb_append(sb, &c, 1);
}

void sb_vprintf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;

	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	sb_reserve(sb, (size_t)n);
	vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

void sb_c_literal(struct strbuf *sb, const char *s, size_t len,
		  bool for_comment)
{
	sb_putc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\')
			sb_printf(sb, "\\%c", ch);
		else if (ch == '\n')
			sb_puts(sb, "\\n");
		else if (ch < 0x20 || ch >= 0x7f || ch == '?' ||
			 (for_comment && ch == '*'))
			sb_printf(sb, "\\%03o", ch);
		else
			sb_putc(sb, (char)ch);
	}
	sb_putc(sb, '"');
}

const char *sb_str(struct strbuf *sb)
{
	return sb->data ? sb->data : "";
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->data)
		sb->data[0] = '\0';
}

void sb_free(struct strbuf *sb)
{
	free(sb->data);
	sb->data = NULL;
	sb->len = sb->cap = 0;
}
