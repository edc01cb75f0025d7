// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * User stacks and symbols (the ucontext tapsets): the current task's
 * stack unwound with the CFI rows of the objects the module carries
 * (stp_uobjs[], module/unwind.c writes them before this file), so
 * programs built without frame pointers unwind; addresses named with
 * those objects' symbols. An address is placed in an object through
 * the task's mapping of the file (its VMA, under mmap_read_trylock: a
 * probe never sleeps, and a busy mm ends the walk there).
 *
 * Formats are SystemTap's (_stp_snprint_addr): print_ubacktrace()'s
 * " 0xADDR : name+0xoff/0xsize [/path/obj]", sprint_ubacktrace()'s
 * "name+0xoff [obj]", an address in a known object without a symbol
 * " 0xADDR [/path/obj+0xoff]", an unknown one " 0xADDR".
 *
 * The walk stops at MAXBACKTRACE frames, at a return address of 0, at a
 * pc outside the objects or their rows, at a read that faults, and in
 * hard interrupt context after the first frame (no mm lock there).
 */
#ifndef STP_USTACK_C
#define STP_USTACK_C

#ifndef MAXBACKTRACE
#define MAXBACKTRACE 20		/* as stack.c: -DMAXBACKTRACE=N */
#endif

struct stp_uloc {
	const struct stp_uobj *obj;	/* one of the module's, or NULL */
	unsigned long rel;		/* obj: the link-time address; else
					 * the offset from the file's first
					 * mapping */
	unsigned long span;		/* no obj: that mapping's extent */
	char *path;			/* no obj: the file's path (in buf) */
	/* obj: the VMA's range and rel = pc - bias in it */
	unsigned long vm_start, vm_end, bias;
};

/* The start and extent of the file's mapping vma belongs to: from its
 * page 0 mapping through the file's (and the bss after them) as the
 * dynamic loader reserved them, in one piece. */
static void stp_umap_extent(struct mm_struct *mm, struct vm_area_struct *vma,
			    unsigned long *start, unsigned long *span)
{
	struct inode *inode = file_inode(vma->vm_file);
	unsigned long base = vma->vm_start - (vma->vm_pgoff << PAGE_SHIFT);
	struct vm_area_struct *v = vma_lookup(mm, base);
	unsigned long end = vma->vm_end;

	*start = base;
	if (!v || !v->vm_file || file_inode(v->vm_file) != inode) {
		*start = vma->vm_start;
		*span = vma->vm_end - vma->vm_start;
		return;
	}
	for (;;) {
		struct vm_area_struct *next = find_vma(mm, v->vm_end);

		end = v->vm_end;
		if (!next || next->vm_start != v->vm_end ||
		    (next->vm_file && file_inode(next->vm_file) != inode) ||
		    (!next->vm_file && v->vm_file == NULL))
			break;
		v = next;
	}
	*span = end - base;
}

/*
 * Where pc is in mm's mappings (its lock held): 1 in one of the module's
 * objects (loc->obj, loc->rel), 2 in another file (loc->path in buf,
 * loc->rel from its start, loc->span), 0 nowhere known.
 */
static int stp_uaddr_locked(struct mm_struct *mm, unsigned long pc,
			    struct stp_uloc *loc, char *buf, size_t size)
{
	struct vm_area_struct *vma = vma_lookup(mm, pc);
	struct inode *inode;

	loc->obj = NULL;
	if (!vma || !vma->vm_file)
		return 0;
	inode = file_inode(vma->vm_file);
	for (unsigned int i = 0; i < stp_nuobjs; i++) {
		const struct stp_uobj *o = &stp_uobjs[i];

		if (!o->path || inode->i_ino != o->ino ||
		    i_size_read(inode) != o->size)
			continue;
		loc->obj = o;
		/* a shared object's segments map the file at the addresses
		 * it was linked for, from 0 */
		loc->bias = o->dyn ? vma->vm_start -
			    (vma->vm_pgoff << PAGE_SHIFT) : 0;
		loc->rel = pc - loc->bias;
		loc->vm_start = vma->vm_start;
		loc->vm_end = vma->vm_end;
		return 1;
	}
	if (buf) {
		unsigned long start;
		char *p = d_path(&vma->vm_file->f_path, buf, size);

		if (!IS_ERR(p)) {
			stp_umap_extent(mm, vma, &start, &loc->span);
			loc->path = p;
			loc->rel = pc - start;
			return 2;
		}
	}
	return 0;
}

/* current's mm, locked for reading (never waiting), or NULL. */
static struct mm_struct *stp_umm_lock(void)
{
	struct mm_struct *mm = current->mm;

	if (!mm || (current->flags & PF_KTHREAD) || in_hardirq() || in_nmi() ||
	    !mmap_read_trylock(mm))
		return NULL;
	return mm;
}

