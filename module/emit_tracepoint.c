// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ATTACH_TRACEPOINT in the kernel module: a callback registered on the
 * tracepoint (runtime/tracepoint.c). A probe whose body reads arguments
 * gets a typed callback with the tracepoint's prototype that fills the
 * context values by their recipes (an argument, then member steps); one
 * without gets the runtime's untyped one. Probes of one tracepoint whose
 * bodies filter on the same argument share a callback that switches on
 * it (syscall.*).
 */
#include "module/emit.h"
#include "lib/hash.h"
#include "lib/hashset.h"
#include "target/btf.h"
#include "target/target.h"
#include "target/tracepoints.h"

/*
 * Run typed tracepoint probe i (table entry k) whose filter held: a
 * filtered lean body runs its counts (1 + N statements: the if too).
 */
static void gen_tp_run(struct cg *cg, FILE *out, int i, int k,
		       const char *indent)
{
	int b = cg->prog->probes[i]->body->index;

	if (cg->nlean[b] >= 0 && cg->filtered[b])
		fprintf(out, "%sif (MAXACTION > %d)\n%s\tstp_probe_lean("
			"&stp_probes[%d]);\n%selse\n%s\t", indent,
			cg->nlean[b] + 1, indent, k, indent, indent);
	else
		fputs(indent, out);
	fprintf(out, "stp_run_%d(&stp_probes[%d], &stp_a, NULL);\n", b, k);
}

/* The tracepoint's catalog entry: its arguments, header, prototype. */
static const struct tracepoint_info *tp_info(const struct derived_probe *dp)
{
	return dp->attach.tracepoint.info;
}

/* Does this tracepoint probe need a callback with the exact prototype? */
static bool tp_typed(const struct derived_probe *dp)
{
	return dp->attach.kind == ATTACH_TRACEPOINT && tp_info(dp) &&
	       tp_info(dp)->args_ok &&
	       (dp->body->nctxvars || dp->body->parms);
}

/* A scalar the callback can widen to a long: an integer or a pointer. */
static bool tp_scalar(const char *c_type)
{
	if (strpbrk(c_type, "*["))
		return true;
	return strncmp(c_type, "struct ", 7) && strncmp(c_type, "union ", 6);
}


/*
 * How a typed callback receives a tracepoint's arguments. Its prototype
 * is the tracepoint's, either as the trace header declares it (which the
 * module then includes, and whose check_trace_callback_type_NAME checks
 * it) or, when every argument's type is known to BTF, its own: each
 * argument as a type of the same size and calling convention (pointers
 * "const void *", integers and enums "uN"/"sN", aggregates of 1, 2, 4
 * or 8 bytes as such an integer, other aggregates as a struct of as many
 * bytes), named stp_pN; an enum BTF does not know (a module's) is 4
 * bytes, GCC's type for an enum whose values fit an int. Then the module needs no trace header: some
 * include private headers of their subsystem (bridge, dlm) or use types
 * only those define (ext4_group_t, enum afs_call_state). Where the
 * kernel's BTF has the tracepoint's own prototype (btf_trace_NAME, for
 * every tracepoint of vmlinux), its parameters are those types, checked
 * against the catalog's count. The callback's own names start with stp_,
 * which no kernel parameter does.
 */
struct tp_abi {
	const struct tracepoint_info *tp;
	bool own;		/* own prototype, no trace header */
	const char *params;	/* own: the parameters after stp_data */
	const char *blobs;	/* own: struct definitions they need */
	const char **ref;	/* [arg]: the C expression of argument arg */
	const char **widen;	/* [arg]: it as an int64_t expression */
};


/*
 * The C type to declare a by-value argument of BTF type id with; NULL
 * when there is none (a float, void, a type BTF cannot size). *blob: the
 * size of the struct it needs (0: none).
 */
