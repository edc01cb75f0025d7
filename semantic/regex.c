// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Regular expressions of `=~` / `!~`, compiled at translation time.
 *
 *   1. parse: POSIX ERE (. [] [^] [:class:] * + ? {m,n} | () ^ $, a
 *      backslash quotes the next byte; no backreferences) into a tree;
 *   2. code: the tree becomes an instruction list (Thompson NFA): CHAR
 *      (a byte set), SPLIT (x before y: greedy, left alternative first),
 *      JMP, SAVE (capture slot), BOL, EOL, MATCH.  Bounded repetitions are
 *      unrolled.  The program is SAVE 0, body, SAVE 1, MATCH;
 *   3. DFA: bytes are split into classes no set tells apart, then subset
 *      construction builds a search DFA: every step restarts the program
 *      (the match is unanchored), state 0 is offset 0 (where ^ holds).
 *      A state keeps the CHAR, MATCH and blocked EOL instructions its
 *      closure reaches; ACCEPT when MATCH is among them (the search stops
 *      there), ACCEPT_END when following EOL reaches MATCH, DEAD when empty.
 *
 * Sizes are capped (RX_MAXINSTS, RX_MAXSTATES, RX_MAXGROUPS) so that a
 * pathological pattern is a compile error, never a huge module.  Errors
 * carry the byte offset of the problem in the pattern.
 */
#include "semantic/regex.h"
#include "lib/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rx_kind { RN_EMPTY, RN_SET, RN_BOL, RN_EOL, RN_CAT, RN_ALT, RN_GROUP,
	       RN_REPEAT };

#define RX_INF -1
#define RX_DUP_MAX 255
#define RX_MAXDEPTH 200

struct rnode {
	enum rx_kind kind;
	int a, b;		/* children (CAT, ALT); a: GROUP, REPEAT */
	int set;		/* RN_SET */
	int group;		/* RN_GROUP */
	int min, max;		/* RN_REPEAT, max RX_INF for no bound */
};

struct rx {
	struct regex *re;
	const char *pat;
	size_t len, pos;
	struct rnode *nodes;
	int nnodes, cap;
	int depth;
	const char *err;
	size_t erroff;
};

static int fail(struct rx *p, const char *msg, size_t off)
{
	if (!p->err) {
		p->err = msg;
		p->erroff = off;
	}
	return -1;
}

