// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The printf formatter.  One core writes through a small sink that is
 * either a probe's print buffer (committed to the ring when full) or a
 * script string.  Integer conversions are done here rather than with the
 * kernel's vsnprintf, to match SystemTap 4.8 exactly (e.g. %#x of 0 is
 * "0x0", %#o of 0 is "00", %p is %#x, %+u has no sign).
 */

#define STP_FMT_MAXPAD 65536		/* cap on width and precision */

struct stp_sink {
	struct stp_context *c;		/* print buffer target, or NULL */
	struct stp_strbuf *sb;		/* string target when c is NULL */
	char *o;			/* or raw memory known to have room */
};

static void stp_sink_put(struct stp_sink *s, const char *p, size_t n)
{
	struct stp_context *c = s->c;

	if (s->o) {
		memcpy(s->o, p, n);
		s->o += n;
	} else if (c) {
		size_t room = STP_PRINT_BUF_SIZE - c->plen;

		if (likely(n <= room)) {
			memcpy(c->pbuf + c->plen, p, n);
			c->plen += n;
			return;
		}
		while (n) {
			size_t k;

			room = STP_PRINT_BUF_SIZE - c->plen;
			if (!room) {
				stp_print_commit(c);
				continue;
			}
			k = min(n, room);
			memcpy(c->pbuf + c->plen, p, k);
			c->plen += k;
			p += k;
			n -= k;
		}
	} else {
		struct stp_strbuf *sb = s->sb;
		size_t room = MAXSTRINGLEN - 1 - min_t(size_t, sb->len,
						       MAXSTRINGLEN - 1);
		size_t k = min(n, room);

		memmove(sb->buf + sb->len, p, k);
		sb->len += k;
		sb->buf[sb->len] = '\0';
	}
}

static void stp_sink_fill(struct stp_sink *s, char ch, long n)
{
	char chunk[32];

	if (n <= 0)
		return;
	if (s->o) {
		memset(s->o, ch, n);
		s->o += n;
		return;
	}
	memset(chunk, ch, sizeof(chunk));
	while (n > 0) {
		size_t k = min_t(long, n, sizeof(chunk));

		stp_sink_put(s, chunk, k);
		n -= k;
	}
}

static int stp_fmt_clamp(int v)
{
	return v > STP_FMT_MAXPAD ? STP_FMT_MAXPAD : v;
}

/*
 * %c; with '#' (SystemTap's pretty printing of char members uses '%#c')
 * a character that is not printable ASCII, a quote or a backslash is
 * escaped: \n and the other C escapes, else three octal digits.
 */
static void stp_fmt_char(struct stp_sink *s, const struct stp_fmt *f,
			 int64_t v)
{
	static const char from[] = "\a\b\f\n\r\t\v'\\";
	static const char to[] = "abfnrtv'\\";
	unsigned char ch = (unsigned char)v;
	char out[4] = { (char)ch };
	int n = 1, pad;

	if ((f->flags & STP_FMT_ALT) &&
	    (ch < 0x20 || ch >= 0x7f || ch == '\'' || ch == '\\')) {
		const char *e = ch ? memchr(from, ch, sizeof(from) - 1) : NULL;

		out[0] = '\\';
		if (e) {
			out[1] = to[e - from];
			n = 2;
		} else {
			out[1] = '0' + ((ch >> 6) & 3);
			out[2] = '0' + ((ch >> 3) & 7);
			out[3] = '0' + (ch & 7);
			n = 4;
		}
	}
	pad = stp_fmt_clamp(f->width) - n;
	if (!(f->flags & STP_FMT_LEFT))
		stp_sink_fill(s, ' ', pad);
	stp_sink_put(s, out, n);
	if (f->flags & STP_FMT_LEFT)
		stp_sink_fill(s, ' ', pad);
}

