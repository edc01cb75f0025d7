// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stapbpf: the BPF backend's loader on its own, for a qemu guest (stap
 * --runtime=bpf -r RELEASE, or --vm): the guest runs it from this
 * machine's files as it runs staprun for a module, with staprun's shape
 * of command line:
 *
 *   stapbpf [-v]... [-c CMD] [-x PID] PROG.so
 *
 * PROG.so is pass 4's program (the user half, the kernel half inside it);
 * the run is bpf/loader.c's, with its output, errors and exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/bpf.h"

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	long long pid = 0;
	int verbose = 0, opt;

	while ((opt = getopt(argc, argv, "+vc:x:")) != -1) {
		switch (opt) {
		case 'v':
			verbose++;
			break;
		case 'c':
			cmd = optarg;
			break;
		case 'x':
			pid = atoll(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	/* dlopen searches the library path for a bare name */
	char path[4096];
	snprintf(path, sizeof(path), "%s%s", strchr(argv[optind], '/') ?
		 "" : "./", argv[optind]);
	return bpf_load_and_run_so(path, verbose > 0, cmd, pid);
usage:
	fputs("usage: stapbpf [-v] [-c CMD] [-x PID] PROG.so\n", stderr);
	return 1;
}
