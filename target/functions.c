// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel function catalog from the vmlinux DWARF; see functions.h.
 *
 * Building: one pass over the compile units (dwarf_nextcu). In each CU the
 * DIE tree is walked only through the tags that can hold functions
 * (subprogram, lexical_block, inlined_subroutine); types, variables and
 * the like are skipped whole by dwarf_siblingof. Defining subprograms with
 * a name are either abstract roots (DW_AT_inline: only their inlined
 * copies are instances) or out-of-line copies (an entry pc). Each inlined
 * copy is attributed to its abstract origin in the same CU. For every
 * instance the variables are read at its entry pc; with -mfentry, a
 * variable whose location starts just after the 5-byte "call __fentry__"
 * at a function's entry is looked up again at entry + 5 (SystemTap does
 * the same, its PR15123). Type names are cached by type DIE offset,
 * "name:type" strings and whole variable lists are interned.
 *
 * The ELF side gives the sections (an instance in .init.* / .exit.* or in
 * the kprobes text is refused), the ".part.N" pieces of partially inlined
 * functions (not entry points), whether a name is a global FUNC symbol
 * (.exported), and the functions that have no DWARF at all.
 *
 * Invariants: funcs[] is sorted by (name, file, line) and unique on it;
 * each function's instances are in discovery order (CU, then out-of-line
 * before inline, then DIE order); lists[0] is the empty list.
 */
#define _GNU_SOURCE
#include "target/functions.h"
#include "target/target.h"
#include "lib/hash.h"
#include "lib/intern.h"
#include "lib/files.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/strbuf.h"

