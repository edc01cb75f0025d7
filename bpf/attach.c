// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The BPF backend's attach kinds, from each derived probe's attach
 * description (semantic/attach.h): where a probe runs (the loader for
 * begin, end and timers that need no kernel context; the kernel for
 * tracepoints, kernel functions and timer.profile), what of a kind this
 * backend refuses (the DWARF-only things: statements, inlined instances,
 * locals), and the kernel programs themselves: one BTF-typed program per
 * probe (tp_btf, fentry, fexit, perf_event) that reads the body's context
 * values into the per-CPU scratch and runs the body.
 *
 * Context values are typed by the BTF of the kernel the program runs on:
 * the running one, or a guest's (bpf_set_guest_kernel). Member chains are
 * CO-RE reads (core_read.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include <bpf/btf.h>
#include <zlib.h>

#include "bpf/bpf.h"
#include "bpf/core_read.h"
#include "semantic/filter.h"
#include "semantic/semantic.h"
#include "lib/strbuf.h"
#include "target/btf_blob.h"
#include "target/target.h"
#include "target/tracepoints.h"

/* The kernel the programs are built for: NULL, the running one; else
 * another release's, run in a guest of it (bpf_set_guest_kernel). */
static const struct target *guest_kernel;

void bpf_set_guest_kernel(const struct target *t)
{
	guest_kernel = t;
}

bool bpf_in_guest(void)
{
	return guest_kernel != NULL;
}

/* The target kernel's BTF, loaded once (NULL: none, *why says): the
 * running kernel's, or the guest kernel's from its files (the cache's
 * btf-RELEASE). */
struct btf *bpf_kernel_btf(const char **why)
{
	static struct btf *btf;
	static bool tried;
	static char *guest_why;

	if (!tried) {
		tried = true;
		if (guest_kernel) {
			uint8_t *blob;
			size_t len;
			if (btf_target_blob(guest_kernel, &blob, &len,
					    &guest_why) == 0) {
				btf = btf__new(blob, (__u32)len);
				free(blob);
				if (!btf)
					guest_why = xasprintf("the BTF of "
						"kernel %s is not readable",
						guest_kernel->release);
			}
		} else {
			btf = btf__load_vmlinux_btf();
		}
		if (!btf)
			btf = NULL;
	}
	if (!btf && why)
		*why = guest_kernel ? guest_why :
		       "the running kernel has no BTF "
		       "(/sys/kernel/btf/vmlinux)";
	return btf;
}

/* ---- the kernel's tick ----------------------------------------------- */

/* CONFIG_HZ of one config text's line, or 0. */
static unsigned long config_hz(const char *line)
{
	return strncmp(line, "CONFIG_HZ=", 10) ? 0 :
	       strtoul(line + 10, NULL, 10);
}

/*
 * The target kernel's HZ (CONFIG_HZ): from /boot/config-RELEASE, or for
 * the running kernel /proc/config.gz; 0 when neither says. Read once.
 */
unsigned long bpf_kernel_hz(void)
{
	static unsigned long hz;
	static bool tried;
	struct utsname u;
	char path[sizeof(u.release) + 16], line[256];

	if (tried)
		return hz;
	tried = true;
	if (guest_kernel)
		snprintf(path, sizeof(path), "/boot/config-%s",
			 guest_kernel->release);
	else if (uname(&u) == 0)
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	else
		path[0] = 0;
	FILE *f = path[0] ? fopen(path, "r") : NULL;
	if (f) {
		while (!hz && fgets(line, sizeof(line), f))
			hz = config_hz(line);
		fclose(f);
	}
	gzFile z = !hz && !guest_kernel ? gzopen("/proc/config.gz", "r") :
		   NULL;
	if (z) {
		while (!hz && gzgets(z, line, sizeof(line)))
			hz = config_hz(line);
		gzclose(z);
	}
	return hz;
}

/* The ns of a jiffy, or of timer.profile's tick; 0: HZ unknown. */
static unsigned long long jiffy_ns(void)
{
	unsigned long hz = bpf_kernel_hz();

	return hz ? 1000000000ULL / hz : 0;
}

/* ---- where a probe runs ------------------------------------------------ */

/* A call that needs the kernel's view of the event (who is running). */
static void find_kernel_context(struct node *n, void *arg)
{
	static const char *const names[] = { "pid", "tid", "execname", "cpu",
					     NULL };

	if (n->kind != N_CALL)
		return;
	for (int i = 0; names[i]; i++)
		if (!strcmp(n->call.name, names[i]))
			*(bool *)arg = true;
}

bool bpf_body_needs_kernel(const struct derived_probe *dp)
{
	bool found = false;

	if (dp->body)
		ast_visit(dp->body->probe->probe.body, find_kernel_context,
			  &found);
	return found;
}

enum bpf_place bpf_place_of(const struct derived_probe *dp, const char **tp,
			    unsigned long long *period_ns)
{
	const struct attach *at = &dp->attach;

	switch (at->kind) {
	case ATTACH_ONCE:
		switch (at->once.when) {
		case ONCE_BEGIN: return BPF_PLACE_BEGIN;
		case ONCE_END: return BPF_PLACE_END;
		case ONCE_NEVER: return BPF_PLACE_NEVER;
		default: return BPF_PLACE_NONE;
		}
	case ATTACH_TIMER:
		if (at->timer.jiffies && !jiffy_ns())
			return BPF_PLACE_NONE;
		if (period_ns)
			*period_ns = at->timer.period_ns *
				     (at->timer.jiffies ? jiffy_ns() : 1);
		/* timer.profile: a tick on every CPU; another timer runs
		 * in the loader (foreach and sorting are cheap there)
		 * unless its body asks who is running */
		if (at->timer.profile)
			return BPF_PLACE_PERF;
		return bpf_body_needs_kernel(dp) ? BPF_PLACE_PERF :
		       BPF_PLACE_TIMER;
	case ATTACH_TRACEPOINT:
		if (tp)
			*tp = at->tracepoint.name;
		return BPF_PLACE_TRACE;
	case ATTACH_KFUNC_ENTRY:
	case ATTACH_KFUNC_RETURN:
		if (tp)
			*tp = at->kfunc.symbol;
		return at->kind == ATTACH_KFUNC_RETURN ? BPF_PLACE_KRETURN :
		       BPF_PLACE_KFUNC;
	case ATTACH_UPROBE:
		if (tp)
			*tp = at->uprobe.path;
		return BPF_PLACE_UPROBE;
	case ATTACH_PROCESS:
		return BPF_PLACE_PROCESS;
	case ATTACH_PERF:
		/* a sampled event on every CPU, as timer.profile's */
		if (at->perf.counter || at->filter.exe)
			return BPF_PLACE_NONE;
		if (period_ns)
			*period_ns = at->perf.sample;
		return BPF_PLACE_PERF;
	default:
		return BPF_PLACE_NONE;
	}
}

unsigned long long bpf_timer_randomize_ns(const struct derived_probe *dp)
{
	const struct attach *at = &dp->attach;

	if (at->kind != ATTACH_TIMER)
		return 0;
	return at->timer.randomize_ns * (at->timer.jiffies ? jiffy_ns() : 1);
}

bool bpf_place_in_kernel(enum bpf_place p)
{
	return p == BPF_PLACE_TRACE || p == BPF_PLACE_KFUNC ||
	       p == BPF_PLACE_KRETURN || p == BPF_PLACE_PERF ||
	       p == BPF_PLACE_UPROBE || p == BPF_PLACE_PROCESS;
}

/* ---- the running kernel's types ----------------------------------------- */

int bpf_skip_mods(const struct btf *b, int id)
{
	for (;;) {
		const struct btf_type *t = btf__type_by_id(b, (__u32)id);
		if (!t)
			return 0;
		if (!btf_is_typedef(t) && !btf_is_mod(t) &&
		    !btf_is_type_tag(t))
			return id;
		id = (int)t->type;
	}
}

/* The function prototype of kernel function name, or 0. */
static int func_proto(const struct btf *b, const char *name)
{
	int id = btf__find_by_name_kind(b, name, BTF_KIND_FUNC);
	const struct btf_type *t = id > 0 ? btf__type_by_id(b, (__u32)id) :
				   NULL;

	return t ? (int)t->type : 0;
}

/* Parameter name of a prototype: its index, or -1. */
static int proto_param(const struct btf *b, int proto, const char *name,
		       int *type)
{
	const struct btf_type *t = btf__type_by_id(b, (__u32)proto);

	if (!t || !btf_is_func_proto(t))
		return -1;
	const struct btf_param *p = btf_params(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(b, p[i].name_off), name)) {
			*type = (int)p[i].type;
			return i;
		}
	return -1;
}

