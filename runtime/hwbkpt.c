// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.data probes: one wide hardware breakpoint (a debug register on
 * every CPU, register_wide_hw_breakpoint) per entry of the module's
 * table (struct stp_hwbkpt_probe, hwbkpt.h). The breakpoint's handler
 * runs after the access (x86 data breakpoints trap after the
 * instruction), with the registers of the code that made it.
 *
 * A breakpoint the kernel refuses (all four debug registers taken, a
 * bad address) is SystemTap 4.8's warning and the other probes run.
 */
#include <linux/hw_breakpoint.h>

static struct perf_event *__percpu **stp_hwbkpts;
static size_t stp_nhwbkpts;

static void stp_hwbkpt_hit(struct perf_event *bp,
			   struct perf_sample_data *data,
			   struct pt_regs *regs)
{
	const struct stp_hwbkpt_probe *k = bp->overflow_handler_context;

	stp_probe_run_regs(k->probe, regs);
}

static unsigned long stp_hwbkpt_addr(const struct stp_hwbkpt_probe *k)
{
	if (!k->symbol)
		return (unsigned long)k->addr;
	return (unsigned long)(k->addr + (k->anchor - k->anchor_link));
}

static void stp_hwbkpt_disarm(void)
{
	for (size_t i = 0; i < stp_nhwbkpts; i++)
		if (stp_hwbkpts[i])
			unregister_wide_hw_breakpoint(stp_hwbkpts[i]);
	kfree(stp_hwbkpts);
	stp_hwbkpts = NULL;
	stp_nhwbkpts = 0;
}

static int stp_hwbkpt_arm(const void *table, size_t n)
{
	const struct stp_hwbkpt_probe *tab = table;

	if (!n)
		return 0;
	stp_hwbkpts = kcalloc(n, sizeof(*stp_hwbkpts), GFP_KERNEL);
	if (!stp_hwbkpts)
		return -ENOMEM;
	stp_nhwbkpts = n;
	for (size_t i = 0; i < n; i++) {
		const struct stp_hwbkpt_probe *k = &tab[i];
		struct perf_event_attr attr;
		struct perf_event *__percpu *bp;

		hw_breakpoint_init(&attr);
		attr.bp_addr = stp_hwbkpt_addr(k);
		attr.bp_len = k->len;
		attr.bp_type = k->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
		bp = register_wide_hw_breakpoint(&attr, stp_hwbkpt_hit,
						 (void *)k);
		if (IS_ERR(bp)) {
			char tail[160];

			snprintf(tail, sizeof(tail), ": registration error "
				 "[man warning::pass5] %ld, addr %px, name %s\n",
				 PTR_ERR(bp), (void *)attr.bp_addr,
				 k->symbol ? k->symbol : "");
			stp_ctl_stderr("WARNING: Hwbkpt probe ", k->probe->pp,
				       tail, NULL);
			continue;
		}
		stp_hwbkpts[i] = bp;
	}
	return 0;
}

const struct stp_kind_ops stp_hwbkpt_kind = {
	.name = "hwbkpt",
	.entry_size = sizeof(struct stp_hwbkpt_probe),
	.arm = stp_hwbkpt_arm,
	.disarm = stp_hwbkpt_disarm,
};
