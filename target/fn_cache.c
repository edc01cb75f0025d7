// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function catalog's cache file, a text file (format below): a warm
 * load reads it instead of the whole .debug_info. See fn_internal.h.
 */
#define _GNU_SOURCE
#include "target/fn_internal.h"
#include "lib/arena.h"
#include "lib/files.h"
#include "lib/strbuf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The cache file:
 *   KF_CACHE_MAGIC
 *   key <hex>
 *   counts <ncus> <nvars> <nlists> <nfuncs>
 *   <nvars lines: "name:type">
 *   <nlists lines: "N id id ...">
 *   <nfuncs lines: name TAB file TAB line TAB flags TAB ret TAB aliases
 *                  (space-separated) TAB ninst, then per instance TAB
 *                  "addr cu vars flags" (hex addr and flags)>
 *   end
 */

char *kf_cache_path(const char *cache_dir, const char *release)
{
	char *p;

	if (asprintf(&p, "%s/kfuncs-%s.txt", cache_dir, release) < 0)
		fatal("out of memory");
	return p;
}

/* The next line of *p, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p)
{
	char *s = *p, *e;

	if (!s || !*s)
		return NULL;
	e = strchr(s, '\n');
	if (e) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

/* The next TAB-separated field of *p (may be empty); NULL at the end. */
static char *next_field(char **p)
{
	char *s = *p, *e;

	if (!s)
		return NULL;
	e = strchr(s, '\t');
	if (e) {
		*e = '\0';
		*p = e + 1;
	} else {
		*p = NULL;
	}
	return s;
}

bool kf_cache_read(struct kf_catalog *c, const char *path, uint64_t key)
{
	struct arena *ar = &c->arena;
	size_t len;
	char *text = read_file(path, &len), *p = text, *line, *end;
	char want[64];
	unsigned long ncus, nvars, nlists, nfuncs;
	bool ok = false;
	struct kf_inst *all = NULL;
	size_t nall = 0, capall = 0;

	if (!text)
		return false;
	line = next_line(&p);
	if (!line || strcmp(line, KF_CACHE_MAGIC) != 0)
		goto out;
	snprintf(want, sizeof(want), "key %016" PRIx64, key);
	line = next_line(&p);
	if (!line || strcmp(line, want) != 0)
		goto out;
	line = next_line(&p);
	if (!line || sscanf(line, "counts %lu %lu %lu %lu", &ncus, &nvars,
			    &nlists, &nfuncs) != 4)
		goto out;
	c->ncus = (int)ncus;
	c->nvars = (int)nvars;
	c->vars = arena_alloc(ar, (nvars + 1) * sizeof(*c->vars));
	for (unsigned long i = 0; i < nvars; i++) {
		if (!(line = next_line(&p)))
			goto out;
		c->vars[i] = arena_strdup(ar, line);
	}
	c->nlists = (int)nlists;
	c->lists = arena_alloc(ar, (nlists + 1) * sizeof(*c->lists));
	for (unsigned long i = 0; i < nlists; i++) {
		unsigned long n;
		uint32_t *l;

		if (!(line = next_line(&p)))
			goto out;
		n = strtoul(line, &end, 10);
		l = arena_alloc(ar, (n + 1) * sizeof(*l));
		l[0] = (uint32_t)n;
		for (unsigned long k = 1; k <= n; k++) {
			l[k] = (uint32_t)strtoul(end, &end, 10);
			if (l[k] >= nvars)
				goto out;
		}
		c->lists[i] = l;
	}
	c->n = (int)nfuncs;
	c->funcs = arena_alloc(ar, (nfuncs + 1) * sizeof(*c->funcs));
	{
		size_t *first = xmalloc((nfuncs + 1) * sizeof(*first));

		for (unsigned long i = 0; i < nfuncs; i++) {
			struct kfunc *f = &c->funcs[i];
			char *fld[7], *al;
			unsigned long ninst;

			if (!(line = next_line(&p)))
				goto bad;
			for (int k = 0; k < 7; k++)
				if (!(fld[k] = next_field(&line)))
					goto bad;
			f->name = arena_strdup(ar, fld[0]);
			f->file = arena_strdup(ar, fld[1]);
			f->line = atoi(fld[2]);
			f->flags = (uint32_t)strtoul(fld[3], NULL, 16);
			f->ret_type = *fld[4] ? arena_strdup(ar, fld[4]) : NULL;
			for (al = fld[5]; *al; al++)
				f->naliases += *al == ' ';
			f->naliases += *fld[5] != '\0';
			f->aliases = arena_alloc(ar, (size_t)f->naliases *
							     sizeof(char *) + 1);
			for (int k = 0; k < f->naliases; k++) {
				char *sp = strchr(fld[5], ' ');

				if (sp)
					*sp = '\0';
				f->aliases[k] = arena_strdup(ar, fld[5]);
				fld[5] = sp ? sp + 1 : fld[5];
			}
			ninst = strtoul(fld[6], NULL, 10);
			first[i] = nall;
			for (unsigned long k = 0; k < ninst; k++) {
				struct kf_inst in;
				char *s = next_field(&line);

				if (!s)
					goto bad;
				in.addr = strtoull(s, &end, 16);
				in.cu = (uint32_t)strtoul(end, &end, 10);
				in.vars = (uint32_t)strtoul(end, &end, 10);
				in.flags = (uint32_t)strtoul(end, &end, 16);
				if (in.vars >= nlists)
					goto bad;
				VEC_PUSH(all, nall, capall, in);
			}
			f->ninst = (int)ninst;
			c->ninst += (int)ninst;
		}
		if (!(line = next_line(&p)) || strcmp(line, "end") != 0)
			goto bad;
		{
			struct kf_inst *a = arena_alloc(ar, (nall + 1) *
							     sizeof(*a));

			memcpy(a, all, nall * sizeof(*a));
			for (unsigned long i = 0; i < nfuncs; i++) {
				c->funcs[i].inst = a + first[i];
				for (int k = 0; k < c->funcs[i].ninst; k++)
					if (a[first[i] + k].flags &
					    KF_INST_INLINE)
						c->ninline++;
			}
		}
		ok = true;
bad:
		free(first);
	}
out:
	free(all);
	free(text);
	return ok;
}

