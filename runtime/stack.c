// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel stacks and symbols for the tapset library (context-symbols.stp,
 * context-unwind.stp, context-caller.stp). Included by those tapsets'
 * embedded C, so only modules that use them carry it.
 *
 * Walking: the kernel's own unwinder (ORC on the Debian kernels, through
 * the exported __unwind_start/unwind_next_frame), which checks every
 * stack read against the task's stacks, so a walk never faults. With a
 * probe's registers (c->regs: kernel.function entry and return) the
 * first frame is regs->ip, the probed function (or, at return, the
 * caller it returns to), then its callers; timer.profile's are the
 * registers its tick interrupted. User-mode registers (a tick in user
 * space) have no kernel stack: the walk gives no frames, so a profile
 * never counts the timer interrupt's own stack as the kernel's. Without
 * registers (tracepoints, timers, begin/end) the walk starts here and
 * drops our own module's leading frames (handler, runtime, tracepoint
 * callback), so the first frame is the kernel code that ran the probe.
 * At most MAXBACKTRACE frames, SystemTap's default 20 (-DMAXBACKTRACE=N).
 *
 * Symbols: sprint_symbol(), the same lookup as printk's %pS (kallsyms
 * and module symbol tables, lock-free, safe in any context). Its
 * "name+0xoff/0xsize [module]" is split so the tapsets can print
 * SystemTap's formats; the kernel's own symbols get the module name
 * "kernel", as in SystemTap.
 */
#ifndef STP_STACK_C
#define STP_STACK_C

#include <linux/kallsyms.h>
#include <asm/unwind.h>

#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20
#endif

/* Called for each frame, innermost first; false stops the walk. */
typedef bool (*stp_frame_fn)(void *data, unsigned long addr);

static bool stp_addr_in_self(unsigned long addr)
{
	return within_module(addr, THIS_MODULE);
}

/*
 * Walk the current kernel stack of the probe hit in c, calling fn for
 * at most MAXBACKTRACE frames; returns the number of frames given.
 */
static noinline int __maybe_unused stp_stack_walk(struct stp_context *c,
						  stp_frame_fn fn, void *data)
{
	struct unwind_state state;
	unsigned long addr;
	/* without registers: 0 before the module's frames (the unwinder's
	 * own, if any), 1 in them, 2 past them (the frames to report) */
	int phase = 2;
	int n = 0, steps = 0;

	if (MAXBACKTRACE <= 0)
		return 0;
	if (c->regs && user_mode(c->regs))
		return 0;
	if (c->regs) {
		if (!c->regs->ip)
			return 0;
		n++;
		if (!fn(data, c->regs->ip))
			return n;
		/* from regs, the unwinder starts at the caller's frame */
		unwind_start(&state, current, c->regs, NULL);
	} else {
		phase = 0;
		unwind_start(&state, current, NULL, NULL);
	}
	/* skipped frames count too: the walk is bounded whatever it meets */
	for (; !unwind_done(&state) && n < MAXBACKTRACE &&
	     steps++ < MAXBACKTRACE + 64; unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (phase < 2) {
			if (stp_addr_in_self(addr)) {
				phase = 1;
				continue;
			}
			if (phase == 0)
				continue;
			phase = 2;
		}
		n++;
		if (!fn(data, addr))
			break;
	}
	return n;
}

struct stp_stack_nth {
	int want;		/* frame index wanted */
	int seen;
	unsigned long addr;	/* 0 until found */
};

static bool stp_stack_nth_frame(void *data, unsigned long addr)
{
	struct stp_stack_nth *d = data;

	if (d->seen++ == d->want) {
		d->addr = addr;
		return false;
	}
	return true;
}

/* The address of frame n (0: the probe point), 0 past the stack's end. */
static unsigned long __maybe_unused stp_stack_get(struct stp_context *c,
						  int64_t n)
{
	struct stp_stack_nth d = { .want = (int)n };

	if (n < 0 || n >= MAXBACKTRACE)
		return 0;
	stp_stack_walk(c, stp_stack_nth_frame, &d);
	return d.addr;
}

/* The parts of a symbol lookup; name and mod point into buf. */
struct stp_sym {
	char buf[KSYM_SYMBOL_LEN];
	const char *name;
	const char *mod;	/* "kernel" for the kernel's own symbols */
	unsigned long offset, size;
};

/* Look addr up; false (nothing set) when no symbol covers it. */
static bool __maybe_unused stp_sym_lookup(unsigned long addr,
					  struct stp_sym *sym)
{
	char *plus, *slash, *bracket, *end;

