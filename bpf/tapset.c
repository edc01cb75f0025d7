// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF backend's own versions of the tapset functions whose linux/
 * bodies are embedded kernel C (and of builtins such as kernel_string):
 * each as C for the kernel half (BPF helpers, CO-RE reads through the
 * prelude's preserve_access_index structs) and for the loader's half
 * (begin, end and timers run in the loader, as the module's run in
 * staprun's context). A call resolves as for the module backend (the
 * linux/ tapset's signature, so both backends elaborate the same
 * program and the automatic choice of backend can ask this one about
 * the module's pass 2); pass 2 (refuse.c) accepts it and pass 3 (emit.c)
 * writes the C instead of calling the tapset's body.
 *
 * An entry is an expression, or a macro of the prelude when it ends in
 * '(': the call's arguments follow, after the string result's temporary
 * (string functions) and after the fault's error id (entries with a
 * fault text, the module's error for a read that faults).
 */
#include <string.h>

#include "bpf/bpf.h"
#include "bpf/emit.h"
#include "lib/strbuf.h"
#include "semantic/semantic.h"

/* the module's texts of a fault: a kernel conversion's, and a read's
 * (stp_kread and stp_uread) */
#define KFAULT(what) "kernel " what " copy fault at 0x%llx [man error::fault]"
#define READ_FAULT "read fault [man error::fault] at 0x%llx"

static const struct bpf_tapset_fn {
	const char *name;
	int nargs;
	const char *kernel, *user;	/* NULL: not in that half */
	const char *fault;		/* a macro's error text, or NULL */
} fns[] = {
	{ "uid", 0, "((long long)(unsigned)bpf_get_current_uid_gid())",
	  "((long long)getuid())", NULL },
	{ "gid", 0, "((long long)(bpf_get_current_uid_gid() >> 32))",
	  "((long long)getgid())", NULL },
	{ "euid", 0, "stp_task_euid()", "((long long)geteuid())", NULL },
	{ "egid", 0, "stp_task_egid()", "((long long)getegid())", NULL },
	{ "ppid", 0, "stp_task_ppid()", "((long long)getppid())", NULL },
	/* the loader's parent is not staprun's: refused in its probes */
	{ "pexecname", 0, "stp_task_pcomm(", NULL, NULL },
	{ "pgrp", 0, "stp_task_pidnr(2)", "((long long)getpgrp())", NULL },
	{ "sid", 0, "stp_task_pidnr(3)", "((long long)getsid(0))", NULL },
	{ "ktime_get_ns", 0, "((long long)bpf_ktime_get_ns())",
	  "stp_clock_ns(CLOCK_MONOTONIC)", NULL },
	{ "jiffies", 0, "((long long)bpf_jiffies64())", NULL, NULL },
	{ "gettimeofday_ns", 0, "NOW_NS()", "NOW_NS()", NULL },
	{ "gettimeofday_us", 0, "(NOW_NS() / 1000)", "(NOW_NS() / 1000)",
	  NULL },
	{ "gettimeofday_ms", 0, "(NOW_NS() / 1000000)",
	  "(NOW_NS() / 1000000)", NULL },
	{ "gettimeofday_s", 0, "(NOW_NS() / 1000000000)",
	  "(NOW_NS() / 1000000000)", NULL },
	{ "user_string_n", 2, "USER_STRING_N(", "USER_STRING_N(",
	  "user string copy fault -14 at 0x%llx [man error::fault]" },
	{ "__stp_maxstringlen", 0, "((long long)STP_STR)",
	  "((long long)STP_STR)", NULL },
	/* a builtin: a task's comm ($task->comm) and other kernel strings;
	 * the loader reads no kernel memory */
	{ "kernel_string", 1, "KERNEL_STRING(", NULL,
	  "kernel string copy fault at 0x%llx [man error::fault]" },
	/* the syscall tapset's helpers (linux/x86_64/syscall_regs*.stp,
	 * syscalls_aux.stp) over raw_syscalls' $regs; the quoted user
	 * string escapes as __stp_sysc_text does, in a bpf_loop step */
	{ "__sysc_compat", 0, "stp_task_compat()", "0LL", NULL },
	{ "__sysc_arg", 2, "STP_SYSC_ARG(", NULL, NULL },
	{ "__sysc_int", 2, "STP_SYSC_INT(", NULL, NULL },
	{ "__sysc_uint", 2, "STP_SYSC_UINT(", NULL, NULL },
	{ "__sysc_nr", 1, "STP_SYSC_NR(", NULL, NULL },
	{ "__sysc_ustr", 1, "STP_SYSC_USTR(", NULL, NULL },
	{ "__sysc_ustr_quoted", 1, "STP_SYSC_USTR_QUOTED(", NULL, NULL },
	{ "__sysc32_arg", 2, "STP_SYSC32_ARG(", NULL, NULL },
	{ "__sysc32_int", 2, "STP_SYSC32_INT(", NULL, NULL },
	{ "__sysc32_uint", 2, "STP_SYSC32_ARG(", NULL, NULL },
	{ "signal_str", 1, "STP_SIGNAL_STR(", "STP_SIGNAL_STR(", NULL },
	{ "__sysc_signal_name", 1, "STP_SYSC_SIGNAL_NAME(",
	  "STP_SYSC_SIGNAL_NAME(", NULL },
	{ "errno_str", 1, "STP_ERRNO_STR(", "STP_ERRNO_STR(", NULL },
	{ "errno_p", 1, "STP_ERRNO_P(", "STP_ERRNO_P(", NULL },
	{ "__sysc_errno_str", 1, "STP_SYSC_ERRNO_STR(", "STP_SYSC_ERRNO_STR(",
	  NULL },
	{ "__sysc_errno_p", 1, "STP_SYSC_ERRNO_P(", "STP_SYSC_ERRNO_P(", NULL },
	/* the decoders of flag and number arguments (prelude_sysc.c) */
	{ "__sysc_open_flags", 1, "STP_SYSC_OPEN_FLAGS(",
	  "STP_SYSC_OPEN_FLAGS(", NULL },
	{ "__sysc_dup3_flags", 1, "STP_SYSC_DUP3_FLAGS(",
	  "STP_SYSC_DUP3_FLAGS(", NULL },
	{ "__sysc_pipe2_flags", 1, "STP_SYSC_PIPE2_FLAGS(",
	  "STP_SYSC_PIPE2_FLAGS(", NULL },
	{ "__sysc_at_flags", 1, "STP_SYSC_AT_FLAGS(", "STP_SYSC_AT_FLAGS(",
	  NULL },
	{ "__sysc_access_mode", 1, "STP_SYSC_ACCESS_MODE(",
	  "STP_SYSC_ACCESS_MODE(", NULL },
	{ "__sysc_whence", 1, "STP_SYSC_WHENCE(", "STP_SYSC_WHENCE(", NULL },
	{ "__sysc_fcntl_cmd", 1, "STP_SYSC_FCNTL_CMD(", "STP_SYSC_FCNTL_CMD(",
	  NULL },
	{ "__sysc_prot", 1, "STP_SYSC_PROT(", "STP_SYSC_PROT(", NULL },
	{ "__sysc_mmap_flags", 1, "STP_SYSC_MMAP_FLAGS(",
	  "STP_SYSC_MMAP_FLAGS(", NULL },
	{ "__sysc_clone_flags", 1, "STP_SYSC_CLONE_FLAGS(",
	  "STP_SYSC_CLONE_FLAGS(", NULL },
	{ "__sysc_wait4_opts", 1, "STP_SYSC_WAIT4_OPTS(",
	  "STP_SYSC_WAIT4_OPTS(", NULL },
	{ "__sysc_sockaddr_u", 3, "STP_SYSC_SOCKADDR_U(", NULL, NULL },
	{ "__sysc_argv", 1, "STP_SYSC_ARGV(", NULL, NULL },
	{ "__sysc32_argv", 1, "STP_SYSC32_ARGV(", NULL, NULL },
	/* ctime.stp's errors, one id each (lines of the fault text) */
	{ "ctime", 1, "STP_CTIME(", "STP_CTIME(",
	  "Time too far in the future to be converted\n"
	  "Time too far in the past to be converted" },
	{ "__sysc_sock_type", 1, "STP_SYSC_SOCK_TYPE(", "STP_SYSC_SOCK_TYPE(",
	  NULL },
	{ "__sysc_sock_protocol", 2, "STP_SYSC_SOCK_PROTOCOL(",
	  "STP_SYSC_SOCK_PROTOCOL(", NULL },
	{ "__sysc_futex_wake_op", 1, "STP_SYSC_FUTEX_WAKE_OP(",
	  "STP_SYSC_FUTEX_WAKE_OP(", NULL },
	{ "__sysc_sigmask", 1, "STP_SYSC_SIGMASK(", "STP_SYSC_SIGMASK(", NULL },
	{ "__sysc_clockid", 1, "STP_SYSC_CLOCKID(", "STP_SYSC_CLOCKID(", NULL },
	{ "__sysc_clock_flags", 1, "STP_SYSC_CLOCK_FLAGS(",
	  "STP_SYSC_CLOCK_FLAGS(", NULL },
	{ "__sysc_itimer_which", 1, "STP_SYSC_ITIMER_WHICH(",
	  "STP_SYSC_ITIMER_WHICH(", NULL },
	{ "__sysc_umount_flags", 1, "STP_SYSC_UMOUNT_FLAGS(",
	  "STP_SYSC_UMOUNT_FLAGS(", NULL },
	{ "__sysc_sighandler", 1, "STP_SYSC_SIGHANDLER(", "STP_SYSC_SIGHANDLER(",
	  NULL },
	{ "__sysc_sock_flags", 1, "STP_SYSC_SOCK_FLAGS(", "STP_SYSC_SOCK_FLAGS(",
	  NULL },
	{ "__sysc_sock_family", 1, "STP_SYSC_SOCK_FAMILY(",
	  "STP_SYSC_SOCK_FAMILY(", NULL },
	{ "__sysc_futex_op", 1, "STP_SYSC_FUTEX_OP(", "STP_SYSC_FUTEX_OP(",
	  NULL },
	/* the kernel's version picks the table; user memory: kernel only */
	{ "__sysc_msg_flags", 1, "STP_SYSC_MSG_FLAGS(", NULL, NULL },
	{ "__sysc_uword", 2, "STP_SYSC_UWORD(", NULL, NULL },
	{ "__sysc_uword_int", 2, "STP_SYSC_UWORD_INT(", NULL, NULL },
	{ "__sysc_uint32", 1, "STP_SYSC_UINT32(", NULL, NULL },
	{ "__sysc_fildes", 2, "STP_SYSC_FILDES(", NULL, NULL },
	{ "__sysc_timespec_u", 2, "STP_SYSC_TIMESPEC_U(", NULL, NULL },
	{ "__sysc_xattr_val_str", 2, "STP_SYSC_XATTR_VAL(", NULL, NULL },
	{ "__sysc_timeval_u", 2, "STP_SYSC_TIMEVAL_U(", NULL, NULL },
	{ "__sysc32_timespec_u", 2, "STP_SYSC32_TIMESPEC_U(", NULL, NULL },
	{ "__sysc32_timeval_u", 2, "STP_SYSC32_TIMEVAL_U(", NULL, NULL },
	{ "__sysc_ubuf_quoted", 3, "STP_SYSC_UBUF_QUOTED(", NULL, NULL },
	{ "__sysc_sigset_u", 1, "STP_SYSC_SIGSET_U(", NULL, NULL },
	{ "__sysc_sigaction_u", 1, "STP_SYSC_SIGACTION_U(", NULL, NULL },
	{ "__sysc_sigprocmask_how", 1, "STP_SYSC_HOW(", "STP_SYSC_HOW(",
	  NULL },
	/* the kernel stack, named by the loader (kstack.c) */
	{ "print_backtrace", 0, "STP_KPRINT(", NULL, NULL },
	{ "backtrace", 0, "STP_KBACKTRACE(", NULL, NULL },
	{ "sprint_backtrace", 0, "STP_KSBT(", NULL, NULL },
	{ "callers", 1, "STP_KCALLERS(", NULL,
	  "reached end of stack before unwinding to level %lld" },
	{ "__stack_raw", 1, "STP_KSTACK_RAW(", NULL, NULL },
	/* script functions of the tapset, ours in both halves */
	{ "print_stack", 1, "STP_KPRINT_STACK(", "STP_PRINT_STACK(", NULL },
	{ "sprint_stack", 1, "STP_KSPRINT_STACK(", "STP_SPRINT_STACK(",
	  NULL },
	{ "modname", 1, "STP_KMODNAME(", NULL,
	  "Cannot determine kernel module name" },
	/* the probe's address: 0 where the module has no registers (a
	 * tracepoint, begin, end, timers but timer.profile, process.*);
	 * probefunc()'s syscall cases (kstack.c) */
	{ "addr", 0, "STP_KADDR()", "0LL", NULL },
	{ "probemod", 0, "STP_KPROBEMOD(", NULL,
	  "Cannot determine kernel module name" },
	{ "__tp_alias_caller", 0, "STP_KTPCALLER()", "0LL", NULL },
	{ "__sysc_probefunc", 0, "STP_KSYSCFN(", "STP_KEMPTY(", NULL },
	{ "__sysc_return_caller", 0, "STP_KSYSCRET()", "0LL", NULL },
	/* the kernel's symbols: in the loader from /proc/kallsyms, in the
	 * kernel by its own lookup (kstack.c) */
	{ "symname", 1, "STP_KSYMNAME(", "STP_SYMNAME(", NULL },
	{ "symdata", 1, "STP_KSYMDATA(", "STP_SYMDATA(", NULL },
	/* the probe point and its name, constants of the body (below) */
	{ "pp", 0, "(", "(", NULL },
	{ "pn", 0, "(", "(", NULL },
	{ "ppfunc", 0, "(", "(", NULL },
	{ "probe_type", 0, "(", "(", NULL },
	{ "is_return", 0, "(", "(", NULL },
	/* memory, tasks and conversions: bpf/prelude_task.c */
	{ "kernel_long", 1, "STP_KLONG(", NULL, KFAULT("long") },
	{ "kernel_int", 1, "STP_KINT(", NULL, KFAULT("int") },
	{ "kernel_short", 1, "STP_KSHORT(", NULL, KFAULT("short") },
	{ "kernel_char", 1, "STP_KCHAR(", NULL, KFAULT("char") },
	{ "kernel_pointer", 1, "STP_KPOINTER(", NULL, KFAULT("pointer") },
	{ "kernel_string_n", 2, "KERNEL_STRING_N(", NULL, KFAULT("string") },
	{ "kernel_string_quoted", 1, "KERNEL_STRING_QUOTED(", NULL, NULL },
	{ "atomic_read", 1, "STP_KINT(", NULL, READ_FAULT },
	{ "atomic_long_read", 1, "STP_KLONG(", NULL, READ_FAULT },
	{ "user_char_error", 1, "STP_UCHAR(", NULL, READ_FAULT },
	{ "user_short_error", 1, "STP_USHORT(", NULL, READ_FAULT },
	{ "user_ushort_error", 1, "STP_UUSHORT(", NULL, READ_FAULT },
	{ "user_int_error", 1, "STP_UINT(", NULL, READ_FAULT },
	{ "user_long_error", 1, "STP_ULONG(", NULL, READ_FAULT },
	{ "user_ulong_error", 1, "STP_UULONG(", NULL, READ_FAULT },
	{ "user_int8_error", 1, "STP_UCHAR(", NULL, READ_FAULT },
	{ "user_uint8_error", 1, "STP_UUINT8(", NULL, READ_FAULT },
	{ "user_int16_error", 1, "STP_USHORT(", NULL, READ_FAULT },
	{ "user_uint16_error", 1, "STP_UUSHORT(", NULL, READ_FAULT },
	{ "user_int32_error", 1, "STP_UINT(", NULL, READ_FAULT },
	{ "user_uint32_error", 1, "STP_UUINT32(", NULL, READ_FAULT },
	{ "user_int64_error", 1, "STP_UINT64(", NULL, READ_FAULT },
	{ "task_current", 0, "((long long)bpf_get_current_task())", NULL,
	  NULL },
	{ "task_parent", 1, "STP_TASK_PARENT(", NULL, READ_FAULT },
	{ "task_state", 1, "STP_TASK_STATE(", NULL, READ_FAULT },
	{ "task_pid", 1, "STP_TASK_PID(", NULL, READ_FAULT },
	{ "task_tid", 1, "STP_TASK_TID(", NULL, READ_FAULT },
	{ "task_prio", 1, "STP_TASK_PRIO(", NULL, READ_FAULT },
	{ "task_nice", 1, "STP_TASK_NICE(", NULL, READ_FAULT },
	{ "task_cpu", 1, "STP_TASK_CPU(", NULL, READ_FAULT },
	{ "task_uid", 1, "STP_TASK_UID(", NULL, READ_FAULT },
	{ "task_euid", 1, "STP_TASK_EUID(", NULL, READ_FAULT },
	{ "task_gid", 1, "STP_TASK_GID(", NULL, READ_FAULT },
	{ "task_egid", 1, "STP_TASK_EGID(", NULL, READ_FAULT },
	{ "task_execname", 1, "STP_TASK_COMM(", NULL, KFAULT("string") },
	{ "htonll", 1, "STP_BSWAP64(", "STP_BSWAP64(", NULL },
	{ "ntohll", 1, "STP_BSWAP64(", "STP_BSWAP64(", NULL },
	{ "big_endian8", 1, "STP_BSWAP64(", "STP_BSWAP64(", NULL },
	{ "htonl", 1, "STP_BSWAP32(", "STP_BSWAP32(", NULL },
	{ "ntohl", 1, "STP_BSWAP32(", "STP_BSWAP32(", NULL },
	{ "big_endian4", 1, "STP_BSWAP32(", "STP_BSWAP32(", NULL },
	{ "htons", 1, "STP_BSWAP16(", "STP_BSWAP16(", NULL },
	{ "ntohs", 1, "STP_BSWAP16(", "STP_BSWAP16(", NULL },
	{ "big_endian2", 1, "STP_BSWAP16(", "STP_BSWAP16(", NULL },
	{ "little_endian2", 1, "STP_LOW16(", "STP_LOW16(", NULL },
	{ "little_endian4", 1, "STP_LOW32(", "STP_LOW32(", NULL },
	{ "little_endian8", 1, "(long long)(", "(long long)(", NULL },
	{ "MAJOR", 1, "STP_MAJOR(", "STP_MAJOR(", NULL },
	{ "MINOR", 1, "STP_MINOR(", "STP_MINOR(", NULL },
	{ "MKDEV", 2, "STP_MKDEV(", "STP_MKDEV(", NULL },
	{ "usrdev2kerndev", 1, "STP_USRDEV2KERNDEV(", "STP_USRDEV2KERNDEV(",
	  NULL },
	{ "randint", 1, "STP_RANDINT(", "STP_RANDINT(", "range too wide" },
	{ "local_clock_ns", 0, "STP_LOCAL_CLOCK_NS()", "STP_LOCAL_CLOCK_NS()",
	  NULL },
	{ "warn", 1, "STP_WARN(", "STP_WARN(", NULL },
	{ "HZ", 0, "STP_HZ", "STP_HZ", NULL },
	/* begin and end run in the loader, as the module's in staprun */
	{ "stp_pid", 0, "G.stp_loader_pid", "((long long)getpid())", NULL },
};

static const struct bpf_tapset_fn *find(const char *name)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, name))
			return &fns[i];
	return NULL;
}

