// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: wrapping arrays (`global a%[N]`, `a[N]%`).
 * When the array is full, a new key replaces the oldest created, as the
 * module's map does (runtime/map.c, 4.8's _new_map_create: the head of
 * the list in creation order; a store to an existing key does not move
 * it). A BPF hash map keeps no order, so each wrapping array has a second
 * hash map of its keys' creation numbers (stp_m<nglobals + N>, which the
 * loader finds by the same name pattern as the arrays'), numbered from
 * one counter of the globals (stp_wseq); a store that finds the map full
 * (E2BIG) deletes the key of the smallest number, found by a walk of the
 * order map (bpf_for_each_map_elem in the kernel, get_next_key in the
 * loader), and stores again. A delete removes the key from both maps.
 * Arrays of statistics stay refused (refuse.c): their per-CPU hash maps
 * are filled by `<<<` on each CPU.
 */
#include "bpf/emit.h"

bool bpf_wraps(const struct symbol *sym)
{
	return sym && sym->nkeys && sym->type != TY_STATS && sym->decl &&
	       sym->decl->global.wrap;
}

bool bpf_program_wraps(const struct program *prog)
{
	for (int i = 0; i < prog->nglobals; i++)
		if (bpf_wraps(prog->globals[i]))
			return true;
	return false;
}

/* The kernel half: the order map and stp_wupdate/wdelete/wclear_N. */
void bpf_wrap_kernel_decls(FILE *out, const struct program *prog)
{
	int ng = prog->nglobals;

	for (int n = 0; n < ng; n++) {
		const struct symbol *g = prog->globals[n];
		if (!bpf_wraps(g))
			continue;
		long long max = g->decl->global.max_entries ?
				g->decl->global.max_entries : 2048;
		int o = ng + n;
		fprintf(out, "struct { __uint(type, BPF_MAP_TYPE_HASH); "
			"__uint(max_entries, %lld); __type(key, struct stp_k%d); "
			"__type(value, unsigned long long); } stp_m%d "
			"SEC(\".maps\");\n", max, n, o);
		/* the oldest key found by the walk: a per-CPU slot (a key
		 * with strings is too big for the stack) */
		fprintf(out, "struct stp_wold%d { unsigned long long seq; int "
			"found; struct stp_k%d k; };\n"
			"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
			"__uint(max_entries, 1); __type(key, __u32); "
			"__type(value, struct stp_wold%d); } stp_wo%d "
			"SEC(\".maps\");\n", n, n, n, n);
		fprintf(out, "static long stp_wfind%d(void *map, struct stp_k%d "
			"*k, unsigned long long *seq, void *ctx)\n{\n"
			"\t__u32 z = 0;\n"
			"\tstruct stp_wold%d *w = bpf_map_lookup_elem(&stp_wo%d, "
			"&z);\n\tif (!w)\n\t\treturn 1;\n"
			"\tif (!w->found || *seq < w->seq) {\n"
			"\t\tw->seq = *seq;\n\t\tw->found = 1;\n"
			"\t\t__builtin_memcpy(&w->k, k, sizeof(*k));\n\t}\n"
			"\treturn 0;\n}\n", n, n, n, n);
		fprintf(out, "STP_INLINE long stp_wupdate%d(const void *k, "
			"const void *v)\n{\n"
			"\tlong r = bpf_map_update_elem(&stp_m%d, k, v, "
			"BPF_NOEXIST);\n"
			"\tif (r == -17)\n"
			"\t\treturn bpf_map_update_elem(&stp_m%d, k, v, BPF_ANY);\n"
			"\tif (r == -7) {\n"
			"\t\t__u32 z = 0;\n"
			"\t\tstruct stp_wold%d *w = bpf_map_lookup_elem(&stp_wo%d, "
			"&z);\n\t\tif (!w)\n\t\t\treturn r;\n"
			"\t\tw->found = 0;\n"
			"\t\tbpf_for_each_map_elem(&stp_m%d, stp_wfind%d, 0, 0);\n"
			"\t\tif (w->found) {\n"
			"\t\t\tbpf_map_delete_elem(&stp_m%d, &w->k);\n"
			"\t\t\tbpf_map_delete_elem(&stp_m%d, &w->k);\n\t\t}\n"
			"\t\tr = bpf_map_update_elem(&stp_m%d, k, v, BPF_NOEXIST);\n"
			"\t\tif (r == -17)\n"
			"\t\t\treturn bpf_map_update_elem(&stp_m%d, k, v, "
			"BPF_ANY);\n\t}\n"
			"\tif (!r) {\n"
			"\t\tunsigned long long s = __sync_fetch_and_add("
			"&G.stp_wseq, 1);\n"
			"\t\tbpf_map_update_elem(&stp_m%d, k, &s, BPF_ANY);\n\t}\n"
			"\treturn r;\n}\n",
			n, n, n, n, n, o, n, n, o, n, n, o);
		fprintf(out, "STP_INLINE long stp_wdelete%d(const void *k)\n{\n"
			"\tbpf_map_delete_elem(&stp_m%d, k);\n"
			"\treturn bpf_map_delete_elem(&stp_m%d, k);\n}\n"
			"static long stp_wdel%d(void *map, const void *k, void *v, "
			"void *ctx)\n{\n\tbpf_map_delete_elem(&stp_m%d, k);\n"
			"\treturn 0;\n}\n"
			"STP_INLINE void stp_wclear%d(void)\n{\n"
			"\tstp_kclear%d();\n"
			"\tbpf_for_each_map_elem(&stp_m%d, stp_wdel%d, 0, 0);\n}\n",
			n, o, n, n, o, n, n, o, n);
	}
}

