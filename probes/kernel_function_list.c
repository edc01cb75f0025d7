// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -l / -L of kernel.function and kernel.statement points straight from
 * the target's function catalog (probes/listing.h): sorted by their
 * printed form, as SystemTap's std::map prints them.
 */
#define _GNU_SOURCE
#include "probes/listing.h"
#include "parser/session.h"

#include <stdlib.h>
#include <string.h>


static bool maxactive_suffix(const char *s)
{
	static const char pre[] = ".return.maxactive(";
	size_t n = strlen(s);

	if (strncmp(s, pre, sizeof(pre) - 1) != 0 || s[n - 1] != ')')
		return false;
	s += sizeof(pre) - 1;
	if (*s == ')')
		return false;
	for (; *s != ')'; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool parse_kfunc_spec(const char *spec, struct kf_query *q,
		      const char **suffix, char **mem)
{
	static const char pre[] = "kernel.function(\"";
	const char *arg = spec + sizeof(pre) - 1, *close, *sfx;
	char *copy, *at, *colon;

	*mem = NULL;
	if (strncmp(spec, pre, sizeof(pre) - 1) != 0)
		return false;
	close = strstr(arg, "\")");
	if (!close || close == arg || memchr(arg, '"', (size_t)(close - arg)))
		return false;
	sfx = close + 2;
	memset(q, 0, sizeof(*q));
	q->line = -1;
	if (!*sfx)
		q->kind = KF_ANY;
	else if (!strcmp(sfx, ".call"))
		q->kind = KF_CALL;
	else if (!strcmp(sfx, ".inline"))
		q->kind = KF_INLINE;
	else if (!strcmp(sfx, ".return") || maxactive_suffix(sfx))
		q->kind = KF_RETURN;
	else if (!strcmp(sfx, ".exported"))
		q->kind = KF_EXPORTED_ONLY;
	else
		return false;
	copy = strndup(arg, (size_t)(close - arg));
	if (!copy)
		fatal("out of memory");
	q->func = copy;
	at = strchr(copy, '@');
	if (at) {
		*at = '\0';
		q->file = at + 1;
		colon = strchr(at + 1, ':');
		if (colon) {
			*colon = '\0';
			q->line = atoi(colon + 1);
		}
	}
	*suffix = sfx;
	*mem = copy;
	return true;
}

struct kf_line {
	char *pp;
	const struct kf_point *pt;
};

static int kf_line_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kf_line *)a)->pp,
		      ((const struct kf_line *)b)->pp);
}

int list_kernel_functions(const struct kf_catalog *c, const char *spec,
			  bool with_vars, bool guru, FILE *out)
{
	struct kf_query q;
	const char *suffix;
	char *mem;
	struct kf_point *pts;
	struct kf_line *lines;
	int n;

	if (!parse_kfunc_spec(spec, &q, &suffix, &mem))
		return -1;
	q.guru = guru;
	n = kf_catalog_match(c, &q, &pts);
	lines = malloc(((size_t)n + 1) * sizeof(*lines));
	if (!lines)
		fatal("out of memory");
	for (int i = 0; i < n; i++) {
		const struct kfunc *f = pts[i].f;
		int r;

		if (!*f->file)
			r = asprintf(&lines[i].pp, "kernel.function(\"%s\")%s",
				     f->name, suffix);
		else if (f->line > 0)
			r = asprintf(&lines[i].pp,
				     "kernel.function(\"%s@%s:%d\")%s",
				     f->name, f->file, f->line, suffix);
		else
			r = asprintf(&lines[i].pp,
				     "kernel.function(\"%s@%s\")%s", f->name,
				     f->file, suffix);
		if (r < 0)
			fatal("out of memory");
		lines[i].pt = &pts[i];
	}
	qsort(lines, (size_t)n, sizeof(*lines), kf_line_cmp);
	for (int i = 0; i < n; i++) {
		fputs(lines[i].pp, out);
		if (with_vars)
			for (int k = 0; k < lines[i].pt->nvars; k++)
				fprintf(out, " %s", lines[i].pt->vars[k]);
		fputc('\n', out);
		free(lines[i].pp);
	}
	free(lines);
	kf_points_free(pts, n);
	free(mem);
	return n;
}

