/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What generated code calls for the script's builtins and what the tapset
 * library's embedded C uses: the string functions (tapset.c), the
 * fault-safe memory readers, and regular expression matches (regex.c).
 * Results are script strings (MAXSTRINGLEN buffers, silently truncated).
 */
#ifndef RUNTIME_TAPSET_H
#define RUNTIME_TAPSET_H

int64_t stp_f_strlen(const char *s);
void stp_f_substr(char *out, const char *s, int64_t start, int64_t length);
int64_t stp_f_stringat(const char *s, int64_t pos);
int64_t stp_f_isinstr(const char *s1, const char *s2);
int64_t stp_f_strpos(const char *s1, const char *s2);
void stp_f_str_replace(char *out, const char *prnt, const char *srch,
		       const char *rplc);
/* printable form of in (SystemTap's text_str escapes), tapset.c */
void stp_text(char *out, const char *in, int64_t inlen, int64_t outlen,
	      bool quoted, bool buffer);
void stp_f_text_strn(char *out, const char *s, int64_t len, int64_t quoted);
void stp_f_text_str(char *out, const char *s);
void stp_f_string_quoted(char *out, const char *s);
int64_t stp_f_strtol(const char *s, int64_t base);
void stp_f_tokenize(struct stp_context *c, char *out, const char *input,
		    const char *delim);

/* Memory: a string at addr (kernel or user), n bytes, faults as errors */
long stp_copy_string(char *out, unsigned long addr, size_t n, bool user);
void stp_f_kernel_string(struct stp_context *c, char *out, int64_t addr);
void stp_f_kernel_string_or(struct stp_context *c, char *out, int64_t addr,
			    const char *err_msg);
void stp_string_utf(struct stp_context *c, char *out, int64_t addr, int width,
		    bool user);
int stp_kread(struct stp_context *c, void *dst, const void *addr, size_t n);
int stp_uread(struct stp_context *c, void *dst, unsigned long addr, size_t n);

/* STP_KREAD(c, var, ptr): *ptr into var, the sizes checked at build */
#define STP_KREAD(c, var, ptr)						\
	({								\
		BUILD_BUG_ON(sizeof(var) != sizeof(*(ptr)));		\
		stp_kread((c), &(var), (ptr), sizeof(var));		\
	})

/* Regular expressions: =~ and matched(N), ngroups() (regex.c) */
int64_t stp_re_match(struct stp_context *c, const struct stp_regex *re,
		     const char *s, int *scratch);
void stp_re_matched(struct stp_context *c, char *out, int64_t n,
		    const char *where);
int64_t stp_re_ngroups(struct stp_context *c, const char *where);

#endif /* RUNTIME_TAPSET_H */