/* stp_uaddr_locked() in current's mappings. */
static int stp_uaddr_find(unsigned long pc, struct stp_uloc *loc, char *buf,
			  size_t size)
{
	struct mm_struct *mm = stp_umm_lock();
	int found;

	loc->obj = NULL;
	if (!mm)
		return 0;
	found = stp_uaddr_locked(mm, pc, loc, buf, size);
	mmap_read_unlock(mm);
	return found;
}

/* The row covering rel (rows are sorted by pc), or NULL. */
static const struct stp_urow *stp_urow_at(const struct stp_uobj *o,
					  unsigned long rel)
{
	unsigned int lo = 0, hi = o->nrows;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (o->rows[mid].pc <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || o->rows[lo - 1].cfa_reg == 255)
		return NULL;
	return &o->rows[lo - 1];
}

/* The function symbol containing rel (or the nearest below, when its
 * size is 0), or NULL. */
static const struct stp_usym *stp_usym_at(const struct stp_uobj *o,
					  unsigned long rel)
{
	unsigned int lo = 0, hi = o->nsyms;
	const struct stp_usym *s;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (o->syms[mid].addr <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &o->syms[lo - 1];
	if (s->size && rel >= s->addr + s->size)
		return NULL;
	return s;
}

/* The line table row covering rel (line 0: none), or NULL. */
static const struct stp_line *stp_uline_at(const struct stp_uobj *o,
					    unsigned long rel)
{
	unsigned int lo = 0, hi = o->nlines;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (o->lines[mid].addr <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !o->lines[lo - 1].line)
		return NULL;
	return &o->lines[lo - 1];
}

/* The user registers of the probe: the interrupted ones when it hit in
 * user mode, else those saved when current entered the kernel. */
static struct pt_regs *stp_user_regs(struct stp_context *c)
{
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	if (c->regs && user_mode(c->regs))
		return c->regs;
	return task_pt_regs(current);
}

/* A walk that reached a file the module has no tables for says so,
 * once per run, as SystemTap does. */
static void stp_ustack_missing(struct stp_context *c, unsigned long pc)
{
	static atomic_t warned = ATOMIC_INIT(0);
	struct stp_uloc loc;
	char buf[256], msg[320];

	if (atomic_read(&warned) ||
	    stp_uaddr_find(pc, &loc, buf, sizeof(buf)) != 2 ||
	    atomic_xchg(&warned, 1))
		return;
	snprintf(msg, sizeof(msg), "Missing unwind data for a module, rerun "
		 "with 'stap -d %s'", loc.path);
	stp_warn(c, msg);
}

/* Up to max return addresses of current's user stack, innermost first
 * (the first is the pc): how many. One lock of the mm for the walk, and
 * frames in the VMA of the frame before need no lookup. */
static noinline int __maybe_unused stp_ustack_walk(struct stp_context *c,
						   unsigned long *pcs, int max)
{
	struct pt_regs *regs = stp_user_regs(c);
	struct stp_uloc loc = { .obj = NULL };
	unsigned long pc, sp, bp, missing = 0;
	struct mm_struct *mm;
	int n = 0;

	if (!regs)
		return 0;
	pc = regs->ip;
	sp = regs->sp;
	bp = regs->bp;
	mm = stp_umm_lock();
	while (n < max) {
		/* a return address may be just past its call's function */
		unsigned long at = n ? pc - 1 : pc;
		const struct stp_urow *row;
		unsigned long cfa, ra;

		pcs[n++] = pc;
		if (!mm)
			break;
		if (loc.obj && at >= loc.vm_start && at < loc.vm_end)
			loc.rel = at - loc.bias;
		else if (stp_uaddr_locked(mm, at, &loc, NULL, 0) != 1) {
			missing = pc;
			break;
		}
		row = stp_urow_at(loc.obj, loc.rel);
		if (!row)
			break;
		cfa = (row->cfa_reg ? bp : sp) + row->cfa_off;
		if (copy_from_user_nofault(&ra, (const void __user *)
					   (cfa + row->ra_off), sizeof(ra)))
			break;
		if (row->fp_off &&
		    copy_from_user_nofault(&bp, (const void __user *)
					   (cfa + row->fp_off), sizeof(bp)))
			break;
		if (!ra || cfa <= sp)
			break;		/* the end, or no progress */
		sp = cfa;
		pc = ra;
	}
	if (mm)
		mmap_read_unlock(mm);
	if (missing)
		stp_ustack_missing(c, missing);
	return n;
}

/* SystemTap's symbol formats for user addresses. */
enum stp_usym_style {
	STP_USYM_NAME,		/* usymname(): "main", or "0xADDR" */
	STP_USYM_DATA,		/* usymdata(): "main+0x26/0x40 [/path/prog]" */
	STP_USYM_FULL,		/* print_ubacktrace(): " 0xADDR : main+0x26/
				 * 0x40 [/path/prog]\n" */
	STP_USYM_SIMPLE,	/* sprint_ubacktrace(): "main+0x26 [prog]\n" */
	STP_USYM_BRIEF,		/* print_ubacktrace_brief(): "main+0x26\n" */
	STP_USYM_FULLER,	/* print_ubacktrace_fileline(): as FULL, with
				 * " at /src/prog.c:12" before the object */
};

static noinline int __maybe_unused stp_usym_format(char *out, size_t size,
						   unsigned long addr,
						   enum stp_usym_style style)
{
	const char *nl = style >= STP_USYM_FULL ? "\n" : "";
	const char *pre = style == STP_USYM_FULL ||
			  style == STP_USYM_FULLER ? " " : "";
	const struct stp_usym *s = NULL;
	const struct stp_line *l = NULL;
	struct stp_uloc loc;
	char buf[256];
	const char *mod, *base;
	int where = stp_uaddr_find(addr, &loc, style == STP_USYM_NAME ||
				   style == STP_USYM_BRIEF ? NULL : buf,
				   sizeof(buf));

	if (where == 1)
		s = stp_usym_at(loc.obj, loc.rel);
	if (where == 1 && style == STP_USYM_FULLER)
		l = stp_uline_at(loc.obj, loc.rel);
	if (!where || (!s && (style == STP_USYM_NAME ||
			      style == STP_USYM_BRIEF)))
		return snprintf(out, size, "%s0x%lx%s", pre, addr, nl);
	mod = where == 1 ? loc.obj->path : loc.path;
	base = where == 1 ? loc.obj->base : kbasename(loc.path);
	if (!s) {
		/* a file without symbols here: its offset (and extent) */
		if (style == STP_USYM_SIMPLE)
			return snprintf(out, size, "0x%lx [%s+0x%lx]\n", addr,
					base, loc.rel);
		return snprintf(out, size, "%s0x%lx [%s+0x%lx/0x%lx]%s", pre,
				addr, mod, loc.rel, where == 1 ?
				loc.obj->span : loc.span, nl);
	}
	switch (style) {
	case STP_USYM_NAME:
		return snprintf(out, size, "%s", s->name);
	case STP_USYM_DATA:
		return snprintf(out, size, "%s+0x%lx/0x%lx [%s]", s->name,
				loc.rel - s->addr, s->size, mod);
	case STP_USYM_FULL:
		return snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx [%s]\n",
				addr, s->name, loc.rel - s->addr, s->size, mod);
	case STP_USYM_BRIEF:
		return snprintf(out, size, "%s+0x%lx\n", s->name,
				loc.rel - s->addr);
	case STP_USYM_FULLER:
		if (l)
			return snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx at "
					"%s:%u [%s]\n", addr, s->name,
					loc.rel - s->addr, s->size,
					loc.obj->files[l->file], l->line, mod);
		return snprintf(out, size, " 0x%lx : %s+0x%lx/0x%lx [%s]\n",
				addr, s->name, loc.rel - s->addr, s->size, mod);
	default:
		return snprintf(out, size, "%s+0x%lx [%s]\n", s->name,
				loc.rel - s->addr, base);
	}
}