	sprint_symbol(sym->buf, addr);
	/* "name+0xoff/0xsize" or "name+0xoff/0xsize [mod]"; "0x..." if
	 * unknown. '+' and '/' never occur in symbol names. */
	bracket = strstr(sym->buf, " [");
	if (bracket)
		*bracket = '\0';
	plus = strrchr(sym->buf, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!plus || !slash || plus == sym->buf)
		return false;
	*plus = '\0';
	*slash = '\0';
	if (kstrtoul(plus + 1, 16, &sym->offset) ||
	    kstrtoul(slash + 1, 16, &sym->size))
		return false;
	sym->name = sym->buf;
	if (sym->name[0] == '.')	/* as SystemTap: ppc64 dot symbols */
		sym->name++;
	sym->mod = "kernel";
	if (bracket) {
		sym->mod = bracket + 2;
		end = strchr(bracket + 2, ']');
		if (end)
			*end = '\0';
		end = strchr(bracket + 2, ' ');	/* a build ID after it */
		if (end)
			*end = '\0';
	}
	return true;
}

/*
 * The function that hit the tracepoint whose callback runs the probe: the
 * first frame past the module's own and past the tracepoint's iterator
 * (__traceiter_NAME, which the static call reaches when more than one
 * callback is registered), i.e. the return address in the function whose
 * trace_NAME() call (inlined there) ran the callbacks. 0 when the stack
 * ends first, or when the probe has registers (not a tracepoint).
 */
static bool stp_stack_tp_caller_frame(void *data, unsigned long addr)
{
	struct stp_sym sym;

	if (stp_sym_lookup(addr, &sym) &&
	    !strncmp(sym.name, "__traceiter_", 12))
		return true;
	*(unsigned long *)data = addr;
	return false;
}

static unsigned long __maybe_unused
stp_stack_tp_caller(struct stp_context *c)
{
	unsigned long addr = 0;

	if (c->regs)
		return 0;
	stp_stack_walk(c, stp_stack_tp_caller_frame, &addr);
	return addr;
}

/* SystemTap's symbol formats (runtime/sym.h _STP_SYM_*). */
enum stp_sym_style {
	STP_SYM_NAME,	/* symname(): "vfs_read" */
	STP_SYM_DATA,	/* symdata(): "vfs_read+0x0/0x1a0 [kernel]" */
	STP_SYM_FULL,	/* print_backtrace(): " 0xADDR : vfs_read+0x0/0x1a0
			 * [kernel]\n" */
	STP_SYM_SIMPLE,	/* sprint_backtrace(): "vfs_read+0x0 [kernel]\n" */
};

/*
 * Write addr in style into out (size bytes, NUL-terminated, truncated);
 * an address without a symbol is its hex value, "0x0" for 0 (SystemTap's
 * %p). Returns the length it needed, as snprintf.
 */
static noinline int __maybe_unused stp_sym_format(char *out, size_t size,
						  unsigned long addr,
						  enum stp_sym_style style)
{
	/* KSYM_SYMBOL_LEN bytes on the stack, as printk's %pS has them */
	struct stp_sym symbuf, *sym = &symbuf;
	int n;

	if (!stp_sym_lookup(addr, sym)) {
		switch (style) {
		case STP_SYM_FULL:
			return snprintf(out, size, " 0x%lx\n", addr);
		case STP_SYM_SIMPLE:
			return snprintf(out, size, "0x%lx\n", addr);
		default:
			return snprintf(out, size, "0x%lx", addr);
		}
	}
	switch (style) {
	case STP_SYM_NAME:
		n = snprintf(out, size, "%s", sym->name);
		break;
	case STP_SYM_DATA:
		n = snprintf(out, size, "%s+0x%lx/0x%lx [%s]", sym->name,
			     sym->offset, sym->size, sym->mod);
		break;
	case STP_SYM_FULL:
		n = snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx [%s]\n", addr,
			     sym->name, sym->offset, sym->size, sym->mod);
		break;
	default:
		n = snprintf(out, size, "%s+0x%lx [%s]\n", sym->name,
			     sym->offset, sym->mod);
		break;
	}
	return n;
}

/* The module name of addr ("kernel" for the kernel); false if unknown. */
static noinline bool __maybe_unused stp_sym_module(char *out, size_t size,
						   unsigned long addr)
{
	struct stp_sym sym;

	if (!stp_sym_lookup(addr, &sym))
		return false;
	strscpy(out, sym.mod, size);
	return true;
}

/* A string of whole pieces, never more than MAXSTRINGLEN - 1 bytes. */
struct stp_stack_str {
	char *out;
	size_t len;
	enum stp_sym_style style;
	bool hex;		/* "0xADDR " pieces, no lookup */
	int frames;		/* frames written */
	int limit;		/* stop after this many */
	bool cut;		/* a piece did not fit */
};

