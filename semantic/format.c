// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * printf format parsing, SystemTap 4.8 style: at most one flag character
 * ('-', '+', ' ', '#' or '0'); a second flag is an error, and a '0' after
 * a flag is the start of the width (so "%#010x" pads with spaces); one
 * 'l' length modifier and no other.
 */
#include "semantic/format.h"

#include <string.h>

static const char *flag_chars = "-+ #0";

int format_piece_args(const struct fmt_piece *p)
{
	if (!p->is_conv)
		return 0;
	return 1 + p->width_star + p->prec_star;
}

/* Append literal bytes, merging with a literal piece just before. */
static void add_literal(struct arena *a, struct fmt_piece *out, int *npieces,
			const char *text, size_t len)
{
	if (*npieces > 0 && !out[*npieces - 1].is_conv) {
		struct fmt_piece *p = &out[*npieces - 1];
		char *joined = arena_alloc(a, p->len + len + 1);
		memcpy(joined, p->text, p->len);
		memcpy(joined + p->len, text, len);
		p->text = joined;
		p->len += len;
		return;
	}
	struct fmt_piece *p = &out[(*npieces)++];
	p->text = text;
	p->len = len;
	p->width = p->prec = -1;
}

int format_parse(struct arena *a, const char *fmt, size_t len,
		 struct fmt_piece **pieces, const char **err,
		 size_t *err_offset)
{
	/* At most len pieces: each takes at least one byte. */
	struct fmt_piece *out = arena_alloc(a, (len + 1) * sizeof(*out));
	int n = 0;
	size_t i = 0;

	while (i < len) {
		if (fmt[i] == '%' && i + 1 < len && fmt[i + 1] == '%') {
			add_literal(a, out, &n, "%", 1);
			i += 2;
			continue;
		}
		if (fmt[i] != '%') {
			size_t start = i;
			while (i < len && fmt[i] != '%')
				i++;
			add_literal(a, out, &n, fmt + start, i - start);
			continue;
		}

		size_t start = i++;
		struct fmt_piece *p = &out[n];
		p->is_conv = true;
		p->width = p->prec = -1;
		if (i < len && fmt[i] && strchr(flag_chars, fmt[i])) {
			const char *f = strchr(flag_chars, fmt[i]);
			p->flags = 1u << (f - flag_chars);
			i++;
			if (i < len && fmt[i] && strchr("-+ #", fmt[i])) {
				*err = "only one flag is allowed in a conversion";
				*err_offset = start;
				return -1;
			}
		}
		if (i < len && fmt[i] == '*') {
			p->width_star = true;
			i++;
		} else if (i < len && fmt[i] >= '0' && fmt[i] <= '9') {
			p->width = 0;
			while (i < len && fmt[i] >= '0' && fmt[i] <= '9')
				p->width = p->width * 10 + (fmt[i++] - '0');
		}
		if (i < len && fmt[i] == '.') {
			i++;
			if (i < len && fmt[i] == '*') {
				p->prec_star = true;
				i++;
			} else {
				p->prec = 0;
				while (i < len && fmt[i] >= '0' && fmt[i] <= '9')
					p->prec = p->prec * 10 + (fmt[i++] - '0');
			}
		}
		/*
		 * One 'l' is accepted and ignored (all values are 64-bit);
		 * SystemTap 4.8 knows no other length modifier ("%lld",
		 * "%hd" and "%zd" are invalid).
		 */
		if (i < len && fmt[i] == 'l')
			i++;
		if (i >= len || !fmt[i] || !strchr("diuoxXscpbmM", fmt[i])) {
			*err = i >= len ? "incomplete conversion at the end of the format"
					: "invalid conversion";
			*err_offset = start;
			return -1;
		}
		p->conv = fmt[i++];
		n++;
	}
	*pieces = out;
	return n;
}
