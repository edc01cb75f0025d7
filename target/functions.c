// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel function catalog from the vmlinux DWARF; see functions.h. This
 * file builds it and loads it; fn_cache.c is its cache file, fn_query.c
 * the kernel.function and kernel.statement queries, fn_dwarf.c the type
 * names and DWARF helpers both sides use.
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
 * Memory: the debug vmlinux is mmapped by libelf and read once, front to
 * back; the pages behind the walk are released as it goes (see "Reading
 * the DWARF once"), and the declaration files come from the line
 * programs' headers (elf/decl_files.c), not libdw's decoded line tables.
 *
 * Invariants: funcs[] is sorted by (name, file, line) and unique on it;
 * each function's instances are in discovery order (CU, then out-of-line
 * before inline, then DIE order); lists[0] is the empty list.
 */
#define _GNU_SOURCE
#include "target/functions.h"
#include "elf/libdw.h"
#include "target/fn_internal.h"
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/strbuf.h"

/* ------------------------------------------------------------------ */
/* Interning tables */

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
	struct elf_file *ef;
	Elf *elf;
	Dwarf *dw;
	struct ksec *secs;
	int nsecs, capsecs;
	uint64_t kprobes_start, kprobes_end;
	struct ksym *syms;	/* FUNC symbols, by address then index */
	int nsyms;
	struct intern strs;	/* names, files, types */
	struct intern vars;	/* "name:type" */
	struct intern dnames;	/* names of out-of-line DWARF functions */
	struct intern exported;	/* names whose first symbol is a global FUNC */
	struct kf_types types;	/* type names, interned in strs */
	struct elf_decl_files files;	/* decl files from the line headers */
	struct kf_abbrevs abbrevs;	/* the current CU's DIE codes */
	struct elf_loc_cover locs;	/* locations at a pc */
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
	/* the first of conc[i]'s and inl[i]'s variables in kids, or -1 */
	int *conc_kid, *inl_kid;
	int nconc_kid, capconc_kid, ninl_kid, capinl_kid;
	struct kid *kids;
	int nkids, capkids;
	uint64_t *entries;	/* sorted entry pcs of the CU's functions */
	int nentries, capentries;
	struct aroot *roots;	/* the abstract roots by DIE offset */
	int nroots, caproots;
	uint32_t *vbuf;
	int nvbuf, capvbuf;
	/* "name:type" ids by (name string, type id), before the strings */
	const char *img;	/* the file image, when under 2^31 bytes */
	size_t nimg;
	struct u64map name_no;	/* other name pointers -> number + 1 */
	struct u64map var_of;	/* name key << 32 | type id -> vars id + 1 */
	uint32_t nnames;
	struct u64map origin_at;	/* DIE offset -> ovars index + 1 */
	struct origin_var *ovars;
	int novars, capovars;
	struct strbuf tmp;
};

/* A parameter or variable DIE of a copy, and the copy's next one. */
struct kid {
	Dwarf_Die die;
	unsigned int code;	/* kf_abbrev()'s, 0 if none */
	int next;		/* index in kids, -1 at the end */
};

struct origin_var {
	const char *name;	/* NULL: none */
	int tid;		/* strs id of its type name, -1: none */
	bool has_const;		/* a DW_AT_const_value */
	uint32_t var;		/* vars id, UINT32_MAX until used */
};