#define KF_CACHE_MAGIC "stap-kfuncs 4"

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* qsort, also for an empty (NULL) array */
static void sort_n(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

/* ------------------------------------------------------------------ */
/* Interning tables */

/* uint64 -> uint32 map; the key UINT64_MAX is reserved (empty slot). */
struct u64map {
	uint64_t *key;
	uint32_t *val;
	size_t n, nslot;
};

static void um_put(struct u64map *m, uint64_t k, uint32_t v);

static void um_grow(struct u64map *m)
{
	struct u64map g = { 0 };

	g.nslot = m->nslot ? 2 * m->nslot : 256;
	g.key = xmalloc(g.nslot * sizeof(*g.key));
	g.val = xmalloc(g.nslot * sizeof(*g.val));
	memset(g.key, 0xff, g.nslot * sizeof(*g.key));
	for (size_t i = 0; i < m->nslot; i++)
		if (m->key[i] != UINT64_MAX)
			um_put(&g, m->key[i], m->val[i]);
	free(m->key);
	free(m->val);
	*m = g;
}

static uint32_t *um_slot(const struct u64map *m, uint64_t k)
{
	size_t h;

	if (!m->nslot)
		return NULL;
	for (h = mix64(k) & (m->nslot - 1); m->key[h] != UINT64_MAX;
	     h = (h + 1) & (m->nslot - 1))
		if (m->key[h] == k)
			return &m->val[h];
	return NULL;
}

static void um_put(struct u64map *m, uint64_t k, uint32_t v)
{
	uint32_t *p = um_slot(m, k);
	size_t h;

	if (p) {
		*p = v;
		return;
	}
	if ((m->n + 1) * 2 > m->nslot)
		um_grow(m);
	for (h = mix64(k) & (m->nslot - 1); m->key[h] != UINT64_MAX;
	     h = (h + 1) & (m->nslot - 1))
		;
	m->key[h] = k;
	m->val[h] = v;
	m->n++;
}

static void um_clear(struct u64map *m)
{
	if (m->n) {
		memset(m->key, 0xff, m->nslot * sizeof(*m->key));
		m->n = 0;
	}
}

static void um_free(struct u64map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------ */
/* The blocklist: functions and files SystemTap refuses to probe in the
 * kernel (without -g), because a probe there recurses into the probe
 * machinery (traps, NMIs, kprobes, locking, atomics, preemption
 * counting) or because they never return (for .return). */

static const char *const block_funcs[] = {
	/* traps, faults, NMIs and the die path */
	"atomic_notifier_call_chain", "notifier_call_chain", "default_do_nmi",
	"__die", "die_nmi", "do_debug", "do_general_protection", "do_int3",
	"do_IRQ", "do_page_fault", "do_sparc64_fault", "do_trap",
	"dummy_nmi_callback", "flush_icache_range", "ia64_bad_break",
	"ia64_do_page_fault", "ia64_fault", "io_check_error",
	"mem_parity_error", "nmi_watchdog_tick", "oops_begin", "oops_end",
	"program_check_exception", "single_step_exception", "sync_regs",
	"unhandled_fault", "unknown_nmi_error",
	/* Xen paravirtual entry points */
	"xen_[gs]et_debugreg", "xen_irq_.*", "xen_.*_fl_direct.*",
	"check_events", "xen_adjust_exception_frame", "xen_iret.*",
	"xen_sysret64.*", "HYPERVISOR_[gs]et_debugreg",
	"HYPERVISOR_event_channel_op",
	/* helpers the probe handler itself runs through */
	"test_ti_thread_flag.*", "inat_get_opcode_attribute",
	"system_call_after_swapgs", "hash_64", "hash_ptr", "native_set_pte",
	"get_bh", "put_bh", "special_mapping_.*", ".*_pte_.*",
	/* locks */
	".*raw_.*_lock.*", ".*raw_.*_unlock.*", ".*raw_.*_trylock.*",
	".*read_lock.*", ".*read_unlock.*", ".*read_trylock.*",
	".*write_lock.*", ".*write_unlock.*", ".*write_trylock.*",
	".*write_seqlock.*", ".*write_sequnlock.*", ".*spin_lock.*",
	".*spin_unlock.*", ".*spin_trylock.*", ".*spin_is_locked.*",
	"rwsem_.*lock.*", ".*mutex_.*lock.*",
	/* atomics */
	"atomic_.*", "atomic64_.*",
	/* interrupts, APIC, softirqs, delays, current */
	".*apic.*", ".*APIC.*", ".*softirq.*", ".*IRQ.*", ".*_intr.*",
	"__delay", ".*kernel_text.*", "get_current", "current_.*",
	".*exception_tables.*", ".*setup_rt_frame.*",
	/* preemption counting (CONFIG_PREEMPT) */
	".*preempt_count.*", "preempt_schedule",
	/* switches "current" (x86_64) */
	"__switch_to",
	NULL
};

static const char *const block_funcs_return[] = {
	"do_exit", "sys_exit", "sys_exit_group", NULL
};

static const char *const block_files[] = {
	"kernel/kprobes\\.c", "arch/.*/kernel/kprobes\\.c",
	".*/include/asm/io\\.h", ".*/include/asm/io-defs\\.h",
	".*/include/asm/io_64\\.h", ".*/include/asm/bitops\\.h",
	"drivers/ide/ide-iops\\.c", "arch/.*/kernel/paravirt\\.c",
	".*/include/asm/paravirt\\.h", "fs/seq_file\\.c",
	NULL
};

/* Sections by prefix: code that is gone after boot or module unload. */
static const char *const block_sections[] = {
	".init.", ".exit.", ".devinit.", ".devexit.", ".cpuinit.",
	".cpuexit.", ".meminit.", ".memexit.", NULL
};

/* One anchored extended regex "^(a|b|...)$" per list, compiled once. */
static bool re_match_list(regex_t *re, bool *ready,
			  const char *const *list, const char *s)
{
	if (!*ready) {
		struct strbuf sb = { 0 };

		sb_puts(&sb, "^(");
		for (int i = 0; list[i]; i++) {
			if (i)
				sb_putc(&sb, '|');
			sb_puts(&sb, list[i]);
		}
		sb_puts(&sb, ")$");
		if (regcomp(re, sb_str(&sb), REG_EXTENDED | REG_NOSUB) != 0)
			fatal("kfuncs: bad blocklist regex");
		sb_free(&sb);
		*ready = true;
	}
	return regexec(re, s, 0, NULL, 0) == 0;
}

bool kf_blocklisted(const char *name, const char *file, bool ret)
{
	static regex_t re_fn, re_ret, re_file;
	static bool fn_ready, ret_ready, file_ready;

	if (re_match_list(&re_fn, &fn_ready, block_funcs, name))
		return true;
	if (ret && re_match_list(&re_ret, &ret_ready, block_funcs_return,
				 name))
		return true;
	return re_match_list(&re_file, &file_ready, block_files, file);
}

/* ------------------------------------------------------------------ */
/* The ELF side */

struct ksym {
	const char *name;	/* in the ELF string table */
	uint64_t addr;
	unsigned char bind;
	uint32_t index;		/* in .symtab */
};

struct ksec {
	uint64_t addr, size;
	bool refused;
};

struct builder {
	struct kf_catalog *c;
	struct arena scratch;	/* names needed only while building */
	Elf *elf;
	Dwarf *dw;
	struct ksec *secs;
	int nsecs;
	uint64_t kprobes_start, kprobes_end;
	struct ksym *syms;	/* FUNC symbols, by address then index */
	int nsyms;
	struct intern strs;	/* names, files, types */
	struct intern vars;	/* "name:type" */
	struct intern dnames;	/* names of out-of-line DWARF functions */
	struct intern exported;	/* names whose first symbol is a global FUNC */
	struct u64map types;	/* type DIE offset -> str id + 1, 0 fails */
	/* variable lists: data[off[i]] = count, then ids */
	uint32_t *ldata;
	size_t nldata, capldata;
	size_t *loff;
	int nlists, caplists;
	uint32_t *lslot;
	size_t nlslot;
	/* functions and instances as found */
	struct bfunc *funcs;
	int nfuncs, capfuncs;
	struct u64map fkey;	/* hash(name, file, line) -> first func + 1 */
	struct binst *insts;
	int ninsts, capinsts;
	struct balias *aliases;
	int naliases, capaliases;
	/* the current CU */
	uint32_t cu;
	bool mfentry;
	Dwarf_Die *conc, *abst, *inl;
	int nconc, capconc, nabst, capabst, ninl, capinl;
	uint64_t *entries;	/* sorted entry pcs of the CU's functions */
	int nentries, capentries;
	struct u64map abst_at;	/* abstract root offset -> index in abst */
	uint32_t *vbuf;
	int nvbuf, capvbuf;
	struct strbuf tmp;
};

struct bfunc {
	int name, file;		/* strs ids */
	int line;
	uint32_t flags;
	int ret;		/* strs id, -1 none */
	int next;		/* same hash chain */
};

struct balias {
	int func, name;		/* funcs index, strs id */
};

struct binst {
	int func;
	int seq;		/* discovery order */
	struct kf_inst in;
};

static int sym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool addr_refused(const struct builder *b, uint64_t addr)
{
	if (b->kprobes_start && b->kprobes_end && addr >= b->kprobes_start &&
	    addr < b->kprobes_end)
		return true;
	for (int i = 0; i < b->nsecs; i++)
		if (addr >= b->secs[i].addr &&
		    addr < b->secs[i].addr + b->secs[i].size)
			return b->secs[i].refused;
	return false;
}

/* The first FUNC symbol at addr (global ones first), or NULL. */
static const struct ksym *sym_at(const struct builder *b, uint64_t addr)
{
	int lo = 0, hi = b->nsyms;
	const struct ksym *best = NULL;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (b->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < b->nsyms && b->syms[i].addr == addr; i++)
		if (!best || (best->bind == STB_LOCAL &&
			      b->syms[i].bind != STB_LOCAL))
			best = &b->syms[i];
	return best;
}

static int read_elf(struct builder *b, char **err)
{
	size_t shstrndx, nsec = 0;
	Elf_Scn *scn = NULL;
	Elf_Scn *symscn = NULL;
	GElf_Shdr symsh;
	int cap = 0;

	if (elf_getshdrstrndx(b->elf, &shstrndx) != 0) {
		*err = xasprintf("%s", elf_errmsg(-1));
		return -1;
	}
	elf_getshdrnum(b->elf, &nsec);
	b->secs = xmalloc((nsec + 1) * sizeof(*b->secs));
	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
		}
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		name = elf_strptr(b->elf, shstrndx, sh.sh_name);
		b->secs[b->nsecs].addr = sh.sh_addr;
		b->secs[b->nsecs].size = sh.sh_size;
		b->secs[b->nsecs].refused = false;
		for (int i = 0; name && block_sections[i]; i++)
			if (strncmp(name, block_sections[i],
				    strlen(block_sections[i])) == 0)
				b->secs[b->nsecs].refused = true;
		b->nsecs++;
	}
	if (symscn) {
		Elf_Data *d = elf_getdata(symscn, NULL);
		size_t n = symsh.sh_entsize ? symsh.sh_size / symsh.sh_entsize
					    : 0;
		uint64_t ni_addr = 0;

		struct intern seen = { .arena = &b->scratch };

		for (size_t i = 1; d && i < n; i++) {
			GElf_Sym s;
			const char *name;
			struct ksym k;
			size_t len;

			if (!gelf_getsym(d, (int)i, &s))
				continue;
			name = elf_strptr(b->elf, symsh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			/* .exported: the first symbol of a name decides */
			len = strlen(name);
			if (intern_find(&seen, name, len) < 0) {
				intern_add(&seen, name, len);
				if (GELF_ST_TYPE(s.st_info) == STT_FUNC &&
				    GELF_ST_BIND(s.st_info) != STB_LOCAL)
					intern_add(&b->exported, name, len);
			}
			if (strcmp(name, "__kprobes_text_start") == 0)
				b->kprobes_start = s.st_value;
			else if (strcmp(name, "__kprobes_text_end") == 0)
				b->kprobes_end = s.st_value;
			if (GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			if (strcmp(name, "sys_ni_syscall") == 0)
				ni_addr = s.st_value;
			k.name = name;
			k.addr = s.st_value;
			k.bind = GELF_ST_BIND(s.st_info);
			k.index = (uint32_t)i;
			VEC_PUSH(b->syms, b->nsyms, cap, k);
		}
		/* cond_syscall()'s weak aliases of sys_ni_syscall are not
		 * functions of their own */
		if (ni_addr) {
			int w = 0;

			for (int i = 0; i < b->nsyms; i++)
				if (!(b->syms[i].addr == ni_addr &&
				      b->syms[i].bind == STB_WEAK &&
				      strcmp(b->syms[i].name,
					     "sys_ni_syscall") != 0))
					b->syms[w++] = b->syms[i];
			b->nsyms = w;
		}
		sort_n(b->syms, (size_t)b->nsyms, sizeof(*b->syms), sym_cmp);
		intern_free(&seen);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Type names, spelled as SystemTap's -L spells them */

static bool die_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr_integrate(die, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, out))
		return false;
	if (dwarf_attr(out, DW_AT_signature, &a)) {
		if (!dwarf_formref_die(&a, out))
			return false;
		if (dwarf_tag(out) == DW_TAG_type_unit &&
		    dwarf_child(out, out) != 0)
			return false;
	}
	return true;
}

static bool type_decl(struct builder *b, Dwarf_Die *t, struct strbuf *o);

/*
 * Append t's name to o. Modifiers (pointer, const, array, ...) come after
 * the type they modify ("char const*"). At a function type the walk stops
 * and *fn is set: the modifiers seen so far then go between the return
 * type and the parameters, "int (*) (unsigned int, void*)".
 */
static bool type_name(struct builder *b, Dwarf_Die *t, struct strbuf *o,
		      Dwarf_Die *fn, bool *have_fn)
{
	int tag = dwarf_tag(t);
	const char *kw = NULL, *name;
	Dwarf_Die inner;
	bool has_inner;

	switch (tag) {
	case DW_TAG_enumeration_type:
		kw = "enum ";
		break;
	case DW_TAG_structure_type:
		kw = "struct ";
		break;
	case DW_TAG_union_type:
		kw = "union ";
		break;
	case DW_TAG_class_type:
		kw = "class ";
		break;
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		kw = "";
		break;
	case DW_TAG_subroutine_type:
		*fn = *t;
		*have_fn = true;
		return true;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_array_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
		break;
	default:
		return false;
	}
	if (kw) {
		name = dwarf_diename(t);
		sb_puts(o, kw);
		sb_puts(o, name ? name : "{...}");	/* anonymous */
		return true;
	}
	has_inner = die_type(t, &inner);
	if (has_inner && tag == DW_TAG_pointer_type &&
	    dwarf_tag(&inner) == DW_TAG_structure_type &&
	    (name = dwarf_diename(&inner)) &&
	    strcmp(name, "__va_list_tag") == 0) {
		sb_puts(o, "va_list");
		return true;
	}
	if (!has_inner || !type_name(b, &inner, o, fn, have_fn))
		sb_puts(o, "void");
	switch (tag) {
	case DW_TAG_pointer_type:
		sb_putc(o, '*');
		break;
	case DW_TAG_reference_type:
		sb_putc(o, '&');
		break;
	case DW_TAG_rvalue_reference_type:
		sb_puts(o, "&&");
		break;
	case DW_TAG_array_type:
		sb_puts(o, "[]");
		break;
	case DW_TAG_const_type:
		/* a const on a reference says nothing more */
		if (!has_inner ||
		    (dwarf_tag(&inner) != DW_TAG_reference_type &&
		     dwarf_tag(&inner) != DW_TAG_rvalue_reference_type))
			sb_puts(o, " const");
		break;
	case DW_TAG_volatile_type:
		sb_puts(o, " volatile");
		break;
	case DW_TAG_restrict_type:
		sb_puts(o, " restrict");
		break;
	}
	return true;
}

/* "RET (MODIFIERS) (PARAM, ...)" for a function type. */
static bool fn_type_name(struct builder *b, Dwarf_Die *fn, const char *mods,
			 struct strbuf *o)
{
	Dwarf_Die ret, child;
	bool first = true;

	if (!die_type(fn, &ret))
		sb_puts(o, "void");
	else if (!type_decl(b, &ret, o))
		return false;
	sb_printf(o, " (%s) (", mods);
	if (dwarf_child(fn, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			Dwarf_Die pt;

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_unspecified_parameters)
				continue;
			if (!first)
				sb_puts(o, ", ");
			first = false;
			if (tag == DW_TAG_unspecified_parameters)
				sb_puts(o, "...");
			else if (!die_type(&child, &pt))
				sb_puts(o, "void");
			else if (!type_decl(b, &pt, o))
				return false;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (first)
		sb_puts(o, "void");
	sb_putc(o, ')');
	return true;
}

static bool type_decl(struct builder *b, Dwarf_Die *t, struct strbuf *o)
{
	struct strbuf mods = { 0 };
	Dwarf_Die fn;
	bool have_fn = false, ok;

	ok = type_name(b, t, &mods, &fn, &have_fn);
	if (ok && have_fn)
		ok = fn_type_name(b, &fn, sb_str(&mods), o);
	else if (ok)
		sb_puts(o, sb_str(&mods));
	sb_free(&mods);
	return ok;
}

/* The strs id of t's name, or -1; cached by DIE offset. */
static int type_id(struct builder *b, Dwarf_Die *t)
{
	uint64_t off = dwarf_dieoffset(t);
	uint32_t *v = um_slot(&b->types, off);
	struct strbuf o = { 0 };
	int id = -1;

	if (v)
		return (int)*v - 1;
	if (type_decl(b, t, &o))
		id = intern_add(&b->strs, sb_str(&o), o.len);
	sb_free(&o);
	um_put(&b->types, off, (uint32_t)(id + 1));
	return id;
}

/* ------------------------------------------------------------------ */
/* Variable lists */

static uint64_t list_hash(const uint32_t *v, int n)
{
	return fnv1a(FNV_OFFSET ^ (uint64_t)n, v,
		   (size_t)n * sizeof(*v));
}

static void lists_grow(struct builder *b)
{
	size_t ns = b->nlslot ? 2 * b->nlslot : 4096;
	uint32_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		fatal("out of memory");
	for (int i = 0; i < b->nlists; i++) {
		const uint32_t *l = b->ldata + b->loff[i];
		size_t h = list_hash(l + 1, (int)l[0]) & (ns - 1);

		while (slot[h])
			h = (h + 1) & (ns - 1);
		slot[h] = (uint32_t)i + 1;
	}
	free(b->lslot);
	b->lslot = slot;
	b->nlslot = ns;
}

static uint32_t liintern_add(struct builder *b, const uint32_t *v, int n)
{
	size_t h;

	if ((size_t)(b->nlists + 1) * 2 > b->nlslot)
		lists_grow(b);
	for (h = list_hash(v, n) & (b->nlslot - 1); b->lslot[h];
	     h = (h + 1) & (b->nlslot - 1)) {
		const uint32_t *l = b->ldata + b->loff[b->lslot[h] - 1];

		if (l[0] == (uint32_t)n &&
		    (n == 0 || memcmp(l + 1, v, (size_t)n * sizeof(*v)) == 0))
			return b->lslot[h] - 1;
	}
	VEC_PUSH(b->loff, b->nlists, b->caplists, b->nldata);
	VEC_PUSH(b->ldata, b->nldata, b->capldata, (uint32_t)n);
	for (int i = 0; i < n; i++)
		VEC_PUSH(b->ldata, b->nldata, b->capldata, v[i]);
	b->lslot[h] = (uint32_t)b->nlists;
	return (uint32_t)b->nlists - 1;
}

static bool cu_entry(const struct builder *b, uint64_t pc)
{
	int lo = 0, hi = b->nentries;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (b->entries[mid] < pc)
			lo = mid + 1;
		else if (b->entries[mid] > pc)
			hi = mid;
		else
			return true;
	}
	return false;
}

static bool located_at(Dwarf_Attribute *a, uint64_t pc)
{
	Dwarf_Op *expr;
	size_t len;

	return dwarf_getlocation_addr(a, pc, &expr, &len, 1) == 1 && len > 0;
}

/*
 * The variables -L shows for the instance die at pc: its own children
 * that are parameters or variables with a name, a location at pc (or a
 * constant value) and a type that has a name.
 */
static uint32_t instance_vars(struct builder *b, Dwarf_Die *die, uint64_t pc)
{
	Dwarf_Die child;

	b->nvbuf = 0;
	if (dwarf_child(die, &child) != 0)
		return liintern_add(b, NULL, 0);
	do {
		int tag = dwarf_tag(&child), tid;
		Dwarf_Attribute a;
		const char *name;
		Dwarf_Die t;

		if (tag != DW_TAG_formal_parameter && tag != DW_TAG_variable)
			continue;
		name = dwarf_diename(&child);
		if (!name)
			continue;
		if (!dwarf_attr_integrate(&child, DW_AT_const_value, &a)) {
			if (!dwarf_attr_integrate(&child, DW_AT_location, &a))
				continue;
			if (!located_at(&a, pc) &&
			    !(b->mfentry && cu_entry(b, pc) &&
			      located_at(&a, pc + 5)))
				continue;
		}
		if (!die_type(&child, &t) || (tid = type_id(b, &t)) < 0)
			continue;
		sb_reset(&b->tmp);
		sb_printf(&b->tmp, "%s:%s", name, b->strs.s[tid]);
		VEC_PUSH(b->vbuf, b->nvbuf, b->capvbuf,
			 (uint32_t)intern_add(&b->vars, sb_str(&b->tmp),
					     b->tmp.len));
	} while (dwarf_siblingof(&child, &child) == 0);
	return liintern_add(b, b->vbuf, b->nvbuf);
}

/* ------------------------------------------------------------------ */
/* Functions and instances */

static int func_id(struct builder *b, int name, int file, int line)
{
	uint64_t h = mix64(((uint64_t)name << 32) ^ (uint64_t)file ^
			   ((uint64_t)line << 48));
	uint32_t *v = um_slot(&b->fkey, h);
	struct bfunc f = { name, file, line, 0, -1, -1 };

	for (int i = v ? (int)*v - 1 : -1; i >= 0; i = b->funcs[i].next)
		if (b->funcs[i].name == name && b->funcs[i].file == file &&
		    b->funcs[i].line == line)
			return i;
	f.next = v ? (int)*v - 1 : -1;
	VEC_PUSH(b->funcs, b->nfuncs, b->capfuncs, f);
	um_put(&b->fkey, h, (uint32_t)b->nfuncs);
	return b->nfuncs - 1;
}

static void add_inst(struct builder *b, int func, uint64_t addr,
		     uint32_t vars, uint32_t flags)
{
	struct binst i = { func, 0, { addr, b->cu, vars, flags } };

	if (addr_refused(b, addr))
		i.in.flags |= KF_INST_REFUSED;
	VEC_PUSH(b->insts, b->ninsts, b->capinsts, i);
}

/* An entry pc, from DW_AT_entry_pc / low_pc, else the first range. */
static bool entry_pc(Dwarf_Die *die, uint64_t *pc)
{
	Dwarf_Addr base = 0, start = 0, end, a = 0;

	if (dwarf_entrypc(die, &a) == 0) {
		*pc = a;
		return a != 0;
	}
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*pc = start;
		return start != 0;
	}
	return false;
}

/* File and line of a function: its decl, else the line table at its
 * start, else "<unknown source>". */
static void decl_of(struct builder *b, Dwarf_Die *cu, Dwarf_Die *f,
		    int *file, int *line)
{
	const char *df = dwarf_decl_file(f);
	Dwarf_Addr lo;
	Dwarf_Line *l = NULL;

	*line = 0;
	if ((!df || dwarf_decl_line(f, line) != 0) &&
	    dwarf_lowpc(f, &lo) == 0)
		l = dwarf_getsrc_die(cu, lo);
	if (!df && l)
		df = dwarf_linesrc(l, NULL, NULL);
	if (!df)
		df = "<unknown source>";
	if (*line == 0 && l)
		dwarf_lineno(l, line);
	*file = intern_add(&b->strs, df, strlen(df));
}

static void set_func_info(struct builder *b, int fi, Dwarf_Die *die)
{
	struct bfunc *f = &b->funcs[fi];
	Dwarf_Die t;

	if (dwarf_hasattr_integrate(die, DW_AT_external))
		f->flags |= KF_EXTERNAL;
	if (f->ret < 0 && die_type(die, &t))
		f->ret = type_id(b, &t);
}

/* Collect the CU's functions and inlined copies (dwarf_getfuncs' walk). */
static void walk(struct builder *b, Dwarf_Die *parent)
{
	Dwarf_Die d;

	if (dwarf_child(parent, &d) != 0)
		return;
	do {
		switch (dwarf_tag(&d)) {
		case DW_TAG_subprogram:
			if (!dwarf_hasattr(&d, DW_AT_declaration) &&
			    dwarf_diename(&d)) {
				if (dwarf_func_inline(&d) != 0) {
					um_put(&b->abst_at, dwarf_dieoffset(&d),
					       (uint32_t)b->nabst);
					VEC_PUSH(b->abst, b->nabst,
						 b->capabst, d);
				} else {
					VEC_PUSH(b->conc, b->nconc,
						 b->capconc, d);
				}
			}
			walk(b, &d);
			break;
		case DW_TAG_inlined_subroutine:
			VEC_PUSH(b->inl, b->ninl, b->capinl, d);
			walk(b, &d);
			break;
		case DW_TAG_lexical_block:
			walk(b, &d);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void do_cu(struct builder *b, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *producer;

	b->nconc = b->nabst = b->ninl = b->nentries = 0;
	um_clear(&b->abst_at);
	producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));
	b->mfentry = producer && strncmp(producer, "GNU ", 4) == 0 &&
		     strstr(producer, "-mfentry");
	walk(b, cu);

	for (int i = 0; i < b->nconc; i++) {
		uint64_t pc;

		if (entry_pc(&b->conc[i], &pc))
			VEC_PUSH(b->entries, b->nentries, b->capentries, pc);
	}
	sort_n(b->entries, (size_t)b->nentries, sizeof(*b->entries), u64_cmp);

	/* out-of-line copies */
	for (int i = 0; i < b->nconc; i++) {
		Dwarf_Die *f = &b->conc[i];
		const char *name = dwarf_diename(f);
		Dwarf_Addr pc = 0, base = 0, start = 0, end;
		int file, line, fi;
		uint32_t flags = 0;
		const struct ksym *s;

		/* even without code: its symbols are not DWARF-less */
		intern_add(&b->dnames, name, strlen(name));
		/* a zero entry is a discarded copy */
		if (dwarf_entrypc(f, &pc) != 0 || pc == 0) {
			ptrdiff_t r = dwarf_ranges(f, 0, &base, &start, &end);

			if (r < 0)
				continue;
			/* libdw leaves base alone without DW_AT_ranges */
			pc = base ? base : start;
			if (!pc)
				continue;
			flags |= KF_INST_RANGES;
		}
		decl_of(b, cu, f, &file, &line);
		fi = func_id(b, intern_add(&b->strs, name, strlen(name)), file,
			     line);
		set_func_info(b, fi, f);
		s = sym_at(b, pc);
		if (s && strstr(s->name, ".part."))
			flags |= KF_INST_PART;
		add_inst(b, fi, pc, instance_vars(b, f, pc), flags);
	}

	/* inlined copies, under their abstract origin in this CU */
	for (int i = 0; i < b->ninl; i++) {
		Dwarf_Die *d = &b->inl[i], origin;
		Dwarf_Attribute oa;
		uint32_t *ai;
		uint64_t pc;
		int file, line, fi;
		const char *name;

		if (!dwarf_attr(d, DW_AT_abstract_origin, &oa) ||
		    !dwarf_formref_die(&oa, &origin))
			continue;
		ai = um_slot(&b->abst_at, dwarf_dieoffset(&origin));
		if (!ai || !entry_pc(d, &pc))
			continue;
		name = dwarf_diename(&b->abst[*ai]);
		decl_of(b, cu, &b->abst[*ai], &file, &line);
		fi = func_id(b, intern_add(&b->strs, name, strlen(name)), file,
			     line);
		set_func_info(b, fi, &b->abst[*ai]);
		add_inst(b, fi, pc, instance_vars(b, d, pc), KF_INST_INLINE);
	}
}

/* ------------------------------------------------------------------ */
/* Symbol-table functions and aliases */

static int binst_cmp(const void *x, const void *y)
{
	const struct binst *a = x, *b = y;

	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	if (a->in.cu != b->in.cu)
		return a->in.cu < b->in.cu ? -1 : 1;
	if ((a->in.flags & KF_INST_INLINE) != (b->in.flags & KF_INST_INLINE))
		return (a->in.flags & KF_INST_INLINE) ? 1 : -1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

struct aconc {
	uint64_t addr;
	int func;
};

static int aconc_cmp(const void *x, const void *y)
{
	const struct aconc *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->func > b->func) - (a->func < b->func);
}

/*
 * A FUNC symbol named like a DWARF function covers every symbol at its
 * address: those named otherwise are aliases of the DWARF functions
 * placed there. Symbols at an address no DWARF name covers are functions
 * without DWARF.
 */
static void add_symtab(struct builder *b)
{
	const struct intern *dnames = &b->dnames;
	struct aconc *by_addr = NULL;	/* out-of-line copies by address */
	int nconc = 0, capconc = 0;

	for (int i = 0; i < b->ninsts; i++) {
		struct aconc a = { b->insts[i].in.addr, b->insts[i].func };

		if (!(b->insts[i].in.flags & KF_INST_INLINE))
			VEC_PUSH(by_addr, nconc, capconc, a);
	}
	sort_n(by_addr, (size_t)nconc, sizeof(*by_addr), aconc_cmp);
	for (int i = 0; i < b->nsyms;) {
		int j = i, covered = 0, lo = 0, hi = nconc;

		while (j < b->nsyms && b->syms[j].addr == b->syms[i].addr)
			j++;
		for (int k = i; k < j; k++)
			if (intern_find(dnames, b->syms[k].name,
				    strlen(b->syms[k].name)) >= 0)
				covered = 1;
		while (lo < hi) {	/* first copy at the address */
			int mid = (lo + hi) / 2;

			if (by_addr[mid].addr < b->syms[i].addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int k = i; k < j; k++) {
			const struct ksym *s = &b->syms[k];
			int name = intern_add(&b->strs, s->name,
					     strlen(s->name));
			int fi;

			if (!covered) {
				fi = func_id(b, name, -1, 0);
				b->funcs[fi].flags |= KF_SYMTAB;
				b->cu = s->index;	/* see kf_inst.cu */
				add_inst(b, fi, s->addr, 0, 0);
				continue;
			}
			/* every function with a copy at that address, also
			 * one with a DWARF name of its own (memcpy's DIE
			 * beside __memcpy's) */
			for (int m = lo; m < nconc && by_addr[m].addr ==
						      s->addr; m++) {
				struct balias al = { by_addr[m].func, name };
				int d;

				if (b->funcs[al.func].name == name)
					continue;

				for (d = 0; d < b->naliases; d++)
					if (b->aliases[d].func == al.func &&
					    b->aliases[d].name == al.name)
						break;
				if (d == b->naliases)
					VEC_PUSH(b->aliases, b->naliases,
						 b->capaliases, al);
			}
		}
		i = j;
	}
	free(by_addr);
}

/* KF_EXPORTED: the first symbol of the name is a global or weak FUNC. */
static void mark_exported(struct builder *b)
{
	for (int i = 0; i < b->nfuncs; i++) {
		const char *name = b->strs.s[b->funcs[i].name];

		if (intern_find(&b->exported, name, strlen(name)) >= 0)
			b->funcs[i].flags |= KF_EXPORTED;
	}
}

/* ------------------------------------------------------------------ */
/* From the builder to the catalog */

static int kfunc_cmp(const void *x, const void *y)
{
	const struct kfunc *a = x, *b = y;
	int r = strcmp(a->name, b->name);

	if (!r)
		r = strcmp(a->file, b->file);
	if (!r)
		r = (a->line > b->line) - (a->line < b->line);
	return r;
}

static void finish(struct builder *b)
{
	struct kf_catalog *c = b->c;
	struct arena *ar = &c->arena;
	struct kf_inst *all;
	struct u64map seen = { 0 };
	int *pos = xmalloc(((size_t)b->nfuncs + 1) * sizeof(*pos));

	/* instances grouped by function, discovery order within (qsort is
	 * not stable: the DIE order is restored by the original index) */
	for (int i = 0; i < b->ninsts; i++)
		b->insts[i].seq = i;
	sort_n(b->insts, (size_t)b->ninsts, sizeof(*b->insts), binst_cmp);
	all = arena_alloc(ar, ((size_t)b->ninsts + 1) * sizeof(*all));
	c->funcs = arena_alloc(ar, ((size_t)b->nfuncs + 1) *
				       sizeof(*c->funcs));
	c->n = 0;
	for (int i = 0; i < b->ninsts;) {
		int j = i, w = 0;
		const struct bfunc *bf = &b->funcs[b->insts[i].func];
		struct kfunc *f = &c->funcs[c->n++];

		while (j < b->ninsts && b->insts[j].func == b->insts[i].func)
			j++;
		pos[b->insts[i].func] = c->n - 1;
		f->name = b->strs.s[bf->name];
		f->file = bf->file >= 0 ? b->strs.s[bf->file] : "";
		f->line = bf->line;
		f->flags = bf->flags;
		f->ret_type = bf->ret >= 0 ? b->strs.s[bf->ret] : NULL;
		f->inst = all + i;
		um_clear(&seen);
		for (int k = i; k < j; k++) {
			const struct kf_inst *in = &b->insts[k].in;

			/* one inlined copy per entry pc (a copy can be
			 * seen twice, SystemTap keeps one) */
			if (in->flags & KF_INST_INLINE) {
				if (um_slot(&seen, in->addr))
					continue;
				um_put(&seen, in->addr, 1);
			}
			f->inst[w++] = *in;
		}
		f->ninst = w;
		c->ninst += w;
		for (int k = 0; k < w; k++)
			if (f->inst[k].flags & KF_INST_INLINE)
				c->ninline++;
		i = j;
	}
	um_free(&seen);
	/* aliases: every function with an instance has a position */
	for (int i = 0; i < b->naliases; i++)
		c->funcs[pos[b->aliases[i].func]].naliases++;
	for (int i = 0; i < c->n; i++) {
		c->funcs[i].aliases = arena_alloc(
			ar, (size_t)c->funcs[i].naliases * sizeof(char *) + 1);
		c->funcs[i].naliases = 0;
	}
	for (int i = 0; i < b->naliases; i++) {
		struct kfunc *f = &c->funcs[pos[b->aliases[i].func]];

		f->aliases[f->naliases++] = b->strs.s[b->aliases[i].name];
	}
	free(pos);
	sort_n(c->funcs, (size_t)c->n, sizeof(*c->funcs), kfunc_cmp);

	c->nvars = b->vars.n;
	c->vars = arena_alloc(ar, ((size_t)c->nvars + 1) * sizeof(*c->vars));
	memcpy(c->vars, b->vars.s, (size_t)c->nvars * sizeof(*c->vars));
	c->nlists = b->nlists;
	c->lists = arena_alloc(ar, ((size_t)c->nlists + 1) *
				       sizeof(*c->lists));
	{
		uint32_t *data = arena_alloc(ar, (b->nldata + 1) *
						     sizeof(*data));

		memcpy(data, b->ldata, b->nldata * sizeof(*data));
		for (int i = 0; i < c->nlists; i++)
			c->lists[i] = data + b->loff[i];
	}
}

static void builder_free(struct builder *b)
{
	free(b->secs);
	free(b->syms);
	intern_free(&b->strs);
	intern_free(&b->vars);
	intern_free(&b->dnames);
	intern_free(&b->exported);
	arena_free(&b->scratch);
	um_free(&b->types);
	free(b->ldata);
	free(b->loff);
	free(b->lslot);
	free(b->funcs);
	um_free(&b->fkey);
	free(b->insts);
	free(b->aliases);
	free(b->conc);
	free(b->abst);
	free(b->inl);
	free(b->entries);
	um_free(&b->abst_at);
	free(b->vbuf);
	sb_free(&b->tmp);
}

static int build(struct kf_catalog *c, const char *vmlinux, char **err)
{
	struct builder b = { .c = c };
	Dwarf_Off off = 0, next;
	size_t hsize;
	int fd, rc = -1;

	b.strs.arena = &c->arena;
	b.vars.arena = &c->arena;
	b.dnames.arena = &b.scratch;
	b.exported.arena = &b.scratch;
	elf_version(EV_CURRENT);
	fd = open(vmlinux, O_RDONLY);
	if (fd < 0) {
		*err = xasprintf("cannot open %s: %s", vmlinux,
				  strerror(errno));
		return -1;
	}
	b.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!b.elf) {
		*err = xasprintf("%s: %s", vmlinux, elf_errmsg(-1));
		goto out;
	}
	if (read_elf(&b, err) != 0)
		goto out;
	b.dw = dwarf_begin_elf(b.elf, DWARF_C_READ, NULL);
	if (!b.dw) {
		*err = xasprintf("%s has no DWARF: %s", vmlinux,
				  dwarf_errmsg(-1));
		goto out;
	}
	liintern_add(&b, NULL, 0);	/* lists[0]: empty */
	while (dwarf_nextcu(b.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(b.dw, off + hsize, &cu) &&
		    dwarf_tag(&cu) == DW_TAG_compile_unit)
			do_cu(&b, &cu);
		b.cu++;
		off = next;
	}
	c->ncus = (int)b.cu;
	add_symtab(&b);
	mark_exported(&b);
	finish(&b);
	rc = 0;
out:
	if (b.dw)
		dwarf_end(b.dw);
	if (b.elf)
		elf_end(b.elf);
	close(fd);
	builder_free(&b);
	return rc;
}

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

static char *cache_path(const char *cache_dir, const char *release)
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

static bool cache_read(struct kf_catalog *c, const char *path, uint64_t key)
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

static void cache_write(const struct kf_catalog *c, const char *cache_dir,
			const char *path, uint64_t key)
{
	struct replace_file r;
	FILE *f = replace_open(&r, cache_dir, path);

	if (!f)
		return;
	fprintf(f, "%s\nkey %016" PRIx64 "\ncounts %d %d %d %d\n",
		KF_CACHE_MAGIC, key, c->ncus, c->nvars, c->nlists, c->n);
	for (int i = 0; i < c->nvars; i++)
		fprintf(f, "%s\n", c->vars[i]);
	for (int i = 0; i < c->nlists; i++) {
		fprintf(f, "%u", c->lists[i][0]);
		for (uint32_t k = 1; k <= c->lists[i][0]; k++)
			fprintf(f, " %u", c->lists[i][k]);
		fputc('\n', f);
	}
	for (int i = 0; i < c->n; i++) {
		const struct kfunc *fn = &c->funcs[i];

		fprintf(f, "%s\t%s\t%d\t%x\t%s\t", fn->name, fn->file,
			fn->line, fn->flags, fn->ret_type ? fn->ret_type : "");
		for (int k = 0; k < fn->naliases; k++)
			fprintf(f, "%s%s", k ? " " : "", fn->aliases[k]);
		fprintf(f, "\t%d", fn->ninst);
		for (int k = 0; k < fn->ninst; k++)
			fprintf(f, "\t%" PRIx64 " %u %u %x", fn->inst[k].addr,
				fn->inst[k].cu, fn->inst[k].vars,
				fn->inst[k].flags);
		fputc('\n', f);
	}
	fputs("end\n", f);
	replace_commit(&r, true);
}

/* ------------------------------------------------------------------ */
/* Loading */

const char *kf_find_vmlinux(const char *release, struct arena *a,
			    const char **tried)
{
	struct target *t = target_new(release, NULL);
	const char *found = t->debug_vmlinux ?
			    arena_strdup(a, t->debug_vmlinux) : NULL;

	if (tried)
		*tried = arena_strdup(a, t->debug_tried);
	target_free(t);
	return found;
}

int kf_catalog_load(const char *release, const char *vmlinux,
		    const char *cache_dir, struct kf_catalog *out, char **err)
{
	uint64_t key = FNV_OFFSET;
	struct stat st;
	char *cpath = NULL;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	if (stat(vmlinux, &st) != 0) {
		*err = xasprintf("cannot read %s: %s", vmlinux,
				  strerror(errno));
		return -1;
	}
	out->vmlinux = arena_strdup(&out->arena, vmlinux);
	key = fnv1a(key, KF_CACHE_MAGIC, sizeof(KF_CACHE_MAGIC));
	key = fnv1a(key, release, strlen(release) + 1);
	key = fnv1a(key, vmlinux, strlen(vmlinux) + 1);
	key = fnv1a(key, &st.st_size, sizeof(st.st_size));
	key = fnv1a(key, &st.st_mtim, sizeof(st.st_mtim));
	if (cache_dir) {
		cpath = cache_path(cache_dir, release);
		if (cache_read(out, cpath, key)) {
			out->from_cache = 1;
			free(cpath);
			return 0;
		}
		arena_free(&out->arena);
		memset(out, 0, sizeof(*out));
		out->vmlinux = arena_strdup(&out->arena, vmlinux);
	}
	if (build(out, vmlinux, err) != 0) {
		free(cpath);
		arena_free(&out->arena);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	if (cpath)
		cache_write(out, cache_dir, cpath, key);
	free(cpath);
	return 0;
}

void kf_catalog_free(struct kf_catalog *c)
{
	arena_free(&c->arena);
	memset(c, 0, sizeof(*c));
}

/* ------------------------------------------------------------------ */
/* Queries */

struct cand {
	const struct kfunc *f;
	const struct kf_inst *in;
	int fidx;
	bool via_alias;		/* only an alias matched the pattern */
};

/*
 * Out-of-line copies in SystemTap's order: by CU; in a CU, a function
 * found through an alias before one found by its own name (SystemTap's
 * per-CU table of names returns the alias entry, added last, first: for
 * "memcpy" it lists __memcpy, whose DIE sits at the same address).
 */
static int cand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->in->cu != b->in->cu)
		return a->in->cu < b->in->cu ? -1 : 1;
	if (a->via_alias != b->via_alias)
		return a->via_alias ? -1 : 1;
	return (a->fidx > b->fidx) - (a->fidx < b->fidx);
}

/* Symbol-table functions by address, then symbol-table order (as
 * SystemTap walks them: the first symbol at an address wins). */
static int symcand_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->in->addr != b->in->addr)
		return a->in->addr < b->in->addr ? -1 : 1;
	return (a->in->cu > b->in->cu) - (a->in->cu < b->in->cu);
}

