/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User-space probes (uprobe.c): the module's table of them. A probe is a
 * place in a binary file (an executable or shared library), named by its
 * path and the byte offset in the file of the instruction; the kernel
 * puts a breakpoint there in every process that maps the file, now and
 * later. Return probes hijack the return address at that place (the
 * function's entry). A USDT mark's semaphore is the kernel's reference
 * counter at ref_ctr_offset (since 4.20): raised in every process while
 * the probe is registered.
 */
#ifndef RUNTIME_UPROBE_H
#define RUNTIME_UPROBE_H

/* stp_uprobe_probe.flags */
#define STP_UP_RETURN	0x1		/* the function's return */

struct stp_uprobe_probe {
	const struct stp_probe *probe;	/* its entry in the probe table */
	const char *path;		/* the binary, resolved by stap */
	unsigned long offset;		/* of the probed instruction, in
					 * the file */
	unsigned long ref_ctr_offset;	/* a mark's semaphore, in the file;
					 * 0: none */
	unsigned int flags;		/* STP_UP_* */
	long pid;			/* only this process (tgid); 0: any */
	/* a mark's provider and name ($$provider, $$name), a PLT stub's
	 * name ($$name), or NULL */
	const char *provider, *name;
};

extern const struct stp_kind_ops stp_uprobe_kind;

/* The uprobe entry of the context's probe (a uprobe kind handler only). */
static inline const struct stp_uprobe_probe *
stp_uprobe_of(const struct stp_context *c)
{
	return c->probe->attach;
}

/*
 * A context value read from the probed process's memory: as stp_tp_read
 * (probes.h), but a user address, read without sleeping (a page not
 * present is a fault, as SystemTap's user reads in probe context).
 */
static __always_inline int stp_tp_uread(u64 *out, unsigned long addr,
					unsigned int size, bool is_signed)
{
	union { u8 b; u16 h; u32 w; u64 q; } u;

	if (copy_from_user_nofault(&u, (const void __user *)addr, size))
		return -EFAULT;
	switch (size) {
	case 1: *out = is_signed ? (u64)(s64)(s8)u.b : u.b; break;
	case 2: *out = is_signed ? (u64)(s64)(s16)u.h : u.h; break;
	case 4: *out = is_signed ? (u64)(s64)(s32)u.w : u.w; break;
	default: *out = u.q; break;
	}
	return 0;
}

static __always_inline int stp_tp_uread_bits(u64 *out, unsigned long addr,
					     unsigned int shift,
					     unsigned int nbits,
					     bool is_signed)
{
	unsigned int nbytes = (shift + nbits + 7) / 8;
	u64 raw = 0;

	if (nbytes > 8 || copy_from_user_nofault(&raw,
						 (const void __user *)addr,
						 nbytes))
		return -EFAULT;
	raw >>= shift;
	if (nbits < 64) {
		raw &= (1ULL << nbits) - 1;
		if (is_signed && (raw >> (nbits - 1)) & 1)
			raw |= ~0ULL << nbits;
	}
	*out = raw;
	return 0;
}

/*
 * A user function's variable written in guru mode ($x = v): size bytes
 * of val at addr, the probed process's memory, or, at a kernel address,
 * the slot of a register in the task's saved user registers (the probe's
 * pt_regs, restored when the task goes back to user mode); -EFAULT when
 * nothing was written.
 */
static __always_inline int stp_up_write(unsigned long addr, u64 val,
					unsigned int size)
{
	if (addr >= TASK_SIZE_MAX)
		return stp_kf_write(addr, val, size);
	return copy_to_user_nofault((void __user *)addr, &val, size) ?
	       -EFAULT : 0;
}

#endif /* RUNTIME_UPROBE_H */
