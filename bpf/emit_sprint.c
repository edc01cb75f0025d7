// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 3 on the BPF backend: the string functions of a kernel program:
 * sprint, sprintf and their kind, strlen, substr and stringat. The kernel formats them itself with bpf_snprintf (5.13+),
 * whose conversions are vsnprintf's, which the module's runtime formats
 * with too: the value is a string the program can use as a key, compare
 * or print (the loader's formatting serves only what goes to the ring
 * buffer). What bpf_snprintf lacks is refused at pass 2 (refuse.c) with
 * the same check, bpf_kernel_format.
 */
#include <stdlib.h>
#include <string.h>

#include "bpf/emit.h"
#include "lib/strbuf.h"

/* bpf_snprintf: 12 values at most; its %s copies share 512 bytes */
#define KERNEL_FMT_MAX_ARGS 12
#define KERNEL_FMT_MAX_STRINGS 3

static const char kernel_fmt_conversions[] =
	"whose conversions are %d, %i, %u, %o, %x, %X, %c and %s with the "
	"flags -, +, space and 0 and a width, and %#o, %#x and %p";

/*
 * The conversion at fmt[i] ('%'): the index past it, its letter in *conv
 * ('%' for "%%"; '#' for %#x, 'H' for %#X, 'O' for %#o, 'p' for %p), or 0 for what
 * bpf_snprintf cannot do even a conversion at a time.
 */
static size_t conversion(const char *fmt, size_t len, size_t i, char *conv)
{
	size_t j = i + 1;

	if (j < len && fmt[j] == '%') {
		*conv = '%';
		return j + 1;
	}
	/* %#x as the module prints it, 0x before every value (0 too), when
	 * no width or flag needs the padding placed; %#o likewise */
	if (j < len && fmt[j] == '#') {
		size_t k = j + 1;
		while (k < len && fmt[k] == 'l')
			k++;
		if (k >= len || !strchr("xXo", fmt[k]))
			return 0;
		*conv = fmt[k] == 'o' ? 'O' : fmt[k] == 'x' ? '#' : 'H';
		return k + 1;
	}
	/* %p as the module prints it: 0x and the hex digits */
	if (j < len && fmt[j] == 'p') {
		*conv = 'p';
		return j + 1;
	}
	while (j < len && strchr("-+ 0", fmt[j]))
		j++;
	while (j < len && fmt[j] >= '0' && fmt[j] <= '9')
		j++;
	while (j < len && (fmt[j] == 'l' || fmt[j] == 'L' || fmt[j] == 'h'))
		j++;
	if (j >= len || !strchr("diuxXcso", fmt[j]))
		return 0;
	/* an octal is ours (bpf_snprintf has none): no flags or width */
	if (fmt[j] == 'o' && j != i + 1)
		return 0;
	*conv = fmt[j];
	return j + 1;
}

/* the conversion fmt[i..end) (conv's) as bpf_snprintf's into out */
static void put_conversion(struct strbuf *out, const char *fmt, size_t i,
			   size_t end, char conv)
{
	if (conv == '%') {
		sb_puts(out, "%%");
	} else if (conv == '#' || conv == 'p') {
		sb_puts(out, "0x%llx");
	} else if (conv == 'H') {
		sb_puts(out, "0X%llX");
	} else if (conv == 'o' || conv == 'O') {
		sb_puts(out, "%s");	/* stp_oct's string */
	} else {
		size_t spec_end = end - 1;
		while (fmt[spec_end - 1] == 'l' || fmt[spec_end - 1] == 'L' ||
		       fmt[spec_end - 1] == 'h')
			spec_end--;
		sb_append(out, fmt + i, spec_end - i);
		if (strchr("diuxX", conv))
			sb_puts(out, "ll");
		sb_putc(out, conv);
	}
}

/*
 * fmt (a printf format of the script) as one bpf_snprintf format into
 * out (when not NULL): every integer conversion with "ll", as the
 * script's values are 64-bit. NULL, or what bpf_snprintf cannot do even
 * a conversion at a time; *pieces when one call cannot do it (more than
 * 12 values or 3 strings, an octal): then each conversion is a call of
 * its own (bpf_emit_kernel_sprint).
 */