/* usymfileline() (file and line), usymfile(), usymline(): the source
 * place of addr as "/src/prog.c:12", "/src/prog.c", "12", from the line
 * table of the object mapped there; else addr in hex. */
enum { STP_ULINE_FILE = 1, STP_ULINE_LINE = 2 };

static int __maybe_unused stp_uline_format(char *out, size_t size,
					   unsigned long addr, int what)
{
	const struct stp_line *l = NULL;
	struct stp_uloc loc;

	if (stp_uaddr_find(addr, &loc, NULL, 0) == 1)
		l = stp_uline_at(loc.obj, loc.rel);
	if (!l)
		return snprintf(out, size, "0x%lx", addr);
	switch (what) {
	case STP_ULINE_FILE:
		return snprintf(out, size, "%s", loc.obj->files[l->file]);
	case STP_ULINE_LINE:
		return snprintf(out, size, "%u", l->line);
	default:
		return snprintf(out, size, "%s:%u", loc.obj->files[l->file],
				l->line);
	}
}

/* umodname(): the path of the file mapped at addr, or false. */
static bool __maybe_unused stp_umodname(char *out, size_t size,
					unsigned long addr)
{
	struct stp_uloc loc;
	char buf[256];

	switch (stp_uaddr_find(addr, &loc, buf, sizeof(buf))) {
	case 1:
		strscpy(out, loc.obj->path, size);
		return true;
	case 2:
		strscpy(out, loc.path, size);
		return true;
	default:
		return false;
	}
}

