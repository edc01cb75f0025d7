/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * printf-style output, SystemTap 4.8 compatible: into the probe's print
 * buffer (stp_print_*) or into a script string (stp_sb_*, for sprintf).
 */
#ifndef RUNTIME_PRINT_H
#define RUNTIME_PRINT_H

#define STP_FMT_LEFT	0x01		/* '-' */
#define STP_FMT_PLUS	0x02		/* '+' */
#define STP_FMT_SPACE	0x04		/* ' ' */
#define STP_FMT_ALT	0x08		/* '#' */
#define STP_FMT_ZERO	0x10		/* '0' */

/* One conversion of a format string; width and prec are -1 when absent. */
struct stp_fmt {
	char conv;			/* d i u o x X s c p b m M */
	u8 flags;			/* STP_FMT_* */
	int width;			/* minimum field width */
	int prec;			/* precision */
};

/* A string being built; at most MAXSTRINGLEN - 1 bytes, NUL-terminated. */
struct stp_strbuf {
	char *buf;			/* MAXSTRINGLEN bytes */
	size_t len;			/* bytes used, excluding the NUL */
};

void stp_print_str(struct stp_context *c, const char *s);
void stp_print_bytes(struct stp_context *c, const char *s, size_t n);
void stp_print_char(struct stp_context *c, int ch);
void stp_print_long(struct stp_context *c, const struct stp_fmt *f, int64_t v);
void stp_print_string(struct stp_context *c, const struct stp_fmt *f,
		      const char *s);
int stp_mem_check(struct stp_context *c, const struct stp_fmt *f, int64_t v,
		  const char *where);
__printf(2, 3) void stp_printf(struct stp_context *c, const char *fmt, ...);
void stp_print_flush(struct stp_context *c);
void stp_print_commit(struct stp_context *c);

/*
 * printf's fast path: pass 3 compiles a run of a format whose output has
 * a bound it knows (literal text, and the integer and character
 * conversions with constant width and precision up to
 * STP_PRINT_FIELD_MAX) to straight-line code that writes into the print
 * buffer: stp_print_reserve() makes room for the bound (committing what
 * the buffer holds when it lacks it: a run is never split between
 * records), literal text is copied, each conversion goes through one
 * writer (stp_put_*: its text at o, returns the end), and
 * stp_print_done() keeps the end.
 */
#define STP_PRINT_RUN_MAX 256		/* the most one run reserves */
#define STP_PRINT_FIELD_MAX 64		/* width/precision of a run's field */

#if STP_PRINT_BUF_SIZE < STP_PRINT_RUN_MAX
#error "STP_PRINT_BUF_SIZE must be at least STP_PRINT_RUN_MAX (256)"
#endif

static __always_inline char *stp_print_reserve(struct stp_context *c,
					       size_t n)
{
	if (unlikely(STP_PRINT_BUF_SIZE - c->plen < n))
		stp_print_commit(c);
	return c->pbuf + c->plen;
}

static __always_inline void stp_print_done(struct stp_context *c, char *end)
{
	c->plen = end - c->pbuf;
}

char *stp_put_dec(char *o, int64_t v);		/* %d %i */
char *stp_put_udec(char *o, u64 v);		/* %u */
char *stp_put_hex(char *o, u64 v, int upper);	/* %x %X, digits only */
char *stp_put_fmt(char *o, const struct stp_fmt *f, int64_t v);
						/* any other but %m %M */

void stp_sb_init(struct stp_strbuf *sb, char *buf);
void stp_sb_str(struct stp_strbuf *sb, const char *s);
void stp_sb_char(struct stp_strbuf *sb, int ch);
void stp_sb_long(struct stp_strbuf *sb, const struct stp_fmt *f, int64_t v);
void stp_sb_string(struct stp_strbuf *sb, const struct stp_fmt *f,
		   const char *s);

#endif /* RUNTIME_PRINT_H */
