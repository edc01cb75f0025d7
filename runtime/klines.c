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

enum { STP_KLINE_FILE = 1, STP_KLINE_LINE = 2 };

static int __maybe_unused stp_kline_format(char *out, size_t size,
					   unsigned long addr, int what)
{
#if defined(STP_KLINE_TABLES) && defined(STP_KFUNC_ANCHOR_SYM)
	unsigned long link = addr - ((unsigned long)&STP_KFUNC_ANCHOR_SYM -
				     STP_KFUNC_ANCHOR_LINK);
	unsigned int lo = 0, hi = stp_nklines;
	const struct stp_line *l = NULL;

	if (link >= stp_klines_base &&
	    link - stp_klines_base <= 0xffffffffUL) {
		unsigned int rel = (unsigned int)(link - stp_klines_base);

		while (lo < hi) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (stp_k_lines[mid].addr <= rel)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && stp_k_lines[lo - 1].line)
			l = &stp_k_lines[lo - 1];
	}
	if (l) {
		switch (what) {
		case STP_KLINE_FILE:
			return snprintf(out, size, "%s", stp_k_files[l->file]);
		case STP_KLINE_LINE:
			return snprintf(out, size, "%u", l->line);
		default:
			return snprintf(out, size, "%s:%u",
					stp_k_files[l->file], l->line);
		}
	}
#endif
	return snprintf(out, size, "0x%lx", addr);
}

#endif /* STP_KLINES_C */