/* Numbers as printf's %u, %d and %x would write them (the writer's hot
 * loop: one formatted call per number was a tenth of a cold build). */
static void put_u(struct strbuf *o, uint64_t v, unsigned base)
{
	char d[24];
	int n = sizeof(d);

	do {
		d[--n] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	sb_append(o, d + n, sizeof(d) - (size_t)n);
}

/* Write o out once it is large; false on a failed write. */
static bool flush(struct strbuf *o, FILE *f, size_t above)
{
	bool ok = true;

	if (o->len > above) {
		ok = fwrite(o->data, 1, o->len, f) == o->len;
		sb_reset(o);
	}
	return ok;
}

static void put_d(struct strbuf *o, int v)
{
	if (v < 0)
		sb_putc(o, '-');
	put_u(o, v < 0 ? -(uint64_t)v : (uint64_t)v, 10);
}

void kf_cache_write(const struct kf_catalog *c, const char *cache_dir,
			const char *path, uint64_t key)
{
	struct replace_file r;
	FILE *f = replace_open(&r, cache_dir, path);
	struct strbuf o = { 0 };
	bool ok = true;

	if (!f)
		return;
	fprintf(f, "%s\nkey %016" PRIx64 "\ncounts %d %d %d %d\n",
		KF_CACHE_MAGIC, key, c->ncus, c->nvars, c->nlists, c->n);
	for (int i = 0; i < c->nvars; i++) {
		ok &= flush(&o, f, 1 << 16);
		sb_puts(&o, c->vars[i]);
		sb_putc(&o, '\n');
	}
	for (int i = 0; i < c->nlists; i++) {
		ok &= flush(&o, f, 1 << 16);
		put_u(&o, c->lists[i][0], 10);
		for (uint32_t k = 1; k <= c->lists[i][0]; k++) {
			sb_putc(&o, ' ');
			put_u(&o, c->lists[i][k], 10);
		}
		sb_putc(&o, '\n');
	}
	for (int i = 0; i < c->n; i++) {
		const struct kfunc *fn = &c->funcs[i];

		ok &= flush(&o, f, 1 << 16);
		sb_puts(&o, fn->name);
		sb_putc(&o, '\t');
		sb_puts(&o, fn->file);
		sb_putc(&o, '\t');
		put_d(&o, fn->line);
		sb_putc(&o, '\t');
		put_u(&o, fn->flags, 16);
		sb_putc(&o, '\t');
		if (fn->ret_type)
			sb_puts(&o, fn->ret_type);
		sb_putc(&o, '\t');
		for (int k = 0; k < fn->naliases; k++) {
			if (k)
				sb_putc(&o, ' ');
			sb_puts(&o, fn->aliases[k]);
		}
		sb_putc(&o, '\t');
		put_d(&o, fn->ninst);
		for (int k = 0; k < fn->ninst; k++) {
			sb_putc(&o, '\t');
			put_u(&o, fn->inst[k].addr, 16);
			sb_putc(&o, ' ');
			put_u(&o, fn->inst[k].cu, 10);
			sb_putc(&o, ' ');
			put_u(&o, fn->inst[k].vars, 10);
			sb_putc(&o, ' ');
			put_u(&o, fn->inst[k].flags, 16);
		}
		sb_putc(&o, '\n');
	}
	sb_puts(&o, "end\n");
	ok &= flush(&o, f, 0);
	sb_free(&o);
	replace_commit(&r, ok);
}
