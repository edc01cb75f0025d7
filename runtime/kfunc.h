/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel function probes (kfunc.c): the module's table of them (entries,
 * inlined copies, statements, returns), the ftrace functions the
 * generated code defines, and guru-mode writes of their variables.
 */
#ifndef RUNTIME_KFUNC_H
#define RUNTIME_KFUNC_H

/* stp_kfunc_probe.flags */
#define STP_KF_KPROBE	0x1		/* entry by kprobe, not ftrace */
#define STP_KF_INLINE	0x2		/* an inlined copy: kprobe at addr */
#define STP_KF_STMT	0x4		/* a statement: kprobe at addr */
#define STP_KF_RETURN	0x8		/* the function's return */
#define STP_KF_ABS	0x10		/* addr is a run-time address */

struct stp_kfunc_probe;

struct stp_kfunc_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	const char *symbol;		/* the function's symbol ("M:NAME"
					 * in module M), or */
	unsigned long addr;		/* its link-time address (needs
					 * STP_KFUNC_ANCHOR_SYM/_LINK); in
					 * a module, an inlined copy's or
					 * statement's offset into symbol */
	int maxactive;			/* return: instances, 0: max(15,
					 * 6 * CPUs) */
	unsigned int flags;		/* STP_KF_* */
	/* the module whose symbol it is, or NULL: then the probe is a
	 * kprobe or kretprobe, armed while that module is loaded */
	const char *module;
	/* entry, lean: an ftrace_ops function that runs this probe's
	 * counts (STP_KF_LEAN_HIT), for an ops that serves only it */
	void *lean_hit;
	/* entry with a handler: an ftrace_ops function that runs it
	 * (STP_KF_HIT), for an ops that serves only this probe */
	void *hit;
	/* return: bytes of instance data, and a function run at entry
	 * with them (values a return probe saves at entry: the probe's
	 * vals, kept until the return, then nentry values) */
	size_t data_size;
	void (*entry)(const struct stp_kfunc_probe *k, struct pt_regs *regs,
		      void *data);
	/* return: @entry(expr) values computed by the handler itself at
	 * the entry (c->entry_out), kept after the probe's nvals values */
	unsigned int nentry;
};

extern const struct stp_kind_ops stp_kfunc_kind;

/* p's kernel function entry, or NULL: p is no kernel function probe */
static inline const struct stp_kfunc_probe *
stp_kfunc_probe_of(const struct stp_probe *p)
{
	return stp_probe_kind(p) == &stp_kfunc_kind ? p->attach : NULL;
}

void stp_kf_save_entry(const struct stp_kfunc_probe *k, struct pt_regs *regs,
		       void *data);
/* "ftrace", "kprobe", ...: how the probe was attached (for tests) */
const char *stp_kfunc_how(const struct stp_probe *p);

/* The kernel image's load offset: the anchor function's address now
 * against its link-time address (the generated code defines both) */
#ifdef STP_KFUNC_ANCHOR_SYM
#define STP_MODULE_ANCHOR .anchor = (unsigned long)&STP_KFUNC_ANCHOR_SYM, \
			  .anchor_link = STP_KFUNC_ANCHOR_LINK,
/* a link-time address of the kernel image (a static variable's DWARF
 * location, DW_OP_addr) where it is now: moved by the KASLR offset */
#define STP_KERNEL_ADDR(link) ((u64)(link) +				\
			       (u64)((unsigned long)&STP_KFUNC_ANCHOR_SYM -	\
				     STP_KFUNC_ANCHOR_LINK))
#else
#define STP_MODULE_ANCHOR
#endif

/*
 * A module's static variable (module("M") probes) is read at a symbol of
 * M plus an offset: the symbol's address while M is loaded, found in M's
 * kallsyms when a probe of M is armed (it came, or was there at the
 * start), 0 when it goes (kfunc.c). The generated code lists them
 * (STP_KF_MODSYMS) and reads stp_modsyms[i].addr.
 */
struct stp_modsym {
	const char *module, *symbol;
	unsigned long addr;
};

#if defined(STP_KF_MODSYMS) && !defined(STP_RUNTIME_OBJECT)
static struct stp_modsym stp_modsyms[] = { STP_KF_MODSYMS };
#define STP_MODULE_MODSYMS .modsyms = stp_modsyms,			\
			   .nmodsyms = ARRAY_SIZE(stp_modsyms),
