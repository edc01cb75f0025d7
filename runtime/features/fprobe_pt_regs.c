// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fprobe with pt_regs handlers (rethook-based fprobe, kernels 6.0-6.13 with
 * CONFIG_FPROBE; later kernels pass ftrace_regs instead): the runtime's
 * .return probes go through one fprobe (runtime/kfunc.c).
 */
#include <linux/module.h>
#include <linux/fprobe.h>

#ifndef CONFIG_FPROBE
#error "no CONFIG_FPROBE"
#endif

static int stp_ft_entry(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	return 0;
}

static void stp_ft_exit(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
}

static struct fprobe stp_ft_fp = {
	.entry_handler = stp_ft_entry,
	.exit_handler = stp_ft_exit,
	.entry_data_size = 8,
	.nr_maxactive = 1,
};

int stp_ft_test(unsigned long *ips, int n);
int stp_ft_test(unsigned long *ips, int n)
{
	unsigned long missed = stp_ft_fp.nmissed;
	int ret = register_fprobe_ips(&stp_ft_fp, ips, n);

	return ret ? ret : unregister_fprobe(&stp_ft_fp) + (int)missed;
}
MODULE_LICENSE("GPL");