const char *bpf_tapset_expr(const char *name, bool kernel)
{
	const struct bpf_tapset_fn *f = find(name);

	if (!f)
		return bpf_ustack_expr(name, kernel);	/* ustack.c */
	return kernel ? f->kernel : f->user;
}

static void note_embedded(struct node *n, void *arg)
{
	if (n->kind == N_EMBEDDED)
		*(bool *)arg = true;
}

/* Has f embedded C in it: its body, or an expression (task_current()'s
 * &@cast(%{ current %}, ...), typed as in SystemTap)? Only a tapset's
 * (or -g) function can. */
static bool has_embedded(const struct script_func *f)
{
	bool any = f->embedded;

	if (!any)
		ast_visit(f->decl->func.body, note_embedded, &any);
	return any;
}

bool bpf_tapset_native(const struct script_func *f)
{
	return f->sym && find(f->sym->name) && has_embedded(f);
}

/* n's entry when it calls a tapset function that has embedded C, or a
 * builtin of that name, with the entry's arguments */
static const struct bpf_tapset_fn *entry_of(const struct node *n)
{
	const struct bpf_tapset_fn *f;
	int nargs = 0;

	if (n->kind != N_CALL || !n->sym || !(f = find(n->call.name)))
		return NULL;
	if (!(n->sym->kind == SYM_BUILTIN ||
	      (n->sym->kind == SYM_FUNCTION && n->sym->func &&
	       (has_embedded(n->sym->func) ||
		bpf_kstack_native(n->call.name)))))
		return NULL;
	ast_foreach(a, n->call.args)
		nargs++;
	return nargs == f->nargs ? f : NULL;
}

