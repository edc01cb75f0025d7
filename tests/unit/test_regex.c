// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit test of the regular expression compiler (semantic/regex.c) run by
 * the runtime's own matching loops (runtime/regex.h, compiled here in user
 * space): the search DFA and the submatch program are checked against
 * glibc's regcomp/regexec (REG_EXTENDED) on fixed cases and on random
 * patterns and strings, and invalid patterns must fail with an offset.
 */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/regex.h"
#include "tests/unit/check.h"

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
#define MAXSTRINGLEN 512
#include "runtime/regex.h"

/* The runtime view of a compiled regex. */
static struct stp_regex view(const struct regex *re)
{
	static struct stp_re_inst prog[RX_MAXINSTS];

	for (int i = 0; i < re->ninsts; i++) {
		prog[i].op = re->insts[i].op;
		prog[i].arg = re->insts[i].arg;
		prog[i].x = re->insts[i].x;
		prog[i].y = re->insts[i].y;
	}
	return (struct stp_regex){
		.cls = re->cls, .trans = re->trans, .flags = re->flags,
		.nclasses = (u16)re->nclasses, .prog = prog,
		.sets = &re->sets[0][0], .ninsts = (u16)re->ninsts,
		.ngroups = (u16)re->ngroups,
	};
}

static int failures_shown;

/*
 * Compares one pattern on one string with glibc: the yes/no answer, the
 * whole match, and (when groups) every group's offsets.
 */
static void compare(const char *pat, const char *s, bool groups)
{
	struct regex re;
	const char *err;
	size_t off;
	regex_t g;
	regmatch_t m[RX_MAXGROUPS];
	int out[2 * RX_MAXGROUPS];

	if (regcomp(&g, pat, REG_EXTENDED) != 0)
		return;		/* glibc rejects it: not a comparison */
	check_count++;
	if (regex_compile(&re, pat, strlen(pat), &err, &off) != 0) {
		regfree(&g);
		if (!strcmp(err, "regular expression too complex"))
			return;	/* the DFA cap: a compile error, not a bug */
		check_failures++;
		fprintf(stderr, "compile failed: /%s/: %s\n", pat, err);
		return;
	}
	struct stp_regex v = view(&re);
	long nscratch = regex_scratch_ints(&re);
	int *scratch = malloc((size_t)nscratch * sizeof(int));
	int want = regexec(&g, s, RX_MAXGROUPS, m, 0) == 0;
	int got = stp_re_search(&v, s);
	int got2 = stp_re_exec(&v, s, (int)strlen(s), scratch, out);
	bool bad = got != want || got2 != want;

	if (!bad && want) {
		int ng = groups ? re.ngroups : 1;
		for (int i = 0; i < ng; i++)
			if (out[2 * i] != m[i].rm_so ||
			    out[2 * i + 1] != m[i].rm_eo)
				bad = true;
	}
	if (bad) {
		check_failures++;
		if (failures_shown++ < 20) {
			fprintf(stderr, "/%s/ on \"%s\": glibc %d, dfa %d, "
				"exec %d\n", pat, s, want, got, got2);
			for (int i = 0; want && got2 && i < re.ngroups; i++)
				fprintf(stderr, "  group %d: glibc %d,%d exec "
					"%d,%d\n", i, (int)m[i].rm_so,
					(int)m[i].rm_eo, out[2 * i],
					out[2 * i + 1]);
		}
	}
	CHECK(nscratch == STP_RE_SCRATCH(re.ninsts, re.ngroups));
	free(scratch);
	regex_free(&re);
	regfree(&g);
}

static const char *const patterns[] = {
	"tap", "^tap", "^sys", "[0-9]+\\.[0-9]+$", "xyz", "stem", "^$",
	"^a*$", "colou?r", "-", "^[[:alpha:]]+[[:digit:]]+$",
	"^[[:alpha:]]+", "^(cat|dog)$", "^a{2,3}", "^a{2,3}b",
	"[[:space:]]", "A\\.B", "^[A-Z][a-z]+$", "a[+]b", "a.b",
	"([a-z]+)=([a-z]+)", "^([0-9]{4})-([0-9]{2})-([0-9]{2})$", "(b)(c)",
	"a|b|c", "(a|ab)(c|bcd)", "x*", "(a*)+b", "a{0,2}b",
	"a{3}", "a{2,}", "[^abc]+", "[]a]", "[a-]+", "[^]x]", "$", "^",
	"a$|^b", "(^a|b)c", "(a|b)*abb", "[[:upper:][:digit:]]+",
	"[[:punct:]]", "[[:xdigit:]]+$", "(foo|foobar)(bar)?", "\\(x\\)",
	"(a)|(b)", "((a)(b))?c", "a+?", "(ab|a)(bc|c)?", "[.]",
	"[[:blank:]][[:cntrl:]]?", "..*z", "(x|y|)z", "a{1,3}a{1,3}",
};

