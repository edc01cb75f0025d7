// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The loader's printf (--runtime=bpf): a print record (a format id, then
 * its arguments: 8 bytes per long, BPF_STRLEN per string) formatted as
 * the module backend's runtime formats it (runtime/print.c, which is
 * kernel-only): SystemTap 4.8's integers (%#x of 0 is "0x0", %p is %#x,
 * %+u has no sign), %b's raw bytes, %c, %s with precision, width and the
 * '0' flag's NUL byte, and '*' widths and precisions from the arguments.
 * The formats are parsed once, when the program is loaded.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bpf/bpf.h"
#include "semantic/format.h"

#define MAXPAD 65536

static void put(struct bpf_sink *s, const char *p, size_t n)
{
	if (s->f) {
		fwrite(p, 1, n, s->f);
		return;
	}
	size_t room = BPF_STRLEN - 1 - s->len;

	if (n > room)
		n = room;
	memmove(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = 0;
}

static void fill(struct bpf_sink *s, char ch, long n)
{
	char chunk[64];

	memset(chunk, ch, sizeof(chunk));
	while (n > 0) {
		size_t k = n < (long)sizeof(chunk) ? (size_t)n : sizeof(chunk);
		put(s, chunk, k);
		n -= (long)k;
	}
}

static int clamp(int v)
{
	return v > MAXPAD ? MAXPAD : v;
}

static void fmt_integer(struct bpf_sink *s, const struct fmt_piece *f,
			int width, int prec, int64_t v)
{
	const char *digset = "0123456789abcdef";
	const char *prefix = "";
	char digits[24];
	char sign = 0;
	unsigned base = 10;
	uint64_t mag = (uint64_t)v;
	int nd = 0;
	unsigned fl = f->flags;

	switch (f->conv) {
	case 'o':
		base = 8;
		if (fl & FMT_ALT)
			prefix = "0";
		break;
	case 'X':
		digset = "0123456789ABCDEF";
		base = 16;
		if (fl & FMT_ALT)
			prefix = "0X";
		break;
	case 'x':
		base = 16;
		if (fl & FMT_ALT)
			prefix = "0x";
		break;
	case 'p':
		base = 16;
		prefix = "0x";
		break;
	case 'u':
		break;
	default:
		if (v < 0) {
			sign = '-';
			mag = -(uint64_t)v;
		} else if (fl & FMT_PLUS) {
			sign = '+';
		} else if (fl & FMT_SPACE) {
			sign = ' ';
		}
	}
	do {
		digits[sizeof(digits) - ++nd] = digset[mag % base];
		mag /= base;
	} while (mag);
	int body = nd > prec ? nd : prec;
	int len = (sign ? 1 : 0) + (int)strlen(prefix) + body;
	int pad = width - len;

	if (!(fl & (FMT_LEFT | FMT_ZERO)))
		fill(s, ' ', pad);
	if (sign)
		put(s, &sign, 1);
	put(s, prefix, strlen(prefix));
	if (!(fl & FMT_LEFT) && (fl & FMT_ZERO))
		fill(s, '0', pad);
	fill(s, '0', body - nd);
	put(s, digits + sizeof(digits) - nd, (size_t)nd);
	if (fl & FMT_LEFT)
		fill(s, ' ', pad);
}

static void fmt_char(struct bpf_sink *s, const struct fmt_piece *f, int width,
		     int64_t v)
{
	static const char from[] = "\a\b\f\n\r\t\v'\\";
	static const char to[] = "abfnrtv'\\";
	unsigned char ch = (unsigned char)v;
	char out[4] = { (char)ch };
	int n = 1;

	if ((f->flags & FMT_ALT) &&
	    (ch < 0x20 || ch >= 0x7f || ch == '\'' || ch == '\\')) {
		const char *e = ch ? memchr(from, ch, sizeof(from) - 1) : NULL;
		out[0] = '\\';
		if (e) {
			out[1] = to[e - from];
			n = 2;
		} else {
			out[1] = (char)('0' + ((ch >> 6) & 3));
			out[2] = (char)('0' + ((ch >> 3) & 7));
			out[3] = (char)('0' + (ch & 7));
			n = 4;
		}
	}
	if (!(f->flags & FMT_LEFT))
		fill(s, ' ', width - n);
	put(s, out, (size_t)n);
	if (f->flags & FMT_LEFT)
		fill(s, ' ', width - n);
}

static void fmt_binary(struct bpf_sink *s, int width, int64_t v)
{
	uint8_t b1 = (uint8_t)v;
	uint16_t b2 = (uint16_t)v;
	uint32_t b4 = (uint32_t)v;
	uint64_t b8 = (uint64_t)v;

	switch (width) {
	case 1:
		put(s, (const char *)&b1, 1);
		break;
	case 2:
		put(s, (const char *)&b2, 2);
		break;
	case 4:
		put(s, (const char *)&b4, 4);
		break;
	default:
		put(s, (const char *)&b8, 8);
	}
}

static void fmt_string(struct bpf_sink *s, const struct fmt_piece *f,
		       int width, int prec, const char *str)
{
	size_t n = prec >= 0 ? strnlen(str, (size_t)prec) : strlen(str);
	long pad = width - (long)n;

	if (!(f->flags & FMT_LEFT))
		fill(s, ' ', pad);
	put(s, str, n);
	if (f->flags & FMT_LEFT)
		fill(s, ' ', pad);
	if (f->flags & FMT_ZERO)
		put(s, "", 1);
}

void bpf_format(struct bpf_sink *s, const struct fmt_piece *pieces, int n,
		const char *types, const char *args, const char *end)
{
	for (int i = 0; i < n; i++) {
		const struct fmt_piece *f = &pieces[i];
		if (!f->is_conv) {
			put(s, f->text, f->len);
			continue;
		}
		int width = f->width, prec = f->prec;
		long long v = 0;
		if (f->width_star || f->prec_star) {
			for (int k = 0; k < f->width_star + f->prec_star; k++) {
				if (!*types || args + 8 > end)
					return;
				memcpy(&v, args, 8);
				args += 8;
				types++;
				if (k == 0 && f->width_star)
					width = (int)v;
				else
					prec = (int)v;
			}
		}
		/* a negative '*' width pads nothing, as in SystemTap */
		width = width < 0 ? 0 : clamp(width);
		if (prec >= 0)
			prec = clamp(prec);
		if (!*types)
			return;
		if (*types == 's') {
			if (args + BPF_STRLEN > end)
				return;
			char str[BPF_STRLEN];
			memcpy(str, args, BPF_STRLEN);
			str[BPF_STRLEN - 1] = 0;
			fmt_string(s, f, width, prec, str);
			args += BPF_STRLEN;
		} else {
			if (args + 8 > end)
				return;
			memcpy(&v, args, 8);
			args += 8;
			if (f->conv == 'c')
				fmt_char(s, f, width, v);
			else if (f->conv == 'b')
				fmt_binary(s, f->width, v);
			else
				fmt_integer(s, f, width, prec, v);
		}
		types++;
	}
}