/* %b: the value's raw bytes in native order; width 1, 2, 4 or 8. */
static void stp_fmt_binary(struct stp_sink *s, const struct stp_fmt *f,
			   int64_t v)
{
	u8 b1 = v;
	u16 b2 = v;
	u32 b4 = v;
	u64 b8 = v;

	switch (f->width) {
	case 1:
		stp_sink_put(s, (const char *)&b1, 1);
		break;
	case 2:
		stp_sink_put(s, (const char *)&b2, 2);
		break;
	case 4:
		stp_sink_put(s, (const char *)&b4, 4);
		break;
	default:
		stp_sink_put(s, (const char *)&b8, 8);
		break;
	}
}

/* Bytes a %m / %M reads: the precision, or 1 (also for a precision of 0). */
static long stp_fmt_memlen(const struct stp_fmt *f)
{
	return f->prec > 0 ? stp_fmt_clamp(f->prec) : 1;
}

/*
 * %m / %M: stp_fmt_memlen() bytes of kernel memory at address v, raw or
 * as hex.  The generated code has checked them (stp_mem_check); memory
 * that went away since ends the output early.
 */
static void stp_fmt_memory(struct stp_sink *s, const struct stp_fmt *f,
			   int64_t v)
{
	static const char hex[] = "0123456789abcdef";
	const char *src = (const char *)(unsigned long)v;
	long n = stp_fmt_memlen(f);
	long outlen = f->conv == 'M' ? 2 * n : n;
	long pad = stp_fmt_clamp(f->width) - outlen;
	u8 chunk[32];
	char hbuf[64];

	if (!(f->flags & STP_FMT_LEFT))
		stp_sink_fill(s, ' ', pad);
	while (n > 0) {
		size_t k = min_t(long, n, sizeof(chunk));
		size_t i;

		if (copy_from_kernel_nofault(chunk, src, k))
			return;
		if (f->conv == 'M') {
			for (i = 0; i < k; i++) {
				hbuf[2 * i] = hex[chunk[i] >> 4];
				hbuf[2 * i + 1] = hex[chunk[i] & 15];
			}
			stp_sink_put(s, hbuf, 2 * k);
		} else {
			stp_sink_put(s, (const char *)chunk, k);
		}
		src += k;
		n -= k;
	}
	if (f->flags & STP_FMT_LEFT)
		stp_sink_fill(s, ' ', pad);
	if (f->flags & STP_FMT_ZERO)	/* as %05s: a NUL byte after */
		stp_sink_put(s, "", 1);
}

/* %d %i %u %o %x %X %p */
static void stp_fmt_integer(struct stp_sink *s, const struct stp_fmt *f,
			    int64_t v)
{
	const char *digset = "0123456789abcdef";
	const char *prefix = "";
	char digits[24];
	char sign = 0;
	unsigned int base = 10;
	u64 mag = (u64)v;
	int nd = 0, body, len, pad;
	int prec = stp_fmt_clamp(f->prec);
	u8 fl = f->flags;

	switch (f->conv) {
	case 'o':
		base = 8;
		if (fl & STP_FMT_ALT)
			prefix = "0";
		break;
	case 'X':
		digset = "0123456789ABCDEF";
		base = 16;
		if (fl & STP_FMT_ALT)
			prefix = "0X";
		break;
	case 'x':
		base = 16;
		if (fl & STP_FMT_ALT)
			prefix = "0x";
		break;
	case 'p':
		base = 16;
		prefix = "0x";
		break;
	case 'u':
		break;
	default:			/* 'd', 'i' */
		if (v < 0) {
			sign = '-';
			mag = -(u64)v;
		} else if (fl & STP_FMT_PLUS) {
			sign = '+';
		} else if (fl & STP_FMT_SPACE) {
			sign = ' ';
		}
		break;
	}

	do {
		digits[sizeof(digits) - ++nd] = digset[mag % base];
		mag /= base;
	} while (mag);

	body = nd > prec ? nd : prec;
	len = (sign ? 1 : 0) + strlen(prefix) + body;
	pad = stp_fmt_clamp(f->width) - len;

	if (!(fl & (STP_FMT_LEFT | STP_FMT_ZERO)))
		stp_sink_fill(s, ' ', pad);
	if (sign)
		stp_sink_put(s, &sign, 1);
	stp_sink_put(s, prefix, strlen(prefix));
	if (!(fl & STP_FMT_LEFT) && (fl & STP_FMT_ZERO))
		stp_sink_fill(s, '0', pad);
	stp_sink_fill(s, '0', body - nd);
	stp_sink_put(s, digits + sizeof(digits) - nd, nd);
	if (fl & STP_FMT_LEFT)
		stp_sink_fill(s, ' ', pad);
}