static const char *tp_abi_ctype(struct arena *a, const struct btf *btf,
				int id, unsigned *blob)
{
	struct btf_info in;

	*blob = 0;
	btf_resolve(btf, id, &in);
	switch (in.cls) {
	case BTF_CLASS_PTR: case BTF_CLASS_FUNC_PTR: case BTF_CLASS_ARRAY:
		return "const void *";
	case BTF_CLASS_INT: case BTF_CLASS_ENUM:
	case BTF_CLASS_STRUCT: case BTF_CLASS_UNION:
		if (in.size == 1 || in.size == 2 || in.size == 4 ||
		    in.size == 8)
			return arena_printf(a, "%s%u",
					    in.is_signed ? "s" : "u",
					    in.size * 8);
		if (in.cls == BTF_CLASS_STRUCT || in.cls == BTF_CLASS_UNION) {
			if (!in.size)
				return NULL;
			*blob = in.size;
			return arena_printf(a, "struct stp_tp_blob_%u",
					    in.size);
		}
		return NULL;
	default:
		return NULL;
	}
}

/* tp's arguments as the callback declares and reads them. */
static struct tp_abi *tp_abi_of(struct cg *cg, const struct tracepoint_info *tp)
{
	struct arena *a = &cg->s->arena;
	struct tp_abi *abi = arena_alloc(a, sizeof(*abi));
	const char *err;
	struct btf *btf = cg->s->target ? target_btf(cg->s->target, &err) : NULL;
	struct strbuf params = { 0 }, blobs = { 0 };
	struct hashset declared = { 0 };	/* the blob types defined */
	int proto = 0, n = tp->nargs;

	abi->tp = tp;
	abi->ref = arena_alloc(a, (size_t)(n + 1) * sizeof(*abi->ref));
	abi->widen = arena_alloc(a, (size_t)(n + 1) * sizeof(*abi->widen));
	abi->own = btf != NULL;
	if (btf) {
		struct btf_info in;
		char *tn = arena_printf(a, "btf_trace_%s", tp->name);
		int id = btf_find_type(btf, tn);

		btf_resolve(btf, id, &in);
		if (id && in.cls == BTF_CLASS_FUNC_PTR) {
			proto = in.target;
			/* void *data, then the tracepoint's own */
			if (btf_proto_param(btf, proto, -1) != n + 1)
				abi->own = false;
		}
	}
	for (int i = 0; abi->own && i < n; i++) {
		const char *ct = tp->args[i].c_type, *decl;
		unsigned blob = 0;
		int id;

		if (proto)
			id = btf_proto_param(btf, proto, i + 1);
		else if (strpbrk(ct, "*["))
			id = -1;	/* any pointer */
		else
			id = btf_find_type(btf, ct);
		if (id < 0)
			decl = "const void *";
		else if (id)
			decl = tp_abi_ctype(a, btf, id, &blob);
		else if (!strncmp(ct, "enum ", 5) && !strpbrk(ct + 5, " "))
			decl = "u32";	/* GCC's enum of int-sized values */
		else
			decl = NULL;
		if (!decl) {
			abi->own = false;
			break;
		}
		if (blob && hashset_add(&declared, fnv1a(FNV_OFFSET, decl,
							  strlen(decl)))) {
			sb_printf(&blobs, "%s { unsigned char b[%u]; };\n",
				  decl, blob);
		}
		sb_printf(&params, ", %s%sstp_p%d", decl,
			  decl[strlen(decl) - 1] == '*' ? "" : " ", i);
		abi->ref[i] = arena_printf(a, "stp_p%d", i);
		abi->widen[i] = blob ? "0" :
			arena_printf(a, "(int64_t)stp_p%d", i);
	}
	if (abi->own) {
		abi->params = arena_strdup(a, sb_str(&params));
		abi->blobs = arena_strdup(a, sb_str(&blobs));
	} else {
		for (int i = 0; i < n; i++) {
			abi->ref[i] = tp->args[i].name;
			abi->widen[i] = arena_printf(a, "(int64_t)(%s)",
						     tp->args[i].name);
		}
	}
	sb_free(&params);
	sb_free(&blobs);
	hashset_free(&declared);
	return abi;
}

/* The root of value r (an argument) as the callback names it. */
static const char *tp_ref(const struct tp_abi *abi,
			  const struct value_recipe *r)
{
	return r && r->root == ROOT_ARG && r->arg >= 0 ? abi->ref[r->arg] :
	       "0";
}

