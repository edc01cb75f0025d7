// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sign.c - --sign-module[=KEYDIR]: modules signed for kernels that load
 * only signed ones (module.sig_enforce=1, CONFIG_MODULE_SIG_FORCE, Secure
 * Boot's lockdown).
 *
 * KEYDIR (default CACHE/signing-key, mode 0700) holds signing_key.pem
 * (the private key, 0600) and signing_key.x509 (its certificate, DER: what
 * `mokutil --import` takes). When either is missing, openssl makes a new
 * pair: RSA 4096, self-signed, with the extensions the kernel's own
 * certs/x509.genkey asks for (code signing). The module is signed with
 * the kernel's scripts/sign-file, from the target's build tree or from
 * Debian's linux-kbuild package, with the hash the kernel was configured
 * for (CONFIG_MODULE_SIG_HASH): the PKCS#7 signature, its struct
 * module_signature and "~Module signature appended~\n" go after the ELF
 * image.
 *
 * The certificate's bytes are part of the module cache key (build_hash),
 * so a signed module and an unsigned one of the same script, or two
 * signed with different keys, are different cache entries (and names).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module/build.h"
#include "target/target.h"

static const char sign_config[] =
	"[ req ]\n"
	"default_bits = 4096\n"
	"distinguished_name = req_distinguished_name\n"
	"prompt = no\n"
	"string_mask = utf8only\n"
	"x509_extensions = myexts\n"
	"\n"
	"[ req_distinguished_name ]\n"
	"O = stap\n"
	"CN = stap module signing key\n"
	"\n"
	"[ myexts ]\n"
	"basicConstraints = critical,CA:FALSE\n"
	"keyUsage = digitalSignature\n"
	"extendedKeyUsage = codeSigning\n"
	"subjectKeyIdentifier = hash\n"
	"authorityKeyIdentifier = keyid\n";

static int make_key_pair(struct driver *d)
{
	struct session *s = d->s;
	const char *conf = arena_printf(&s->arena, "%s/x509.genkey",
					module_run(d)->sign_keydir);
	const char *log = arena_printf(&s->arena, "%s/openssl.log",
				       module_run(d)->sign_keydir);
	FILE *f = fopen(conf, "we");

	if (!f || fputs(sign_config, f) < 0 || fclose(f)) {
		fprintf(stderr, "stap: error: --sign-module: cannot write %s: "
			"%s\n", conf, strerror(errno));
		return -1;
	}
	char *const argv[] = {
		"openssl", "req", "-new", "-nodes", "-utf8", "-sha256",
		"-days", "36500", "-batch", "-x509", "-config", (char *)conf,
		"-outform", "DER", "-out", (char *)module_run(d)->sign_cert,
		"-keyout", (char *)module_run(d)->sign_key, NULL,
	};
	mode_t old = umask(077);
	int rc = run_command(argv, log, false);
	umask(old);
	if (rc != 0 || !path_exists(module_run(d)->sign_key) || !path_exists(module_run(d)->sign_cert)) {
		fprintf(stderr, "stap: error: --sign-module: openssl could not "
			"make a key pair in %s (see %s)\n", module_run(d)->sign_keydir, log);
		return -1;
	}
	chmod(module_run(d)->sign_key, 0600);
	if (s->verbose)
		fprintf(stderr, "stap: made the module signing key %s and its "
			"certificate %s\n", module_run(d)->sign_key, module_run(d)->sign_cert);
	return 0;
}

int sign_prepare(struct driver *d)
{
	struct session *s = d->s;
	struct stat st;

	if (!module_run(d)->sign_keydir)
		module_run(d)->sign_keydir = arena_printf(&s->arena, "%s/signing-key",
					      s->cache_dir);
	module_run(d)->sign_key = arena_printf(&s->arena, "%s/signing_key.pem",
				   module_run(d)->sign_keydir);
	module_run(d)->sign_cert = arena_printf(&s->arena, "%s/signing_key.x509",
				    module_run(d)->sign_keydir);
	char *dir = arena_strdup(&s->arena, module_run(d)->sign_keydir);
	if (make_dirs(dir) || stat(module_run(d)->sign_keydir, &st) ||
	    !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "stap: error: --sign-module: cannot create %s: "
			"%s\n", module_run(d)->sign_keydir, strerror(errno));
		return -1;
	}
	/* the private key's folder: ours alone */
	if ((st.st_mode & 077) && chmod(module_run(d)->sign_keydir, 0700)) {
		fprintf(stderr, "stap: error: --sign-module: %s: %s\n",
			module_run(d)->sign_keydir, strerror(errno));
		return -1;
	}
	if ((!path_exists(module_run(d)->sign_key) || !path_exists(module_run(d)->sign_cert)) &&
	    make_key_pair(d))
		return -1;
	char *cert = read_file(module_run(d)->sign_cert, &module_run(d)->sign_cert_len);
	if (!cert || !module_run(d)->sign_cert_len) {
		fprintf(stderr, "stap: error: --sign-module: cannot read %s\n",
			module_run(d)->sign_cert);
		free(cert);
		return -1;
	}
	module_run(d)->sign_cert_data = arena_alloc(&s->arena, module_run(d)->sign_cert_len);
	memcpy(module_run(d)->sign_cert_data, cert, module_run(d)->sign_cert_len);
	free(cert);
	return 0;
}

