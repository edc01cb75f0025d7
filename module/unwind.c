// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user objects' symbol and unwind tables a module carries when its
 * script uses user stacks or symbols (ubacktrace(), usymname() ...; the
 * tapset's runtime/ustack.c): SystemTap's choice, tables in the module,
 * since sprint_ubacktrace() and usymname() return strings the script
 * goes on using (an address resolved by the loader after the fact could
 * only serve print_ubacktrace()). HACKING.md has the figures.
 *
 * The objects: each -d OBJECT, the executable of each process("PATH")
 * probe, and -c's program (its first word, found in $PATH, when the
 * command runs without a shell), as SystemTap loads them, and with
 * --ldd the shared libraries they need. Each object
 * gives
 * - its function symbols, sorted by address (link-time: the module maps
 *   a pc through the task's mapping of the file);
 * - its unwind rows, from the CFI (.eh_frame, else .debug_frame), one
 *   per change of rules inside each function: the CFA as rsp or rbp plus
 *   an offset, where the return address and the caller's rbp are saved
 *   (an offset from the CFA), or a row where no rule is known (a gap
 *   between functions, an expression rule). No frame pointer is needed;
 * - for a script that asks for source lines (usymfileline() and the
 *   others of ucontext-fileline.stp) its line table: the files' names
 *   and a row per change of file or line (a 12-byte struct: link-time
 *   address, line, file), from its DWARF through elf/.
 * The object is known at run time by its inode number and size (the
 * guest's view of this machine's files keeps the inode numbers).
 */
#include "elf/elf.h"
#include "module/emit.h"
#include "target/uobj.h"
#include "target/userpath.h"

/* Object k's tables; false when it cannot be read. */
static bool gen_object(struct cg *cg, FILE *out, int k, const char *path,
		       FILE *objs, bool lines)
{
	char *err = NULL;
	struct uobj o;

	if (!uobj_load(&cg->s->arena, path, &o, &err)) {
		if (cg->s->verbose)
			fprintf(stderr, "stap: no unwind data for '%s': %s\n",
				path, err ? err : "cannot read it");
		free(err);
		return false;
	}
	fprintf(out, "static const struct stp_usym stp_usyms_%d[] = {\n", k);
	for (int i = 0; i < o.nsyms; i++)
		fprintf(out, "\t{ 0x%" PRIx64 ", 0x%" PRIx64 ", %s },\n",
			o.syms[i].addr, o.syms[i].size,
			c_string(cg, o.syms[i].name, strlen(o.syms[i].name)));
	fputs("\t{ 0 }\n};\n", out);
	fprintf(out, "static const struct stp_urow stp_urows_%d[] = {\n", k);
	for (int i = 0; i < o.nrows; i++)
		fprintf(out, "\t{ 0x%" PRIx64 ", %d, %d, %d, %d },\n",
			o.rows[i].pc, o.rows[i].cfa_off, o.rows[i].cfa_reg,
			o.rows[i].ra_off, o.rows[i].fp_off);
	fputs("\t{ 0 }\n};\n", out);
	const char *lname = arena_printf(&cg->s->arena, "stp_u%d", k);
	uint64_t base = 0;	/* rows at link-time addresses */
	int nlines = lines ? gen_line_table(cg, out, lname, o.f, NULL, 0,
					    &base) : 0;
	char *ltab = nlines ? arena_printf(&cg->s->arena,
					   "%s_files, %s_lines", lname,
					   lname) : "NULL, NULL";
	const char *bid = elf_file_build_id(o.f);	/* umodbuildid() */
	fprintf(objs, "\t{ %s, %s, 0x%llxULL, %lldLL, 0x%llxUL, %d, "
		"stp_usyms_%d, %d, stp_urows_%d, %d, %s, %d, %s },\n",
		c_string(cg, path, strlen(path)),
		c_string(cg, o.base, strlen(o.base)),
		(unsigned long long)o.ino, (long long)o.size,
		(unsigned long long)o.span, o.dyn, k, o.nsyms, k, o.nrows,
		ltab, nlines,
		bid ? c_string(cg, bid, strlen(bid)) : "NULL");
	uobj_close(&o);
	return true;
}

void gen_unwind_tables(struct cg *cg, FILE *out, bool lines)
{
	const char **paths = NULL;
	int n = 0, cap = 0, made = 0;
	char *objs_text = NULL;
	size_t objs_len = 0;
	FILE *objs = open_memstream(&objs_text, &objs_len);

	for (int i = 0; i < cg->s->nunwind_objs; i++)
		VEC_PUSH(paths, n, cap, userpath_program(&cg->s->arena,
						cg->s->unwind_objs[i]));
	for (int i = 0; i < cg->prog->nprobes; i++) {
		const struct attach *at = &cg->prog->probes[i]->attach;
		if (at->kind == ATTACH_PROCESS && at->filter.exe)
			VEC_PUSH(paths, n, cap, at->filter.exe);
		/* a probed program is known as SystemTap knows it
		 * (umodbuildid() of its addresses, its symbols) */
		if (at->kind == ATTACH_UPROBE)
			VEC_PUSH(paths, n, cap, at->uprobe.path);
	}
	const char *prog = uobj_command_program(&cg->s->arena,
						 cg->s->target_cmd);
	if (prog)
		VEC_PUSH(paths, n, cap, prog);
	if (cg->s->ldd) {
		int objects = n;
		for (int i = 0; i < objects; i++)
			userpath_needed(&cg->s->arena, paths[i], &paths, &n);
		cap = n;
	}
	fputs("\n/* user objects: symbols and unwind rows (module/unwind.c) */\n"
	      "#define STP_USTACK_TABLES 1\n"
	      "struct stp_usym { unsigned long addr, size; const char *name; };\n"
	      "struct stp_urow { unsigned long pc; int cfa_off; unsigned char "
	      "cfa_reg; signed char ra_off; short fp_off; };\n"
	      STP_LINE_ROW_C
	      "struct stp_uobj { const char *path, *base; unsigned long ino; "
	      "long long size; unsigned long span; bool dyn; "
	      "const struct stp_usym *syms; "
	      "unsigned int nsyms; const struct stp_urow *rows; "
	      "unsigned int nrows; const char *const *files; "
	      "const struct stp_line *lines; unsigned int nlines; "
	      "const char *build_id; };\n",
	      out);
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= !strcmp(paths[i], paths[j]);
		if (!dup && gen_object(cg, out, made, paths[i], objs, lines))
			made++;
	}
	fclose(objs);
	fprintf(out, "static const struct stp_uobj stp_uobjs[%d] = {\n%s};\n"
		"static const unsigned int stp_nuobjs = %d;\n\n",
		made ? made : 1, made ? objs_text : "\t{ 0 }\n", made);
	free(objs_text);
	free(paths);
}
