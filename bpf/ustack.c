// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User stacks and symbols on the BPF backend (the ucontext-unwind
 * tapset's ubacktrace(), ustack(), ucallers(), sprint_ubacktrace(),
 * print_ubacktrace(), usymname(), usymdata(), umodname(), print_ustack()
 * in kernel probes), as the module backend does them (runtime/ustack.c):
 * the objects' symbol and CFI unwind tables in the program
 * (target/uobj.c: the same tables as the module's, in .rodata), the
 * current task's user stack unwound in the kernel with them, so programs
 * built without frame pointers unwind (bpf_get_stack() follows frame
 * pointers only), and addresses named in the kernel too, since
 * sprint_ubacktrace() and usymname() return strings the script goes on
 * using.
 *
 * An address is placed in an object through the task's mapping of the
 * file (bpf_find_vma: its inode's number and size, as the module matches
 * them); a file without tables is named by its dentries up through its
 * mounts (the module uses d_path, which BPF tracing programs may not
 * call). The walk and the
 * formatting are global BPF functions (stp_uwalk, stp_ufmt), verified
 * once however often a body calls them; the walk is at most STP_UMAXBT
 * (the module's MAXBACKTRACE, 20) frames. print_ubacktrace()'s lines go
 * to the loader as text records (kind 4), the walk's warning about a
 * file without tables as a kind 5 record (once per run).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "bpf/emit.h"
#include "semantic/semantic.h"
#include "target/lines.h"
#include "target/uobj.h"
#include "target/userpath.h"

/* The tapset functions this file gives the kernel half, as macros of the
 * C below (bpf_tapset_expr's convention: a string's destination, an
 * error's id, then the call's arguments). */
static const struct {
	const char *name, *macro;
} fns[] = {
	{ "ubacktrace", "STP_UBACKTRACE(" },
	{ "sprint_ubacktrace", "STP_USPRINT(" },
	{ "print_ubacktrace", "STP_UPRINT(" },
	{ "print_ubacktrace_brief", "STP_UPRINT_BRIEF(" },
	{ "ustack", "STP_USTACK(" },
	{ "ucallers", "STP_UCALLERS(" },
	{ "usymname", "STP_USYMNAME(" },
	{ "usymdata", "STP_USYMDATA(" },
	{ "umodname", "STP_UMODNAME(" },
	{ "print_usyms", "STP_UPRINT_SYMS(" },
	{ "print_ustack", "STP_UPRINT_SYMS(" },
	{ "usymfileline", "STP_USYMFILELINE(" },
	{ "usymfile", "STP_USYMFILE(" },
	{ "usymline", "STP_USYMLINE(" },
	{ "print_ubacktrace_fileline", "STP_UPRINT_FILELINE(" },
	{ "uaddr", "STP_UADDR(" },	/* the pc a walk starts from */
};

/* The functions of fns[] that need the objects' line tables. */
static const char *const line_fns[] = {
	"usymfileline", "usymfile", "usymline", "print_ubacktrace_fileline",
};

const char *bpf_ustack_expr(const char *name, bool kernel)
{
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, name))
			return kernel ? fns[i].macro : NULL;
	return NULL;
}

const char *bpf_ustack_error(struct arena *a, const struct node *n)
{
	const char *name = n->call.name;
	const struct node *arg = n->call.args;

	if (!strcmp(name, "umodname"))
		return "module cannot be found";
	if (strcmp(name, "ustack") && strcmp(name, "ucallers"))
		return NULL;
	/* the module's text has the level: a constant here (another
	 * level is named "N") */
	if (arg && arg->kind == N_NUMBER)
		return arena_printf(a, "reached end of stack before unwinding "
				    "to level %lld", (long long)arg->num.value);
	return "reached end of stack before unwinding to level N";
}

/* Whether a kernel probe may call one of fns[] (it is in the program);
 * with lines, one of line_fns[]. */
static bool uses_ustack(const struct program *prog, bool lines)
{
	for (int i = 0; i < prog->nfuncs; i++) {
		const struct script_func *f = prog->funcs[i];
		if (!f->used || !f->sym || !bpf_ustack_expr(f->sym->name, true))
			continue;
		if (!lines)
			return true;
		for (size_t k = 0; k < sizeof(line_fns) / sizeof(*line_fns);
		     k++)
			if (!strcmp(f->sym->name, line_fns[k]))
				return true;
	}
	return false;
}

/* ---- pass 3: the tables ------------------------------------------------- */

struct names {
	char *buf;
	size_t len;
	FILE *f;
};

static unsigned name_off(struct names *nm, const char *s)
{
	unsigned off;

	fflush(nm->f);
	off = (unsigned)nm->len;
	for (const char *c = s; *c; c++)
		fprintf(nm->f, "\\%03o", (unsigned char)*c);
	fputs("\\000", nm->f);
	fflush(nm->f);
	/* each byte is written as 4 characters */
	return off / 4;
}

/* The objects, as the module backend chooses them (module/unwind.c). */
static const char **object_paths(struct session *s, struct program *prog,
				 int *n)
{
	const char **paths = NULL;
	int cap = 0;

	*n = 0;
	for (int i = 0; i < s->nunwind_objs; i++)
		VEC_PUSH(paths, *n, cap, userpath_program(&s->arena,
						s->unwind_objs[i]));
	for (int i = 0; i < prog->nprobes; i++) {
		const struct attach *at = &prog->probes[i]->attach;
		if (at->kind == ATTACH_PROCESS && at->filter.exe)
			VEC_PUSH(paths, *n, cap, at->filter.exe);
	}
	const char *cmd = uobj_command_program(&s->arena, s->target_cmd);
	if (cmd)
		VEC_PUSH(paths, *n, cap, cmd);
	if (s->ldd) {
		int objects = *n;
		for (int i = 0; i < objects; i++)
			userpath_needed(&s->arena, paths[i], &paths, n);
	}
	return paths;
}

/* Object o's line table rows into lines (the files' names in nm): how
 * many. */
static int emit_lines(struct uobj *o, struct names *nm, FILE *lines)
{
	struct line_table t;
	uint64_t base = 0;	/* rows at link-time addresses */
	int rows = line_table_build(o->f, NULL, 0, &base, &t);
	unsigned *names = calloc((size_t)t.nfiles + 1, sizeof(*names));

	for (int i = 0; i < t.nfiles; i++)
		names[i] = name_off(nm, t.files[i]);
	for (int r = 0; r < rows; r++)
		fprintf(lines, "\t{ 0x%" PRIx64 "ULL, %d, %u },\n",
			t.rows[r].addr, t.rows[r].line,
			t.rows[r].line ? names[t.rows[r].file] : 0);
	free(names);
	line_table_free(&t);
	return rows;
}