static const char *const subjects[] = {
	"", "a", "b", "ab", "abc", "systemtap-4.8", "aaa", "aab", "color",
	"colour", "abc123", "123abc", "cat", "cow", "aaaab", "x y", "xy",
	"A.B", "AxB", "Hello", "hello", "a+b", "key=value; other=thing",
	"2024-06-30", "abcabc", "abcd", "bbabb", "aababb", "foobar", "(x)",
	"x]y", "]", "a-a-", "FOO42", "...", "tab\there", "xz yz z", "ba",
	"bc", "ac", "abbb", "zzz", "a\tb",
};

static void fixed_cases(void)
{
	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		for (size_t j = 0; j < sizeof(subjects) / sizeof(subjects[0]);
		     j++)
			compare(patterns[i], subjects[j], true);
}

/* The differential corpus's group expectations, spelled out. */
static void corpus_groups(void)
{
	struct regex re;
	const char *err;
	size_t off;
	int out[2 * RX_MAXGROUPS], scratch[4096];

	CHECK(regex_compile(&re, "([a-z]+)=([a-z]+)", 17, &err, &off) == 0);
	struct stp_regex v = view(&re);
	CHECK(re.ngroups == 3);
	CHECK(stp_re_exec(&v, "key=value; other=thing", 22, scratch, out));
	CHECK(out[0] == 0 && out[1] == 9 && out[2] == 0 && out[3] == 3 &&
	      out[4] == 4 && out[5] == 9);
	regex_free(&re);
}

/* Random patterns over {a, b} with every operator, random strings. */
static unsigned long rng = 12345;

static unsigned int rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned int)(rng >> 33) % n;
}

static void gen_pattern(char *buf, size_t *len, int depth)
{
	int n = 1 + (int)rnd(3);

	for (int i = 0; i < n && *len < 200; i++) {
		/* no anchors: glibc mishandles ^ inside repeated groups */
		unsigned int k = rnd(depth > 2 ? 5 : 7);
		if (k >= 5)
			k = 7;
		static const char *const atoms[] = {
			"a", "b", ".", "[ab]", "[^a]", "^", "$",
		};
		if (k < 5 || (k < 7 && i > 0 && rnd(4) != 0)) {
			const char *a = atoms[k < 5 ? k : rnd(5)];
			memcpy(buf + *len, a, strlen(a));
			*len += strlen(a);
		} else if (k < 7) {
			buf[(*len)++] = k == 5 ? '^' : '$';
			continue;	/* no repetition of an anchor */
		} else {
			buf[(*len)++] = '(';
			gen_pattern(buf, len, depth + 1);
			if (rnd(3) == 0) {
				buf[(*len)++] = '|';
				gen_pattern(buf, len, depth + 1);
			}
			buf[(*len)++] = ')';
		}
		static const char *const ops[] = {
			"", "", "", "*", "+", "?", "{1,2}", "{2}", "{0,1}",
		};
		const char *op = ops[rnd(9)];
		memcpy(buf + *len, op, strlen(op));
		*len += strlen(op);
	}
}

static void random_cases(void)
{
	char pat[512], s[16];

	for (int i = 0; i < 3000; i++) {
		size_t len = 0;
		gen_pattern(pat, &len, 0);
		pat[len] = '\0';
		for (int j = 0; j < 12; j++) {
			int n = (int)rnd(8);
			for (int k = 0; k < n; k++)
				s[k] = "abc"[rnd(3)];
			s[n] = '\0';
			/* groups: POSIX subexpression rules differ (greedy) */
			compare(pat, s, false);
		}
	}
}

static void bad(const char *pat, const char *msg, size_t want_off)
{
	struct regex re;
	const char *err = NULL;
	size_t off = 99;

	CHECK(regex_compile(&re, pat, strlen(pat), &err, &off) == -1);
	CHECK(err && !strcmp(err, msg));
	CHECK(off == want_off);
	if (!err || strcmp(err, msg) || off != want_off)
		fprintf(stderr, "  /%s/: got %s at %zu\n", pat,
			err ? err : "(none)", off);
}

static void errors(void)
{
	bad("a(b", "missing ')'", 1);
	bad("a)b", "unmatched ')'", 1);
	bad("[ab", "missing ']'", 0);
	bad("x[[:alfa:]]", "unknown character class", 2);
	bad("*a", "repetition operator without operand", 0);
	bad("a|+", "repetition operator without operand", 2);
	bad("(a)\\1", "backreferences are not supported", 3);
	bad("ab\\", "trailing backslash", 2);
	bad("a{3,2}", "invalid repetition count", 1);
	bad("a{1,300}", "invalid repetition count", 1);
	bad("a{2", "missing '}'", 1);
	bad("[z-a]", "invalid range", 1);
	bad("(((((((((((((((((((((((((((((((((x)))))))))))))))))))))))))))))))))",
	    "too many subexpressions", 31);
	bad("(a{200}){200}", "regular expression too large", 0);
}

int main(void)
{
	fixed_cases();
	corpus_groups();
	random_cases();
	errors();
	return CHECK_DONE();
}
