/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a probe family hands a backend for each derived probe: an attach
 * description (where and how the probe fires: its kind and the kind's
 * fields, an optional task filter) and, for each context value its body
 * reads, a recipe (where the value starts, then member steps). Data only:
 * a family (probes/) fills these, in its derive/expand hooks or in its
 * describe hook at the end of pass 2, and never writes C; a backend
 * (module/, the kernel module) has one emitter per kind and never names a
 * family. Which kernel mechanism serves a kind (ftrace, fprobe, kprobe,
 * kretprobe, a tracepoint callback) is the backend's choice.
 */
#ifndef SEMANTIC_ATTACH_H
#define SEMANTIC_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

struct member_path;
struct pretty;
struct tracepoint_info;
struct dwloc_prog;

enum attach_kind {
	ATTACH_NONE,		/* no backend runs it: refused in pass 2 */
	ATTACH_ONCE,		/* begin, end, error (and never) */
	ATTACH_TIMER,
	ATTACH_PROCFS,
	ATTACH_TRACEPOINT,
	ATTACH_KFUNC_ENTRY,	/* a kernel function's entry, or a statement */
	ATTACH_KFUNC_RETURN,	/* a kernel function's return */
	ATTACH_UPROBE,		/* a place in a user binary (a function's
				 * entry or return, a statement, a mark) */
	ATTACH_PERF,		/* a perf event: sampled, or a counter */
	ATTACH_NETFILTER,	/* a netfilter hook */
	ATTACH_HWBKPT,		/* a hardware breakpoint on kernel data */
	ATTACH_PROCESS,		/* a process's or thread's begin and end, its
				 * system calls (process.begin ...) */
	ATTACH_NKINDS
};

/* ---- context value recipes ------------------------------------------ */

enum value_root {
	ROOT_ARG,		/* the event's argument number arg */
	ROOT_DWARF,		/* a DWARF location (dwarf), at the event */
	ROOT_RETURN,		/* the function's return value */
	ROOT_ENTRY,		/* a value saved at the function's entry
				 * (slot arg) */
	ROOT_REGISTER,		/* the register named reg */
	ROOT_CONST,		/* the constant */
	ROOT_OPERAND,		/* a machine operand (an SDT mark's
				 * argument): operand */
};

/*
 * A machine operand as an assembler writes it: a register, memory at
 * reg + index * scale + offset (reg NULL: at offset alone), or a
 * constant (ROOT_CONST). Registers by their pt_regs member ("di").
 */
struct value_operand {
	const char *reg, *index;	/* pt_regs members, or NULL */
	int scale;
	int64_t offset;
	bool memory;			/* the value is read at the address */
};

/* Whose memory a read of the value (its root or a member step) is in. */
enum value_space { SPACE_KERNEL, SPACE_USER };

struct value_recipe {
	enum value_root root;
	int arg;			/* ROOT_ARG, ROOT_ENTRY */
	/* ROOT_DWARF: the location program (target/dwloc.h), for a value
	 * of dwarf_size bytes: pass 2 ran dwloc_eval's checks on it, the
	 * backend renders it (the module: module/loc_c.c) */
	const struct dwloc_prog *dwarf;
	unsigned dwarf_size;
	const char *reg;		/* ROOT_REGISTER */
	int64_t constant;		/* ROOT_CONST */
	struct value_operand operand;	/* ROOT_OPERAND */
	/* the root as a long: a scalar of size bytes (8: as is) */
	unsigned size;
	bool is_signed;
	bool address;			/* the value is the root's address
					 * (an aggregate, or &$var) */
	bool spill;			/* an aggregate of at most 8 bytes in
					 * a register: its members are read
					 * from a copy */
	bool reg_address;		/* a write's target: the register's
					 * own slot */
	bool write_target;		/* -g: where `$x = v`, `$p->f = v`
					 * writes (an address) */
	/* then the member steps (offsets, derefs, bitfields), or NULL */
	const struct member_path *steps;
	enum value_space space;
};

/* ---- the kinds' fields ------------------------------------------------ */

enum once_when { ONCE_BEGIN, ONCE_END, ONCE_ERROR, ONCE_NEVER };

struct attach_once {
	enum once_when when;		/* never: checked, then dropped */
	int64_t priority;		/* begin(N) ...: the order they run */
};

struct attach_timer {
	uint64_t period_ns;		/* (jiffies: in jiffies) */
	uint64_t randomize_ns;		/* +/- up to this, or 0 */
	bool jiffies;			/* period and randomization in
					 * jiffies, not an hrtimer */
	bool profile;			/* a tick on every CPU */
};

struct attach_procfs {
	const char *path;		/* under /proc/systemtap/MODULE/ */
	bool write;			/* a write probe (else a read one) */
	int64_t maxsize;		/* a read's buffer size, or 0 */
	int64_t umask;
};

