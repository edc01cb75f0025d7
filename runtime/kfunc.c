// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel function probes: STP_PROBE_KFUNC (entry) and STP_PROBE_KRETFUNC
 * (return).
 *
 * Where: a probe names its function by symbol (kf_symbol, e.g. "vfs_read")
 * or by link-time address (kf_addr, from the vmlinux DWARF: also static
 * functions whose name is not unique, and inlined copies). A symbol is
 * resolved without kallsyms_lookup_name (not exported since 5.7): a
 * disabled kprobe is registered on it, which makes the kernel resolve the
 * name (and step over an endbr64 on IBT kernels), and unregistered. An
 * address is moved by the kernel's KASLR offset, found from one exported
 * function whose link-time address the module names before including
 * runtime.h:
 *   #define STP_KFUNC_ANCHOR_SYM _printk
 *   #define STP_KFUNC_ANCHOR_LINK 0xffffffff81abcdefUL
 * the module loader relocates &_printk to its run-time address.
 *
 * How: an entry probe is an ftrace_ops of its own, filtered on the
 * function's fentry site (ftrace_set_filter_ip), with SAVE_REGS for the
 * handler's pt_regs and ftrace's recursion guard around the handler. When
 * ftrace cannot attach (a function without fentry: notrace, or built
 * without -pg), or when the probe asks (STP_KF_KPROBE), it is a kprobe.
 * A return probe is a kretprobe (kf_maxactive instances, 0: the kernel's
 * default, max(10, 2 * CPUs)); hits its pool could not serve, and kprobe
 * hits missed by recursion, count as skipped probes when disarmed.
 *
 * The handler runs through stp_probe_run_regs(): c->regs is the probed
 * function's registers (arguments at entry, the return value at return).
 */

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define STP_KF_HAVE_FTRACE 1
#else
#define STP_KF_HAVE_FTRACE 0
#endif

enum stp_kf_how {
	STP_KF_BY_NONE,			/* not armed */
	STP_KF_BY_FTRACE,
	STP_KF_BY_KPROBE,
	STP_KF_BY_KRETPROBE,
};

struct stp_kfunc_rt {
	const struct stp_probe *p;
	unsigned long addr;		/* resolved entry address */
	enum stp_kf_how how;		/* registered as */
	enum stp_kf_how used;		/* the same, kept after disarming */
#if STP_KF_HAVE_FTRACE
	struct ftrace_ops ops;
#endif
	struct kprobe kp;
	struct kretprobe krp;
};

static struct stp_kfunc_rt *stp_kfuncs;	/* one per kfunc probe, until */
static size_t stp_nkfuncs;		/* the session is freed */

static bool stp_is_kfunc(const struct stp_probe *p)
{
	return p->type == STP_PROBE_KFUNC || p->type == STP_PROBE_KRETFUNC;
}

/* The KASLR offset (run-time minus link-time addresses), when known. */
static bool stp_kfunc_reloc(unsigned long *offset)
{
#ifdef STP_KFUNC_ANCHOR_SYM
	*offset = (unsigned long)&STP_KFUNC_ANCHOR_SYM -
		  (unsigned long)(STP_KFUNC_ANCHOR_LINK);
	return true;
#else
	*offset = 0;
	return false;
#endif
}

/*
 * The entry address of a symbol, as kprobes resolves it: -ENOENT when
 * there is no such symbol, -EINVAL and the like when kprobes refuse it
 * (NOKPROBE_SYMBOL, noinstr, not text).
 */
static int stp_kfunc_lookup(const char *symbol, unsigned long *addr)
{
	struct kprobe kp = {
		.symbol_name = symbol,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret = register_kprobe(&kp);

	if (ret < 0)
		return ret;
	*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

static int stp_kfunc_resolve(const struct stp_probe *p, unsigned long *addr)
{
	unsigned long offset;

	if (p->kf_addr) {
		if (!stp_kfunc_reloc(&offset))
			return -ENOENT;
		*addr = p->kf_addr + offset;
		return 0;
	}
	if (!p->kf_symbol)
		return -ENOENT;
	return stp_kfunc_lookup(p->kf_symbol, addr);
}

#if STP_KF_HAVE_FTRACE
static void notrace stp_kfunc_ftrace_hit(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	struct stp_kfunc_rt *rt = container_of(op, struct stp_kfunc_rt, ops);
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);

	if (bit < 0) {
		atomic_inc(&stp_skipped);
		return;
	}
	stp_probe_run_regs(rt->p, ftrace_get_regs(fregs));
	ftrace_test_recursion_unlock(bit);
}

/* 0, or -EINVAL when ftrace has no call site at rt->addr. */
static int stp_kfunc_ftrace_arm(struct stp_kfunc_rt *rt)
{
	int ret;

	rt->ops.func = stp_kfunc_ftrace_hit;
	rt->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	ret = ftrace_set_filter_ip(&rt->ops, rt->addr, 0, 0);
	if (ret) {
		ftrace_free_filter(&rt->ops);
		return ret;
	}
	ret = register_ftrace_function(&rt->ops);
	if (ret) {
		ftrace_free_filter(&rt->ops);
		return ret;
	}
	rt->how = STP_KF_BY_FTRACE;
	return 0;
}
#endif

static int stp_kfunc_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	struct stp_kfunc_rt *rt = container_of(kp, struct stp_kfunc_rt, kp);

	stp_probe_run_regs(rt->p, regs);
	return 0;
}

static int stp_kfunc_kret_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct kretprobe *krp = get_kretprobe(ri);
	struct stp_kfunc_rt *rt;

	if (!krp)
		return 0;
	rt = container_of(krp, struct stp_kfunc_rt, krp);
	rt->p->kf_entry(rt->p, regs, ri->data);
	return 0;
}

