// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness for passes 1-3: each input is parsed, elaborated
 * against the tapset library and the target kernel's catalogs (pass 2),
 * and translated to C (pass 3, written to /dev/null). Errors are the
 * expected outcome for most inputs; a crash, a sanitizer report, a hang or
 * unbounded memory is a finding. Run with tests/fuzz/run.sh SECONDS compile.
 *
 * Random bytes rarely get past the parser, so the mutator works on
 * tokens (structure-aware): it splits the input as the language would
 * (names, numbers, strings, operators, whitespace) and replaces, deletes,
 * duplicates or swaps tokens, inserts a fragment of the language (a
 * statement, a probe point, a context value), or copies a bracketed
 * region, so that most mutants still parse and reach passes 2 and 3.
 * One time in four it leaves the bytes to libFuzzer's own mutator.
 *
 * The kernel target (its catalogs are costly to load) lives for the whole
 * run; everything else is per input.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module/codegen.h"
#include "lib/files.h"
#include "parser/parser.h"
#include "semantic/library.h"
#include "semantic/semantic.h"
#include "target/target.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1,
				 const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed);

#ifndef FUZZ_TAPSETS
#define FUZZ_TAPSETS "tapsets"
#endif
#ifndef FUZZ_RELEASE
#define FUZZ_RELEASE "6.1.0-56-cloud-amd64"
#endif

static struct target *kernel;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s;
	char *text = fuzz_session(&s, data, size);
	const char *tapsets[] = { FUZZ_TAPSETS };

	s.guru = size > 0 && data[0] == '#';	/* embedded C now and then */
	s.release = getenv("FUZZ_RELEASE") ? getenv("FUZZ_RELEASE")
					   : FUZZ_RELEASE;
	if (!kernel)
		kernel = target_new(s.release, NULL);
	s.target = kernel;
	s.build_dir = kernel->build_dir;
	s.tapset_dirs = tapsets;
	s.ntapset_dirs = 1;

	FILE *devnull = fopen("/dev/null", "w");
	FILE *saved = stderr;
	stderr = devnull;

	library_load_macros(&s);
	struct library lib;
	library_load(&s, &lib, cache_dir(&s.arena));
	struct ast_file **files = arena_alloc(&s.arena, 2 * sizeof(*files));
	int nfiles = 1;
	int fid = session_add_source(&s, "<fuzz>", text, size, false);
	files[0] = parse_source(&s, fid);
	if (!s.nerrors)
		library_resolve(&s, &lib, &files, &nfiles);
	struct program prog;
	if (!s.nerrors && !sema_run(&s, files, nfiles, &prog))
		codegen_module(&s, &prog, "stap_fuzz", devnull);

	stderr = saved;
	fclose(devnull);
	s.target = NULL;		/* kept for the next input */
	session_free(&s);
	free(text);
	return 0;
}

/* The structure-aware mutator */

static unsigned int rng;

