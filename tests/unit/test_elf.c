// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the ELF/DWARF reader (elf/) on a program this test builds
 * (gcc -g -O2): a shared library it calls through the PLT, an inlined
 * function, a parameter in a register, a sys/sdt.h mark with a
 * semaphore, and a copy of the program whose DWARF is in a separate
 * file, found once by its build-id under a debug root and once by its
 * .gnu_debuglink; its types through the kernel's type table (target/btf.h);
 * the library as a relocatable object, a kernel module's kind. Facts the
 * reader reports are checked against the sources' line numbers and
 * objdump. No guest, no kernel.
 * Exit 0 pass, 1 fail, 77 (skip) without gcc or sys/sdt.h.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf/arch.h"
#include "elf/elf.h"
#include "target/btf.h"
#include "tests/unit/check.h"

/* Line numbers below are checked: keep the sources' lines in place. */
static const char lib_c[] =
	"int lib_add(int a, int b)\n"			/* 1 */
	"{\n"
	"\treturn a + b;\n"
	"}\n";

static const char prog_c[] =
	"#define _SDT_HAS_SEMAPHORES 1\n"		/* 1 */
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <sys/sdt.h>\n"
	"__extension__ unsigned short prog_mark_semaphore\n"	/* 5 */
	"\t__attribute__((unused, section(\".probes\")));\n"
	"int lib_add(int a, int b);\n"
	"static inline __attribute__((always_inline)) int square(int v)\n"
	"{\n"
	"\treturn v * v;\n"				/* 10 */
	"}\n"
	"__attribute__((noinline)) int scale(int factor, int k)\n"
	"{\n"
	"\treturn lib_add(factor * k, k);\n"
	"}\n"						/* 15 */
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tint n = argc > 1 ? atoi(argv[1]) : 3;\n"
	"\tint s = square(n);\n"			/* 19 */
	"\tif (prog_mark_semaphore)\n"			/* 20 */
	"\t\tSTAP_PROBE2(prog, mark, s, 42);\n"
	"\tputs(\"done\");\n"
	"\treturn scale(s, n);\n"
	"}\n"
	"struct point {\n"				/* 25 */
	"\tint x;\n"
	"\tlong y;\n"
	"\tunsigned flag : 3, wide : 9;\n"
	"\tstruct point *next;\n"
	"\tchar name[8];\n"
	"\tint grid[2][3];\n"
	"\tenum shade { DARK = -1, LIGHT = 7 } shade;\n"
	"\tconst char *label;\n"
	"} origin;\n"
	"typedef struct point point_t;\n"
	"point_t *origin_p = &origin;\n";

static char dir[] = "/tmp/stap-test-elf-XXXXXX";

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int rc;

	va_start(ap, fmt);
	if (vasprintf(&cmd, fmt, ap) < 0)
		exit(1);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "failed (%d): %s\n", rc, cmd);
	free(cmd);
	return rc;
}

static void write_text(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", dir, name) < 0 || !(f = fopen(path, "w")))
		exit(1);
	fputs(text, f);
	fclose(f);
	free(path);
}

/* The address objdump gives the label <label>, or 0. */
static uint64_t objdump_label(const char *file, const char *label)
{
	char *cmd, line[512];
	uint64_t addr = 0;
	FILE *p;

	if (asprintf(&cmd, "objdump -d '%s/%s'", dir, file) < 0 ||
	    !(p = popen(cmd, "r")))
		exit(1);
	while (fgets(line, sizeof(line), p)) {
		char want[128];

		snprintf(want, sizeof(want), " <%s>:", label);
		if (strstr(line, want))
			addr = strtoull(line, NULL, 16);
	}
	pclose(p);
	free(cmd);
	return addr;
}

static char *path_of(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		exit(1);
	return p;
}

struct found {
	const char *want;
	bool inlined;
	struct elf_func fn;
	bool seen;
	const char *caller, *decl_file, *call_file;
};

