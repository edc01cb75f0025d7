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
#include <elf.h>
#include <sys/stat.h>

#include "module/emit.h"
#include "elf/elf.h"
#include "elf/arch.h"
#include "target/userpath.h"

struct fsym {
	uint64_t addr, size;
	const char *name;
};

struct fsyms {
	struct fsym *v;
	int n, cap;
	struct arena *a;
};

static int collect_fn(const struct elf_sym *s, void *arg)
{
	struct fsyms *fs = arg;

	if (s->type != STT_FUNC || !s->shndx || !s->addr || !*s->name)
		return 0;
	/* "__libc_start_main@@GLIBC_2.34": the name without its version */
	const char *at = strchr(s->name, '@');
	const char *name = at && at > s->name ?
		arena_printf(fs->a, "%.*s", (int)(at - s->name), s->name) :
		s->name;
	VEC_GROW(fs->v, fs->n, fs->cap);
	fs->v[fs->n++] = (struct fsym){ s->addr, s->size, name };
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* aliases: the global name (larger size first, then by name) */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One row: rules from pc on. cfa_reg 0 rsp, 1 rbp, 255 unknown. */
static void put_row(FILE *out, uint64_t pc, const struct elf_frame *fr)
{
	int reg = 255, ra = 0, fp = 0;

	if (fr && fr->cfa.kind == ELF_RULE_REG_OFFSET &&
	    (fr->cfa.reg == ARCH_SP_REG || fr->cfa.reg == ARCH_FP_REG) &&
	    fr->ra.kind == ELF_RULE_OFFSET) {
		reg = fr->cfa.reg == ARCH_SP_REG ? 0 : 1;
		ra = (int)fr->ra.offset;
		if (fr->fp.kind == ELF_RULE_OFFSET)
			fp = (int)fr->fp.offset;
	}
	fprintf(out, "\t{ 0x%" PRIx64 ", %d, %d, %d, %d },\n", pc,
		reg == 255 ? 0 : (int)fr->cfa.offset, reg, ra, fp);
}

struct span {
	uint64_t lo, hi;
};

static int section_span(const struct elf_section *sec, void *arg)
{
	struct span *sp = arg;

	if (!(sec->flags & SHF_ALLOC) || !sec->size)
		return 0;
	if (sec->addr < sp->lo)
		sp->lo = sec->addr;
	if (sec->addr + sec->size > sp->hi)
		sp->hi = sec->addr + sec->size;
	return 0;
}

/* The extent the dynamic loader reserves for the file: its allocated
 * sections, from the page of the first to the page after the last. */
static uint64_t extent(struct elf_file *f)
{
	struct span sp = { UINT64_MAX, 0 };

	if (elf_file_sections(f, section_span, &sp) < 0 || !sp.hi)
		return 0;
	sp.lo &= ~0xfffULL;
	return ((sp.hi + 0xfff) & ~0xfffULL) - sp.lo;
}

/* Object k's tables; false when it cannot be read. */
static bool gen_object(struct cg *cg, FILE *out, int k, const char *path,
		       FILE *objs, bool lines)
{
	char *err = NULL;
	struct elf_file *f = elf_file_open(path, NULL, &err);
	struct fsyms fs = { .a = &cg->s->arena };
	struct stat st;
	int nrows = 0;

	if (!f || stat(path, &st)) {
		if (cg->s->verbose)
			fprintf(stderr, "stap: no unwind data for '%s': %s\n",
				path, err ? err : "cannot read it");
		free(err);
		if (f)
			elf_file_close(f);
		return false;
	}
	elf_file_symbols(f, collect_fn, &fs);
	if (fs.n)
		qsort(fs.v, (size_t)fs.n, sizeof(*fs.v), by_addr);
	fprintf(out, "static const struct stp_usym stp_usyms_%d[] = {\n", k);
	int nsyms = 0;
	for (int i = 0; i < fs.n; i++) {
		if (i && fs.v[i].addr == fs.v[i - 1].addr)
			continue;
		/* a function's extent, as SystemTap's tables give it: up to
		 * the next symbol (the last: its own size) */
		uint64_t size = fs.v[i].size;
		for (int j = i + 1; j < fs.n; j++)
			if (fs.v[j].addr > fs.v[i].addr) {
				size = fs.v[j].addr - fs.v[i].addr;
				break;
			}
		fprintf(out, "\t{ 0x%" PRIx64 ", 0x%" PRIx64 ", %s },\n",
			fs.v[i].addr, size,
			c_string(cg, fs.v[i].name, strlen(fs.v[i].name)));
		nsyms++;
	}
	fputs("\t{ 0 }\n};\n", out);
	fprintf(out, "static const struct stp_urow stp_urows_%d[] = {\n", k);
	uint64_t last_end = 0;
	for (int i = 0; i < fs.n; i++) {
		uint64_t pc = fs.v[i].addr, end = pc + fs.v[i].size;
		if (i && fs.v[i].addr == fs.v[i - 1].addr)
			continue;
		if (pc < last_end)
			pc = last_end;	/* overlapping symbols */
		if (last_end && pc > last_end) {
			put_row(out, last_end, NULL);	/* a gap */
			nrows++;
		}
		for (int steps = 0; pc < end && steps < 4096; steps++) {
			struct elf_frame fr;
			const char *why;
			if (elf_file_cfi_at(f, pc, &fr, &why)) {
				put_row(out, pc, NULL);
				nrows++;
				break;
			}
			put_row(out, pc, &fr);
			nrows++;
			pc = fr.end > pc ? fr.end : end;
		}
		if (end > last_end)
			last_end = end;
	}
	if (last_end) {
		put_row(out, last_end, NULL);
		nrows++;
	}
	fputs("\t{ 0 }\n};\n", out);
	const char *lname = arena_printf(&cg->s->arena, "stp_u%d", k);
	uint64_t base = 0;	/* rows at link-time addresses */
	int nlines = lines ? gen_line_table(cg, out, lname, f, NULL, 0,
					    &base) : 0;
	char *ltab = nlines ? arena_printf(&cg->s->arena,
					   "%s_files, %s_lines", lname,
					   lname) : "NULL, NULL";
	fprintf(objs, "\t{ %s, %s, 0x%llxULL, %lldLL, 0x%llxUL, %d, "
		"stp_usyms_%d, %d, stp_urows_%d, %d, %s, %d },\n",
		c_string(cg, path, strlen(path)),
		c_string(cg, strrchr(path, '/') ? strrchr(path, '/') + 1 : path,
			 strlen(strrchr(path, '/') ? strrchr(path, '/') + 1 :
				path)),
		(unsigned long long)st.st_ino, (long long)st.st_size,
		(unsigned long long)extent(f), elf_file_type(f) == ET_DYN, k,
		nsyms, k, nrows, ltab, nlines);
	free(fs.v);
	elf_file_close(f);
	return true;
}

/* -c's program when the loader runs it without a shell, or NULL. */
static const char *command_program(struct cg *cg)
{
	const char *cmd = cg->s->target_cmd;
	size_t len;

	if (!cmd || strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}\n"))
		return NULL;
	cmd += strspn(cmd, " \t");
	len = strcspn(cmd, " \t");
	if (!len)
		return NULL;
	return userpath_program(&cg->s->arena,
				arena_printf(&cg->s->arena, "%.*s", (int)len,
					     cmd));
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
	}
	const char *prog = command_program(cg);
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
	      "const struct stp_line *lines; unsigned int nlines; };\n",
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
