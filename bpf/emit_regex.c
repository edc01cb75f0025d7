// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: `=~` and `!~` in the kernel half. The
 * translator's search DFA (semantic/regex.c, the module's tables) is
 * written as constant tables of .rodata beside a global function of its
 * own that walks the string one byte a step, as runtime/regex.h's
 * stp_re_search does: a loop bounded by STP_STR with one table lookup per
 * byte, every index checked against its table's size (the values of a
 * read-only map are unknown to the verifier), verified once per program
 * however often a body calls it.
 *
 * Where a kernel probe of the program asks for matched() or ngroups(),
 * a match also runs the submatch simulation of runtime/regex.h's
 * stp_re_exec on the instruction list (the same leftmost-longest
 * threads, the same priorities), its loops bpf_loop callbacks over a
 * per-CPU state of the site's size: one step a position, one a thread,
 * one a closure's instruction or stack entry (each instruction once a
 * position). The last match (result, groups' offsets, the string) is
 * the CPU's, reset as each kernel body starts, as the module's
 * context's.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/emit.h"
#include "parser/diag.h"
#include "semantic/regex.h"

static void emit_table(FILE *out, const char *what, const unsigned *v,
		       int n)
{
	fprintf(out, "\t.%s = {", what);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s%u,", i % 16 ? " " : "\n\t\t", v[i]);
	fputs("\n\t},\n", out);
}

/* the last match of a kernel probe (matched(), ngroups()) */
static const char last_match_c[] =
	"struct stp_klm { int result, ngroups, len; int pos[2 * 32]; "
	"char str[STP_STR]; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, 1); __type(key, __u32); "
	"__type(value, struct stp_klm); } stp_klmm SEC(\".maps\");\n"
	"#define STP_KRE_RESET() ({ __u32 z_ = 0; struct stp_klm *m_ = "
	"bpf_map_lookup_elem(&stp_klmm, &z_); if (m_) m_->result = 0; })\n"
	/* matched(n): group n of the last match ("" when it took no
	 * part), the module's errors (i1: no match, i2: no such group) */
	"#define STP_KRE_MATCHED(d, i1, i2, n) ({ long long n_ = (n); "
	"__u32 z_ = 0; struct stp_klm *m_ = bpf_map_lookup_elem(&stp_klmm, "
	"&z_); (d)[0] = 0; if (!m_ || !m_->result) FAULT(i1, n_); "
	"if (n_ < 0 || n_ >= m_->ngroups || n_ >= 32) FAULT(i2, n_); "
	"{ int s_ = m_->pos[(2 * n_) & 63], e_ = m_->pos[(2 * n_ + 1) & 63]; "
	"if (s_ >= 0 && e_ > s_ && e_ < STP_STR) { "
	"bpf_probe_read_kernel(d, (e_ - s_) & (STP_STR - 1), "
	"&m_->str[s_ & (STP_STR - 1)]); (d)[(e_ - s_) & (STP_STR - 1)] = 0; "
	"} } (d); })\n"
	"#define STP_KRE_NGROUPS(i) ({ __u32 z_ = 0; struct stp_klm *m_ = "
	"bpf_map_lookup_elem(&stp_klmm, &z_); if (!m_ || !m_->result) "
	"ERROR(i); (long long)m_->ngroups; })\n";

static void find_group_calls(struct node *n, void *arg)
{
	if (n->kind == N_CALL && n->sym && n->sym->kind == SYM_BUILTIN &&
	    (!strcmp(n->call.name, "matched") ||
	     !strcmp(n->call.name, "matched_str") ||
	     !strcmp(n->call.name, "ngroups")))
		*(bool *)arg = true;
}

/* Whether the program's kernel half asks for the groups of a match
 * (every kernel body then resets the last match, each =~ keeps it);
 * its state written before the bodies when it does. */
bool bpf_kernel_groups(struct emitter *e)
{
	const struct program *prog = e->prog;
	bool found = false;

	if (e->kernel_groups_known)
		return e->kernel_groups;
	for (int i = 0; i < prog->nbodies && !found; i++)
		if (prog->bodies[i]->probe)
			ast_visit(prog->bodies[i]->probe->probe.body,
				  find_group_calls, &found);
	for (int i = 0; i < prog->nfuncs && !found; i++)
		if (prog->funcs[i]->used && prog->funcs[i]->decl)
			ast_visit(prog->funcs[i]->decl, find_group_calls,
				  &found);
	e->kernel_groups_known = true;
	e->kernel_groups = found;
	if (found)
		fputs(last_match_c, e->decls_kernel);
	return found;
}

/* The submatch simulation of site u (stp_krxU(): the groups of
 * stp_klmm's string into its pos[], 1 when it matched). */
static void emit_groups(FILE *d, const struct regex *re, int u)
{
	int ni = re->ninsts, nc = 2 * re->ngroups, st = 1 + nc;

	fprintf(d, "static const struct { int id; unsigned char op[%d]; "
		"unsigned short arg[%d], x[%d], y[%d]; unsigned sets[%d]; } "
		"stp_krp%d = {\n\t.id = %d,\n\t.op = {", ni, ni, ni, ni,
		re->nsets * 8, u, u);
	for (int i = 0; i < ni; i++)
		fprintf(d, " %u,", re->insts[i].op);
	fputs(" },\n\t.arg = {", d);
	for (int i = 0; i < ni; i++)
		fprintf(d, " %u,", re->insts[i].arg);
	fputs(" },\n\t.x = {", d);
	for (int i = 0; i < ni; i++)
		fprintf(d, " %u,", re->insts[i].x);
	fputs(" },\n\t.y = {", d);
	for (int i = 0; i < ni; i++)
		fprintf(d, " %u,", re->insts[i].y);
	fputs(" },\n\t.sets = {", d);
	for (int i = 0; i < re->nsets * 8; i++)
		fprintf(d, " %uU,", re->sets[i / 8][i % 8]);
	fputs(" },\n};\n", d);
	/* the threads (an instruction and the captures: two lists, now
	 * and next), the offset each instruction was last reached at,
	 * the closure's stack of pending branches and captures to undo */
	fprintf(d, "#define NI%d %d\n#define NC%d %d\n#define ST%d %d\n"
		"struct stp_krs%d { int l[2][NI%d * ST%d]; int vis[NI%d]; "
		"int stk[3 * (NI%d + 1)]; int caps[NC%d], best[NC%d]; "
		"int cur, cc, nc, found, p, sp, mode, pc, cnt, tgt, at; };\n"
		"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
		"__uint(max_entries, 1); __type(key, __u32); "
		"__type(value, struct stp_krs%d); } stp_krm%d SEC(\".maps\");\n",
		u, ni, u, nc, u, st, u, u, u, u, u, u, u, u, u);
	/* the closure (stp_re_add): a step pops an entry (mode 0) or
	 * follows instruction pc at offset at (mode 1) */
	fprintf(d, "static long stp_kra%d(__u32 i, void *c)\n{\n"
		"\t__u32 z = 0;\n"
		"\tstruct stp_krs%d *m = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tstruct stp_klm *lm = bpf_map_lookup_elem(&stp_klmm, &z);\n"
		"\tif (!m || !lm)\n\t\treturn 1;\n"
		"\t__u64 sp = (unsigned)m->sp, e, a;\n"
		"\tif (!m->mode) {\n"
		"\t\tif (!sp)\n\t\t\treturn 1;\n"
		"\t\tsp--;\n\t\tm->sp = sp;\n\t\te = 3 * sp;\n"
		"\t\tSTP_BARRIER(e);\n"
		"\t\tif (e > 3 * NI%d)\n\t\t\treturn 1;\n"
		"\t\tif (m->stk[e] < 0) {\n"
		"\t\t\ta = (unsigned)m->stk[e + 1];\n\t\t\tSTP_BARRIER(a);\n"
		"\t\t\tif (a < NC%d)\n\t\t\t\tm->caps[a] = m->stk[e + 2];\n"
		"\t\t\treturn 0;\n\t\t}\n"
		"\t\tm->pc = m->stk[e];\n\t\tm->mode = 1;\n\t\treturn 0;\n\t}\n"
		"\t__u64 pc = (unsigned)m->pc;\n\tSTP_BARRIER(pc);\n"
		"\tif (pc >= NI%d)\n\t\treturn 1;\n"
		"\tif (m->vis[pc] == m->at) {\n\t\tm->mode = 0;\n\t\treturn 0;\n\t}\n"
		"\tm->vis[pc] = m->at;\n"
		"\tunsigned op = stp_krp%d.op[pc], x = stp_krp%d.x[pc];\n"
		"\te = 3 * sp;\n\tSTP_BARRIER(e);\n"
		"\tif (op == %d) {\n\t\tm->pc = x;\n\t\treturn 0;\n\t}\n"
		"\tif (op == %d) {\n"
		"\t\tif (e > 3 * NI%d)\n\t\t\treturn 1;\n"
		"\t\tm->stk[e] = stp_krp%d.y[pc];\n\t\tm->sp = sp + 1;\n"
		"\t\tm->pc = x;\n\t\treturn 0;\n\t}\n"
		"\tif (op == %d) {\n"
		"\t\ta = stp_krp%d.arg[pc];\n\t\tSTP_BARRIER(a);\n"
		"\t\tif (e > 3 * NI%d || a >= NC%d)\n\t\t\treturn 1;\n"
		"\t\tm->stk[e] = -1;\n\t\tm->stk[e + 1] = a;\n"
		"\t\tm->stk[e + 2] = m->caps[a];\n\t\tm->sp = sp + 1;\n"
		"\t\tm->caps[a] = m->at;\n\t\tm->pc = x;\n\t\treturn 0;\n\t}\n"
		"\tif ((op == %d && m->at == 0) || (op == %d && m->at == lm->len)) {\n"
		"\t\tm->pc = x;\n\t\treturn 0;\n\t}\n"
		"\tm->mode = 0;\n"
		"\tif (op == %d || op == %d) {\n"
		"\t\t__u64 t = (__u64)(unsigned)m->cnt * ST%d;\n\t\tSTP_BARRIER(t);\n"
		"\t\tif (t > (NI%d - 1) * ST%d)\n\t\t\treturn 1;\n"
		"\t\tint *l = m->l[m->tgt & 1];\n"
		"\t\tl[t] = pc;\n"
		"\t\tfor (int k = 0; k < NC%d; k++)\n"
		"\t\t\tl[t + 1 + k] = m->caps[k];\n"
		"\t\tm->cnt++;\n\t}\n"
		"\treturn 0;\n}\n",
		u, u, u, u, u, u, u, u, RX_JMP, RX_SPLIT, u, u, RX_SAVE, u, u,
		u, RX_BOL, RX_EOL, RX_CHAR, RX_MATCH, u, u, u, u);
	/* the threads of instruction pc at offset at, after list tgt's
	 * first cnt */
	fprintf(d, "__attribute__((noinline)) int stp_kradd%d(int tgt, int cnt, "
		"int pc, int at)\n{\n\t__u32 z = 0;\n"
		"\tstruct stp_krs%d *m = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tif (!m)\n\t\treturn 0;\n"
		"\tm->tgt = tgt;\n\tm->cnt = cnt;\n\tm->at = at;\n"
		"\tm->stk[0] = pc;\n\tm->sp = 1;\n\tm->mode = 0;\n"
		"\tbpf_loop(4 * NI%d + 8, stp_kra%d, 0, 0);\n"
		"\tm = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\treturn m ? m->cnt : 0;\n}\n", u, u, u, u, u, u);
	/* a thread of the list now at offset p */
	fprintf(d, "static long stp_krt%d(__u32 i, void *c)\n{\n"
		"\t__u32 z = 0;\n"
		"\tstruct stp_krs%d *m = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tstruct stp_klm *lm = bpf_map_lookup_elem(&stp_klmm, &z);\n"
		"\tif (!m || !lm || i >= m->cc)\n\t\treturn 1;\n"
		"\t__u64 t = (__u64)i * ST%d;\n\tSTP_BARRIER(t);\n"
		"\tif (t > (NI%d - 1) * ST%d)\n\t\treturn 1;\n"
		"\tint *l = m->l[m->cur & 1];\n"
		"\t__u64 pc = (unsigned)l[t];\n\tSTP_BARRIER(pc);\n"
		"\tif (pc >= NI%d)\n\t\treturn 1;\n"
		/* a later start can no longer be the leftmost */
		"\tif (m->found && l[t + 1] > m->best[0])\n\t\treturn 0;\n"
		"\tif (stp_krp%d.op[pc] == %d) {\n"
		"\t\tif (!m->found || l[t + 1] < m->best[0] || l[t + 2] > m->best[1]) {\n"
		"\t\t\tfor (int k = 0; k < NC%d; k++)\n"
		"\t\t\t\tm->best[k] = l[t + 1 + k];\n"
		"\t\t\tm->found = 1;\n\t\t}\n\t\treturn 0;\n\t}\n"
		"\tif (m->p >= lm->len)\n\t\treturn 0;\n"
		"\tunsigned char b = lm->str[m->p & (STP_STR - 1)];\n"
		"\t__u64 w = (__u64)stp_krp%d.arg[pc] * 8 + (b >> 5);\n"
		"\tSTP_BARRIER(w);\n"
		"\tif (w >= %d || !((stp_krp%d.sets[w] >> (b & 31)) & 1))\n"
		"\t\treturn 0;\n"
		"\tfor (int k = 0; k < NC%d; k++)\n"
		"\t\tm->caps[k] = l[t + 1 + k];\n"
		"\tint nc = stp_kradd%d(m->cur ^ 1, m->nc, stp_krp%d.x[pc], m->p + 1);\n"
		"\tm = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tif (m)\n\t\tm->nc = nc;\n"
		"\treturn 0;\n}\n",
		u, u, u, u, u, u, u, u, RX_MATCH, u, u, re->nsets * 8, u, u,
		u, u, u);
	/* offset p: a new thread while none matched, then the list's */
	fprintf(d, "static long stp_krq%d(__u32 p, void *c)\n{\n"
		"\t__u32 z = 0;\n"
		"\tstruct stp_krs%d *m = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tstruct stp_klm *lm = bpf_map_lookup_elem(&stp_klmm, &z);\n"
		"\tif (!m || !lm)\n\t\treturn 1;\n"
		"\tm->p = p;\n"
		"\tif (!m->found) {\n"
		"\t\tfor (int k = 0; k < NC%d; k++)\n\t\t\tm->caps[k] = -1;\n"
		"\t\tint cc = stp_kradd%d(m->cur, m->cc, 0, p);\n"
		"\t\tm = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\t\tif (!m)\n\t\t\treturn 1;\n\t\tm->cc = cc;\n\t}\n"
		"\tif (!m->cc && (m->found || (int)p >= lm->len))\n\t\treturn 1;\n"
		"\tm->nc = 0;\n"
		"\tbpf_loop(NI%d, stp_krt%d, 0, 0);\n"
		"\tm = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tif (!m)\n\t\treturn 1;\n"
		"\tm->cur ^= 1;\n\tm->cc = m->nc;\n"
		"\treturn (int)p >= lm->len;\n}\n",
		u, u, u, u, u, u, u, u, u);
	fprintf(d, "__attribute__((noinline)) int stp_krx%d(void)\n{\n"
		"\t__u32 z = 0;\n"
		"\tstruct stp_krs%d *m = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tstruct stp_klm *lm;\n"
		"\tif (!m)\n\t\treturn 0;\n"
		"\tfor (int k = 0; k < NI%d; k++)\n\t\tm->vis[k] = -1;\n"
		"\tm->cur = 0;\n\tm->cc = 0;\n\tm->found = 0;\n"
		"\tbpf_loop(STP_STR + 1, stp_krq%d, 0, 0);\n"
		"\tm = bpf_map_lookup_elem(&stp_krm%d, &z);\n"
		"\tlm = bpf_map_lookup_elem(&stp_klmm, &z);\n"
		"\tif (!m || !lm)\n\t\treturn 0;\n"
		"\tfor (int k = 0; k < NC%d; k++)\n"
		"\t\tlm->pos[k & 63] = m->found ? m->best[k] : -1;\n"
		"\tlm->ngroups = %d;\n\tlm->result = 1;\n"
		"\treturn m->found;\n}\n",
		u, u, u, u, u, u, u, re->ngroups);
}

/* s =~ "re" in a kernel program: stp_g_reU(a copy of s in a temporary) */
void bpf_emit_kernel_regex(struct emitter *e, const struct node *n)
{
	struct regex re;
	int u = e->nuniq++;

	if (!bpf_regex_compile(e, n, &re))
		return;
	int ntrans = re.nstates * re.nclasses;
	unsigned *v = malloc(sizeof(*v) * (size_t)(ntrans > 256 ? ntrans : 256) +
			     sizeof(*v) * (size_t)re.nstates);
	FILE *d = e->decls_kernel;

	/* one constant per site whose id makes it unlike any other: clang
	 * merges equal constants, which gives .rodata two variables at one
	 * offset, BTF the kernel refuses */
	fprintf(d, "static const struct { int id; unsigned char cls[256], "
		"flags[%d]; unsigned short trans[%d]; } stp_kre%d = {\n"
		"\t.id = %d,\n", re.nstates, ntrans, u, u);
	for (int i = 0; i < 256; i++)
		v[i] = re.cls[i];
	emit_table(d, "cls", v, 256);
	for (int i = 0; i < ntrans; i++)
		v[i] = re.trans[i];
	emit_table(d, "trans", v, ntrans);
	for (int i = 0; i < re.nstates; i++)
		v[i] = re.flags[i];
	emit_table(d, "flags", v, re.nstates);
	fputs("};\n", d);
	free(v);
	/* a string without its NUL in STP_STR bytes ends there */
	fprintf(d, "__attribute__((noinline)) long long stp_g_re%d(struct "
		"stp_sv *s)\n{\n\tunsigned long long st = 0;\n"
		"\tif (!s)\n\t\treturn 0;\n"
		"\tfor (int i = 0; i <= STP_STR; i++) {\n"
		"\t\tSTP_BARRIER(st);\n\t\tif (st >= %d)\n\t\t\treturn 0;\n"
		"\t\tunsigned char f = stp_kre%d.flags[st];\n"
		"\t\tif (f & %d)\n\t\t\treturn 1;\n"
		"\t\tif (f & %d)\n\t\t\treturn 0;\n"
		"\t\tif (i == STP_STR || !s->s[i & (STP_STR - 1)])\n"
		"\t\t\treturn !!(f & %d);\n"
		"\t\tunsigned long long x = st * %d + "
		"stp_kre%d.cls[(unsigned char)s->s[i & (STP_STR - 1)]];\n"
		"\t\tSTP_BARRIER(x);\n\t\tif (x >= %d)\n\t\t\treturn 0;\n"
		"\t\tst = stp_kre%d.trans[x];\n\t}\n\treturn 0;\n}\n",
		u, re.nstates, u, RX_ACCEPT, RX_DEAD, RX_ACCEPT_END,
		re.nclasses, u, ntrans, u);
	bool groups = bpf_kernel_groups(e);
	if (groups && (long)re.ninsts * (3 + 2 * re.ngroups) * 4 > 24 * 1024)
		diag_error(e->s, n->loc, "the bpf backend cannot keep the "
			   "groups of this regular expression in a kernel "
			   "probe (%d instructions, %d groups; the kernel "
			   "backend can: --runtime=kernel)", re.ninsts,
			   re.ngroups);
	else if (groups)
		emit_groups(d, &re, u);
	regex_free(&re);

	int t = bpf_new_tmp(e);
	fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
	bpf_emit_expr(e, n->binary.lhs);
	if (!groups) {
		fprintf(e->out, "); %sstp_g_re%d((void *)TMP(%d)); })",
			n->binary.op == OP_NMATCH ? "!" : "", u, t);
		return;
	}
	/* a match keeps the string and its groups, as the module's
	 * stp_re_match (a failed one only its result) */
	fprintf(e->out, "); long long r_ = stp_g_re%d((void *)TMP(%d)); "
		"__u32 z_ = 0; struct stp_klm *m_ = bpf_map_lookup_elem("
		"&stp_klmm, &z_); if (m_) { m_->result = 0; if (r_) { "
		"long l_ = bpf_probe_read_kernel_str(m_->str, STP_STR, "
		"TMP(%d)); m_->len = l_ > 1 ? (int)(l_ - 1) : 0; "
		"stp_krx%d(); } } %sr_; })", u, t, t, u,
		n->binary.op == OP_NMATCH ? "!" : "");
}
