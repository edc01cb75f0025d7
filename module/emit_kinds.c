// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel module's emitters, one per attach kind (semantic/attach.h):
 * the one list of them. Every kind has one.
 */
#include "module/emit.h"

extern const struct kind_emit emit_once, emit_timer, emit_procfs,
	emit_tracepoint, emit_kfunc, emit_uprobe, emit_perf, emit_hwbkpt,
	emit_netfilter, emit_process;

const struct kind_emit *const kind_emitters[ATTACH_NKINDS] = {
	[ATTACH_ONCE] = &emit_once,
	[ATTACH_TIMER] = &emit_timer,
	[ATTACH_PROCFS] = &emit_procfs,
	[ATTACH_TRACEPOINT] = &emit_tracepoint,
	/* entry and return share one emitter: one table of support C */
	[ATTACH_KFUNC_ENTRY] = &emit_kfunc,
	[ATTACH_KFUNC_RETURN] = &emit_kfunc,
	[ATTACH_UPROBE] = &emit_uprobe,
	[ATTACH_PERF] = &emit_perf,
	[ATTACH_HWBKPT] = &emit_hwbkpt,
	[ATTACH_NETFILTER] = &emit_netfilter,
	[ATTACH_PROCESS] = &emit_process,
};

/* Tracepoints first: one this kernel lacks fails the session before
 * anything runs. */
const struct kind_emit *const kind_arm_order[] = {
	&emit_tracepoint, &emit_timer, &emit_kfunc, &emit_uprobe,
	&emit_procfs, &emit_perf, &emit_hwbkpt, &emit_netfilter,
	&emit_process,
	NULL,
};

static const char *no_entry(const struct derived_probe *dp)
{
	(void)dp;
	return NULL;
}

/* a kind without an emitter never reaches pass 3 (pass 2 refuses its
 * points): no table entry, no hooks */
static const struct kind_emit emit_none = { .probe_type = no_entry };

const struct kind_emit *emit_of(const struct derived_probe *dp)
{
	const struct kind_emit *e = kind_emitters[dp->attach.kind];

	return e ? e : &emit_none;
}

const char *return_cast(const struct cg *cg, enum attach_kind kind,
			void (*ret_of)(const struct attach *at, unsigned *size,
				       bool *is_signed))
{
	unsigned size = 0, sz;
	bool is_signed = false, sg, first = true;

	for (int i = 0; i < cg->prog->nprobes; i++) {
		const struct derived_probe *d = cg->prog->probes[i];

		if (d->body != context_body(cg->scope) || d->attach.kind != kind)
			continue;
		ret_of(&d->attach, &sz, &sg);
		if (first) {
			size = sz;
			is_signed = sg;
			first = false;
		} else if (sz != size || sg != is_signed) {
			return "";
		}
	}
	switch (size) {
	case 1: return is_signed ? "(s8)" : "(u8)";
	case 2: return is_signed ? "(s16)" : "(u16)";
	case 4: return is_signed ? "(s32)" : "(u32)";
	default: return "";
	}
}