/* Kept instances back in each function's order. */
static int kept_cmp(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->fidx != b->fidx)
		return a->fidx < b->fidx ? -1 : 1;
	return (a->in > b->in) - (a->in < b->in);
}

/* 0: no match, 1: the name matches, 2: only an alias does */
static int name_matches(const char *pat, const struct kfunc *f)
{
	if (fnmatch(pat, f->name, 0) == 0)
		return 1;
	for (int i = 0; i < f->naliases; i++)
		if (fnmatch(pat, f->aliases[i], 0) == 0)
			return 2;
	return 0;
}

static bool file_matches(const char *pat, const char *file)
{
	char *p2;
	bool r;

	if (fnmatch(pat, file, 0) == 0)
		return true;
	if (asprintf(&p2, "*/%s", pat) < 0)
		fatal("out of memory");
	r = fnmatch(p2, file, 0) == 0;
	free(p2);
	return r;
}

/* A small set of addresses (open addressing). */
struct aset {
	uint64_t *k;
	size_t n, nslot;
};

static bool aset_add(struct aset *s, uint64_t a)
{
	size_t h;

	if ((s->n + 1) * 2 > s->nslot) {
		struct aset g = { 0 };

		g.nslot = s->nslot ? 2 * s->nslot : 64;
		g.k = xmalloc(g.nslot * sizeof(*g.k));
		memset(g.k, 0xff, g.nslot * sizeof(*g.k));
		for (size_t i = 0; i < s->nslot; i++)
			if (s->k[i] != UINT64_MAX)
				aset_add(&g, s->k[i]);
		free(s->k);
		*s = g;
	}
	for (h = mix64(a) & (s->nslot - 1); s->k[h] != UINT64_MAX;
	     h = (h + 1) & (s->nslot - 1))
		if (s->k[h] == a)
			return false;
	s->k[h] = a;
	s->n++;
	return true;
}