/*
 * The target's function catalog, for a listing of family
 * ("kernel.function"): NULL after saying why not.
 */
static const struct kf_catalog *open_catalog(const char *family,
					     struct target *t)
{
	const struct kf_catalog *c;
	const char *err;

	if (!t) {
		fprintf(stderr, "stap: error: %s: no target kernel release\n",
			family);
		return NULL;
	}
	if (!t->debug_vmlinux) {
		fprintf(stderr, "stap: error: %s needs debuginfo: install "
			"linux-image-%s-dbg (missing %s)\n", family, t->release,
			t->debug_tried);
		return NULL;
	}
	if (!(c = target_functions(t, &err)))
		fprintf(stderr, "stap: error: %s: %s\n", family, err);
	return c;
}

int list_kfuncs(struct target *t, const char *spec, bool with_vars,
		bool guru)
{
	const struct kf_catalog *c;
	const char *suffix;
	struct kf_query q;
	char *mem;

	if (!parse_kfunc_spec(spec, &q, &suffix, &mem))
		return -1;
	free(mem);
	if (!(c = open_catalog("kernel.function", t)))
		return 0;
	return list_kernel_functions(c, spec, with_vars, guru, stdout);
}

/* kernel.statement("ARG"): its points, sorted and unique by name as
 * SystemTap prints them (-L: the variables of the first copy). */
static int list_kstatements(const struct kf_catalog *c, const char *vmlinux,
			    const char *arg, bool with_vars, bool guru)
{
	struct kf_stmt *pts;
	char *err = NULL, **names;
	int n = kf_statement_points(c, vmlinux, arg, guru, with_vars, &pts,
				    &err), shown = 0;
	int *order;

	if (n < 0) {
		if (err)
			fprintf(stderr, "stap: error: kernel.statement: %s\n",
				err);
		free(err);
		return 0;
	}
	free(err);	/* why nothing: not shown, as in SystemTap */
	names = malloc(((size_t)n + 1) * sizeof(*names));
	order = malloc(((size_t)n + 1) * sizeof(*order));
	if (!names || !order)
		fatal("out of memory");
	for (int i = 0; i < n; i++) {
		if (asprintf(&names[i], "kernel.statement(\"%s@%s:%d\")",
			     pts[i].func, pts[i].file, pts[i].line) < 0)
			fatal("out of memory");
		order[i] = i;
	}
	/* insertion sort by name, stable (n is small) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 &&
		     strcmp(names[order[j - 1]], names[order[j]]) > 0; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (int i = 0; i < n; i++) {
		int k = order[i];

		if (i && !strcmp(names[k], names[order[i - 1]]))
			continue;
		fputs(names[k], stdout);
		for (int v = 0; with_vars && pts[k].vars && pts[k].vars[v];
		     v++)
			printf(" %s", pts[k].vars[v]);
		fputc('\n', stdout);
		shown++;
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(order);
	kf_stmts_free(pts, n);
	return shown;
}

int list_kstmts(struct target *t, const char *spec, bool with_vars,
		bool guru)
{
	static const char pre[] = "kernel.statement(\"";
	const struct kf_catalog *c;
	size_t len = strlen(spec);
	char *arg;
	int n;

	if (strncmp(spec, pre, sizeof(pre) - 1) != 0 ||
	    len < sizeof(pre) + 2 || strcmp(spec + len - 2, "\")") != 0)
		return -1;
	arg = strndup(spec + sizeof(pre) - 1, len - (sizeof(pre) - 1) - 2);
	if (!arg)
		fatal("out of memory");
	if (strchr(arg, '"')) {
		free(arg);
		return -1;
	}
	if (!(c = open_catalog("kernel.statement", t))) {
		free(arg);
		return 0;
	}
	n = list_kstatements(c, t->debug_vmlinux, arg, with_vars, guru);
	free(arg);
	return n;
}

/* The family's list hook: kernel.function or kernel.statement points. */
int kernel_function_list(struct session *s, const char *spec, bool with_vars)
{
	int n = list_kfuncs(s->target, spec, with_vars, s->guru);

	return n >= 0 ? n : list_kstmts(s->target, spec, with_vars, s->guru);
}
