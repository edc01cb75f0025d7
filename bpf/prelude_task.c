// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tapset's readers of kernel and user memory and of a task, and its
 * pure conversions, for the BPF backend: linux/conversions.stp's
 * kernel_int() family, uconversions.stp's user_*_error() family (which
 * user_int() and the rest wrap in try/catch), task.stp's task_current()
 * and the task_*() readers, inet.stp's and endian.stp's byte orders,
 * dev.stp's device numbers. C both halves of a program share, written
 * after the prelude (emit_program.c) and named by bpf/tapset.c's table.
 *
 * A read that faults is the module's error for it (FAULT: caught by an
 * enclosing try, else reported and the run ends), at the address the
 * module names: the field's, for a task's. Fields are CO-RE reads
 * (preserve_access_index), relocated against the kernel's BTF at load.
 * Memory readers are kernel-only: the loader, where begin and end run,
 * reads no kernel memory and no process's (pass 2 refuses them there).
 */
#include "bpf/bpf.h"

const char bpf_prelude_task[] =
/* ---- pure conversions, both halves ---- */
"#define STP_BSWAP16(v) ((long long)__builtin_bswap16((unsigned short)(v)))\n"
"#define STP_BSWAP32(v) ((long long)__builtin_bswap32((unsigned)(v)))\n"
"#define STP_BSWAP64(v) ((long long)__builtin_bswap64((unsigned long long)(v)))\n"
"#define STP_LOW16(v) ((long long)(unsigned short)(v))\n"
"#define STP_LOW32(v) ((long long)(unsigned)(v))\n"
/* the kernel's dev_t: 12 bits of major above 20 of minor (MINORBITS) */
"#define STP_MAJOR(v) ((long long)((unsigned)(v) >> 20))\n"
"#define STP_MINOR(v) ((long long)((unsigned)(v) & 0xfffff))\n"
"#define STP_MKDEV(ma, mi) ((long long)(unsigned)(((unsigned)(ma) << 20) | (unsigned)(mi)))\n"
/* new_decode_dev(): user space's 32-bit encoding (stat's st_dev) */
"#define STP_USRDEV2KERNDEV(v) ({ unsigned d_ = (unsigned)(v); STP_MKDEV((d_ & 0xfff00) >> 8, (d_ & 0xff) | ((d_ >> 12) & 0xfff00)); })\n"
/* randint(n): 0 to n - 1, n up to 2^20 (else "range too wide"), as the
 * module scales a random 32-bit number */
"#define STP_RANDINT(i, n) ({ unsigned long long n_ = (unsigned long long)(n); if (n_ > 1024 * 1024) ERROR(i); (long long)(((unsigned long long)STP_RANDOM32() * n_) >> 32); })\n"
"#ifdef __bpf__\n"
"#define STP_RANDOM32() bpf_get_prandom_u32()\n"
/* local_clock_ns(): the monotonic clock, the same in the loader (where
 * begin and end run) as in the kernel, so intervals between the two
 * halves hold; the module's local_clock() is the scheduler's clock,
 * which counts from the same boot */