/*
 * -L's variables of a point: SystemTap prints the "name:type" strings
 * that occur as often as there are instances, in first-seen order over
 * the instances' lists.
 */
static void point_vars(const struct kf_catalog *c, const struct kf_query *q,
		       struct kf_point *pt)
{
	int cap = 0, n = 0;
	uint32_t *ids = NULL, *cnt;
	int ndistinct = 0;

	for (int i = 0; i < pt->ninst; i++)
		cap += (int)c->lists[pt->inst[i]->vars][0];
	ids = xmalloc(((size_t)cap + 1) * sizeof(*ids));
	cnt = xmalloc(((size_t)cap + 1) * sizeof(*cnt));
	for (int i = 0; i < pt->ninst; i++) {
		const uint32_t *l = c->lists[pt->inst[i]->vars];

		for (uint32_t k = 1; k <= l[0]; k++) {
			int d;

			for (d = 0; d < ndistinct; d++)
				if (ids[d] == l[k])
					break;
			if (d == ndistinct) {
				ids[ndistinct] = l[k];
				cnt[ndistinct++] = 0;
			}
			cnt[d]++;
		}
	}
	pt->vars = xmalloc(((size_t)ndistinct + 2) * sizeof(*pt->vars));
	if (q->kind == KF_RETURN && pt->f->ret_type &&
	    !(pt->f->flags & KF_SYMTAB)) {
		char *s;

		if (asprintf(&s, "$return:%s", pt->f->ret_type) < 0)
			fatal("out of memory");
		pt->vars[n++] = s;
	}
	for (int d = 0; d < ndistinct; d++) {
		char *s;

		if ((int)cnt[d] != pt->ninst)
			continue;
		if (asprintf(&s, "$%s", c->vars[ids[d]]) < 0)
			fatal("out of memory");
		pt->vars[n++] = s;
	}
	pt->nvars = n;
	free(ids);
	free(cnt);
}

