/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pretty printing of typed values ($var$, $var$$, $$parms$, @cast(...)$):
 * pass 2 flattens the value's type into a table of items (literal text,
 * then one conversion of a value read at a fixed offset from the input
 * value, or of the input value itself); stp_pretty() formats it, reading
 * memory fault-safely. A fault anywhere makes the whole text "ERROR", as
 * SystemTap's pretty-printing functions do.
 */
#ifndef RUNTIME_PRETTY_H
#define RUNTIME_PRETTY_H

enum stp_pp_src {
	STP_PP_VALUE,		/* the input value itself */
	STP_PP_ADDR,		/* input + offset (an array's address) */
	STP_PP_READ,		/* size bytes at input + offset */
	STP_PP_BITS,		/* bit_size bits at bit_shift of input + offset */
};

struct stp_pp_item {
	const char *text;	/* printed first */
	char conv;		/* 'i' 'u' 'p' 'x', 'c' (%#c), 's' (a quoted
				 * kernel, else user, string at the value),
				 * 0: text only */
	u8 src;			/* enum stp_pp_src */
	u8 size;		/* STP_PP_READ: 1, 2, 4 or 8 */
	u8 is_signed;
	u8 bit_shift, bit_size;	/* STP_PP_BITS */
	u32 offset;
};

struct stp_pretty {
	const struct stp_pp_item *items;
	unsigned int nitems;
	unsigned int user;	/* a user program's value: its reads are the
				 * current process's memory */
};

/* One argument of $$parms / $$vars: " name=" then the value, or "=?". */
struct stp_tp_parm {
	const char *text;	/* NULL ends the list */
	const struct stp_pretty *pp;	/* NULL: text only */
	int arg;		/* index into c->tp->all */
};

/* $$parms modes: plain ("%#x"/"%p"), '$' and '$$' */
#define STP_PARMS_MODES 3

/*
 * Append the pretty text of value to sb; scratch is MAXSTRINGLEN bytes
 * (strings are read there). Returns 0, or -EFAULT after writing "ERROR".
 */
int stp_pretty(struct stp_strbuf *sb, const struct stp_pretty *p, int64_t value,
	       char *scratch);

#endif /* RUNTIME_PRETTY_H */