/*
 * A return probe's context values ($param, @entry(...)) are computed at
 * the entry into the kretprobe instance data (kf_data_size bytes, this
 * layout; kf_entry is stp_kf_save_entry): stp_probe.kf_vals (kf_nvals
 * values), then the handler's entry part (kf_nentry values).
 */
struct stp_kf_entry_vals {
	u64 faults;
	int64_t v[];
};

static void __maybe_unused stp_kf_save_entry(const struct stp_probe *p,
					     struct pt_regs *regs, void *data)
{
	struct stp_kf_entry_vals *e = data;

	e->faults = 0;
	if (p->kf_vals)
		p->kf_vals(regs, e->v, &e->faults);
	if (p->kf_nentry) {
		/* the handler's entry part computes the @entry(...) values */
		struct stp_tp_args a = { .v = e->v, .faults = e->faults };
		int64_t *out = e->v + p->kf_nvals;

		memset(out, 0, p->kf_nentry * sizeof(*out));
		stp_probe_run_ctx(p, &a, regs, out);
	}
}

static int stp_kfunc_kret_hit(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct kretprobe *krp = get_kretprobe(ri);
	struct stp_kfunc_rt *rt;

	if (!krp)
		return 0;
	rt = container_of(krp, struct stp_kfunc_rt, krp);
	if (rt->p->kf_entry == stp_kf_save_entry) {
		/* the values saved at the entry are the context's */
		struct stp_kf_entry_vals *e = (void *)ri->data;
		struct stp_tp_args a = { .v = e->v, .faults = e->faults };

		stp_probe_run_ctx(rt->p, &a, regs, NULL);
		return 0;
	}
	stp_probe_run_regs(rt->p, regs);
	return 0;
}

static int stp_kfunc_arm_one(struct stp_kfunc_rt *rt)
{
	const struct stp_probe *p = rt->p;
	int ret;

	ret = stp_kfunc_resolve(p, &rt->addr);
	if (ret)
		return ret;
	if (p->type == STP_PROBE_KRETFUNC) {
		rt->krp.kp.addr = (kprobe_opcode_t *)rt->addr;
		rt->krp.handler = stp_kfunc_kret_hit;
		rt->krp.maxactive = p->kf_maxactive;
		rt->krp.data_size = p->kf_data_size;
		if (p->kf_entry)
			rt->krp.entry_handler = stp_kfunc_kret_entry;
		ret = register_kretprobe(&rt->krp);
		if (!ret)
			rt->how = STP_KF_BY_KRETPROBE;
		return ret;
	}
#if STP_KF_HAVE_FTRACE
	if (!(p->kf_flags & STP_KF_KPROBE) && stp_kfunc_ftrace_arm(rt) == 0)
		return 0;
#endif
	rt->kp.addr = (kprobe_opcode_t *)rt->addr;
	rt->kp.pre_handler = stp_kfunc_kprobe_hit;
	ret = register_kprobe(&rt->kp);
	if (!ret)
		rt->how = STP_KF_BY_KPROBE;
	return ret;
}

static void stp_kfunc_disarm(void)
{
	size_t i;

	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		switch (rt->how) {
#if STP_KF_HAVE_FTRACE
		case STP_KF_BY_FTRACE:
			unregister_ftrace_function(&rt->ops);
			ftrace_free_filter(&rt->ops);
			break;
#endif
		case STP_KF_BY_KPROBE:
			unregister_kprobe(&rt->kp);
			atomic_add(rt->kp.nmissed, &stp_skipped);
			break;
		case STP_KF_BY_KRETPROBE:
			unregister_kretprobe(&rt->krp);
			atomic_add(rt->krp.nmissed + rt->krp.kp.nmissed,
				   &stp_skipped);
			break;
		default:
			break;
		}
		rt->how = STP_KF_BY_NONE;
	}
}

static void stp_kfunc_free(void)
{
	kfree(stp_kfuncs);
	stp_kfuncs = NULL;
	stp_nkfuncs = 0;
}

/* Register every kernel function probe of the table; all or none. */
static int stp_kfunc_arm(const struct stp_probe *tab, size_t n)
{
	size_t i, k = 0;
	int ret;

	for (i = 0; i < n; i++)
		k += stp_is_kfunc(&tab[i]);
	if (!k || stp_kfuncs)
		return 0;
	stp_kfuncs = kcalloc(k, sizeof(*stp_kfuncs), GFP_KERNEL);
	if (!stp_kfuncs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (stp_is_kfunc(&tab[i]))
			stp_kfuncs[stp_nkfuncs++].p = &tab[i];
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		ret = stp_kfunc_arm_one(rt);
		rt->used = rt->how;
		if (ret) {
			stp_ctl_stderr("ERROR: probe ", rt->p->pp,
				       ret == -ENOENT ?
				       ": no such function in this kernel\n" :
				       ": cannot probe this function\n",
				       NULL);
			stp_kfunc_disarm();
			return ret;
		}
	}
	return 0;
}

/* "ftrace", "kprobe", "kretprobe", or "" (not armed): for tests. */
static __maybe_unused const char *stp_kfunc_how(const struct stp_probe *p)
{
	static const char *const names[] = {
		[STP_KF_BY_NONE] = "", [STP_KF_BY_FTRACE] = "ftrace",
		[STP_KF_BY_KPROBE] = "kprobe", [STP_KF_BY_KRETPROBE] = "kretprobe",
	};
	size_t i;

	for (i = 0; i < stp_nkfuncs; i++)
		if (stp_kfuncs[i].p == p)
			return names[stp_kfuncs[i].used];
	return "";
}