int kf_catalog_match(const struct kf_catalog *c, const struct kf_query *q,
		     struct kf_point **out)
{
	struct cand *conc = NULL, *inl = NULL, *syms = NULL, *kept = NULL;
	int nconc = 0, capconc = 0, ninl = 0, capinl = 0, nsyms = 0;
	int capsyms = 0, nkept = 0, capkept = 0, npts = 0, cappts = 0;
	struct aset taken = { 0 };
	struct kf_point *pts = NULL;
	bool ret = q->kind == KF_RETURN;

	for (int i = 0; i < c->n; i++) {
		const struct kfunc *f = &c->funcs[i];
		bool symtab = f->flags & KF_SYMTAB;
		int how = name_matches(q->func, f);

		if (!how)
			continue;
		if (symtab && (q->file || q->line >= 0))
			continue;
		if (!symtab && q->file && *f->file &&
		    !file_matches(q->file, f->file))
			continue;
		for (int k = 0; k < f->ninst; k++) {
			struct cand cd = { f, &f->inst[k], i, how == 2 };

			if (symtab)
				VEC_PUSH(syms, nsyms, capsyms, cd);
			else if (f->inst[k].flags & KF_INST_INLINE)
				VEC_PUSH(inl, ninl, capinl, cd);
			else
				VEC_PUSH(conc, nconc, capconc, cd);
		}
	}
	sort_n(conc, (size_t)nconc, sizeof(*conc), cand_cmp);
	sort_n(syms, (size_t)nsyms, sizeof(*syms), symcand_cmp);

