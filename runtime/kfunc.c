// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel function probes: entries (also inlined copies and statements)
 * and returns, the module's table of struct stp_kfunc_probe (kfunc.h).
 *
 * Where: a probe names its function by link-time address (addr, from
 * the vmlinux DWARF: also static functions whose name is not unique, and
 * inlined copies) or by symbol (symbol, e.g. "vfs_read"). An address
 * is moved by the kernel's KASLR offset, found from one exported function
 * whose link-time address the module names before including runtime.h
 * (STP_MODULE_PROBES() puts both in stp_module):
 *   #define STP_KFUNC_ANCHOR_SYM _printk
 *   #define STP_KFUNC_ANCHOR_LINK 0xffffffff81abcdefUL
 * the module loader relocates &_printk to its run-time address. That costs
 * nothing per probe, so wildcards over thousands of functions use it. A
 * symbol alone is resolved without kallsyms_lookup_name (not exported
 * since 5.7): a disabled kprobe is registered on it, which makes the
 * kernel resolve the name, and unregistered (an RCU grace period each).
 *
 * How, in batches (one synchronisation for all, not one per function):
 * - entry probes share one ftrace_ops, its filter set with every
 *   fentry site at once (ftrace_set_filter_ips); the handler finds the
 *   probes of the hit's ip by a binary search over a table sorted by
 *   address at arm time (several probes on one function run in table
 *   order). The ops asks for the registers (SAVE_REGS) only when a
 *   handler reads them (STP_USE_REGS; lean probes never do), and guards
 *   against recursion itself, once a handler is to run; an ops that
 *   serves one probe with a handler calls that probe's own function
 *   (STP_KF_HIT: the handler inlined, the context's busy flag the
 *   recursion guard). A function ftrace refuses (no fentry: notrace,
 *   built without -pg, or an inlined copy, STP_KF_INLINE) falls back to
 *   a kprobe, as does a probe that asks (STP_KF_KPROBE).
 * - kprobes and kretprobes are registered one by one, disabled, then
 *   enabled together (registration has no grace period to share, and a
 *   refusal names its probe; what each costs is the kernel's checks and
 *   preparation of the address, the same in a batch: stp_kf_kprobes_arm),
 *   and unregistered together (unregister_kprobes/unregister_kretprobes:
 *   one grace period). Probes at one address share one kprobe.
 * A function the kernel refuses is a warning, as in SystemTap ("...
 * registration error"), and the other probes run.
 *
 * A probe on a module's symbol (module set, symbol "M:NAME") is a kprobe
 * or kretprobe, armed while module M is loaded: at the start when it is,
 * else by the module notifier when M comes (MODULE_STATE_COMING: its
 * init functions are probed too), and unregistered when M goes, before
 * its text is freed; again if it comes back. stp_kf_mod_mutex orders the
 * notifier against the arming; the disarm unregisters the notifier (which
 * waits for a callback running) before the probes. ftrace is not used
 * for them: its filter would keep a gone module's addresses.
 *
 * Return probes share one fprobe when the kernel has one with pt_regs
 * handlers (STP_HAVE_FPROBE_PT_REGS, a feature test compiled against the
 * target's headers: 6.12's rethook-based fprobe; kernels since 6.14 pass
 * ftrace_regs, 6.1 has none): one ftrace registration for all, a table
 * by address as for entries, and per call one entry-data record holding,
 * at rt->data_off, each of the function's probes' data_size bytes;
 * its pool is the sum of the probes' maxactive. Functions ftrace
 * refuses (checked on a filter never registered), or all of them when
 * the fprobe cannot be registered, fall back to kretprobes.
 * A kretprobe has maxactive instances (0: SystemTap's
 * default, max(15, 6 * CPUs): tasks asleep in the function each hold
 * one; data_size bytes of instance data and
 * entry, called at entry with them, for probes that save values at
 * entry). Hits the pools could not serve, and hits missed by
 * recursion, count as skipped probes: those counted when the detach
 * begins (events are off by then; detaching stops a return pool before
 * it removes the probe, and every hit in between counts as missed).
 *
 * The handler runs through stp_probe_run_regs(): c->regs is the probed
 * function's registers (arguments at entry, the return value at return).
 * With staprun -v (stap -v), pass 5 says how the functions were attached
 * and how long attaching and detaching took.
 */

#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

/* The farthest an fentry site is from its function's start (endbr64). */
#define STP_KF_FENTRY_SLACK 16

enum stp_kf_how {
	STP_KF_BY_NONE,			/* not armed */
	STP_KF_BY_FTRACE,
	STP_KF_BY_KPROBE,
	STP_KF_BY_KRETPROBE,
	STP_KF_BY_FPROBE,		/* a return probe in the one fprobe */
	STP_KF_BY_SHARED,		/* served by the kprobe of another
					 * probe at the same address */
};

struct stp_kfunc_rt {
	const struct stp_probe *p;
	const struct stp_kfunc_probe *k;	/* its kernel function entry */
	unsigned long addr;		/* resolved entry address */
	enum stp_kf_how how;		/* registered as */
	enum stp_kf_how used;		/* the same, kept after disarming */
	size_t data_off;		/* BY_FPROBE: its part of entry data */
	bool all_lean;			/* BY_FTRACE, first of an address:
					 * every probe there is lean */
	struct stp_kfunc_rt *same;	/* BY_KPROBE, BY_SHARED: the next
					 * probe its kprobe hit runs */
	struct kprobe kp;
	struct kretprobe krp;
};

static struct stp_kfunc_rt *stp_kfuncs;	/* one per kfunc probe, until */
static size_t stp_nkfuncs;		/* the session is freed */

/* Probes on module symbols: armed and disarmed as their modules come and
 * go (stp_kf_module_event), under stp_kf_mod_mutex. */
static DEFINE_MUTEX(stp_kf_mod_mutex);
static bool stp_kf_mod_notified;	/* the module notifier is registered */

/* Entry probes attached through the shared ftrace_ops, by address. */
static struct stp_kfunc_rt **stp_kf_ftrace;
static size_t stp_kf_nftrace;
static bool stp_kf_ftrace_one;		/* all at one address */
static bool stp_kf_ops_registered;
#if STP_KF_HAVE_FTRACE
static struct ftrace_ops stp_kf_ops;
#endif

/* Return probes attached through the one fprobe, by address. */
static struct stp_kfunc_rt **stp_kf_fret;
static size_t stp_kf_nfret;
#if STP_KF_HAVE_FPROBE
static struct fprobe stp_kf_fp;
static bool stp_kf_fp_registered;
static struct ftrace_ops stp_kf_check_ops;	/* never registered */
#endif

/* The KASLR offset (run-time minus link-time addresses), when known. */
static bool stp_kfunc_reloc(unsigned long *offset)
{
	*offset = stp_module.anchor - stp_module.anchor_link;
	return stp_module.anchor != 0;
}

/*
 * The entry address of a symbol, as kprobes resolves it: -ENOENT when
 * there is no such symbol, -EINVAL and the like when kprobes refuse it
 * (NOKPROBE_SYMBOL, noinstr, not text).
 */
static int stp_kfunc_lookup(const char *symbol, unsigned long offset,
			    unsigned long *addr)
{
	struct kprobe kp = {
		.symbol_name = symbol,
		.offset = offset,
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret = register_kprobe(&kp);

	if (ret < 0)
		return ret;
	*addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

/*
 * A function's entry as kprobes and ftrace see it: past an endbr64 (IBT),
 * where kprobes put a symbol's probe and ftrace its call site; so a probe
 * by symbol and one by address of the same function share an address.
 */
static unsigned long stp_kfunc_entry(unsigned long addr)
{
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;

	/* also a sealed endbr (poisoned to a 4-byte nop), as kprobes do */
	if (!copy_from_kernel_nofault(&insn, (const void *)addr, 4) &&
	    is_endbr(insn))
		return addr + 4;
#endif
	return addr;
}

static int stp_kfunc_resolve(const struct stp_kfunc_probe *p,
			     unsigned long *addr)
{
	unsigned long offset;
	int ret;

	if (p->flags & STP_KF_ABS) {
		*addr = p->addr;	/* guru mode: the address as given */
		return 0;
	}
	/* a module's inlined copy or statement, or a function whose name
	 * the module has twice: addr is its offset from symbol (the module
	 * is wherever it was loaded; kprobes put a function's entry past
	 * its endbr) */
	if (p->module && p->symbol && p->addr)
		return stp_kfunc_lookup(p->symbol, p->addr, addr);
	if (p->addr && stp_kfunc_reloc(&offset)) {
		*addr = p->addr + offset;
		/* an inlined copy's entry pc is no function entry */
		if (!(p->flags & (STP_KF_INLINE | STP_KF_STMT)))
			*addr = stp_kfunc_entry(*addr);
		return 0;
	}
	if (!p->symbol)
		return -ENOENT;
	ret = stp_kfunc_lookup(p->symbol, 0, addr);
	if (!ret)
		*addr = stp_kfunc_entry(*addr);
	return ret;
}

/* Table order among probes at one address: the probe table's order. */
static int stp_kf_cmp(const void *a, const void *b)
{
	const struct stp_kfunc_rt *x = *(struct stp_kfunc_rt *const *)a;
	const struct stp_kfunc_rt *y = *(struct stp_kfunc_rt *const *)b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->p < y->p ? -1 : x->p > y->p;
}

#if STP_KF_HAVE_FTRACE
/*
 * The first entry of a table sorted by address (n entries) for the
 * function whose fentry site ip is.
 */
static __always_inline struct stp_kfunc_rt **
stp_kf_find(struct stp_kfunc_rt **tab, size_t n, unsigned long ip)
{
	size_t lo = 0, hi = n;
	unsigned long start;

	/* the last entry whose address is <= ip */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tab[mid]->addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	start = tab[lo - 1]->addr;
	if (ip - start > STP_KF_FENTRY_SLACK)
		return NULL;
	while (lo > 1 && tab[lo - 2]->addr == start)
		lo--;
	return &tab[lo - 1];
}

/*
 * The probes of one address, from rt on, with handlers: a recursion
 * guard once the first handler is to run (lean probes need none).
 */
static noinline void notrace stp_kf_ftrace_run(struct stp_kfunc_rt **rt,
					       unsigned long ip,
					       unsigned long parent_ip,
					       struct ftrace_regs *fregs)
{
	struct stp_kfunc_rt **end = stp_kf_ftrace + stp_kf_nftrace;
	unsigned long start = (*rt)->addr, was = 0;
	struct pt_regs *regs = NULL;
	int bit = -1;

	for (; rt < end && (*rt)->addr == start; rt++) {
		const struct stp_probe *p = (*rt)->p;

		if (p->lean) {
			stp_probe_lean(p);
			continue;
		}
		if (bit < 0) {
			bit = ftrace_test_recursion_trylock(ip, parent_ip);
			if (bit < 0) {
				atomic_inc(&stp_skipped);
				return;
			}
			regs = ftrace_get_regs(fregs);
			was = stp_kf_ip_set(regs, ip);
		}
		if (p->hit)
			p->hit(p, NULL, regs);
		else
			stp_probe_run_ctx(p, NULL, regs, NULL);
	}
	if (bit >= 0) {
		stp_kf_ip_restore(regs, was);
		ftrace_test_recursion_unlock(bit);
	}
}

/*
 * The ops' function (unless one lean body has all its probes): an
 * address whose probes are all lean runs their counts right here. With
 * one function in the filter there is no search (ftrace calls only for
 * it): a one-function script's handler is 25 ns faster per hit.
 */
static void notrace stp_kfunc_ftrace_hit(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	struct stp_kfunc_rt **rt = stp_kf_ftrace;

	if (!stp_kf_ftrace_one) {
		rt = stp_kf_find(stp_kf_ftrace, stp_kf_nftrace, ip);
		if (!rt)
			return;
	}
	if (likely((*rt)->all_lean)) {
		struct stp_kfunc_rt **end = stp_kf_ftrace + stp_kf_nftrace;
		unsigned long start = (*rt)->addr;

		for (; rt < end && (*rt)->addr == start; rt++)
			stp_probe_lean((*rt)->p);
		return;
	}
	stp_kf_ftrace_run(rt, ip, parent_ip, fregs);
}

/*
 * Add the n distinct addresses to the filter of the (not yet registered)
 * ops: all at once, or, when ftrace refuses one of them, by halves until
 * the refused ones are found; each of those becomes 0 in ips[].
 */
static void stp_kf_filter_add(struct ftrace_ops *ops, unsigned long *ips,
			      size_t n)
{
	if (!n || !ftrace_set_filter_ips(ops, ips, n, 0, 0))
		return;
	if (n == 1) {
		ips[0] = 0;
		return;
	}
	stp_kf_filter_add(ops, ips, n / 2);
	stp_kf_filter_add(ops, ips + n / 2, n - n / 2);
}

/*
 * The probes planned as how, sorted by address, into a new table (*tab,
 * *ntab of them), and their distinct addresses into a new array (*ips,
 * *nips, the caller frees it): one batch for ftrace or the fprobe.
 * Returns 1, 0 when there are none, or -ENOMEM (the table is freed with
 * the others at disarm).
 */
static int stp_kf_collect(enum stp_kf_how how, struct stp_kfunc_rt ***tab,
			  size_t *ntab, unsigned long **ips, size_t *nips)
{
	size_t i, n = 0;

	for (i = 0; i < stp_nkfuncs; i++)
		n += stp_kfuncs[i].how == how;
	if (!n)
		return 0;
	*tab = kvcalloc(n, sizeof(**tab), GFP_KERNEL);
	*ips = kvcalloc(n, sizeof(**ips), GFP_KERNEL);
	if (!*tab || !*ips) {
		kvfree(*ips);
		return -ENOMEM;
	}
	for (i = 0; i < stp_nkfuncs; i++)
		if (stp_kfuncs[i].how == how)
			(*tab)[(*ntab)++] = &stp_kfuncs[i];
	sort(*tab, n, sizeof(**tab), stp_kf_cmp, NULL);
	for (i = 0; i < n; i++)
		if (!*nips || (*ips)[*nips - 1] != (*tab)[i]->addr)
			(*ips)[(*nips)++] = (*tab)[i]->addr;
	return 1;
}

/*
 * Attach the entry probes planned for ftrace (how == BY_FTRACE) through
 * the one ops; those ftrace refuses go back to BY_KPROBE. 0 or -errno.
 */
static int stp_kf_ftrace_arm(void)
{
	unsigned long *ips, prev = 0;
	size_t i, g, n, nips = 0;
	void *lean_hit;
	int ret;

	ret = stp_kf_collect(STP_KF_BY_FTRACE, &stp_kf_ftrace, &stp_kf_nftrace,
			     &ips, &nips);
	if (ret <= 0)
		return ret;
	n = stp_kf_nftrace;

	memset(&stp_kf_ops, 0, sizeof(stp_kf_ops));
	stp_kf_ops.func = stp_kfunc_ftrace_hit;
	stp_kf_filter_add(&stp_kf_ops, ips, nips);

	/* keep the accepted ones: group g of equal addresses is ips[g] */
	for (i = 0, g = 0, stp_kf_nftrace = 0; i < n; i++) {
		struct stp_kfunc_rt *rt = stp_kf_ftrace[i];

		if (i && rt->addr != prev)
			g++;
		prev = rt->addr;
		if (ips[g])
			stp_kf_ftrace[stp_kf_nftrace++] = rt;
		else
			rt->how = STP_KF_BY_KPROBE;
	}
	kvfree(ips);
	if (!stp_kf_nftrace) {
		ftrace_free_filter(&stp_kf_ops);
		return 0;
	}
	/* the registers only for handlers (a lean probe needs none); all
	 * probes of one lean body: its own function, no search per hit */
	lean_hit = stp_kf_ftrace[0]->k->lean_hit;
	for (i = 0, g = 0; i < stp_kf_nftrace; i++) {
		struct stp_kfunc_rt *rt = stp_kf_ftrace[i];

		if (!i || rt->addr != stp_kf_ftrace[g]->addr) {
			g = i;
			rt->all_lean = true;
		}
		if (rt->k->lean_hit != lean_hit)
			lean_hit = NULL;
		if (!rt->p->lean) {
			stp_kf_ftrace[g]->all_lean = false;
			/* use is only known with the generated hit */
			if (!rt->p->hit || (rt->p->use & STP_USE_REGS))
				stp_kf_ops.flags = FTRACE_OPS_FL_SAVE_REGS;
			lean_hit = NULL;
		}
	}
	stp_kf_ftrace_one = stp_kf_ftrace[0]->addr == stp_kf_ftrace[g]->addr;
	if (lean_hit)
		stp_kf_ops.func = (ftrace_func_t)lean_hit;
	else if (stp_kf_nftrace == 1 && stp_kf_ftrace[0]->k->hit)
		/* one probe with a handler: its own function */
		stp_kf_ops.func = (ftrace_func_t)stp_kf_ftrace[0]->k->hit;
	ret = register_ftrace_function(&stp_kf_ops);
	if (ret) {
		ftrace_free_filter(&stp_kf_ops);
		for (i = 0; i < stp_kf_nftrace; i++)
			stp_kf_ftrace[i]->how = STP_KF_BY_NONE;
		stp_kf_nftrace = 0;
		return ret;
	}
	stp_kf_ops_registered = true;
	return 0;
}
#else
static int stp_kf_ftrace_arm(void)
{
	return 0;
}
#endif

static void stp_kfunc_kprobe_post(struct kprobe *kp, struct pt_regs *regs,
				  unsigned long flags)
{
}

/* the probe's address as the ip: stp_kf_ip_set */
static int stp_kfunc_kprobe_hit(struct kprobe *kp, struct pt_regs *regs)
{
	struct stp_kfunc_rt *rt = container_of(kp, struct stp_kfunc_rt, kp);
	unsigned long was = stp_kf_ip_set(regs, (unsigned long)kp->addr);

	for (; rt; rt = rt->same)
		stp_probe_run_regs(rt->p, regs);	/* lean or not */
	stp_kf_ip_restore(regs, was);
	return 0;
}

/*
 * One kprobe per address: each registration costs the kernel the same
 * checks (on 6.12 about 2.7 ms under qemu -icount: it decodes the
 * instruction of every jump label, twice with the optprobe preparation),
 * a second kprobe at an address as much as the first, and inlined copies
 * of different functions often start at one address. The first probe of
 * each address in table order registers a kprobe that runs them all;
 * the others become BY_SHARED. Without memory for the sort, every probe
 * keeps its own kprobe.
 */
static void stp_kf_kprobe_share(void)
{
	struct stp_kfunc_rt **tab;
	size_t i, n = 0;

	/* a module's probes keep their own: they come and go alone */
	for (i = 0; i < stp_nkfuncs; i++)
		n += stp_kfuncs[i].how == STP_KF_BY_KPROBE &&
		     !stp_kfuncs[i].k->module;
	if (n < 2)
		return;
	tab = kvcalloc(n, sizeof(*tab), GFP_KERNEL);
	if (!tab)
		return;
	for (i = 0, n = 0; i < stp_nkfuncs; i++)
		if (stp_kfuncs[i].how == STP_KF_BY_KPROBE &&
		    !stp_kfuncs[i].k->module)
			tab[n++] = &stp_kfuncs[i];
	sort(tab, n, sizeof(*tab), stp_kf_cmp, NULL);
	for (i = 1; i < n; i++)
		if (tab[i]->addr == tab[i - 1]->addr) {
			tab[i - 1]->same = tab[i];
			tab[i]->how = STP_KF_BY_SHARED;
		}
	kvfree(tab);
}

/* The probe of a kretprobe hit, or NULL when it is being unregistered. */
static struct stp_kfunc_rt *stp_kfunc_kret_rt(struct kretprobe_instance *ri)
{
	struct kretprobe *krp = get_kretprobe(ri);

	return krp ? container_of(krp, struct stp_kfunc_rt, krp) : NULL;
}

static int stp_kfunc_kret_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct stp_kfunc_rt *rt = stp_kfunc_kret_rt(ri);
	unsigned long was;

	if (!rt)
		return 0;
	was = stp_kf_ip_set(regs, (unsigned long)rt->krp.kp.addr);
	rt->k->entry(rt->k, regs, ri->data);
	stp_kf_ip_restore(regs, was);
	return 0;
}

/*
 * A return probe's context values ($param, @entry(...)) are computed at
 * the entry into the kretprobe instance data (data_size bytes, this
 * layout; entry is stp_kf_save_entry): stp_probe.vals (nvals values),
 * then the handler's entry part (nentry values).
 */
struct stp_kf_entry_vals {
	u64 faults;
	int64_t v[];
};

void stp_kf_save_entry(const struct stp_kfunc_probe *k, struct pt_regs *regs,
		       void *data)
{
	const struct stp_probe *p = k->probe;
	struct stp_kf_entry_vals *e = data;

	e->faults = 0;
	if (p->vals)
		p->vals(regs, e->v, &e->faults);
	if (k->nentry) {
		/* the handler's entry part computes the @entry(...) values */
		struct stp_tp_args a = { .v = e->v, .faults = e->faults };
		int64_t *out = e->v + p->nvals;

		memset(out, 0, k->nentry * sizeof(*out));
		stp_probe_run_ctx(p, &a, regs, out);
	}
}

/* A return probe's hit, with the data its entry saved. */
static void notrace stp_kf_ret_run(const struct stp_kfunc_probe *k,
				   struct pt_regs *regs, void *data)
{
	const struct stp_probe *p = k->probe;

	if (k->entry == stp_kf_save_entry) {
		/* the values saved at the entry are the context's */
		struct stp_kf_entry_vals *e = data;
		struct stp_tp_args a = { .v = e->v, .faults = e->faults };

		stp_probe_run_ctx(p, &a, regs, NULL);
		return;
	}
	stp_probe_run_regs(p, regs);
}

static int stp_kfunc_kret_hit(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct stp_kfunc_rt *rt = stp_kfunc_kret_rt(ri);

	if (rt)
		stp_kf_ret_run(rt->k, regs, ri->data);
	return 0;
}

/* SystemTap's default kretprobe pool: tasks asleep in it hold one each. */
static int stp_kf_maxactive(const struct stp_kfunc_probe *k)
{
	return k->maxactive ? k->maxactive :
	       max(15, 6 * (int)num_possible_cpus());
}

#if STP_KF_HAVE_FPROBE
/*
 * The one fprobe of the return probes: its entry data holds, for each
 * probe at the function (in table order), that probe's data_size
 * bytes at rt->data_off; entry_ip is the fentry site, as for stp_kf_ops.
 */
static int notrace stp_kf_fp_entry(struct fprobe *fp, unsigned long entry_ip,
				   unsigned long ret_ip, struct pt_regs *regs,
				   void *data)
{
	struct stp_kfunc_rt **rt, **end = stp_kf_fret + stp_kf_nfret;
	unsigned long start, was;

	rt = stp_kf_find(stp_kf_fret, stp_kf_nfret, entry_ip);
	if (!rt)
		return 1;		/* not ours: no exit handler */
	start = (*rt)->addr;
	was = stp_kf_ip_set(regs, entry_ip);
	for (; rt < end && (*rt)->addr == start; rt++)
		if ((*rt)->k->entry)
			(*rt)->k->entry((*rt)->k, regs,
					   (char *)data + (*rt)->data_off);
	stp_kf_ip_restore(regs, was);
	return 0;
}

static void notrace stp_kf_fp_exit(struct fprobe *fp, unsigned long entry_ip,
				   unsigned long ret_ip, struct pt_regs *regs,
				   void *data)
{
	struct stp_kfunc_rt **rt, **end = stp_kf_fret + stp_kf_nfret;
	unsigned long start;

	rt = stp_kf_find(stp_kf_fret, stp_kf_nfret, entry_ip);
	if (!rt)
		return;
	start = (*rt)->addr;
	for (; rt < end && (*rt)->addr == start; rt++)
		stp_kf_ret_run((*rt)->k, regs, (char *)data + (*rt)->data_off);
}

/*
 * Attach the return probes planned for the fprobe (how == BY_FPROBE), all
 * in one registration; those ftrace refuses, or all of them when the
 * fprobe cannot be registered, go back to kretprobes. 0 or -ENOMEM.
 */
static int stp_kf_fprobe_arm(void)
{
	unsigned long *ips, prev = 0;
	size_t i, g, n, nips = 0, group = 0, data_size = 0;
	long maxactive = 0;
	int ret;

	ret = stp_kf_collect(STP_KF_BY_FPROBE, &stp_kf_fret, &stp_kf_nfret,
			     &ips, &nips);
	if (ret <= 0)
		return ret;
	n = stp_kf_nfret;

	/* which addresses ftrace takes: a filter never registered */
	memset(&stp_kf_check_ops, 0, sizeof(stp_kf_check_ops));
	stp_kf_filter_add(&stp_kf_check_ops, ips, nips);
	ftrace_free_filter(&stp_kf_check_ops);

	/* keep the accepted ones (group g of equal addresses is ips[g]),
	 * lay out their entry data, size the shared pool */
	for (i = 0, g = 0, stp_kf_nfret = 0; i < n; i++) {
		struct stp_kfunc_rt *rt = stp_kf_fret[i];

		if (i && rt->addr != prev) {
			g++;
			group = 0;
		}
		prev = rt->addr;
		if (!ips[g]) {
			rt->how = STP_KF_BY_KRETPROBE;
			continue;
		}
		rt->data_off = group;
		group += ALIGN(rt->k->data_size, sizeof(u64));
		data_size = max(data_size, group);
		maxactive += stp_kf_maxactive(rt->k);
		stp_kf_fret[stp_kf_nfret++] = rt;
	}
	for (i = 0, g = 0; i < nips; i++)
		if (ips[i])
			ips[g++] = ips[i];
	nips = g;
	ret = -ENOENT;
	if (nips) {
		memset(&stp_kf_fp, 0, sizeof(stp_kf_fp));
		stp_kf_fp.entry_handler = stp_kf_fp_entry;
		stp_kf_fp.exit_handler = stp_kf_fp_exit;
		stp_kf_fp.entry_data_size = data_size;
		stp_kf_fp.nr_maxactive = min_t(long, maxactive, INT_MAX);
		ret = register_fprobe_ips(&stp_kf_fp, ips, nips);
	}
	kvfree(ips);
	if (ret) {
		/* kretprobes then, one by one */
		for (i = 0; i < stp_kf_nfret; i++)
			stp_kf_fret[i]->how = STP_KF_BY_KRETPROBE;
		stp_kf_nfret = 0;
		return 0;
	}
	stp_kf_fp_registered = true;
	return 0;
}
#else
static int stp_kf_fprobe_arm(void)
{
	return 0;
}
#endif

/*
 * Is addr an fentry site that ftrace takes (checked on a filter never
 * registered)? A kprobe there is a kprobe-on-ftrace, which the kernel
 * never optimises.
 */
static bool stp_kf_ftrace_site(unsigned long addr)
{
#if STP_KF_HAVE_FTRACE
	static struct ftrace_ops check;	/* arm runs under stp_ctl_mutex */
	bool site;

	memset(&check, 0, sizeof(check));
	site = !ftrace_set_filter_ip(&check, addr, 0, 0);
	ftrace_free_filter(&check);
	return site;
#else
	return false;
#endif
}

/*
 * Register a kprobe or kretprobe (rt->how says which), disabled (see
 * stp_kf_kprobes_arm); 0 or -errno.
 */
static int stp_kfunc_register(struct stp_kfunc_rt *rt)
{
	const struct stp_kfunc_probe *p = rt->k;
	int ret;

	if (rt->how == STP_KF_BY_KRETPROBE) {
		rt->krp.kp.addr = (kprobe_opcode_t *)rt->addr;
		rt->krp.kp.flags = KPROBE_FLAG_DISABLED;
		rt->krp.handler = stp_kfunc_kret_hit;
		rt->krp.maxactive = stp_kf_maxactive(p);
		rt->krp.data_size = p->data_size;
		if (p->entry)
			rt->krp.entry_handler = stp_kfunc_kret_entry;
		ret = register_kretprobe(&rt->krp);
	} else {
		const struct stp_kfunc_rt *r;

		rt->kp.addr = (kprobe_opcode_t *)rt->addr;
		rt->kp.flags = KPROBE_FLAG_DISABLED;
		rt->kp.pre_handler = stp_kfunc_kprobe_hit;
		/* the kernel does not optimise a kprobe with a post handler,
		 * at a cost per hit of a single-step instead of a jump (and
		 * most inlined copies cannot be optimised: 2 of vfs_*'s 9
		 * fsnotify_access copies on 6.1). Optimised, the kprobes of
		 * inlined copies are unoptimised after the detach, by the
		 * optimiser, which holds the kprobe mutex through an RCU-tasks
		 * grace period and the freeing of every detour buffer: the
		 * module's unload waits for it (ext4_*: 12.2 s from load to
		 * unload against 12.1 s). Not at an ftrace site, which
		 * is never optimised, and where 6.1 mishandles one: when a
		 * kprobe with a post handler leaves an address it shares with
		 * a kretprobe, the aggregate loses its post handler and is
		 * later disarmed through the wrong ftrace_ops ("Failed to
		 * disarm kprobe-ftrace ... error -2", a WARNING; fixed in 6.2
		 * by "kprobes: Skip clearing aggrprobe's post_handler in
		 * kprobe-on-ftrace case") */
		for (r = rt; r; r = r->same)
			if (r->k->flags & (STP_KF_INLINE | STP_KF_STMT))
				rt->kp.post_handler = stp_kfunc_kprobe_post;
		if (rt->kp.post_handler && stp_kf_ftrace_site(rt->addr))
			rt->kp.post_handler = NULL;
		ret = register_kprobe(&rt->kp);
	}
	if (ret)
		rt->how = STP_KF_BY_NONE;
	return ret;
}

/* SystemTap's warning for a probe the kernel would not take. */
static void stp_kfunc_warn(const struct stp_kfunc_rt *rt, int err)
{
	char tail[96];

	if (!rt->addr)
		snprintf(tail, sizeof(tail),
			 " registration error [man warning::pass5] (rc %d)\n",
			 err);
	else
		snprintf(tail, sizeof(tail),
			 " (address 0x%lx) registration error [man warning::pass5] (rc %d)\n",
			 rt->addr, err);
	stp_ctl_stderr("WARNING: probe ", rt->p->pp, tail, NULL);
}

/* A kprobe or kretprobe the kernel refused: the probes it was to serve. */
static void stp_kf_refused(struct stp_kfunc_rt *rt, int err)
{
	struct stp_kfunc_rt *r;

	rt->how = STP_KF_BY_NONE;
	stp_kfunc_warn(rt, err);
	for (r = rt->same; r; r = r->same) {
		r->how = STP_KF_BY_NONE;
		stp_kfunc_warn(r, err);
	}
}

/*
 * "N ONE-or-MANY, N ... and N ..." of the counts n[] that are not 0,
 * appended to buf at *len.
 */
static void stp_kf_counts(char *buf, size_t size, size_t *len,
			  const size_t *n, const char *const (*what)[2],
			  size_t nkinds)
{
	size_t i, k = 0, left;

	for (i = 0; i < nkinds; i++)
		k += n[i] != 0;
	for (i = 0, left = k; i < nkinds; i++) {
		if (!n[i])
			continue;
		*len += scnprintf(buf + *len, size - *len, "%s%zu %s",
				  left == k ? "" : left == 1 ? " and " : ", ",
				  n[i], what[i][n[i] != 1]);
		left--;
	}
}

static const char *const stp_kf_probe_kinds[][2] = {
	{ "kprobe", "kprobes" }, { "kretprobe", "kretprobes" },
};

/*
 * Attach the kprobes and kretprobes (how == BY_KPROBE or BY_KRETPROBE).
 * The kernel registers one address per call: register_kprobes() is the
 * same loop, and the work is per address (on 6.1 and 6.12 under qemu
 * -icount, about 4.5 ms for an inlined copy in ext4: two scans of the
 * kernel's jump labels, each decoding the instruction of every jump
 * label below the address, 1.3 ms each, one for the address and one for
 * the optprobe it prepares; the decoding of the whole enclosing function
 * for the optprobe, 1.2 ms; the decoding from the function's start up
 * to the address, 0.5 ms). They are registered disabled and enabled
 * together after: a kprobe the kernel can optimise queues it for the
 * optimiser as it is armed, and the optimiser holds the kprobe mutex
 * through an RCU-tasks grace period (85 ms on 6.1) five jiffies after
 * the first, so registering them armed waited for it every few
 * registrations (the 31 entries of ext4_* ftrace refuses on 6.1: 611 ms,
 * most of it waiting); enabled together, the optimiser runs once, after
 * (130 ms). With -v (stp_verbose) the wait is announced before it
 * starts, and timed.
 */
static void stp_kf_kprobes_arm(void)
{
	static const char *const kinds[][2] = {
		{ "inlined copy", "inlined copies" },
		{ "statement", "statements" },
		{ "function entry", "function entries" },
		{ "return", "returns" },
	};
	size_t i, len, nk[2] = { 0 }, nby[ARRAY_SIZE(kinds)] = { 0 };
	u64 t0 = ktime_get_ns(), us, each;
	char msg[320];
	int ret;

	for (i = 0; i < stp_nkfuncs; i++) {
		const struct stp_kfunc_rt *rt = &stp_kfuncs[i];
		u32 flags = rt->k->flags;

		if (rt->how == STP_KF_BY_KRETPROBE) {
			nk[1]++;
			nby[3]++;
		} else if (rt->how == STP_KF_BY_KPROBE ||
			   rt->how == STP_KF_BY_SHARED) {
			nk[0] += rt->how == STP_KF_BY_KPROBE;
			nby[flags & STP_KF_INLINE ? 0 :
			    flags & STP_KF_STMT ? 1 : 2]++;
		}
	}
	if (!nk[0] && !nk[1])
		return;
	if (stp_verbose) {
		len = scnprintf(msg, sizeof(msg), "Pass 5: attaching ");
		stp_kf_counts(msg, sizeof(msg), &len, nk, stp_kf_probe_kinds,
			      2);
		len += scnprintf(msg + len, sizeof(msg) - len, " for ");
		stp_kf_counts(msg, sizeof(msg), &len, nby, kinds,
			      ARRAY_SIZE(kinds));
		scnprintf(msg + len, sizeof(msg) - len,
			  ", one address at a time (the kernel checks and prepares each).\n");
		stp_ctl_stderr(msg, NULL);
	}
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		if (rt->how != STP_KF_BY_KPROBE &&
		    rt->how != STP_KF_BY_KRETPROBE)
			continue;
		ret = stp_kfunc_register(rt);
		if (ret)
			stp_kf_refused(rt, ret);
		cond_resched();
	}
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		if (rt->how == STP_KF_BY_KPROBE) {
			ret = enable_kprobe(&rt->kp);
			if (ret)
				unregister_kprobe(&rt->kp);
		} else if (rt->how == STP_KF_BY_KRETPROBE) {
			ret = enable_kretprobe(&rt->krp);
			if (ret)
				unregister_kretprobe(&rt->krp);
		} else {
			continue;
		}
		if (ret)
			stp_kf_refused(rt, ret);
	}
	if (stp_verbose) {
		/* the time per address tried, refused ones included */
		us = (ktime_get_ns() - t0) / NSEC_PER_USEC;
		each = us / (nk[0] + nk[1]);
		nk[0] = nk[1] = 0;
		for (i = 0; i < stp_nkfuncs; i++) {
			nk[0] += stp_kfuncs[i].how == STP_KF_BY_KPROBE;
			nk[1] += stp_kfuncs[i].how == STP_KF_BY_KRETPROBE;
		}
		len = scnprintf(msg, sizeof(msg), "Pass 5: %s",
				nk[0] || nk[1] ? "" : "no kprobes");
		stp_kf_counts(msg, sizeof(msg), &len, nk, stp_kf_probe_kinds,
			      2);
		scnprintf(msg + len, sizeof(msg) - len,
			  " attached in %llu ms (%llu.%llu ms an address).\n",
			  us / USEC_PER_MSEC, each / USEC_PER_MSEC,
			  each % USEC_PER_MSEC / 100);
		stp_ctl_stderr(msg, NULL);
	}
}

