// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the raw BTF bytes of a kernel come from (see btf.h for the order
 * btf_load tries them): an ELF vmlinux's .BTF section (read by elf/), a
 * bzImage, whose compressed payload (located by the boot header's
 * payload_offset/payload_length, else by scanning for a compressor's
 * magic) is piped through the decompressor, a raw file (/sys/kernel/btf/vmlinux), and the
 * cache file that keeps a blob with the state of the file it came from.
 * What the bytes mean is btf.c's.
 */
#define _GNU_SOURCE
#include "target/btf_blob.h"
#include "elf/elf.h"
#include "lib/files.h"
#include "lib/arena.h"
#include "lib/strbuf.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_VMLINUX ((size_t)1 << 31)	/* decompressed kernel, bytes */

/* The cache file: this header, the source's path, the raw BTF. */
#define CACHE_MAGIC "stapBTF1"

struct cache_header {
	char magic[8];
	uint64_t src_size;	/* the source file when the blob was taken */
	int64_t src_mtime_sec;
	int64_t src_mtime_nsec;
	uint32_t src_path_len;	/* the source's path follows the header */
	uint32_t blob_len;	/* then the raw BTF */
};

/* ------------------------------------------------------------------ */
/* Finding the blob: ELF, bzImage, decompressors */

/* Copy IMG's .BTF section into a malloc'ed blob. */
int btf_blob_from_elf(const uint8_t *img, size_t len, uint8_t **blob,
			 size_t *blob_len, char **why)
{
	struct elf_file *f = elf_file_open_memory(img, len, why);
	const void *data;
	const char *w;
	size_t size;
	int rc;

	if (!f)
		return -1;
	rc = elf_file_section(f, ".BTF", &data, &size, NULL, &w);
	if (rc == 0) {
		*blob = xmalloc(size ? size : 1);
		memcpy(*blob, data, size);
		*blob_len = size;
	} else if (rc == -1) {
		*why = xasprintf("no .BTF section");
	} else {
		*why = xasprintf("section .BTF is not in the file");
	}
	elf_file_close(f);
	return rc ? -1 : 0;
}

struct codec {
	const char *tool;	/* run as "TOOL -dc" */
	const char *package;	/* the Debian package that has it */
	uint8_t magic[6];
	size_t magic_len;
};

