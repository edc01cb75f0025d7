// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_PROCESS on the BPF backend: process[("PATH")|(PID)].begin,
 * .end, .thread.begin, .thread.end, .syscall and .syscall.return, on the
 * tracepoints the module backend uses (runtime/process.c, whose rules
 * this follows step for step): sched_process_fork, _exec and _exit and
 * raw_syscalls' sys_enter and sys_exit, one raw_tp program each, shared
 * by every process probe: each runs the bodies of the probes of its
 * event whose filter matches the running task.
 *
 * - The tasks' table (a hash map by thread ID: the executable's identity
 *   and a pending begin) is kept only when a begin or end probe exists.
 *   Fork records the child with its begin pending; the child's first
 *   system call event (its return from fork) runs it, in the child.
 *   Tasks running when the probes are attached are recorded by the
 *   loader (bpf_process_scan, loader_process.c, from /proc), pending too: each begins at
 *   its next system call event. A count of pending begins (an mmapable
 *   array the loader adds to) spares the table's lookup on every system
 *   call once none is left.
 * - exec ends the old image (when the task has a parent other than
 *   init and its begin ran) and begins the new one; exit is .thread.end,
 *   or .end when the thread group is dead and its leader's entry says
 *   so (the leader's entry decides, as in the module).
 * - A filter is the thread group's ID, an executable or nothing. An
 *   executable is its inode's identity (number and the kernel's device
 *   number), which the loader stat()s when the run starts (stp_pexes);
 *   a path that does not exist matches nothing. The running task's comes from task->mm->exe_file through
 *   CO-RE reads of local declarations (___stpproc).
 *
 * A table entry is written only by the task it describes (its fork's
 * parent before the child runs, the loader's scan before it exists in
 * the table, the leader's leader_gone by a thread of its group), so the
 * program needs no lock.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "semantic/semantic.h"

/* ---- pass 3 ------------------------------------------------------------- */

static const char decls[] =
	"#define STP_PF_KTHREAD 0x00200000\n"
	"#define STP_PAI __attribute__((preserve_access_index))\n"
	"struct super_block___stpproc { unsigned int s_dev; } STP_PAI;\n"
	"struct inode___stpproc { unsigned long i_ino; "
	"struct super_block___stpproc *i_sb; } STP_PAI;\n"
	"struct file___stpproc { struct inode___stpproc *f_inode; } STP_PAI;\n"
	"struct mm_struct___stpproc { struct file___stpproc *exe_file; } "
	"STP_PAI;\n"
	"struct atomic___stpproc { int counter; } STP_PAI;\n"
	"struct signal_struct___stpproc { struct atomic___stpproc live; } "
	"STP_PAI;\n"
	"struct task_struct___stpproc { int pid; int tgid; unsigned int flags; "
	"struct mm_struct___stpproc *mm; struct task_struct___stpproc "
	"*real_parent; struct signal_struct___stpproc *signal; } STP_PAI;\n"
	"struct pt_regs___stpproc { unsigned long di, si, dx, r10, r8, r9, "
	"orig_ax; } STP_PAI;\n"
	/* keep in step with struct bpf_proc_task (the loader's scan) */
	"struct stp_ptask { unsigned long long ino; unsigned int dev, pending, "
	"leader_gone, pad; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, 65536); "
	"__type(key, __u32); __type(value, struct stp_ptask); } stp_ptasks "
	"SEC(\".maps\");\n"
	/* keep in step with struct bpf_proc_exe (the loader's) */
	"struct stp_pexe { unsigned long long ino; unsigned int dev, pad; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); "
	"__uint(map_flags, BPF_F_MMAPABLE); __type(key, __u32); "
	"__type(value, __u64); } stp_ppend SEC(\".maps\");\n"
	/* the executable of task t: its inode's number and device */
	"static __always_inline void stp_pexe(struct task_struct___stpproc *t, "
	"unsigned long long *ino, unsigned int *dev)\n{\n"
	"\tstruct mm_struct___stpproc *mm = BPF_CORE_READ(t, mm);\n"
	"\tstruct file___stpproc *f = mm ? BPF_CORE_READ(mm, exe_file) : 0;\n"
	"\tstruct inode___stpproc *i = f ? BPF_CORE_READ(f, f_inode) : 0;\n"
	"\t*ino = 0;\n\t*dev = 0;\n"
	"\tif (!i)\n\t\treturn;\n"
	"\t*ino = BPF_CORE_READ(i, i_ino);\n"
	"\t*dev = BPF_CORE_READ(i, i_sb, s_dev);\n}\n"
	"static __always_inline void stp_ppend_add(long long n)\n{\n"
	"\t__u32 z = 0;\n\t__u64 *c = bpf_map_lookup_elem(&stp_ppend, &z);\n"
	"\tif (c)\n\t\t__sync_fetch_and_add(c, n);\n}\n";

static const char *const event_c[] = {
	[PROC_BEGIN] = "BEGIN", [PROC_END] = "END",
	[PROC_THREAD_BEGIN] = "THREAD_BEGIN", [PROC_THREAD_END] = "THREAD_END",
	[PROC_SYSCALL] = "SYSCALL", [PROC_SYSCALL_RETURN] = "SYSCALL_RETURN",
};

/* The executables the filters name, each once, in order (n of them). */
static const char **exes_of(struct program *prog, int *n)
{
	const char **v = NULL;
	int cap = 0;

	*n = 0;
	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		const char *exe = dp->attach.filter.exe;
		bool seen = false;
		if (bpf_place_of(dp, NULL, NULL) != BPF_PLACE_PROCESS || !exe)
			continue;
		for (int i = 0; i < *n; i++)
			seen |= !strcmp(v[i], exe);
		if (!seen)
			VEC_PUSH(v, *n, cap, exe);
	}
	return v;
}