/* The same widened to an int64_t. */
static const char *tp_widen(const struct tp_abi *abi,
			    const struct value_recipe *r)
{
	return r && r->root == ROOT_ARG && r->arg >= 0 ? abi->widen[r->arg] :
	       "0";
}

/* How probe dp reads its body's context value k. */
static const struct value_recipe *tp_value(const struct derived_probe *dp,
					   int k)
{
	return k < dp->attach.nvalues ? dp->attach.values[k] : NULL;
}

/*
 * v[k] for a chain $arg->a->b[2]: walk it from the argument's value with
 * the offsets BTF gave pass 2 (no kernel struct definitions needed), every
 * read fault-safe; a fault leaves its address in v[k] and sets bit k of
 * a.faults, and the body raises the error only if it reads v[k].
 */
static void gen_tp_path(FILE *out, const struct tp_abi *abi,
			const struct value_recipe *r, const char *name, int k,
			const char *in)
{
	/* stp_ names cannot clash with the tracepoint's arguments; a local
	 * label, as several probes' values may share one callback */
	fprintf(out, "%s{\t/* %s */\n%s\t__label__ fault;\n", in, name, in);
	fprintf(out, "%s\tu64 stp_addr = (u64)(unsigned long)(%s);\n", in,
		tp_ref(abi, r));
	gen_path_steps(out, r->steps, in);
	fprintf(out, "%s\tstp_v[%d] = (int64_t)stp_addr;\n", in, k);
	fprintf(out, "%s\tif (0) {\n%sfault:\n", in, in);
	fprintf(out, "%s\t\tstp_v[%d] = (int64_t)stp_addr;\n", in, k);
	fprintf(out, "%s\t\tstp_a.faults |= 1ULL << %d;\n%s\t}\n", in, k, in);
	fprintf(out, "%s}\n", in);
}

/* Fill v[] (the body's $x) and all[] (every argument) in a callback. */
static void gen_tp_values(FILE *out, const struct derived_probe *dp,
			  const struct tp_abi *abi, const char *indent,
			  bool with_v, bool with_all)
{
	const struct tracepoint_info *tp = tp_info(dp);
	const struct probe_body *b = dp->body;

	if (with_v)
		fprintf(out, "%sstp_a.faults = 0;\n", indent);
	for (int k = 0; with_v && k < b->nctxvars; k++) {
		const struct value_recipe *r = tp_value(dp, k);
		if (r && r->steps)
			gen_tp_path(out, abi, r, b->ctxvars[k]->name, k,
				    indent);
		else
			fprintf(out, "%sstp_v[%d] = %s;\n", indent, k,
				tp_widen(abi, r));
	}
	for (int a = 0; with_all && a < tp->nargs; a++)
		fprintf(out, "%sstp_all[%d] = %s;\n", indent, a,
			tp_scalar(tp->args[a].c_type) ? abi->widen[a] : "0");
}

/*
 * In a dispatch group of TP_SHARED_MIN or more probes with handlers
 * (syscall.*: one per system call), a case sets the probe and the kind
 * of its handler (what it uses of a context, whether it takes locks,
 * whether its frame is empty: at most TP_SHARED_KINDS kinds, the last
 * taking the rest), and one fast path per kind after
 * the switch runs it, the handler called through the table: a fast path
 * inlined into each case made 347 copies of it, most of the compiler's
 * work on syscall.*. A probe shares it when its value is its
 * own and its body is no lean one run inline (a filtered lean body's
 * counts stay in its case).
 */
#define TP_SHARED_MIN 8
#define TP_SHARED_KINDS 8
/* a kind's handlers take no locks; have empty frames (the last kind,
 * which takes the rest, may mix: then neither) */
#define KIND_NOLOCKS	0x10000u
#define KIND_BARE	0x20000u

static bool shared_run(const struct cg *cg, const int *group,
		       const int64_t *fval, const int *fcomp, int k)
{
	const struct program *prog = cg->prog;
	int b = prog->probes[k]->body->index;

	if (cg->nlean[b] >= 0 && cg->filtered[b])
		return false;
	for (int j = 0; j < prog->nprobes; j++)
		if (j != k && group[j] == group[k] && fval[j] == fval[k] &&
		    fcomp[j] == fcomp[k])
			return false;
	return true;
}