/* "0x%lx " without vsnprintf: backtrace() is meant to be cheap. */
static int stp_hex_piece(char *out, size_t room, unsigned long addr)
{
	char digits[16];
	int n = 0, len;

	do {
		digits[n++] = hex_asc[addr & 0xf];
		addr >>= 4;
	} while (addr);
	len = n + 3;
	if ((size_t)len >= room)
		return len;
	*out++ = '0';
	*out++ = 'x';
	while (n)
		*out++ = digits[--n];
	*out++ = ' ';
	*out = '\0';
	return len;
}

static bool stp_stack_str_frame(void *data, unsigned long addr)
{
	struct stp_stack_str *d = data;
	size_t room = MAXSTRINGLEN - d->len;
	int n;

	if (d->hex)
		n = stp_hex_piece(d->out + d->len, room, addr);
	else
		n = stp_sym_format(d->out + d->len, room, addr, d->style);
	if (n < 0 || (size_t)n >= room) {
		d->out[d->len] = '\0';	/* drop the piece that did not fit */
		d->cut = true;
		return false;
	}
	d->len += n;
	return ++d->frames < d->limit;
}

/*
 * backtrace(): "0xADDR 0xADDR ... " (each followed by a space, as
 * SystemTap prints them); with symbols, sprint_backtrace()'s lines.
 */
static void __maybe_unused stp_stack_sprint(struct stp_context *c, char *out,
					    bool symbols)
{
	struct stp_stack_str d = {
		.out = out, .style = STP_SYM_SIMPLE, .hex = !symbols,
		.limit = MAXBACKTRACE,
	};

	out[0] = '\0';
	stp_stack_walk(c, stp_stack_str_frame, &d);
}

/* The most frames sprint_folded() reads from a string of addresses. */
#define STP_FOLD_FRAMES 128

/*
 * sprint_folded(stk): the names of stk's addresses (hex, separated by
 * spaces, innermost first, as backtrace() gives them) outermost first,
 * joined by ';', the folded form flame graph tools read. Whole names
 * only: when out (size bytes) is full, the innermost frames are left
 * out, so stacks still merge from the root.
 */
static noinline void __maybe_unused stp_stack_fold(char *out, size_t size,
						   const char *stk)
{
	unsigned long addrs[STP_FOLD_FRAMES];
	char name[KSYM_NAME_LEN + 24];
	size_t len = 0;
	int n = 0;

	out[0] = '\0';
	while (*stk && n < STP_FOLD_FRAMES) {
		char *end;

		while (*stk == ' ')
			stk++;
		if (!*stk)
			break;
		addrs[n] = simple_strtoul(stk, &end, 16);
		if (end == stk)
			break;		/* not an address: stop there */
		n++;
		stk = end;
	}
	while (n-- > 0) {
		int k = stp_sym_format(name, sizeof(name), addrs[n],
				       STP_SYM_NAME);
		size_t need = (size_t)k + (len ? 1 : 0);

		if (k <= 0 || (size_t)k >= sizeof(name) || len + need >= size)
			break;
		if (len)
			out[len++] = ';';
		memcpy(out + len, name, (size_t)k + 1);
		len += (size_t)k;
	}
}

/*
 * callers(n): frames 0..n (all for n == -1) in hex, separated by
 * spaces; false when the stack ends before frame n.
 */
static bool __maybe_unused stp_stack_callers(struct stp_context *c,
					     char *out, int64_t n)
{
	struct stp_stack_str d = {
		.out = out, .hex = true, .limit = MAXBACKTRACE,
	};

	out[0] = '\0';
	if (n < -1)		/* no level asked for, as SystemTap's loop */
		return true;
	if (n >= 0 && n < MAXBACKTRACE)
		d.limit = n + 1;
	stp_stack_walk(c, stp_stack_str_frame, &d);
	if (d.len && out[d.len - 1] == ' ')
		out[--d.len] = '\0';
	return n < 0 || d.cut || d.frames == d.limit;
}

static noinline bool stp_stack_print_frame(void *data, unsigned long addr)
{
	struct stp_context *c = data;
	struct stp_sym sym;

	if (stp_sym_lookup(addr, &sym))
		stp_printf(c, " 0x%lx : %s+0x%lx/0x%lx [%s]\n", addr,
			   sym.name, sym.offset, sym.size, sym.mod);
	else
		stp_printf(c, " 0x%lx\n", addr);
	return true;
}

/* print_backtrace(): one " 0xADDR : name+0xoff/0xsize [mod]" line each. */
static void __maybe_unused stp_stack_print(struct stp_context *c)
{
	stp_stack_walk(c, stp_stack_print_frame, c);
}

#endif /* STP_STACK_C */