/* n's call of a user stack function: ustack.c's macros */
static bool ustack_call(const struct node *n)
{
	return n->kind == N_CALL && n->sym && n->sym->kind == SYM_FUNCTION &&
	       n->sym->func && bpf_ustack_expr(n->call.name, true);
}

const char *bpf_tapset_call(const struct node *n, bool kernel)
{
	const struct bpf_tapset_fn *f = entry_of(n);

	if (!f)
		return ustack_call(n) ?
		       bpf_ustack_expr(n->call.name, kernel) : NULL;
	return kernel ? f->kernel : f->user;
}

bool bpf_tapset_known(const struct node *n)
{
	return entry_of(n) != NULL || ustack_call(n);
}

void bpf_c_string(FILE *out, const char *v)
{
	struct strbuf sb = {0};

	sb_c_literal(&sb, v, strlen(v), false);
	fputs(sb_str(&sb), out);
	sb_free(&sb);
}

/* The probe constants: pp(), pn(), ppfunc(), probe_type(), is_return()
 * (bpf_emit_tapset_macro writes them as literals of the body). */
bool bpf_probe_constant_fn(const char *name)
{
	return !strcmp(name, "pp") || !strcmp(name, "pn") ||
	       !strcmp(name, "ppfunc") || !strcmp(name, "probe_type") ||
	       !strcmp(name, "is_return");
}

