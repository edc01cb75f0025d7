// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.data("SYMBOL").write/.rw and kernel.data(ADDRESS)[.length(N)]
 * .write/.rw: a hardware breakpoint (a debug register on every CPU) on
 * kernel data, which runs the probe after each write (or read or write)
 * of the watched bytes (ATTACH_HWBKPT). A symbol comes from the debug
 * vmlinux's symbol table and is watched on its first byte, as SystemTap
 * 4.8 does (.length(1)); its run-time address is the link-time one moved
 * by the kernel's load offset, found through an exported anchor. No
 * context variables.
 */
#include "probes/probes.h"
#include "elf/elf.h"
#include "target/target.h"

/*
 * SYMBOL's link-time address and the anchor's, from the debug vmlinux's
 * symbol table (opened per point: kernel.data points are few); NULL, or
 * the error.
 */
static const char *kernel_symbol(struct sema *se, const char *name,
				 uint64_t *addr, uint64_t *anchor)
{
	struct elf_sym sym, an;
	struct elf_file *ef;
	const char *why = NULL;
	char *e = NULL;

	if (!se->s->target || !se->s->target->debug_vmlinux)
		return "no debug vmlinux of the target kernel is installed";
	ef = elf_file_open(se->s->target->debug_vmlinux, NULL, &e);
	if (!ef) {
		why = arena_strdup(&se->s->arena, e ? e : "unreadable");
		free(e);
		return why;
	}
	if (!elf_file_symbol(ef, name, &sym) || !sym.addr)
		why = arena_printf(&se->s->arena, "no kernel symbol '%s'",
				   name);
	else if (!elf_file_symbol(ef, TARGET_KERNEL_ANCHOR, &an))
		why = "no anchor for the kernel's load offset ("
		      TARGET_KERNEL_ANCHOR ")";
	else {
		*addr = sym.addr;
		*anchor = an.addr;
	}
	elf_file_close(ef);
	return why;
}

static int derive(struct sema *se, struct node *point,
		  struct derived_probe *dp)
{
	struct node *c0 = point->point.comps, *c = c0->next, *len = NULL;
	struct attach_hwbkpt *hb = &dp->attach.hwbkpt;
	struct arena *a = &se->s->arena;

	if (!comp_is(c, "data") || !c->comp.arg)
		return -1;
	struct node *data = c;
	c = c->next;
	if (is_num_arg(data) && comp_is(c, "length")) {
		if (!is_num_arg(c))
			return -1;
		len = c;
		c = c->next;
	}
	if (!c || c->next || c->comp.arg ||
	    (!comp_is(c, "write") && !comp_is(c, "rw")))
		return -1;
	dp->attach.kind = ATTACH_HWBKPT;
	hb->rw = comp_is(c, "rw");
	hb->length = len ? (unsigned)len->comp.arg->num.value : 1;
	if (len && len->comp.arg->num.value != 1 &&
	    len->comp.arg->num.value != 2 && len->comp.arg->num.value != 4 &&
	    len->comp.arg->num.value != 8)
		return point_error(se, point, len->comp.arg, arena_printf(a,
				   "invalid hardware breakpoint length %" PRId64
				   " (1, 2, 4 or 8 bytes)",
				   len->comp.arg->num.value));
	if (is_num_arg(data)) {
		hb->addr = (uint64_t)data->comp.arg->num.value;
		if (hb->addr % hb->length)
			return point_error(se, point, data->comp.arg,
					   arena_printf(a, "hardware breakpoint "
					   "address 0x%" PRIx64 " is not aligned "
					   "to its length (%u)", hb->addr,
					   hb->length));
		dp->pp = arena_printf(a, "kernel.data(0x%" PRIx64 ").length(%u)"
				      ".%s", hb->addr, hb->length,
				      hb->rw ? "rw" : "write");
		/* as written, the address in hex (a point prints numbers
		 * in decimal), as SystemTap 4.8's -p2 shows it */
		if (len)
			dp->pp_from = dp->pp;
		else
			dp->pp_from = arena_printf(a, "kernel.data(0x%" PRIx64
						   ").%s", hb->addr,
						   hb->rw ? "rw" : "write");
		return true;
	}
	if (!is_str_arg(data))
		return -1;
	hb->symbol = data->comp.arg->str.value;
	const char *err = kernel_symbol(se, hb->symbol, &hb->addr,
					&hb->anchor_addr);
	if (err)
		return point_error(se, point, data->comp.arg, arena_printf(a,
				   "cannot resolve kernel.data(\"%s\"): %s",
				   hb->symbol, err));
	hb->anchor_sym = TARGET_KERNEL_ANCHOR;
	dp->pp = arena_printf(a, "kernel.data(\"%s\").length(1).%s",
			      hb->symbol, hb->rw ? "rw" : "write");
	dp->pp_from = point_string(se, point);	/* -l shows it */
	return true;
}

static const char *const roots[] = { "kernel", NULL };
static const char *const probe_types[] = {
	"kernel.data(number).length(number).rw",
	"kernel.data(number).length(number).write",
	"kernel.data(number).rw",
	"kernel.data(number).write",
	"kernel.data(string).rw",
	"kernel.data(string).write",
	NULL,
};

const struct probe_family hwbkpt_family = {
	.point_size = sizeof(struct derived_probe),
	.name = "kernel.data",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
};
