// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The string functions of SystemTap's tapset library, as the runtime
 * provides them: strlen, substr, stringat, isinstr, strpos, str_replace,
 * text_str, text_strn, string_quoted, strtol, tokenize, and
 * kernel_string.  Results are script strings (MAXSTRINGLEN buffers,
 * silently truncated).
 */

static int64_t __maybe_unused stp_f_strlen(const char *s)
{
	return strnlen(s, MAXSTRINGLEN - 1);
}

/* substr(s, start, length): "" when start or length is out of range. */
static void __maybe_unused stp_f_substr(char *out, const char *s,
					int64_t start, int64_t length)
{
	int64_t len = strnlen(s, MAXSTRINGLEN - 1);

	if (start < 0 || length <= 0 || start >= len) {
		out[0] = '\0';
		return;
	}
	if (length > len - start)
		length = len - start;
	memmove(out, s + start, length);
	out[length] = '\0';
}

static int64_t __maybe_unused stp_f_stringat(const char *s, int64_t pos)
{
	int64_t len = strnlen(s, MAXSTRINGLEN - 1);

	return pos >= 0 && pos < len ? (unsigned char)s[pos] : 0;
}

static int64_t __maybe_unused stp_f_isinstr(const char *s1, const char *s2)
{
	return strstr(s1, s2) != NULL;
}

static int64_t __maybe_unused stp_f_strpos(const char *s1, const char *s2)
{
	const char *p = strstr(s1, s2);

	return p ? p - s1 : -1;
}

/* Every occurrence of srch (left to right, not overlapping) by rplc. */
static void __maybe_unused stp_f_str_replace(char *out, const char *prnt,
					     const char *srch,
					     const char *rplc)
{
	size_t slen = strlen(srch), rlen = strlen(rplc), n = 0;
	const char *p = prnt;

	if (!slen) {
		stp_strcpy(out, prnt);
		return;
	}
	/* out may alias an input: build in place only from a copy */
	while (*p && n < MAXSTRINGLEN - 1) {
		if (!strncmp(p, srch, slen)) {
			size_t k = min(rlen, (size_t)MAXSTRINGLEN - 1 - n);

			memcpy(out + n, rplc, k);
			n += k;
			p += slen;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
}

/*
 * Printable form of s: \a \b \f \n \r \t \v \" \\ and \ooo for other
 * bytes outside printable ASCII; at most outlen characters.  quoted adds
 * double quotes, and "..." after the closing one when s was cut.
 */
static void stp_text(char *out, const char *in, int64_t inlen,
		     int64_t outlen, bool quoted)
{
	char *o = out;
	int c = 0;

	if (inlen <= 0 || inlen > MAXSTRINGLEN - 1)
		inlen = MAXSTRINGLEN - 1;
	if (outlen <= 0 || outlen > MAXSTRINGLEN - 1)
		outlen = MAXSTRINGLEN - 1;
	if (quoted) {
		outlen = max_t(int64_t, outlen, 5) - 2;
		*o++ = '"';
	}
	while (inlen > 0) {
		static const char esc[] = "\a\b\f\n\r\t\v\"\\";
		static const char code[] = "abfnrtv\"\\";
		const char *e;
		int num;

		c = (unsigned char)*in;
		if (c == 0 || outlen <= 0)
			break;
		in++;
		inlen--;
		e = strchr(esc, c);
		if (c < 0x80 && isprint(c) && c != '"' && c != '\\') {
			*o++ = c;
			num = 1;
		} else if (e) {
			if (outlen < 2)
				break;
			*o++ = '\\';
			*o++ = code[e - esc];
			num = 2;
		} else {
			if (outlen < 4)
				break;
			*o++ = '\\';
			*o++ = '0' + ((c >> 6) & 3);
			*o++ = '0' + ((c >> 3) & 7);
			*o++ = '0' + (c & 7);
			num = 4;
		}
		outlen -= num;
	}
	if (quoted) {
		if (c && inlen > 0) {
			o = o - 3 + outlen;
			memcpy(o, "\"...", 4);
			o += 4;
		} else {
			*o++ = '"';
		}
	}
	*o = '\0';
}

/* The text functions build in a bounce buffer: out may alias s. */
static void __maybe_unused stp_f_text_strn(char *out, const char *s,
					   int64_t len, int64_t quoted)
{
	char tmp[MAXSTRINGLEN];

	stp_strcpy(tmp, s);
	stp_text(out, tmp, len, len, quoted != 0);
}

static void __maybe_unused stp_f_text_str(char *out, const char *s)
{
	stp_f_text_strn(out, s, 0, 0);
}

static void __maybe_unused stp_f_string_quoted(char *out, const char *s)
{
	stp_f_text_strn(out, s, 0, 1);
}

/* The kernel's simple_strtol, as SystemTap's strtol. */
static int64_t __maybe_unused stp_f_strtol(const char *s, int64_t base)
{
	if (base < 0 || base > 36 || base == 1)
		return 0;
	return simple_strtol(s, NULL, (unsigned int)base);
}

/*
 * tokenize(input, delim): the first non-empty token of input; with ""
 * as input, the next one of the previous input (state per CPU context).
 */
static void __maybe_unused stp_f_tokenize(struct stp_context *c, char *out,
					  const char *input, const char *delim)
{
	char *tok;

	if (input[0]) {
		stp_strcpy(c->tok_buf, input);
		c->tok_pos = c->tok_buf;
	}
	do {
		tok = c->tok_pos ? strsep(&c->tok_pos, delim) : NULL;
	} while (tok && !tok[0]);
	if (tok)
		stp_strcpy(out, tok);
	else
		out[0] = '\0';
}

/*
 * kernel_string(addr): the NUL-terminated string at a kernel address, read
 * fault-safely a page at most at a time (so a string that ends before an
 * unmapped page reads fine); a fault is SystemTap's error.
 */
static void __maybe_unused stp_f_kernel_string(struct stp_context *c,
					       char *out, int64_t addr)
{
	const char *src = (const char *)(unsigned long)addr;
	size_t len = 0;

	while (len < MAXSTRINGLEN - 1) {
		size_t k = min_t(size_t, MAXSTRINGLEN - 1 - len,
				 PAGE_SIZE - ((unsigned long)(src + len) &
					      ~PAGE_MASK));

		if (copy_from_kernel_nofault(out + len, src + len, k)) {
			out[0] = '\0';
			stp_errorf(c, "kernel string copy fault at 0x%lx "
				   "[man error::fault]", (unsigned long)addr);
			return;
		}
		if (memchr(out + len, '\0', k))
			return;
		len += k;
	}
	out[len] = '\0';
}