#else
#define STP_MODULE_MODSYMS
#endif

/*
 * A kernel.function variable written in guru mode ($x = v): size bytes of
 * val at kernel address addr (a register's pt_regs slot, or memory); a
 * user or non-canonical address, or a fault, is -EFAULT and nothing is
 * written. copy_to_kernel_nofault is not exported, so the access is the
 * exception-table one it uses itself.
 */
static __always_inline int stp_kf_write(unsigned long addr, u64 val,
					unsigned int size)
{
	u8 b = val;
	u16 h = val;
	u32 w = val;

	if (addr < TASK_SIZE_MAX + PAGE_SIZE ||
	    !__is_canonical_address(addr, boot_cpu_data.x86_virt_bits))
		return -EFAULT;
	pagefault_disable();
	switch (size) {
	case 1: __put_kernel_nofault((void *)addr, &b, u8, fault); break;
	case 2: __put_kernel_nofault((void *)addr, &h, u16, fault); break;
	case 4: __put_kernel_nofault((void *)addr, &w, u32, fault); break;
	default: __put_kernel_nofault((void *)addr, &val, u64, fault); break;
	}
	pagefault_enable();
	return 0;
fault:
	pagefault_enable();
	return -EFAULT;
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define STP_KF_HAVE_FTRACE 1
#else
#define STP_KF_HAVE_FTRACE 0
#endif

/* fprobe with pt_regs handlers: a feature test (runtime/features) */
#if STP_KF_HAVE_FTRACE && defined(STP_HAVE_FPROBE_PT_REGS)
#include <linux/fprobe.h>
#define STP_KF_HAVE_FPROBE 1
#else
#define STP_KF_HAVE_FPROBE 0
#endif

/*
 * The registers a kernel function's probe hands its handler hold the
 * probe's address as their ip (ip: the kprobe's address, or the fentry
 * site ftrace reports), as in SystemTap: the kernel gives ftrace's
 * callbacks the ip past the fentry call and a kprobe's the ip past its
 * int3. What stp_kf_ip_set returns goes back with stp_kf_ip_restore
 * before the callback returns: a changed ip is where ftrace returns to,
 * and what a kprobe single-steps from.
 */
static __always_inline unsigned long stp_kf_ip_set(struct pt_regs *regs,
						   unsigned long ip)
{
	unsigned long was = 0;

	if (regs) {
		was = instruction_pointer(regs);
		instruction_pointer_set(regs, ip);
	}
	return was;
}

static __always_inline void stp_kf_ip_restore(struct pt_regs *regs,
					      unsigned long was)
{
	if (regs)
		instruction_pointer_set(regs, was);
}

/*
 * A lean entry probe's own ftrace_ops function (the generated code names
 * one per lean body): when every probe of the shared ops is of that body,
 * it is the ops' function, with no search and nothing else per hit.
 */
#if STP_KF_HAVE_FTRACE
#define STP_KF_LEAN_HIT(name, probe)					\
	static void notrace name(unsigned long ip, unsigned long parent_ip, \
				 struct ftrace_ops *op,			\
				 struct ftrace_regs *fregs)		\
	{								\
		stp_probe_lean(probe);					\
	}
#define STP_KF_LEAN_REF(name) ((void *)(name))
/*
 * An entry probe's own ftrace_ops function when the ops serves only it:
 * no search, its handler inlined, the registers only when it reads them
 * (the ops saves them only then). ftrace calls it with preemption on;
 * the context's busy flag is the recursion guard (nothing before it is
 * traceable).
 */
#define STP_KF_HIT(name, run, probe, use)				\
	static void notrace name(unsigned long ip, unsigned long parent_ip, \
				 struct ftrace_ops *op,			\
				 struct ftrace_regs *fregs)		\
	{								\
		struct pt_regs *regs = ((use) & STP_USE_REGS) ?		\
				       ftrace_get_regs(fregs) : NULL;	\
		unsigned long was = stp_kf_ip_set(regs, ip);		\
									\
		preempt_disable_notrace();				\
		run(probe, NULL, regs);					\
		preempt_enable_notrace();				\
		stp_kf_ip_restore(regs, was);				\
	}
#else
#define STP_KF_LEAN_HIT(name, probe)
#define STP_KF_LEAN_REF(name) NULL
#define STP_KF_HIT(name, run, probe, use)
#endif


#endif /* RUNTIME_KFUNC_H */
