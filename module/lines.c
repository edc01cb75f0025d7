// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Line tables in the module, for the script functions that name the
 * source file and line of an address (usymfileline(), symfileline()
 * and friends): target/lines.c's rows, 12 bytes each here (runtime
 * side: ustack.c for user objects, klines.c for the kernel).
 */
#include "module/emit.h"
#include "elf/elf.h"
#include "target/lines.h"
#include "target/target.h"

int gen_line_table(struct cg *cg, FILE *out, const char *name,
		   struct elf_file *f, const uint64_t *cus, int ncus,
		   uint64_t *base)
{
	struct line_table t;
	int rows = line_table_build(f, cus, ncus, base, &t);

	if (!rows)
		return 0;
	fprintf(out, "%s\nstatic const char *const %s_files[] = {\n",
		STP_LINE_ROW_C, name);
	for (int i = 0; i < t.nfiles; i++)
		fprintf(out, "\t%s,\n",
			c_string(cg, t.files[i], strlen(t.files[i])));
	fprintf(out, "};\nstatic const struct stp_line %s_lines[] = {\n",
		name);
	for (int i = 0; i < rows; i++) {
		fprintf(out, "{0x%" PRIx64 ",%d,%d},", t.rows[i].addr,
			t.rows[i].line, t.rows[i].file);
		if ((i + 1) % 4 == 0)
			fputc('\n', out);
	}
	fputs("\n};\n", out);
	line_table_free(&t);
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
