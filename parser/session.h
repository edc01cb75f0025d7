/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of one compilation: options, the arena every pass allocates
 * from, the source registry and the diagnostic counts. The parser is the
 * lowest layer, so the session lives here; every later layer receives it.
 * No compiler state is process-wide: a test may compile many scripts.
 */
#ifndef PARSER_SESSION_H
#define PARSER_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/arena.h"
#include "lib/hashset.h"
#include "target/target.h"

struct backend;

struct srcfile {
	const char *name;	/* as shown in messages: path or "<input>" */
	const char *text;	/* whole file, NUL-terminated */
	size_t len;
	bool privileged;	/* tapset or guru: embedded C allowed */
	/* where each line starts: lines[i] is line i + 1's offset, so a
	 * diagnostic finds its line in O(1) however long the file */
	const size_t *lines;
	int nlines;
};

/* A position in a source file; line and column are 1-based (column in bytes). */
struct srcloc {
	int file;		/* index in session.files, -1 for none */
	int line, col;
	int expansion;		/* 1 + index in session.expansions, or 0 */
};

/* A token that came out of a macro: where the macro was used. */
struct macro_expansion {
	const char *name;	/* without the '@' */
	struct srcloc use;	/* the @NAME token */
};

/*
 * A note shown after each error and warning while it is set (a list,
 * innermost first): pass 2 names the calls that led into a function's
 * copy for one probe, so a message in the function says for which.
 */
struct diag_trail {
	struct srcloc loc;
	const char *text;
	const struct diag_trail *next;
};

struct define_opt {
	const char *name, *value;	/* -D NAME[=VALUE] */
};

struct session {
	struct arena arena;

	struct srcfile *files;	/* source registry, by srcloc.file */
	int nfiles, files_cap;
	struct macro_expansion *expansions;	/* by srcloc.expansion - 1 */
	int nexpansions, expansions_cap;

	int nerrors, nwarnings;
	int max_errors;		/* stop reporting after this many */
	/* hashes of the diagnostics shown: a body copied for each point of
	 * a wildcard (syscall.*) would repeat its message once per copy */
	struct hashset shown;
	const struct diag_trail *trail;	/* notes after each message */

	/* options */
	int last_pass;		/* -pN, 5 by default */
	int verbose;		/* -v count */
	bool guru;		/* -g */
	bool unoptimized;	/* -u */
	bool suppress_warnings;	/* -w */
	bool warnings_as_errors;	/* -W */
	bool errors_are_warnings;	/* while reading library (-I) files */
	bool all_functions;	/* --dump-functions: elaborate every function */
	const char *compatible;	/* --compatible: the SystemTap version emulated */
	/* the preprocessor's runtime: --runtime's name ("kernel", "bpf");
	 * NULL, with no --runtime: "kernel", for which the automatic choice
	 * of backend elaborates every script */
	const char *runtime;
	int buffer_mb;		/* -s: per-CPU output buffer, 0 = default */
	bool timing;		/* -t: per-probe hits and cycles, reported */
	bool format_json;	/* --format=json: the end-of-run display of
				 * globals as JSON lines (display.c) */
	void *library_macros;	/* @define's from *.stpm files (preproc.c) */
	bool keep_tmpdir;	/* -k */
	const char *cache_dir;	/* every cache (lib/files.h cache_dir()),
				 * checked by the driver; NULL: no caches */
	const char *release;	/* -r: target kernel release */
	/* The release's files and catalogs (NULL when no release is known;
	 * owned: session_free() frees it). build_dir is its build tree. */
	struct target *target;
	const char *build_dir;
	const char *module_name;	/* -m, else generated */
	/* pass 3: translation units a big module's C is spread over, to
	 * compile in parallel (the CPUs; 0 or 1: one); units_forced: that
	 * many whatever the size (STAP_UNITS) */
	int units;
	bool units_forced;
	/* pass 3's result: the units it wrote (0: one file, no shared
	 * part) and where each starts in its C, at its "stap: unit" line */
	int units_out;
	long unit_start[64];
	const char *output_file;	/* -o */
	const char *size_option;	/* -S SIZE[,N], as given */
	const char *target_cmd;	/* -c */
	long target_pid;	/* -x, 0 if none */
	/* -d OBJECT: user programs and libraries whose symbols and unwind
	 * tables the module carries (user stacks, usymname ...) */
	const char **unwind_objs;
	int nunwind_objs;
	bool ldd;		/* --ldd: and the libraries they need */
	struct define_opt *defines;	/* -D */
	int ndefines;
	/* -G VAR=VAL: module parameters that set scalar globals at load */
	struct define_opt *global_settings;
	int nglobal_settings;
	const char **include_dirs;	/* -I: more tapset directories */
	int ninclude_dirs;
	const char **tapset_dirs;	/* the library, $SYSTEMTAP_TAPSET, -I */
	int ntapset_dirs;
	/* every public function and alias the library defines ("f:NAME",
	 * "a:A.B"), loaded or not: for "did you mean" */
	const char **library_names;
	int nlibrary_names;
	char **script_args;	/* $1.. and @1.. */
	int nscript_args;
	/* the backend passes 3-5 use, and every backend built in
	 * (NULL-terminated): semantic/backend.h. Pass 2 refuses the probes
	 * the first cannot run, naming one of the others that can; NULL:
	 * no such check */
	const struct backend *backend;
	const struct backend *const *backends;
};

void session_init(struct session *s);
void session_free(struct session *s);

/* Register a source text (copied into the arena); returns its file id. */
int session_add_source(struct session *s, const char *name, const char *text,
		       size_t len, bool privileged);
const struct srcfile *session_file(const struct session *s, int file);

#endif /* PARSER_SESSION_H */
