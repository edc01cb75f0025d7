// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: array slices in the user half, keys with
 * '*' in membership tests ([1, *] in a), deletes (delete a[1, *]) and
 * foreach (foreach ([k, s] in a[1, *])). A slice is a pattern key with
 * the given fields set and a matcher per site that compares only those;
 * the map's keys are walked with bpf_map_get_next_key. In the kernel half
 * the pattern sits in scratch temporaries (a key with strings is too big
 * for the stack beside a callback's) and the walk is a
 * bpf_for_each_map_elem callback that reaches it through struct stp_fc.
 */
#include "bpf/emit.h"

bool bpf_has_wildcard(const struct node *keys)
{
	for (const struct node *k = keys; k; k = k->next)
		if (k->kind == N_WILDCARD)
			return true;
	return false;
}

/* The pattern key into C variable _mU and the matcher stp_slU. */
static void slice_pattern(struct emitter *e, const struct symbol *arr,
			  const struct node *keys, int u)
{
	int i = 0;

	fprintf(e->decls, "static int stp_sl%d(const struct stp_k%d *k, "
		"const struct stp_k%d *m)\n{\n\treturn 1", u, arr->index,
		arr->index);
	fprintf(e->out, "struct stp_k%d _m%d; memset(&_m%d, 0, sizeof _m%d); ",
		arr->index, u, u, u);
	for (const struct node *k = keys; k; k = k->next, i++) {
		if (k->kind == N_WILDCARD)
			continue;
		if (arr->key_types[i] == TY_STRING) {
			fprintf(e->decls, " && !strcmp(k->k%d, m->k%d)", i, i);
			fprintf(e->out, "STRCPY(_m%d.k%d, ", u, i);
			bpf_emit_expr(e, k);
			fputs("); ", e->out);
		} else {
			fprintf(e->decls, " && k->k%d == m->k%d", i, i);
			fprintf(e->out, "_m%d.k%d = (", u, i);
			bpf_emit_expr(e, k);
			fputs("); ", e->out);
		}
	}
	fputs(";\n}\n\n", e->decls);
}

/*
 * The kernel's pattern: into scratch temporaries (its returned first),
 * its matcher stp_kslU (strings compared a word at a time: keys are
 * zero-padded, and so is the pattern).
 */
int bpf_kernel_slice_pattern(struct emitter *e, const struct symbol *arr,
			     const struct node *keys, int u)
{
	int bytes = 0, i = 0, t = bpf_new_tmp(e);

	for (int k = 0; k < arr->nkeys; k++)
		bytes += arr->key_types[k] == TY_STRING ? BPF_STRLEN : 8;
	for (int b = BPF_STRLEN; b < bytes; b += BPF_STRLEN)
		bpf_new_tmp(e);
	bpf_kernel_scmp(e);
	fprintf(e->decls_kernel, "STP_INLINE int stp_ksl%d(const struct "
		"stp_k%d *k, const struct stp_k%d *m)\n{\n\treturn 1", u,
		arr->index, arr->index);
	fprintf(e->out, "struct stp_k%d *_m%d = (void *)TMP(%d); "
		"STP_ZERO(_m%d); ", arr->index, u, t, u);
	for (const struct node *k = keys; k; k = k->next, i++) {
		if (k->kind == N_WILDCARD)
			continue;
		if (arr->key_types[i] == TY_STRING) {
			fprintf(e->decls_kernel, " && !stp_scmp_key("
				"k->k%d, m->k%d)", i, i);
			fprintf(e->out, "STRCPY(_m%d->k%d, ", u, i);
		} else {
			fprintf(e->decls_kernel, " && k->k%d == m->k%d", i, i);
			fprintf(e->out, "_m%d->k%d = (", u, i);
		}
		bpf_emit_expr(e, k);
		fputs("); ", e->out);
	}
	fputs(";\n}\n", e->decls_kernel);
	return t;
}

/* [k, *] in a, delete a[k, *] in the kernel: a callback per site */
static void kernel_slice_walk(struct emitter *e, const struct symbol *arr,
			      const struct node *keys, bool del)
{
	int u = e->nuniq++;

	fputs(del ? "{ " : "({ ", e->out);
	int t = bpf_kernel_slice_pattern(e, arr, keys, u);
	fprintf(e->decls_kernel, "static long stp_kslw%d(void *map, struct "
		"stp_k%d *k, void *v, struct stp_fc *C)\n{\n"
		"\tstruct stp_scratch *S = C->S;\n"
		"\tif (!stp_ksl%d(k, (void *)TMP(%d)))\n\t\treturn 0;\n",
		u, arr->index, u, t);
	if (del)
		fprintf(e->decls_kernel, "\t%s(%d, k);\n\treturn 0;\n}\n",
			bpf_delete_macro(arr), arr->index);
	else
		fputs("\tC->done = 1;\n\treturn 1;\n}\n", e->decls_kernel);
	fprintf(e->out, "struct stp_fc _c%d = { .S = S }; "
		"bpf_for_each_map_elem(&stp_m%d, stp_kslw%d, &_c%d, 0); %s",
		u, arr->index, u, u, del ? "}\n" : "");
	if (!del)
		fprintf(e->out, "_c%d.done; })", u);
}

/* [k, *] in a */
void bpf_emit_slice_in(struct emitter *e, const struct symbol *arr,
		       const struct node *keys)
{
	int u;

	if (e->kernel) {
		kernel_slice_walk(e, arr, keys, false);
		return;
	}
	u = e->nuniq++;
	fputs("({ ", e->out);
	slice_pattern(e, arr, keys, u);
	fprintf(e->out, "struct stp_k%d _c%d, _p%d; int _f%d = 0; void *_pp%d "
		"= NULL; while (!_f%d && !bpf_map_get_next_key(rt->map_fds[%d], "
		"_pp%d, &_c%d)) { _f%d = stp_sl%d(&_c%d, &_m%d); _p%d = _c%d; "
		"_pp%d = &_p%d; } _f%d; })", arr->index, u, u, u, u, u,
		arr->index, u, u, u, u, u, u, u, u, u, u, u);
}

/* delete a[k, *]: the matching keys first, then each deleted */
void bpf_emit_slice_delete(struct emitter *e, const struct symbol *arr,
			   const struct node *keys)
{
	int u;

	if (e->kernel) {
		kernel_slice_walk(e, arr, keys, true);
		return;
	}
	u = e->nuniq++;
	fputs("{ ", e->out);
	slice_pattern(e, arr, keys, u);
	fprintf(e->out, "size_t _n%d; struct stp_k%d *_ks%d = stp_keys(%d, "
		"sizeof(struct stp_k%d), &_n%d); for (size_t _i%d = 0; _i%d < "
		"_n%d; _i%d++) if (stp_sl%d(&_ks%d[_i%d], &_m%d)) %s(%d, "
		"&_ks%d[_i%d]); free(_ks%d); }\n", u, arr->index, u,
		arr->index, arr->index, u, u, u, u, u, u, u, u, u,
		bpf_delete_macro(arr), arr->index,
		u, u, u);
}

/* foreach over a[k, *]: the dump _esD (_nD entries) keeps the matches */
void bpf_emit_slice_filter(struct emitter *e, const struct symbol *arr,
			   const struct node *keys, int dump)
{
	int u = e->nuniq++;

	slice_pattern(e, arr, keys, u);
	fprintf(e->out, "{ size_t _w%d = 0; for (size_t _i%d = 0; _i%d < _n%d; "
		"_i%d++) if (stp_sl%d(&_es%d[_i%d].k, &_m%d)) _es%d[_w%d++] = "
		"_es%d[_i%d]; _n%d = _w%d; } ", u, u, u, dump, u, u, dump, u, u,
		dump, u, dump, u, dump, u);
}