/* umodaddr(): addr's offset in the file mapping (VMA) holding it, as
 * SystemTap's, which records each mapping of a file apart; false when
 * no file is mapped there. */
static bool __maybe_unused stp_umodaddr(unsigned long addr,
					unsigned long *off)
{
	struct mm_struct *mm = stp_umm_lock();
	struct vm_area_struct *vma;
	bool found = false;

	if (!mm)
		return false;
	vma = vma_lookup(mm, addr);
	if (vma && vma->vm_file) {
		*off = addr - vma->vm_start;
		found = true;
	}
	mmap_read_unlock(mm);
	return found;
}

/* umodbuildid(): the build-id (hex) of the object the module carries
 * that is mapped at addr, or NULL (another file, or no build-id). */
static const char *__maybe_unused stp_umodbuildid(unsigned long addr)
{
	struct stp_uloc loc;

	if (stp_uaddr_find(addr, &loc, NULL, 0) != 1)
		return NULL;
	return loc.obj->build_id;
}

/* "0xADDR" and tail into out (room bytes), without vsnprintf:
 * ubacktrace() is meant to be cheap. Returns the length it needs. */
static int stp_uhex(char *out, size_t room, unsigned long addr,
		    const char *tail)
{
	char digits[16];
	size_t tl = strlen(tail);
	int n = 0, len;

	do {
		digits[n++] = hex_asc[addr & 0xf];
		addr >>= 4;
	} while (addr);
	len = n + 2 + (int)tl;
	if ((size_t)len >= room)
		return len;
	*out++ = '0';
	*out++ = 'x';
	while (n)
		*out++ = digits[--n];
	memcpy(out, tail, tl + 1);
	return len;
}

/*
 * ubacktrace(): "0xADDR 0xADDR ... " (each followed by a space, as the
 * kernel's backtrace()); with style >= 0 the frames' lines in that
 * style (sprint_ubacktrace()); whole pieces only, within MAXSTRINGLEN.
 */
static void __maybe_unused stp_ustack_sprint(struct stp_context *c, char *out,
					     int style)
{
	unsigned long pcs[MAXBACKTRACE];
	int k = stp_ustack_walk(c, pcs, MAXBACKTRACE);
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < k; i++) {
		size_t room = MAXSTRINGLEN - len;
		int w = style < 0 ? stp_uhex(out + len, room, pcs[i], " ") :
			stp_usym_format(out + len, room, pcs[i], style);

		if (w < 0 || (size_t)w >= room) {
			out[len] = '\0';
			break;
		}
		len += (size_t)w;
	}
}

/* ustack(n): frame n's address; false when the stack is shorter. */
static bool __maybe_unused stp_ustack_get(struct stp_context *c, int64_t n,
					  int64_t *addr)
{
	unsigned long pcs[MAXBACKTRACE];
	int k;

	if (n < 0 || n >= MAXBACKTRACE)
		return false;
	k = stp_ustack_walk(c, pcs, (int)n + 1);
	if (k <= n)
		return false;
	*addr = (int64_t)pcs[n];
	return true;
}

/* ucallers(n): frames 0..n (all for n == -1) in hex separated by
 * spaces; false when the stack ends before frame n. */
static bool __maybe_unused stp_ustack_callers(struct stp_context *c,
					      char *out, int64_t n)
{
	unsigned long pcs[MAXBACKTRACE];
	int k = stp_ustack_walk(c, pcs, MAXBACKTRACE);
	size_t len = 0;
	int i;

	out[0] = '\0';
	if (n < -1)
		return true;
	for (i = 0; i < k && (n < 0 || i <= n); i++) {
		size_t room = MAXSTRINGLEN - len;
		int w = 1;

		if (i && room > 1) {
			out[len] = ' ';	/* a separator, then the address */
			w += stp_uhex(out + len + 1, room - 1, pcs[i], "");
		} else {
			w = stp_uhex(out + len, room, pcs[i], "");
		}

		if (w < 0 || (size_t)w >= room) {
			out[len] = '\0';
			return true;	/* cut at MAXSTRINGLEN */
		}
		len += (size_t)w;
	}
	return n < 0 || i > n;
}

/* print_ubacktrace() (and _brief): one line per frame. */
static void __maybe_unused stp_ustack_print(struct stp_context *c, int style)
{
	unsigned long pcs[MAXBACKTRACE];
	int k = stp_ustack_walk(c, pcs, MAXBACKTRACE);
	char line[256];

	for (int i = 0; i < k; i++) {
		stp_usym_format(line, sizeof(line), pcs[i], style);
		stp_printf(c, "%s", line);
	}
}

#endif /* STP_USTACK_C */
