// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for pass 1: parse arbitrary bytes (with three script
 * arguments for $1/@1 pasting), print the tree, and check that the printed
 * form parses again without errors. Run with tests/fuzz/run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parser.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s;
	char *text = fuzz_session(&s, data, size);

	s.release = "6.1.0-56-cloud-amd64";
	FILE *devnull = fopen("/dev/null", "w");
	FILE *saved = stderr;
	stderr = devnull;

	int fid = session_add_source(&s, "<fuzz>", text, size, false);
	struct ast_file *f = parse_source(&s, fid);
	if (s.nerrors == 0) {
		char *out = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&out, &len);
		ast_unparse_file(mem, &s, f);
		fclose(mem);
		/* skip the "# file" line; the rest must parse again */
		char *body = strchr(out, '\n');
		struct ast_file *again = parse_string(&s, "<again>",
						      body ? body + 1 : "", false);
		(void)again;
		if (s.nerrors != 0) {
			stderr = saved;
			fprintf(stderr, "printed form does not parse again:\n%s\n", out);
			abort();
		}
		free(out);
	}
	stderr = saved;
	fclose(devnull);
	session_free(&s);
	free(text);
	return 0;
}