/* The C condition of dp's filter over tgid, ino and dev: an executable
 * is the identity the loader finds for its path when the run starts
 * (stp_pexes[i], bpf_process_exes), as the module resolves it then. */
static void filter_c(struct program *prog, const struct derived_probe *dp,
		     FILE *out)
{
	const struct task_filter *f = &dp->attach.filter;
	int n;
	const char **exes = exes_of(prog, &n);

	fputs("1", out);
	if (f->pid)
		fprintf(out, " && tgid == %lld", (long long)f->pid);
	for (int i = 0; f->exe && i < n; i++)
		if (!strcmp(exes[i], f->exe))
			fprintf(out, " && stp_pexe_is(%d, ino, dev)", i);
	free(exes);
}

/* stp_pfire_EVENT: the bodies of event e's probes whose filter matches
 * the running task (its executable ino/dev), values from raw. */
static void emit_fire(struct program *prog, enum process_event e, FILE *out)
{
	int np = 0;

	fprintf(out, "static __always_inline void stp_pfire_%s(unsigned long "
		"long ino, unsigned int dev, const long long *raw)\n{\n"
		"\tint tgid = (int)(bpf_get_current_pid_tgid() >> 32);\n"
		"\tstruct stp_scratch *S;\n\t__u32 z = 0;\n"
		"\t(void)tgid; (void)raw; (void)ino; (void)dev;\n"
		"\tS = STP_SCRATCH();\n"
		/* dropped while another of our programs runs on this CPU
		 * (attach.c's scratch_decl) */
		"\tif (!S || S->busy)\n\t\treturn;\n\tS->busy = 1;\n",
		event_c[e]);
	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		enum bpf_place p = bpf_place_of(dp, NULL, NULL);

		if (!bpf_place_in_kernel(p))
			continue;
		if (p == BPF_PLACE_PROCESS && dp->attach.process.event == e) {
			fputs("\tif (", out);
			filter_c(prog, dp, out);
			fprintf(out, ") {\n\t\tif (G.stp_exit) {\n"
				"\t\t\tS->busy = 0;\n\t\t\treturn;\n\t\t}\n"
				"\t\tS->fm = 0;\n\t\tS->probe = %d;\n", np);
			for (int k = 0; k < dp->attach.nvalues; k++)
				if (dp->attach.values[k])
					fprintf(out, "\t\tS->c[%d] = raw[%d];\n", k,
						dp->attach.values[k]->arg);
			/* $return: the body reads it as the kernel's
			 * .return probes do (S->ret) */
			if (e == PROC_SYSCALL_RETURN)
				fprintf(out, "\t\tS->ret = raw[%d];\n",
					PROC_VALUE_RETURN);
			/* addr(): 0, the module's process.* events have
			 * no registers */
			if (bpf_kstack_uses_ip(prog))
				fprintf(out, "\t\tSTP_KSETIP(0, 0);\n\t\t"
					"stp_b%d();\n\t\tSTP_KOUT();\n\t}\n",
					dp->body->index);
			else
				fprintf(out, "\t\tstp_b%d();\n\t}\n",
					dp->body->index);
		}
		np++;
	}
	fputs("\tS->busy = 0;\n}\n", out);
}