/* Is module name m (as the point names it) mod? '-' and '_' alike. */
static bool stp_kf_module_is(const char *m, const struct module *mod)
{
	const char *n = mod->name;

	for (; *m && *n; m++, n++)
		if (*m != *n && !((*m == '-' || *m == '_') &&
				  (*n == '-' || *n == '_')))
			return false;
	return !*m && !*n;
}

/*
 * The module variables' symbols of mod (kfunc.h: struct stp_modsym):
 * where they are now, from mod's kallsyms (CONFIG_KALLSYMS_ALL has its
 * data symbols, local ones too), or 0 when mod goes. Under
 * stp_kf_mod_mutex, before the probes of mod are armed, after they are
 * disarmed.
 */
static void stp_kf_modsyms_set(struct module *mod, bool coming)
{
	unsigned int i, k;

	for (i = 0; i < stp_module.nmodsyms; i++) {
		struct stp_modsym *ms = &stp_module.modsyms[i];
		unsigned long addr = 0;

		if (!stp_kf_module_is(ms->module, mod))
			continue;
#ifdef CONFIG_KALLSYMS
		if (coming) {
			struct mod_kallsyms *ks;

			preempt_disable();
			ks = rcu_dereference_sched(mod->kallsyms);
			for (k = 0; ks && k < ks->num_symtab; k++) {
				const Elf_Sym *sym = &ks->symtab[k];

				if (sym->st_shndx != SHN_UNDEF &&
				    !strcmp(ks->strtab + sym->st_name,
					    ms->symbol)) {
					addr = sym->st_value;
					break;
				}
			}
			preempt_enable();
		}
#endif
		WRITE_ONCE(ms->addr, addr);
	}
}