static void stp_fmt_long(struct stp_sink *s, const struct stp_fmt *f,
			 int64_t v)
{
	switch (f->conv) {
	case 'c':
		stp_fmt_char(s, f, v);
		break;
	case 'b':
		stp_fmt_binary(s, f, v);
		break;
	case 'm':
	case 'M':
		stp_fmt_memory(s, f, v);
		break;
	default:
		stp_fmt_integer(s, f, v);
		break;
	}
}

/*
 * %s: precision truncates, width pads with spaces; the '0' flag ("%05s",
 * "%0s") pads with spaces too, then writes a NUL byte, as SystemTap's
 * _stp_vsprint_memory does (a string for a binary reader; in sprintf the
 * result ends there).
 */
static void stp_fmt_string(struct stp_sink *s, const struct stp_fmt *f,
			   const char *str)
{
	size_t n = f->prec >= 0 ? strnlen(str, f->prec) : strlen(str);
	long pad = stp_fmt_clamp(f->width) - (long)n;

	if (!(f->flags & STP_FMT_LEFT))
		stp_sink_fill(s, ' ', pad);
	stp_sink_put(s, str, n);
	if (f->flags & STP_FMT_LEFT)
		stp_sink_fill(s, ' ', pad);
	if (f->flags & STP_FMT_ZERO)
		stp_sink_put(s, "", 1);
}

/*
 * The writers of printf's fast path (print.h): each puts its text at o,
 * which has room for it, and returns the end.
 */
static const u64 stp_pow10[20] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

static const char stp_digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

/* Digits written backwards from the end, two at a time: no buffer. */
char *stp_put_udec(char *o, u64 v)
{
	/* digits: about log10(2) * bits, then one comparison */
	int t = (fls64(v | 1) * 1233) >> 12;
	char *end = o + t + ((v | 1) >= stp_pow10[t]);

	o = end;
	while (v >= 100) {
		u64 q = div_u64(v, 100);
		unsigned int r = v - q * 100;

		o -= 2;
		o[0] = stp_digit_pairs[2 * r];
		o[1] = stp_digit_pairs[2 * r + 1];
		v = q;
	}
	if (v >= 10) {
		o[-2] = stp_digit_pairs[2 * v];
		o[-1] = stp_digit_pairs[2 * v + 1];
	} else {
		o[-1] = '0' + v;
	}
	return end;
}

char *stp_put_dec(char *o, int64_t v)
{
	if (v < 0) {
		*o++ = '-';
		return stp_put_udec(o, -(u64)v);
	}
	return stp_put_udec(o, v);
}

char *stp_put_hex(char *o, u64 v, int upper)
{
	const char *digset = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *end = o + (fls64(v | 1) + 3) / 4;

	o = end;
	do {
		*--o = digset[v & 15];
		v >>= 4;
	} while (v);
	return end;
}

char *stp_put_fmt(char *o, const struct stp_fmt *f, int64_t v)
{
	struct stp_sink sk = { .o = o };

	stp_fmt_long(&sk, f, v);
	return sk.o;
}

/* Commit the print buffer to this CPU's ring as one record. */
void stp_print_commit(struct stp_context *c)
{
	if (!c->plen)
		return;
	stp_ring_write(c, c->ptype, c->pbuf, c->plen);
	c->plen = 0;
}

