// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF backend's own versions of the core tapset functions whose
 * linux/ tapset bodies are embedded kernel C: each as a C expression for
 * the kernel half (BPF helpers, CO-RE reads of the running task through
 * the prelude's preserve_access_index structs) and one for the loader's
 * half (begin, end and timers run in the loader, as the module's run in
 * staprun's context). A call of one of these resolves as for the module
 * backend (the tapset's signature); pass 2 (refuse.c) accepts it and pass
 * 3 (emit.c) writes the expression instead of calling the tapset's body.
 */
#include <string.h>

#include "bpf/bpf.h"
#include "bpf/emit.h"

static const struct bpf_tapset_fn {
	const char *name;
	const char *kernel, *user;	/* NULL: not in that half */
} fns[] = {
	{ "uid", "((long long)(unsigned)bpf_get_current_uid_gid())",
	  "((long long)getuid())" },
	{ "gid", "((long long)(bpf_get_current_uid_gid() >> 32))",
	  "((long long)getgid())" },
	{ "euid", "stp_task_euid()", "((long long)geteuid())" },
	{ "egid", "stp_task_egid()", "((long long)getegid())" },
	{ "ppid", "stp_task_ppid()", "((long long)getppid())" },
	{ "ktime_get_ns", "((long long)bpf_ktime_get_ns())",
	  "stp_clock_ns(CLOCK_MONOTONIC)" },
	{ "jiffies", "((long long)bpf_jiffies64())", NULL },
	{ "gettimeofday_ns", "NOW_NS()", "NOW_NS()" },
	{ "gettimeofday_us", "(NOW_NS() / 1000)", "(NOW_NS() / 1000)" },
	{ "gettimeofday_ms", "(NOW_NS() / 1000000)", "(NOW_NS() / 1000000)" },
	{ "gettimeofday_s", "(NOW_NS() / 1000000000)",
	  "(NOW_NS() / 1000000000)" },
	/* a macro of the prelude's, given its arguments (emit.c): a
	 * string's destination, the fault's error, then the call's */
	{ "user_string_n", "USER_STRING_N(", "USER_STRING_N(" },
	{ "__stp_maxstringlen", "((long long)STP_STR)",
	  "((long long)STP_STR)" },
};

const char *bpf_tapset_expr(const char *name, bool kernel)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, name))
			return kernel ? fns[i].kernel : fns[i].user;
	return bpf_ustack_expr(name, kernel);
}

void bpf_emit_tapset_macro(struct emitter *e, const struct node *n,
			   const char *macro, int tmp)
{
	/* user memory: a fault is the module's error, the address in it */
	fputs(macro, e->out);
	if (tmp >= 0)
		fprintf(e->out, "TMP(%d), ", tmp);
	/* a user stack function's error is raised in its body, as the
	 * module says: near the function's name in the tapset */
	const char *what = bpf_ustack_error(&e->s->arena, n);
	const struct node *near = what && n->sym && n->sym->func &&
				  n->sym->func->decl ? n->sym->func->decl : n;
	fprintf(e->out, "%d", bpf_error_id(e, what ? what : "user string copy "
					   "fault -14 at 0x%llx [man error::fault]",
					   near));
	ast_foreach(a, n->call.args) {
		fputs(", ", e->out);
		bpf_emit_expr(e, a);
	}
	fputc(')', e->out);
}