/*
 * The same for the modules loaded at the start. find_module and
 * __module_address are not exported: the modules' list is walked from
 * this module's own entry, in a read-side section (a module is freed
 * only after a grace period). The list's head, the kernel's, is the one
 * entry outside the modules' address range.
 */
static void stp_kf_modsyms_loaded(void)
{
	struct list_head *pos;

	if (!stp_module.nmodsyms)
		return;
	preempt_disable();
	for (pos = READ_ONCE(THIS_MODULE->list.next); pos != &THIS_MODULE->list;
	     pos = READ_ONCE(pos->next)) {
		struct module *mod = list_entry(pos, struct module, list);

		if ((unsigned long)pos < MODULES_VADDR ||
		    (unsigned long)pos >= MODULES_END ||
		    READ_ONCE(mod->state) == MODULE_STATE_UNFORMED)
			continue;
		/* stp_kf_modsyms_set takes its own section: nested */
		stp_kf_modsyms_set(mod, true);
	}
	preempt_enable();
}

/* Arm one probe of a module that came: resolve, register, enable. */
static void stp_kf_module_arm(struct stp_kfunc_rt *rt)
{
	int ret = stp_kfunc_resolve(rt->k, &rt->addr);

	if (ret) {
		rt->addr = 0;
		stp_kfunc_warn(rt, ret);
		return;
	}
	memset(&rt->kp, 0, sizeof(rt->kp));
	memset(&rt->krp, 0, sizeof(rt->krp));
	rt->same = NULL;
	rt->how = rt->k->flags & STP_KF_RETURN ? STP_KF_BY_KRETPROBE :
						 STP_KF_BY_KPROBE;
	ret = stp_kfunc_register(rt);
	if (!ret)
		ret = rt->how == STP_KF_BY_KPROBE ? enable_kprobe(&rt->kp) :
						    enable_kretprobe(&rt->krp);
	if (ret && rt->how == STP_KF_BY_KPROBE)
		unregister_kprobe(&rt->kp);
	else if (ret && rt->how == STP_KF_BY_KRETPROBE)
		unregister_kretprobe(&rt->krp);
	if (ret)
		stp_kf_refused(rt, ret);
	else
		rt->used = rt->how;
}

