// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: wrapping arrays (`global a%[N]`). When the
 * array is full, a new key replaces the oldest created, as the module's
 * map does (runtime/map.c; 4.8's _new_map_create takes the head of its
 * list in creation order; a store to an existing key does not move it).
 *
 * A BPF hash map keeps no order, so each wrapping array N numbers its
 * keys as they are created (the globals' stp_wtN, its tail) in two more
 * hash maps: key -> number (stp_m<nglobals + N>) and number -> key
 * (stp_m<2 * nglobals + N>; the loader finds them by the arrays' name
 * pattern). A store that finds the array full (E2BIG) takes the next
 * number from the head (stp_whN, an atomic add: two CPUs evicting at once
 * take two different keys, where a shared search would find the same
 * one) and deletes that key, skipping numbers whose key was deleted or
 * numbered again, then stores again: up to 16 times, as another CPU may
 * store a new key into the freed place first (the module takes a lock);
 * a CPU that loses all 16 races reports the array's overflow, as a plain
 * array does (seen with 4 tries: once in about 10^7 stores of a new key
 * on one CPU in a tight loop against another CPU's stores).
 * The tries are a global function (stp_wevictN), which the verifier
 * checks once for the whole program, over a per-CPU copy of the key and
 * value (a global function's pointer argument is no map key on 6.1);
 * inlined at each store, 6.1's verifier walked them once per store and
 * per state reaching it (wrap_arrays' string keys: over its million
 * instructions). A store that finds room stays inline, as before.
 * A delete removes the key and its number. Each number is taken from the
 * head once, so a store costs O(1) amortized; one eviction skips at most
 * 2^23 deleted numbers (bpf_loop's bound).
 * An array of statistics (`global s%[N]` with `<<<`) is one per-CPU hash
 * map here, so its keys are numbered and evicted as one array's: the
 * oldest key created on any CPU goes, with every CPU's part of its
 * statistic. The module keeps a map per CPU, each evicting its own
 * oldest, and wraps again when it merges them: the same keys where one
 * CPU stores them (a begin probe, a test pinned to a CPU), not
 * necessarily where several CPUs fill the array at once.
 */
#include "bpf/emit.h"

bool bpf_wraps(const struct symbol *sym)
{
	return sym && sym->nkeys && sym->decl && sym->decl->global.wrap;
}

bool bpf_program_wraps(const struct program *prog)
{
	for (int i = 0; i < prog->nglobals; i++)
		if (bpf_wraps(prog->globals[i]))
			return true;
	return false;
}

/* The counters, in struct stp_globals (both halves update them). */
void bpf_wrap_globals(FILE *out, const struct program *prog)
{
	for (int n = 0; n < prog->nglobals; n++)
		if (bpf_wraps(prog->globals[n]))
			fprintf(out, "\tunsigned long long stp_wt%d, stp_wh%d;\n",
				n, n);
}

/* The kernel half: the maps and stp_wupdateN, stp_wdeleteN, stp_wclearN. */
void bpf_wrap_kernel_decls(FILE *out, const struct session *s,
			   const struct program *prog)
{
	int ng = prog->nglobals;

	for (int n = 0; n < ng; n++) {
		const struct symbol *g = prog->globals[n];
		if (!bpf_wraps(g))
			continue;
		long long max = bpf_map_size(s, g);
		int ks = ng + n, sk = 2 * ng + n;
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_HASH); "
			"__uint(max_entries, %lld); __type(key, struct stp_k%d); "
			"__type(value, unsigned long long); } stp_m%d "
			"SEC(\".maps\");\n"
			"struct { __uint(type, BPF_MAP_TYPE_HASH); "
			"__uint(max_entries, %lld); __type(key, unsigned long "
			"long); __type(value, struct stp_k%d); } stp_m%d "
			"SEC(\".maps\");\n", max, n, ks, max, n, sk);
		/* the key being evicted, and the store's key and value the
		 * tries take: a per-CPU slot (a key with strings is too big
		 * for the stack) */
		char vtype[32];	/* a statistic's aggregate, else a scalar */
		if (g->type == TY_STATS)
			snprintf(vtype, sizeof(vtype), "struct stp_s%d", n);
		else
			snprintf(vtype, sizeof(vtype), "%s",
				 bpf_ctype(g->type));
		fprintf(out, "struct stp_wold%d { int found; struct stp_k%d k; "
			"struct stp_k%d nk; %s nv; };\n"
			"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
			"__uint(max_entries, 1); __type(key, __u32); "
			"__type(value, struct stp_wold%d); } stp_wo%d "
			"SEC(\".maps\");\n", n, n, n, vtype, n, n);
		/* one number from the head: 1 when its key was evicted or
		 * nothing is left */
		fprintf(out, "static long stp_wpop%d(__u64 i, void *ctx)\n{\n"
			"\t__u32 z = 0;\n"
			"\tstruct stp_wold%d *w = bpf_map_lookup_elem(&stp_wo%d, "
			"&z);\n\tif (!w)\n\t\treturn 1;\n"
			"\tunsigned long long h = __sync_fetch_and_add(&G.stp_wh%d, "
			"1);\n"
			"\tif (h >= G.stp_wt%d)\n\t\treturn 1;\n"
			"\tstruct stp_k%d *kp = bpf_map_lookup_elem(&stp_m%d, &h);\n"
			"\tif (!kp)\n\t\treturn 0;\n"
			"\t__builtin_memcpy(&w->k, kp, sizeof(w->k));\n"
			"\tbpf_map_delete_elem(&stp_m%d, &h);\n"
			"\tunsigned long long *sp = bpf_map_lookup_elem(&stp_m%d, "
			"&w->k);\n"
			"\tif (!sp || *sp != h)\n\t\treturn 0;\n"
			"\tbpf_map_delete_elem(&stp_m%d, &w->k);\n"
			"\tbpf_map_delete_elem(&stp_m%d, &w->k);\n"
			"\tw->found = 1;\n\treturn 1;\n}\n",
			n, n, n, n, n, n, sk, sk, ks, ks, n);
		/* int: 6.1 calls a map's update directly, whose int result
		 * comes back zero-extended (-7 as 4294967289) */
		fprintf(out, "__attribute__((noinline)) long stp_wevict%d(void)\n"
			"{\n\t__u32 z = 0;\n"
			"\tstruct stp_wold%d *w = bpf_map_lookup_elem(&stp_wo%d, "
			"&z);\n\tif (!w)\n\t\treturn -7;\n"
			"\tint r = -7;\n"
			"\tfor (int i = 0; i < 16 && r == -7; i++) {\n"
			"\t\tbpf_loop(1 << 23, stp_wpop%d, 0, 0);\n"
			"\t\tr = bpf_map_update_elem(&stp_m%d, &w->nk, &w->nv, "
			"BPF_NOEXIST);\n"
			"\t\tif (r == -17)\n"
			"\t\t\treturn bpf_map_update_elem(&stp_m%d, &w->nk, "
			"&w->nv, BPF_ANY);\n\t}\n"
			"\tif (!r) {\n"
			"\t\tunsigned long long s = __sync_fetch_and_add("
			"&G.stp_wt%d, 1);\n"
			"\t\tbpf_map_update_elem(&stp_m%d, &w->nk, &s, BPF_ANY);\n"
			"\t\tbpf_map_update_elem(&stp_m%d, &s, &w->nk, BPF_ANY);\n"
			"\t}\n\treturn r;\n}\n",
			n, n, n, n, n, n, n, ks, sk);
		fprintf(out, "STP_INLINE long stp_wupdate%d(const void *k, "
			"const void *v)\n{\n"
			"\tint r = bpf_map_update_elem(&stp_m%d, k, v, "
			"BPF_NOEXIST);\n"
			"\tif (r == -17)\n"
			"\t\treturn bpf_map_update_elem(&stp_m%d, k, v, BPF_ANY);\n"
			"\tif (r == -7) {\n\t\t__u32 z = 0;\n"
			"\t\tstruct stp_wold%d *w = bpf_map_lookup_elem("
			"&stp_wo%d, &z);\n"
			"\t\tif (!w)\n\t\t\treturn r;\n"
			"\t\tbpf_probe_read_kernel(&w->nk, sizeof(w->nk), k);\n"
			"\t\tbpf_probe_read_kernel(&w->nv, sizeof(w->nv), v);\n"
			"\t\treturn stp_wevict%d();\n\t}\n"
			"\tif (!r) {\n"
			"\t\tunsigned long long s = __sync_fetch_and_add("
			"&G.stp_wt%d, 1);\n"
			"\t\tbpf_map_update_elem(&stp_m%d, k, &s, BPF_ANY);\n"
			"\t\tbpf_map_update_elem(&stp_m%d, &s, k, BPF_ANY);\n\t}\n"
			"\treturn r;\n}\n",
			n, n, n, n, n, n, n, ks, sk);
		fprintf(out, "STP_INLINE long stp_wdelete%d(const void *k)\n{\n"
			"\tunsigned long long *sp = bpf_map_lookup_elem(&stp_m%d, "
			"k);\n"
			"\tif (sp) {\n\t\tunsigned long long s = *sp;\n"
			"\t\tbpf_map_delete_elem(&stp_m%d, &s);\n\t}\n"
			"\tbpf_map_delete_elem(&stp_m%d, k);\n"
			"\treturn bpf_map_delete_elem(&stp_m%d, k);\n}\n"
			"static long stp_wdel%d(void *map, const void *k, void *v, "
			"void *ctx)\n{\n\tbpf_map_delete_elem(map, k);\n"
			"\treturn 0;\n}\n"
			"STP_INLINE void stp_wclear%d(void)\n{\n"
			"\tstp_kclear%d();\n"
			"\tbpf_for_each_map_elem(&stp_m%d, stp_wdel%d, 0, 0);\n"
			"\tbpf_for_each_map_elem(&stp_m%d, stp_wdel%d, 0, 0);\n"
			"\tG.stp_wh%d = G.stp_wt%d;\n}\n",
			n, ks, sk, ks, n, n, n, n, ks, n, sk, n, n, n);
	}
}

/* The loader's half: the same over the maps' fds. */
void bpf_wrap_user_decls(FILE *out, const struct program *prog)
{
	int ng = prog->nglobals;

	if (!bpf_program_wraps(prog))
		return;
	fputs("#include <errno.h>\n"
	      "/* m the array, ks its key -> number map, sk number -> key */\n"
	      "static long stp_wupdate(int m, int ks, int sk, size_t ksz, "
	      "unsigned long long *tail, unsigned long long *head, "
	      "const void *k, const void *v)\n{\n"
	      "\tchar old[ksz];\n"
	      "\tunsigned long long h, s;\n"
	      "\tif (!bpf_map_update_elem(rt->map_fds[m], k, v, BPF_NOEXIST))\n"
	      "\t\tgoto created;\n"
	      "\tfor (int i = 0; i < 16; i++) {\n"
	      "\t\tif (errno == EEXIST)\n"
	      "\t\t\treturn bpf_map_update_elem(rt->map_fds[m], k, v, BPF_ANY);\n"
	      "\t\tif (errno != E2BIG)\n\t\t\treturn -1;\n"
	      "\t\twhile ((h = __sync_fetch_and_add(head, 1)) < *tail) {\n"
	      "\t\t\tif (bpf_map_lookup_elem(rt->map_fds[sk], &h, old))\n"
	      "\t\t\t\tcontinue;\n"
	      "\t\t\tbpf_map_delete_elem(rt->map_fds[sk], &h);\n"
	      "\t\t\tif (bpf_map_lookup_elem(rt->map_fds[ks], old, &s) || "
	      "s != h)\n\t\t\t\tcontinue;\n"
	      "\t\t\tbpf_map_delete_elem(rt->map_fds[ks], old);\n"
	      "\t\t\tbpf_map_delete_elem(rt->map_fds[m], old);\n"
	      "\t\t\tbreak;\n\t\t}\n"
	      "\t\tif (!bpf_map_update_elem(rt->map_fds[m], k, v, BPF_NOEXIST))\n"
	      "\t\t\tgoto created;\n\t}\n"
	      "\treturn -1;\n"
	      "created:\n"
	      "\ts = __sync_fetch_and_add(tail, 1);\n"
	      "\tbpf_map_update_elem(rt->map_fds[ks], k, &s, BPF_ANY);\n"
	      "\tbpf_map_update_elem(rt->map_fds[sk], &s, k, BPF_ANY);\n"
	      "\treturn 0;\n}\n"
	      "static long stp_wdelete(int m, int ks, int sk, const void *k)\n{\n"
	      "\tunsigned long long s;\n"
	      "\tif (!bpf_map_lookup_elem(rt->map_fds[ks], k, &s))\n"
	      "\t\tbpf_map_delete_elem(rt->map_fds[sk], &s);\n"
	      "\tbpf_map_delete_elem(rt->map_fds[ks], k);\n"
	      "\treturn bpf_map_delete_elem(rt->map_fds[m], k);\n}\n", out);
	for (int n = 0; n < ng; n++) {
		if (!bpf_wraps(prog->globals[n]))
			continue;
		int ks = ng + n, sk = 2 * ng + n;
		fprintf(out, "static long stp_wupdate%d(const void *k, const void "
			"*v)\n{\n\treturn stp_wupdate(%d, %d, %d, sizeof(struct "
			"stp_k%d), &G.stp_wt%d, &G.stp_wh%d, k, v);\n}\n"
			"static long stp_wdelete%d(const void *k)\n{\n"
			"\treturn stp_wdelete(%d, %d, %d, k);\n}\n"
			"static void stp_wclear%d(void)\n{\n"
			"\tstp_clear(%d, sizeof(struct stp_k%d));\n"
			"\tstp_clear(%d, sizeof(struct stp_k%d));\n"
			"\tstp_clear(%d, sizeof(unsigned long long));\n"
			"\tG.stp_wh%d = G.stp_wt%d;\n}\n",
			n, n, ks, sk, n, n, n, n, n, ks, sk, n, n, n, ks, n, sk,
			n, n);
	}
}

/* The names of a store and a delete of array sym's element. */
const char *bpf_update_macro(const struct symbol *sym)
{
	return bpf_wraps(sym) ? "WUPDATE" : "UPDATE";
}

const char *bpf_delete_macro(const struct symbol *sym)
{
	return bpf_wraps(sym) ? "WDELETE" : "DELETE";
}