/*
 * The cases of dispatch group i's switch on its argument for the tasks
 * of one side (compat: 1 32-bit, 0 64-bit, -1 both): one case per value,
 * which several probes may want. kind[k] >= 0: probe k's handler runs
 * by the shared fast path after the switch (NULL: none does).
 */
static void gen_tp_cases(struct cg *cg, FILE *out, int i, const int *group,
			 const int64_t *fval, const int *fcomp, int compat,
			 const struct tp_abi *abi, const int *kind)
{
	const struct program *prog = cg->prog;

	for (int j = i; j < prog->nprobes; j++) {
		bool emitted = false;
		if (group[j] != i || fcomp[j] != compat)
			continue;
		for (int m = i; m < j && !emitted; m++)
			emitted = group[m] == i && fcomp[m] == compat &&
				  fval[m] == fval[j];
		if (emitted)
			continue;
		fprintf(out, "\tcase %" PRId64 "LL:\n", fval[j]);
		for (int k = j; k < prog->nprobes; k++) {
			if (group[k] != i || fcomp[k] != compat ||
			    fval[k] != fval[j])
				continue;
			gen_tp_values(out, prog->probes[k], abi, "\t\t",
				      true, false);
			if (kind && kind[k] >= 0)
				fprintf(out, "\t\tstp_p = &stp_probes[%d];"
					"\n\t\tstp_kind = %d;\n",
					table_index(prog, k), kind[k]);
			else
				gen_tp_run(cg, out, k, table_index(prog, k),
					   "\t\t");
		}
		fputs("\t\tbreak;\n", out);
	}
}

/*
 * Typed tracepoint callbacks, "void cb(void *data, TP_PROTO)" (checked
 * against the tracepoint by the header's check_trace_callback_type_NAME):
 * they widen the arguments to longs on their stack and run the probe with
 * them. One per probe (data is its table entry), or one per dispatch group
 * (see probe_number_filter: the probes of one tracepoint that all
 * filter on the same argument share one callback that switches on it, so
 * `syscall.*` costs one call per event; one that tells 64-bit from 32-bit
 * tasks does so once per hit, then switches on the number in that side's
 * own switch): the group's first entry registers it, the others are
 * tp_shared. group[i] is the probe's group leader, or -1.
 */