/* Disarm one probe of a module that goes; its misses count as skipped. */
static void stp_kf_module_disarm(struct stp_kfunc_rt *rt)
{
	if (rt->how == STP_KF_BY_KPROBE) {
		atomic_add(READ_ONCE(rt->kp.nmissed), &stp_skipped);
		unregister_kprobe(&rt->kp);
	} else if (rt->how == STP_KF_BY_KRETPROBE) {
		atomic_add(READ_ONCE(rt->krp.nmissed) +
			   READ_ONCE(rt->krp.kp.nmissed), &stp_skipped);
		unregister_kretprobe(&rt->krp);
	}
	rt->how = STP_KF_BY_NONE;
	rt->addr = 0;
}

static int stp_kf_module_event(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct module *mod = data;
	size_t i;

	if (val != MODULE_STATE_COMING && val != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&stp_kf_mod_mutex);
	if (val == MODULE_STATE_COMING)
		stp_kf_modsyms_set(mod, true);
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		if (!rt->k->module || !stp_kf_module_is(rt->k->module, mod))
			continue;
		if (val == MODULE_STATE_COMING && rt->how == STP_KF_BY_NONE)
			stp_kf_module_arm(rt);
		else if (val == MODULE_STATE_GOING)
			stp_kf_module_disarm(rt);
	}
	if (val == MODULE_STATE_GOING)
		stp_kf_modsyms_set(mod, false);
	mutex_unlock(&stp_kf_mod_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block stp_kf_module_nb = {
	.notifier_call = stp_kf_module_event,
};

static void stp_kfunc_disarm(void)
{
	struct kretprobe **krps = NULL;
	struct kprobe **kps = NULL;
	size_t i, len, nkp = 0, nkrp = 0, nk[2] = { 0 };
	u64 t0 = ktime_get_ns();
	bool any = false;
	char msg[96];

	if (!stp_nkfuncs)
		return;
	for (i = 0; i < stp_nkfuncs; i++) {
		nk[0] += stp_kfuncs[i].how == STP_KF_BY_KPROBE;
		nk[1] += stp_kfuncs[i].how == STP_KF_BY_KRETPROBE;
	}
	if ((nk[0] || nk[1]) && stp_verbose) {
		/* what the wait is: their slots are freed after grace periods */
		len = scnprintf(msg, sizeof(msg), "Pass 5: detaching ");
		stp_kf_counts(msg, sizeof(msg), &len, nk, stp_kf_probe_kinds,
			      2);
		scnprintf(msg + len, sizeof(msg) - len, ".\n");
		stp_ctl_stderr(msg, NULL);
	}
#if STP_KF_HAVE_FTRACE
	if (stp_kf_ops_registered) {
		unregister_ftrace_function(&stp_kf_ops);
		ftrace_free_filter(&stp_kf_ops);
		stp_kf_ops_registered = false;
		any = true;
	}
#endif
#if STP_KF_HAVE_FPROBE
	if (stp_kf_fp_registered) {
		/* the misses before the detach: unregister_fprobe() stops
		 * the rethook first, then detaches from ftrace, and every hit
		 * in between counts as missed, although events are off by
		 * now and the session would drop it anyway */
		unsigned long missed = READ_ONCE(stp_kf_fp.nmissed);

		/* the ftrace detach and its grace periods, once for all */
		unregister_fprobe(&stp_kf_fp);
		atomic_add(missed, &stp_skipped);
		stp_kf_fp_registered = false;
		any = true;
	}
#endif
	/* the misses before the detach, as for the fprobe: a kretprobe's
	 * rethook is stopped before its kprobe is removed. A missed hit of
	 * a shared kprobe missed every probe at its address (separate
	 * kprobes counted one each): the others' share too. */
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i], *r;

		if (rt->how == STP_KF_BY_KPROBE) {
			unsigned long missed = READ_ONCE(rt->kp.nmissed);

			atomic_add(missed, &stp_skipped);
			for (r = rt->same; r; r = r->same)
				atomic_add(missed, &stp_skipped);
		} else if (rt->how == STP_KF_BY_KRETPROBE) {
			atomic_add(READ_ONCE(rt->krp.nmissed) +
				   READ_ONCE(rt->krp.kp.nmissed),
				   &stp_skipped);
		}
	}
	kps = kvcalloc(stp_nkfuncs, sizeof(*kps), GFP_KERNEL);
	krps = kvcalloc(stp_nkfuncs, sizeof(*krps), GFP_KERNEL);
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		if (rt->how == STP_KF_BY_KPROBE) {
			if (kps)
				kps[nkp++] = &rt->kp;
			else
				unregister_kprobe(&rt->kp);
		} else if (rt->how == STP_KF_BY_KRETPROBE) {
			if (krps)
				krps[nkrp++] = &rt->krp;
			else
				unregister_kretprobe(&rt->krp);
		}
	}
	/* one grace period for each kind, not one per function */
	if (nkp)
		unregister_kprobes(kps, nkp);
	if (nkrp)
		unregister_kretprobes(krps, nkrp);
	kvfree(kps);
	kvfree(krps);
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		any |= rt->how == STP_KF_BY_KPROBE ||
		       rt->how == STP_KF_BY_KRETPROBE;
		rt->how = STP_KF_BY_NONE;
		rt->same = NULL;
	}
	kvfree(stp_kf_ftrace);
	stp_kf_ftrace = NULL;
	stp_kf_nftrace = 0;
	stp_kf_ftrace_one = false;
	kvfree(stp_kf_fret);
	stp_kf_fret = NULL;
	stp_kf_nfret = 0;
	if (any && stp_verbose) {
		snprintf(msg, sizeof(msg),
			 "Pass 5: kernel functions detached in %llu ms.\n",
			 (ktime_get_ns() - t0) / NSEC_PER_MSEC);
		stp_ctl_stderr(msg, NULL);
	}
}