static void emit_tables(struct session *s, struct program *prog, FILE *out,
			bool with_lines)
{
	int n, nobj = 0, nrows = 0, nsyms = 0, nlines = 0;
	const char **paths = object_paths(s, prog, &n);
	struct names nm = { 0 };
	char *rbuf = NULL, *sbuf = NULL, *obuf = NULL, *lbuf = NULL;
	size_t rlen = 0, slen = 0, olen = 0, llen = 0;
	FILE *rows = open_memstream(&rbuf, &rlen);
	FILE *lines = open_memstream(&lbuf, &llen);
	FILE *syms = open_memstream(&sbuf, &slen);
	FILE *objs = open_memstream(&obuf, &olen);

	nm.f = open_memstream(&nm.buf, &nm.len);
	name_off(&nm, "");
	for (int i = 0; i < n; i++) {
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= !strcmp(paths[i], paths[j]);
		struct uobj o;
		char *err = NULL;
		if (dup)
			continue;
		if (!uobj_load(&s->arena, paths[i], &o, &err)) {
			if (s->verbose)
				fprintf(stderr, "stap: no unwind data for '%s': "
					"%s\n", paths[i], err ? err :
					"cannot read it");
			free(err);
			continue;
		}
		int olines = with_lines ? emit_lines(&o, &nm, lines) : 0;
		fprintf(objs, "\t{ 0x%" PRIx64 "ULL, %" PRId64 "LL, 0x%" PRIx64
			"ULL, %d, %d, %d, %d, %d, %u, %u, %d, %d },\n", o.ino,
			o.size, o.span, o.dyn, nrows, o.nrows, nsyms, o.nsyms,
			name_off(&nm, o.path), name_off(&nm, o.base), nlines,
			olines);
		nlines += olines;
		for (int r = 0; r < o.nrows; r++)
			fprintf(rows, "\t{ 0x%" PRIx64 "ULL, %d, %d, %d, %d },\n",
				o.rows[r].pc, o.rows[r].cfa_off,
				o.rows[r].cfa_reg, o.rows[r].ra_off,
				o.rows[r].fp_off);
		for (int k = 0; k < o.nsyms; k++)
			fprintf(syms, "\t{ 0x%" PRIx64 "ULL, 0x%" PRIx64 "ULL, "
				"%u },\n", o.syms[k].addr, o.syms[k].size,
				name_off(&nm, o.syms[k].name));
		nrows += o.nrows;
		nsyms += o.nsyms;
		nobj++;
		uobj_close(&o);
	}
	fclose(rows);
	fclose(lines);
	fclose(syms);
	fclose(objs);
	fclose(nm.f);
	fprintf(out, "#define STP_NUOBJS %d\n#define STP_NUROWS %d\n"
		"#define STP_NUSYMS %d\n#define STP_NULINES %d\n", nobj, nrows,
		nsyms, nlines);
	fprintf(out, "const struct stp_uobj stp_uobjs[%d] = {\n%s};\n",
		nobj ? nobj : 1, nobj ? obuf : "\t{ 0 }\n");
	fprintf(out, "const struct stp_urow stp_urows[%d] = {\n%s};\n",
		nrows ? nrows : 1, nrows ? rbuf : "\t{ 0 }\n");
	fprintf(out, "const struct stp_usym stp_usyms[%d] = {\n%s};\n",
		nsyms ? nsyms : 1, nsyms ? sbuf : "\t{ 0 }\n");
	fprintf(out, "const struct stp_uline stp_ulines[%d] = {\n%s};\n",
		nlines ? nlines : 1, nlines ? lbuf : "\t{ 0 }\n");
	fprintf(out, "const char stp_unames[] = \"%s\";\n", nm.buf);
	free(lbuf);
	free(rbuf);
	free(sbuf);
	free(obuf);
	free(nm.buf);
	free(paths);
}

/* ---- pass 3: the walk and the formats ----------------------------------- */