/* The type of tracepoint name's argument arg (its ctx slot), or 0: the
 * prototype of btf_trace_NAME, whose first parameter is the probe's data. */
static int tp_arg_type(const struct btf *b, const char *name, int arg)
{
	char tn[256];

	snprintf(tn, sizeof(tn), "btf_trace_%s", name);
	int id = btf__find_by_name_kind(b, tn, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return 0;
	const struct btf_type *t = btf__type_by_id(b, (__u32)bpf_skip_mods(b, id));
	if (!t || !btf_is_ptr(t))
		return 0;
	t = btf__type_by_id(b, t->type);
	if (!t || !btf_is_func_proto(t) || arg + 1 >= btf_vlen(t))
		return 0;
	return (int)btf_params(t)[arg + 1].type;
}

/* The root of context value k of dp: its ctx slot and type; 0, or the
 * reason it cannot be read here. */
static const char *value_root(const struct derived_probe *dp, int k,
			      int *slot, int *type)
{
	const char *why = NULL;
	const struct btf *b = bpf_kernel_btf(&why);
	const struct symbol *sym = dp->body->ctxvars[k];
	const char *root = sym->member_path ? sym->ctx_root : sym->name + 1;

	if (!b)
		return why;
	if (*root == '$')
		root++;
	if (dp->attach.kind == ATTACH_TRACEPOINT) {
		const struct value_recipe *r = k < dp->attach.nvalues ?
					       dp->attach.values[k] : NULL;
		if (!r || r->arg < 0)
			return "an argument this tracepoint does not have";
		*slot = r->arg;
		*type = tp_arg_type(b, dp->attach.tracepoint.name, r->arg);
		if (!*type)
			return "the running kernel's BTF does not type this "
			       "tracepoint's arguments";
		return NULL;
	}
	int proto = func_proto(b, dp->attach.kfunc.symbol);
	if (!proto)
		return "the running kernel's BTF does not describe this "
		       "function";
	*slot = proto_param(b, proto, root, type);
	if (*slot < 0)
		return "it reads a local variable, which only DWARF describes";
	return NULL;
}

/*
 * Whether the running kernel loads an fentry program on function id (a
 * program that returns 0, loaded and closed at once): kernels may refuse
 * tracing programs (this machine's answers EPERM); NULL, or why not.
 */
static const char *fentry_refusal(int func_id)
{
	static int answer = -1;		/* the first function's, for all */
	static char why[160];

	if (answer < 0) {
		const struct bpf_insn insns[] = {
			{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
			  .dst_reg = BPF_REG_0, .imm = 0 },
			{ .code = BPF_JMP | BPF_EXIT },
		};
		union bpf_attr a;
		memset(&a, 0, sizeof(a));
		a.prog_type = BPF_PROG_TYPE_TRACING;
		a.expected_attach_type = BPF_TRACE_FENTRY;
		a.attach_btf_id = (__u32)func_id;
		a.insns = (__u64)(unsigned long)insns;
		a.insn_cnt = 2;
		a.license = (__u64)(unsigned long)"GPL";
		int fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
		answer = fd >= 0;
		if (fd >= 0)
			close(fd);
		else
			snprintf(why, sizeof(why), "the running kernel does not "
				 "load fentry/fexit programs (%s)",
				 strerror(errno));
	}
	return answer ? NULL : why;
}

/* ---- pass 2: what this backend refuses ---------------------------------- */

struct ctx_check {
	const struct derived_probe *dp;
	const char *why;
	const struct node *typed_root;	/* the @cast of a user chain */
};

static void check_context(struct node *n, void *arg)
{
	struct ctx_check *c = arg;

	if (c->why)
		return;
	switch (n->kind) {
	case N_TARGET:
	case N_TMEMBER:
	case N_TINDEX:
		if (n->kind == N_TARGET && !strcmp(n->target.name, "$return"))
			return;
		if (n->kind == N_TARGET && bpf_uprobe_name(c->dp, n) >= 0)
			return;
		if (bpf_kernel_typed(n)) {	/* a chain on a @cast */
			c->typed_root = chain_root(n);	/* refuse.c checks */
			return;
		}
		if (n->kind == N_TARGET && bpf_tp_special(c->dp, n))
			return;
		if (n->type == TY_STRING) {
			c->why = c->dp->attach.kind == ATTACH_TRACEPOINT ?
				 "pretty printing ($$parms$, $x$) is not on "
				 "this backend yet" :
				 "$$parms, $$vars and $$locals (and pretty "
				 "printing) are not on this backend yet";
			return;
		}
		if (bpf_user_typed(c->dp, n->sym)) {
			/* its @cast next (the walk is pre-order) */
			c->typed_root = chain_root(n);
			return;
		}
		if (n->sym && n->sym->kind != SYM_CONTEXT) {
			c->why = "this context value (pretty printing, @cast) "
				 "is not on this backend yet";
			return;
		}
		/* a member chain in a .return probe is read at the entry
		 * (bpf_emit_programs: an fentry program keeps it) */
		return;
	case N_ATFUNC:
		if (!strcmp(n->call.name, "@defined"))
			return;
		if (!strcmp(n->call.name, "@var")) {
			c->why = "@var is not on this backend yet";
			return;
		}
		if (!strcmp(n->call.name, "@entry") && !n->sym)
			return;
		if (!strcmp(n->call.name, "@cast") &&
		    (n == c->typed_root || bpf_user_typed(c->dp, n->sym)))
			return;
		if (!strcmp(n->call.name, "@cast") && bpf_kernel_typed(n))
			return;		/* refuse.c checks it */
		c->why = !strcmp(n->call.name, "@entry") ?
			 "@entry of a computed value is not on this backend yet" :
			 "@cast is not on this backend yet";
		return;
	case N_UNARY:
		if (bpf_user_typed(c->dp, n->sym)) {	/* &@cast(...) */
			c->typed_root = chain_root(n->unary.operand);
			return;
		}
		if (bpf_kernel_typed(n)) {	/* refuse.c checks it */
			c->typed_root = chain_root(n->unary.operand);
			return;
		}
		/* a uprobe's: its recipe's address (bpf_uprobe_refuses) */
		if (n->sym && n->sym->kind == SYM_CONTEXT &&
		    c->dp->attach.kind != ATTACH_UPROBE)
			c->why = "&$var is not on this backend yet";
		return;
	default:
		return;
	}
}

/*
 * Why the running kernel cannot take dp's point (its BTF lacks the
 * function, or it loads no fentry program), NULL if it can: a wildcard's
 * match it cannot take is skipped (semantic/backend.c, backend_skips),
 * as syscall.ni_syscall of syscall.* on a kernel refusing fentry.
 */
const char *bpf_unplaceable(const struct derived_probe *dp)
{
	const struct attach *at = &dp->attach;

	if ((at->kind != ATTACH_KFUNC_ENTRY &&
	     at->kind != ATTACH_KFUNC_RETURN) || at->kfunc.statement ||
	    at->kfunc.inlined || !at->kfunc.symbol || !bpf_kernel_btf(NULL))
		return NULL;
	if (!func_proto(bpf_kernel_btf(NULL), at->kfunc.symbol))
		return "the running kernel's BTF does not describe this "
		       "function, so fentry cannot attach to it";
	return guest_kernel ? NULL :
	       fentry_refusal(btf__find_by_name_kind(bpf_kernel_btf(NULL),
			      at->kfunc.symbol, BTF_KIND_FUNC));
}

const char *bpf_refuses_attach(const struct derived_probe *dp)
{
	const struct attach *at = &dp->attach;
	const char *why = NULL;

	switch (at->kind) {
	case ATTACH_TIMER:
		if (at->timer.jiffies && !jiffy_ns())
			return "timer.jiffies needs the kernel's HZ, which "
			       "neither /boot/config-RELEASE nor "
			       "/proc/config.gz gives";
		/* a perf event's period is fixed */
		if (at->timer.randomize_ns &&
		    bpf_place_of(dp, NULL, NULL) == BPF_PLACE_PERF)
			return ".randomize is not on this backend in a timer "
			       "whose body asks who runs (pid(), tid(), "
			       "execname(), cpu()): that timer is a perf "
			       "event, of a fixed period";
		/* a perf event's body: its @cast reads (below) */
		if (bpf_place_of(dp, NULL, NULL) != BPF_PLACE_PERF)
			return NULL;
		break;
	case ATTACH_PERF:
		if (at->perf.counter)
			return "perf counters (.counter(\"NAME\"), @perf) are "
			       "not on this backend yet";
		if (at->filter.exe)
			return "perf events of a process (.process) are not on "
			       "this backend yet";
		break;
	case ATTACH_TRACEPOINT:
		if (!bpf_kernel_btf(&why))
			return why;
		break;
	case ATTACH_KFUNC_ENTRY:
	case ATTACH_KFUNC_RETURN:
		if (at->kfunc.statement)
			return "a statement probe needs DWARF line tables, "
			       "which BPF programs do not have";
		if (at->kfunc.inlined || !at->kfunc.symbol)
			return "an inlined instance has no entry of its own "
			       "for fentry/fexit (only DWARF describes it)";
		if (!bpf_kernel_btf(&why))
			return why;
		if (!func_proto(bpf_kernel_btf(NULL), at->kfunc.symbol))
			return "the running kernel's BTF does not describe "
			       "this function, so fentry cannot attach to it";
		/* a guest's kernel is not here to ask: Debian's 6.1 and
		 * 6.12 load fentry programs (tests/bpf.sh's guest runs) */
		why = guest_kernel ? NULL :
		      fentry_refusal(btf__find_by_name_kind(bpf_kernel_btf(NULL),
				     at->kfunc.symbol, BTF_KIND_FUNC));
		if (why)
			return why;
		break;
	case ATTACH_UPROBE:
		break;
	default:
		return NULL;
	}
	if (!dp->body)
		return NULL;
	struct ctx_check c = { .dp = dp };
	ast_visit(dp->body->probe->probe.body, check_context, &c);
	if (c.why)
		return c.why;
	if (at->kind == ATTACH_UPROBE)
		return bpf_uprobe_refuses(dp);
	for (int k = 0; k < dp->body->nctxvars; k++) {
		int slot, type;
		const char *bad = value_root(dp, k, &slot, &type);
		if (bad)
			return bad;
	}
	return NULL;
}

/* ---- a tracepoint's $$system, $$name, $$parms ------------------------ */

bool bpf_tp_special(const struct derived_probe *dp, const struct node *n)
{
	const char *name = n->target.name;

	if (dp->attach.kind != ATTACH_TRACEPOINT || n->kind != N_TARGET)
		return false;
	return !strcmp(name, "$$system") || !strcmp(name, "$$name") ||
	       ((!strcmp(name, "$$parms") || !strcmp(name, "$$vars")) &&
		dp->attach.tracepoint.info);
}

/*
 * $$parms (and $$vars, the same) of a tracepoint, into S->parms before the
 * body runs: "NAME=0x..." for each argument in TP_PROTO order, the value
 * widened from its type as the module widens it (an argument of no
 * scalar type: 0), each "%#x" as the module prints it. bpf_snprintf takes
 * 12 values at most: a longer list is written 12 at a time, each after
 * the last.
 */
static void emit_tp_parms(const struct btf *b, const struct derived_probe *dp,
			  FILE *out)
{
	const struct tracepoint_info *tp = dp->attach.tracepoint.info;
	const char *name = dp->attach.tracepoint.name;

	fputs("\t{ __u64 pv[12]; long pn = 0, po = 0; (void)pn;\n", out);
	for (int a0 = 0;; a0 += 12) {
		int n = tp->nargs - a0 < 12 ? tp->nargs - a0 : 12;
		fputs("\t  ", out);
		for (int a = a0; a < a0 + n; a++) {
			int type = tp_arg_type(b, name, a);
			if (type && core_scalar_c(b, type))
				fprintf(out, "pv[%d] = (__u64)%sctx[%d]; ",
					a - a0, core_cast_of(b, type), a);
			else
				fprintf(out, "pv[%d] = 0; ", a - a0);
		}
		fputs("\n\t  po &= STP_STR - 1; pn = bpf_snprintf(S->parms + "
		      "po, STP_STR - po, \"", out);
		for (int a = a0; a < a0 + n; a++)
			fprintf(out, "%s%s=0x%%llx", a ? " " : "",
				tp->args[a].name);
		fprintf(out, "\", pv, %d); po += pn > 0 ? pn - 1 : 0;\n",
			n * 8);
		if (tp->nargs <= a0 + 12)
			break;
	}
	fputs("\t}\n", out);
}

/* Whether a body reads a member chain of its context. */
static bool has_chain(const struct probe_body *b)
{
	for (int k = 0; k < b->nctxvars; k++)
		if (b->ctxvars[k]->member_path &&
		    b->ctxvars[k]->member_path->nsteps)
			return true;
	return false;
}

/* A kernel program's read of dp's context value k into S->c[k]: 0, or 1
 * after a message. */
static int emit_value(struct core *c, const struct derived_probe *dp, int k,
		      FILE *pf)
{
	const struct probe_body *b = dp->body;
	int slot, type;
	const char *why = value_root(dp, k, &slot, &type);
	char root[32];

	if (why) {
		fprintf(stderr, "stap: error: %s: %s\n", dp->pp, why);
		return 1;
	}
	snprintf(root, sizeof(root), "ctx[%d]", slot);
	const struct member_path *path = b->ctxvars[k]->member_path;
	if (!path || !path->nsteps) {
		fprintf(pf, "\tS->c[%d] = %sctx[%d];\n", k, core_cast_of(c->b, type),
			slot);
		return 0;
	}
	if (!core_emit_chain(c, pf, k, root, type, path)) {
		fprintf(stderr, "stap: error: %s: %s: %s\n", dp->pp,
			b->ctxvars[k]->name, c->err);
		return 1;
	}
	return 0;
}

/* All of dp's context values into S->c[]: 0, or 1 after a message. */
static int emit_values(struct core *c, const struct derived_probe *dp,
		       FILE *pf)
{
	int rc = 0;

	for (int k = 0; k < dp->body->nctxvars; k++)
		rc |= emit_value(c, dp, k, pf);
	return rc;
}

/* A kernel program that starts while another of ours runs on this CPU
 * (perf's tick inside a tracepoint's program or a helper it called, a
 * tracepoint such a helper hits) is dropped, as the module drops a hit
 * whose CPU's context is busy: it would share the scratch, and its
 * addr() and stack would be our program's. S->busy is cleared where
 * the program returns. */
static const char scratch_decl[] =
	"\tstruct stp_scratch *S; { S = STP_SCRATCH(); "
	"if (!S || S->busy) return 0; }\n"
	"\tS->busy = 1;\n"
	"\tS->fm = 0;\n";

/*
 * Dispatch group g's program on tracepoint name (attach_dispatch.c): the
 * filtered value, read as the group's first probe reads it, is the
 * index of the tail call into the probe that takes it; a number no
 * probe takes (or a read that faults) ends here. 0, or 1 after a
 * message.
 */
static int emit_dispatch(struct core *c, const struct bpf_dispatch *d, int g,
			 const struct derived_probe *first, const char *name,
			 FILE *pf)
{
	const struct symbol *arg;
	int64_t value;
	int compat;

	if (!probe_number_filter(first, &arg, &value, &compat))
		return 1;
	bpf_dispatch_arrays(d, g, pf);
	fprintf(pf, "SEC(\"tp_btf/%s\") int stp_disp%d(unsigned long long "
		"*ctx)\n{\n\tif (G.stp_exit)\n\t\treturn 0;\n%s", name, g,
		scratch_decl);
	int rc = emit_value(c, first, arg->index, pf);
	/* the scratch is free again before the tail call: the probe's own
	 * program takes it (scratch_decl's busy) */
	fprintf(pf, "\tS->busy = 0;\n\tif (S->fm & (1ULL << %d))\n"
		"\t\treturn 0;\n", arg->index);
	if (d->groups[g].compat)
		fprintf(pf, "\tif (stp_task_compat())\n\t\tbpf_tail_call(ctx, "
			"&stp_dispm%d_1, (__u32)S->c[%d]);\n\telse\n\t", g,
			arg->index);
	fprintf(pf, "\tbpf_tail_call(ctx, &stp_dispm%d_0, (__u32)S->c[%d]);\n"
		"\treturn 0;\n}\n", g, arg->index);
	return rc;
}

int bpf_emit_programs(struct session *s, struct program *prog, FILE *out)
{
	struct core c = { .b = bpf_kernel_btf(NULL) };
	char *pbuf = NULL;
	size_t plen = 0;
	FILE *pf = open_memstream(&pbuf, &plen);
	int np = 0, rc = 0;
	bool udecl = false, kentry_declared = false;
	struct bpf_dispatch d;

	bpf_dispatch_plan(prog, &d);

	for (int j = 0; j < prog->nprobes; j++) {
		const char *name = NULL;
		const struct derived_probe *dp = prog->probes[j];
		const struct probe_body *b = dp->body;
		enum bpf_place p = bpf_place_of(dp, &name, NULL);

		if (!bpf_place_in_kernel(p))
			continue;
		if (p == BPF_PLACE_UPROBE) {
			rc |= bpf_uprobe_program(s, dp, np++, &udecl, pf,
						 bpf_kstack_uses_ip(prog));
			continue;
		}
		if (p == BPF_PLACE_PROCESS) {
			np++;	/* bpf_process_programs, below */
			continue;
		}
		int g = d.group[j];
		if (g >= 0 && d.groups[g].first == j)
			rc |= emit_dispatch(&c, &d, g, dp, name, pf);
		/* a .return probe's member chains are read at the entry,
		 * as SystemTap reads them: an fentry program keeps every
		 * value by thread (stp_keN), the fexit program takes them
		 * (a call whose entry was not seen runs no handler) */
		bool at_entry = p == BPF_PLACE_KRETURN && has_chain(b);
		if (at_entry) {
			if (!kentry_declared)
				fputs("struct stp_kentry { long long "
				      "c[STP_NCTX]; long long fm; };\n", pf);
			kentry_declared = true;
			fprintf(pf, "struct { __uint(type, "
				"BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, "
				"10240); __type(key, __u64); __type(value, "
				"struct stp_kentry); } stp_ke%d SEC(\".maps\");\n"
				"SEC(\"fentry/%s\") int stp_k%d(unsigned long "
				"long *ctx)\n{\n\tif (G.stp_exit)\n\t\treturn 0;"
				"\n%s", np, name, np, scratch_decl);
			rc |= emit_values(&c, dp, pf);
			/* the scratch's ret slot follows c[]: the faults */
			fprintf(pf, "\t{ __u64 t = bpf_get_current_pid_tgid(); "
				"S->ret = (long long)S->fm; bpf_map_update_elem("
				"&stp_ke%d, &t, (void *)S->c, BPF_ANY); }\n"
				"\tS->busy = 0;\n\treturn 0;\n}\n", np);
		}
		bool parms = p == BPF_PLACE_TRACE && (b->parms_modes & 1) &&
			     dp->attach.tracepoint.info;
		if (p == BPF_PLACE_TRACE && !b->nctxvars && !parms)
			/* no typed value: the plain raw tracepoint */
			fprintf(pf, "SEC(\"raw_tp/%s\")", name);
		else if (p == BPF_PLACE_TRACE)
			fprintf(pf, "SEC(\"tp_btf/%s\")", name);
		else if (p == BPF_PLACE_KFUNC)
			fprintf(pf, "SEC(\"fentry/%s\")", name);
		else if (p == BPF_PLACE_KRETURN)
			fprintf(pf, "SEC(\"fexit/%s\")", name);
		else
			fputs("SEC(\"perf_event\")", pf);
		/* after exit() or an error no handler starts (the module's
		 * session is no longer running) */
		/* stp_jN: tail-called by a dispatch, not attached */
		fprintf(pf, " int stp_%c%d(unsigned long long *ctx)\n{\n"
			"\tif (G.stp_exit)\n\t\treturn 0;\n", g >= 0 ? 'j' : 'p',
			np++);
		fputs(scratch_decl, pf);
		if (parms)
			emit_tp_parms(c.b, dp, pf);
		if (at_entry)
			fprintf(pf, "\t{ __u64 t = bpf_get_current_pid_tgid(); "
				"struct stp_kentry *e = bpf_map_lookup_elem("
				"&stp_ke%d, &t); if (!e) { S->busy = 0; return 0; } for (int i = 0; "
				"i < STP_NCTX; i++) S->c[i] = e->c[i]; S->fm = "
				"e->fm; bpf_map_delete_elem(&stp_ke%d, &t); }\n",
				np - 1, np - 1);
		else
			rc |= emit_values(&c, dp, pf);
		if (p == BPF_PLACE_KRETURN) {
			int proto = func_proto(c.b, name);
			const struct btf_type *t = btf__type_by_id(c.b,
								(__u32)proto);
			int ret = t ? (int)t->type : 0;
			if (ret)
				fprintf(pf, "\tS->ret = %sctx[%d];\n",
					core_cast_of(c.b, ret), btf_vlen(t));
			else
				fputs("\tS->ret = 0;\n", pf);
		}
		/* addr() and its kind (kstack.c): the module's registers'
		 * ip, on timer.profile the interrupted one (pt_regs' ip,
		 * x86-64's 17th word); flag 1: a tapset alias on a
		 * tracepoint, whose probefunc() names the trace call's
		 * function (the module's condition); flag 32: timer.profile or a
		 * perf event, whose stack starts there (kstack.c) */
		bool set_ip = bpf_kstack_uses_ip(prog);
		/* flag 16: an entry, whose walk starts at the site */
		if (set_ip && p == BPF_PLACE_KFUNC)
			fputs("\tSTP_KSETIP2(stp_kfn_site(ctx), "
			      "bpf_get_func_ip(ctx), 16);\n", pf);
		else if (set_ip && p == BPF_PLACE_KRETURN)
			/* flag 8: addr() looks for it at its first read */
			fputs("\tSTP_KSETIP2(0, bpf_get_func_ip(ctx), 8);\n", pf);
		else if (set_ip) {
			const char *pn = b->pn ? b->pn : dp->pp;
			const char *sys = p == BPF_PLACE_TRACE ?
				dp->attach.tracepoint.system : NULL;
			int alias = sys && strncmp(pn, "kernel.trace(", 13) &&
				    strcmp(sys, "raw_syscalls");
			/* flags 2 and 4: an entry and a .return of the
			 * syscall family (syscall.NAME and its nd_, tp_,
			 * dw_ names), probefunc()'s cases (the module's
			 * stp_sysc_probe) */
			if (sys && !strcmp(sys, "raw_syscalls")) {
				if (!strncmp(pn, "nd_", 3) ||
				    !strncmp(pn, "tp_", 3) ||
				    !strncmp(pn, "dw_", 3))
					pn += 3;
				if (!strncmp(pn, "syscall.", 8))
					alias = !strcmp(dp->attach.tracepoint.name,
							"sys_enter") ? 2 :
						!strcmp(dp->attach.tracepoint.name,
							"sys_exit") ? 4 : 0;
			}
			/* the sampled event's registers: timer.profile's
			 * tick, a perf probe's event */
			bool regs = p == BPF_PLACE_PERF &&
				    (dp->attach.kind == ATTACH_PERF ||
				     dp->attach.timer.profile);
			fprintf(pf, "\tSTP_KSETIP(%s, %d);\n",
				regs ? "ctx[16]" : "0",
				alias | (regs ? 32 : 0));
		}
		fprintf(pf, "\tstp_b%d();\n", b->index);
		if (set_ip)
			fputs("\tSTP_KOUT();\n", pf);
		fputs("\tS->busy = 0;\n\treturn 0;\n}\n", pf);
	}
	bpf_process_programs(prog, pf);
	bpf_dispatch_free(&d);
	fclose(pf);
	core_emit_types(&c, out);
	fwrite(pbuf, 1, plen, out);
	free(pbuf);
	core_free(&c);
	return rc;
}

/* timer.profile's tick: a jiffy (Debian's 250 HZ when the config does
 * not say) */
static unsigned long long profile_tick_ns(void)
{
	return jiffy_ns() ? jiffy_ns() : 4000000ULL;
}

/* The loader's table of perf-event programs: their names and periods. */
void bpf_emit_perf_table(struct program *prog, FILE *out)
{
	int np = 0;

	fputs("const struct { const char *prog; unsigned long long ns; "
	      "int all_cpus; unsigned type; unsigned long long config; "
	      "int freq; const char *pp; } stp_perf[] = {\n", out);
	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		const struct attach *at = &dp->attach;
		unsigned long long ns = 0;
		enum bpf_place p = bpf_place_of(dp, NULL, &ns);

		if (!bpf_place_in_kernel(p))
			continue;
		if (p == BPF_PLACE_PERF && at->kind == ATTACH_PERF) {
			/* its event, sampled on every CPU */
			fprintf(out, "{ \"stp_p%d\", %lluULL, 1, %uU, %lluULL, "
				"%d, ", np, (unsigned long long)at->perf.sample,
				at->perf.type,
				(unsigned long long)at->perf.config,
				at->perf.freq);
			bpf_c_string(out, dp->pp);
			fputs(" },\n", out);
		} else if (p == BPF_PLACE_PERF) {
			/* a timer: a cpu-clock event, on every CPU for
			 * timer.profile */
			fprintf(out, "{ \"stp_p%d\", %lluULL, %d, %uU, %uULL, "
				"0, NULL },\n", np, at->timer.profile ?
				profile_tick_ns() : ns,
				at->timer.profile ? 1 : 0, PERF_TYPE_SOFTWARE,
				PERF_COUNT_SW_CPU_CLOCK);
		}
		np++;
	}
	fputs("{ NULL, 0, 0, 0, 0, 0, NULL } };\n", out);
	bpf_emit_uprobe_table(prog, out);
	bpf_emit_process_table(prog, out);
	bpf_emit_dispatch_table(prog, out);
	bpf_emit_kfunc_table(prog, out);
}