static const char *kernel_format(const char *fmt, size_t len,
				 struct strbuf *out, bool *pieces)
{
	int nargs = 0, nstrings = 0;

	*pieces = false;
	for (size_t i = 0; i < len;) {
		char conv;
		size_t end;

		if (fmt[i] != '%') {
			if (out)
				sb_putc(out, fmt[i]);
			i++;
			continue;
		}
		end = conversion(fmt, len, i, &conv);
		if (!end)
			return kernel_fmt_conversions;
		if (conv != '%')
			nargs++;
		nstrings += conv == 's';
		*pieces |= conv == 'o' || conv == 'O';
		if (out)
			put_conversion(out, fmt, i, end, conv);
		i = end;
	}
	*pieces |= nargs > KERNEL_FMT_MAX_ARGS ||
		   nstrings > KERNEL_FMT_MAX_STRINGS;
	return NULL;
}

const char *bpf_kernel_format(const char *fmt, size_t len, struct strbuf *out)
{
	bool pieces;

	return kernel_format(fmt, len, out, &pieces);
}

/* a format constant of .rodata (the verifier wants a read-only string) */
static int kernel_format_const(struct emitter *e, const char *fmt, size_t len)
{
	int u = e->nuniq++;
	FILE *saved = e->out;
	struct node str = { .kind = N_STRING };

	fprintf(e->decls_kernel, "static const char stp_kfmt%d[] = ", u);
	str.str.value = fmt;
	str.str.len = len;
	e->out = e->decls_kernel;
	bpf_emit_expr(e, &str);
	e->out = saved;
	fputs(";\n", e->decls_kernel);
	return u;
}

/*
 * The sprint* one call cannot do, into temporary t: a bpf_snprintf per
 * conversion (with the text before it) into a second temporary, appended
 * by a global function (prelude_sysc.c's stp_kcat);
 * an octal formatted by the prelude's stp_oct. The values are computed
 * in order, as in one call.
 */
static void emit_kernel_sprint_pieces(struct emitter *e, const struct node *args,
				      const char *fmt, size_t len, int t)
{
	int p = bpf_new_tmp(e), o = -1;
	const struct node *a = args;
	size_t start = 0;

	fprintf(e->out, "({ TMP(%d)[0] = 0; ", t);
	for (size_t i = 0; i <= len;) {
		char conv = 0;
		size_t end = i;

		if (i < len && fmt[i] != '%') {
			i++;
			continue;
		}
		if (i < len)
			end = conversion(fmt, len, i, &conv);
		if (conv == '%') {
			i = end;
			continue;
		}
		struct strbuf sb = { 0 };
		for (size_t k = start; k < i;) {
			char c2;
			size_t e2;
			if (fmt[k] != '%') {
				sb_putc(&sb, fmt[k++]);
				continue;
			}
			e2 = conversion(fmt, len, k, &c2);
			put_conversion(&sb, fmt, k, e2, c2);
			k = e2;
		}
		if (conv)
			put_conversion(&sb, fmt, i, end, conv);
		int u = kernel_format_const(e, sb_str(&sb), sb.len);
		sb_free(&sb);
		if (!conv || !a) {
			fprintf(e->out, "bpf_snprintf(TMP(%d), STP_STR, "
				"stp_kfmt%d, 0, 0); ", p, u);
		} else {
			fprintf(e->out, "{ unsigned long long _a%d[1]; ", u);
			if (conv == 'o' || conv == 'O') {
				if (o < 0)
					o = bpf_new_tmp(e);
				fprintf(e->out, "_a%d[0] = (unsigned long long)"
					"stp_oct(TMP(%d), ", u, o);
				bpf_emit_expr(e, a);
				fprintf(e->out, ", %d); ", conv == 'O');
			} else {
				fprintf(e->out, "_a%d[0] = (unsigned long long)(",
					u);
				bpf_emit_expr(e, a);
				fputs("); ", e->out);
			}
			fprintf(e->out, "bpf_snprintf(TMP(%d), STP_STR, "
				"stp_kfmt%d, _a%d, 8); } ", p, u, u);
			a = a->next;
		}
		fprintf(e->out, "stp_kcat((void *)TMP(%d), (void *)TMP(%d)); ",
			t, p);
		if (i >= len)
			break;
		i = start = end;
		if (start >= len)
			break;
	}
	fprintf(e->out, "TMP(%d); })", t);
}

