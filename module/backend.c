// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel-module backend's steps, in the order the driver calls them:
 * prepare (the signing key, the translation units), translate (pass 3:
 * codegen_module, then the module's name from the hash of its C), build
 * (pass 4: the C written into the work directory and built) and run
 * (pass 5). SystemTap calls it the kernel runtime: --runtime=kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/backend.h"
#include "module/build.h"
#include "module/codegen.h"

/* It runs whatever pass 2 accepts: the families refuse what the kernel
 * cannot do themselves (probes/unsupported.c). */
static const char *module_refuses(const struct derived_probe *dp)
{
	(void)dp;
	return NULL;
}

static int module_prepare(struct driver *d)
{
	struct session *s = d->s;

	/* --sign-module: the key, made if needed, is part of the cache key */
	if (d->sign_module && s->last_pass >= 4 && sign_prepare(d))
		return 1;

	/* pass 3 writes as many translation units as pass 4 has CPUs for
	 * (a big module's; STAP_UNITS=N: N whatever the size) */
	const char *units = getenv("STAP_UNITS");
	if (units && *units) {
		char *end;
		long nu = strtol(units, &end, 10);
		if (*end || nu < 1 || nu > 64) {
			fprintf(stderr, "stap: error: STAP_UNITS=%s: not a "
				"number of translation units from 1 to 64\n",
				units);
			return 1;
		}
		s->units = (int)nu;
		s->units_forced = true;
	} else {
		s->units = usable_cpus();
	}
	return 0;
}

static int module_translate(struct driver *d, struct program *prog)
{
	struct session *s = d->s;
	char *csrc = NULL;
	size_t clen = 0;
	FILE *cf = open_memstream(&csrc, &clen);
	/* the name depends on the code: generate with a placeholder first */
	const char *placeholder = "stap_0000000000000000";

	if (!cf)
		return 1;
	codegen_module(s, prog, s->module_name ? s->module_name : placeholder,
		       cf);
	fclose(cf);
	/* input.char/line: a write probe of procfs("__stdin"), which the
	 * loader feeds */
	for (int i = 0; i < prog->nprobes; i++) {
		const struct derived_probe *dp = prog->probes[i];
		if (dp->attach.kind == ATTACH_PROCFS && dp->attach.procfs.write &&
		    !strcmp(dp->attach.procfs.path, "__stdin"))
			d->reads_stdin = true;
	}
	if (s->nerrors) {
		free(csrc);
		return 1;
	}
	if (s->module_name) {
		d->module_name = s->module_name;
	} else {
		unsigned long long h = build_hash(d, csrc, clen);
		d->module_name = arena_printf(&s->arena, "stap_%016llx", h);
		char *p = strstr(csrc, placeholder);
		if (p)
			memcpy(p, d->module_name, strlen(placeholder));
	}
	d->source = csrc;
	d->source_len = clen;
	return 0;
}

static int module_build(struct driver *d)
{
	struct session *s = d->s;
	int rc = write_sources(d, d->source, d->source_len);

	free(d->source);
	d->source = NULL;
	if (rc != 0)
		return 1;
	if (!s->build_dir) {
		fprintf(stderr, "stap: error: no kernel build tree for %s: "
			"install linux-headers-%s\n", s->release, s->release);
		return 1;
	}
	if (build_module(d) != 0) {
		fprintf(stderr, "Pass 4: compilation failed.\n");
		return 1;
	}
	return 0;
}

const struct backend module_backend = {
	.name = "kernel",
	.refuses = module_refuses,
	.prepare = module_prepare,
	.translate = module_translate,
	.build = module_build,
	.run = run_module,
	.translated = "translated to C",
	.built = "compiled C into a kernel module",
};
