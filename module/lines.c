// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Line tables in the module, for the script functions that name the
 * source file and line of an address (usymfileline(), symfileline()
 * and friends): from a file's DWARF line programs through elf/, a row
 * per change of file or line, 12 bytes each (runtime side: ustack.c for
 * user objects, klines.c for the kernel).
 */
#include "module/emit.h"
#include "elf/elf.h"
#include "target/target.h"

/*
 * The line table, with lines: address -> (file, line), a row where
 * either changes, sorted by address; line 0 a gap (a sequence's end).
 * Rows at one address: the last is the one covering it (the earlier
 * ones are empty), a sequence's end before a sequence starting there.
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
	const char **files;	/* libdw's names, valid while f is open */
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

int gen_line_table(struct cg *cg, FILE *out, const char *name,
		   struct elf_file *f, const uint64_t *cus, int ncus,
		   uint64_t *base)
{
	struct lrows lr = { .min = UINT64_MAX };
	int rows = 0;

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
	fprintf(out, "%s\nstatic const char *const %s_files[] = {\n",
		STP_LINE_ROW_C, name);
	for (int i = 0; i < lr.nfiles; i++)
		fprintf(out, "\t%s,\n",
			c_string(cg, lr.files[i], strlen(lr.files[i])));
	fprintf(out, "};\nstatic const struct stp_line %s_lines[] = {\n",
		name);
	int last_line = -1, last_file = -1;
	for (int i = 0; i < lr.n; i++) {
		const struct lrow *r = &lr.v[i];
		/* the last row at an address covers it */
		if (i + 1 < lr.n && lr.v[i + 1].addr == r->addr)
			continue;
		if (r->line == last_line && (!r->line || r->file == last_file))
			continue;
		fprintf(out, "{0x%" PRIx64 ",%d,%d},", r->addr - *base, r->line,
			r->line ? r->file : 0);
		if (++rows % 4 == 0)
			fputc('\n', out);
		last_line = r->line;
		last_file = r->file;
	}
	fputs("\n};\n", out);
	free(lr.v);
	free(lr.files);
	return rows;
}


/*
 * The kernel's: SystemTap 4.8 would carry the whole .debug_line of the
 * debug vmlinux (16 MB on 6.1, 19 MB on 6.12) and in fact carries none
 * for these kernels ("No debug line data for kernel", its symfileline()
 * gives the address in hex). Here: the compilation units of the kernel
 * functions the script probes (kernel.function, kernel.statement, not
 * a module's), so an address in one of those source files has its
 * line; others stay in hex. Rows from the lowest address of the table
 * (stp_klines_base, a link-time address; the runtime moves it by the
 * KASLR offset, known only with such probes).
 */
void gen_kernel_lines(struct cg *cg, FILE *out)
{
	const char *path = cg->s->target ? cg->s->target->debug_vmlinux : NULL;
	uint64_t *cus = NULL, base = UINT64_MAX;
	int ncus = 0, cap = 0, rows = 0;
	struct elf_file *f = NULL;
	char *err = NULL;

	for (int i = 0; path && i < cg->prog->nprobes; i++) {
		const struct attach *at = &cg->prog->probes[i]->attach;
		if ((at->kind != ATTACH_KFUNC_ENTRY &&
		     at->kind != ATTACH_KFUNC_RETURN) || !at->kfunc.addr ||
		    at->kfunc.module || at->kfunc.absolute ||
		    !at->kfunc.anchor_sym)
			continue;
		if (!f && !(f = elf_file_open(path, NULL, &err)))
			break;
		uint64_t cu = elf_file_cu_at(f, at->kfunc.addr);
		bool dup = !cu;
		for (int k = 0; k < ncus && !dup; k++)
			dup = cus[k] == cu;
		if (!dup)
			VEC_PUSH(cus, ncus, cap, cu);
	}
	free(err);
	if (f && ncus)
		rows = gen_line_table(cg, out, "stp_k", f, cus, ncus, &base);
	if (rows)
		fprintf(out, "#define STP_KLINE_TABLES 1\n"
			"static const unsigned long stp_klines_base = 0x%"
			PRIx64 "UL;\nstatic const unsigned int stp_nklines = "
			"%d;\n", base, rows);
	if (f)
		elf_file_close(f);
	free(cus);
}
