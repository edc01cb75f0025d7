// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: the elaborated program as one C file. Its
 * kernel half (#ifdef __bpf__) is built by clang -target bpf: the maps,
 * the globals (.bss, mmapped by the loader too) and one program per
 * kernel probe (attach.c). Its user half is built by cc -shared and run
 * by the loader: begin, end and timer bodies, whose map accesses are
 * bpf(2) calls on the same maps. A body is emitted once per half that
 * runs it (emit_stmt.c), so the two cannot disagree on layouts.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/emit.h"

/* struct stp_rt as the generated C declares it, from bpf.h's list */
#define RT_MEMBER_TEXT(ret, name, args) #ret " (*" #name ")" #args "; "
static const char rt_decl[] = "struct stp_rt { int *map_fds; void *globals; "
	"int ncpus; " STP_RT_FUNCS(RT_MEMBER_TEXT) "};\n";

static void mark_callees(const struct probe_body *b, bool *in_kernel)
{
	for (int i = 0; i < b->ncallees; i++) {
		const struct script_func *f = b->callees[i];
		if (in_kernel[f->index])
			continue;
		in_kernel[f->index] = true;
		/* this backend's own version runs, not the tapset's body */
		if (!bpf_func_native(f))
			mark_callees(f->scope, in_kernel);
	}
}

/* The functions kernel probes call, directly or not. */
static void kernel_functions(const struct program *prog, bool *in_kernel)
{
	for (int j = 0; j < prog->nprobes; j++)
		if (bpf_place_in_kernel(bpf_place_of(prog->probes[j], NULL,
							     NULL)))
			mark_callees(prog->probes[j]->body, in_kernel);
}

/* The most context values a body reads (the scratch's slots). */
static int max_ctxvars(const struct program *prog)
{
	int n = 1;

	for (int i = 0; i < prog->nbodies; i++)
		if (prog->bodies[i]->nctxvars > n)
			n = prog->bodies[i]->nctxvars;
	return n;
}

/*
 * What a catch in the kernel half receives (stp_kwhat): the error's
 * message without "near ..."; a fault's with its address, formatted by
 * bpf_snprintf from a constant of .rodata as the loader formats it.
 */
static void kernel_whats(struct emitter *e, FILE *out)
{
	fputs("static __attribute__((noinline)) void stp_kwhat(char *d, "
	      "unsigned id, unsigned long long addr)\n{\n\tswitch (id) {\n",
	      out);
	for (int i = 0; i < e->nerrors; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e->whats[i];
		str.str.len = strlen(e->whats[i]);
		e->out = out;
		if (strchr(e->whats[i], '%')) {
			fprintf(out, "\tcase %d: { static const char f[] = ", i);
			bpf_emit_expr(e, &str);
			fputs("; bpf_snprintf(d, STP_STR, f, &addr, 8); break; }\n",
			      out);
		} else {
			fprintf(out, "\tcase %d: STRCPY(d, ", i);
			bpf_emit_expr(e, &str);
			fputs("); break;\n", out);
		}
	}
	fputs("\tdefault: d[0] = 0;\n\t}\n}\n", out);
}

int bpf_emit(struct session *s, struct program *prog, FILE *out)
{
	struct emitter e = { .s = s, .prog = prog };
	char *kbuf = NULL, *ubuf = NULL, *dbuf = NULL;
	size_t klen = 0, ulen = 0, dlen = 0;
	FILE *kf = open_memstream(&kbuf, &klen);
	FILE *uf = open_memstream(&ubuf, &ulen);
	e.decls = open_memstream(&dbuf, &dlen);
	char *kdbuf = NULL;
	size_t kdlen = 0;
	e.decls_kernel = open_memstream(&kdbuf, &kdlen);

	for (int i = 0; i < prog->nglobals; i++)
		prog->globals[i]->index = i;
	/* the functions kernel probes call, inlined there: each with
	 * scratch slots of its own (no recursion, pass 2) */
	char *fbuf = NULL;
	size_t flen = 0;
	FILE *ff = open_memstream(&fbuf, &flen);
	bool *in_kernel = calloc((size_t)prog->nfuncs + 1, sizeof(bool));
	kernel_functions(prog, in_kernel);
	e.kernel = true;
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!in_kernel[f->index] || bpf_func_native(f))
			continue;
		/* before the kernel's file-scope helpers, which call them */
		bpf_func_signature(&e, f, e.decls_kernel);
		fputs(";\n", e.decls_kernel);
	}
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!in_kernel[f->index] || bpf_func_native(f))
			continue;
		e.tmp_base = e.maxtmp;
		bpf_emit_function(&e, f, ff);
	}
	free(in_kernel);
	fclose(ff);
	int kernel_base = e.maxtmp;
	/* each body in the halves that run it */
	for (int i = 0; i < prog->nbodies; i++) {
		struct probe_body *b = prog->bodies[i];
		bool k = false, u = false;
		if (b->func)
			continue;
		for (int j = 0; j < prog->nprobes; j++) {
			if (prog->probes[j]->body != b)
				continue;
			enum bpf_place p = bpf_place_of(prog->probes[j], NULL,
							NULL);
			k |= bpf_place_in_kernel(p);
			u |= p == BPF_PLACE_BEGIN || p == BPF_PLACE_END ||
			     p == BPF_PLACE_TIMER;
		}
		e.kernel = true;
		e.tmp_base = kernel_base;
		if (k)
			bpf_emit_body(&e, b, kf);
		e.kernel = false;
		e.tmp_base = 0;
		if (u)
			bpf_emit_body(&e, b, uf);
	}
	/* the script functions, in the user half (pass 2 refuses calls in
	 * the kernel's): declared first, for recursion */
	e.kernel = false;
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!f->used || bpf_func_native(f))
			continue;
		bpf_func_signature(&e, f, e.decls);
		fputs(";\n", e.decls);
		bpf_emit_function(&e, f, uf);
	}
	fclose(kf);
	fclose(uf);
	fclose(e.decls);
	fclose(e.decls_kernel);
	e.out = out;

	int ntmps = e.maxtmp > 0 ? e.maxtmp : 1;
	fprintf(out, "/* stap --runtime=bpf: clang -target bpf for the kernel "
		"half, cc -shared for the loader's */\n#define STP_TMPS %d\n"
		"#define STP_NCTX %d\n", ntmps, max_ctxvars(prog));
	/* the scratch (struct stp_scratch, about this size): a per-CPU
	 * array's value is at most 32 KiB (the kernel's PCPU_MIN_UNIT_SIZE),
	 * about 60 strings; past that an array of one element a CPU (the
	 * loader sets max_entries, bpf_scratch_size in loader.c) */
	long scratch = (long)ntmps * (BPF_STRLEN + 8) + 8L * max_ctxvars(prog) +
		       BPF_STRLEN + 128;
	fputs(scratch > 32768 ?
	      "#define STP_SCR_TYPE BPF_MAP_TYPE_ARRAY\n"
	      "#define STP_SCR_KEY bpf_get_smp_processor_id()\n" :
	      "#define STP_SCR_TYPE BPF_MAP_TYPE_PERCPU_ARRAY\n"
	      "#define STP_SCR_KEY 0\n", out);
	/* MAXERRORS: the kernel half stops its probes past it (STP_FAIL),
	 * the loader ends the run (stp_max_errors) */
	fprintf(out, "#define STP_MAXERRORS %lldLL\n",
		bpf_limit(s, "MAXERRORS"));
	/* the prelude, struct stp_rt's declaration in it (bpf.h) */
	const char *decl = strstr(bpf_prelude, "STP_RT_DECL");
	fwrite(bpf_prelude, 1, (size_t)(decl - bpf_prelude), out);
	fputs(rt_decl, out);
	fputs(decl + strlen("STP_RT_DECL"), out);
	fputs(bpf_prelude_sysc, out);
	fputs(bpf_prelude_task, out);
	/* HZ(): the target kernel's (refuse.c refuses it when unknown) */
	fprintf(out, "#define STP_HZ %luLL\n", bpf_kernel_hz());
	/* the globals: scalars in .bss, arrays as hash maps */
	/* the loader's fields first (bpf.h, struct stp_globals_head) */
	fputs("struct stp_globals {\n\tlong long stp_time_off;\n"
	      "\tunsigned long long stp_lost, stp_lost_errors, stp_exit;\n"
	      "\tlong long stp_target, stp_loader_pid;\n"
	      "\tunsigned long long stp_nerr;\n",
	      out);
	bpf_wrap_globals(out, prog);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (g->nkeys || g->type == TY_STATS)
			continue;
		if (g->type == TY_STRING)
			fprintf(out, "\tchar g%d[STP_STR];\n", i);
		else
			fprintf(out, "\tlong long g%d;\n", i);
	}
	/* room after the last string for stp_strcat's bounds (prelude) */
	fputs("\tchar stp_pad[STP_STR];\n};\n", out);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		if (!g->nkeys)
			continue;
		fprintf(out, "struct stp_k%d {", i);
		for (int k = 0; k < g->nkeys; k++)
			fprintf(out, g->key_types[k] == TY_STRING ?
				" char k%d[STP_STR];" : " long long k%d;", k);
		fputs(" };\n", out);
		if (g->type != TY_STATS)
			fprintf(out, "struct stp_e%d { struct stp_k%d k; %s v; };\n",
				i, i, bpf_ctype(g->type));
	}
	for (int i = 0; i < prog->nglobals; i++)
		if (prog->globals[i]->type == TY_STATS)
			bpf_stat_decls(out, prog->globals[i]);
	for (int i = 0; i < e.nfmts; i++) {
		fprintf(out, "struct stp_rec%d { struct stp_hdr h;", i);
		for (int a = 0; e.fmts[i].types[a]; a++)
			fprintf(out, e.fmts[i].types[a] == 's' ?
				" char a%d[STP_STR];" : " long long a%d;", a);
		fputs(" };\n", out);
	}
	fprintf(out, "#ifdef __bpf__\nstruct stp_globals G;\n"
		"struct stp_scratch { char t[STP_TMPS][STP_STR]; "
		"long long c[STP_NCTX], ret; unsigned long long fm; int err; "
		"unsigned probe; int trying; unsigned errid; "
		"unsigned long long erraddr; long act, depth; long long v[STP_TMPS]; "
		"int busy; "
		"char errmsg[STP_STR]; "
		/* a tracepoint's $$parms (attach.c) */
		"char parms[STP_STR]; "
		"};\n"
		"struct stp_fc { struct stp_scratch *S; long max; "
		"long long *rv; char *ret; long long lim; int done, "
		"trying0; };\n"
		"static __attribute__((noinline)) void stp_kwhat(char *d, "
		"unsigned id, unsigned long long addr);\n"
		"struct { __uint(type, STP_SCR_TYPE); "
		"__uint(max_entries, 1); __type(key, __u32); __type(value, "
		"struct stp_scratch); } stp_scr SEC(\".maps\");\n");
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		long long max = bpf_map_size(s, g);
		if (g->type == TY_STATS && !g->nkeys) {
			fprintf(out, "struct { __uint(type, "
				"BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, "
				"1); __type(key, __u32); __type(value, struct "
				"stp_s%d); } stp_m%d SEC(\".maps\");\n", i, i);
			continue;
		}
		if (!g->nkeys)
			continue;
		if (g->type == TY_STATS) {
			fprintf(out, "struct { __uint(type, "
				"BPF_MAP_TYPE_PERCPU_HASH); __uint(max_entries, "
				"%lld); __type(key, struct stp_k%d); __type(value,"
				" struct stp_s%d); } stp_m%d SEC(\".maps\");\n"
				"const struct stp_s%d stp_z%d;\n", max, i, i, i,
				i, i);
			continue;
		}
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_HASH); "
			"__uint(max_entries, %lld); __type(key, struct stp_k%d);"
			" __type(value, %s); } stp_m%d SEC(\".maps\");\n", max,
			i, bpf_ctype(g->type), i);
	}
	for (int i = 0; i < prog->nglobals; i++)
	{
		if (prog->globals[i]->type == TY_STATS)
			bpf_stat_kernel_reader(out, prog->globals[i]);
		if (prog->globals[i]->nkeys ||
		    prog->globals[i]->type == TY_STATS)
			bpf_kernel_clearer(out, prog->globals[i]);
	}
	bpf_wrap_kernel_decls(out, s, prog);
	bpf_emit_uprobe_names(prog, out);
	bpf_emit_ustack(s, prog, out);
	bpf_emit_kstack(prog, out);
	fwrite(kdbuf, 1, kdlen, out);
	free(kdbuf);
	fwrite(fbuf, 1, flen, out);
	fwrite(kbuf, 1, klen, out);
	free(fbuf);
	if (e.kernel_try)
		kernel_whats(&e, out);
	if (bpf_emit_programs(s, prog, out))
		s->nerrors++;
	fputs("#else\n", out);
	bpf_wrap_user_decls(out, prog);
	fwrite(dbuf, 1, dlen, out);
	fwrite(ubuf, 1, ulen, out);
	/* the loader's tables: begin(N) and end(N) in order of N, then
	 * of the script (the module's order) */
	static const char *const lists[] = { "begin", "end" };
	for (int l = 0; l < 2; l++) {
		fprintf(out, "void (*const stp_%s[])(void) = { ", lists[l]);
		long long lo = 0, hi = 0;
		for (int round = 0; round < 2; round++)
			for (int j = 0; j < prog->nprobes; j++) {
				const char *pp = prog->probes[j]->pp;
				long long prio = strchr(pp, '(') ?
					strtoll(strchr(pp, '(') + 1, NULL, 0) : 0;
				if (bpf_place_of(prog->probes[j], NULL, NULL) !=
				    (l ? BPF_PLACE_END : BPF_PLACE_BEGIN))
					continue;
				if (round == 0) {
					lo = prio < lo ? prio : lo;
					hi = prio > hi ? prio : hi;
				}
			}
		/* few distinct priorities in practice: one pass each */
		for (long long p = lo; p <= hi; p++) {
			long long next = hi + 1;
			for (int j = 0; j < prog->nprobes; j++) {
				const char *pp = prog->probes[j]->pp;
				long long prio = strchr(pp, '(') ?
					strtoll(strchr(pp, '(') + 1, NULL, 0) : 0;
				if (bpf_place_of(prog->probes[j], NULL, NULL) !=
				    (l ? BPF_PLACE_END : BPF_PLACE_BEGIN))
					continue;
				if (prio == p)
					fprintf(out, "stp_b%d, ",
						prog->probes[j]->body->index);
				else if (prio > p && prio < next)
					next = prio;
			}
			p = next - 1;
		}
		fputs("NULL };\n", out);
	}
	fputs("const struct { unsigned long long ns, rand_ns; "
	      "void (*fn)(void); } stp_timers[] = { ", out);
	for (int j = 0; j < prog->nprobes; j++) {
		unsigned long long ns;
		if (bpf_place_of(prog->probes[j], NULL, &ns) == BPF_PLACE_TIMER)
			fprintf(out, "{ %lluULL, %lluULL, stp_b%d }, ", ns,
				bpf_timer_randomize_ns(prog->probes[j]),
				prog->probes[j]->body->index);
	}
	fputs("{ 0, 0, NULL } };\n", out);
	bpf_emit_perf_table(prog, out);
	fputs("const struct { const char *fmt; unsigned len; "
	      "const char *types; } stp_fmts[] = {\n", out);
	for (int i = 0; i < e.nfmts; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.fmts[i].fmt;
		str.str.len = e.fmts[i].len;
		fputs("\t{ ", out);
		bpf_emit_expr(&e, &str);
		fprintf(out, ", %zu, \"%s\" },\n", e.fmts[i].len,
			e.fmts[i].types);
	}
	fputs("\t{ NULL, 0, NULL } };\nconst char *const stp_error_whats[] = {\n",
	      out);
	for (int i = 0; i < e.nerrors; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.whats[i];
		str.str.len = strlen(e.whats[i]);
		fputs("\t", out);
		bpf_emit_expr(&e, &str);
		fputs(",\n", out);
	}
	fputs("\tNULL };\nconst char *const stp_errors[] = {\n", out);
	for (int i = 0; i < e.nerrors; i++) {
		struct node str = { .kind = N_STRING };
		str.str.value = e.errors[i];
		str.str.len = strlen(e.errors[i]);
		fputs("\t", out);
		bpf_emit_expr(&e, &str);
		fputs(",\n", out);
	}
	fprintf(out, "\tNULL };\nconst long long stp_max_errors = "
		"STP_MAXERRORS;\nconst int stp_nmaps = %d;\n"
		"void stp_user_init(struct stp_rt *r)\n{\n\trt = r;\n",
		/* a wrapping array's order maps are stp_m<nglobals + N>
		 * and stp_m<2 * nglobals + N> (emit_wrap.c) */
		bpf_program_wraps(prog) ? 3 * prog->nglobals : prog->nglobals);
	for (int i = 0; i < prog->nglobals; i++) {
		const struct symbol *g = prog->globals[i];
		const struct node *init = g->decl ? g->decl->global.init : NULL;
		if (g->nkeys || !init)
			continue;
		if (g->type == TY_STRING) {
			fprintf(out, "\tstp_strcpy(G.g%d, ", i);
			bpf_emit_expr(&e, init);
			fputs(");\n", out);
		} else {
			fprintf(out, "\tG.g%d = ", i);
			bpf_emit_expr(&e, init);
			fputs(";\n", out);
		}
	}
	fputs("}\n#endif\n", out);
	free(e.fmts);
	free(e.errors);
	free(e.whats);
	free(kbuf);
	free(ubuf);
	free(dbuf);
	return s->nerrors ? 1 : 0;
}