/*
 * Function fn's value in derived probe dp, as the module's tapset gives
 * it from its probe table (context.stp): NULL where it has none
 * (probe_type() of a uprobe: the module's error).
 */
static const char *probe_constant(struct arena *a, const char *fn,
				  const struct derived_probe *dp)
{
	enum attach_kind k = dp->attach.kind;

	if (!strcmp(fn, "pp"))
		return dp->pp;
	if (!strcmp(fn, "pn"))
		return dp->body->pn ? dp->body->pn : dp->pp;
	if (!strcmp(fn, "is_return"))
		return k == ATTACH_KFUNC_RETURN ? "1" : "0";
	if (!strcmp(fn, "probe_type"))
		return k == ATTACH_ONCE ? "begin_end" :
		       k == ATTACH_TIMER ? "hrtimer" :
		       k == ATTACH_TRACEPOINT ? "kernel_tracepoint" :
		       k == ATTACH_KFUNC_ENTRY ? "kprobe" :
		       k == ATTACH_KFUNC_RETURN ? "kretprobe" : NULL;
	/* ppfunc(): the function or statement pp() names, up to its '@' */
	const char *start = strstr(dp->pp, "function(\"");
	if (start)
		start += 10;
	else if ((start = strstr(dp->pp, "statement(\"")))
		start += 11;
	return start ? arena_strndup(a, start, strcspn(start, "@\"")) : "";
}