/*
 * The loader's table of fentry/fexit programs and their probe points: a
 * function the kernel refuses at attach (the guests' ni_syscall: EBUSY,
 * it has no ftrace entry) is SystemTap's registration warning, and the
 * other probes run, as the module backend does (runtime/kfunc.c).
 */
void bpf_emit_kfunc_table(struct program *prog, FILE *out)
{
	struct strbuf pp = { 0 };
	int np = 0;

	fputs("const struct { const char *prog, *pp; } stp_kfuncs[] = { ",
	      out);
	for (int j = 0; j < prog->nprobes; j++) {
		const struct derived_probe *dp = prog->probes[j];
		enum bpf_place p = bpf_place_of(dp, NULL, NULL);

		if (!bpf_place_in_kernel(p))
			continue;
		if (p == BPF_PLACE_KFUNC || p == BPF_PLACE_KRETURN) {
			sb_reset(&pp);
			sb_c_literal(&pp, dp->pp, strlen(dp->pp), false);
			/* stp_kN: a .return's entry half (bpf_emit_programs) */
			fprintf(out, "{ \"stp_p%d\", %s }, { \"stp_k%d\", %s }, ",
				np, sb_str(&pp), np, sb_str(&pp));
		}
		np++;
	}
	fputs("{ NULL, NULL } };\n", out);
	sb_free(&pp);
}