/* The events some probe has: bit e for process_event e. */
static unsigned events_of(struct program *prog)
{
	unsigned ev = 0;

	for (int j = 0; j < prog->nprobes; j++)
		if (bpf_place_of(prog->probes[j], NULL, NULL) ==
		    BPF_PLACE_PROCESS)
			ev |= 1u << prog->probes[j]->attach.process.event;
	return ev;
}

#define HAS(ev, e) ((ev) & (1u << (e)))
#define BEGINS(ev) (HAS(ev, PROC_BEGIN) || HAS(ev, PROC_THREAD_BEGIN))
#define TRACKS(ev) (BEGINS(ev) || HAS(ev, PROC_END) || HAS(ev, PROC_THREAD_END))

/* What event e's probes read: bit k for raw[k] (PROC_VALUE_*), and
 * whether a filter names an executable. */
static unsigned reads_of(struct program *prog, enum process_event e,
			 bool *exe)
{
	unsigned need = 0;

	*exe = false;
	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		if (bpf_place_of(dp, NULL, NULL) != BPF_PLACE_PROCESS ||
		    dp->attach.process.event != e)
			continue;
		*exe |= dp->attach.filter.exe != NULL;
		for (int k = 0; k < dp->attach.nvalues; k++)
			if (dp->attach.values[k])
				need |= 1u << dp->attach.values[k]->arg;
		if (e == PROC_SYSCALL_RETURN)
			need |= 1u << PROC_VALUE_RETURN;	/* S->ret */
	}
	return need;
}

/* A system call event: a pending begin first, then the event's probes
 * (reading only the registers and the executable they need: each read
 * is a helper call on every system call of the machine). */
static void emit_syscall(struct program *prog, unsigned ev, bool ret,
			 FILE *out)
{
	static const char *const regs[] = { NULL, "di", "si", "dx", "r10",
					    "r8", "r9" };
	enum process_event e = ret ? PROC_SYSCALL_RETURN : PROC_SYSCALL;
	bool exe;
	unsigned need = reads_of(prog, e, &exe);

	fprintf(out, "SEC(\"raw_tp/%s\") int stp_psys_%s(unsigned long long "
		"*ctx)\n{\n"
		"\tstruct task_struct___stpproc *t = (void *)"
		"bpf_get_current_task();\n"
		"\tif (G.stp_exit || !BPF_CORE_READ(t, mm))\n\t\treturn 0;\n",
		ret ? "sys_exit" : "sys_enter", ret ? "exit" : "enter");
	if (BEGINS(ev))
		fputs("\tstp_pbegin_pending(t);\n", out);
	if (!HAS(ev, e)) {
		fputs("\treturn 0;\n}\n", out);
		return;
	}
	fputs("\tstruct pt_regs___stpproc *regs = (void *)ctx[0];\n"
	      "\tlong long raw[8] = { 0 };\n"
	      "\tunsigned long long ino = 0;\n\tunsigned int dev = 0;\n"
	      "\t(void)regs;\n", out);
	if (need & (1u << PROC_VALUE_SYSCALL))
		fputs(ret ? "\traw[0] = (long long)BPF_CORE_READ(regs, orig_ax);"
			    "\n" : "\traw[0] = (long long)ctx[1];\n", out);
	if (ret && (need & (1u << PROC_VALUE_RETURN)))
		fputs("\traw[7] = (long long)ctx[1];\n", out);
	for (int k = 1; !ret && k <= 6; k++)
		if (need & (1u << k))
			fprintf(out, "\traw[%d] = (long long)BPF_CORE_READ(regs, "
				"%s);\n", k, regs[k]);
	if (exe)
		fputs("\tstp_pexe(t, &ino, &dev);\n", out);
	fprintf(out, "\tstp_pfire_%s(ino, dev, raw);\n\treturn 0;\n}\n",
		event_c[e]);
}