/*
 * The sprint* of n with format fmt (fmt_id's) into temporary t, as a C
 * expression: the values into a u64 array (a string: its address), then
 * bpf_snprintf with the format in .rodata; a call per conversion where
 * one call cannot do it.
 */
void bpf_emit_kernel_sprint(struct emitter *e, const struct node *args,
			    const char *fmt, size_t len, int t)
{
	struct strbuf sb = { 0 };
	int n = ast_list_length(args), i = 0;
	bool pieces;

	if (kernel_format(fmt, len, &sb, &pieces)) {
		/* refused at pass 2 */
		sb_free(&sb);
		fputs("\"\"", e->out);
		return;
	}
	if (pieces) {
		sb_free(&sb);
		emit_kernel_sprint_pieces(e, args, fmt, len, t);
		return;
	}
	int u = kernel_format_const(e, sb_str(&sb), sb.len);
	sb_free(&sb);

	fprintf(e->out, "({ unsigned long long _a%d[%d]; ", u, n ? n : 1);
	for (const struct node *a = args; a; a = a->next, i++) {
		fprintf(e->out, "_a%d[%d] = (unsigned long long)(", u, i);
		bpf_emit_expr(e, a);
		fputs("); ", e->out);
	}
	fprintf(e->out, "bpf_snprintf(TMP(%d), STP_STR, stp_kfmt%d, _a%d, "
		"%d); TMP(%d); })", t, u, u, n * 8, t);
}

/*
 * The string tapset in the kernel half, as the user half's C (the
 * prelude) computes it: global functions, which the verifier checks once
 * a program rather than at every call, over strings copied
 * into temporaries (a global function's argument is STP_STR writable
 * bytes, which a literal of .rodata is not).
 */