static int new_node(struct rx *p, enum rx_kind kind, int a, int b)
{
	if (p->nnodes == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 32;
		p->nodes = xrealloc(p->nodes, (size_t)p->cap * sizeof(*p->nodes));
	}
	struct rnode *n = &p->nodes[p->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->a = a;
	n->b = b;
	return p->nnodes++;
}

/* The index of set bits (deduplicated). */
static int add_set(struct regex *re, const uint32_t bits[8])
{
	for (int i = 0; i < re->nsets; i++)
		if (!memcmp(re->sets[i], bits, sizeof(re->sets[i])))
			return i;
	re->sets = xrealloc(re->sets, (size_t)(re->nsets + 1) *
			    sizeof(*re->sets));
	memcpy(re->sets[re->nsets], bits, sizeof(re->sets[0]));
	return re->nsets++;
}

static void set_bit(uint32_t bits[8], int b)
{
	bits[b >> 5] |= 1u << (b & 31);
}

static int set_node(struct rx *p, const uint32_t bits[8])
{
	int n = new_node(p, RN_SET, -1, -1);

	p->nodes[n].set = add_set(p->re, bits);
	return n;
}

/* POSIX classes in the C locale (ASCII only, as the kernel's ctype). */
static bool in_class(const char *name, size_t nlen, int c, bool *known)
{
	static const char *const names[] = {
		"alpha", "digit", "alnum", "upper", "lower", "space", "blank",
		"punct", "print", "graph", "cntrl", "xdigit",
	};
	bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
	bool digit = c >= '0' && c <= '9';
	bool graph = c > 0x20 && c < 0x7f;
	bool r[] = {
		upper || lower, digit, upper || lower || digit, upper, lower,
		c == ' ' || (c >= '\t' && c <= '\r'), c == ' ' || c == '\t',
		graph && !(upper || lower || digit), graph || c == ' ', graph,
		c < 0x20 || c == 0x7f,
		digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'),
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == nlen && !memcmp(names[i], name, nlen)) {
			*known = true;
			return r[i];
		}
	*known = false;
	return false;
}

/* After '[': a bracket expression up to its ']'. */
static int parse_bracket(struct rx *p)
{
	uint32_t bits[8] = { 0 };
	size_t open = p->pos - 1;
	bool neg = false, first = true;

	if (p->pos < p->len && p->pat[p->pos] == '^') {
		neg = true;
		p->pos++;
	}
	for (;; first = false) {
		if (p->pos >= p->len)
			return fail(p, "missing ']'", open);
		size_t at = p->pos;
		unsigned char c = (unsigned char)p->pat[p->pos++];
		if (c == ']' && !first)
			break;
		if (c == '[' && p->pos < p->len &&
		    (p->pat[p->pos] == ':' || p->pat[p->pos] == '.' ||
		     p->pat[p->pos] == '=')) {
			char kind = p->pat[p->pos];
			size_t start = p->pos + 1, end = start;
			while (end + 1 < p->len && !(p->pat[end] == kind &&
						     p->pat[end + 1] == ']'))
				end++;
			if (end + 1 >= p->len)
				return fail(p, "missing ']'", at);
			p->pos = end + 2;
			if (kind == ':') {
				bool known = false;
				for (int b = 1; b < 256; b++)
					if (in_class(p->pat + start, end - start,
						     b, &known))
						set_bit(bits, b);
				in_class(p->pat + start, end - start, 'a',
					 &known);
				if (!known)
					return fail(p, "unknown character class",
						    at);
				continue;
			}
			if (end - start != 1)
				return fail(p, "unsupported collating element",
					    at);
			c = (unsigned char)p->pat[start];
		}
		int lo = c, hi = c;
		if (p->pos + 1 < p->len && p->pat[p->pos] == '-' &&
		    p->pat[p->pos + 1] != ']') {
			hi = (unsigned char)p->pat[p->pos + 1];
			if (hi == '[')
				return fail(p, "unsupported range end",
					    p->pos + 1);
			p->pos += 2;
			if (hi < lo)
				return fail(p, "invalid range", at);
		}
		for (int b = lo; b <= hi; b++)
			set_bit(bits, b);
	}
	if (neg)
		for (int i = 0; i < 8; i++)
			bits[i] = ~bits[i];
	bits[0] &= ~1u;		/* strings end at NUL */
	return set_node(p, bits);
}

static int parse_alt(struct rx *p);

static int parse_atom(struct rx *p)
{
	size_t at = p->pos;
	unsigned char c = (unsigned char)p->pat[p->pos++];
	uint32_t bits[8] = { 0 };

	switch (c) {
	case '(': {
		if (++p->depth > RX_MAXDEPTH)
			return fail(p, "parentheses nested too deeply", at);
		int g = p->re->ngroups++;
		if (g >= RX_MAXGROUPS)
			return fail(p, "too many subexpressions", at);
		int inner = parse_alt(p);
		if (inner < 0)
			return -1;
		if (p->pos >= p->len || p->pat[p->pos] != ')')
			return fail(p, "missing ')'", at);
		p->pos++;
		p->depth--;
		int n = new_node(p, RN_GROUP, inner, -1);
		p->nodes[n].group = g;
		return n;
	}
	case '.':
		memset(bits, 0xff, sizeof(bits));
		bits[0] &= ~1u;
		return set_node(p, bits);
	case '^':
		return new_node(p, RN_BOL, -1, -1);
	case '$':
		return new_node(p, RN_EOL, -1, -1);
	case '[':
		return parse_bracket(p);
	case '*': case '+': case '?':
		return fail(p, "repetition operator without operand", at);
	case '\\':
		if (p->pos >= p->len)
			return fail(p, "trailing backslash", at);
		c = (unsigned char)p->pat[p->pos++];
		if (c >= '1' && c <= '9')
			return fail(p, "backreferences are not supported", at);
		break;
	default:
		break;
	}
	set_bit(bits, c);
	return set_node(p, bits);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_count(struct rx *p)
{
	int v = 0;

	while (p->pos < p->len && is_digit(p->pat[p->pos])) {
		v = v * 10 + (p->pat[p->pos++] - '0');
		if (v > RX_DUP_MAX)
			v = RX_DUP_MAX + 1;
	}
	return v;
}

static int parse_piece(struct rx *p)
{
	int n = parse_atom(p);

	while (n >= 0 && p->pos < p->len) {
		size_t at = p->pos;
		char c = p->pat[p->pos];
		int min, max;

		if (c == '*') {
			min = 0, max = RX_INF;
		} else if (c == '+') {
			min = 1, max = RX_INF;
		} else if (c == '?') {
			min = 0, max = 1;
		} else if (c == '{' && at + 1 < p->len &&
			   is_digit(p->pat[at + 1])) {
			p->pos++;
			min = max = parse_count(p);
			if (p->pos < p->len && p->pat[p->pos] == ',') {
				p->pos++;
				max = RX_INF;
				if (p->pos < p->len && is_digit(p->pat[p->pos]))
					max = parse_count(p);
			}
			if (p->pos >= p->len || p->pat[p->pos] != '}')
				return fail(p, "missing '}'", at);
			if (min > RX_DUP_MAX || max > RX_DUP_MAX ||
			    (max != RX_INF && max < min))
				return fail(p, "invalid repetition count", at);
		} else {
			break;
		}
		p->pos++;
		int r = new_node(p, RN_REPEAT, n, -1);
		p->nodes[r].min = min;
		p->nodes[r].max = max;
		n = r;
	}
	return n;
}

static int parse_cat(struct rx *p)
{
	int n = -1;

	while (p->pos < p->len && p->pat[p->pos] != '|' &&
	       p->pat[p->pos] != ')') {
		int piece = parse_piece(p);
		if (piece < 0)
			return -1;
		n = n < 0 ? piece : new_node(p, RN_CAT, n, piece);
	}
	return n < 0 ? new_node(p, RN_EMPTY, -1, -1) : n;
}

static int parse_alt(struct rx *p)
{
	int n = parse_cat(p);

	while (n >= 0 && p->pos < p->len && p->pat[p->pos] == '|') {
		p->pos++;
		int r = parse_cat(p);
		if (r < 0)
			return -1;
		n = new_node(p, RN_ALT, n, r);
	}
	return n;
}

/* ---- instructions ----------------------------------------------------- */

static int emit_inst(struct rx *p, int op, int arg)
{
	struct regex *re = p->re;

	if (re->ninsts >= RX_MAXINSTS) {
		fail(p, "regular expression too large", 0);
		return RX_MAXINSTS - 1;	/* keep going harmlessly */
	}
	re->insts = xrealloc(re->insts, (size_t)(re->ninsts + 1) *
			     sizeof(*re->insts));
	struct regex_inst *in = &re->insts[re->ninsts];
	in->op = (uint8_t)op;
	in->arg = (uint16_t)arg;
	in->x = (uint16_t)(re->ninsts + 1);
	in->y = 0;
	return re->ninsts++;
}

static int here(struct rx *p)
{
	return p->re->ninsts < RX_MAXINSTS ? p->re->ninsts : RX_MAXINSTS - 1;
}

static void gen(struct rx *p, int ni)
{
	const struct rnode *n = &p->nodes[ni];
	struct regex_inst *ins;
	int l, j;

	if (p->err)
		return;
	switch (n->kind) {
	case RN_EMPTY:
		break;
	case RN_SET:
		emit_inst(p, RX_CHAR, n->set);
		break;
	case RN_BOL:
		emit_inst(p, RX_BOL, 0);
		break;
	case RN_EOL:
		emit_inst(p, RX_EOL, 0);
		break;
	case RN_CAT:
		gen(p, n->a);
		gen(p, n->b);
		break;
	case RN_GROUP:
		emit_inst(p, RX_SAVE, 2 * n->group);
		gen(p, n->a);
		emit_inst(p, RX_SAVE, 2 * n->group + 1);
		break;
	case RN_ALT:
		l = emit_inst(p, RX_SPLIT, 0);
		gen(p, n->a);
		j = emit_inst(p, RX_JMP, 0);
		ins = p->re->insts;
		ins[l].y = (uint16_t)here(p);
		gen(p, n->b);
		p->re->insts[j].x = (uint16_t)here(p);
		break;
	case RN_REPEAT: {
		int min = n->min, max = n->max, child = n->a;
		for (int i = 0; i < min - (max == RX_INF && min > 0); i++)
			gen(p, child);
		if (max == RX_INF && min > 0) {
			/* x+ : body, then loop back */
			l = here(p);
			gen(p, child);
			j = emit_inst(p, RX_SPLIT, 0);
			p->re->insts[j].x = (uint16_t)l;
			p->re->insts[j].y = (uint16_t)here(p);
		} else if (max == RX_INF) {
			l = emit_inst(p, RX_SPLIT, 0);
			gen(p, child);
			j = emit_inst(p, RX_JMP, 0);
			p->re->insts[j].x = (uint16_t)l;
			p->re->insts[l].y = (uint16_t)here(p);
		} else if (max > min) {
			/* x{0,k} as nested optionals: every skip goes to the end */
			int nsplit = max - min;
			int *splits = xmalloc((size_t)nsplit * sizeof(int));
			for (int i = 0; i < nsplit; i++) {
				splits[i] = emit_inst(p, RX_SPLIT, 0);
				gen(p, child);
			}
			for (int i = 0; i < nsplit && !p->err; i++)
				p->re->insts[splits[i]].y = (uint16_t)here(p);
			free(splits);
		}
		break;
	}
	}
}

/* ---- DFA ------------------------------------------------------------- */

struct dfa_build {
	struct regex *re;
	int words;		/* uint64_t per state set */
	uint64_t *sets;		/* nstates * words */
	int cap;
	int *stack;
	uint64_t *seen;
};

static bool bit_get(const uint64_t *s, int i)
{
	return (s[i >> 6] >> (i & 63)) & 1;
}

static void bit_put(uint64_t *s, int i)
{
	s[i >> 6] |= 1ull << (i & 63);
}

/*
 * Adds to out what the instructions in `from` (plus pc 0 when restart)
 * reach through jumps, splits, captures and the assertions that hold.
 * Kept: CHAR, MATCH, and EOL when it does not hold.
 */
static void closure(struct dfa_build *d, const uint64_t *from, bool restart,
		    bool bol, bool eol, uint64_t *out)
{
	const struct regex *re = d->re;
	int sp = 0;

	memset(d->seen, 0, (size_t)d->words * sizeof(uint64_t));
	memset(out, 0, (size_t)d->words * sizeof(uint64_t));
	if (restart)
		d->stack[sp++] = 0;
	for (int i = 0; from && i < re->ninsts; i++)
		if (bit_get(from, i))
			d->stack[sp++] = i;
	while (sp) {
		int pc = d->stack[--sp];
		if (bit_get(d->seen, pc))
			continue;
		bit_put(d->seen, pc);
		const struct regex_inst *in = &re->insts[pc];
		switch (in->op) {
		case RX_SPLIT:
			d->stack[sp++] = in->y;
			d->stack[sp++] = in->x;
			break;
		case RX_JMP:
		case RX_SAVE:
			d->stack[sp++] = in->x;
			break;
		case RX_BOL:
			if (bol)
				d->stack[sp++] = in->x;
			break;
		case RX_EOL:
			if (eol)
				d->stack[sp++] = in->x;
			else
				bit_put(out, pc);
			break;
		default:
			bit_put(out, pc);
			break;
		}
	}
}

/* The state with this set (never state 0, which is offset 0), or a new one. */
static int find_state(struct dfa_build *d, const uint64_t *set)
{
	struct regex *re = d->re;
	size_t sz = (size_t)d->words * sizeof(uint64_t);

	for (int i = 1; i < re->nstates; i++)
		if (!memcmp(d->sets + (size_t)i * d->words, set, sz))
			return i;
	if (re->nstates >= RX_MAXSTATES)
		return -1;
	if (re->nstates == d->cap) {
		d->cap *= 2;
		d->sets = xrealloc(d->sets, (size_t)d->cap * sz);
	}
	memcpy(d->sets + (size_t)re->nstates * d->words, set, sz);
	return re->nstates++;
}

static int build_dfa(struct rx *p)
{
	struct regex *re = p->re;
	struct dfa_build d = { .re = re };
	int rep[256];

	/* byte classes: refine by every set */
	memset(re->cls, 0, sizeof(re->cls));
	re->nclasses = 1;
	for (int s = 0; s < re->nsets; s++) {
		int map[2 * 256];
		int nc = 0;
		for (int i = 0; i < 2 * 256; i++)
			map[i] = -1;
		for (int b = 0; b < 256; b++) {
			int k = re->cls[b] * 2 + ((re->sets[s][b >> 5] >>
						   (b & 31)) & 1);
			if (map[k] < 0)
				map[k] = nc++;
			re->cls[b] = (uint8_t)map[k];
		}
		re->nclasses = nc;
	}
	for (int k = 0; k < 256; k++)
		rep[k] = -1;
	for (int b = 255; b > 0; b--)
		rep[re->cls[b]] = b;	/* lowest byte but NUL (never read) */

	d.words = (re->ninsts + 63) / 64;
	d.cap = 16;
	d.sets = xmalloc((size_t)d.cap * d.words * sizeof(uint64_t));
	d.stack = xmalloc((size_t)(3 * re->ninsts + 2) * sizeof(int));
	d.seen = xmalloc((size_t)d.words * sizeof(uint64_t));
	uint64_t *tmp = xmalloc((size_t)d.words * sizeof(uint64_t));
	uint64_t *move = xmalloc((size_t)d.words * sizeof(uint64_t));

	closure(&d, NULL, true, true, false, d.sets);
	re->nstates = 1;
	re->trans = NULL;
	re->flags = NULL;
	int ret = 0;
	for (int st = 0; st < re->nstates; st++) {
		re->trans = xrealloc(re->trans, (size_t)(st + 1) *
				     re->nclasses * sizeof(uint16_t));
		re->flags = xrealloc(re->flags, (size_t)(st + 1));
		uint16_t *row = re->trans + (size_t)st * re->nclasses;
		uint8_t f = 0;
		bool empty = true;
		memset(row, 0, (size_t)re->nclasses * sizeof(uint16_t));
		/* copy: find_state may move d.sets */
		memcpy(tmp, d.sets + (size_t)st * d.words,
		       (size_t)d.words * sizeof(uint64_t));
		for (int i = 0; i < re->ninsts; i++) {
			if (!bit_get(tmp, i))
				continue;
			empty = false;
			if (re->insts[i].op == RX_MATCH)
				f |= RX_ACCEPT | RX_ACCEPT_END;
		}
		if (empty)
			f |= RX_DEAD;
		if (!(f & RX_ACCEPT)) {
			closure(&d, tmp, false, st == 0, true, move);
			for (int i = 0; i < re->ninsts; i++)
				if (bit_get(move, i) &&
				    re->insts[i].op == RX_MATCH)
					f |= RX_ACCEPT_END;
		}
		re->flags[st] = f;
		if (f & (RX_ACCEPT | RX_DEAD))
			continue;
		for (int k = 0; k < re->nclasses; k++) {
			int b = rep[k];
			if (b <= 0)
				continue;	/* NUL never reaches the loop */
			memset(move, 0, (size_t)d.words * sizeof(uint64_t));
			for (int i = 0; i < re->ninsts; i++) {
				const struct regex_inst *in = &re->insts[i];
				if (bit_get(tmp, i) && in->op == RX_CHAR &&
				    ((re->sets[in->arg][b >> 5] >> (b & 31)) & 1))
					bit_put(move, in->x);
			}
			uint64_t *next = xmalloc((size_t)d.words *
						 sizeof(uint64_t));
			closure(&d, move, true, false, false, next);
			int ns = find_state(&d, next);
			free(next);
			if (ns < 0) {
				ret = fail(p, "regular expression too complex",
					   0);
				goto done;
			}
			/* trans grows only between states: row is valid */
			row[k] = (uint16_t)ns;
		}
	}
done:
	free(tmp);
	free(move);
	free(d.sets);
	free(d.stack);
	free(d.seen);
	return ret;
}

int regex_compile(struct regex *re, const char *pat, size_t len,
		  const char **err, size_t *off)
{
	struct rx p = { .re = re, .pat = pat, .len = len };

	memset(re, 0, sizeof(*re));
	re->ngroups = 1;
	int root = parse_alt(&p);
	if (root >= 0 && p.pos < p.len)
		fail(&p, "unmatched ')'", p.pos);
	if (!p.err) {
		emit_inst(&p, RX_SAVE, 0);
		gen(&p, root);
		emit_inst(&p, RX_SAVE, 1);
		emit_inst(&p, RX_MATCH, 0);
	}
	if (!p.err && !re->nsets) {
		uint32_t none[8] = { 0 };
		add_set(re, none);	/* keeps the emitted table non-empty */
	}
	if (!p.err)
		build_dfa(&p);
	free(p.nodes);
	if (p.err) {
		*err = p.err;
		*off = p.erroff;
		regex_free(re);
		return -1;
	}
	return 0;
}

void regex_free(struct regex *re)
{
	free(re->insts);
	free(re->sets);
	free(re->trans);
	free(re->flags);
	memset(re, 0, sizeof(*re));
}

long regex_scratch_ints(const struct regex *re)
{
	long n = re->ninsts, g = re->ngroups;

	/* the same formula as STP_RE_SCRATCH in runtime/regex.h */
	return 2 * n * (1 + 2 * g) + 4 * n + 3 + 4 * g;
}

static void emit_numbers(struct strbuf *sb, const char *indent,
			 const char *decl, const unsigned long *v, int n)
{
	sb_printf(sb, "%s%s = {", indent, decl);
	for (int i = 0; i < n; i++) {
		if (i % 16 == 0)
			sb_printf(sb, "\n%s\t", indent);
		sb_printf(sb, "%lu,%s", v[i], i % 16 == 15 || i == n - 1 ?
			  "" : " ");
	}
	sb_printf(sb, "\n%s};\n", indent);
}

void regex_emit(const struct regex *re, struct strbuf *sb, const char *name,
		const char *indent, bool with_prog)
{
	int n = re->nstates * re->nclasses;
	int big = n > 256 ? n : 256;
	unsigned long *v = xmalloc((size_t)(big > re->nsets * 8 ? big :
					    re->nsets * 8) * sizeof(*v));
	char decl[160];

	for (int i = 0; i < 256; i++)
		v[i] = re->cls[i];
	snprintf(decl, sizeof(decl), "static const u8 %s_cls[256]", name);
	emit_numbers(sb, indent, decl, v, 256);
	for (int i = 0; i < n; i++)
		v[i] = re->trans[i];
	snprintf(decl, sizeof(decl), "static const u16 %s_trans[%d]", name, n);
	emit_numbers(sb, indent, decl, v, n);
	for (int i = 0; i < re->nstates; i++)
		v[i] = re->flags[i];
	snprintf(decl, sizeof(decl), "static const u8 %s_flags[%d]", name,
		 re->nstates);
	emit_numbers(sb, indent, decl, v, re->nstates);
	if (with_prog) {
		sb_printf(sb, "%sstatic const struct stp_re_inst %s_prog[%d] = {\n",
			  indent, name, re->ninsts);
		for (int i = 0; i < re->ninsts; i++) {
			const struct regex_inst *in = &re->insts[i];
			sb_printf(sb, "%s\t{ %u, %u, %u, %u },\n", indent,
				  in->op, in->arg, in->x, in->y);
		}
		sb_printf(sb, "%s};\n", indent);
		for (int i = 0; i < re->nsets * 8; i++)
			v[i] = re->sets[i / 8][i % 8];
		snprintf(decl, sizeof(decl), "static const u32 %s_sets[%d]",
			 name, re->nsets * 8);
		emit_numbers(sb, indent, decl, v, re->nsets * 8);
	}
	sb_printf(sb, "%sstatic const struct stp_regex %s = {\n", indent, name);
	sb_printf(sb, "%s\t.cls = %s_cls, .trans = %s_trans, .flags = %s_flags,\n",
		  indent, name, name, name);
	sb_printf(sb, "%s\t.nclasses = %d,\n", indent, re->nclasses);
	if (with_prog)
		sb_printf(sb, "%s\t.prog = %s_prog, .sets = %s_sets,\n", indent,
			  name, name);
	sb_printf(sb, "%s\t.ninsts = %d, .ngroups = %d,\n", indent, re->ninsts,
		  re->ngroups);
	sb_printf(sb, "%s};\n", indent);
	free(v);
}