"#define STP_LOCAL_CLOCK_NS() ((long long)bpf_ktime_get_ns())\n"
/* warn(msg): a record the loader prints on stderr (kind 9) */
"#define STP_WARN(m) ({ struct stp_msg *x = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0); if (x) { x->h.kind = 9; x->h.id = 0; STRCPY(x->s, m); bpf_ringbuf_submit(x, 0); } else __sync_fetch_and_add(&G.stp_lost, 1); 0LL; })\n"
/* ---- kernel and user memory ---- */
"#define STP_KREAD_T(t, i, a) ({ __u64 a_ = (__u64)(a); t v_ = 0; if (bpf_probe_read_kernel(&v_, sizeof(v_), (void *)a_)) FAULT(i, a_); (long long)v_; })\n"
"#define STP_KLONG(i, a) STP_KREAD_T(long, i, a)\n"
"#define STP_KINT(i, a) STP_KREAD_T(int, i, a)\n"
"#define STP_KSHORT(i, a) STP_KREAD_T(short, i, a)\n"
"#define STP_KCHAR(i, a) STP_KREAD_T(signed char, i, a)\n"
"#define STP_KPOINTER(i, a) STP_KREAD_T(unsigned long, i, a)\n"
/* kernel_string_n(): at most n (0 to MAXSTRINGLEN - 1) characters */
"#define KERNEL_STRING_N(d, i, a, n) ({ __u64 a_ = (__u64)(a); long long n_ = (n); if (n_ < 0) n_ = 0; if (n_ > STP_STR - 1) n_ = STP_STR - 1; if (bpf_probe_read_kernel_str(d, (__u32)n_ + 1, (void *)a_) < 0) FAULT(i, a_); (d); })\n"
"#define STP_UREAD_T(t, i, a) ({ __u64 a_ = (__u64)(a); t v_ = 0; if (bpf_probe_read_user(&v_, sizeof(v_), (void *)a_)) FAULT(i, a_); (long long)v_; })\n"
"#define STP_UCHAR(i, a) STP_UREAD_T(signed char, i, a)\n"
"#define STP_USHORT(i, a) STP_UREAD_T(short, i, a)\n"
"#define STP_UUSHORT(i, a) STP_UREAD_T(unsigned short, i, a)\n"
"#define STP_UINT(i, a) STP_UREAD_T(int, i, a)\n"
"#define STP_UUINT8(i, a) STP_UREAD_T(unsigned char, i, a)\n"
"#define STP_UUINT32(i, a) STP_UREAD_T(unsigned, i, a)\n"
"#define STP_UINT64(i, a) STP_UREAD_T(long long, i, a)\n"
/* a long of a 32-bit task (a compat system call) is an int */
"#define STP_ULONG(i, a) (stp_task_compat() ? STP_UREAD_T(int, i, a) : STP_UREAD_T(long, i, a))\n"
"#define STP_UULONG(i, a) (stp_task_compat() ? STP_UREAD_T(unsigned, i, a) : STP_UREAD_T(long, i, a))\n"
/* ---- a task's fields (task.stp) ---- */
"struct thread_info___tk { __u32 cpu; } __attribute__((preserve_access_index));\n"
"struct cred___tk { stp_kid uid; stp_kid euid; stp_kid gid; stp_kid egid; void *user_ns; } __attribute__((preserve_access_index));\n"
"struct stp_id_extent { __u32 first, lower_first, count; };\n"
"struct uid_gid_map___tk { __u32 nr_extents; struct stp_id_extent extent[5]; struct stp_id_extent *forward; } __attribute__((preserve_access_index));\n"
"struct user_namespace___tk { struct uid_gid_map___tk uid_map; struct uid_gid_map___tk gid_map; } __attribute__((preserve_access_index));\n"
"struct task_struct___tk { struct thread_info___tk thread_info; unsigned int __state; int prio; int static_prio; int pid; int tgid; struct task_struct___tk *real_parent; const struct cred___tk *real_cred; char comm[16]; } __attribute__((preserve_access_index));\n"
"#define STP_TASK(t) ((struct task_struct___tk *)(unsigned long)(t))\n"
"#define STP_TASK_FIELD(ty, i, t, f) STP_KREAD_T(ty, i, &STP_TASK(t)->f)\n"
"#define STP_TASK_PARENT(i, t) STP_TASK_FIELD(unsigned long, i, t, real_parent)\n"
"#define STP_TASK_STATE(i, t) STP_TASK_FIELD(unsigned, i, t, __state)\n"
"#define STP_TASK_PID(i, t) STP_TASK_FIELD(int, i, t, tgid)\n"
"#define STP_TASK_TID(i, t) STP_TASK_FIELD(int, i, t, pid)\n"
/* ps's and top's: prio - MAX_RT_PRIO; nice: static_prio - 120 */
"#define STP_TASK_PRIO(i, t) (STP_TASK_FIELD(int, i, t, prio) - 100)\n"
"#define STP_TASK_NICE(i, t) (STP_TASK_FIELD(int, i, t, static_prio) - 120)\n"
"#define STP_TASK_CPU(i, t) STP_TASK_FIELD(unsigned, i, t, thread_info.cpu)\n"
"#define STP_TASK_COMM(d, i, t) ({ void *a_ = STP_TASK(t)->comm; if (bpf_probe_read_kernel_str(d, 16, a_) < 0) FAULT(i, (__u64)a_); (d); })\n"
/* task_uid() and the rest: the id as the task's own user namespace
 * maps it (from_kuid_munged: the extent that holds it, else the
 * overflow id 65534). A map of up to 5 extents holds them; a bigger
 * one (up to 340) keeps them sorted behind a pointer (forward). The
 * map's layout differs between kernels (6.18 put the count after the
 * extents): its members are CO-RE reads. */