static void stp_kfunc_free(void)
{
	kvfree(stp_kf_ftrace);
	stp_kf_ftrace = NULL;
	stp_kf_nftrace = 0;
	stp_kf_ftrace_one = false;
	kvfree(stp_kf_fret);
	stp_kf_fret = NULL;
	stp_kf_nfret = 0;
	kvfree(stp_kfuncs);
	stp_kfuncs = NULL;
	stp_nkfuncs = 0;
}

/*
 * Register every kernel function probe of the table. A function the
 * kernel refuses is a warning; -errno only when nothing could be tried
 * (no memory, ftrace itself failing).
 */
static int stp_kfunc_arm_all(const void *table, size_t n)
{
	const struct stp_kfunc_probe *tab = table;
	size_t i, nby[STP_KF_BY_SHARED + 1] = { 0 };
	u64 t0 = ktime_get_ns();
	int ret;

	if (!n || stp_kfuncs)
		return 0;
	stp_kfuncs = kvcalloc(n, sizeof(*stp_kfuncs), GFP_KERNEL);
	if (!stp_kfuncs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		stp_kfuncs[stp_nkfuncs].p = tab[i].probe;
		stp_kfuncs[stp_nkfuncs++].k = &tab[i];
	}

	/* resolve, and plan how each is attached */
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];
		const struct stp_kfunc_probe *p = rt->k;

		ret = stp_kfunc_resolve(p, &rt->addr);
		if (ret) {
			rt->addr = 0;
			/* a module not loaded (yet): armed when it comes */
			if (!p->module || ret != -ENOENT)
				stp_kfunc_warn(rt, ret);
			continue;
		}
		if (p->module)
			rt->how = p->flags & STP_KF_RETURN ?
				  STP_KF_BY_KRETPROBE : STP_KF_BY_KPROBE;
		else if (p->flags & STP_KF_RETURN)
			rt->how = STP_KF_HAVE_FPROBE ? STP_KF_BY_FPROBE :
						       STP_KF_BY_KRETPROBE;
		else if (STP_KF_HAVE_FTRACE &&
			 !(p->flags & (STP_KF_KPROBE | STP_KF_INLINE |
					  STP_KF_STMT)))
			rt->how = STP_KF_BY_FTRACE;
		else
			rt->how = STP_KF_BY_KPROBE;
	}
	ret = stp_kf_ftrace_arm();
	if (!ret)
		ret = stp_kf_fprobe_arm();
	if (ret) {
		stp_ctl_stderr("ERROR: cannot attach kernel functions through ftrace\n",
			       NULL);
		/* the kprobes and kretprobes were not registered yet */
		for (i = 0; i < stp_nkfuncs; i++)
			if (stp_kfuncs[i].how == STP_KF_BY_KPROBE ||
			    stp_kfuncs[i].how == STP_KF_BY_KRETPROBE)
				stp_kfuncs[i].how = STP_KF_BY_NONE;
		stp_kfunc_disarm();
		return ret;
	}
	stp_kf_kprobe_share();
	stp_kf_kprobes_arm();
	for (i = 0; i < stp_nkfuncs; i++) {
		struct stp_kfunc_rt *rt = &stp_kfuncs[i];

		rt->used = rt->how == STP_KF_BY_SHARED ? STP_KF_BY_KPROBE :
							 rt->how;
		nby[rt->how]++;
	}
	if (stp_verbose) {
		char msg[192];

		snprintf(msg, sizeof(msg),
			 "Pass 5: %zu kernel function probes attached in %llu ms: %zu through ftrace, %zu through %zu kprobes, %zu kretprobes, %zu returns through fprobe, %zu refused.\n",
			 stp_nkfuncs, (ktime_get_ns() - t0) / NSEC_PER_MSEC,
			 nby[STP_KF_BY_FTRACE],
			 nby[STP_KF_BY_KPROBE] + nby[STP_KF_BY_SHARED],
			 nby[STP_KF_BY_KPROBE], nby[STP_KF_BY_KRETPROBE],
			 nby[STP_KF_BY_FPROBE], nby[STP_KF_BY_NONE]);
		stp_ctl_stderr(msg, NULL);
	}
	return 0;
}