/*
 * A probe constant of the body being emitted: the module's per-probe
 * value (module.c's probe table), a literal here, as every derived probe
 * running this body has the same (an alias expansion and each point of a
 * wildcard get their own body); pp() and pn() of user-space probes by
 * the probe that runs the body; else an error.
 */
static void emit_probe_constant(struct emitter *e, const struct node *n)
{
	const char *fn = n->call.name, *v = NULL;
	int np = 0;
	const struct derived_probe *const *dps = e->func ? NULL :
		body_probes(e->prog, e->body, &np);

	for (int i = 0; i < np; i++) {
		const char *w = probe_constant(&e->s->arena, fn, dps[i]);
		if (!w || (v && strcmp(v, w))) {
			v = NULL;
			break;
		}
		v = w;
	}
	bool pn = !strcmp(fn, "pn");
	if (!v && (pn || !strcmp(fn, "pp")) &&
	    bpf_user_probe_names(dps, np)) {
		fprintf(e->out, "STP_PPNAME(TMP(%d), %d))", bpf_new_tmp(e),
			pn);
		return;
	}
	if (!v) {
		diag_error(e->s, n->loc, "%s() in a function, or in a probe "
			   "body of several probe points, or of a user-space "
			   "probe, is not on the bpf backend yet (the kernel "
			   "backend has it: --runtime=kernel)", fn);
		v = "";
	}
	if (!strcmp(fn, "is_return"))
		fprintf(e->out, "%sLL", *v ? v : "0");
	else
		bpf_c_string(e->out, v);
	fputc(')', e->out);
}