struct attach_tracepoint {
	const char *system, *name;	/* as the point names them */
	/* the argument layout: the catalog entry (system, name, header,
	 * prototype, arguments and their C types, in a module), or NULL */
	const struct tracepoint_info *info;
	/* structs to declare before including the trace header */
	const char *decls;
	/* $$parms$ (1) and $$parms$$ (2): per argument, its pretty
	 * printing, or NULL ("=?") */
	const struct pretty **parms_pretty[3];
};

struct attach_kfunc {
	const char *symbol;		/* the function, or NULL */
	/* the module whose symbol it is ("M:NAME"), or NULL: the probe is
	 * armed while that module is loaded */
	const char *module;
	uint64_t addr;			/* link-time address of the probed
					 * instance or statement, or 0; with
					 * module, an inlined copy's or a
					 * statement's offset into symbol */
	bool inlined;			/* an inlined copy (no symbol) */
	bool statement;			/* a statement inside the function */
	bool absolute;			/* addr is a run-time address, as
					 * is (kprobe.statement(A).absolute) */
	int64_t maxactive;		/* return: instances in flight, or 0 */
	/* return: the value's size (0 unknown, 8 as is), signedness */
	unsigned ret_size;
	bool ret_signed;
	/* the program's anchor for the kernel's load offset (KASLR): an
	 * exported function and its link-time address; NULL: addresses
	 * are not used */
	const char *anchor_sym;
	uint64_t anchor_addr;
};

/* A place in a user binary (ATTACH_UPROBE). */
struct attach_uprobe {
	const char *path;		/* the binary, resolved (absolute,
					 * links followed) */
	uint64_t offset;		/* the instruction's offset in the
					 * file (what the kernel takes) */
	uint64_t addr;			/* its link-time address */
	bool ret;			/* the function's return */
	uint64_t semaphore_offset;	/* a mark's semaphore, its offset in
					 * the file; 0: none */
	const char *provider, *name;	/* a mark's, else NULL */
	/* return: the value's size (0 unknown, 8 as is), signedness */
	unsigned ret_size;
	bool ret_signed;
};

struct attach_perf {
	uint32_t type;			/* perf_event_attr's type and config */
	uint64_t config;
	uint64_t sample;		/* the sample period; 0: a counter */
	bool freq;			/* sample is a frequency (.hz(N)) */
	/* .counter("NAME"): a counter read by @perf("NAME"), or NULL */
	const char *counter;
};

struct attach_hwbkpt {
	const char *symbol;		/* kernel.data("SYMBOL"), or NULL */
	uint64_t addr;			/* the symbol's link-time address, or
					 * kernel.data(ADDRESS) */
	unsigned length;		/* bytes watched: 1, 2, 4 or 8 */
	bool rw;			/* .rw: reads and writes; else .write */
	/* a symbol's anchor for the kernel's load offset (KASLR): an
	 * exported function and its link-time address */
	const char *anchor_sym;
	uint64_t anchor_addr;
};

struct attach_netfilter {
	/* C expressions: numbers, or with -g a kernel constant as the
	 * script names it */
	const char *pf, *hook, *priority;
};

/* Which tasks the probe fires for (ATTACH_PROCESS; uprobe: pid; pass 2's
 * @perf checks which program a probe names: perf's .process). */
struct task_filter {
	int64_t pid;			/* 0: any */
	const char *exe;		/* an executable's path, or NULL */
};

/* ATTACH_PROCESS: which event of the filter's tasks. Context values are
 * ROOT_ARG recipes over PROC_VALUE_*. */
enum process_event {
	PROC_BEGIN,			/* a process starts (fork, exec, or
					 * found running at the start) */
	PROC_END,			/* its last thread exits, or it execs */
	PROC_THREAD_BEGIN,
	PROC_THREAD_END,
	PROC_SYSCALL,			/* a system call's entry */
	PROC_SYSCALL_RETURN,		/* its return */
};
enum { PROC_VALUE_SYSCALL, PROC_VALUE_ARG1, PROC_VALUE_RETURN = 7 };

struct attach_process {
	enum process_event event;
};

struct attach {
	enum attach_kind kind;
	struct task_filter filter;
	union {
		struct attach_once once;
		struct attach_timer timer;
		struct attach_procfs procfs;
		struct attach_tracepoint tracepoint;
		struct attach_kfunc kfunc;
		struct attach_uprobe uprobe;
		struct attach_perf perf;
		struct attach_hwbkpt hwbkpt;
		struct attach_netfilter netfilter;
		struct attach_process process;
	};
	/* values[k]: how context value k of the body (ctxvars[k]) is
	 * read at this probe, or NULL (none here: the value is never read
	 * by this probe); nvalues: the body's count, or 0 */
	const struct value_recipe *const *values;
	int nvalues;
};

#endif /* SEMANTIC_ATTACH_H */