	/*
	 * Out-of-line copies: one probe per address, the first name wins.
	 * SystemTap only records the address of a function with a low_pc
	 * (or entry_pc), not one with ranges only (hot/cold split).
	 */
	for (int i = 0; i < nconc; i++) {
		const struct cand *cd = &conc[i];

		if (!(cd->in->flags & KF_INST_RANGES) &&
		    !aset_add(&taken, cd->in->addr))
			continue;
		if ((cd->in->flags & KF_INST_PART) || q->kind == KF_INLINE)
			continue;
		if (q->kind == KF_EXPORTED_ONLY &&
		    !(cd->f->flags & KF_EXPORTED))
			continue;
		if (!q->guru && ((cd->in->flags & KF_INST_REFUSED) ||
				 kf_blocklisted(cd->f->name, cd->f->file,
						ret)))
			continue;
		VEC_PUSH(kept, nkept, capkept, *cd);
	}
	/* inlined copies: not for .call, .return, .exported */
	if (q->kind == KF_ANY || q->kind == KF_INLINE) {
		for (int i = 0; i < ninl; i++) {
			const struct cand *cd = &inl[i];

			if (!q->guru &&
			    ((cd->in->flags & KF_INST_REFUSED) ||
			     kf_blocklisted(cd->f->name, cd->f->file, ret)))
				continue;
			VEC_PUSH(kept, nkept, capkept, *cd);
		}
	}
	/*
	 * Symbol-table functions at addresses not taken yet, one per
	 * address. (SystemTap also means to skip the addresses of the
	 * probes made so far, but compares section offsets with addresses
	 * there: a ".cold" part or a clone whose DWARF has ranges only is
	 * listed beside its DWARF function.)
	 */
	for (int i = 0; i < nsyms; i++) {
		const struct cand *cd = &syms[i];

		if (!aset_add(&taken, cd->in->addr))
			continue;
		if (!q->guru && ((cd->in->flags & KF_INST_REFUSED) ||
				 kf_blocklisted(cd->f->name, "", ret)))
			continue;
		VEC_PUSH(kept, nkept, capkept, *cd);
	}
	sort_n(kept, (size_t)nkept, sizeof(*kept), kept_cmp);
	for (int i = 0; i < nkept;) {
		int j = i;
		struct kf_point pt = { kept[i].f, NULL, 0, NULL, 0 };

		while (j < nkept && kept[j].fidx == kept[i].fidx)
			j++;
		pt.inst = xmalloc((size_t)(j - i) * sizeof(*pt.inst));
		for (int k = i; k < j; k++)
			pt.inst[pt.ninst++] = kept[k].in;
		point_vars(c, q, &pt);
		VEC_PUSH(pts, npts, cappts, pt);
		i = j;
	}
	free(taken.k);
	free(conc);
	free(inl);
	free(syms);
	free(kept);
	*out = pts;
	return npts;
}

