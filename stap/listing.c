// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * -l / -L listings; see listing.h. The catalog is sorted and unique by
 * system:name, so the matches come out in SystemTap's order (a std::map
 * keyed on the printed probe point) without sorting again.
 */
#include "stap/listing.h"

#include <stdlib.h>

int list_tracepoints(const struct tp_catalog *c, const char *pattern,
		     bool with_vars, FILE *out)
{
	const struct tracepoint_info **m;
	int n = tp_catalog_match(c, pattern, &m);

	for (int i = 0; i < n; i++) {
		fprintf(out, "kernel.trace(\"%s:%s\")", m[i]->system,
			m[i]->name);
		if (with_vars)
			for (int a = 0; a < m[i]->nargs; a++)
				fprintf(out, " $%s:%s", m[i]->args[a].name,
					m[i]->args[a].c_type);
		fputc('\n', out);
	}
	free(m);
	return n;
}