static void gen_tp_callbacks(struct cg *cg, FILE *out, int *group,
			     struct tp_abi **abis)
{
	const struct program *prog = cg->prog;
	const char **done = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*done));
	int ndone = 0;
	struct hashset blobs = { 0 };	/* the struct lines written */
	bool any = false;

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		abis[i] = NULL;
		if (!tp_typed(dp))
			continue;
		abis[i] = tp_abi_of(cg, tp_info(dp));
		if (!any)
			fputs("\n/* typed tracepoint callbacks */\n", out);
		any = true;
		if (abis[i]->own) {
			/* each struct once */
			for (const char *b = abis[i]->blobs; *b; ) {
				const char *e = strchr(b, '\n') + 1;
				char *line = arena_strndup(&cg->s->arena, b,
							   (size_t)(e - b));
				if (hashset_add(&blobs, fnv1a(FNV_OFFSET, line,
							   strlen(line))))
					fputs(line, out);
				b = e;
			}
			continue;
		}
		bool seen = false;
		for (int k = 0; k < ndone; k++)
			seen |= !strcmp(done[k], tp_info(dp)->header);
		if (seen)
			continue;
		const char *header = tp_info(dp)->header;
		done[ndone++] = header;
		fputs(dp->attach.tracepoint.decls ?
		      dp->attach.tracepoint.decls : "", out);
		fprintf(out, "#include %s%s%s\n", header[0] == '/' ? "\"" : "<",
			header, header[0] == '/' ? "\"" : ">");
	}
	free(done);
	hashset_free(&blobs);

	/* dispatch groups: same tracepoint, same filtered argument */
	const struct symbol **farg = xmalloc((size_t)(prog->nprobes + 1) *
					     sizeof(*farg));
	int64_t *fval = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*fval));
	int *fcomp = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*fcomp));
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		group[i] = -1;
		farg[i] = NULL;
		if (!tp_typed(dp) ||
		    !probe_number_filter(dp, &farg[i], &fval[i], &fcomp[i]))
			continue;
		/* the aliases that tell 32-bit tasks from 64-bit ones
		 * dispatch apart from those that do not */
		for (int j = 0; j < i && group[i] < 0; j++)
			if (farg[j] && !strcmp(farg[j]->name, farg[i]->name) &&
			    (fcomp[j] < 0) == (fcomp[i] < 0) &&
			    !strcmp(tp_info(prog->probes[j])->system,
				    tp_info(dp)->system) &&
			    !strcmp(tp_info(prog->probes[j])->name,
				    tp_info(dp)->name))
				group[i] = group[j] >= 0 ? group[j] : j;
		if (group[i] >= 0)
			group[group[i]] = group[i];
	}
	for (int i = 0; i < prog->nprobes; i++)
		if (farg[i] && fcomp[i] >= 0) {
			/* in_ia32_syscall() is <asm/thread_info.h>'s */
			fputs("\n#include <linux/thread_info.h>\n"
			      "/* Is this task in a 32-bit system call? */\n"
			      "static __always_inline int stp_sysc_compat(void)\n"
			      "{\n#ifdef CONFIG_IA32_EMULATION\n"
			      "\treturn in_ia32_syscall();\n#else\n"
			      "\treturn 0;\n#endif\n}\n", out);
			break;
		}

	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		const struct tracepoint_info *tp = tp_info(dp);
		if (!tp_typed(dp) || (group[i] >= 0 && group[i] != i))
			continue;
		int nv = dp->body->nctxvars;
		for (int j = i + 1; group[i] == i && j < prog->nprobes; j++)
			if (group[j] == i && prog->probes[j]->body->nctxvars > nv)
				nv = prog->probes[j]->body->nctxvars;
		const struct tp_abi *abi = abis[i];
		bool isvoid = !strcmp(tp->proto, "void");
		if (abi->own)
			fprintf(out, "static void stp_tp_cb_%d(void *stp_data%s)"
				"\n{\n", i, abi->params);
		else
			fprintf(out, "static void stp_tp_cb_%d(void *stp_data%s%s)"
				"\n{\n", i, isvoid ? "" : ", ",
				isvoid ? "" : tp->proto);
		fprintf(out, "\tint64_t stp_v[%d], stp_all[%d];\n"
			"\tstruct stp_tp_args stp_a = { .v = stp_v, "
			".all = stp_all };\n\n",
			nv ? nv : 1, tp->nargs ? tp->nargs : 1);
		if (!abi->own)
			fprintf(out, "\tcheck_trace_callback_type_%s("
				"stp_tp_cb_%d);\n", tp->name, i);
		if (group[i] != i) {
			/* its own callback: the entry is known here, so a
			 * lean probe's counts compile to immediates; the
			 * filter here, its `next` all a hit it rejects
			 * would do (the handler skips it: prefiltered) */
			gen_tp_values(out, dp, abi, "\t", true, true);
			if (!farg[i]) {
				fprintf(out, "\tstp_run_%d(&stp_probes[%d], "
					"&stp_a, NULL);\n}\n",
					dp->body->index, table_index(prog, i));
				continue;
			}
			const struct value_recipe *key =
				tp_value(dp, farg[i]->index);
			if (key->steps)
				fprintf(out, "\tif ((stp_a.faults & (1ULL << %d)) "
					"||\n\t    stp_v[%d] != %" PRId64 "LL",
					farg[i]->index, farg[i]->index,
					fval[i]);
			else
				fprintf(out, "\tif (%s != %" PRId64 "LL",
					tp_widen(abi, key), fval[i]);
			if (fcomp[i] >= 0)
				fprintf(out, " ||\n\t    stp_sysc_compat() != %d",
					fcomp[i]);
			fputs(")\n\t\treturn;\n", out);
			gen_tp_run(cg, out, i, table_index(prog, i), "\t");
			fputs("}\n", out);
			continue;
		}
		gen_tp_values(out, dp, abi, "\t", false, true);
		/* many handlers: the fast path once per set of what the
		 * handlers use (their STP_USE_* bits), after the switch */
		struct strbuf use[TP_SHARED_KINDS] = { { 0 } };
		unsigned kinds[TP_SHARED_KINDS];
		int nkinds = 0, nshared = 0, nterms[TP_SHARED_KINDS] = { 0 };
		int *kind = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*kind));
		for (int j = i; j < prog->nprobes; j++) {
			kind[j] = -1;
			if (group[j] != i ||
			    !shared_run(cg, group, fval, fcomp, j))
				continue;
			int b = prog->probes[j]->body->index, k = 0;
			unsigned key = cg->use[b] |
				(lock_plan_nlocks(cg->locks, b) ? 0 : KIND_NOLOCKS) |
				(cg->bare[b] ? KIND_BARE : 0);
			while (k < nkinds && kinds[k] != key)
				k++;
			if (k == nkinds && nkinds < TP_SHARED_KINDS)
				kinds[nkinds++] = key;
			else if (k == nkinds)
				/* the last kind takes the rest */
				kinds[--k] &= key | ~(KIND_NOLOCKS | KIND_BARE);
			kind[j] = k;
			sb_printf(&use[k], "%sSTP_USE_%d", !nterms[k] ? "" :
				  nterms[k] % 6 ? " | " : " |\n\t\t\t       ",
				  b);
			nterms[k]++;
			nshared++;
		}
		bool shared = nshared >= TP_SHARED_MIN;
		if (shared)
			fputs("\tconst struct stp_probe *stp_p = NULL;\n"
			      "\tint stp_kind = 0;\n\n", out);
		const struct value_recipe *key = tp_value(dp, farg[i]->index);
		const char *keyc = tp_widen(abi, key);
		if (key->steps) {
			/* the key once; a fault matches no case */
			fputs("\tstp_a.faults = 0;\n", out);
			gen_tp_path(out, abi, key, farg[i]->name,
				    farg[i]->index, "\t");
			/* braced: an else of the compat test below is not
			 * this if's (-Wdangling-else) */
			fputs("\tif (!stp_a.faults) {\n", out);
			keyc = arena_printf(&cg->s->arena, "stp_v[%d]",
					    farg[i]->index);
		}
		/* 32-bit or 64-bit task, decided once: each side its own
		 * switch, so a number both have is a case in each */
		if (fcomp[i] >= 0)
			fputs("\tif (stp_sysc_compat())\n", out);
		for (int side = fcomp[i] >= 0; side >= 0; side--) {
			if (fcomp[i] >= 0 && !side)
				fputs("\telse\n", out);
			fprintf(out, "\tswitch (%s) {\n", keyc);
			gen_tp_cases(cg, out, i, group, fval, fcomp,
				     fcomp[i] >= 0 ? side : -1, abi,
				     shared ? kind : NULL);
			fputs("\t}\n", out);
		}
		if (key->steps)
			fputs("\t}\n", out);
		for (int k = 0; shared && k < nkinds; k++)
			fprintf(out, "\t%sif (stp_p && stp_kind == %d)\n\t\t"
				"stp_probe_fast(stp_p, stp_p->handler,\n\t\t\t"
				"       %s%s,\n\t\t\t       %s, &stp_a, NULL);\n",
				k ? "else " : "", k, sb_str(&use[k]),
				kinds[k] & KIND_NOLOCKS ? " |\n\t\t\t       "
				"STP_USE_NOLOCKS" : "", kinds[k] & KIND_BARE ?
				"1" : "stp_p->frame_size");
		for (int k = 0; k < nkinds; k++)
			sb_free(&use[k]);
		free(kind);
		fputs("}\n", out);
	}
	free(farg);
	free(fval);
	free(fcomp);
}