"STP_INLINE long long stp_id_up(const struct uid_gid_map___tk *map, __u32 nr, __u32 id)\n"
"{\n"
"	struct stp_id_extent e[5];\n"
"	struct stp_id_extent *fw = 0;\n"
"	if (nr <= 5) {\n"
"		if (bpf_probe_read_kernel(e, sizeof(e), map->extent))\n"
"			return 65534;\n"
"		for (__u32 k = 0; k < 5; k++)\n"
"			if (k < nr && id - e[k].lower_first < e[k].count)\n"
"				return e[k].first + (id - e[k].lower_first);\n"
"		return 65534;\n"
"	}\n"
"	bpf_probe_read_kernel(&fw, sizeof(fw), &map->forward);\n"
"	for (__u32 k = 0; k < 340 && k < nr; k++) {\n"
"		struct stp_id_extent x = { 0 };\n"
"		if (bpf_probe_read_kernel(&x, sizeof(x), &fw[k]))\n"
"			break;\n"
"		if (id - x.lower_first < x.count)\n"
"			return x.first + (id - x.lower_first);\n"
"	}\n"
"	return 65534;\n"
"}\n"
/* which: 0 uid, 1 euid, 2 gid, 3 egid; 0, or the address that faulted
 * in *bad */
"STP_INLINE int stp_task_id(long long t, int which, long long *v, __u64 *bad)\n"
"{\n"
"	const struct cred___tk *c = 0;\n"
"	struct user_namespace___tk *ns = 0;\n"
"	__u32 id = 0;\n"
"	const void *a = &STP_TASK(t)->real_cred;\n"
"	if (bpf_probe_read_kernel(&c, sizeof(c), a))\n"
"		goto fault;\n"
"	a = &c->user_ns;\n"
"	if (bpf_probe_read_kernel(&ns, sizeof(ns), a))\n"
"		goto fault;\n"
"	a = which == 0 ? (const void *)&c->uid : which == 1 ? (const void *)&c->euid : which == 2 ? (const void *)&c->gid : (const void *)&c->egid;\n"
"	if (bpf_probe_read_kernel(&id, sizeof(id), a))\n"
"		goto fault;\n"
"	const struct uid_gid_map___tk *map = which < 2 ? &ns->uid_map : &ns->gid_map;\n"
"	__u32 nr = 0;\n"
"	a = map;\n"
"	if (bpf_probe_read_kernel(&nr, sizeof(nr), &map->nr_extents))\n"
"		goto fault;\n"
"	*v = stp_id_up(map, nr, id);\n"
"	return 0;\n"
"fault:\n"
"	*bad = (__u64)a;\n"
"	return -1;\n"
"}\n"
"#define STP_TASK_ID(i, t, w) ({ long long v_ = 0; __u64 b_ = 0; if (stp_task_id((t), (w), &v_, &b_)) FAULT(i, b_); v_; })\n"
"#define STP_TASK_UID(i, t) STP_TASK_ID(i, t, 0)\n"
"#define STP_TASK_EUID(i, t) STP_TASK_ID(i, t, 1)\n"
"#define STP_TASK_GID(i, t) STP_TASK_ID(i, t, 2)\n"
"#define STP_TASK_EGID(i, t) STP_TASK_ID(i, t, 3)\n"
"#else\n"
"#define STP_RANDOM32() arc4random()\n"
"#define STP_LOCAL_CLOCK_NS() stp_clock_ns(CLOCK_MONOTONIC)\n"
/* warn(msg) in begin and end: after the output before it, as the
 * module's staprun prints it */
"#define STP_WARN(m) ({ const char *m_ = (m); size_t n_ = strlen(m_); fflush(stdout); fprintf(stderr, \"WARNING: %s%s\", m_, n_ && m_[n_ - 1] == '\\n' ? \"\" : \"\\n\"); 0LL; })\n"
"#endif\n";
