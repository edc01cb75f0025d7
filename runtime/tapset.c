// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The string functions of SystemTap's tapset library, as the runtime
 * provides them: strlen, substr, stringat, isinstr, strpos, str_replace,
 * text_str, text_strn, string_quoted, strtol, tokenize, and
 * kernel_string, plus the fault-safe memory readers the tapset library's
 * embedded C uses.  Results are script strings (MAXSTRINGLEN buffers,
 * silently truncated).
 */

int64_t stp_f_strlen(const char *s)
{
	return strnlen(s, MAXSTRINGLEN - 1);
}

/* substr(s, start, length): "" when start or length is out of range. */
void stp_f_substr(char *out, const char *s, int64_t start, int64_t length)
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

int64_t stp_f_stringat(const char *s, int64_t pos)
{
	int64_t len = strnlen(s, MAXSTRINGLEN - 1);

	return pos >= 0 && pos < len ? (unsigned char)s[pos] : 0;
}

int64_t stp_f_isinstr(const char *s1, const char *s2)
{
	return strstr(s1, s2) != NULL;
}

int64_t stp_f_strpos(const char *s1, const char *s2)
{
	const char *p = strstr(s1, s2);

	return p ? p - s1 : -1;
}

/* Every occurrence of srch (left to right, not overlapping) by rplc. */
void stp_f_str_replace(char *out, const char *prnt, const char *srch,
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
 * One character of in (at most len bytes) as SystemTap reads it: a UTF-8
 * sequence of 2-4 bytes (well-formed, shortest form, no surrogate, at most
 * U+10FFFF) is one code point, anything else one byte.  Returns the bytes
 * used and the character in *c.
 */
static int stp_utf8_get(const char *in, int64_t len, int *c)
{
	const unsigned char *p = (const unsigned char *)in;
	int n, i, u;

	if ((p[0] & 0xe0) == 0xc0 && len >= 2) {
		n = 2;
		u = p[0] & 0x1f;
	} else if ((p[0] & 0xf0) == 0xe0 && len >= 3) {
		n = 3;
		u = p[0] & 0x0f;
	} else if ((p[0] & 0xf8) == 0xf0 && len >= 4) {
		n = 4;
		u = p[0] & 0x07;
	} else {
		goto byte;
	}
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			goto byte;
		u = (u << 6) | (p[i] & 0x3f);
	}
	if ((u >= 0xd800 && u <= 0xdfff) || u > 0x10ffff || u < 0x80 ||
	    (n == 3 && u < 0x800) || (n == 4 && u < 0x10000))
		goto byte;
	*c = u;
	return n;
byte:
	*c = p[0];
	return 1;
}

/*
 * Printable form of s, as SystemTap 4.8's: \a \b \f \n \r \t \v \" \\,
 * \uXXXX or \UXXXXXXXX for a UTF-8 character, \ooo for other bytes
 * outside printable ASCII; at most outlen characters.  quoted adds double
 * quotes, and "..." after the closing one when s was cut (dropping the
 * whole escape the cut would split).  With buffer, in is inlen bytes (a
 * NUL does not end it and shows as \0, but counts as four characters).
 */