/*
 * $$parms tables of probe i (struct stp_tp_parm[], see runtime/pretty.h),
 * one per mode the body uses: mode 0 prints each argument "%p" (a
 * pointer) or "%#x", modes 1 and 2 its pretty printing ("=?" when its
 * type is unknown), as SystemTap 4.8 does.
 */
static void gen_tp_parms(struct cg *cg, FILE *out, int i)
{
	const struct derived_probe *dp = cg->prog->probes[i];
	const struct tracepoint_info *tp = tp_info(dp);

	for (int m = 0; m < 3; m++) {
		if (!(dp->body->parms_modes & (1u << m)))
			continue;
		for (int k = 0; m && k < tp->nargs; k++) {
			const struct pretty *p = dp->attach.tracepoint.parms_pretty[m] ?
				dp->attach.tracepoint.parms_pretty[m][k] : NULL;
			if (!p)
				continue;
			fprintf(out, "static const struct stp_pp_item "
				"stp_tppi_%d_%d_%d[] = {\n", i, m, k);
			pretty_items(cg, out, p, "\t");
			fprintf(out, "};\nstatic const struct stp_pretty "
				"stp_tpp_%d_%d_%d = { stp_tppi_%d_%d_%d, %d };\n",
				i, m, k, i, m, k, p->nitems);
		}
		fprintf(out, "static const struct stp_tp_parm stp_tp_parms_%d_%d[] "
			"= {\n", i, m);
		for (int k = 0; k < tp->nargs; k++) {
			const char *name = tp->args[k].name;
			const char *sep = k ? " " : "";
			if (!m) {
				fprintf(out, "\t{ \"%s%s=\", &stp_pp_%s, %d },\n",
					sep, name, strchr(tp->args[k].c_type, '*') ?
					"ptr" : "hex", k);
			} else if (dp->attach.tracepoint.parms_pretty[m] &&
				   dp->attach.tracepoint.parms_pretty[m][k]) {
				fprintf(out, "\t{ \"%s%s=\", &stp_tpp_%d_%d_%d, "
					"%d },\n", sep, name, i, m, k, k);
			} else {
				fprintf(out, "\t{ \"%s%s=?\", NULL, %d },\n", sep,
					name, k);
			}
		}
		fputs("\t{ NULL }\n};\n", out);
	}
}