struct aroot {
	uint64_t off;		/* DIE offset */
	int abst;		/* index in abst */
	int func;		/* its function, -1 until an inlined copy */
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

/* A section of vmlinux: an allocated one is text a probe may go in,
 * unless a blocked section holds it. */
static int add_section(const struct elf_section *sec, void *arg)
{
	struct builder *b = arg;
	struct ksec *k;

	if (!(sec->flags & SHF_ALLOC))
		return 0;
	VEC_GROW(b->secs, b->nsecs, b->capsecs);
	k = &b->secs[b->nsecs++];
	k->addr = sec->addr;
	k->size = sec->size;
	k->refused = false;
	/* a module's init and exit code is there while it loads and
	 * unloads: SystemTap probes it */
	for (int i = 0; sec->name && block_sections[i] &&
			elf_file_type(b->ef) != ET_REL; i++)
		if (strncmp(sec->name, block_sections[i],
			    strlen(block_sections[i])) == 0)
			k->refused = true;
	return 0;
}

struct sym_walk {
	struct builder *b;
	struct intern seen;	/* names met so far */
	uint64_t ni_addr;
	int cap;
};

static int add_symbol(const struct elf_sym *s, void *arg)
{
	struct sym_walk *w = arg;
	struct builder *b = w->b;
	size_t len = strlen(s->name);
	int nseen = w->seen.n;
	struct ksym k;

	/* .exported: the first symbol of a name decides */
	intern_add(&w->seen, s->name, len);
	if (w->seen.n > nseen && s->type == STT_FUNC && s->bind != STB_LOCAL)
		intern_add(&b->exported, s->name, len);
	if (strcmp(s->name, "__kprobes_text_start") == 0)
		b->kprobes_start = s->addr;
	else if (strcmp(s->name, "__kprobes_text_end") == 0)
		b->kprobes_end = s->addr;
	if (s->type != STT_FUNC || s->shndx == SHN_UNDEF)
		return 0;
	if (strcmp(s->name, "sys_ni_syscall") == 0)
		w->ni_addr = s->addr;
	k.name = s->name;
	k.addr = s->addr;
	k.bind = s->bind;
	k.index = s->index;
	VEC_PUSH(b->syms, b->nsyms, w->cap, k);
	return 0;
}

static int read_elf(struct builder *b, char **err)
{
	struct sym_walk w = { .b = b, .seen = { .arena = &b->scratch } };

	if (elf_file_sections(b->ef, add_section, b) != 0) {
		*err = xasprintf("%s", elf_errmsg(-1));
		return -1;
	}
	if (elf_file_symbols(b->ef, add_symbol, &w) < 0)
		return 0;
	/* cond_syscall()'s weak aliases of sys_ni_syscall are not
	 * functions of their own */
	if (w.ni_addr) {
		int n = 0;

		for (int i = 0; i < b->nsyms; i++)
			if (!(b->syms[i].addr == w.ni_addr &&
			      b->syms[i].bind == STB_WEAK &&
			      strcmp(b->syms[i].name, "sys_ni_syscall") != 0))
				b->syms[n++] = b->syms[i];
		b->nsyms = n;
	}
	sort_n(b->syms, (size_t)b->nsyms, sizeof(*b->syms), sym_cmp);
	intern_free(&w.seen);
	return 0;
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

static uint32_t list_intern(struct builder *b, const uint32_t *v, int n)
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


/*
 * The vars id of "name:type" for a name string and a strs id. A name is
 * known by where it is: its offset in the file image (below 2^31), else
 * a number of its own from 2^31 up. The same name at another place is
 * another key, whose string is then found in vars by its text.
 */
static uint32_t var_id(struct builder *b, const char *name, int tid)
{
	uint64_t np = (uint64_t)(uintptr_t)name, key;
	uint32_t *v, id;

	if (name >= b->img && (size_t)(name - b->img) < b->nimg) {
		key = (uint64_t)(name - b->img);
	} else {
		if (!(v = u64map_slot(&b->name_no, np))) {
			u64map_put(&b->name_no, np, ++b->nnames);
			v = u64map_slot(&b->name_no, np);
		}
		key = (1ULL << 31) + *v - 1;
	}
	key = key << 32 | (uint32_t)tid;
	if ((v = u64map_slot(&b->var_of, key)))
		return *v - 1;
	sb_reset(&b->tmp);
	sb_puts(&b->tmp, name);
	sb_putc(&b->tmp, ':');
	sb_puts(&b->tmp, b->strs.s[tid]);
	id = (uint32_t)intern_add(&b->vars, sb_str(&b->tmp), b->tmp.len);
	u64map_put(&b->var_of, key, id + 1);
	return id;
}

/*
 * The variables -L shows for the instance die at pc: its own children
 * that are parameters or variables with a name, a location at pc (or a
 * constant value) and a type that has a name.
 */
static bool located(struct builder *b, Dwarf_Attribute *a, uint64_t pc)
{
	return elf_loc_cover_at(&b->locs, a, pc) ||
	       (b->mfentry && cu_entry(b, pc) &&
		elf_loc_cover_at(&b->locs, a, pc + 5));
}

/*
 * The name, constant and type of a variable whose own DIE has none of
 * them, only a DW_AT_abstract_origin (the variables of inlined and
 * concrete copies): taken from the origin at DIE offset off, resolved at
 * its first variable and kept (through that variable's chain; every
 * other such variable's chain is the same past its own DIE).
 */
static struct origin_var *origin_var(struct builder *b, Dwarf_Die *var,
				     uint64_t off)
{
	uint32_t *v = u64map_slot(&b->origin_at, off);
	struct origin_var o = { NULL, -1, false, UINT32_MAX };
	struct kf_chain ch;
	Dwarf_Attribute a;
	Dwarf_Die t;

	if (v)
		return &b->ovars[*v - 1];
	kf_chain_start(&ch, var, &b->abbrevs);
	o.name = dwarf_formstring(kf_chain_attr(&ch, DW_AT_name, &a));
	o.has_const = kf_chain_attr(&ch, DW_AT_const_value, &a) != NULL;
	if (kf_chain_type(&ch, &t))
		o.tid = kf_type_id(&b->types, &t);
	VEC_PUSH(b->ovars, b->novars, b->capovars, o);
	u64map_put(&b->origin_at, off, (uint32_t)b->novars);
	return &b->ovars[b->novars - 1];
}

/* kf_abbrevs.user[] of a variable's code */
#define VF_KNOWN	0x01	/* set */
#define VF_ORIGIN	0x02	/* an origin and a location, no name, type,
				 * constant: see origin_var() */

/* The variables of the instance whose first parameter or variable is
 * kids[k] (walk() collected them, in DIE order). */
static uint32_t instance_vars(struct builder *b, int k, uint64_t pc)
{
	b->nvbuf = 0;
	for (; k >= 0; k = b->kids[k].next) {
		Dwarf_Die child = b->kids[k].die;
		unsigned int code = b->kids[k].code, fl;
		int tid;
		struct kf_chain ch;
		struct origin_var *o;
		Dwarf_Attribute a, loc;
		const char *name;
		Dwarf_Die t;

		/* which attributes a DIE has is its abbreviation's */
		fl = code ? b->abbrevs.user[code] : 0;
		if (!fl) {
			fl = VF_KNOWN;
			if (dwarf_hasattr(&child, DW_AT_abstract_origin) &&
			    !dwarf_hasattr(&child, DW_AT_name) &&
			    !dwarf_hasattr(&child, DW_AT_type) &&
			    !dwarf_hasattr(&child, DW_AT_const_value) &&
			    dwarf_hasattr(&child, DW_AT_location))
				fl |= VF_ORIGIN;
			if (code)
				b->abbrevs.user[code] = (unsigned char)fl;
		}
		if ((fl & VF_ORIGIN) &&
		    dwarf_attr(&child, DW_AT_abstract_origin, &a) &&
		    dwarf_attr(&child, DW_AT_location, &loc) &&
		    dwarf_formref_die(&a, &t)) {
			o = origin_var(b, &child, dwarf_dieoffset(&t));
			if (!o->name || (!o->has_const && !located(b, &loc, pc)) ||
			    o->tid < 0)
				continue;
			if (o->var == UINT32_MAX)
				o->var = var_id(b, o->name, o->tid);
			VEC_PUSH(b->vbuf, b->nvbuf, b->capvbuf, o->var);
			continue;
		}
		kf_chain_start(&ch, &child, &b->abbrevs);
		name = dwarf_formstring(kf_chain_attr(&ch, DW_AT_name, &a));
		if (!name)
			continue;
		if (!kf_chain_attr(&ch, DW_AT_const_value, &a) &&
		    (!kf_chain_attr(&ch, DW_AT_location, &a) ||
		     !located(b, &a, pc)))
			continue;
		if (!kf_chain_type(&ch, &t) ||
		    (tid = kf_type_id(&b->types, &t)) < 0)
			continue;
		VEC_PUSH(b->vbuf, b->nvbuf, b->capvbuf, var_id(b, name, tid));
	}
	return list_intern(b, b->vbuf, b->nvbuf);
}

/* ------------------------------------------------------------------ */
/* Functions and instances */

static int func_id(struct builder *b, int name, int file, int line)
{
	uint64_t h = mix64(((uint64_t)name << 32) ^ (uint64_t)file ^
			   ((uint64_t)line << 48));
	uint32_t *v = u64map_slot(&b->fkey, h);
	struct bfunc f = { name, file, line, 0, -1, -1 };

	for (int i = v ? (int)*v - 1 : -1; i >= 0; i = b->funcs[i].next)
		if (b->funcs[i].name == name && b->funcs[i].file == file &&
		    b->funcs[i].line == line)
			return i;
	f.next = v ? (int)*v - 1 : -1;
	VEC_PUSH(b->funcs, b->nfuncs, b->capfuncs, f);
	u64map_put(&b->fkey, h, (uint32_t)b->nfuncs);
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


/* File and line of a function: its decl, else the line table at its
 * start, else "<unknown source>". */
static void decl_of(struct builder *b, Dwarf_Die *cu, Dwarf_Die *f,
		    int *file, int *line)
{
	const char *df = elf_decl_file(&b->files, f);
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
	if (f->ret < 0 && kf_die_type(die, &t))
		f->ret = kf_type_id(&b->types, &t);
}

/* Collect the CU's functions and inlined copies (dwarf_getfuncs' walk),
 * and the parameters and variables of each copy: parent is conc[owner /
 * 2] (even owner) or inl[owner / 2] (odd), or no copy (-1). */
static void walk(struct builder *b, Dwarf_Die *parent, int owner)
{
	Dwarf_Die d;
	int head = -1, tail = -1, i;

	if (dwarf_child(parent, &d) != 0)
		goto out;
	do {
		unsigned int code = kf_abbrev(&b->abbrevs, &d);
		int tag = dwarf_tag(&d);

		switch (tag) {
		case DW_TAG_subprogram:
			i = -1;
			if (!dwarf_hasattr(&d, DW_AT_declaration) &&
			    dwarf_diename(&d)) {
				if (dwarf_func_inline(&d) != 0) {
					struct aroot r = { dwarf_dieoffset(&d),
							   b->nabst, -1 };

					VEC_PUSH(b->roots, b->nroots,
						 b->caproots, r);
					VEC_PUSH(b->abst, b->nabst,
						 b->capabst, d);
				} else {
					i = 2 * b->nconc;
					VEC_PUSH(b->conc, b->nconc,
						 b->capconc, d);
					VEC_PUSH(b->conc_kid, b->nconc_kid,
						 b->capconc_kid, -1);
				}
			}
			walk(b, &d, i);
			break;
		case DW_TAG_inlined_subroutine:
			i = 2 * b->ninl + 1;
			VEC_PUSH(b->inl, b->ninl, b->capinl, d);
			VEC_PUSH(b->inl_kid, b->ninl_kid, b->capinl_kid, -1);
			walk(b, &d, i);
			break;
		case DW_TAG_lexical_block:
			walk(b, &d, -1);
			break;
		case DW_TAG_formal_parameter:
		case DW_TAG_variable:
			if (owner >= 0) {
				struct kid k = { d, code, -1 };

				VEC_PUSH(b->kids, b->nkids, b->capkids, k);
				if (tail >= 0)
					b->kids[tail].next = b->nkids - 1;
				else
					head = b->nkids - 1;
				tail = b->nkids - 1;
			}
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
out:
	if (owner >= 0)
		(owner & 1 ? b->inl_kid : b->conc_kid)[owner / 2] = head;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int aroot_cmp(const void *a, const void *b)
{
	const struct aroot *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* The abstract root at DIE offset off, or NULL. */
static struct aroot *root_at(const struct builder *b, uint64_t off)
{
	int lo = 0, hi = b->nroots;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (b->roots[mid].off < off)
			lo = mid + 1;
		else if (b->roots[mid].off > off)
			hi = mid;
		else
			return &b->roots[mid];
	}
	return NULL;
}

static void do_cu(struct builder *b, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *producer;

	b->nconc = b->nabst = b->ninl = b->nentries = b->nroots = 0;
	b->nconc_kid = b->ninl_kid = b->nkids = 0;
	/* DIE offsets: type names and origins are the CU's own, so their
	 * maps start afresh (small, and cheap to look up in) */
	u64map_free(&b->types.ids);
	u64map_free(&b->origin_at);
	b->novars = 0;
	producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));
	b->mfentry = producer && strncmp(producer, "GNU ", 4) == 0 &&
		     strstr(producer, "-mfentry");
	walk(b, cu, -1);
	/* found in DIE order, so by offset: sorting only checks that */
	for (int i = 1; i < b->nroots; i++)
		if (b->roots[i - 1].off > b->roots[i].off) {
			sort_n(b->roots, (size_t)b->nroots, sizeof(*b->roots),
			       aroot_cmp);
			break;
		}

	for (int i = 0; i < b->nconc; i++) {
		uint64_t pc;

		if (kf_entry_pc(&b->conc[i], &pc))
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
		add_inst(b, fi, pc, instance_vars(b, b->conc_kid[i], pc), flags);
	}

	/* inlined copies, under their abstract origin in this CU */
	for (int i = 0; i < b->ninl; i++) {
		Dwarf_Die *d = &b->inl[i], origin, *root;
		Dwarf_Attribute oa;
		struct aroot *r;
		uint64_t pc;
		int file, line;
		const char *name;

		if (!dwarf_attr(d, DW_AT_abstract_origin, &oa) ||
		    !dwarf_formref_die(&oa, &origin))
			continue;
		r = root_at(b, dwarf_dieoffset(&origin));
		if (!r || !kf_entry_pc(d, &pc))
			continue;
		/* the same for every copy of the root */
		if (r->func < 0) {
			root = &b->abst[r->abst];
			name = dwarf_diename(root);
			decl_of(b, cu, root, &file, &line);
			r->func = func_id(b, intern_add(&b->strs, name,
							strlen(name)),
					  file, line);
			set_func_info(b, r->func, root);
		}
		add_inst(b, r->func, pc, instance_vars(b, b->inl_kid[i], pc),
			 KF_INST_INLINE);
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

/*
 * Sort the instances by binst_cmp: grouped by function (a stable counting
 * sort), then a group out of order sorted on its own. The DWARF copies
 * were found CU by CU, out-of-line ones first, so only a symbol-table
 * function's copies (by symbol index) can need it.
 */
static void sort_insts(struct builder *b)
{
	int *start = calloc((size_t)b->nfuncs + 1, sizeof(*start));
	struct binst *out = xmalloc(((size_t)b->ninsts + 1) * sizeof(*out));

	if (!start)
		fatal("out of memory");
	for (int i = 0; i < b->ninsts; i++) {
		b->insts[i].seq = i;
		start[b->insts[i].func + 1]++;
	}
	for (int f = 0; f < b->nfuncs; f++)
		start[f + 1] += start[f];
	for (int i = 0; i < b->ninsts; i++)
		out[start[b->insts[i].func]++] = b->insts[i];
	free(b->insts);
	b->insts = out;
	b->capinsts = b->ninsts + 1;
	for (int i = 0; i < b->ninsts;) {
		int j = i + 1;
		bool sorted = true;

		for (; j < b->ninsts && out[j].func == out[i].func; j++)
			if (binst_cmp(&out[j - 1], &out[j]) > 0)
				sorted = false;
		if (!sorted)
			qsort(out + i, (size_t)(j - i), sizeof(*out), binst_cmp);
		i = j;
	}
	free(start);
}

/* Whether an inlined copy at addr is among the n instances f keeps so
 * far; f has ninline inlined copies in all. Few: a scan of those kept;
 * many: the map *seen of their addresses (the caller clears it per
 * function), which this adds addr to. */
static bool inline_seen(const struct kfunc *f, int n, uint64_t addr,
			struct u64map *seen, int ninline)
{
	if (ninline <= 32) {
		for (int k = 0; k < n; k++)
			if ((f->inst[k].flags & KF_INST_INLINE) &&
			    f->inst[k].addr == addr)
				return true;
		return false;
	}
	if (u64map_slot(seen, addr))
		return true;
	u64map_put(seen, addr, 1);
	return false;
}

static void finish(struct builder *b)
{
	struct kf_catalog *c = b->c;
	struct arena *ar = &c->arena;
	struct kf_inst *all;
	struct u64map seen = { 0 };
	int *pos = xmalloc(((size_t)b->nfuncs + 1) * sizeof(*pos));

	/* instances grouped by function, discovery order within */
	sort_insts(b);
	all = arena_alloc(ar, ((size_t)b->ninsts + 1) * sizeof(*all));
	c->funcs = arena_alloc(ar, ((size_t)b->nfuncs + 1) *
				       sizeof(*c->funcs));
	c->n = 0;
	for (int i = 0; i < b->ninsts;) {
		int j = i, w = 0, ninline = 0;
		const struct bfunc *bf = &b->funcs[b->insts[i].func];
		struct kfunc *f = &c->funcs[c->n++];

		for (; j < b->ninsts && b->insts[j].func == b->insts[i].func;
		     j++)
			ninline += !!(b->insts[j].in.flags & KF_INST_INLINE);
		pos[b->insts[i].func] = c->n - 1;
		f->name = b->strs.s[bf->name];
		f->file = bf->file >= 0 ? b->strs.s[bf->file] : "";
		f->line = bf->line;
		f->flags = bf->flags;
		f->ret_type = bf->ret >= 0 ? b->strs.s[bf->ret] : NULL;
		f->inst = all + i;
		if (ninline > 32)
			u64map_clear(&seen);
		for (int k = i; k < j; k++) {
			const struct kf_inst *in = &b->insts[k].in;

			/* one inlined copy per entry pc (a copy can be
			 * seen twice, SystemTap keeps one) */
			if ((in->flags & KF_INST_INLINE) &&
			    inline_seen(f, w, in->addr, &seen, ninline))
				continue;
			f->inst[w++] = *in;
		}
		f->ninst = w;
		c->ninst += w;
		for (int k = 0; k < w; k++)
			if (f->inst[k].flags & KF_INST_INLINE)
				c->ninline++;
		i = j;
	}
	u64map_free(&seen);
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
	u64map_free(&b->types.ids);
	elf_decl_files_free(&b->files);
	free(b->ldata);
	free(b->loff);
	free(b->lslot);
	free(b->funcs);
	u64map_free(&b->fkey);
	free(b->insts);
	free(b->aliases);
	free(b->conc);
	free(b->abst);
	free(b->inl);
	free(b->conc_kid);
	free(b->inl_kid);
	free(b->kids);
	free(b->entries);
	free(b->roots);
	u64map_free(&b->name_no);
	u64map_free(&b->var_of);
	u64map_free(&b->origin_at);
	free(b->ovars);
	free(b->vbuf);
	sb_free(&b->tmp);
}

/* ------------------------------------------------------------------ */
/* Reading the DWARF once: its pages are let go behind the walk */

/*
 * The build reads .debug_info from start to end, and each CU's
 * abbreviations and location and range lists about in the same order, so
 * a page behind the walk is seldom read again (when it is, it faults back
 * in from the page cache). Kept resident, those sections would add their
 * size to the peak RSS (about 200 MB on 6.1). Every DROP_STEP bytes of
 * .debug_info, the pages before the next CU and the list and
 * abbreviation sections' pages are released with MADV_DONTNEED: only in a
 * read-only private mapping of a file (libelf's mmap of the vmlinux),
 * never in memory libelf read the file into, which DONTNEED would zero.
 */
#define DROP_STEP ((size_t)8 << 20)

struct dropper {
	const unsigned char *p[6];	/* p[0]: .debug_info */
	size_t n[6];
	int nsec;
	uintptr_t done;			/* .debug_info released below */
	size_t page;
};

/* Whether [p, p + n) lies in one read-only private file mapping. */
static bool file_mapped(const unsigned char *p, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, ino;
		char perm[8];

		if (sscanf(line, "%lx-%lx %7s %*x %*x:%*x %lu", &lo, &hi, perm,
			   &ino) == 4 && (uintptr_t)p >= lo &&
		    (uintptr_t)p + n <= hi)
			ok = ino != 0 && perm[0] == 'r' && perm[1] == '-' &&
			     perm[3] == 'p';
	}
	fclose(f);
	return ok;
}

static void dropper_init(struct dropper *d, Elf *elf)
{
	static const char *const names[] = {
		".debug_info", ".debug_abbrev", ".debug_loclists",
		".debug_rnglists", ".debug_loc", ".debug_ranges",
	};

	memset(d, 0, sizeof(*d));
	d->page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < 6; i++) {
		elf_raw_section(elf, names[i], &d->p[d->nsec], &d->n[d->nsec]);
		if (d->p[d->nsec] && file_mapped(d->p[d->nsec], d->n[d->nsec]))
			d->nsec++;
		else if (i == 0)
			return;		/* nothing to walk behind */
	}
	d->done = (uintptr_t)d->p[0];
}

/* Release the whole pages in [lo, hi). */
static void drop_pages(const struct dropper *d, uintptr_t lo, uintptr_t hi)
{
	lo = (lo + d->page - 1) & ~(uintptr_t)(d->page - 1);
	hi &= ~(uintptr_t)(d->page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/* The walk is at .debug_info offset off: release what lies behind. */
static void drop_behind(struct dropper *d, size_t off)
{
	uintptr_t at = (uintptr_t)d->p[0] + off;

	if (!d->nsec || at < d->done + DROP_STEP)
		return;
	drop_pages(d, d->done, at);
	d->done = at & ~(uintptr_t)(d->page - 1);
	for (int i = 1; i < d->nsec; i++)
		drop_pages(d, (uintptr_t)d->p[i], (uintptr_t)d->p[i] + d->n[i]);
}

static int build(struct kf_catalog *c, const char *vmlinux, char **err)
{
	struct builder b = { .c = c };
	struct dropper drop;
	Dwarf_Off off = 0, next;
	size_t hsize;
	int rc = -1;

	b.strs.arena = &c->arena;
	b.types.strs = &b.strs;
	b.vars.arena = &c->arena;
	b.dnames.arena = &b.scratch;
	b.exported.arena = &b.scratch;
	b.ef = elf_file_open(vmlinux, NULL, err);
	if (!b.ef)
		return -1;
	/* a module's .ko: its symbols and sections where its DWARF puts
	 * them */
	elf_file_dwarf_layout(b.ef);
	b.elf = elf_file_elf(b.ef);
	if (read_elf(&b, err) != 0)
		goto out;
	elf_decl_files_init(&b.files, b.elf);
	elf_loc_cover_init(&b.locs, b.elf);
	b.img = elf_rawfile(b.elf, &b.nimg);
	if (!b.img || b.nimg >= (size_t)1 << 31)
		b.nimg = 0;
	b.dw = elf_file_dwarf(b.ef);
	if (!b.dw) {
		*err = xasprintf("%s has no DWARF: %s", vmlinux,
				  dwarf_errmsg(-1));
		goto out;
	}
	list_intern(&b, NULL, 0);	/* lists[0]: empty */
	dropper_init(&drop, b.elf);
	while (dwarf_nextcu(b.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(b.dw, off + hsize, &cu) &&
		    dwarf_tag(&cu) == DW_TAG_compile_unit)
			do_cu(&b, &cu);
		b.cu++;
		off = next;
		drop_behind(&drop, off);
	}
	c->ncus = (int)b.cu;
	add_symtab(&b);
	mark_exported(&b);
	finish(&b);
	rc = 0;
out:
	elf_file_close(b.ef);
	builder_free(&b);
	return rc;
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
		cpath = kf_cache_path(cache_dir, release);
		if (kf_cache_read(out, cpath, key)) {
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
		kf_cache_write(out, cache_dir, cpath, key);
	free(cpath);
	return 0;
}

void kf_catalog_free(struct kf_catalog *c)
{
	arena_free(&c->arena);
	memset(c, 0, sizeof(*c));
}