static int find_func(const struct elf_func *fn, void *arg)
{
	struct found *w = arg;

	if (strcmp(fn->name, w->want) || fn->inlined != w->inlined)
		return 0;
	w->fn = *fn;
	w->fn.ranges = NULL;
	w->caller = fn->caller ? strdup(fn->caller) : NULL;
	w->decl_file = fn->decl_file ? strdup(fn->decl_file) : NULL;
	w->call_file = fn->call_file ? strdup(fn->call_file) : NULL;
	w->seen = true;
	return 1;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = s ? strlen(s) : 0, m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* The program itself, with its DWARF. */
/* elf_file_line_rows: the count, the sequence ends, the line of the
 * last row at addr */
struct row_seen {
	uint64_t addr;
	int n, ends, line;
};

static int see_row(const struct elf_line *row, bool end, void *arg)
{
	struct row_seen *rs = arg;

	rs->n++;
	rs->ends += end;
	if (!end && row->addr == rs->addr && row->file[0])
		rs->line = row->line;
	return 0;
}

static void check_program(struct elf_file *f)
{
	struct elf_sym s, main_sym, sem;
	const struct elf_plt *plt;
	int nplt;

	CHECK(elf_file_type(f) == ET_DYN || elf_file_type(f) == ET_EXEC);
	CHECK(elf_file_has_dwarf(f));
	CHECK(elf_file_build_id(f) && strlen(elf_file_build_id(f)) == 40);

	/* symbols, against objdump */
	CHECK(elf_file_symbol(f, "scale", &s));
	CHECK(s.type == STT_FUNC && s.bind == STB_GLOBAL && s.size > 0);
	CHECK(s.addr == objdump_label("prog", "scale"));
	CHECK(elf_file_symbol(f, "main", &main_sym));
	struct elf_sym at;
	CHECK(elf_file_symbol_at(f, s.addr + 1, &at) &&
	      !strcmp(at.name, "scale"));
	CHECK(!elf_file_symbol(f, "no_such_symbol", &at));

	/* the PLT: the library's function and libc's */
	nplt = elf_file_plt(f, &plt);
	CHECK(nplt >= 2);
	int seen = 0;
	for (int i = 0; i < nplt; i++) {
		if (!strcmp(plt[i].name, "lib_add")) {
			CHECK(plt[i].addr == objdump_label("prog",
							   "lib_add@plt"));
			seen++;
		}
		if (!strcmp(plt[i].name, "puts")) {
			CHECK(plt[i].addr == objdump_label("prog", "puts@plt"));
			seen++;
		}
	}
	CHECK(seen == 2);

	/* the out-of-line function and the inlined instance */
	struct found out = { .want = "scale" }, in = { .want = "square",
						       .inlined = true };
	CHECK(elf_file_functions(f, find_func, &out) == 1);
	CHECK(out.seen && out.fn.entry_pc == s.addr);
	CHECK(out.fn.decl_line == 12 && ends_with(out.decl_file, "/prog.c"));
	CHECK(elf_file_functions(f, find_func, &in) == 1);
	CHECK(in.seen && in.fn.decl_line == 8);
	CHECK(in.caller && !strcmp(in.caller, "main"));
	CHECK(in.fn.call_line == 19 && ends_with(in.call_file, "/prog.c"));
	CHECK(in.fn.nranges >= 1 && in.fn.entry_pc >= main_sym.addr &&
	      in.fn.entry_pc < main_sym.addr + main_sym.size);

	/* line tables, both ways */
	struct elf_line l;
	const struct elf_line *rows;
	CHECK(elf_file_line_at(f, s.addr, &l));
	CHECK(ends_with(l.file, "/prog.c") && l.line >= 12 && l.line <= 14);
	int nrows = elf_file_lines_of(f, "prog.c", 14, &rows);
	CHECK(nrows >= 1);
	for (int i = 0; i < nrows; i++) {
		CHECK(rows[i].line == 14 && rows[i].is_stmt);
		CHECK(rows[i].addr >= s.addr && rows[i].addr < s.addr + s.size);
		CHECK(elf_file_line_at(f, rows[i].addr, &l) && l.line == 14);
	}
	CHECK(elf_file_lines_of(f, "other.c", 14, &rows) == 0);

	/* every row, and the rows of scale's CU: the row at scale's entry
	 * is the one elf_file_line_at gives; sequences end */
	struct row_seen all = { .addr = s.addr }, cu = { .addr = s.addr };
	CHECK(elf_file_line_at(f, s.addr, &l));
	CHECK(elf_file_line_rows(f, see_row, &all) == 0);
	CHECK(all.n > nrows && all.ends >= 1 && all.line == l.line);
	uint64_t cu_off = elf_file_cu_at(f, s.addr);
	CHECK(cu_off != 0 && elf_file_cu_at(f, 0) == 0);
	CHECK(elf_file_cu_line_rows(f, cu_off, see_row, &cu) == 0);
	CHECK(cu.n >= 1 && cu.n <= all.n && cu.line == l.line);

	/* a parameter's location at the entry: the first argument register */
	const struct elf_loc *loc = NULL;
	int64_t value;
	CHECK(elf_var_location(f, out.fn.die, "factor", s.addr, &loc,
			       &value) == ELF_VAR_LOCATION);
	CHECK(loc && loc->n == 1 && loc->ops[0].kind == ELF_LOC_REG &&
	      loc->ops[0].reg == 5);
	if (loc)
		CHECK_STR(elf_loc_text(f, loc), "reg:rdi");
	CHECK(elf_var_location(f, out.fn.die, "k", s.addr, &loc, &value) ==
	      ELF_VAR_LOCATION);
	if (loc)
		CHECK_STR(elf_loc_text(f, loc), "reg:rsi");
	CHECK(elf_var_location(f, out.fn.die, "nothing", s.addr, &loc,
			       &value) == ELF_VAR_NONE);

	/* the SDT mark: its place, semaphore and arguments */
	const struct elf_sdt *sdt;
	CHECK(elf_file_sdt(f, &sdt) == 1);
	CHECK(elf_file_symbol(f, "prog_mark_semaphore", &sem));
	if (elf_file_sdt(f, &sdt) == 1) {
		CHECK_STR(sdt->provider, "prog");
		CHECK_STR(sdt->name, "mark");
		CHECK(sdt->semaphore == sem.addr && sem.addr != 0);
		CHECK(sdt->pc > main_sym.addr &&
		      sdt->pc < main_sym.addr + main_sym.size);
		CHECK(sdt->nargs == 2 && !sdt->error);
		CHECK(sdt->arg[0].size == 4 && sdt->arg[0].is_signed);
		CHECK(sdt->arg[0].kind == ELF_SDT_REG ||
		      sdt->arg[0].kind == ELF_SDT_MEM);
		CHECK(sdt->arg[0].reg >= 0);
		CHECK(sdt->arg[1].kind == ELF_SDT_CONST &&
		      sdt->arg[1].value == 42 && sdt->arg[1].size == 4);
		CHECK_STR(sdt->arg[1].text, "-4@$42");
	}

	/* CFI: at a function's entry the CFA is rsp + 8, the return
	 * address just below it */
	struct elf_frame fr;
	const char *why;
	CHECK(elf_file_cfi_at(f, s.addr, &fr, &why) == 0);
	CHECK(fr.start <= s.addr && fr.end > s.addr);
	CHECK(fr.cfa.kind == ELF_RULE_REG_OFFSET &&
	      fr.cfa.reg == ARCH_SP_REG && fr.cfa.offset == 8);
	CHECK(fr.ra_reg == ARCH_RA_REG && fr.ra.kind == ELF_RULE_OFFSET &&
	      fr.ra.offset == -8);
	CHECK(elf_file_cfi_at(f, 0x10, &fr, &why) == -1);
}

/* A member's place and type, through the kernel's type table. */
static int member(struct btf *b, int id, const char *name, unsigned *bit,
		  unsigned *bits, struct btf_info *info)
{
	int type;

	if (btf_member(b, id, name, &type, bit, bits) != 0)
		return -1;
	btf_resolve(b, type, info);
	return type;
}

/* The program's DWARF types as a scope of the type table pass 2 uses for
 * the kernel, on an empty base (a raw BTF file of no types). */
static void check_types(struct elf_file *f)
{
	struct btf *b = NULL;
	struct btf_info in;
	char *err = NULL, *base = path_of("base.btf");
	/* magic, version 1, header 24 bytes, no types, a "" string */
	static const unsigned char empty[] = {
		0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 1, 0, 0, 0, 0,
	};
	FILE *out = fopen(base, "w");
	unsigned bit, bits;
	int scope, id, t;

	CHECK(out && fwrite(empty, sizeof(empty), 1, out) == 1);
	if (out)
		fclose(out);
	CHECK(btf_load_file(base, &b, &err) == 0);
	free(base);
	if (!b) {
		fprintf(stderr, "base BTF: %s\n", err);
		free(err);
		return;
	}
	scope = btf_add_elf(b, "prog", f, &err);
	CHECK(scope > 0);
	if (!scope) {
		fprintf(stderr, "btf_add_elf: %s\n", err);
		free(err);
		btf_free(b);
		return;
	}
	id = btf_find_type_in(b, "struct point", scope);
	CHECK(id > 0);
	btf_resolve(b, id, &in);
	CHECK(in.cls == BTF_CLASS_STRUCT && in.size == 80);
	CHECK(btf_find_type_in(b, "struct point", 0) == 0);
	t = btf_find_type_in(b, "point_t", scope);
	btf_resolve(b, t, &in);
	CHECK(t > 0 && in.cls == BTF_CLASS_STRUCT && in.size == 80);

	CHECK(member(b, id, "x", &bit, &bits, &in) > 0 && bit == 0 &&
	      in.cls == BTF_CLASS_INT && in.size == 4 && in.is_signed);
	CHECK(member(b, id, "y", &bit, &bits, &in) > 0 && bit == 64 &&
	      in.size == 8);
	CHECK(member(b, id, "flag", &bit, &bits, &in) > 0 && bit == 128 &&
	      bits == 3 && !in.is_signed);
	CHECK(member(b, id, "wide", &bit, &bits, &in) > 0 && bit == 131 &&
	      bits == 9);
	CHECK(member(b, id, "next", &bit, &bits, &in) > 0 && bit == 192 &&
	      in.cls == BTF_CLASS_PTR);
	btf_resolve(b, in.target, &in);
	CHECK(in.cls == BTF_CLASS_STRUCT && in.size == 80);
	CHECK(member(b, id, "name", &bit, &bits, &in) > 0 && bit == 256 &&
	      in.cls == BTF_CLASS_ARRAY && in.nelems == 8 && in.is_char);
	CHECK(member(b, id, "grid", &bit, &bits, &in) > 0 && bit == 320 &&
	      in.cls == BTF_CLASS_ARRAY && in.nelems == 2 && in.size == 24);
	btf_resolve(b, in.target, &in);
	CHECK(in.cls == BTF_CLASS_ARRAY && in.nelems == 3 && in.size == 12);
	CHECK(member(b, id, "shade", &bit, &bits, &in) > 0 && bit == 512 &&
	      in.cls == BTF_CLASS_ENUM && in.size == 4 && in.is_signed);
	CHECK(member(b, id, "label", &bit, &bits, &in) > 0 && bit == 576 &&
	      in.cls == BTF_CLASS_PTR && in.is_char);
	CHECK(member(b, id, "nothing", &bit, &bits, &in) == -1);
	char *name = btf_type_name(b, id);
	CHECK(name && !strcmp(name, "struct point"));
	free(name);
	btf_free(b);
}

static void check_library(struct elf_file *f)
{
	struct elf_sym s;
	struct found out = { .want = "lib_add" };

	CHECK(elf_file_type(f) == ET_DYN);
	CHECK(elf_file_symbol(f, "lib_add", &s) && s.type == STT_FUNC);
	CHECK(s.addr == objdump_label("libelfsh.so", "lib_add"));
	CHECK(elf_file_functions(f, find_func, &out) == 1);
	CHECK(out.fn.entry_pc == s.addr && out.fn.decl_line == 1);
}

/* The register table all callers share. */
static void check_arch(void)
{
	unsigned bytes = 0;

	CHECK_STR(arch_reg_name(0), "rax");
	CHECK_STR(arch_reg_name(5), "rdi");
	CHECK_STR(arch_reg_pt_regs(7), "sp");
	CHECK_STR(arch_reg_pt_regs(ARCH_RA_REG), "ip");
	CHECK(arch_reg_name(17) == NULL);
	CHECK(arch_reg_from_asm("%esi", &bytes) == 4 && bytes == 4);
	CHECK(arch_reg_from_asm("r9b", &bytes) == 9 && bytes == 1);
	CHECK(arch_reg_from_asm("%xmm0", &bytes) == -1);
}

static void check_sdt_specs(void)
{
	struct arena a = { 0 };
	struct elf_sdt_arg x;

	CHECK(elf_sdt_parse_arg(&a, "8@-16(%rbp)", &x) == 0);
	CHECK(x.kind == ELF_SDT_MEM && x.reg == 6 && x.offset == -16 &&
	      x.size == 8 && !x.is_signed);
	CHECK(elf_sdt_parse_arg(&a, "-2@%ax", &x) == 0);
	CHECK(x.kind == ELF_SDT_REG && x.reg == 0 && x.size == 2 &&
	      x.is_signed);
	CHECK(elf_sdt_parse_arg(&a, "4@counter+8(%rip)", &x) == 0);
	CHECK(x.kind == ELF_SDT_MEM && x.reg == ARCH_RA_REG &&
	      !strcmp(x.symbol, "counter") && x.offset == 8);
	CHECK(elf_sdt_parse_arg(&a, "8@8(%rax,%rbx,4)", &x) == 0);
	CHECK(x.reg == 0 && x.index_reg == 3 && x.scale == 4 &&
	      x.offset == 8);
	CHECK(elf_sdt_parse_arg(&a, "3@%rax", &x) == -1);
	CHECK(elf_sdt_parse_arg(&a, "8@%bogus", &x) == -1);
	CHECK(elf_sdt_parse_arg(&a, "8@4(%rax", &x) == -1);
	arena_free(&a);
}

int main(void)
{
	struct elf_file *f;
	char *err = NULL, *root, *id, *p;

	check_arch();
	check_sdt_specs();
	if (access("/usr/include/x86_64-linux-gnu/sys/sdt.h", R_OK) != 0 &&
	    access("/usr/include/sys/sdt.h", R_OK) != 0) {
		printf("SKIP: no sys/sdt.h (systemtap-sdt-dev)\n");
		return 77;
	}
	if (!mkdtemp(dir) || sh("command -v gcc >/dev/null") != 0) {
		printf("SKIP: no gcc\n");
		return 77;
	}
	write_text("lib.c", lib_c);
	write_text("prog.c", prog_c);
	if (sh("cd %s && gcc -g -O2 -fPIC -shared -Wl,--build-id -o "
	       "libelfsh.so lib.c && gcc -g -O2 -Wl,--build-id -o prog prog.c "
	       "-L. -lelfsh -Wl,-rpath,%s", dir, dir) != 0)
		return 1;

	/* the program with its DWARF, and the library */
	f = elf_file_open(p = path_of("prog"), NULL, &err);
	CHECK(f != NULL);
	if (f) {
		CHECK_STR(elf_file_debug_path(f), p);
		check_program(f);
		check_types(f);
		elf_file_close(f);
	}
	free(p);
	f = elf_file_open(p = path_of("libelfsh.so"), NULL, &err);
	CHECK(f != NULL);
	if (f) {
		check_library(f);
		elf_file_close(f);
	}
	free(p);

	/* split: prog.debug holds the DWARF; linked.stripped names it in
	 * .gnu_debuglink, bare.stripped only has its build-id, and the debug
	 * root has .build-id/xx/rest.debug */
	f = elf_file_open(p = path_of("prog"), NULL, &err);
	id = f ? strdup(elf_file_build_id(f)) : strdup("00");
	elf_file_close(f);
	free(p);
	if (sh("cd %s && objcopy --only-keep-debug prog prog.debug && "
	       "objcopy --strip-debug --add-gnu-debuglink=prog.debug prog "
	       "linked.stripped && mkdir -p bare root/.build-id/%.2s && "
	       "objcopy --strip-debug prog bare/bare.stripped && "
	       "cp prog.debug root/.build-id/%.2s/%s.debug",
	       dir, id, id, id + 2) != 0)
		return 1;
	root = path_of("root");

	/* by the debuglink (the debug root has nothing for it) */
	f = elf_file_open(p = path_of("linked.stripped"), "/nonexistent", &err);
	CHECK(f != NULL);
	if (f) {
		char *want = path_of("prog.debug");
		CHECK_STR(elf_file_debuglink(f), "prog.debug");
		CHECK(elf_file_debug_path(f) &&
		      !strcmp(elf_file_debug_path(f), want));
		check_program(f);
		elf_file_close(f);
		free(want);
	}
	free(p);

	/* by the build-id */
	f = elf_file_open(p = path_of("bare/bare.stripped"), root, &err);
	CHECK(f != NULL);
	if (f) {
		char *want;
		if (asprintf(&want, "%s/.build-id/%.2s/%s.debug", root, id,
			     id + 2) < 0)
			return 1;
		CHECK(elf_file_debuglink(f) == NULL);
		CHECK(elf_file_debug_path(f) &&
		      !strcmp(elf_file_debug_path(f), want));
		check_program(f);
		elf_file_close(f);
		free(want);
	}
	free(p);

	/* without either: no DWARF, still symbols */
	f = elf_file_open(p = path_of("bare/bare.stripped"), "/nonexistent",
			  &err);
	CHECK(f && !elf_file_has_dwarf(f) && !elf_file_debug_path(f));
	if (f) {
		struct elf_sym s;
		CHECK(elf_file_symbol(f, "scale", &s));
		elf_file_close(f);
	}
	free(p);
	CHECK(elf_file_open("/nonexistent/x", NULL, &err) == NULL && err &&
	      strstr(err, "cannot open"));
	free(err);

	/* a relocatable object (a kernel module's kind): its DWARF is
	 * relocated, its addresses name a section and an offset */
	if (sh("cd %s && gcc -g -O2 -c -o lib.o lib.c", dir) == 0) {
		f = elf_file_open(p = path_of("lib.o"), "/nonexistent", &err);
		CHECK(f && elf_file_type(f) == ET_REL);
		if (f) {
			struct found out = { .want = "lib_add" };
			struct elf_sym s;
			struct elf_line l;
			const char *sec;
			uint64_t off;

			CHECK(elf_file_symbol(f, "lib_add", &s) && s.addr == 0);
			CHECK(elf_file_functions(f, find_func, &out) == 1);
			CHECK(out.fn.decl_line == 1 &&
			      ends_with(out.decl_file, "/lib.c"));
			CHECK(elf_file_section_offset(f, out.fn.entry_pc, &sec,
						      &off));
			CHECK(!strcmp(sec, ".text") && off == s.addr);
			CHECK(elf_file_line_at(f, out.fn.entry_pc, &l) &&
			      l.line >= 1 && l.line <= 3);
			elf_file_close(f);
		}
		free(p);
	}

	free(root);
	free(id);
	sh("rm -rf '%s'", dir);
	return CHECK_DONE();
}