void bpf_emit_tapset_macro(struct emitter *e, const struct node *n,
			   const char *macro, int tmp)
{
	const struct bpf_tapset_fn *f = entry_of(n);
	bool first = true;

	if (bpf_probe_constant_fn(n->call.name)) {
		fputs(macro, e->out);
		emit_probe_constant(e, n);
		return;
	}

	fputs(macro, e->out);
	if (tmp >= 0) {
		fprintf(e->out, "TMP(%d)", tmp);
		first = false;
	}
	/* the memory a fault is the module's error for, the address in it;
	 * a user stack function's error is raised in its body, as the
	 * module says: near the function's name in the tapset */
	if (!f && bpf_ustack_expr(n->call.name, true)) {
		const char *what = bpf_ustack_error(&e->s->arena, n);
		const struct node *near = what && n->sym && n->sym->func &&
					  n->sym->func->decl ?
					  n->sym->func->decl : n;
		fprintf(e->out, "%s%d", first ? "" : ", ",
			bpf_error_id(e, what ? what : "user string copy fault "
				     "-14 at 0x%llx [man error::fault]", near));
		first = false;
	} else if (f && f->fault) {
		/* a text of several lines: an error id per line */
		const char *t = f->fault;
		do {
			const char *nl = strchr(t, '\n');
			const char *what = nl ? arena_strndup(&e->s->arena, t,
					   (size_t)(nl - t)) : t;
			fprintf(e->out, "%s%d", first ? "" : ", ",
				bpf_error_id(e, what, n));
			first = false;
			t = nl ? nl + 1 : NULL;
		} while (t);
	}
	ast_foreach(a, n->call.args) {
		if (!first)
			fputs(", ", e->out);
		first = false;
		bpf_emit_expr(e, a);
	}
	fputc(')', e->out);
}