static unsigned int next_random(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static size_t pick(size_t n)
{
	return n ? next_random() % n : 0;
}

/* Language fragments a mutation may insert: tokens and small phrases. */
static const char *const fragments[] = {
	"probe", "global", "function", "private", "if", "else", "for",
	"foreach", "while", "in", "limit", "next", "break", "continue",
	"return", "delete", "try", "catch", "%{ 1 %}", "%( $# > 0 %? 1 %: 2 %)",
	"@define m(a) %( a + 1 %)", "@m(2)", "@entry($fd)", "@defined($x)",
	"@cast(0, \"task_struct\")->pid", "@choose_defined($a, 1)",
	"@count(s)", "@sum(s)", "@avg(s)", "@min(s)", "@max(s)",
	"@variance(s)", "@hist_log(s)", "@hist_linear(s, 0, 10, 2)",
	"$$parms", "$$vars$", "$$locals", "$$return", "$return", "$prev->pid",
	"$next->comm$", "$fd", "&$x", "$x[0]", "@1", "$1", "$#",
	"begin", "end", "error", "never", "timer.ms(10)", "timer.profile",
	"timer.s(1).randomize(1)", "kernel.trace(\"sched:sched_switch\")",
	"kernel.trace(\"sched:*\")", "kernel.function(\"vfs_read\")",
	"kernel.function(\"vfs_read\").return", "kernel.function(\"vfs_*\").call",
	"kernel.statement(\"vfs_read@fs/read_write.c:*\")",
	"syscall.read", "syscall.*.return", "vfs.read", "scheduler.cpu_on",
	"procfs(\"f\").read", "procfs.write", "process.begin", "perf.hw.cpu_cycles",
	"probe begin { }", "probe end { exit() }",
	"global a[10], s, n = 1;", "function f(x) { return x * 2 }",
	"function g:string(s:string) { return s . \"x\" }",
	"a[k] = 1;", "a[k, \"s\"] <<< 1;", "s <<< n;", "n++;", "--n;",
	"foreach ([k] in a- limit 3) { println(k) }",
	"foreach (v = [k, j] in a) { }", "delete a[1];", "delete a;",
	"printf(\"%d %s %-5x %p\\n\", 1, \"s\", n, 0);", "print(@hist_log(s));",
	"println(sprintf(\"%*d\", 3, 4));", "exit();", "error(\"e\");",
	"try { error(\"x\") } catch (e) { println(e) }",
	"x = (1 ? \"a\" : \"b\") . \"c\";", "n = 1 + 2 * 3 << 4 % 5;",
	"if (k in a) n--;", "while (n < 3) { n++ }", "for (i = 0; i < 3; i++) { }",
	"pid()", "execname()", "tid()", "cpu()", "gettimeofday_ns()",
	"backtrace()", "print_backtrace()", "probefunc()", "pp()", "ppfunc()",
	"user_mode()", "kernel_string($filename)", "@json_print(a)",
	"{", "}", "(", ")", "[", "]", ",", ";", ":", "?", "=", "+=", "<<<",
	"==", "!=", "<", ">=", "&&", "||", "!", "~", ".", "->", "0", "-1",
	"0x7fffffffffffffff", "-9223372036854775808", "\"\"", "\"%s\"",
};

enum { MAX_TOKENS = 4096 };

struct tokens {
	size_t start[MAX_TOKENS], len[MAX_TOKENS];
	size_t n;
};

/* Split as the lexer would, roughly: enough to keep phrases whole. */
static void tokenize(const uint8_t *d, size_t size, struct tokens *t)
{
	size_t i = 0;

	t->n = 0;
	while (i < size && t->n < MAX_TOKENS) {
		size_t j = i + 1;
		if (isspace(d[i])) {
			while (j < size && isspace(d[j]))
				j++;
		} else if (isalnum(d[i]) || d[i] == '_' || d[i] == '$' ||
			   d[i] == '@') {
			while (j < size && (isalnum(d[j]) || d[j] == '_' ||
					    d[j] == '$'))
				j++;
		} else if (d[i] == '"') {
			while (j < size && d[j] != '"' && d[j] != '\n')
				j += d[j] == '\\' ? 2 : 1;
			j = j < size ? j + 1 : size;
		} else if (strchr("<>=!+-*/%&|^.", d[i])) {
			while (j < size && j - i < 3 &&
			       strchr("<>=!+-*/%&|^.", d[j]))
				j++;
		}
		t->start[t->n] = i;
		t->len[t->n] = j - i;
		t->n++;
		i = j;
	}
}

/* Replace d[at, at+old) with the bytes rep[0, rlen); returns the size. */
static size_t splice_bytes(uint8_t *d, size_t size, size_t max, size_t at,
			   size_t old, const uint8_t *rep, size_t rlen)
{
	if (size - old + rlen > max)
		return size;
	memmove(d + at + rlen, d + at + old, size - at - old);
	if (rlen)
		memcpy(d + at, rep, rlen);
	return size - old + rlen;
}

/* The token index closing the bracket opened at token i, or i. */
static size_t closing(const uint8_t *d, const struct tokens *t, size_t i)
{
	char open = (char)d[t->start[i]];
	char close = open == '{' ? '}' : open == '(' ? ')' : open == '[' ? ']' : 0;
	int depth = 0;

	if (!close || t->len[i] != 1)
		return i;
	for (size_t k = i; k < t->n; k++) {
		if (t->len[k] != 1)
			continue;
		if (d[t->start[k]] == open)
			depth++;
		else if (d[t->start[k]] == close && --depth == 0)
			return k;
	}
	return i;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	static struct tokens t;
	uint8_t *copy;

	rng = seed;
	if (pick(4) == 0 || size == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	tokenize(data, size, &t);
	if (t.n == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	size_t i = pick(t.n), j = pick(t.n);
	const char *frag = fragments[pick(sizeof(fragments) /
					  sizeof(fragments[0]))];
	size_t flen = strlen(frag);

	switch (pick(6)) {
	case 0:		/* replace a token by a fragment */
		return splice_bytes(data, size, max_size, t.start[i], t.len[i],
				    (const uint8_t *)frag, flen);
	case 1:		/* insert a fragment before a token, spaced */
		if (size + flen + 1 > max_size)
			return size;
		size = splice_bytes(data, size, max_size, t.start[i], 0,
				    (const uint8_t *)" ", 1);
		return splice_bytes(data, size, max_size, t.start[i], 0,
				    (const uint8_t *)frag, flen);
	case 2:		/* delete a token, or a bracketed region */
		j = closing(data, &t, i);
		return splice_bytes(data, size, max_size, t.start[i],
				    t.start[j] + t.len[j] - t.start[i], NULL, 0);
	case 3:		/* duplicate a token or bracketed region after itself */
		j = closing(data, &t, i);
		size_t len = t.start[j] + t.len[j] - t.start[i];
		copy = malloc(len);
		memcpy(copy, data + t.start[i], len);
		size = splice_bytes(data, size, max_size, t.start[j] + t.len[j],
				    0, copy, len);
		free(copy);
		return size;
	case 4:		/* copy token j over token i */
		copy = malloc(t.len[j]);
		memcpy(copy, data + t.start[j], t.len[j]);
		size = splice_bytes(data, size, max_size, t.start[i], t.len[i],
				    copy, t.len[j]);
		free(copy);
		return size;
	default:	/* a number token becomes an extreme one */
		for (size_t k = 0; k < t.n; k++) {
			size_t m = (i + k) % t.n;
			if (isdigit(data[t.start[m]])) {
				static const char *const nums[] = {
					"0", "1", "-1", "65536", "2147483648",
					"9223372036854775807", "0xffffffffffffffff",
				};
				const char *num = nums[pick(7)];
				return splice_bytes(data, size, max_size,
						    t.start[m], t.len[m],
						    (const uint8_t *)num,
						    strlen(num));
			}
		}
		return LLVMFuzzerMutate(data, size, max_size);
	}
}

/* Crossover: the first input up to one of its tokens, the second input
 * from one of its tokens on (probes and statements are exchanged). */
size_t LLVMFuzzerCustomCrossOver(const uint8_t *d1, size_t s1,
				 const uint8_t *d2, size_t s2, uint8_t *out,
				 size_t max_out, unsigned int seed)
{
	static struct tokens t1, t2;

	rng = seed;
	tokenize(d1, s1, &t1);
	tokenize(d2, s2, &t2);
	size_t a = t1.n ? t1.start[pick(t1.n)] : 0;
	size_t b = t2.n ? t2.start[pick(t2.n)] : 0;
	size_t n = a + (s2 - b);

	if (n > max_out)
		n = max_out;
	memcpy(out, d1, a < n ? a : n);
	if (n > a)
		memcpy(out + a, d2 + b, n - a);
	return n;
}