static const struct codec codecs[] = {
	{ "gzip", "gzip", { 0x1f, 0x8b, 0x08 }, 3 },
	{ "xz", "xz-utils", { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6 },
	{ "lz4", "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4 },
	{ "zstd", "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4 },
};

static const struct codec *codec_at(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (len >= codecs[i].magic_len &&
		    memcmp(p, codecs[i].magic, codecs[i].magic_len) == 0)
			return &codecs[i];
	return NULL;
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static bool is_bzimage(const uint8_t *img, size_t len)
{
	return len > 0x260 && memcmp(img + 0x202, "HdrS", 4) == 0;
}

/*
 * The compressed vmlinux inside a bzImage. The boot header (protocol
 * 2.08+) gives its offset from the protected-mode code and its length,
 * which includes the 4-byte uncompressed size the kernel build appends
 * (left out of *plen: the decompressors reject it as trailing garbage).
 * Without that header: the first compressor magic after the setup code,
 * to the end of the file.
 */
static const struct codec *find_payload(const uint8_t *img, size_t len,
					size_t *poff, size_t *plen,
					size_t *out_hint)
{
	unsigned setup_sects = img[0x1f1] ? img[0x1f1] : 4;
	size_t pm = ((size_t)setup_sects + 1) * 512;
	unsigned version = (unsigned)img[0x206] | (unsigned)img[0x207] << 8;
	const struct codec *c;

	*out_hint = 0;
	if (version >= 0x208 && pm < len) {
		size_t off = pm + le32_at(img + 0x248);
		size_t n = le32_at(img + 0x24c);

		if (off < len && n > 4 && n <= len - off) {
			c = codec_at(img + off, n);
			if (c) {
				*poff = off;
				*plen = n - 4;
				*out_hint = le32_at(img + off + n - 4);
				return c;
			}
		}
	}
	for (size_t off = pm < len ? pm : 0; off < len; off++) {
		c = codec_at(img + off, len - off);
		if (c) {
			*poff = off;
			*plen = len - off;
			return c;
		}
	}
	return NULL;
}

static void set_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/*
 * Run "TOOL -dc" with IN on its standard input; its standard output goes
 * to *out (malloc'ed), the start of its standard error to *diag. The input
 * goes through a socket, written with MSG_NOSIGNAL, so a tool that exits
 * early cannot kill us with SIGPIPE. Returns 0 with the tool's wait status
 * in *status (-1 if unknown), or -1 with errno set when it could not be
 * started.
 */
static int run_decompressor(const char *tool, const uint8_t *in,
			    size_t in_len, size_t out_hint, uint8_t **out,
			    size_t *out_len, int *status, char *diag,
			    size_t diag_size)
{
	int in_sv[2], out_p[2], err_p[2], rc;
	char *argv[] = { (char *)tool, (char *)"-dc", NULL };
	posix_spawn_file_actions_t fa;
	size_t sent = 0, cap, dlen = 0;
	bool out_open = true, err_open = true;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sv) != 0)
		return -1;
	if (pipe2(out_p, O_CLOEXEC) != 0) {
		close(in_sv[0]);
		close(in_sv[1]);
		return -1;
	}
	if (pipe2(err_p, O_CLOEXEC) != 0) {
		close(in_sv[0]);
		close(in_sv[1]);
		close(out_p[0]);
		close(out_p[1]);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, out_p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err_p[1], 2);
	rc = posix_spawnp(&pid, tool, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in_sv[1]);
	close(out_p[1]);
	close(err_p[1]);
	if (rc != 0) {
		close(in_sv[0]);
		close(out_p[0]);
		close(err_p[0]);
		errno = rc;
		return -1;
	}
	set_nonblocking(in_sv[0]);
	set_nonblocking(out_p[0]);
	set_nonblocking(err_p[0]);
	cap = out_hint && out_hint < (1u << 30) ? out_hint + 4096 : 1 << 24;
	*out = xmalloc(cap);
	*out_len = 0;
	diag[0] = '\0';
	while (out_open || err_open) {
		struct pollfd pf[3] = {
			{ .fd = in_sv[0] >= 0 ? in_sv[0] : -1,
			  .events = POLLOUT },
			{ .fd = out_open ? out_p[0] : -1, .events = POLLIN },
			{ .fd = err_open ? err_p[0] : -1, .events = POLLIN },
		};

		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (in_sv[0] >= 0 && pf[0].revents) {
			size_t chunk = in_len - sent < 65536 ? in_len - sent
							     : 65536;
			ssize_t n = chunk ? send(in_sv[0], in + sent, chunk,
						 MSG_NOSIGNAL) : 0;

			if (n > 0)
				sent += (size_t)n;
			if (sent == in_len ||
			    (n < 0 && errno != EAGAIN && errno != EINTR)) {
				close(in_sv[0]);	/* EOF for the tool */
				in_sv[0] = -1;
			}
		}
		if (out_open && pf[1].revents) {
			ssize_t n;

			if (cap - *out_len < 65536) {
				cap *= 2;
				*out = xrealloc(*out, cap);
			}
			n = read(out_p[0], *out + *out_len, cap - *out_len);
			if (n > 0)
				*out_len += (size_t)n;
			else if (n == 0 || (errno != EAGAIN && errno != EINTR))
				out_open = false;
			if (*out_len > MAX_VMLINUX) {	/* not a kernel */
				kill(pid, SIGKILL);
				out_open = false;
			}
		}
		if (err_open && pf[2].revents) {
			char buf[512];
			ssize_t n = read(err_p[0], buf, sizeof(buf));

			if (n > 0 && dlen + 1 < diag_size) {
				size_t k = (size_t)n < diag_size - dlen - 1 ?
					   (size_t)n : diag_size - dlen - 1;

				memcpy(diag + dlen, buf, k);
				dlen += k;
				diag[dlen] = '\0';
			} else if (n == 0 ||
				   (n < 0 && errno != EAGAIN && errno != EINTR)) {
				err_open = false;
			}
		}
	}
	if (in_sv[0] >= 0)
		close(in_sv[0]);
	close(out_p[0]);
	close(err_p[0]);
	*status = -1;
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* Decompress a bzImage's vmlinux and copy out its .BTF. */
static int blob_from_bzimage(const uint8_t *img, size_t len, uint8_t **blob,
			     size_t *blob_len, char **why)
{
	size_t poff, plen, hint, vlen;
	const struct codec *c = find_payload(img, len, &poff, &plen, &hint);
	uint8_t *vmlinux = NULL;
	char diag[512], *elf_why = NULL;
	int status, rc;

	if (!c) {
		*why = xasprintf("no compressed kernel (gzip, xz, lz4, zstd) "
				  "in the bzImage");
		return -1;
	}
	if (run_decompressor(c->tool, img + poff, plen, hint, &vmlinux, &vlen,
			     &status, diag, sizeof(diag)) != 0) {
		if (errno == ENOENT)
			*why = xasprintf("decompressing needs %s, which is "
					  "not installed (Debian package %s)",
					  c->tool, c->package);
		else
			*why = xasprintf("cannot run %s: %s", c->tool,
					  strerror(errno));
		return -1;
	}
	/* gzip exits 2 after "trailing garbage ignored": judge the ELF */
	rc = btf_blob_from_elf(vmlinux, vlen, blob, blob_len, &elf_why);
	if (rc != 0) {
		diag[strcspn(diag, "\n")] = '\0';
		if (status != -1 && WIFSIGNALED(status))
			*why = xasprintf("%s -dc killed by signal %d",
					  c->tool, WTERMSIG(status));
		else if (status != -1 && WEXITSTATUS(status) != 0)
			*why = xasprintf("%s -dc failed (exit status %d%s%s)",
					  c->tool, WEXITSTATUS(status),
					  diag[0] ? ": " : "", diag);
		else
			*why = xasprintf("decompressed kernel: %s", elf_why);
		free(elf_why);
	}
	free(vmlinux);
	return rc;
}

/* The whole file: mapped when possible (a -dbg vmlinux is 600 MB and we
 * want 5 of them), else read. *mapped says how to release it. */
static uint8_t *map_file(const char *path, size_t *len, bool *mapped,
			 char **why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *buf;
	size_t cap, n = 0;

	*mapped = false;
	if (fd < 0 || fstat(fd, &st) != 0) {
		*why = xasprintf("%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (buf != MAP_FAILED) {
			close(fd);
			*len = (size_t)st.st_size;
			*mapped = true;
			return buf;
		}
	}
	/* /sys/kernel/btf/vmlinux cannot be mapped */
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 20;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*why = xasprintf("%s", strerror(errno));
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static void unmap_file(uint8_t *buf, size_t len, bool mapped)
{
	if (mapped)
		munmap(buf, len);
	else
		free(buf);
}

/* The raw BTF in PATH, whatever kind of file it is. */
int btf_blob_from_file(const char *path, uint8_t **blob,
			  size_t *blob_len, char **err)
{
	size_t len;
	bool mapped;
	char *why = NULL;
	uint8_t *img = map_file(path, &len, &mapped, &why);
	int rc = -1;

	if (!img) {
		*err = xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	if (len >= 2 && img[0] == (BTF_MAGIC_LE & 0xff) &&
	    img[1] == BTF_MAGIC_LE >> 8) {
		*blob = xmalloc(len);
		memcpy(*blob, img, len);
		*blob_len = len;
		rc = 0;
	} else if (len >= sizeof(struct cache_header) &&
		   memcmp(img, CACHE_MAGIC, 8) == 0) {
		struct cache_header h;
		size_t off = sizeof(h);

		memcpy(&h, img, sizeof(h));
		off += h.src_path_len;
		if (off < len && h.blob_len == len - off) {
			*blob = xmalloc(h.blob_len);
			memcpy(*blob, img + off, h.blob_len);
			*blob_len = h.blob_len;
			rc = 0;
		} else {
			why = xasprintf("truncated cache file");
		}
	} else if (len >= SELFMAG && memcmp(img, ELFMAG, SELFMAG) == 0) {
		rc = btf_blob_from_elf(img, len, blob, blob_len, &why);
	} else if (is_bzimage(img, len)) {
		rc = blob_from_bzimage(img, len, blob, blob_len, &why);
	} else {
		why = xasprintf("neither BTF, an ELF file nor a bzImage");
	}
	unmap_file(img, len, mapped);
	if (rc != 0) {
		*err = xasprintf("%s: %s", path, why);
		free(why);
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* The cache */

static bool same_file_state(const struct stat *st, const struct cache_header *h)
{
	return (uint64_t)st->st_size == h->src_size &&
	       (int64_t)st->st_mtim.tv_sec == h->src_mtime_sec &&
	       (int64_t)st->st_mtim.tv_nsec == h->src_mtime_nsec;
}

/* The cached blob, if still valid; its source's path in *src. */
int btf_cache_read(const char *path, uint8_t **blob, size_t *blob_len,
		      char **src)
{
	FILE *f = fopen(path, "rbe");
	struct cache_header h;
	struct stat st;
	char *sp = NULL;
	uint8_t *bl = NULL;

	if (!f)
		return -1;
	if (fread(&h, sizeof(h), 1, f) != 1 ||
	    memcmp(h.magic, CACHE_MAGIC, 8) != 0 ||
	    !h.src_path_len || h.src_path_len > 4096 || !h.blob_len)
		goto fail;
	sp = xmalloc(h.src_path_len + 1);
	if (fread(sp, h.src_path_len, 1, f) != 1)
		goto fail;
	sp[h.src_path_len] = '\0';
	if (stat(sp, &st) != 0 || !same_file_state(&st, &h))
		goto fail;
	bl = xmalloc(h.blob_len);
	if (fread(bl, h.blob_len, 1, f) != 1 || fgetc(f) != EOF)
		goto fail;
	fclose(f);
	*blob = bl;
	*blob_len = h.blob_len;
	*src = sp;
	return 0;
fail:
	free(sp);
	free(bl);
	fclose(f);
	return -1;
}

/* Write the cache atomically (temporary file, rename); failures are
 * silent: the cache is an optimisation. */
void btf_cache_write(const char *cache_dir, const char *path,
			const char *src, const struct stat *st,
			const uint8_t *blob, size_t blob_len)
{
	struct cache_header h = { .magic = CACHE_MAGIC };
	struct replace_file r;
	FILE *f;
	bool ok;

	if (blob_len > UINT32_MAX || strlen(src) > 4096)
		return;
	h.src_size = (uint64_t)st->st_size;
	h.src_mtime_sec = st->st_mtim.tv_sec;
	h.src_mtime_nsec = st->st_mtim.tv_nsec;
	h.src_path_len = (uint32_t)strlen(src);
	h.blob_len = (uint32_t)blob_len;
	f = replace_open(&r, cache_dir, path);
	if (!f)
		return;
	ok = fwrite(&h, sizeof(h), 1, f) == 1 &&
	     fwrite(src, h.src_path_len, 1, f) == 1 &&
	     fwrite(blob, blob_len, 1, f) == 1;
	replace_commit(&r, ok);
}

