// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -D NAME=VALUE on the BPF backend. The module backend hands every -D to
 * the compiler of the module, where runtime/defines.h (and the
 * translator's output) read the limits; here each limit the BPF backend
 * has is read from the session by name (bpf_limit) and emitted as a
 * number. A -D the backend cannot honour is never silently dropped:
 * bpf_defines_check says so (an error where the run would differ, a
 * warning where the name has no meaning here), and the automatic choice
 * of a backend (stap/main.c) keeps a script with such a -D off BPF
 * (bpf_defines_refusal).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/bpf.h"
#include "parser/session.h"

/* What each -D name is to this backend. */
enum limit_kind {
	LIMIT_HONOURED,		/* read by bpf_limit: a number */
	LIMIT_FIXED,		/* only its one value (MAXSTRINGLEN) */
	LIMIT_NO_EFFECT,	/* nothing here it could change: a warning */
};

static const struct limit_name {
	const char *name;
	enum limit_kind kind;
	long long value;	/* the default (LIMIT_FIXED: the only one) */
	const char *why;	/* LIMIT_FIXED, LIMIT_NO_EFFECT: the reason */
} limit_names[] = {
	{ "MAXACTION", LIMIT_HONOURED, 1000, NULL },
	/* MAXACTION * 10 unless given (bpf_limit's caller) */
	{ "MAXACTION_INTERRUPTIBLE", LIMIT_HONOURED, -1, NULL },
	{ "MAXMAPENTRIES", LIMIT_HONOURED, 2048, NULL },
	/* the program's own (the deepest call chain) unless given */
	{ "MAXNESTING", LIMIT_HONOURED, -1, NULL },
	{ "MAXERRORS", LIMIT_HONOURED, 0, NULL },
	/* pass 2 reads it (semantic/types.c) for both backends */
	{ "STP_MAX_BUCKETS", LIMIT_HONOURED, 128, NULL },
	{ "MAXSTRINGLEN", LIMIT_FIXED, BPF_STRLEN,
	  "strings are 512 bytes on the bpf backend" },
	{ "MAXBACKTRACE", LIMIT_FIXED, 20,
	  "stacks are at most 20 frames on the bpf backend" },
	{ "MAXSKIPPED", LIMIT_NO_EFFECT, 100,
	  "the bpf backend counts no skipped probe hits" },
	{ "MAXTRYLOCK", LIMIT_NO_EFFECT, 100,
	  "the bpf backend takes no locks" },
	{ "TRYLOCKDELAY", LIMIT_NO_EFFECT, 10,
	  "the bpf backend takes no locks" },
	{ "STP_BUFFER_SIZE", LIMIT_NO_EFFECT, 0,
	  "the bpf backend's output goes through one 1 MiB ring buffer" },
	{ "STP_CTL_BUFFER_SIZE", LIMIT_NO_EFFECT, 0,
	  "the bpf backend's output goes through one 1 MiB ring buffer" },
	{ "STP_PRINT_BUF_SIZE", LIMIT_NO_EFFECT, 0,
	  "the bpf backend's output goes through one 1 MiB ring buffer" },
};

static const struct limit_name *limit_find(const char *name)
{
	for (size_t i = 0; i < sizeof(limit_names) / sizeof(*limit_names); i++)
		if (!strcmp(limit_names[i].name, name))
			return &limit_names[i];
	return NULL;
}

/* The value of -D NAME: "-D NAME" alone is 1, as the compiler reads it. */
static const char *define_text(const struct define_opt *d)
{
	return d->value ? d->value : "1";
}

/* A -D's value as a number (the compiler's forms: 10, 0x10, 010). */
static bool define_number(const struct define_opt *d, long long *out)
{
	const char *v = define_text(d);
	char *end;

	errno = 0;
	*out = strtoll(v, &end, 0);
	return end != v && !*end && !errno;
}

/* The last -D of name (the compiler keeps the last definition), or NULL. */
static const struct define_opt *define_last(const struct session *s,
					    const char *name)
{
	const struct define_opt *d = NULL;

	for (int i = 0; i < s->ndefines; i++)
		if (!strcmp(s->defines[i].name, name))
			d = &s->defines[i];
	return d;
}

long long bpf_limit(const struct session *s, const char *name)
{
	const struct limit_name *l = limit_find(name);
	const struct define_opt *d = define_last(s, name);
	long long v;

	if (d && define_number(d, &v))
		return v;
	if (!strcmp(name, "MAXACTION_INTERRUPTIBLE"))
		return bpf_limit(s, "MAXACTION") * 10;
	return l ? l->value : -1;
}

/* Why -D d cannot run on this backend as on the module's (an error), or
 * NULL; *warn: why it has no effect here (a warning), or NULL. */
static const char *define_problem(struct session *s,
				  const struct define_opt *d,
				  const char **warn)
{
	const struct limit_name *l = limit_find(d->name);
	long long v;

	*warn = NULL;
	if (!l) {
		*warn = "the bpf backend has no embedded C to read it";
		return NULL;
	}
	if (l->kind == LIMIT_NO_EFFECT) {
		*warn = l->why;
		return NULL;
	}
	if (!define_number(d, &v))
		return "the bpf backend takes a number";
	if (l->kind == LIMIT_FIXED && v != l->value)
		return arena_printf(&s->arena, "%s (the kernel backend takes "
				    "any: --runtime=kernel)", l->why);
	if (l->kind == LIMIT_HONOURED && v < 0)
		return "the bpf backend takes a number of 0 or more";
	if (l->kind == LIMIT_HONOURED && v > 0x7fffffff)
		return "the bpf backend takes a number below 2^31";
	if (!strcmp(d->name, "MAXMAPENTRIES") && v == 0)
		return "a BPF map has at least one entry";
	return NULL;
}

const char *bpf_defines_refusal(struct session *s)
{
	for (int i = 0; i < s->ndefines; i++) {
		const struct define_opt *d = &s->defines[i];
		const char *warn, *why = define_problem(s, d, &warn);
		if (why || warn)
			return arena_printf(&s->arena, "-D %s=%s: %s", d->name,
					    define_text(d), why ? why : warn);
	}
	return NULL;
}

int bpf_defines_check(struct session *s)
{
	int rc = 0;

	for (int i = 0; i < s->ndefines; i++) {
		const struct define_opt *d = &s->defines[i];
		const char *warn, *why = define_problem(s, d, &warn);
		if (why) {
			fprintf(stderr, "stap: error: -D %s=%s: %s\n", d->name,
				define_text(d), why);
			rc = 1;
		} else if (warn) {
			fprintf(stderr, "stap: warning: -D %s=%s has no effect: "
				"%s\n", d->name, define_text(d), warn);
		}
	}
	return rc;
}