void stp_print_flush(struct stp_context *c)
{
	stp_print_commit(c);
}

void stp_print_bytes(struct stp_context *c, const char *s, size_t n)
{
	struct stp_sink sk = { .c = c };

	stp_sink_put(&sk, s, n);
}

void stp_print_str(struct stp_context *c, const char *s)
{
	struct stp_sink sk = { .c = c };

	stp_sink_put(&sk, s, strlen(s));
}

void stp_print_char(struct stp_context *c, int ch)
{
	struct stp_sink sk = { .c = c };
	char b = ch;

	stp_sink_put(&sk, &b, 1);
}

void stp_print_long(struct stp_context *c, const struct stp_fmt *f, int64_t v)
{
	struct stp_sink sk = { .c = c };

	stp_fmt_long(&sk, f, v);
}

void stp_print_string(struct stp_context *c, const struct stp_fmt *f,
		      const char *s)
{
	struct stp_sink sk = { .c = c };

	stp_fmt_string(&sk, f, s);
}

/*
 * Before a printf or sprintf with %m / %M writes anything: can each such
 * conversion read its bytes?  Else raise SystemTap's error, naming the
 * first byte that faults, at where and return non-zero (the generated
 * code leaves through its error label, so nothing of the call is
 * printed, as in SystemTap).
 */
int stp_mem_check(struct stp_context *c, const struct stp_fmt *f, int64_t v,
		  const char *where)
{
	const char *src = (const char *)(unsigned long)v;
	long n = stp_fmt_memlen(f);
	u8 chunk[32];

	while (n > 0) {
		size_t k = min_t(long, n, sizeof(chunk));

		if (copy_from_kernel_nofault(chunk, src, k)) {
			while (k-- && !copy_from_kernel_nofault(chunk, src, 1))
				src++;
			if (!c->last_error) {
				stp_errorf(c, "read fault [man error::fault] "
					   "at 0x%lx", (unsigned long)src);
				c->last_where = where;
			}
			return -EFAULT;
		}
		src += k;
		n -= k;
	}
	return 0;
}

/*
 * STAP_PRINTF in embedded C: the kernel's vsnprintf straight into the
 * print buffer, committing it first when the text does not fit; text
 * longer than the whole buffer is truncated.
 */
void stp_printf(struct stp_context *c, const char *fmt, ...)
{
	size_t room = STP_PRINT_BUF_SIZE - c->plen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->pbuf + c->plen, room, fmt, ap);
	va_end(ap);
	if ((size_t)n >= room && c->plen) {
		stp_print_commit(c);
		room = STP_PRINT_BUF_SIZE;
		va_start(ap, fmt);
		n = vsnprintf(c->pbuf, room, fmt, ap);
		va_end(ap);
	}
	/* vsnprintf keeps the last byte of room for its NUL */
	c->plen += min_t(size_t, n, room ? room - 1 : 0);
}

void stp_sb_init(struct stp_strbuf *sb, char *buf)
{
	sb->buf = buf;
	sb->len = 0;
	buf[0] = '\0';
}

void stp_sb_str(struct stp_strbuf *sb, const char *s)
{
	struct stp_sink sk = { .sb = sb };

	stp_sink_put(&sk, s, strlen(s));
}

void stp_sb_char(struct stp_strbuf *sb, int ch)
{
	struct stp_sink sk = { .sb = sb };
	char b = ch;

	stp_sink_put(&sk, &b, 1);
}

void stp_sb_long(struct stp_strbuf *sb, const struct stp_fmt *f, int64_t v)
{
	struct stp_sink sk = { .sb = sb };

	stp_fmt_long(&sk, f, v);
}

void stp_sb_string(struct stp_strbuf *sb, const struct stp_fmt *f,
		   const char *s)
{
	struct stp_sink sk = { .sb = sb };

	stp_fmt_string(&sk, f, s);
}