/* fork, exec and exit: the tasks' table and begin/end */
static const char track_c[] =
	/* a pending begin of the running task, at a system call event */
	"static __always_inline void stp_pbegin_pending("
	"struct task_struct___stpproc *t)\n{\n"
	"\t__u32 z = 0;\n\t__u64 *n = bpf_map_lookup_elem(&stp_ppend, &z);\n"
	"\tif (!n || !*n)\n\t\treturn;\n"
	"\t__u32 tid = (__u32)bpf_get_current_pid_tgid();\n"
	"\tstruct stp_ptask *e = bpf_map_lookup_elem(&stp_ptasks, &tid);\n"
	"\tif (!e || !e->pending)\n\t\treturn;\n"
	"\tunsigned int p = e->pending;\n"
	"\te->pending = 0;\n\t__sync_fetch_and_add(n, -1);\n"
	"\tunsigned long long ino;\n\tunsigned int dev;\n"
	"\tstp_pexe(t, &ino, &dev);\n"
	"\tif (p == 1)\n\t\tstp_pfire_BEGIN(ino, dev, 0);\n"
	"\telse\n\t\tstp_pfire_THREAD_BEGIN(ino, dev, 0);\n}\n"
	/* in the parent: the child begins at its first system call event */
	"SEC(\"raw_tp/sched_process_fork\") int stp_pfork(unsigned long long "
	"*ctx)\n{\n"
	"\tstruct task_struct___stpproc *c = (void *)ctx[1];\n"
	"\tif (!BPF_CORE_READ(c, mm) || (BPF_CORE_READ(c, flags) & "
	"STP_PF_KTHREAD))\n\t\treturn 0;\n"
	"\tstruct stp_ptask v = { 0 };\n"
	"\t__u32 tid = (__u32)BPF_CORE_READ(c, pid);\n"
	"\tstp_pexe(c, &v.ino, &v.dev);\n"
	"\tv.pending = STP_PBEGINS ? (tid == (__u32)BPF_CORE_READ(c, tgid) ? "
	"1 : 2) : 0;\n"
	"\tstruct stp_ptask *e = bpf_map_lookup_elem(&stp_ptasks, &tid);\n"
	"\tif (e) {\n"
	"\t\tif (v.pending && !e->pending)\n\t\t\tstp_ppend_add(1);\n"
	"\t\te->ino = v.ino;\n\t\te->dev = v.dev;\n"
	"\t\te->pending = v.pending;\n\t\te->leader_gone = 0;\n"
	"\t} else if (!bpf_map_update_elem(&stp_ptasks, &tid, &v, BPF_NOEXIST) "
	"&& v.pending) {\n\t\tstp_ppend_add(1);\n\t}\n"
	"\treturn 0;\n}\n"
	/* the old image ends (when forked and begun), the new one begins */
	"SEC(\"raw_tp/sched_process_exec\") int stp_pexec(unsigned long long "
	"*ctx)\n{\n"
	"\tstruct task_struct___stpproc *t = (void *)bpf_get_current_task();\n"
	"\tunsigned long long ino, oino = 0;\n\tunsigned int dev, odev = 0, "
	"pend = 0;\n"
	"\t__u32 tid = (__u32)bpf_get_current_pid_tgid();\n"
	"\tstp_pexe(t, &ino, &dev);\n"
	"\tstruct stp_ptask *e = bpf_map_lookup_elem(&stp_ptasks, &tid);\n"
	"\tif (e) {\n\t\toino = e->ino;\n\t\todev = e->dev;\n"
	"\t\te->ino = ino;\n\t\te->dev = dev;\n"
	"\t\tif (e->pending) {\n\t\t\tpend = e->pending;\n"
	"\t\t\te->pending = 0;\n\t\t\tstp_ppend_add(-1);\n\t\t}\n\t}\n"
	"\tif (pend != 1 && BPF_CORE_READ(t, real_parent, pid) > 1)\n"
	"\t\tstp_pfire_END(oino, odev, 0);\n"
	"\tstp_pfire_BEGIN(ino, dev, 0);\n"
	"\treturn 0;\n}\n"
	/* a thread's end, or its process's (runtime/process.c's
	 * stp_proc_exit_entry: the leader's entry decides) */
	"SEC(\"raw_tp/sched_process_exit\") int stp_pexit(unsigned long long "
	"*ctx)\n{\n"
	"\tstruct task_struct___stpproc *p = (void *)ctx[0];\n"
	"\tif (BPF_CORE_READ(p, flags) & STP_PF_KTHREAD)\n\t\treturn 0;\n"
	"\tstruct signal_struct___stpproc *sig = BPF_CORE_READ(p, signal);\n"
	"\tint live = 0;\n"
	"\tif (sig)\n\t\tbpf_core_read(&live, sizeof(live), "
	"&sig->live.counter);\n"
	"\t__u32 pid = (__u32)BPF_CORE_READ(p, pid), tgid = (__u32)"
	"BPF_CORE_READ(p, tgid);\n"
	"\tint is_leader = pid == tgid, end = 0;\n"
	"\tunsigned long long ino = 0;\n\tunsigned int dev = 0;\n"
	"\tstruct stp_ptask *e = bpf_map_lookup_elem(&stp_ptasks, &pid);\n"
	"\tif (e) {\n\t\tino = e->ino;\n\t\tdev = e->dev;\n"
	"\t\tif (e->pending) {\n\t\t\te->pending = 0;\n"
	"\t\t\tstp_ppend_add(-1);\n\t\t}\n\t}\n"
	"\tstruct stp_ptask *l = bpf_map_lookup_elem(&stp_ptasks, &tgid);\n"
	"\tif (l) {\n"
	"\t\tif (!live && (is_leader || l->leader_gone))\n\t\t\tend = 1;\n"
	"\t\telse if (is_leader)\n\t\t\tl->leader_gone = 1;\n"
	"\t}\n"
	"\tif (e && !is_leader)\n\t\tbpf_map_delete_elem(&stp_ptasks, &pid);\n"
	"\tif (end) {\n\t\tif (l->pending)\n\t\t\tstp_ppend_add(-1);\n"
	"\t\tbpf_map_delete_elem(&stp_ptasks, &tgid);\n"
	"\t\tstp_pfire_END(ino, dev, 0);\n"
	"\t} else {\n\t\tstp_pfire_THREAD_END(ino, dev, 0);\n\t}\n"
	"\treturn 0;\n}\n";