void stp_text(char *out, const char *in, int64_t inlen, int64_t outlen,
	      bool quoted, bool buffer)
{
	static const char hex[] = "0123456789ABCDEF";
	char *o = out, *esc = NULL;	/* first escape a cut could split */
	int c = 0, esc_len = 0;

	if (inlen <= 0 || inlen > MAXSTRINGLEN - 1)
		inlen = MAXSTRINGLEN - 1;
	if (outlen <= 0 || outlen > MAXSTRINGLEN - 1)
		outlen = MAXSTRINGLEN - 1;
	if (quoted) {
		outlen = max_t(int64_t, outlen, 5) - 2;
		*o++ = '"';
	}
	while (inlen > 0) {
		static const char esc_chars[] = "\a\b\f\n\r\t\v\"\\";
		static const char code[] = "abfnrtv\"\\";
		const char *e;
		int n, num, i;

		n = stp_utf8_get(in, inlen, &c);
		if ((c == 0 && !buffer) || outlen <= 0)
			break;
		in += n;
		inlen -= n;
		e = n == 1 && c ? strchr(esc_chars, c) : NULL;
		if (n > 1)
			num = c <= 0xffff ? 6 : 10;
		else if (c < 0x80 && isprint(c) && c != '"' && c != '\\')
			num = 1;
		else
			num = e ? 2 : 4;
		if (num > 1 && !esc && outlen - 3 < num) {
			esc = o;
			esc_len = num;
		}
		if (outlen < num)
			break;
		if (n > 1) {
			*o++ = '\\';
			*o++ = c <= 0xffff ? 'u' : 'U';
			for (i = num - 3; i >= 0; i--)
				*o++ = hex[(c >> (i * 4)) & 0xf];
		} else if (num == 1) {
			*o++ = c;
		} else if (e) {
			*o++ = '\\';
			*o++ = code[e - esc_chars];
		} else {
			*o++ = '\\';
			*o++ = '0' + ((c >> 6) & 3);
			if (c) {
				*o++ = '0' + ((c >> 3) & 7);
				*o++ = '0' + (c & 7);
			}
		}
		outlen -= num;
	}
	if (quoted) {
		if (c && inlen > 0) {
			char *cut = o - 3 + outlen;

			if (esc && esc < cut && cut < esc + esc_len)
				cut = esc;
			o = cut;
			memcpy(o, "\"...", 4);
			o += 4;
		} else {
			*o++ = '"';
		}
	}
	*o = '\0';
}

/* The text functions build in a bounce buffer: out may alias s. */
void stp_f_text_strn(char *out, const char *s, int64_t len, int64_t quoted)
{
	char tmp[MAXSTRINGLEN];

	stp_strcpy(tmp, s);
	stp_text(out, tmp, len, len, quoted != 0, false);
}

void stp_f_text_str(char *out, const char *s)
{
	stp_f_text_strn(out, s, 0, 0);
}

void stp_f_string_quoted(char *out, const char *s)
{
	stp_f_text_strn(out, s, 0, 1);
}

/* The kernel's simple_strtol, as SystemTap's strtol. */
int64_t stp_f_strtol(const char *s, int64_t base)
{
	if (base < 0 || base > 36 || base == 1)
		return 0;
	return simple_strtol(s, NULL, (unsigned int)base);
}

/*
 * tokenize(input, delim): the first non-empty token of input; with ""
 * as input, the next one of the previous input (state per CPU context).
 */
void stp_f_tokenize(struct stp_context *c, char *out, const char *input,
		    const char *delim)
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
 * Copy the NUL-terminated string at addr (kernel or user memory) into out,
 * at most n bytes plus the NUL (n <= MAXSTRINGLEN - 1), a page at most at
 * a time so that a string ending before an unmapped page reads fine.
 * Returns the length, or -EFAULT (out is then "").
 */
long stp_copy_string(char *out, unsigned long addr, size_t n, bool user)
{
	size_t len = 0;

	while (len < n) {
		unsigned long at = addr + len;
		size_t k = min_t(size_t, n - len,
				 PAGE_SIZE - (at & ~PAGE_MASK));
		long r = user ? copy_from_user_nofault(out + len,
					(const void __user *)at, k)
			      : copy_from_kernel_nofault(out + len,
					(const void *)at, k);
		char *nul;

		if (r) {
			out[0] = '\0';
			return -EFAULT;
		}
		nul = memchr(out + len, '\0', k);
		if (nul)
			return nul - out;
		len += k;
	}
	out[len] = '\0';
	return len;
}

/*
 * kernel_string(addr): the NUL-terminated string at a kernel address, read
 * fault-safely; a fault is SystemTap's error.
 */
void stp_f_kernel_string(struct stp_context *c, char *out, int64_t addr)
{
	if (stp_copy_string(out, (unsigned long)addr, MAXSTRINGLEN - 1,
			    false) < 0)
		stp_errorf(c, "kernel string copy fault at 0x%lx "
			   "[man error::fault]", (unsigned long)addr);
}