static const char *probe_type(const struct derived_probe *dp)
{
	(void)dp;
	return "STP_PROBE_EVENT";
}

/* A probe whose callback checks the body's filter itself
 * (probe_number_filter). */
static bool filters(const struct derived_probe *dp)
{
	const struct symbol *arg;
	int64_t value;
	int compat;

	return tp_typed(dp) && probe_number_filter(dp, &arg, &value, &compat);
}

/*
 * The typed callbacks and their dispatch groups (kept for the table's
 * fields), the $$parms tables, and a lean body's own callback on its
 * first untyped probe: the counts compile to immediates.
 */
static void support(struct cg *cg, FILE *out)
{
	const struct program *prog = cg->prog;
	int *group = xmalloc((size_t)(prog->nprobes + 1) * sizeof(*group));
	bool parms = false;

	struct tp_abi **abis = xmalloc((size_t)(prog->nprobes + 1) *
				       sizeof(*abis));

	*kind_state(cg, ATTACH_TRACEPOINT) = group;
	gen_tp_callbacks(cg, out, group, abis);
	free(abis);
	for (int i = 0; i < prog->nprobes; i++)
		parms |= tp_typed(prog->probes[i]) &&
			 prog->probes[i]->body->parms_modes;
	if (parms)
		fputs("\n/* $$parms */\n"
		      "static const struct stp_pp_item stp_ppi_hex[] = {\n"
		      "\t{ \"\", 'x', STP_PP_VALUE }, { \"\" } };\n"
		      "static const struct stp_pretty stp_pp_hex __maybe_unused = "
		      "{ stp_ppi_hex, 2 };\n"
		      "static const struct stp_pp_item stp_ppi_ptr[] = {\n"
		      "\t{ \"\", 'p', STP_PP_VALUE }, { \"\" } };\n"
		      "static const struct stp_pretty stp_pp_ptr __maybe_unused = "
		      "{ stp_ppi_ptr, 2 };\n", out);
	for (int i = 0; i < prog->nprobes; i++)
		if (tp_typed(prog->probes[i]) &&
		    prog->probes[i]->body->parms_modes)
			gen_tp_parms(cg, out, i);
	/* an untyped probe with a handler: its own callback, the
	 * handler inlined */
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		int b = dp->body->index;
		if (dp->attach.kind == ATTACH_TRACEPOINT && !tp_typed(dp) &&
		    (cg->nlean[b] < 0 || cg->filtered[b]))
			fprintf(out, "STP_TP_HIT(stp_tp_hit_%d, stp_run_%d, "
				"&stp_probes[%d])\n", i, b,
				table_index(prog, i));
	}
	/* a lean body's hit: with its first untyped probe's entry */
	int *first = xmalloc(((size_t)prog->nbodies + 1) * sizeof(*first));
	for (int b = 0; b < prog->nbodies; b++)
		first[b] = -1;
	for (int i = prog->nprobes - 1; i >= 0; i--) {
		const struct derived_probe *dp = prog->probes[i];
		if (dp->attach.kind == ATTACH_TRACEPOINT && !tp_typed(dp))
			first[dp->body->index] = i;
	}
	for (int b = 0; b < prog->nbodies; b++)
		if (cg->nlean[b] >= 0 && !cg->filtered[b] && first[b] >= 0)
			fprintf(out, "STP_TP_LEAN_HIT(stp_tp_lean_%d, "
				"&stp_probes[%d])\n", b,
				table_index(prog, first[b]));
	free(first);
}

