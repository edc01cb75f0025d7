// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: `=~` and `!~` in the kernel half. The
 * translator's search DFA (semantic/regex.c, the module's tables) is
 * written as constant tables of .rodata beside a global function of its
 * own that walks the string one byte a step, as runtime/regex.h's
 * stp_re_search does: a loop bounded by STP_STR with one table lookup per
 * byte, every index checked against its table's size (the values of a
 * read-only map are unknown to the verifier), verified once per program
 * however often a body calls it. matched() needs the submatch
 * simulation, whose work per byte is ninsts * ngroups: it stays in the
 * loader (refuse.c).
 */
#include <stdlib.h>

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
	regex_free(&re);

	int t = bpf_new_tmp(e);
	fprintf(e->out, "({ STRCPY(TMP(%d), ", t);
	bpf_emit_expr(e, n->binary.lhs);
	fprintf(e->out, "); %sstp_g_re%d((void *)TMP(%d)); })",
		n->binary.op == OP_NMATCH ? "!" : "", u, t);
}