/* The loader's half: the same over the maps' fds. */
void bpf_wrap_user_decls(FILE *out, const struct program *prog)
{
	int ng = prog->nglobals;

	if (!bpf_program_wraps(prog))
		return;
	fputs("#include <errno.h>\n"
	      "static long stp_wupdate(int m, int o, size_t ks, const void *k, "
	      "const void *v)\n{\n"
	      "\tif (!bpf_map_update_elem(rt->map_fds[m], k, v, BPF_NOEXIST))\n"
	      "\t\tgoto created;\n"
	      "\tif (errno == EEXIST)\n"
	      "\t\treturn bpf_map_update_elem(rt->map_fds[m], k, v, BPF_ANY);\n"
	      "\tif (errno != E2BIG)\n\t\treturn -1;\n"
	      "\t{\n\t\tchar key[ks], old[ks];\n"
	      "\t\tvoid *prev = NULL;\n\t\tint found = 0;\n"
	      "\t\tunsigned long long seq, min = 0;\n"
	      "\t\twhile (!bpf_map_get_next_key(rt->map_fds[o], prev, key)) {\n"
	      "\t\t\tif (!bpf_map_lookup_elem(rt->map_fds[o], key, &seq) &&\n"
	      "\t\t\t    (!found || seq < min)) {\n"
	      "\t\t\t\tmin = seq;\n\t\t\t\tfound = 1;\n"
	      "\t\t\t\tmemcpy(old, key, ks);\n\t\t\t}\n"
	      "\t\t\tprev = key;\n\t\t}\n"
	      "\t\tif (found) {\n"
	      "\t\t\tbpf_map_delete_elem(rt->map_fds[m], old);\n"
	      "\t\t\tbpf_map_delete_elem(rt->map_fds[o], old);\n\t\t}\n\t}\n"
	      "\tif (bpf_map_update_elem(rt->map_fds[m], k, v, BPF_NOEXIST))\n"
	      "\t\treturn bpf_map_update_elem(rt->map_fds[m], k, v, BPF_ANY);\n"
	      "created:\n"
	      "\t{\n\t\tunsigned long long s = __sync_fetch_and_add("
	      "&G.stp_wseq, 1);\n"
	      "\t\tbpf_map_update_elem(rt->map_fds[o], k, &s, BPF_ANY);\n\t}\n"
	      "\treturn 0;\n}\n", out);
	for (int n = 0; n < ng; n++) {
		if (!bpf_wraps(prog->globals[n]))
			continue;
		fprintf(out, "static long stp_wupdate%d(const void *k, const void "
			"*v)\n{\n\treturn stp_wupdate(%d, %d, sizeof(struct "
			"stp_k%d), k, v);\n}\n"
			"static long stp_wdelete%d(const void *k)\n{\n"
			"\tbpf_map_delete_elem(rt->map_fds[%d], k);\n"
			"\treturn bpf_map_delete_elem(rt->map_fds[%d], k);\n}\n"
			"static void stp_wclear%d(void)\n{\n"
			"\tstp_clear(%d, sizeof(struct stp_k%d));\n"
			"\tstp_clear(%d, sizeof(struct stp_k%d));\n}\n",
			n, n, ng + n, n, n, ng + n, n, n, n, n, ng + n, n);
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
