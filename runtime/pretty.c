// SPDX-License-Identifier: GPL-2.0-or-later
/* Pretty printing of typed values: see pretty.h. */

static int stp_pp_value(const struct stp_pp_item *it, int64_t value,
			bool user, u64 *out)
{
	unsigned long addr = (unsigned long)value + it->offset;

	switch (it->src) {
	case STP_PP_VALUE:
		*out = (u64)value;
		return 0;
	case STP_PP_ADDR:
		*out = addr;
		return 0;
	case STP_PP_BITS:
		if (user)
			return stp_tp_uread_bits(out, addr, it->bit_shift,
						 it->bit_size, it->is_signed);
		return stp_tp_read_bits(out, addr, it->bit_shift, it->bit_size,
					it->is_signed);
	default:
		if (user)
			return stp_tp_uread(out, addr, it->size,
					    it->is_signed);
		return stp_tp_read(out, addr, it->size, it->is_signed);
	}
}

/* SystemTap's kernel_or_user_string_quoted(): kernel first, then user. */
static int stp_pp_string(struct stp_strbuf *sb, u64 addr, char *scratch)
{
	if (stp_copy_string(scratch, (unsigned long)addr, MAXSTRINGLEN - 1,
			    false) < 0 &&
	    stp_copy_string(scratch, (unsigned long)addr, MAXSTRINGLEN - 1,
			    true) < 0)
		return -EFAULT;
	stp_f_string_quoted(scratch, scratch);
	stp_sb_str(sb, scratch);
	return 0;
}

int stp_pretty(struct stp_strbuf *sb, const struct stp_pretty *p, int64_t value,
	       char *scratch)
{
	static const struct stp_fmt fmts[] = {
		{ .conv = 'i', .width = -1, .prec = -1 },
		{ .conv = 'u', .width = -1, .prec = -1 },
		{ .conv = 'p', .width = -1, .prec = -1 },
		{ .conv = 'x', .flags = STP_FMT_ALT, .width = -1, .prec = -1 },
		{ .conv = 'c', .flags = STP_FMT_ALT, .width = -1, .prec = -1 },
	};
	size_t start = sb->len;
	unsigned int i;

	for (i = 0; i < p->nitems; i++) {
		const struct stp_pp_item *it = &p->items[i];
		u64 v;
		int k;

		stp_sb_str(sb, it->text);
		if (!it->conv)
			continue;
		if (stp_pp_value(it, value, p->user, &v))
			goto fault;
		if (it->conv == 's') {
			if (stp_pp_string(sb, v, scratch))
				goto fault;
			continue;
		}
		for (k = 0; k < ARRAY_SIZE(fmts) - 1; k++)
			if (fmts[k].conv == it->conv)
				break;
		stp_sb_long(sb, &fmts[k], (int64_t)v);
	}
	return 0;
fault:
	sb->len = min_t(size_t, start, MAXSTRINGLEN - 1);
	sb->buf[sb->len] = '\0';
	stp_sb_str(sb, "ERROR");
	return -EFAULT;
}

/*
 * $$parms, $$vars (mode 0: "name=%#x" or "name=%p"), $$parms$ (1) and
 * $$parms$$ (2): the probe's table for that mode, over the arguments the
 * typed callback stored in c->tp->all.
 */
void stp_tp_parms(struct stp_context *c, char *dst, int mode, char *scratch)
{
	const struct stp_tp_parm *p = stp_tp_of(c)->parms[mode];
	struct stp_strbuf sb;

	stp_sb_init(&sb, dst);
	if (!p || !c->tp)
		return;
	for (; p->text; p++) {
		stp_sb_str(&sb, p->text);
		if (p->pp)
			stp_pretty(&sb, p->pp, c->tp->all[p->arg], scratch);
	}
}
