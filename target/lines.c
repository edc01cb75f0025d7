// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Line tables for both backends (target/lines.h): the rows of a file's
 * DWARF line programs, collected through elf/, sorted by address and
 * reduced to a row where the file or line changes.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"
#include "lib/arena.h"
#include "target/lines.h"

/*
 * A row as collected; rows at one address: the last is the one covering
 * it (the earlier ones are empty), a sequence's end before a sequence
 * starting there.
 */
struct lrow {
	uint64_t addr;
	int line, file;
	bool end;
	unsigned seq;		/* order in the file, for a stable sort */
};

struct lrows {
	struct lrow *v;
	int n, cap;
	const char **files;
	int nfiles, fcap;
	unsigned seq;
	uint64_t min, max;
};

static int collect_line(const struct elf_line *l, bool end, void *arg)
{
	struct lrows *lr = arg;
	int file = 0;

	/* a CU names few files: the last ones first */
	for (file = lr->nfiles - 1; file >= 0; file--)
		if (lr->files[file] == l->file ||
		    !strcmp(lr->files[file], l->file))
			break;
	if (file < 0) {
		VEC_PUSH(lr->files, lr->nfiles, lr->fcap, l->file);
		file = lr->nfiles - 1;
	}
	VEC_GROW(lr->v, lr->n, lr->cap);
	lr->v[lr->n++] = (struct lrow){ l->addr, end ? 0 : l->line, file, end,
					lr->seq++ };
	if (l->addr > lr->max)
		lr->max = l->addr;
	if (l->addr < lr->min)
		lr->min = l->addr;
	return 0;
}

static int by_line_addr(const void *a, const void *b)
{
	const struct lrow *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int line_table_build(struct elf_file *f, const uint64_t *cus, int ncus,
		     uint64_t *base, struct line_table *t)
{
	struct lrows lr = { .min = UINT64_MAX };
	int last_line = -1, last_file = -1, cap = 0;

	memset(t, 0, sizeof(*t));
	if (cus) {
		for (int i = 0; i < ncus; i++)
			elf_file_cu_line_rows(f, cus[i], collect_line, &lr);
	} else if (elf_file_line_rows(f, collect_line, &lr) < 0) {
		lr.n = 0;
	}
	if (*base == UINT64_MAX)
		*base = lr.min;
	if (!lr.n || lr.min < *base || lr.max - *base > UINT32_MAX ||
	    lr.nfiles > UINT16_MAX) {
		free(lr.v);
		free(lr.files);
		return 0;	/* no DWARF lines (or too many for a row) */
	}
	qsort(lr.v, (size_t)lr.n, sizeof(*lr.v), by_line_addr);
	for (int i = 0; i < lr.n; i++) {
		const struct lrow *r = &lr.v[i];
		/* the last row at an address covers it */
		if (i + 1 < lr.n && lr.v[i + 1].addr == r->addr)
			continue;
		if (r->line == last_line && (!r->line || r->file == last_file))
			continue;
		VEC_PUSH(t->rows, t->nrows, cap, ((struct line_row){
			r->addr - *base, r->line, r->line ? r->file : 0 }));
		last_line = r->line;
		last_file = r->file;
	}
	t->files = lr.files;
	t->nfiles = lr.nfiles;
	free(lr.v);
	return t->nrows;
}

void line_table_free(struct line_table *t)
{
	free(t->rows);
	free(t->files);
	memset(t, 0, sizeof(*t));
}