/*
 * Arm the table. With probes on module symbols the module notifier is
 * registered first and stp_kf_mod_mutex held while arming, so a module
 * coming meanwhile is armed once, by whichever sees it unarmed.
 */
static int stp_kfunc_arm(const void *table, size_t n)
{
	const struct stp_kfunc_probe *tab = table;
	bool modules = false;
	size_t i;
	int ret;

	for (i = 0; i < n; i++)
		modules |= tab[i].module != NULL;
	if (modules && !stp_kf_mod_notified &&
	    !register_module_notifier(&stp_kf_module_nb))
		stp_kf_mod_notified = true;
	mutex_lock(&stp_kf_mod_mutex);
	stp_kf_modsyms_loaded();
	ret = stp_kfunc_arm_all(table, n);
	mutex_unlock(&stp_kf_mod_mutex);
	if (ret && stp_kf_mod_notified) {
		unregister_module_notifier(&stp_kf_module_nb);
		stp_kf_mod_notified = false;
	}
	return ret;
}

/* The kind's disarm: no module comes or goes for these probes from here
 * on (unregistering the notifier waits for a callback running), then
 * every probe is detached. */
static void stp_kfunc_disarm_all(void)
{
	if (stp_kf_mod_notified) {
		unregister_module_notifier(&stp_kf_module_nb);
		stp_kf_mod_notified = false;
	}
	stp_kfunc_disarm();
}

/* "ftrace", "kprobe", "kretprobe", or "" (not armed): for tests. */
const char *stp_kfunc_how(const struct stp_probe *p)
{
	static const char *const names[] = {
		[STP_KF_BY_NONE] = "", [STP_KF_BY_FTRACE] = "ftrace",
		[STP_KF_BY_KPROBE] = "kprobe", [STP_KF_BY_KRETPROBE] = "kretprobe",
		[STP_KF_BY_FPROBE] = "fprobe",
	};
	size_t i;

	for (i = 0; i < stp_nkfuncs; i++)
		if (stp_kfuncs[i].p == p)
			return names[stp_kfuncs[i].used];
	return "";
}

const struct stp_kind_ops stp_kfunc_kind = {
	.name = "kernel function",
	.entry_size = sizeof(struct stp_kfunc_probe),
	.arm = stp_kfunc_arm,
	.disarm = stp_kfunc_disarm_all,
	.free = stp_kfunc_free,
};