void bpf_process_programs(struct program *prog, FILE *out)
{
	unsigned ev = events_of(prog);

	if (!ev)
		return;
	int nexes;
	free(exes_of(prog, &nexes));
	fputs(decls, out);
	fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_ARRAY); "
		"__uint(max_entries, %d); __type(key, __u32); __type(value, "
		"struct stp_pexe); } stp_pexes SEC(\".maps\");\n"
		"static __always_inline int stp_pexe_is(__u32 i, unsigned long "
		"long ino, unsigned int dev)\n{\n"
		"\tstruct stp_pexe *x = bpf_map_lookup_elem(&stp_pexes, &i);\n"
		"\treturn x && x->ino && x->ino == ino && x->dev == dev;\n}\n",
		nexes ? nexes : 1);
	for (int e = PROC_BEGIN; e <= PROC_SYSCALL_RETURN; e++)
		emit_fire(prog, (enum process_event)e, out);
	fprintf(out, "#define STP_PBEGINS %d\n", BEGINS(ev) ? 1 : 0);
	if (TRACKS(ev))
		fputs(track_c, out);
	if (BEGINS(ev) || HAS(ev, PROC_SYSCALL))
		emit_syscall(prog, ev, false, out);
	if (BEGINS(ev) || HAS(ev, PROC_SYSCALL_RETURN))
		emit_syscall(prog, ev, true, out);
}

/* The loader's: whether to record the running tasks, and with begins. */
void bpf_emit_process_table(struct program *prog, FILE *out)
{
	unsigned ev = events_of(prog);

	int n;
	const char **exes = exes_of(prog, &n);

	fprintf(out, "const int stp_proc_scan = %d;\n", !TRACKS(ev) ? 0 :
		BEGINS(ev) ? 2 : 1);
	fputs("const char *const stp_proc_exes[] = { ", out);
	for (int i = 0; i < n; i++) {
		fputc('"', out);
		for (const char *c = exes[i]; *c; c++)
			fprintf(out, *c == '"' || *c == '\\' ? "\\%c" :
				(unsigned char)*c < ' ' ? "\\%03o" : "%c", *c);
		fputs("\", ", out);
	}
	fputs("NULL };\n", out);
	free(exes);
}
