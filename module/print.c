// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * printf's fast path into the probe's print buffer (runtime/print.h): the
 * pieces of a format (literal text, conversions) whose output has a bound
 * known here are grouped into runs of at most STP_PRINT_RUN_MAX bytes, and
 * each run becomes straight-line C: one stp_print_reserve() for the run's
 * bound, literal bytes copied with a constant length, each conversion one
 * writer call (stp_put_dec and the like for a conversion without flags,
 * width or precision, stp_put_fmt otherwise), one stp_print_done(). A
 * piece without such a bound (%s, %m, %M, a '*' width or precision, a
 * field wider than STP_PRINT_FIELD_MAX, a literal longer than a run) goes
 * through the general functions (stp_print_string and the rest). The
 * bytes written are the general functions' exactly; only the work per
 * piece differs.
 */
#include "module/emit.h"
#include "semantic/format.h"

#include <string.h>

/* runtime/print.h */
#define RUN_MAX 256
#define FIELD_MAX 64

/* A struct stp_fmt initialiser for a printf piece. */
const char *fmt_init(struct cg *cg, const struct fmt_piece *p)
{
	struct strbuf sb = { 0 };

	sb_printf(&sb, "{ .conv = '%c', .flags = 0", p->conv);
	if (p->flags & FMT_LEFT)
		sb_puts(&sb, " | STP_FMT_LEFT");
	if (p->flags & FMT_PLUS)
		sb_puts(&sb, " | STP_FMT_PLUS");
	if (p->flags & FMT_SPACE)
		sb_puts(&sb, " | STP_FMT_SPACE");
	if (p->flags & FMT_ALT)
		sb_puts(&sb, " | STP_FMT_ALT");
	if (p->flags & FMT_ZERO)
		sb_puts(&sb, " | STP_FMT_ZERO");
	sb_printf(&sb, ", .width = %d, .prec = %d }", p->width, p->prec);
	const char *r = arena_strdup(&cg->s->arena, sb_str(&sb));
	sb_free(&sb);
	return r;
}

static long max_l(long a, long b)
{
	return a > b ? a : b;
}

/*
 * The bytes a literal piece prints: up to its first NUL, as the general
 * path (stp_print_str) prints it.
 */
static size_t literal_len(const struct fmt_piece *pc)
{
	const char *nul = memchr(pc->text, '\0', pc->len);

	return nul ? (size_t)(nul - pc->text) : pc->len;
}

/* The most a piece writes, or -1 when a run cannot hold it. */
static long piece_bound(const struct fmt_piece *pc)
{
	if (!pc->is_conv) {
		size_t n = literal_len(pc);

		return n <= RUN_MAX ? (long)n : -1;
	}
	if (pc->width_star || pc->prec_star || pc->width > FIELD_MAX ||
	    pc->prec > FIELD_MAX)
		return -1;
	switch (pc->conv) {
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X': case 'p':
		/* sign or "0x", then the digits (22 in octal) or the
		 * precision's zeros; the width pads that */
		return max_l(pc->width, 3 + max_l(pc->prec, 22));
	case 'c':
		return max_l(pc->width, 4);	/* "\ooo" with '#' */
	case 'b':
		return 8;
	default:				/* s m M */
		return -1;
	}
}

/* No flags, width or precision (a '*' field is one, set at run time). */
static bool plain(const struct fmt_piece *pc)
{
	return !pc->flags && pc->width < 0 && pc->prec < 0 &&
	       !pc->width_star && !pc->prec_star;
}

/* fmts[p], made the first time a piece needs its struct stp_fmt. */
static const char *fmt_of(struct cg *cg, const struct fmt_piece *pc,
			  const char **fmt)
{
	if (!*fmt) {
		*fmt = arena_printf(&cg->s->arena, "f%d", cg->ntemps++);
		emit(cg, "static const struct stp_fmt %s = %s;", *fmt,
		     fmt_init(cg, pc));
	}
	return *fmt;
}

/* One piece of a run: its text at stp_o, which has room. */
static void run_piece(struct cg *cg, const struct fmt_piece *pc,
		      const char **fmt, const char *v)
{
	if (!pc->is_conv) {
		size_t n = literal_len(pc);

		unsigned char ch = (unsigned char)pc->text[0];

		if (n == 1 && ch == '\n')
			emit(cg, "*stp_o++ = '\\n';");
		else if (n == 1 && ch >= 0x20 && ch < 0x7f && ch != '\'' &&
			 ch != '\\')
			emit(cg, "*stp_o++ = '%c';", ch);
		else if (n == 1)
			emit(cg, "*stp_o++ = %d;", (signed char)ch);
		else if (n)
			emit(cg, "memcpy(stp_o, %s, %zu); stp_o += %zu;",
			     c_string(cg, pc->text, n), n, n);
		return;
	}
	if (!plain(pc)) {
		const char *f = fmt_of(cg, pc, fmt);

		emit(cg, "stp_o = stp_put_fmt(stp_o, &%s, %s);", f, v);
		return;
	}
	switch (pc->conv) {
	case 'd': case 'i':
		emit(cg, "stp_o = stp_put_dec(stp_o, %s);", v);
		break;
	case 'u':
		emit(cg, "stp_o = stp_put_udec(stp_o, (u64)%s);", v);
		break;
	case 'x': case 'X':
		emit(cg, "stp_o = stp_put_hex(stp_o, (u64)%s, %d);", v,
		     pc->conv == 'X');
		break;
	case 'p':
		emit(cg, "*stp_o++ = '0'; *stp_o++ = 'x';");
		emit(cg, "stp_o = stp_put_hex(stp_o, (u64)%s, 0);", v);
		break;
	case 'c':
		emit(cg, "*stp_o++ = (char)%s;", v);
		break;
	default:				/* o b */
		emit(cg, "stp_o = stp_put_fmt(stp_o, &%s, %s);",
		     fmt_of(cg, pc, fmt), v);
		break;
	}
}

/* A piece outside any run, through the general functions. */
static void general_piece(struct cg *cg, const struct fmt_piece *pc,
			  const char **fmt, const char *v)
{
	if (!pc->is_conv) {
		emit(cg, "stp_print_bytes(c, %s, %zu);",
		     c_string(cg, pc->text, literal_len(pc)),
		     literal_len(pc));
	} else if (pc->conv == 's' && plain(pc)) {
		emit(cg, "stp_print_str(c, %s);", v);
	} else {
		const char *f = fmt_of(cg, pc, fmt);

		emit(cg, "stp_print_%s(c, &%s, %s);",
		     pc->conv == 's' ? "string" : "long", f, v);
	}
}

void gen_print_pieces(struct cg *cg, const struct fmt_piece *pieces, int np,
		      const char **fmts, const char **args)
{
	int p = 0;

	while (p < np) {
		long total = 0, b;
		int q;

		for (q = p; q < np; q++) {
			b = piece_bound(&pieces[q]);
			if (b < 0 || total + b > RUN_MAX)
				break;
			total += b;
		}
		if (q == p) {
			general_piece(cg, &pieces[p], &fmts[p], args[p]);
			p++;
			continue;
		}
		if (!total) {		/* literals that print nothing */
			p = q;
			continue;
		}
		emit(cg, "{");
		cg->depth++;
		emit(cg, "char *stp_o = stp_print_reserve(c, %ld);", total);
		for (; p < q; p++)
			run_piece(cg, &pieces[p], &fmts[p], args[p]);
		emit(cg, "stp_print_done(c, stp_o);");
		cg->depth--;
		emit(cg, "}");
	}
}
