/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The raw BTF blob of a file, and the BTF cache file; internal to btf.c
 * (btf_blob.c says where the bytes come from), but for btf_target_blob,
 * which the BPF backend reads another kernel's types from (libbpf's own
 * struct btf, made from the blob).
 */
#ifndef TARGET_BTF_BLOB_H
#define TARGET_BTF_BLOB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define BTF_MAGIC_LE 0xeb9f	/* the blob's first two bytes, little-endian */

/*
 * The raw BTF in PATH, whatever kind of file it is (raw BTF, ELF with a
 * .BTF section, bzImage): 0 with a malloc'ed *blob of *len bytes, or -1
 * with a malloc'ed *why.
 */
int btf_blob_from_file(const char *path, uint8_t **blob, size_t *len,
		       char **why);

/* The .BTF section of the ELF image IMG (LEN bytes) copied into a
 * malloc'ed *blob; -1 with a malloc'ed *why when there is none. */
int btf_blob_from_elf(const uint8_t *img, size_t len, uint8_t **blob,
		      size_t *blob_len, char **why);

/* The blob cached in PATH while its source file is unchanged: 0 with the
 * malloc'ed blob and source path, else -1. */
int btf_cache_read(const char *path, uint8_t **blob, size_t *blob_len,
		   char **src);

/* Write the cache atomically (temporary file, rename); failures are
 * silent: the cache is an optimisation. */
void btf_cache_write(const char *cache_dir, const char *path,
		     const char *src, const struct stat *st,
		     const uint8_t *blob, size_t blob_len);

/* The raw BTF of t's kernel (btf.c): from the cache, else from t's
 * files; 0 with a malloc'ed *blob of *len bytes, or -1 with a malloc'ed
 * *err. */
struct target;
int btf_target_blob(const struct target *t, uint8_t **blob, size_t *len,
		    char **err);

#endif /* TARGET_BTF_BLOB_H */