void kf_points_free(struct kf_point *p, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; k < p[i].nvars; k++)
			free((char *)p[i].vars[k]);
		free(p[i].vars);
		free(p[i].inst);
	}
	free(p);
}

/* The name of a subprogram or inlined copy (through its abstract origin). */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die origin;
	const char *name = dwarf_diename(die);

	if (!name && dwarf_attr_integrate(die, DW_AT_abstract_origin, &at) &&
	    dwarf_formref_die(&at, &origin))
		name = dwarf_diename(&origin);
	return name;
}

/* A line table's file name is FILE, or ends in "/FILE" (or the other
 * way round: the catalog's file may be the longer one). */
static bool same_file(const char *src, const char *file)
{
	size_t a = strlen(src), b = strlen(file);

	if (a == b)
		return !strcmp(src, file);
	if (a > b)
		return src[a - b - 1] == '/' && !strcmp(src + a - b, file);
	return file[b - a - 1] == '/' && !strcmp(file + b - a, src);
}

/* The DIE of the copy of function name whose entry pc is entry: a
 * descent through the DIEs around entry (dwarf_getscopes would leave a
 * copy out when another function is inlined at its very entry). */
static bool find_copy(Dwarf_Die *parent, const char *name, uint64_t entry,
		      Dwarf_Die *out, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(parent, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		uint64_t pc;

		if (tag != DW_TAG_subprogram &&
		    tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_lexical_block)
			continue;
		if (dwarf_haspc(&child, entry) != 1)
			continue;
		if (tag != DW_TAG_lexical_block && entry_pc(&child, &pc) &&
		    pc == entry && scope_name(&child) &&
		    !strcmp(scope_name(&child), name)) {
			*out = child;
			return true;
		}
		if (find_copy(&child, name, entry, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* -L's variables at addr inside the copy die: those of the copy and of
 * its lexical blocks around addr (not of functions inlined into it),
 * innermost first, with a location at addr (or a constant value) and a named
 * type. */
static const char **stmt_vars(struct builder *b, Dwarf_Die *die,
			      uint64_t addr)
{
	const char **v = NULL;
	int nv = 0, capv = 0, nsc = 0, capsc = 0;
	Dwarf_Die *sc = NULL, cur = *die, child;

	VEC_PUSH(sc, nsc, capsc, cur);
	for (bool found = true; found;) {
		found = false;
		if (dwarf_child(&cur, &child) != 0)
			break;
		do {
			if (dwarf_tag(&child) == DW_TAG_lexical_block &&
			    dwarf_haspc(&child, addr) == 1) {
				cur = child;
				VEC_PUSH(sc, nsc, capsc, cur);
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	for (int s = nsc - 1; s >= 0; s--) {
		if (dwarf_child(&sc[s], &child) != 0)
			continue;
		do {
			int tag = dwarf_tag(&child), tid, d;
			Dwarf_Attribute a;
			const char *name;
			Dwarf_Die t;
			char *str;

			if (tag != DW_TAG_formal_parameter &&
			    tag != DW_TAG_variable)
				continue;
			name = dwarf_diename(&child);
			if (!name)
				continue;
			if (!dwarf_attr_integrate(&child, DW_AT_const_value,
						  &a) &&
			    (!dwarf_attr_integrate(&child, DW_AT_location,
						   &a) || !located_at(&a, addr)))
				continue;
			if (!die_type(&child, &t) || (tid = type_id(b, &t)) < 0)
				continue;
			if (asprintf(&str, "$%s:%s", name,
				     b->strs.s[tid]) < 0)
				fatal("out of memory");
			for (d = 0; d < nv && strcmp(v[d], str); d++)
				;
			if (d < nv) {
				free(str);
				continue;
			}
			VEC_PUSH(v, nv, capv, str);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	VEC_PUSH(v, nv, capv, NULL);
	free(sc);
	return v;
}

static int kf_stmt_cmp(const void *x, const void *y)
{
	const struct kf_stmt *a = x, *b = y;
	int r = strcmp(a->func, b->func);

	if (!r)
		r = strcmp(a->file, b->file);
	if (!r)
		r = a->line - b->line;
	if (!r)
		r = a->addr < b->addr ? -1 : a->addr > b->addr;
	return r;
}

void kf_stmts_free(struct kf_stmt *p, int n)
{
	for (int i = 0; i < n; i++) {
		for (int k = 0; p[i].vars && p[i].vars[k]; k++)
			free((char *)p[i].vars[k]);
		free(p[i].vars);
	}
	free(p);
}

struct lrec {
	int line;
	uint64_t addr;
};

static int lrec_cmp(const void *x, const void *y)
{
	const struct lrec *a = x, *b = y;

	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * ":*" as SystemTap reads it: from the line of the copy's first line
 * record (at its entry, else the first in the table inside it), each line
 * of the file that has records in the CU, in order, while one of them is
 * inside the copy; each at its lowest address there.
 */
static void stmt_walk(Dwarf_Die *cu, Dwarf_Die *die, const struct kfunc *f,
		      uint64_t entry, uint32_t cuno, struct kf_stmt **res,
		      int *nres, int *capres)
{
	Dwarf_Lines *lines;
	Dwarf_Line *first;
	size_t nl;
	struct lrec *r = NULL;
	int nr = 0, capr = 0, start = -1, k;
	Dwarf_Addr a;

	if (dwarf_getsrclines(cu, &lines, &nl) != 0)
		return;
	first = dwarf_getsrc_die(cu, entry);
	if (first && (dwarf_lineaddr(first, &a) != 0 || a != entry))
		first = NULL;
	for (size_t l = 0; l < nl; l++) {
		Dwarf_Line *ln = dwarf_onesrcline(lines, l);
		const char *src = dwarf_linesrc(ln, NULL, NULL);
		struct lrec rec;

		if (dwarf_lineno(ln, &rec.line) != 0 ||
		    dwarf_lineaddr(ln, &a) != 0)
			continue;
		rec.addr = a;
		if (!first && dwarf_haspc(die, a) == 1)
			first = ln;
		if (src && same_file(src, f->file))
			VEC_PUSH(r, nr, capr, rec);
	}
	if (!first || dwarf_lineno(first, &start) != 0 || !nr) {
		free(r);
		return;
	}
	sort_n(r, (size_t)nr, sizeof(*r), lrec_cmp);
	for (k = 0; k < nr && r[k].line < start; k++)
		;
	while (k < nr && r[k].line == start) {
		int j = k, hit = -1;

		while (j < nr && r[j].line == r[k].line) {
			if (hit < 0 && dwarf_haspc(die, r[j].addr) == 1)
				hit = j;
			j++;
		}
		if (hit < 0)
			break;
		struct kf_stmt st = { f->name, f->file, r[hit].line,
				      r[hit].addr, entry, cuno, NULL };

		VEC_PUSH(*res, *nres, *capres, st);
		if (j == nr)
			break;
		start = r[j].line;
		k = j;
	}
	free(r);
}

enum stmt_form { SF_ENTRY, SF_LINES, SF_ALL, SF_REL };

int kf_statement_points(const struct kf_catalog *c, const char *vmlinux,
			const char *arg, bool guru, bool want_vars,
			struct kf_stmt **out, char **err)
{
	char *copy = xstrdup(arg), *at = strchr(copy, '@'), *sep = NULL, *end;
	enum stmt_form form = SF_ENTRY;
	long lo = 0, hi = 0;
	struct kf_query q = { .func = copy, .line = -1, .kind = KF_ANY,
			      .guru = guru };
	struct kf_point *pts = NULL;
	struct kf_stmt *res = NULL;
	int nres = 0, capres = 0, npts, fd = -1;
	Dwarf *dbg = NULL;
	struct kf_catalog tc = { 0 };
	struct builder b = { .c = &tc };

	*out = NULL;
	*err = NULL;
	b.strs.arena = &tc.arena;
	if (at) {
		*at = '\0';
		q.file = at + 1;
		if ((sep = strrchr(at + 1, ':'))) {
			*sep++ = '\0';
			if (!strcmp(sep, "*")) {
				form = SF_ALL;
			} else {
				form = SF_LINES;
				lo = hi = strtol(sep, &end, 10);
				if (end != sep && *end == '-')
					hi = strtol(end + 1, &end, 10);
				if (end == sep || *end || lo <= 0 || hi < lo)
					goto bad;
			}
		} else if ((sep = strrchr(at + 1, '+'))) {
			*sep++ = '\0';
			form = SF_REL;
			lo = strtol(sep, &end, 10);
			if (end == sep || *end || lo < 0)
				goto bad;
		}
		if (!*q.file)
			goto bad;
	}
	if (!*copy || strpbrk(copy, ":+"))
		goto bad;
	npts = kf_catalog_match(c, &q, &pts);
	if (npts == 0)
		*err = xstrdup("no function matches");
	if (npts > 0) {
		fd = open(vmlinux, O_RDONLY | O_CLOEXEC);
		dbg = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
		if (!dbg) {
			if (asprintf(err, "cannot read the DWARF of %s",
				     vmlinux) < 0)
				fatal("out of memory");
			kf_points_free(pts, npts);
			free(copy);
			if (fd >= 0)
				close(fd);
			return -1;
		}
	}
	for (int p = 0; p < npts; p++) {
		const struct kfunc *f = pts[p].f;
		long flo = lo, fhi = hi;

		if ((f->flags & KF_SYMTAB) || !*f->file)
			continue;
		if (form == SF_REL || form == SF_ENTRY) {
			flo = fhi = f->line + (form == SF_REL ? lo : 0);
		}
		for (int i = 0; i < pts[p].ninst; i++) {
			uint64_t entry = pts[p].inst[i]->addr;
			Dwarf_Die cu, copy_die;
			Dwarf_Lines *lines;
			size_t nl;
			int first = nres;

			if (!dwarf_addrdie(dbg, entry, &cu))
				continue;
			if (!find_copy(&cu, f->name, entry, &copy_die, 0))
				continue;
			if (form == SF_ENTRY) {
				struct kf_stmt st = { f->name, f->file,
						      f->line, entry, entry,
						      pts[p].inst[i]->cu,
						      NULL };

				VEC_PUSH(res, nres, capres, st);
			} else if (form == SF_ALL) {
				stmt_walk(&cu, &copy_die, f, entry,
					  pts[p].inst[i]->cu, &res, &nres,
					  &capres);
			} else if (dwarf_getsrclines(&cu, &lines, &nl) == 0) {
				for (size_t l = 0; l < nl; l++) {
					Dwarf_Line *ln = dwarf_onesrcline(lines, l);
					Dwarf_Addr a;
					const char *src;
					bool es = false;
					int lno, r;

					if (dwarf_lineno(ln, &lno) != 0 ||
					    lno < flo || lno > fhi ||
					    dwarf_lineendsequence(ln, &es) != 0 ||
					    es || dwarf_lineaddr(ln, &a) != 0 ||
					    !(src = dwarf_linesrc(ln, NULL, NULL)) ||
					    !same_file(src, f->file) ||
					    dwarf_haspc(&copy_die, a) != 1)
						continue;
					for (r = first; r < nres &&
					     res[r].line != lno; r++)
						;
					if (r < nres) {
						if (a < res[r].addr)
							res[r].addr = a;
						continue;
					}
					struct kf_stmt st = { f->name, f->file,
							      lno, a, entry,
							      pts[p].inst[i]->cu,
							      NULL };

					VEC_PUSH(res, nres, capres, st);
				}
			}
			/* lines that begin at the address of a lower line
			 * are that line's probe (SystemTap lists the lower) */
			if (nres - first > 1)
				sort_n(res + first, (size_t)(nres - first),
				       sizeof(*res), kf_stmt_cmp);
			for (int r = first + 1; r < nres;) {
				int o;

				for (o = first; o < r &&
				     res[o].addr != res[r].addr; o++)
					;
				if (o < r) {
					memmove(&res[r], &res[r + 1],
						(size_t)(nres - r - 1) *
						sizeof(*res));
					nres--;
				} else {
					r++;
				}
			}
			for (int r = first; want_vars && r < nres; r++)
				res[r].vars = stmt_vars(&b, &copy_die,
							res[r].addr);
		}
	}
	if (nres)
		sort_n(res, (size_t)nres, sizeof(*res), kf_stmt_cmp);
	kf_points_free(pts, npts);
	intern_free(&b.strs);
	um_free(&b.types);
	sb_free(&b.tmp);
	arena_free(&tc.arena);
	if (dbg)
		dwarf_end(dbg);
	if (fd >= 0)
		close(fd);
	free(copy);
	if (!nres && !*err)
		*err = xstrdup(form == SF_ENTRY ? "no debuginfo for the function"
			       : "no line records of those lines in the "
			       "function");
	*out = res;
	return nres;
bad:
	free(copy);
	return -2;
}