static const char kernel_string_funcs[] =
"__attribute__((noinline)) long long stp_g_strlen(struct stp_sv *s)\n"
"{\n"
"\tif (!s)\n"
"\t\treturn 0;\n"
"\tfor (int i = 0; i < STP_STR - 1; i++)\n"
"\t\tif (!s->s[i])\n"
"\t\t\treturn i;\n"
"\treturn STP_STR - 1;\n"
"}\n"
"__attribute__((noinline)) long long stp_g_substr(struct stp_sv *out, struct stp_sv *s, long long start, long long length)\n"
"{\n"
"\tif (!out || !s)\n"
"\t\treturn 0;\n"
"\tlong long len = stp_g_strlen(s);\n"
"\tout->s[0] = 0;\n"
"\tif (start < 0 || length <= 0 || start >= len)\n"
"\t\treturn 0;\n"
"\tif (length > len - start)\n"
"\t\tlength = len - start;\n"
"\tfor (int i = 0; i < STP_STR - 1; i++) {\n"
"\t\tunsigned long long j = (unsigned long long)start + i;\n"
"\t\tif (i >= length || j >= STP_STR - 1)\n"
"\t\t\tbreak;\n"
"\t\tSTP_BARRIER(j);\n"
"\t\tout->s[i] = s->s[j & (STP_STR - 1)];\n"
"\t\tout->s[i + 1] = 0;\n"
"\t}\n"
"\treturn 0;\n"
"}\n"
"__attribute__((noinline)) long long stp_g_stringat(struct stp_sv *s, long long pos)\n"
"{\n"
"\tunsigned long long p = pos;\n"
"\tif (!s || pos < 0 || pos >= stp_g_strlen(s) || p >= STP_STR)\n"
"\t\treturn 0;\n"
"\tSTP_BARRIER(p);\n"
"\treturn (unsigned char)s->s[p & (STP_STR - 1)];\n"
"}\n"
"/* strpos, isinstr: strstr's naive search, one byte compared a\n"
" * bpf_loop step, the state in a per-CPU map each step looks up (a map\n"
" * value's fields are unknown to the verifier: the step is checked once;\n"
" * bpf_loop's context must be the stack); a step\n"
" * moves j on or i on, so STP_STR * (STP_STR + 1) steps end any search */\n"
"struct stp_spos { char h[STP_STR], n[STP_STR]; unsigned long long i, j; long long r; };\n"
"struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, struct stp_spos); } stp_sposm SEC(\".maps\");\n"
"static long stp_spos_step(__u64 idx, void *ctx)\n"
"{\n"
"\t__u32 z = 0;\n"
"\tstruct stp_spos *p = bpf_map_lookup_elem(&stp_sposm, &z);\n"
"\tif (!p)\n"
"\t\treturn 1;\n"
"\tunsigned long long i = p->i, j = p->j, k = i + j;\n"
"\tif (i >= STP_STR || j >= STP_STR)\n"
"\t\treturn 1;\n"
"\tchar nc = p->n[j & (STP_STR - 1)];\n"
"\tif (!nc) {\n"
"\t\tp->r = i;\n"
"\t\treturn 1;\n"
"\t}\n"
"\tif (k >= STP_STR || !p->h[k & (STP_STR - 1)])\n"
"\t\treturn 1;\n"
"\tif (p->h[k & (STP_STR - 1)] == nc) {\n"
"\t\tp->j = j + 1;\n"
"\t} else {\n"
"\t\tp->i = i + 1;\n"
"\t\tp->j = 0;\n"
"\t}\n"
"\treturn 0;\n"
"}\n"
"__attribute__((noinline)) long long stp_g_strpos(struct stp_sv *h, struct stp_sv *n)\n"
"{\n"
"\t__u32 z = 0;\n"
"\tstruct stp_spos *p = bpf_map_lookup_elem(&stp_sposm, &z);\n"
"\tif (!h || !n || !p)\n"
"\t\treturn -1;\n"
"\t__builtin_memcpy(p->h, h->s, STP_STR);\n"
"\t__builtin_memcpy(p->n, n->s, STP_STR);\n"
"\tp->i = 0;\n"
"\tp->j = 0;\n"
"\tp->r = -1;\n"
"\tbpf_loop(STP_STR * (STP_STR + 1), stp_spos_step, 0, 0);\n"
"\treturn p->r;\n"
"}\n"
"__attribute__((noinline)) long long stp_g_isinstr(struct stp_sv *h, struct stp_sv *n)\n"
"{\n"
"\treturn stp_g_strpos(h, n) >= 0;\n"
"}\n";

/* strlen, substr, stringat, isinstr, strpos in a kernel program; false
 * for another name. */
bool bpf_emit_kernel_string_call(struct emitter *e, const struct node *n)
{
	static const char *const names[] = {
		"strlen", "substr", "stringat", "isinstr", "strpos", NULL,
	};
	const char *name = n->call.name;
	int i = 0, u = e->nuniq++, out = -1;

	while (names[i] && strcmp(names[i], name))
		i++;
	if (!names[i])
		return false;
	if (!e->kernel_strings) {
		fputs(kernel_string_funcs, e->decls_kernel);
		e->kernel_strings = true;
	}
	/* the string arguments copied, then the call */
	fputs("({ ", e->out);
	i = 0;
	ast_foreach(a, n->call.args) {
		if (a->type == TY_STRING) {
			int t = bpf_new_tmp(e);
			fprintf(e->out, "struct stp_sv *_s%d_%d = (void *)TMP(%d); "
				"STRCPY(TMP(%d), ", u, i, t, t);
			bpf_emit_expr(e, a);
			fputs("); ", e->out);
		} else {
			fprintf(e->out, "long long _s%d_%d = (", u, i);
			bpf_emit_expr(e, a);
			fputs("); ", e->out);
		}
		i++;
	}
	if (!strcmp(name, "substr")) {
		out = bpf_new_tmp(e);
		fprintf(e->out, "stp_g_substr((void *)TMP(%d), ", out);
	} else {
		fprintf(e->out, "stp_g_%s(", name);
	}
	for (int k = 0; k < i; k++)
		fprintf(e->out, "%s_s%d_%d", k ? ", " : "", u, k);
	if (out >= 0)
		fprintf(e->out, "); TMP(%d); })", out);
	else
		fputs("); })", e->out);
	return true;
}
