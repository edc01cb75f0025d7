// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Source files and lines of kernel addresses (symfileline() and the
 * others of the context-fileline tapset): the line table pass 3 writes
 * (module/lines.c) for the compilation units of the probed kernel
 * functions, rows from stp_klines_base at link-time addresses, moved by
 * the KASLR offset. Without a table, or for an address outside it, the
 * address in hex, as SystemTap 4.8 gives it for a kernel without line
 * data.
 */
#ifndef STP_KLINES_C
#define STP_KLINES_C

/* a row, as module/emit.h's STP_LINE_ROW_C writes it with a table */
#ifndef STP_LINE_ROW
#define STP_LINE_ROW
struct stp_line { unsigned int addr, line; unsigned short file; };
#endif

enum { STP_KLINE_FILE = 1, STP_KLINE_LINE = 2 };

/* The row covering kernel address addr, or NULL. */
static const struct stp_line *__maybe_unused stp_kline_at(unsigned long addr)
{
#if defined(STP_KLINE_TABLES) && defined(STP_KFUNC_ANCHOR_SYM)
	unsigned long link = addr - ((unsigned long)&STP_KFUNC_ANCHOR_SYM -
				     STP_KFUNC_ANCHOR_LINK);
	unsigned int lo = 0, hi = stp_nklines, rel;

	if (link < stp_klines_base || link - stp_klines_base > 0xffffffffUL)
		return NULL;
	rel = (unsigned int)(link - stp_klines_base);
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (stp_k_lines[mid].addr <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && stp_k_lines[lo - 1].line)
		return &stp_k_lines[lo - 1];
#endif
	return NULL;
}

static const char *__maybe_unused stp_kline_file(const struct stp_line *l)
{
#ifdef STP_KLINE_TABLES
	return stp_k_files[l->file];
#else
	return "";
#endif
}

static int __maybe_unused stp_kline_format(char *out, size_t size,
					   unsigned long addr, int what)
{
	const struct stp_line *l = stp_kline_at(addr);

	if (!l)
		return snprintf(out, size, "0x%lx", addr);
	switch (what) {
	case STP_KLINE_FILE:
		return snprintf(out, size, "%s", stp_kline_file(l));
	case STP_KLINE_LINE:
		return snprintf(out, size, "%u", l->line);
	default:
		return snprintf(out, size, "%s:%u", stp_kline_file(l),
				l->line);
	}
}

/* print_backtrace_fileline()'s frame: print_backtrace()'s line with
 * " at FILE:LINE" before the module when the address has a line (4.8's
 * _STP_SYM_FULLER). */
static noinline bool __maybe_unused stp_kstack_print_fileline(void *data,
							    unsigned long addr)
{
	struct stp_context *c = data;
	const struct stp_line *l;
	struct stp_sym sym;

	if (!stp_sym_lookup(addr, &sym))
		stp_printf(c, " 0x%lx\n", addr);
	else if ((l = stp_kline_at(addr)))
		stp_printf(c, " 0x%lx : %s+0x%lx/0x%lx at %s:%u [%s]\n", addr,
			   sym.name, sym.offset, sym.size, stp_kline_file(l),
			   l->line, sym.mod);
	else
		stp_printf(c, " 0x%lx : %s+0x%lx/0x%lx [%s]\n", addr,
			   sym.name, sym.offset, sym.size, sym.mod);
	return true;
}

#endif /* STP_KLINES_C */
