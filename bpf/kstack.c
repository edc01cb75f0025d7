// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel stacks on the BPF backend: print_backtrace(), backtrace(),
 * sprint_backtrace(), callers(), __stack_raw() (stack(), caller() over
 * it), symname() and symdata() in kernel probes
 * (tracepoints, perf timers), printed as the module backend prints it
 * (runtime/stack.c's stp_stack_print: " 0xADDR : name+0xoff/0xsize
 * [mod]" a frame, " 0xADDR" without a symbol, at most MAXBACKTRACE 20).
 *
 * The kernel half takes the current task's kernel stack with
 * bpf_get_task_stack() (the kernel's own unwinder, as the module's
 * walk; it needs no program context, so a body's function can call it)
 * into a ring buffer record of raw addresses (kind 7); the loader names
 * them from /proc/kallsyms when it prints (loader_kstack.c), as printk's
 * %pS does in the module. The walk starts inside the helper and our BPF program; as the
 * module drops its own frames (handler, tracepoint callback), the loader
 * drops every frame up to the last of our programs' (bpf_prog_*) and
 * the kernel's BPF glue after it (bpf_trace_runN, __bpf_trace_NAME:
 * the tracepoint callback; perf's overflow path to its hrtimer), so the
 * first frame is the kernel code that ran the probe.
 *
 * sprint_backtrace() and callers() are strings of the kernel program
 * (a script keeps, compares and keys on them), each frame named by the
 * kernel's %pS. The walk's state is per nesting depth on the CPU (a
 * perf program may interrupt a tracepoint's between walk and copy).
 *
 * print_stack() and sprint_stack() (the tapset's tokenize), modname(),
 * and addr(), probemod(), probefunc() (their programs set the probe's
 * address, attach*.c: the module's registers' ip) are here too: 0 on a
 * tracepoint or a process.* event, the interrupted ip on timer.profile,
 * the function's ftrace site in kernel.function, the address it returns
 * to in .return (a walk of the stack, at the first read), the user
 * registers' ip in a uprobe; the syscall family's probefunc() names
 * the system call's function by number (sysc_entry.c) and, in .return,
 * the frame below the entry code's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "semantic/semantic.h"

/* frames taken: MAXBACKTRACE's 20 (loader_kstack.c prints as many)
 * and the helper's and glue's below */
#define KSTACK_RAW 64
#define KSTACK_MAX 20

static const char kstack_c[] =
	/* our programs' JIT images (one span) and the glue's functions,
	 * written by the loader before it attaches (bpf_kstack_ranges) */
	"struct stp_kglue { __u64 lo, hi, perf_lo, perf_hi; __u32 n, nirq; "
	"__u64 g[32][2]; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); "
	"__type(key, __u32); __type(value, struct stp_kglue); } stp_kgl "
	"SEC(\".maps\");\n"
	"struct stp_kwalk { long n, raw_n; int first, hit, len, perf; "
	"int limit, frames, cut, lpos, skip, bracket; "
	"__u64 raw[STP_KRAW]; __u64 pcs[STP_KRAW]; char piece[32]; "
	"char s[2 * STP_STR]; char sym[STP_STR + 32]; "
	"char line[STP_STR + 32]; char in[STP_STR]; char tok[STP_STR]; "
	"__u64 val; int stop, done; __u64 pip; int pre; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, STP_KLV); __type(key, __u32); "
	"__type(value, struct stp_kwalk); } stp_kwk SEC(\".maps\");\n"
	/* a program that interrupts another on this CPU (perf's hrtimer
	 * program inside a tracepoint's) has a walk state of its own:
	 * stp_kwk's entry of the nesting depth, in stp_kdp, a macro's
	 * STP_KIN() up, its STP_KOUT() down */
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, 1); __type(key, __u32); __type(value, __u32); "
	"} stp_kdp SEC(\".maps\");\n"
	"static __always_inline __u32 stp_klv(void)\n{\n"
	"\t__u32 z0 = 0, *d = bpf_map_lookup_elem(&stp_kdp, &z0);\n"
	"\treturn d ? (*d - 1) & (STP_KLV - 1) : 0;\n}\n"
	/* a macro evaluates its arguments before STP_KIN(): an argument
	 * reading the program's level (addr()) must see the program's */
	"#define STP_KIN() ({ __u32 z0_ = 0, *d_ = bpf_map_lookup_elem(&stp_kdp, &z0_); if (d_) (*d_)++; })\n"
	"#define STP_KOUT() ({ __u32 z0_ = 0, *d_ = bpf_map_lookup_elem(&stp_kdp, &z0_); if (d_) (*d_)--; })\n"
	"struct stp_krec { struct stp_hdr h; __u64 pcs[STP_KMAX]; };\n"
	/* the probe's address (addr()'s) and its function
	 * (kernel.function) per nesting depth, set by the program at its
	 * level (STP_KSETIP, below) */
	"struct stp_kipv { __u64 ip, fn; __u32 flags; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, STP_KLV); __type(key, __u32); "
	"__type(value, struct stp_kipv); } stp_kip SEC(\".maps\");\n"
	/* the walk's steps are bpf_loop callbacks, their state in stp_kwk,
	 * so the verifier sees each once: our programs' frames among the
	 * first 16 ... */
	"static long stp_kown(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tstruct stp_kglue *g = bpf_map_lookup_elem(&stp_kgl, &z0);\n"
	"\tif (!w || !g || i >= w->raw_n)\n\t\treturn 1;\n"
	"\t__u64 a = w->raw[i & (STP_KRAW - 1)];\n"
	"\tif (a >= g->lo && a < g->hi)\n\t\tw->first = i + 1;\n"
	"\treturn 0;\n}\n"
	/* ... then the glue after them (and, past perf's hrtimer, the
	 * timer interrupt's entry): step i checks range i % 32 of frame
	 * first ... */
	"static long stp_kglue_step(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0, j = i & 31;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tstruct stp_kglue *g = bpf_map_lookup_elem(&stp_kgl, &z0);\n"
	"\tif (!w || !g || w->first >= w->raw_n)\n\t\treturn 1;\n"
	"\t__u64 a = w->raw[w->first & (STP_KRAW - 1)];\n"
	"\tif (!j)\n\t\tw->hit = 0;\n"
	"\tif ((j < g->n || (w->perf && j < g->n + g->nirq)) && "
	"a >= g->g[j][0] && a < g->g[j][1])\n"
	"\t\tw->hit = 1;\n"
	"\tif (a >= g->perf_lo && a < g->perf_hi)\n\t\tw->perf = 1;\n"
	"\tif (j < 31)\n\t\treturn 0;\n"
	"\tif (!w->hit)\n\t\treturn 1;\n"
	"\tw->first++;\n\treturn 0;\n}\n"
	/* ... and the frames from there, after the interrupted ip when
	 * the kernel's walk left it out (pre) */
	"static long stp_kcopy(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || w->first + (long)i - w->pre >= w->raw_n)\n\t\treturn 1;\n"
	"\tw->pcs[i & (STP_KRAW - 1)] = i < w->pre ? w->pip : "
	"w->raw[(w->first + i - w->pre) & (STP_KRAW - 1)];\n"
	"\tw->n = i + 1;\n\treturn 0;\n}\n"
	/* ... in kernel.function, the frames through the fentry site's
	 * return address in the function (the trampoline's call), the
	 * entry's last frame then the site itself, as the module's walk
	 * starts at its kprobe's registers (a .return's at the address
	 * returned to) */
	"static long stp_kfn_step(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || w->first + (long)i >= w->raw_n)\n\t\treturn 1;\n"
	"\t__u64 a = w->raw[(w->first + i) & (STP_KRAW - 1)];\n"
	"\tif (a <= w->val || a > w->val + 16)\n\t\treturn 0;\n"
	"\tw->first += i;\n\tw->stop = 1;\n\treturn 1;\n}\n"
	/* the running task's stack into w->raw (the kernel's unwinder):
	 * its number of frames */
	"static __always_inline long stp_kfetch(struct stp_kwalk *w)\n{\n"
	"\tlong n = bpf_get_task_stack(bpf_get_current_task_btf(), "
	"w->raw, sizeof(w->raw), 0);\n"
	"\treturn n > 0 ? (long)((unsigned long)n / 8) : 0;\n}\n"
	/* the walk: frames past our programs' and the glue's, at most
	 * STP_KMAX, in stp_kwk's pcs */
	"__attribute__((noinline)) int stp_kwalk(void)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->n = 0;\n\tw->first = 0;\n\tw->perf = 0;\n"
	"\tw->raw_n = stp_kfetch(w);\n"
	"\tbpf_loop(16, stp_kown, 0, 0);\n"
	"\tbpf_loop(12 * 32, stp_kglue_step, 0, 0);\n"
	"\t{\n\t\t__u32 zp = (z - 1) & (STP_KLV - 1);\n"
	"\t\tstruct stp_kipv *v = bpf_map_lookup_elem(&stp_kip, &zp);\n"
	"\t\tif (v && v->fn) {\n"
	"\t\t\tw->val = v->fn;\n\t\t\tw->stop = 0;\n"
	"\t\t\tbpf_loop(16, stp_kfn_step, 0, 0);\n"
	"\t\t\tif (w->stop && (v->flags & 16))\n"
	"\t\t\t\tw->raw[w->first & (STP_KRAW - 1)] = v->ip;\n"
	"\t\t\telse if (w->stop)\n\t\t\t\tw->first++;\n"
	"\t\t}\n\t}\n"
	/* past perf's hrtimer the stack starts at the interrupted
	 * kernel code, timer.profile's addr() (STP_KSETIP at the level
	 * below, flag 32), as the module's from its registers; 6.1's walk
	 * (stack_trace_save_tsk) leaves that frame out when it is in the
	 * scheduler's or the locks' text (_raw_spin_unlock_irqrestore,
	 * do_nanosleep) */
	"\tw->pre = 0;\n"
	"\t{\n"
	"\t\t__u32 zl = (z - 1) & (STP_KLV - 1);\n"
	"\t\tstruct stp_kipv *v = bpf_map_lookup_elem(&stp_kip, &zl);\n"
	"\t\tif (v && (v->flags & 32) && (long long)v->ip < 0 && "
	"(w->first >= w->raw_n || "
	"w->raw[w->first & (STP_KRAW - 1)] != v->ip)) {\n"
	"\t\t\tw->pip = v->ip;\n\t\t\tw->pre = 1;\n\t\t}\n\t}\n"
	"\tbpf_loop(STP_KMAX, stp_kcopy, 0, 0);\n"
	"\treturn (int)w->n;\n}\n"
	/* print_backtrace(): the frames to the loader, which names them */
	"__attribute__((noinline)) int stp_kprint(void)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tint n = stp_kwalk();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tstruct stp_krec *x;\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tx = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0);\n"
	"\tif (!x) {\n\t\t__sync_fetch_and_add(&G.stp_lost, 1);\n"
	"\t\treturn 0;\n\t}\n"
	"\tbpf_probe_read_kernel(x->pcs, sizeof(x->pcs), w->pcs);\n"
	"\tx->h.kind = 7;\n\tx->h.id = n > 0 && n <= STP_KMAX ? n : 0;\n"
	"\tbpf_ringbuf_submit(x, 0);\n\treturn 0;\n}\n"
	/* backtrace(): "0xADDR " a frame, whole pieces that fit in a
	 * string (STP_STR - 1 bytes), as the module's stp_stack_sprint */
	"static const char stp_khexfmt[] = \"0x%llx \";\n"
	"static const char stp_kmodname[10] = \" [kernel]\";\n"
	"static long stp_kbt_step(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || i >= w->n || i >= w->limit)\n\t\treturn 1;\n"
	"\t__u64 a = w->pcs[i & (STP_KRAW - 1)];\n"
	"\tlong l = bpf_snprintf(w->piece, sizeof(w->piece), stp_khexfmt, &a, 8);\n"
	"\tif (l <= 1 || w->len + (l - 1) >= STP_STR) {\n"
	"\t\tw->cut = 1;\n\t\treturn 1;\n\t}\n"
	"\tbpf_probe_read_kernel(&w->s[w->len & (STP_STR - 1)], l & 31, w->piece);\n"
	"\tw->len += l - 1;\n\tw->frames = i + 1;\n\treturn 0;\n}\n"
	/* the first limit frames' pieces (backtrace(): all of them) */
	"__attribute__((noinline)) int stp_kbt(int limit)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstp_kwalk();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->len = 0;\n\tw->s[0] = 0;\n\tw->limit = limit;\n"
	"\tw->frames = 0;\n\tw->cut = 0;\n"
	"\tbpf_loop(STP_KMAX, stp_kbt_step, 0, 0);\n"
	"\tw->s[w->len & (STP_STR - 1)] = 0;\n"
	"\tw->s[STP_STR - 1] = 0;\n"
	"\treturn w->len;\n}\n"
	/* callers(n): the first n + 1 frames' pieces without the last
	 * space (all of them for -1, "" below), as the module's
	 * stp_stack_callers; 0 when the stack ended before level n */
	"__attribute__((noinline)) int stp_kcallers(long long n)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tint limit = n >= 0 && n < STP_KMAX ? (int)n + 1 : STP_KMAX;\n"
	"\tstruct stp_kwalk *w;\n"
	"\tstp_kbt(limit);\n"
	"\tw = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tif (w->len > 0 && w->len < STP_STR && w->s[(w->len - 1) & (STP_STR - 1)] == ' ')\n"
	"\t\tw->s[(--w->len) & (STP_STR - 1)] = 0;\n"
	"\treturn n < 0 || w->cut || w->frames == limit;\n}\n"
	/* sprint_backtrace(): "name+0xoff [mod]\n" a frame ("0xADDR\n"
	 * without a symbol), the module's STP_SYM_SIMPLE lines, whole
	 * lines that fit in a string. The kernel names the frame (%pS,
	 * "name+0xoff/0xsize [mod]", " [mod]" only for a module's); a
	 * character step drops the "/0xsize" */
	"static const char stp_kSfmt[] = \"%pS\";\n"
	"static long stp_ksbt_chr(__u32 j, void *c)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 1;\n"
	"\tchar ch = w->sym[j & (STP_STR - 1)];\n"
	"\tif (!ch)\n\t\treturn 1;\n"
	"\tif (ch == '/')\n\t\tw->skip = 1;\n"
	"\telse if (ch == ' ') {\n\t\tw->skip = 0;\n\t\tw->bracket = 1;\n\t}\n"
	"\tif (!w->skip && w->lpos < STP_STR)\n"
	"\t\tw->line[(w->lpos++) & (STP_STR - 1)] = ch;\n"
	"\treturn 0;\n}\n"
	"static long stp_ksbt_step(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || i >= w->n)\n\t\treturn 1;\n"
	"\t__u64 a = w->pcs[i & (STP_KRAW - 1)];\n"
	"\tw->sym[0] = 0;\n"
	"\tbpf_snprintf(w->sym, STP_STR, stp_kSfmt, &a, 8);\n"
	"\tw->lpos = 0;\n\tw->skip = 0;\n\tw->bracket = 0;\n"
	"\tbpf_loop(STP_STR, stp_ksbt_chr, 0, 0);\n"
	"\tint l = w->lpos;\n"
	"\tint add = !w->bracket && !(w->sym[0] == '0' && w->sym[1] == 'x') ? 9 : 0;\n"
	/* the line and its newline must fit after what is there */
	"\tif (l + add + 1 >= STP_STR || w->len + l + add + 1 >= STP_STR)\n"
	"\t\treturn 1;\n"
	"\tif (add)\n"
	"\t\tbpf_probe_read_kernel(&w->line[l & (STP_STR - 1)], 9, stp_kmodname);\n"
	"\tl += add;\n"
	"\tw->line[l & (STP_STR - 1)] = '\\n';\n"
	"\tl++;\n"
	"\tbpf_probe_read_kernel(&w->s[w->len & (STP_STR - 1)], l & (STP_STR - 1), w->line);\n"
	"\tw->len += l;\n\treturn 0;\n}\n"
	"__attribute__((noinline)) int stp_ksbt(void)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstp_kwalk();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->len = 0;\n"
	"\tbpf_loop(STP_KMAX, stp_ksbt_step, 0, 0);\n"
	"\tw->s[w->len & (STP_STR - 1)] = 0;\n"
	"\treturn w->len;\n}\n"
	/* symname(), symdata(): the kernel's own lookup, printk's %ps and
	 * %pS (sprint_symbol, as the module's stp_sym_lookup), the
	 * kernel's symbols given the module name "kernel" as the module
	 * backend gives them ("0x..." when no symbol covers a) */
	"static const char stp_ksfmt[] = \"%ps\";\n"
	"static const char stp_kdfmt[] = \"%pS\";\n"
	"__attribute__((noinline)) int stp_ksym(__u64 a, int data)\n{\n"
	"\t__u32 z = stp_klv(), z0 = 0;\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tlong l;\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->s[0] = 0;\n"
	"\tif (data)\n"
	"\t\tl = bpf_snprintf(w->s, STP_STR, stp_kdfmt, &a, 8);\n"
	"\telse\n"
	"\t\tl = bpf_snprintf(w->s, STP_STR, stp_ksfmt, &a, 8);\n"
	"\tif (l < 2 || l > STP_STR || !data)\n\t\treturn 0;\n"
	"\tif ((w->s[0] == '0' && w->s[1] == 'x') || "
	"w->s[(l - 2) & (STP_STR - 1)] == ']')\n\t\treturn 0;\n"
	"\tif (l - 1 + 9 < STP_STR)\n"
	"\t\tbpf_probe_read_kernel(&w->s[(l - 1) & (STP_STR - 1)], 10, "
	"stp_kmodname);\n"
	"\treturn 0;\n}\n"
	/* modname(a): the module's name in the kernel's %pS ("[mod]"),
	 * "kernel" for its own symbols; 0 when no symbol covers a (the
	 * module's "Cannot determine kernel module name") */
	"static long stp_kmod_chr(__u32 j, void *c)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 1;\n"
	"\tchar ch = w->sym[j & (STP_STR - 1)];\n"
	"\tif (!ch || (w->bracket && ch == ']'))\n\t\treturn 1;\n"
	"\tif (w->bracket && w->lpos < STP_STR - 1)\n"
	"\t\tw->s[(w->lpos++) & (STP_STR - 1)] = ch;\n"
	"\tif (ch == '[')\n\t\tw->bracket = 1;\n"
	"\treturn 0;\n}\n"
	"static const char stp_kkernel[7] = \"kernel\";\n"
	"__attribute__((noinline)) int stp_kmod(__u64 a)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->s[0] = 0;\n\tw->sym[0] = 0;\n"
	"\tif (bpf_snprintf(w->sym, STP_STR, stp_kdfmt, &a, 8) < 2 || "
	"(w->sym[0] == '0' && w->sym[1] == 'x'))\n\t\treturn 0;\n"
	"\tw->lpos = 0;\n\tw->bracket = 0;\n"
	"\tbpf_loop(STP_STR, stp_kmod_chr, 0, 0);\n"
	"\tif (!w->bracket)\n"
	"\t\tbpf_probe_read_kernel(w->s, 7, stp_kkernel);\n"
	"\telse\n"
	"\t\tw->s[w->lpos & (STP_STR - 1)] = 0;\n"
	"\treturn 1;\n}\n"
	"#define STP_KMODNAME(d, i, a) ({ __u64 a_ = (__u64)(a); "
	"__u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; "
	"int ok_ = stp_kmod(a_); w_ = bpf_map_lookup_elem(&stp_kwk, &z_); "
	"(d)[0] = 0; if (ok_ && w_) bpf_probe_read_kernel(d, STP_STR, w_->s); "
	"STP_KOUT(); if (!ok_) FAULT(i, a_); (d); })\n"
	/* sprint_stack(stk): " TOKEN : symdata\n" a space-separated token
	 * of stk (its value hex, as strtol(TOKEN, 16)), whole lines below
	 * MAXSTRINGLEN, as the tapset's sprint_syms(); a character step
	 * gathers a token, a token's end writes its line */
	"static const char stp_kssfmt[] = \" %s : %s\\n\";\n"
	"static void stp_kss_line(struct stp_kwalk *w)\n{\n"
	"\t__u64 a = w->val, args[2];\n"
	"\tlong l;\n"
	"\tw->tok[w->lpos & (STP_STR - 1)] = 0;\n"
	"\tw->sym[0] = 0;\n"
	"\tl = bpf_snprintf(w->sym, STP_STR, stp_kdfmt, &a, 8);\n"
	"\tif (l >= 2 && l <= STP_STR - 9 && !(w->sym[0] == '0' && w->sym[1] == 'x') && "
	"w->sym[(l - 2) & (STP_STR - 1)] != ']')\n"
	"\t\tbpf_probe_read_kernel(&w->sym[(l - 1) & (STP_STR - 1)], 10, stp_kmodname);\n"
	"\targs[0] = (__u64)(long)w->tok;\n\targs[1] = (__u64)(long)w->sym;\n"
	"\tl = bpf_snprintf(w->line, STP_STR, stp_kssfmt, args, 16) - 1;\n"
	"\tif (l <= 0 || l >= STP_STR - 1 || w->len + l >= STP_STR) {\n"
	"\t\tw->done = 1;\n\t\treturn;\n\t}\n"
	"\tbpf_probe_read_kernel(&w->s[w->len & (STP_STR - 1)], l & (STP_STR - 1), w->line);\n"
	"\tw->len += l;\n}\n"
	"static long stp_kss_chr(__u32 j, void *c)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || w->done)\n\t\treturn 1;\n"
	"\tchar ch = j < STP_STR ? w->in[j & (STP_STR - 1)] : 0;\n"
	"\tif (!ch || ch == ' ') {\n"
	"\t\tif (w->lpos)\n\t\t\tstp_kss_line(w);\n"
	"\t\tw->lpos = 0;\n\t\tw->val = 0;\n\t\tw->stop = 0;\n"
	"\t\treturn !ch;\n\t}\n"
	"\tint p = w->lpos, d = -1;\n"
	"\tif (p < STP_STR - 1)\n\t\tw->tok[(w->lpos++) & (STP_STR - 1)] = ch;\n"
	"\tif (ch >= '0' && ch <= '9')\n\t\td = ch - '0';\n"
	"\telse if (ch >= 'a' && ch <= 'f')\n\t\td = ch - 'a' + 10;\n"
	"\telse if (ch >= 'A' && ch <= 'F')\n\t\td = ch - 'A' + 10;\n"
	"\tif (p == 1 && (ch == 'x' || ch == 'X') && w->val == 0 && !w->stop)\n"
	"\t\treturn 0;\n"
	"\tif (d < 0)\n\t\tw->stop = 1;\n"
	"\telse if (!w->stop)\n\t\tw->val = w->val * 16 + d;\n"
	"\treturn 0;\n}\n"
	"__attribute__((noinline)) int stp_kss(void)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->len = 0;\n\tw->lpos = 0;\n\tw->val = 0;\n\tw->stop = 0;\n\tw->done = 0;\n"
	"\tbpf_loop(STP_STR + 1, stp_kss_chr, 0, 0);\n"
	"\tw->s[w->len & (STP_STR - 1)] = 0;\n"
	"\treturn w->len;\n}\n"
	"#define STP_KSPRINT_STACK(d, stk) ({ __u32 z_ = (STP_KIN(), stp_klv()); "
	"struct stp_kwalk *w_ = bpf_map_lookup_elem(&stp_kwk, &z_); (d)[0] = 0; "
	"if (w_) { bpf_probe_read_kernel_str(w_->in, STP_STR, (stk)); stp_kss(); "
	"bpf_probe_read_kernel(d, STP_STR, w_->s); } STP_KOUT(); (d); })\n"
	/* addr(), probemod(), __tp_alias_caller() (probefunc()'s): the
	 * probe's address, which each program using them sets before its
	 * body (STP_KSETIP: 0 for a tracepoint, the interrupted ip for
	 * timer.profile, as the module's registers), with its flags (1: a
	 * tapset alias on a tracepoint; 2 and 4, 8 and 16 below; 32:
	 * timer.profile or a perf event, whose stack starts at that
	 * address), at its nesting depth */
	"#define STP_KSETIP2(a, f, fl) ({ __u64 ip_ = (a), fn_ = (f); __u32 z_; "
	"struct stp_kipv *v_; STP_KIN(); z_ = stp_klv(); "
	"v_ = bpf_map_lookup_elem(&stp_kip, &z_); "
	"if (v_) { v_->ip = ip_; v_->fn = fn_; v_->flags = (fl); } })\n"
	"#define STP_KSETIP(a, fl) STP_KSETIP2(a, 0, fl)\n"
	/* kernel.function's address (fentry): the function's ftrace
	 * site, where the module's kprobe sits, past an endbr64 (or the
	 * nop IBT seals an unused one with: 6.1's, then 6.2's on) */
	"static __always_inline __u64 stp_kfn_site(void *ctx)\n{\n"
	"\t__u64 ip = bpf_get_func_ip(ctx);\n\t__u32 ins = 0;\n"
	"\tbpf_probe_read_kernel(&ins, 4, (void *)ip);\n"
	"\treturn ins == 0xfa1e0ff3 || ins == 0xd6401f0f || "
	"ins == 0x001f0f66 ? ip + 4 : ip;\n}\n"
	/* a .return's (fexit's) address, as a kretprobe's registers
	 * have it: where the function returns to, the frame after the
	 * one the trampoline's call left in the function (its ftrace
	 * site's return address, within 16 bytes of its start). Looked
	 * for at the first read of addr() (flag 8: not yet), a walk of
	 * the stack being dear */
	"static long stp_kret_step(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || i + 1 >= w->raw_n)\n\t\treturn 1;\n"
	"\t__u64 a = w->raw[i & (STP_KRAW - 1)];\n"
	"\tif (a <= w->val || a > w->val + 16)\n\t\treturn 0;\n"
	"\tw->val = w->raw[(i + 1) & (STP_KRAW - 1)];\n"
	"\tw->stop = 1;\n\treturn 1;\n}\n"
	"__attribute__((noinline)) long long stp_kretaddr(__u64 fn)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->raw_n = stp_kfetch(w);\n"
	"\tw->val = fn;\n\tw->stop = 0;\n"
	"\tbpf_loop(STP_KRAW, stp_kret_step, 0, 0);\n"
	"\treturn w->stop ? (long long)w->val : 0;\n}\n"
	"#define STP_KADDR() ({ __u32 z_ = stp_klv(); long long r_ = 0; "
	"struct stp_kipv *v_ = bpf_map_lookup_elem(&stp_kip, &z_); "
	"if (v_ && (v_->flags & 8)) { __u64 f_ = v_->fn; STP_KIN(); "
	"r_ = stp_kretaddr(f_); STP_KOUT(); "
	"v_ = bpf_map_lookup_elem(&stp_kip, &z_); "
	"if (v_) { v_->ip = r_; v_->flags &= ~8u; } } "
	"else if (v_) r_ = (long long)v_->ip; r_; })\n"
	/* probefunc() in the syscall family's entry probes (flag 2): the
	 * system call's kernel function by its number (sysc_entry.c's
	 * table, a 32-bit task's its own), "" for a number without one */
	"#define STP_KSYSCFN(d) ({ __u32 z_ = stp_klv(); long long nr_ = -1; "
	"int c_ = 0; struct stp_kipv *v_ = bpf_map_lookup_elem(&stp_kip, &z_); "
	"(d)[0] = 0; if (v_ && (v_->flags & 2)) { nr_ = stp_sysc_nr((long long)"
	"bpf_task_pt_regs(bpf_get_current_task_btf())); "
	"c_ = stp_task_compat() ? 1 : 0; } "
	"if (nr_ >= 0 && nr_ < STP_KSYSN) bpf_probe_read_kernel_str(d, "
	"STP_KSYSL, stp_ksysfn[c_][nr_]); (d); })\n"
	/* in their .return probes (flag 4): the function the system
	 * call's returns to, the next-to-last frame of the stack (the last
	 * is the entry code's), 0 when the walk did not reach its end */
	"__attribute__((noinline)) long long stp_ksysret(void)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tlong n;\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tn = stp_kfetch(w);\n"
	"\tif (n < 2 || n >= STP_KRAW)\n\t\treturn 0;\n"
	"\treturn (long long)w->raw[(n - 2) & (STP_KRAW - 1)];\n}\n"
	"#define STP_KSYSCRET() ({ __u32 z_ = stp_klv(); long long r_ = 0; "
	"struct stp_kipv *v_ = bpf_map_lookup_elem(&stp_kip, &z_); "
	"if (v_ && (v_->flags & 4)) { STP_KIN(); r_ = stp_ksysret(); STP_KOUT(); } "
	"r_; })\n"
	"#define STP_KPROBEMOD(d, i) ({ __u64 a_ = (__u64)STP_KADDR(); int ok_; "
	"__u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; "
	"ok_ = a_ && stp_kmod(a_); w_ = bpf_map_lookup_elem(&stp_kwk, &z_); "
	"(d)[0] = 0; if (ok_ && w_) bpf_probe_read_kernel(d, STP_STR, w_->s); "
	"STP_KOUT(); if (!ok_) FAULT(i, a_); (d); })\n"
	/* the function whose trace call ran an alias's tracepoint: the
	 * first frame past the iterator (__traceiter_NAME), as the
	 * module's stp_stack_tp_caller */
	"static const char stp_ktiter[] = \"__traceiter_\";\n"
	"static long stp_ktp_step(__u32 i, void *c)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w || i >= w->n)\n\t\treturn 1;\n"
	"\t__u64 a = w->pcs[i & (STP_KRAW - 1)];\n"
	"\tw->sym[0] = 0;\n"
	"\tbpf_snprintf(w->sym, STP_STR, stp_ksfmt, &a, 8);\n"
	"\tif (!bpf_strncmp(w->sym, 12, stp_ktiter))\n\t\treturn 0;\n"
	"\tw->val = a;\n\treturn 1;\n}\n"
	"__attribute__((noinline)) long long stp_ktpcaller(void)\n{\n"
	"\t__u32 z = stp_klv();\n"
	"\tstruct stp_kwalk *w;\n"
	"\tstp_kwalk();\n"
	"\tw = bpf_map_lookup_elem(&stp_kwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->val = 0;\n"
	"\tbpf_loop(STP_KMAX, stp_ktp_step, 0, 0);\n"
	"\treturn (long long)w->val;\n}\n"
	"#define STP_KTPCALLER() ({ __u32 z0_ = stp_klv(); long long r_ = 0; "
	"struct stp_kipv *v_ = bpf_map_lookup_elem(&stp_kip, &z0_); "
	"if (v_ && (v_->flags & 1)) { STP_KIN(); r_ = stp_ktpcaller(); "
	"STP_KOUT(); } r_; })\n"
	"#define STP_KEMPTY(d) ((d)[0] = 0, (d))\n"
	/* print_stack(stk): the string to the loader, which prints it as
	 * the tapset's print_syms() (a kind 7 record, its id's top bit
	 * set) */
	"struct stp_kstr { struct stp_hdr h; char s[STP_STR]; };\n"
	"#define STP_KPRINT_STACK(stk) ({ struct stp_kstr *x_ = "
	"bpf_ringbuf_reserve(&stp_rb, sizeof(*x_), 0); if (x_) { x_->h.kind = 7; "
	"x_->h.id = 0x80000000u; bpf_probe_read_kernel_str(x_->s, STP_STR, (stk)); "
	"bpf_ringbuf_submit(x_, 0); } else __sync_fetch_and_add(&G.stp_lost, 1); 0; })\n"
	"#define STP_KSYMNAME(d, a) ({ __u64 a_ = (__u64)(a); __u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; "
	"stp_ksym(a_, 0); w_ = bpf_map_lookup_elem(&stp_kwk, &z_); (d)[0] = 0; "
	"if (w_) bpf_probe_read_kernel(d, STP_STR, w_->s); STP_KOUT(); (d); })\n"
	"#define STP_KSYMDATA(d, a) ({ __u64 a_ = (__u64)(a); __u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; "
	"stp_ksym(a_, 1); w_ = bpf_map_lookup_elem(&stp_kwk, &z_); (d)[0] = 0; "
	"if (w_) bpf_probe_read_kernel(d, STP_STR, w_->s); STP_KOUT(); (d); })\n"
	"#define STP_KPRINT() ({ STP_KIN(); stp_kprint(); STP_KOUT(); 0; })\n"
	/* __stack_raw(n), stack()'s: frame n, 0 past the stack's end */
	"#define STP_KSTACK_RAW(lvl) ({ long long n_ = (lvl), r_ = 0; __u32 z_ = (STP_KIN(), stp_klv()); "
	"struct stp_kwalk *w_; stp_kwalk(); w_ = bpf_map_lookup_elem(&stp_kwk, "
	"&z_); if (w_ && n_ >= 0 && n_ < w_->n && n_ < STP_KMAX) "
	"r_ = (long long)w_->pcs[n_ & (STP_KRAW - 1)]; STP_KOUT(); r_; })\n"
	"#define STP_KSBT(d) ({ __u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; "
	"stp_ksbt(); w_ = bpf_map_lookup_elem(&stp_kwk, &z_); (d)[0] = 0; "
	"if (w_) bpf_probe_read_kernel(d, STP_STR, w_->s); STP_KOUT(); (d); })\n"
	"#define STP_KCALLERS(d, i, lv) ({ long long n_ = (lv); int ok_ = 1; "
	"__u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; (d)[0] = 0; "
	"if (n_ >= -1) { ok_ = stp_kcallers(n_); "
	"w_ = bpf_map_lookup_elem(&stp_kwk, &z_); "
	"if (w_) bpf_probe_read_kernel(d, STP_STR, w_->s); } STP_KOUT(); "
	"if (!ok_) FAULT(i, n_); (d); })\n"
	"#define STP_KBACKTRACE(d) ({ __u32 z_ = (STP_KIN(), stp_klv()); struct stp_kwalk *w_; "
	"stp_kbt(STP_KMAX); w_ = bpf_map_lookup_elem(&stp_kwk, &z_); (d)[0] = 0; "
	"if (w_) bpf_probe_read_kernel(d, STP_STR, w_->s); STP_KOUT(); (d); })\n";


/* The tapset functions that read the probe's address: what a program
 * sets only on a tracepoint or a perf timer so far (refuse.c). */
bool bpf_kstack_needs_ip(const char *name)
{
	return !strcmp(name, "addr") || !strcmp(name, "probemod") ||
	       !strcmp(name, "__tp_alias_caller") ||
	       !strcmp(name, "__sysc_probefunc") ||
	       !strcmp(name, "__sysc_return_caller");
}

/* The tapset's script functions this backend has its own versions of in
 * both halves (tapset.c's entries): print_stack() and sprint_stack(),
 * whose bodies tokenize, which kernel probes cannot. */
bool bpf_kstack_native(const char *name)
{
	return !strcmp(name, "print_stack") || !strcmp(name, "sprint_stack");
}

static bool uses(const struct program *prog, const char *name)
{
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (f->used && f->sym && !strcmp(f->sym->name, name))
			return true;
	}
	return false;
}

/* The kernel functions of the system calls by number (sysc_entry.c),
 * 64-bit tasks' then 32-bit tasks', for STP_KSYSCFN: .rodata the
 * program indexes by the number. */
static void emit_sysc_entries(FILE *out)
{
	int n = bpf_sysc_nentry64 > bpf_sysc_nentry32 ? bpf_sysc_nentry64 :
		bpf_sysc_nentry32;
	size_t len = 1;

	for (int w = 0; w < 2; w++) {
		const char *const *tab = w ? bpf_sysc_entry32 : bpf_sysc_entry64;
		int nw = w ? bpf_sysc_nentry32 : bpf_sysc_nentry64;
		for (int i = 0; i < nw; i++)
			if (tab[i] && strlen(tab[i]) + 1 > len)
				len = strlen(tab[i]) + 1;
	}
	fprintf(out, "#define STP_KSYSN %d\n#define STP_KSYSL %zu\n"
		"static const char stp_ksysfn[2][STP_KSYSN][STP_KSYSL] = {\n",
		n, len);
	for (int w = 0; w < 2; w++) {
		const char *const *tab = w ? bpf_sysc_entry32 : bpf_sysc_entry64;
		int nw = w ? bpf_sysc_nentry32 : bpf_sysc_nentry64;
		fputs("\t{", out);
		for (int i = 0; i < nw; i++)
			if (tab[i])
				fprintf(out, " [%d] = \"%s\",", i, tab[i]);
		fputs(" },\n", out);
	}
	fputs("};\n", out);
}

/* Whether the program's kernel probes use the stacks or ask for the
 * probe's address: then each program sets it (STP_KSETIP, attach*.c),
 * which a walk in kernel.function reads too. */
bool bpf_kstack_uses_ip(const struct program *prog)
{
	bool used = false;

	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		used |= f->used && f->sym &&
			(!strcmp(f->sym->name, "print_backtrace") ||
			 !strcmp(f->sym->name, "backtrace") ||
			 !strcmp(f->sym->name, "sprint_backtrace") ||
			 !strcmp(f->sym->name, "callers") ||
			 !strcmp(f->sym->name, "modname") ||
			 bpf_kstack_needs_ip(f->sym->name) ||
			 !strcmp(f->sym->name, "print_stack") ||
			 !strcmp(f->sym->name, "sprint_stack") ||
			 !strcmp(f->sym->name, "__stack_raw") ||
			 !strcmp(f->sym->name, "symname") ||
			 !strcmp(f->sym->name, "symdata"));
	}
	return used;
}

void bpf_emit_kstack(struct program *prog, FILE *out)
{
	if (bpf_kstack_uses_ip(prog))
		fprintf(out, "/* kernel stacks (bpf/kstack.c) */\n"
			"#define STP_KRAW %d\n#define STP_KMAX %d\n"
			"#define STP_KLV 4\n%s",
			KSTACK_RAW, KSTACK_MAX, kstack_c);
	if (uses(prog, "__sysc_probefunc"))
		emit_sysc_entries(out);
}