/* The kernel's sign-file: the build tree's, else Debian's linux-kbuild
 * of the release's version (linux-kbuild-6.1 for 6.1.0-56-...). */
static const char *find_sign_file(struct driver *d)
{
	struct session *s = d->s;
	const char *p = arena_printf(&s->arena, "%s/scripts/sign-file",
				     s->build_dir);
	glob_t g;

	if (access(p, X_OK) == 0)
		return p;
	p = NULL;
	if (glob("/usr/lib/linux-kbuild-*/scripts/sign-file", 0, NULL, &g))
		return NULL;
	for (size_t i = 0; i < g.gl_pathc && !p; i++) {
		const char *v = g.gl_pathv[i] + strlen("/usr/lib/linux-kbuild-");
		size_t n = strcspn(v, "/");

		if (!strncmp(s->release, v, n) &&
		    strchr(".-+", s->release[n]) && access(g.gl_pathv[i], X_OK) == 0)
			p = arena_strdup(&s->arena, g.gl_pathv[i]);
	}
	globfree(&g);
	return p;
}

int sign_module_file(struct driver *d, const char *ko)
{
	struct session *s = d->s;
	const char *tool = find_sign_file(d);
	const char *hash = target_config(s->target, "CONFIG_MODULE_SIG_HASH");
	const char *log = arena_printf(&s->arena, "%s/sign.log", d->tmpdir);

	if (!tool) {
		fprintf(stderr, "stap: error: --sign-module: no scripts/sign-file "
			"in %s or /usr/lib/linux-kbuild-*\n", s->build_dir);
		return -1;
	}
	/* "sha256" with its quotes in .config */
	char *algo = arena_strdup(&s->arena, hash && hash[0] == '"' ?
				  hash + 1 : hash ? hash : "sha256");
	algo[strcspn(algo, "\"")] = '\0';
	if (!*algo)
		algo = "sha256";
	char *const argv[] = {
		(char *)tool, algo, (char *)module_run(d)->sign_key, (char *)module_run(d)->sign_cert,
		(char *)ko, NULL,
	};
	if (run_command(argv, log, false) != 0) {
		size_t len;
		char *text = read_file(log, &len);

		fprintf(stderr, "stap: error: --sign-module: %s failed:\n%s",
			tool, text ? text : "");
		free(text);
		return -1;
	}
	if (s->verbose)
		fprintf(stderr, "Pass 4: signed %s (%s, %s)\n", ko, algo,
			module_run(d)->sign_cert);
	return 0;
}