static void fields(struct cg *cg, int i, FILE *out)
{
	const struct derived_probe *dp = cg->prog->probes[i];
	const int *group = *kind_state(cg, ATTACH_TRACEPOINT);
	const struct attach_tracepoint *t = &dp->attach.tracepoint;
	int lb = dp->body->index;

	fprintf(out, ",\n\t  .name = %s", c_string(cg, t->name,
						      strlen(t->name)));
	if (t->info)
		fprintf(out, ", .system = %s", c_string(cg, t->info->system,
			strlen(t->info->system)));
	if (t->info && t->info->in_module)
		fputs(", .in_module = true", out);
	if (tp_typed(dp) && group[i] >= 0 && group[i] != i)
		fprintf(out, ",\n\t  .shared = true");
	else if (tp_typed(dp))
		fprintf(out, ",\n\t  .callback = stp_tp_cb_%d", i);
	else if (cg->nlean[lb] >= 0 && !cg->filtered[lb])
		fprintf(out, ",\n\t  .callback = stp_tp_lean_%d", lb);
	else
		fprintf(out, ",\n\t  .callback = stp_tp_hit_%d", i);
	if (tp_typed(dp) && dp->body->parms_modes) {
		fputs(",\n\t  .parms = {", out);
		for (int m = 0; m < 3; m++)
			if (dp->body->parms_modes & (1u << m))
				fprintf(out, " [%d] = stp_tp_parms_%d_%d,",
					m, i, m);
		fputs(" }", out);
	}
}

/* $$parms (three modes), $$system, $$name. */
static const char *context_value(struct cg *cg, struct node *n)
{
	const char *name = n->kind == N_ATFUNC ? n->call.name :
			   n->target.name;

	if (!strncmp(name, "$$parms", 7) || !strncmp(name, "$$vars", 6)) {
		/* $$parms, $$parms$, $$parms$$: mode 0, 1, 2 */
		const char *t = tmp_string(cg), *scratch = tmp_string(cg);
		size_t len = strlen(name), mode = 0;
		while (mode < 2 && name[len - 1 - mode] == '$')
			mode++;
		emit(cg, "stp_tp_parms(c, %s, %zu, %s);", t, mode, scratch);
		return t;
	}
	if (!strcmp(name, "$$system"))
		return "stp_tp_of(c)->system";
	if (!strcmp(name, "$$name"))
		return "stp_tp_of(c)->name";
	unsupported(cg, n, ast_kind_name(n->kind));
	return "0";
}

const struct kind_emit emit_tracepoint = {
	.probe_type = probe_type,
	.event = true,
	.lean = true,
	.own_hits = true,
	.filters = filters,
	.support = support,
	.table_type = "struct stp_tp_probe",
	.table_name = "stp_tp_probes",
	.table_ops = "stp_tracepoint_kind",
	.fields = fields,
	.context = context_value,
};

