/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace header reader behind the tracepoint catalog (internal to
 * tracepoints.c): the symbols a header is preprocessed with, and the
 * tracepoints one header defines.
 */
#ifndef TARGET_TP_SCAN_H
#define TARGET_TP_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "target/tracepoints.h"

struct target;

/* One tracepoint as a header defines it; everything xmalloc'ed. */
struct raw_tp {
	char *system, *name, *header, *proto;
	struct tp_arg *args;
	int nargs;
	bool args_ok;
};

/*
 * The preprocessor symbols: the target's .config, plus (after
 * kconfig_predefine) what the compiler and the headers a trace header is
 * compiled with define beyond it, for architecture arch with include
 * roots (the build tree, the source tree).
 */
struct kconfig;
struct kconfig *kconfig_new(struct target *t);
void kconfig_predefine(struct kconfig *k, const char *arch,
		       const char *const *roots, int nroots);
/* The value of symbol name (n bytes), or NULL when undefined. */
const char *kconfig_get(const struct kconfig *k, const char *name, size_t n);
void kconfig_free(struct kconfig *k);

/*
 * The tracepoints the header at path defines, appended to the growable
 * array *tps (*ntps used, *cap allocated); header is the include spelling
 * recorded with each.
 */
void tp_scan_header(const struct kconfig *k, const char *path,
		    const char *header, struct raw_tp **tps, int *ntps,
		    int *cap);

#endif /* TARGET_TP_SCAN_H */
