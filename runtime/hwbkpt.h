/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kernel.data probes (hwbkpt.c): the module's table of hardware
 * breakpoints on kernel data.
 */
#ifndef RUNTIME_HWBKPT_H
#define RUNTIME_HWBKPT_H

struct stp_hwbkpt_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	u64 addr;			/* absolute, or a symbol's link-time
					 * address (moved by anchor) */
	u8 len;				/* 1, 2, 4 or 8 bytes */
	bool rw;			/* reads too, not only writes */
	const char *symbol;		/* kernel.data("SYMBOL"), or NULL */
	unsigned long anchor;		/* an exported function, here */
	u64 anchor_link;		/* and at link time */
};

extern const struct stp_kind_ops stp_hwbkpt_kind;

#endif /* RUNTIME_HWBKPT_H */