/* kernel_string(addr, err_msg): err_msg when the string cannot be read */
void stp_f_kernel_string_or(struct stp_context *c, char *out, int64_t addr,
			    const char *err_msg)
{
	if (stp_copy_string(out, (unsigned long)addr, MAXSTRINGLEN - 1,
			    false) < 0)
		strscpy(out, err_msg, MAXSTRINGLEN);
}

/*
 * Append code point u to out (room bytes, NUL included) as UTF-8: the
 * bytes written, 0 when they do not fit, -1 for a code point that is no
 * character (a surrogate, or above U+10FFFF).
 */
static int stp_utf8_put(char *out, int room, u32 u)
{
	static const u8 lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	int n = u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4;
	int i;

	if ((u >= 0xd800 && u <= 0xdfff) || u > 0x10ffff)
		return -1;
	if (n >= room)
		return 0;
	for (i = n - 1; i > 0; i--) {
		out[i] = 0x80 | (u & 0x3f);
		u >>= 6;
	}
	out[0] = lead[n] | u;
	out[n] = '\0';
	return n;
}

/*
 * The UTF-16 (width 2, surrogate pairs joined) or UTF-32 (width 4) string
 * at addr, up to its 0 unit, as UTF-8 in out (cut to fit); kernel memory,
 * or the current process's with user.  Raises SystemTap's errors: "kernel
 * (user) string copy fault at 0xADDR [man error::fault]" at the unit that
 * faults, "invalid UTF-16 (32) character U+X at 0xADDR" (out keeps what
 * was converted before).
 */
void stp_string_utf(struct stp_context *c, char *out, int64_t addr, int width,
		    bool user)
{
	unsigned long p = (unsigned long)addr;
	int len = 0, n;
	u32 u;
	u16 unit;

#define STP_UTF_READ(dst, at)						\
	(user ? copy_from_user_nofault(&(dst), (const void __user *)(at),\
				       sizeof(dst))			\
	      : copy_from_kernel_nofault(&(dst), (const void *)(at),	\
					 sizeof(dst)))
	out[0] = '\0';
	for (;;) {
		if (width == 4) {
			if (STP_UTF_READ(u, p))
				goto fault;
		} else {
			if (STP_UTF_READ(unit, p))
				goto fault;
			u = unit;
			/* a high surrogate joins the low one after it */
			if (u >= 0xd800 && u <= 0xdbff) {
				if (STP_UTF_READ(unit, p + 2)) {
					p += 2;
					goto fault;
				}
				if (unit >= 0xdc00 && unit <= 0xdfff) {
					u = 0x10000 + ((u & 0x3ff) << 10) +
					    (unit & 0x3ff);
					p += 2;
				}
			}
		}
		if (!u)
			return;
		n = stp_utf8_put(out + len, MAXSTRINGLEN - len, u);
		if (n < 0) {
			stp_errorf(c, "invalid UTF-%d character U+%X at 0x%lx",
				   width * 8, u, p);
			return;
		}
		if (!n)
			return;
		len += n;
		p += width;
	}
#undef STP_UTF_READ
fault:
	stp_errorf(c, "%s string copy fault at 0x%lx [man error::fault]",
		   user ? "user" : "kernel", p);
}

/*
 * Fault-safe reads of n bytes at addr for embedded C (tapsets): kernel
 * memory (stp_kread) or the current process's memory (stp_uread).  A
 * fault raises SystemTap's "read fault [man error::fault] at 0xADDR" and
 * returns -EFAULT; dst is then zeroed.  STP_KREAD(c, var, ptr) reads *ptr
 * into var, whose size must be the same.
 */
int stp_kread(struct stp_context *c, void *dst, const void *addr, size_t n)
{
	if (!copy_from_kernel_nofault(dst, addr, n))
		return 0;
	memset(dst, 0, n);
	stp_errorf(c, "read fault [man error::fault] at 0x%lx",
		   (unsigned long)addr);
	return -EFAULT;
}

int stp_uread(struct stp_context *c, void *dst, unsigned long addr, size_t n)
{
	if (!copy_from_user_nofault(dst, (const void __user *)addr, n))
		return 0;
	memset(dst, 0, n);
	stp_errorf(c, "read fault [man error::fault] at 0x%lx", addr);
	return -EFAULT;
}
