/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Timer probes (timer.c): the module's table of them, each an hrtimer
 * (one, or one per CPU) or a jiffies-based one.
 */
#ifndef RUNTIME_TIMER_H
#define RUNTIME_TIMER_H

/* stp_timer_probe.flags */
#define STP_TIMER_JIFFIES 0x1		/* period_ns/randomize_ns in jiffies */
#define STP_TIMER_PROFILE 0x2		/* on every CPU, with the interrupted
					 * registers (get_irq_regs) */

struct stp_timer_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	u64 period_ns;
	u64 randomize_ns;		/* +/- jitter, or 0 */
	unsigned int flags;		/* STP_TIMER_* */
};

extern const struct stp_kind_ops stp_timer_kind;

#endif /* RUNTIME_TIMER_H */