static const char ustack_c[] =
	"#define STP_UMAXBT 20\n"
	"#define STP_UPAI __attribute__((preserve_access_index))\n"
	"struct inode___stpu { unsigned long i_ino; long long i_size; } "
	"STP_UPAI;\n"
	"struct qstr___stpu { const unsigned char *name; } STP_UPAI;\n"
	"struct dentry___stpu { struct dentry___stpu *d_parent; "
	"struct qstr___stpu d_name; } STP_UPAI;\n"
	"struct vfsmount___stpu { struct dentry___stpu *mnt_root; } "
	"STP_UPAI;\n"
	"struct mount___stpu { struct mount___stpu *mnt_parent; "
	"struct dentry___stpu *mnt_mountpoint; struct vfsmount___stpu mnt; } "
	"STP_UPAI;\n"
	"struct path___stpu { struct vfsmount___stpu *mnt; "
	"struct dentry___stpu *dentry; } STP_UPAI;\n"
	"struct file___stpu { struct inode___stpu *f_inode; "
	"struct path___stpu f_path; } STP_UPAI;\n"
	"struct vm_area_struct___stpu { unsigned long vm_start, vm_end, "
	"vm_pgoff; struct file___stpu *vm_file; } STP_UPAI;\n"
	"struct pt_regs___stpu { unsigned long bp, sp, ip; } STP_UPAI;\n"
	"struct task_struct___stpu { void *mm; unsigned int flags; } "
	"STP_UPAI;\n"
	/* the tables (module/unwind.c's, flattened) */
	"struct stp_urow { unsigned long long pc; int cfa_off; int cfa_reg; "
	"int ra_off, fp_off; };\n"
	"struct stp_usym { unsigned long long addr, size; unsigned name; };\n"
	"struct stp_uobj { unsigned long long ino; long long size; "
	"unsigned long long span; int dyn, row0, nrows, sym0, nsyms; "
	"unsigned path, base; int line0, nlines; };\n"
	/* a line table's row: from addr on, line (0: none) of the file
	 * named at stp_unames + file */
	"struct stp_uline { unsigned long long addr; unsigned line, file; };\n"
	"@TABLES@"
	/* the walk's pcs, the formats' buffers (per CPU) */
	"struct stp_uwalk { unsigned long long pcs[32]; int n, o, max; "
	"unsigned long long pc, sp, bp, vs, ve, bias, missing; };\n"
	"struct stp_ufbuf { char b[512]; char path[512]; char acc[2 * STP_STR]; "
	"char stk[STP_STR + 32]; char hex[48]; unsigned long long frel, fspan; "
	"unsigned fbase, sn, sfrom; unsigned long long sv;\n"
	"\tunsigned long long pd, pvm, pmnt, pds[16]; unsigned pn; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, 1); __type(key, __u32); __type(value, "
	"struct stp_uwalk); } stp_uwk SEC(\".maps\");\n"
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, 1); __type(key, __u32); __type(value, "
	"struct stp_ufbuf); } stp_ufb SEC(\".maps\");\n"
	"struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); "
	"__type(key, __u32); __type(value, __u32); } stp_uwarn "
	"SEC(\".maps\");\n"
	"struct stp_urec { struct stp_hdr h; char t[512]; };\n"
	/* a mapping: its range, offset and file */
	"struct stp_uvma { unsigned long long start, end, pgoff, ino; "
	"long long size; struct file___stpu *file; };\n"
	"static long stp_uvma_cb(void *task, struct vm_area_struct___stpu *v, "
	"void *ctx)\n{\n"
	"\tstruct stp_uvma *m = ctx;\n"
	"\tstruct inode___stpu *i;\n"
	"\tm->start = BPF_CORE_READ(v, vm_start);\n"
	"\tm->end = BPF_CORE_READ(v, vm_end);\n"
	"\tm->pgoff = BPF_CORE_READ(v, vm_pgoff);\n"
	"\tstruct file___stpu *fl = BPF_CORE_READ(v, vm_file);\n"
	"\tm->file = fl;\n"
	"\tif (!fl)\n\t\treturn 0;\n"
	"\ti = BPF_CORE_READ(fl, f_inode);\n"
	"\tm->ino = BPF_CORE_READ(i, i_ino);\n"
	"\tm->size = BPF_CORE_READ(i, i_size);\n"
	"\treturn 0;\n}\n"
	/* the mapping at addr: 0 none, 1 a file's (m) */
	"static __always_inline int stp_uvma_at(unsigned long long addr, "
	"struct stp_uvma *m)\n{\n"
	"\t__builtin_memset(m, 0, sizeof(*m));\n"
	"\tif (bpf_find_vma(bpf_get_current_task_btf(), addr, stp_uvma_cb, m, "
	"0))\n\t\treturn 0;\n"
	"\treturn m->file != 0;\n}\n"
	/* which of the objects m maps, or -1 */
	"static __always_inline int stp_uobj_of(const struct stp_uvma *m)\n{\n"
	"\tfor (int i = 0; i < STP_NUOBJS; i++)\n"
	"\t\tif (stp_uobjs[i].ino == m->ino && stp_uobjs[i].size == m->size)\n"
	"\t\t\treturn i;\n"
	"\treturn -1;\n}\n"
	"static __always_inline unsigned long long stp_ubias(int o, "
	"const struct stp_uvma *m)\n{\n"
	"\tif (o < 0 || o >= STP_NUOBJS || !stp_uobjs[o].dyn)\n\t\treturn 0;\n"
	"\treturn m->start - (m->pgoff << 12);\n}\n"
	/* a binary search's step (bpf_loop's, its state in the map: one
	 * verification of a step, not of every path through 32) */
	"struct stp_ubs { unsigned long long rel; unsigned lo, hi; int syms; };\n"
	"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); "
	"__uint(max_entries, 1); __type(key, __u32); __type(value, "
	"struct stp_ubs); } stp_ubsm SEC(\".maps\");\n"
	"static long stp_ubs_one(__u32 i, void *c)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ubs *b = bpf_map_lookup_elem(&stp_ubsm, &z);\n"
	"\tunsigned long long key;\n\tunsigned mid;\n"
	"\tif (!b || b->lo >= b->hi)\n\t\treturn 1;\n"
	"\tmid = b->lo + ((b->hi - b->lo) >> 1);\n"
	"\tif (b->syms == 1) {\n"
	"\t\tif (mid >= STP_NUSYMS)\n\t\t\treturn 1;\n"
	"\t\tkey = stp_usyms[mid].addr;\n"
	"\t} else if (b->syms == 2) {\n"
	"\t\tif (mid >= STP_NULINES)\n\t\t\treturn 1;\n"
	"\t\tkey = stp_ulines[mid].addr;\n"
	"\t} else {\n"
	"\t\tif (mid >= STP_NUROWS)\n\t\t\treturn 1;\n"
	"\t\tkey = stp_urows[mid].pc;\n\t}\n"
	"\tif (key <= b->rel)\n\t\tb->lo = mid + 1;\n\telse\n\t\tb->hi = mid;\n"
	"\treturn 0;\n}\n"
	/* the first entry of [lo, hi) of a table after rel (-1: none) */
	"static __always_inline unsigned stp_ubsearch(int syms, unsigned lo, "
	"unsigned hi, unsigned long long rel)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ubs *b = bpf_map_lookup_elem(&stp_ubsm, &z);\n"
	"\tif (!b)\n\t\treturn 0;\n"
	"\tb->rel = rel;\n\tb->lo = lo;\n\tb->hi = hi;\n\tb->syms = syms;\n"
	"\tbpf_loop(32, stp_ubs_one, 0, 0);\n"
	"\treturn b->lo;\n}\n"
	/* the row covering rel in object o, or -1 */
	"static __always_inline int stp_urow_at(int o, unsigned long long rel)"
	"\n{\n"
	"\tif (o < 0 || o >= STP_NUOBJS)\n\t\treturn -1;\n"
	"\tunsigned first = stp_uobjs[o].row0;\n"
	"\tunsigned lo = stp_ubsearch(0, first, first + stp_uobjs[o].nrows, "
	"rel), k = lo - 1;\n"
	"\tSTP_BARRIER(k);\n"
	"\tif (lo <= first || k >= STP_NUROWS || stp_urows[k].cfa_reg == 255)\n"
	"\t\treturn -1;\n"
	"\treturn (int)k;\n}\n"
	/* the symbol containing rel in object o, or -1 */
	"static __always_inline int stp_usym_at(int o, unsigned long long rel)"
	"\n{\n"
	"\tif (o < 0 || o >= STP_NUOBJS)\n\t\treturn -1;\n"
	"\tunsigned first = stp_uobjs[o].sym0;\n"
	"\tunsigned lo = stp_ubsearch(1, first, first + stp_uobjs[o].nsyms, "
	"rel), k = lo - 1;\n"
	"\tSTP_BARRIER(k);\n"
	"\tif (lo <= first || k >= STP_NUSYMS)\n\t\treturn -1;\n"
	"\tconst struct stp_usym *s = &stp_usyms[k];\n"
	"\tif (s->size && rel >= s->addr + s->size)\n\t\treturn -1;\n"
	"\treturn (int)k;\n}\n"
	/* the line table row covering rel in object o, or -1 (none, or a
	 * gap) */
	"static __always_inline int stp_uline_at(int o, unsigned long long rel)"
	"\n{\n"
	"\tif (o < 0 || o >= STP_NUOBJS)\n\t\treturn -1;\n"
	"\tunsigned first = stp_uobjs[o].line0;\n"
	"\tunsigned lo = stp_ubsearch(2, first, first + stp_uobjs[o].nlines, "
	"rel), k = lo - 1;\n"
	"\tSTP_BARRIER(k);\n"
	"\tif (lo <= first || k >= STP_NULINES || !stp_ulines[k].line)\n"
	"\t\treturn -1;\n"
	"\treturn (int)k;\n}\n"
	/* the line of rel in object o (0: none) and its file's name */
	"static __always_inline unsigned stp_uline_of(int o, "
	"unsigned long long rel, unsigned *file)\n{\n"
	"\tint l = stp_uline_at(o, rel);\n"
	"\tunsigned k;\n"
	"\tif (l < 0)\n\t\treturn 0;\n"
	"\tk = (unsigned)l;\n"
	"\tSTP_BARRIER(k);\n"
	"\tif (k >= STP_NULINES)\n\t\treturn 0;\n"
	"\t*file = stp_ulines[k].file;\n"
	"\treturn stp_ulines[k].line;\n}\n"
	/* one step up from a dentry (bpf_loop's, the state in stp_ufb):
	 * recorded, or at a mount's root its mountpoint in the parent
	 * mount; 1 at the root */
	"static long stp_upath_one(__u32 i, void *c)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tstruct dentry___stpu *d, *up;\n"
	"\tstruct vfsmount___stpu *vm;\n"
	"\tstruct mount___stpu *mnt, *pm;\n"
	"\tif (!f || f->pn >= 16 || !f->pd)\n\t\treturn 1;\n"
	"\td = (void *)f->pd;\n\tvm = (void *)f->pvm;\n\tmnt = (void *)f->pmnt;\n"
	"\tup = BPF_CORE_READ(d, d_parent);\n"
	"\tif (vm && (d == BPF_CORE_READ(vm, mnt_root) || up == d)) {\n"
	"\t\tpm = BPF_CORE_READ(mnt, mnt_parent);\n"
	"\t\tif (!pm || pm == mnt)\n\t\t\treturn 1;\n"
	"\t\tf->pd = (unsigned long long)BPF_CORE_READ(mnt, mnt_mountpoint);\n"
	"\t\tf->pmnt = (unsigned long long)pm;\n"
	"\t\tf->pvm = (unsigned long long)pm + bpf_core_field_offset("
	"struct mount___stpu, mnt);\n"
	"\t\treturn 0;\n\t}\n"
	"\tif (up == d)\n\t\treturn 1;\n"
	"\tf->pds[f->pn & 15] = (unsigned long long)d;\n"
	"\tf->pn++;\n\tf->pd = (unsigned long long)up;\n"
	"\treturn 0;\n}\n"
	/* the path of a file from its dentries up to the root, through
	 * the mounts, into p (512 bytes): its length, *base where its last
	 * component starts */
	"static __always_inline unsigned stp_upath(struct file___stpu *fl, "
	"char *p, unsigned *base)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tunsigned len = 0, n;\n"
	"\t*base = 0;\n"
	"\tp[0] = 0;\n"
	"\tif (!f)\n\t\treturn 0;\n"
	"\tstruct vfsmount___stpu *vm = BPF_CORE_READ(fl, f_path.mnt);\n"
	"\tf->pd = (unsigned long long)BPF_CORE_READ(fl, f_path.dentry);\n"
	"\tf->pvm = (unsigned long long)vm;\n"
	"\tf->pmnt = vm ? (unsigned long long)vm - bpf_core_field_offset("
	"struct mount___stpu, mnt) : 0;\n"
	"\tf->pn = 0;\n"
	"\tbpf_loop(32, stp_upath_one, 0, 0);\n"
	"\tn = f->pn;\n"
	"#pragma unroll\n"
	"\tfor (int i = 15; i >= 0; i--) {\n"
	"\t\tif (i >= (int)n || len >= 250)\n\t\t\tcontinue;\n"
	"\t\tSTP_BARRIER(len);\n"
	"\t\tp[len & 511] = '/';\n\t\tlen++;\n"
	"\t\tstruct dentry___stpu *di = (void *)f->pds[i];\n"
	"\t\tconst unsigned char *nm = BPF_CORE_READ(di, d_name.name);\n"
	"\t\tunsigned at = len;\n\t\t*base = at;\n\t\tSTP_BARRIER(at);\n"
	"\t\tlong r = bpf_probe_read_kernel_str(p + (at & 255), 128, nm);\n"
	"\t\tif (r > 0)\n\t\t\tlen += (unsigned)r - 1;\n\t}\n"
	"\tif (len > 255)\n\t\tlen = 255;\n"
	"\tSTP_BARRIER(len);\n"
	"\tp[len & 511] = 0;\n\treturn len;\n}\n"
	/* the walk: the return addresses of current's user stack, innermost
	 * first (the first is the pc), in stp_uwk; their count */
	/* one frame of the walk (bpf_loop's: the state in the map, so the
	 * verifier sees every frame alike) */
	"static long stp_uwalk_one(__u32 i, void *c)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_uwalk *w = bpf_map_lookup_elem(&stp_uwk, &z);\n"
	"\tunsigned long long pc, at, cfa, ra = 0, bp;\n"
	"\tif (!w || (int)i >= w->max)\n\t\treturn 1;\n"
	"\tpc = w->pc;\n"
	/* a return address may be just past its call's function */
	"\tat = i ? pc - 1 : pc;\n"
	"\tw->pcs[i & 31] = pc;\n\tw->n = i + 1;\n"
	"\tif (w->o < 0 || at < w->vs || at >= w->ve) {\n"
	"\t\tstruct stp_uvma m;\n"
	"\t\tint o;\n"
	"\t\tif (!stp_uvma_at(at, &m))\n\t\t\treturn 1;\n"
	"\t\to = stp_uobj_of(&m);\n"
	"\t\tif (o < 0) {\n\t\t\tw->missing = pc;\n\t\t\treturn 1;\n\t\t}\n"
	"\t\tw->o = o;\n\t\tw->vs = m.start;\n\t\tw->ve = m.end;\n"
	"\t\tw->bias = stp_ubias(o, &m);\n\t}\n"
	"\tint k = stp_urow_at(w->o, at - w->bias);\n"
	"\tSTP_BARRIER(k);\n"
	"\tif (k < 0 || k >= STP_NUROWS)\n\t\treturn 1;\n"
	"\tconst struct stp_urow *row = &stp_urows[k];\n"
	"\tcfa = (row->cfa_reg ? w->bp : w->sp) + (long long)row->cfa_off;\n"
	"\tif (bpf_probe_read_user(&ra, 8, (void *)(cfa + "
	"(long long)row->ra_off)))\n\t\treturn 1;\n"
	"\tif (row->fp_off) {\n"
	"\t\tif (bpf_probe_read_user(&bp, 8, (void *)(cfa + "
	"(long long)row->fp_off)))\n\t\t\treturn 1;\n"
	"\t\tw->bp = bp;\n\t}\n"
	"\tif (!ra || cfa <= w->sp)\n\t\treturn 1;\t/* the end, or no progress */\n"
	"\tw->sp = cfa;\n\tw->pc = ra;\n"
	"\treturn 0;\n}\n"
	/* the walk: the return addresses of current's user stack, innermost
	 * first (the first is the pc), in stp_uwk; their count */
	"__attribute__((noinline)) int stp_uwalk(int max)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_uwalk *w = bpf_map_lookup_elem(&stp_uwk, &z);\n"
	"\tif (!w)\n\t\treturn 0;\n"
	"\tw->n = 0;\n"
	"\tstruct task_struct___stpu *t = (void *)bpf_get_current_task_btf();\n"
	"\tif (!BPF_CORE_READ(t, mm) || (BPF_CORE_READ(t, flags) & "
	"0x00200000))\n\t\treturn 0;\n"
	"\tstruct pt_regs___stpu *r = (void *)bpf_task_pt_regs((void *)t);\n"
	"\tw->pc = BPF_CORE_READ(r, ip);\n"
	"\tw->sp = BPF_CORE_READ(r, sp);\n"
	"\tw->bp = BPF_CORE_READ(r, bp);\n"
	"\tw->o = -1;\n\tw->vs = w->ve = w->bias = w->missing = 0;\n"
	"\tw->max = max < STP_UMAXBT ? max : STP_UMAXBT;\n"
	"\tbpf_loop(STP_UMAXBT, stp_uwalk_one, 0, 0);\n"
	"\tif (w->missing) {\n"
	"\t\t__u32 *warned = bpf_map_lookup_elem(&stp_uwarn, &z);\n"
	"\t\tstruct stp_uvma m;\n"
	"\t\tif (warned && !*warned && stp_uvma_at(w->missing, &m)) {\n"
	"\t\t\tstruct stp_urec *x;\n"
	"\t\t\t*warned = 1;\n"
	"\t\t\tx = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0);\n"
	"\t\t\tif (x) {\n\t\t\t\tunsigned bi;\n"
	"\t\t\t\tx->h.kind = 5;\n"
	"\t\t\t\tx->h.id = stp_upath(m.file, x->t, &bi);\n"
	"\t\t\t\tbpf_ringbuf_submit(x, 0);\n\t\t\t}\n\t\t}\n\t}\n"
	"\treturn w->n;\n}\n"

	/* the formats' pieces, into b (512 bytes) at *len (< 256 kept) */
	"static __always_inline void stp_uputc(char *b, unsigned *len, char c)"
	"\n{\n\tunsigned l = *len;\n\tif (l < 500) {\n\t\tSTP_BARRIER(l);\n"
	"\t\tb[l & 511] = c;\n\t\t*len = l + 1;\n\t}\n}\n"
	"static __always_inline void stp_uputs(char *b, unsigned *len, "
	"const char *s)\n{\n"
	"\tunsigned at = *len;\n"
	"\tif (at >= 256)\n\t\treturn;\n"
	"\tSTP_BARRIER(at);\n"
	"\tlong r = bpf_probe_read_kernel_str(b + (at & 255), 256, s);\n"
	"\tif (r > 0)\n\t\t*len += (unsigned)r - 1;\n}\n"
	/* "0xADDR" of v into stp_ufb's hex (a global function: one
	 * verification however often the formats write numbers) */
	"__attribute__((noinline)) int stp_uhexw(unsigned long long v)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tint n = 1;\n"
	"\tif (!f)\n\t\treturn 0;\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < 16; i++) {\n"
	"\t\tunsigned d = (v >> (4 * (15 - i))) & 15;\n"
	"\t\tf->hex[24 + i] = d < 10 ? '0' + d : 'a' + d - 10;\n\t}\n"
	"#pragma unroll\n"
	"\tfor (int i = 1; i < 16; i++)\n\t\tif (v >> (4 * i))\n\t\t\tn = i + 1;\n"
	"\tf->hex[0] = '0';\n\tf->hex[1] = 'x';\n"
	"\tbpf_probe_read_kernel(f->hex + 2, 16, f->hex + 24 + ((16 - n) & 15));\n"
	"\tf->hex[(2 + n) & 31] = 0;\n"
	"\treturn n + 2;\n}\n"
	"static __always_inline void stp_uhex(char *b, unsigned *len, "
	"unsigned long long v)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f;\n"
	"\tstp_uhexw(v);\n"
	"\tf = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tif (f)\n\t\tstp_uputs(b, len, f->hex);\n}\n"
	/* v in decimal into stp_ufb's hex, as stp_uhexw */
	"__attribute__((noinline)) int stp_udecw(unsigned long long v)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tint n = 1;\n"
	"\tif (!f)\n\t\treturn 0;\n"
	"#pragma unroll\n"
	"\tfor (int i = 0; i < 20; i++) {\n"
	"\t\tif (v || !i) {\n"
	"\t\t\tf->hex[43 - i] = '0' + v % 10;\n\t\t\tn = i + 1;\n\t\t}\n"
	"\t\tv /= 10;\n\t}\n"
	"\tbpf_probe_read_kernel(f->hex, 20, f->hex + 44 - (n & 31));\n"
	"\tf->hex[n & 31] = 0;\n"
	"\treturn n;\n}\n"
	"static __always_inline void stp_udec(char *b, unsigned *len, "
	"unsigned long long v)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f;\n"
	"\tstp_udecw(v);\n"
	"\tf = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tif (f)\n\t\tstp_uputs(b, len, f->hex);\n}\n"
	/* a file without tables mapped at addr: its path (by its dentries),
	 * the offset of addr from the file's first mapping and that
	 * mapping's extent (runtime/ustack.c's stp_umap_extent), in
	 * stp_ufb; 0 when addr is in no file */
	"__attribute__((noinline)) int stp_ufile(unsigned long long addr)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tstruct stp_uvma m, v;\n"
	"\tunsigned long long start, span;\n"
	"\tunsigned bi = 0;\n"
	"\tif (!f || !stp_uvma_at(addr, &m))\n\t\treturn 0;\n"
	"\tstp_upath(m.file, f->path, &bi);\n"
	"\tf->fbase = bi;\n"
	"\tstart = m.start - (m.pgoff << 12);\n"
	"\tif (!stp_uvma_at(start, &v) || v.ino != m.ino) {\n"
	"\t\tstart = m.start;\n\t\tspan = m.end - m.start;\n"
	"\t} else {\n"
	"\t\tunsigned long long end = v.end;\n"
	"\t\tint anon = 0;\n"
	"\t\tfor (int i = 0; i < 16; i++) {\n"
	"\t\t\tstruct stp_uvma nx;\n"
	"\t\t\tif (!stp_uvma_at(end, &nx) && !nx.end)\n\t\t\t\tbreak;\n"
	"\t\t\tif (nx.start != end || (nx.file && nx.ino != m.ino) || "
	"(!nx.file && anon))\n\t\t\t\tbreak;\n"
	"\t\t\tanon = !nx.file;\n\t\t\tend = nx.end;\n\t\t}\n"
	"\t\tspan = end - start;\n\t}\n"
	"\tf->frel = addr - start;\n\tf->fspan = span;\n"
	"\treturn 1;\n}\n"
	/*
	 * addr in style (runtime/ustack.c's stp_usym_format): 0 usymname,
	 * 1 usymdata, 2 print_ubacktrace, 3 sprint_ubacktrace, 4
	 * print_ubacktrace_brief, 5 umodname (the path, or -1), 6
	 * usymfileline, 7 usymfile, 8 usymline (stp_uline_format), 9
	 * print_ubacktrace_fileline (2 with " at FILE:LINE"); into stp_ufb's
	 * b, NUL-terminated: its length.
	 */
	"__attribute__((noinline)) int stp_ufmt(unsigned long long addr, "
	"int style)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tstruct stp_uvma m;\n"
	"\tunsigned len = 0;\n"
	"\tint o = -1, s = -1, where = 0, fl = style == 9;\n"
	"\tunsigned long long rel = 0, span = 0, start;\n"
	"\tconst char *mod = 0, *base = 0;\n"
	"\tif (!f)\n\t\treturn -1;\n"
	"\tchar *b = f->b;\n"
	"\tif (fl)\n\t\tstyle = 2;\n"
	"\tif (stp_uvma_at(addr, &m)) {\n"
	"\t\to = stp_uobj_of(&m);\n"
	"\t\tif (o >= 0 && o < STP_NUOBJS) {\n"
	"\t\t\twhere = 1;\n"
	"\t\t\trel = addr - stp_ubias(o, &m);\n"
	"\t\t\ts = stp_usym_at(o, rel);\n"
	"\t\t\tspan = stp_uobjs[o].span;\n"
	"\t\t\tmod = stp_unames + (stp_uobjs[o].path & 0xfffffff);\n"
	"\t\t\tbase = stp_unames + (stp_uobjs[o].base & 0xfffffff);\n"
	"\t\t} else if (style != 0 && style != 4 && style < 6 && "
	"stp_ufile(addr) > 0) {\n"
	"\t\t\twhere = 2;\n"
	"\t\t\trel = f->frel;\n\t\t\tspan = f->fspan;\n"
	"\t\t\tmod = f->path;\n"
	"\t\t\tbase = f->path + (f->fbase & 255);\n"
	"\t\t}\n\t}\n"
	"\tif (style >= 6) {\n"
	"\t\tunsigned lf = 0, ll = stp_uline_of(where == 1 ? o : -1, rel, &lf);\n"
	"\t\tif (!ll) {\n"
	"\t\t\tstp_uhex(b, &len, addr);\n"
	"\t\t} else {\n"
	"\t\t\tif (style != 8)\n\t\t\t\tstp_uputs(b, &len, stp_unames + "
	"(lf & 0xfffffff));\n"
	"\t\t\tif (style == 6)\n\t\t\t\tstp_uputc(b, &len, ':');\n"
	"\t\t\tif (style != 7)\n\t\t\t\tstp_udec(b, &len, ll);\n"
	"\t\t}\n"
	"\t\tSTP_BARRIER(len);\n\t\tb[len & 511] = 0;\n\t\treturn len;\n\t}\n"
	"\tif (style == 5) {\n"
	"\t\tif (!where)\n\t\t\treturn -1;\n"
	"\t\tstp_uputs(b, &len, mod);\n"
	"\t\tSTP_BARRIER(len);\n\t\tb[len & 511] = 0;\n\t\treturn len;\n\t}\n"
	"\tif (!where || (s < 0 && (style == 0 || style == 4))) {\n"
	"\t\tif (style == 2)\n\t\t\tstp_uputc(b, &len, ' ');\n"
	"\t\tstp_uhex(b, &len, addr);\n"
	"\t\tif (style >= 2)\n\t\t\tstp_uputc(b, &len, '\\n');\n"
	"\t\tSTP_BARRIER(len);\n\t\tb[len & 511] = 0;\n\t\treturn len;\n\t}\n"
	"\tSTP_BARRIER(s);\n"
	"\tif (s < 0 || s >= STP_NUSYMS) {\n"
	/* a file without symbols here: its offset (and extent) */
	"\t\tif (style == 2)\n\t\t\tstp_uputc(b, &len, ' ');\n"
	"\t\tstp_uhex(b, &len, addr);\n"
	"\t\tstp_uputc(b, &len, ' ');\n\t\tstp_uputc(b, &len, '[');\n"
	"\t\tstp_uputs(b, &len, style == 3 ? base : mod);\n"
	"\t\tstp_uputc(b, &len, '+');\n\t\tstp_uhex(b, &len, rel);\n"
	"\t\tif (style != 3) {\n\t\t\tstp_uputc(b, &len, '/');\n"
	"\t\t\tstp_uhex(b, &len, span);\n\t\t}\n"
	"\t\tstp_uputc(b, &len, ']');\n"
	"\t\tif (style >= 2)\n\t\t\tstp_uputc(b, &len, '\\n');\n"
	"\t\tSTP_BARRIER(len);\n\t\tb[len & 511] = 0;\n\t\treturn len;\n\t}\n"
	"\tconst struct stp_usym *y = &stp_usyms[s];\n"
	"\tif (style == 2) {\n\t\tstp_uputc(b, &len, ' ');\n"
	"\t\tstp_uhex(b, &len, addr);\n\t\tstp_uputc(b, &len, ' ');\n"
	"\t\tstp_uputc(b, &len, ':');\n\t\tstp_uputc(b, &len, ' ');\n\t}\n"
	"\tstp_uputs(b, &len, stp_unames + (y->name & 0xfffffff));\n"
	"\tif (style != 0) {\n"
	"\t\tstp_uputc(b, &len, '+');\n\t\tstp_uhex(b, &len, rel - y->addr);\n"
	"\t}\n"
	"\tif (style == 1 || style == 2) {\n"
	"\t\tstp_uputc(b, &len, '/');\n\t\tstp_uhex(b, &len, y->size);\n\t}\n"
	"\tif (fl) {\n"
	"\t\tunsigned lf = 0, ll = stp_uline_of(o, rel, &lf);\n"
	"\t\tif (ll) {\n"
	"\t\t\tstp_uputc(b, &len, ' ');\n\t\t\tstp_uputc(b, &len, 'a');\n"
	"\t\t\tstp_uputc(b, &len, 't');\n\t\t\tstp_uputc(b, &len, ' ');\n"
	"\t\t\tstp_uputs(b, &len, stp_unames + (lf & 0xfffffff));\n"
	"\t\t\tstp_uputc(b, &len, ':');\n"
	"\t\t\tstp_udec(b, &len, ll);\n\t\t}\n\t}\n"
	"\tif (style == 1 || style == 2 || style == 3) {\n"
	"\t\tstp_uputc(b, &len, ' ');\n\t\tstp_uputc(b, &len, '[');\n"
	"\t\tstp_uputs(b, &len, style == 3 ? base : mod);\n"
	"\t\tstp_uputc(b, &len, ']');\n\t}\n"
	"\tif (style >= 2)\n\t\tstp_uputc(b, &len, '\\n');\n"
	"\tSTP_BARRIER(len);\n\tb[len & 511] = 0;\n\treturn len;\n}\n"
	/* a piece of b (len bytes) appended to acc at *al when it fits
	 * whole in a script string */
	"static __always_inline int stp_uappend(struct stp_ufbuf *f, "
	"unsigned *al, int len)\n{\n"
	"\tif (len < 0 || *al + len >= STP_STR || *al >= STP_STR)\n"
	"\t\treturn 0;\n"
	"\tunsigned at = *al;\n\tSTP_BARRIER(at);\n"
	"\tbpf_probe_read_kernel(f->acc + (at & (STP_STR - 1)), STP_STR, "
	"f->b);\n"
	"\tat += len;\n\t*al = at;\n\tSTP_BARRIER(at);\n"
	"\tf->acc[at & (STP_STR - 1)] = 0;\n\treturn 1;\n}\n"
	/*
	 * Into acc: 0 ubacktrace()'s "0xADDR 0xADDR ... ", 1 ucallers(k)'s
	 * "0xADDR 0xADDR" (frames 0..k, all for -1), 2 sprint_ubacktrace()'s
	 * lines; whole pieces only, within MAXSTRINGLEN. -1: the stack ends
	 * before frame k.
	 */
	"struct stp_ulctx { long long k; int mode, n, end; unsigned al; };\n"
	"static long stp_ulist_one(__u32 i, void *c)\n{\n"
	"\tstruct stp_ulctx *x = c;\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tstruct stp_uwalk *w = bpf_map_lookup_elem(&stp_uwk, &z);\n"
	"\tunsigned len = 0;\n"
	"\tif (!f || !w || (int)i >= x->n || (x->mode == 1 && x->k >= 0 && "
	"i > x->k))\n\t\treturn 1;\n"
	"\tx->end = i + 1;\n"
	"\tif (x->mode == 2)\n"
	"\t\treturn !stp_uappend(f, &x->al, stp_ufmt(w->pcs[i & 31], 3));\n"
	"\tif (x->mode == 1 && i)\n\t\tstp_uputc(f->b, &len, ' ');\n"
	"\tstp_uhex(f->b, &len, w->pcs[i & 31]);\n"
	"\tif (x->mode == 0)\n\t\tstp_uputc(f->b, &len, ' ');\n"
	"\treturn !stp_uappend(f, &x->al, len);\n}\n"
	"__attribute__((noinline)) int stp_ulist(int mode, long long k)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tstruct stp_ulctx x = { .k = k, .mode = mode };\n"
	"\tif (!f)\n\t\treturn 0;\n"
	"\tf->acc[0] = 0;\n"
	"\tif (mode == 1 && k < -1)\n\t\treturn 0;\n"
	"\tx.n = stp_uwalk(STP_UMAXBT);\n"
	"\tbpf_loop(STP_UMAXBT, stp_ulist_one, &x, 0);\n"
	/* ucallers(k): the stack ended before frame k (a string cut at
	 * MAXSTRINGLEN is no error) */
	"\treturn mode == 1 && k >= 0 && x.n <= k ? -1 : 0;\n}\n"
	/* print_ubacktrace() in style: a text record per frame */
	"static long stp_uprint_one(__u32 i, void *c)\n{\n"
	"\tint *style = c;\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_uwalk *w = bpf_map_lookup_elem(&stp_uwk, &z);\n"
	"\tstruct stp_ufbuf *f;\n"
	"\tstruct stp_urec *x;\n"
	"\tif (!w || (int)i >= w->n)\n\t\treturn 1;\n"
	"\tint len = stp_ufmt(w->pcs[i & 31], *style);\n"
	"\tf = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tif (!f || len <= 0)\n\t\treturn 0;\n"
	"\tx = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0);\n"
	"\tif (!x) {\n\t\t__sync_fetch_and_add(&G.stp_lost, 1);\n\t\treturn 0;\n\t}\n"
	"\tx->h.kind = 4;\n\tx->h.id = len & 511;\n"
	"\tbpf_probe_read_kernel(x->t, sizeof(x->t), f->b);\n"
	"\tbpf_ringbuf_submit(x, 0);\n\treturn 0;\n}\n"
	"__attribute__((noinline)) int stp_uprint(int style)\n{\n"
	"\tstp_uwalk(STP_UMAXBT);\n"
	"\tbpf_loop(STP_UMAXBT, stp_uprint_one, &style, 0);\n"
	"\treturn 0;\n}\n"
	/* print_usyms(callers) of the string in stk: " 0xADDR :
	 * usymdata(0xADDR)\n" for each of its addresses, as the tapset's
	 * script loop prints them */
	"static long stp_usyms_one(__u32 i, void *c)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tif (!f)\n\t\treturn 1;\n"
	"\tchar ch = f->stk[i & (STP_STR - 1)];\n"
	"\tif (ch && ch != ' ') {\n"
	"\t\tif (!f->sn)\n\t\t\tf->sfrom = i;\n\t\tf->sn++;\n"
	"\t\tif (ch >= '0' && ch <= '9')\n\t\t\tf->sv = f->sv * 16 + (ch - '0');\n"
	"\t\telse if (ch >= 'a' && ch <= 'f')\n"
	"\t\t\tf->sv = f->sv * 16 + (ch - 'a' + 10);\n"
	"\t\telse if (ch >= 'A' && ch <= 'F')\n"
	"\t\t\tf->sv = f->sv * 16 + (ch - 'A' + 10);\n"
	"\t\telse if (ch == 'x' || ch == 'X')\n\t\t\tf->sv = 0;\n"
	"\t\treturn 0;\n\t}\n"
	"\tif (f->sn) {\n"
	"\t\tint len = stp_ufmt(f->sv, 1);\n"
	"\t\tstruct stp_urec *x = bpf_ringbuf_reserve(&stp_rb, sizeof(*x), 0);\n"
	"\t\tif (!x) {\n\t\t\t__sync_fetch_and_add(&G.stp_lost, 1);\n"
	"\t\t} else {\n"
	"\t\t\tunsigned l = 1, tl = f->sn > 31 ? 31 : f->sn;\n"
	"\t\t\tx->t[0] = ' ';\n"
	"\t\t\tbpf_probe_read_kernel(x->t + 1, 32, f->stk + (f->sfrom & (STP_STR - 1)));\n"
	"\t\t\tl += tl;\n"
	"\t\t\tstp_uputc(x->t, &l, ' ');\n\t\t\tstp_uputc(x->t, &l, ':');\n"
	"\t\t\tstp_uputc(x->t, &l, ' ');\n"
	"\t\t\tif (len > 0 && l < 64) {\n"
	"\t\t\t\tunsigned at = l;\n\t\t\t\tSTP_BARRIER(at);\n"
	"\t\t\t\tbpf_probe_read_kernel(x->t + (at & 63), 256, f->b);\n"
	"\t\t\t\tl += len > 255 ? 255 : len;\n\t\t\t}\n"
	"\t\t\tstp_uputc(x->t, &l, '\\n');\n"
	"\t\t\tx->h.kind = 4;\n\t\t\tx->h.id = l & 511;\n"
	"\t\t\tbpf_ringbuf_submit(x, 0);\n\t\t}\n"
	"\t}\n"
	"\tf->sn = 0;\n\tf->sv = 0;\n"
	"\treturn !ch;\n}\n"
	"__attribute__((noinline)) int stp_uprint_syms(void)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\tif (!f)\n\t\treturn 0;\n"
	"\tf->sn = 0;\n\tf->sfrom = 0;\n\tf->sv = 0;\n"
	"\tbpf_loop(STP_STR, stp_usyms_one, 0, 0);\n"
	"\treturn 0;\n}\n"
	/* the text of b or acc as a script string (cut at STP_STR - 1) */
	"static __always_inline void stp_ucopy(char *d, int len, int acc)\n{\n"
	"\t__u32 z = 0;\n"
	"\tstruct stp_ufbuf *f = bpf_map_lookup_elem(&stp_ufb, &z);\n"
	"\td[0] = 0;\n"
	"\tif (!f || len < 0)\n\t\treturn;\n"
	"\tbpf_probe_read_kernel(d, STP_STR, acc ? f->acc : f->b);\n"
	"\td[STP_STR - 1] = 0;\n}\n"
	/* the tapset's functions (bpf_ustack_expr) */
	"#define STP_UBACKTRACE(d, e) ({ stp_ucopy(d, stp_ulist(0, 0), 1); (d); "
	"})\n"
	"#define STP_USPRINT(d, e) ({ stp_ucopy(d, stp_ulist(2, 0), 1); (d); })\n"
	"#define STP_UCALLERS(d, e, k) ({ if (stp_ulist(1, (k)) < 0) ERROR(e); "
	"stp_ucopy(d, 0, 1); (d); })\n"
	"#define STP_USTACK(e, k) ({ long long k_ = (k), r_ = 0; int n_ = "
	"k_ >= 0 && k_ < STP_UMAXBT ? stp_uwalk((int)k_ + 1) : 0; __u32 z_ = 0; "
	"struct stp_uwalk *w_ = bpf_map_lookup_elem(&stp_uwk, &z_); if (!w_ || "
	"k_ < 0 || k_ >= n_) ERROR(e); else r_ = (long long)w_->pcs[k_ & 31]; "
	"r_; })\n"
	"#define STP_USYMNAME(d, e, a) ({ stp_ucopy(d, stp_ufmt((a), 0), 0); "
	"(d); })\n"
	"#define STP_USYMDATA(d, e, a) ({ stp_ucopy(d, stp_ufmt((a), 1), 0); "
	"(d); })\n"
	"#define STP_UMODNAME(d, e, a) ({ int l_ = stp_ufmt((a), 5); if (l_ < 0) "
	"{ __builtin_memcpy(d, \"<unknown>\", 10); ERROR(e); } else "
	"stp_ucopy(d, l_, 0); (d); })\n"
	"#define STP_UPRINT(e) ({ stp_uprint(2); 0; })\n"
	"#define STP_UPRINT_BRIEF(e) ({ stp_uprint(4); 0; })\n"
	"#define STP_UPRINT_FILELINE(e) ({ stp_uprint(9); 0; })\n"
	/* uaddr(): the saved user registers' pc (0 in a kernel thread) */
	"#define STP_UADDR(e) ({ struct task_struct___stpu *t_ = (void *)"
	"bpf_get_current_task_btf(); long long r_ = 0; if (BPF_CORE_READ(t_, "
	"mm) && !(BPF_CORE_READ(t_, flags) & 0x00200000)) r_ = (long long)"
	"BPF_CORE_READ((struct pt_regs___stpu *)bpf_task_pt_regs((void *)t_), "
	"ip); r_; })\n"
	"#define STP_USYMFILELINE(d, e, a) ({ stp_ucopy(d, stp_ufmt((a), 6), "
	"0); (d); })\n"
	"#define STP_USYMFILE(d, e, a) ({ stp_ucopy(d, stp_ufmt((a), 7), 0); "
	"(d); })\n"
	"#define STP_USYMLINE(d, e, a) ({ stp_ucopy(d, stp_ufmt((a), 8), 0); "
	"(d); })\n"
	"#define STP_UPRINT_SYMS(e, s) ({ __u32 z_ = 0; struct stp_ufbuf *f_ = "
	"bpf_map_lookup_elem(&stp_ufb, &z_); if (f_) { "
	"bpf_probe_read_kernel_str(f_->stk, STP_STR, (s)); "
	"stp_uprint_syms(); } 0; })\n";

void bpf_emit_ustack(struct session *s, struct program *prog, FILE *out)
{
	const char *tables = strstr(ustack_c, "@TABLES@");

	if (!uses_ustack(prog, false))
		return;
	fprintf(out, "/* user stacks and symbols (bpf/ustack.c) */\n%.*s",
		(int)(tables - ustack_c), ustack_c);
	emit_tables(s, prog, out, uses_ustack(prog, true));
	fputs(tables + strlen("@TABLES@"), out);
}

bool bpf_func_native(const struct script_func *f)
{
	return f->embedded || bpf_tapset_native(f) ||
	       (f->sym && (bpf_ustack_expr(f->sym->name, true) ||
			   bpf_kstack_native(f->sym->name)));
}
