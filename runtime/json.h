/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON text (json.c): escaped strings for the json tapset and
 * json_string(), and a histogram's buckets as a JSON array for
 * @json_print and --format=json.
 */
#ifndef RUNTIME_JSON_H
#define RUNTIME_JSON_H

/* Text built into a MAXSTRINGLEN string: s, n bytes so far */
struct stp_json_out {
	char *s;
	size_t n;
};

void stp_json_raw(struct stp_json_out *o, const char *text, size_t reserve);
void stp_json_escaped(struct stp_json_out *o, const char *text, size_t reserve);
void stp_json_string(char *out, const char *text);
void stp_print_json_hist(struct stp_context *c, const struct stp_stat_desc *d,
			 const struct stp_stat *sd);
void stp_sb_json_hist(struct stp_strbuf *sb, const struct stp_stat_desc *d,
		      const struct stp_stat *sd);

#endif /* RUNTIME_JSON_H */
