// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pass 5 on the BPF backend: load the kernel half (prog.bpf.o, libbpf),
 * hand the user half (prog.so) the maps and the globals, run begin, attach
 * the tracepoints, then poll the ring buffer (formatting print records as
 * the module backend prints them) and run the timers until exit() or
 * SIGINT/SIGTERM; then detach, drain, run end and close everything, so
 * nothing of ours stays loaded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wordexp.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/bpf.h"
#include "lib/arena.h"
#include "semantic/format.h"

/*
 * The user half's tables of kernel programs, each row led by its
 * program's name and the table ended by a NULL one: the kernel's timers
 * and perf events (attach.c), the uprobes with the binary and file offset
 * of each (attach_uprobe.c), the kernel functions' probe points.
 */
struct perf_row {
	const char *prog;
	unsigned long long ns;
	int all_cpus;
	unsigned type;
	unsigned long long config;
	int freq;
	const char *pp;
};
struct uprobe_row {
	const char *prog, *path;
	unsigned long long offset, ref_ctr;
	int ret;
	long long pid;
};
struct stp_kfunc {
	const char *prog, *pp;
};

/* The row of program p in a table of rows of size stride; NULL if none. */
static const void *row_of(const void *table, size_t stride,
			  const struct bpf_program *p)
{
	const char *name = bpf_program__name(p);

	for (const char *r = table; r && *(const char *const *)r; r += stride)
		if (!strcmp(*(const char *const *)r, name))
			return r;
	return NULL;
}

struct user_half {
	void (*const *begin)(void);
	void (*const *end)(void);
	const struct { unsigned long long ns, rand_ns; void (*fn)(void); }
		*timers;
	const struct { const char *fmt; unsigned len; const char *types; } *fmts;
	const int *nmaps;
	void (*init)(struct stp_rt *);
	const struct perf_row *perf;
	const struct uprobe_row *uprobes;
};

static const struct user_half *loaded;
/* each format's pieces, parsed once at load */
static struct fmt_parsed {
	struct fmt_piece *pieces;
	int n;
} *parsed;
static const char *const *error_texts;
static int nerrors;
/* MAXERRORS: the errors a run survives (the user half's stp_max_errors) */
static int max_errors;
static volatile sig_atomic_t stop_signal;
static bool exit_requested;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void request_exit(void)
{
	exit_requested = true;
}

/* A run-time error (division by 0 ...): said, and the run ends without
 * end probes, as the module backend does. */
static bool run_failed(void)
{
	return nerrors > max_errors;
}

/* One more error said: past MAXERRORS (4.8's default 0: the first) the
 * run ends, without end probes. */
static void count_error(void)
{
	nerrors++;
	if (run_failed())
		exit_requested = true;
}

static void run_error(unsigned id)
{
	/* the hits that failed too while the loader caught up with the
	 * failure are not errors of their own */
	if (run_failed())
		return;
	fflush(stdout);
	fprintf(stderr, "ERROR: %s\n", error_texts[id]);
	count_error();
}

/* An uncaught error() or a run-time error of the user half. */
static void run_error_text(const char *msg)
{
	fflush(stdout);
	fprintf(stderr, "ERROR: %s\n", msg);
	count_error();
}

/* A print record: the format, its arguments after the header. */
static void format_record(struct bpf_sink *sink, const void *rec,
			  unsigned len)
{
	const struct stp_hdr_view { unsigned kind, id; } *h = rec;
	const char *p = (const char *)rec + sizeof(*h);

	bpf_format(sink, parsed[h->id].pieces, parsed[h->id].n,
		   loaded->fmts[h->id].types, p, (const char *)rec + len);
}

/* A ring buffer record's kind: 0 a printf (format_record), 1 exit(), 2
 * a run-time error, 3 a read fault, 4 text formatted in the kernel
 * (ustack.c), 5 a user stack's missing tables, 6 error("msg"), 7 a
 * kernel stack (kstack.c), 8 a histogram to print (emit_stat.c), 9
 * warn("msg"). */
static void print_record(const void *rec, unsigned len)
{
	const struct { unsigned kind, id; } *h = rec;

	if (h->kind == 1) {
		exit_requested = true;
		return;
	}
	if (h->kind == 2) {
		run_error(h->id);
		return;
	}
	if (h->kind == 3 && len >= sizeof(*h) + 8) {
		/* a read fault: the text has the address's place, %llx */
		unsigned long long addr;
		memcpy(&addr, (const char *)rec + sizeof(*h), sizeof(addr));
		const char *t = error_texts[h->id], *at = strstr(t, "%llx");
		/* or a level, %lld (callers()) */
		const char *lv = at ? NULL : strstr(t, "%lld");
		if (run_failed())
			return;
		fflush(stdout);
		if (lv)
			fprintf(stderr, "ERROR: %.*s%lld%s\n", (int)(lv - t), t,
				(long long)addr, lv + 4);
		else
			fprintf(stderr, "ERROR: %.*s%llx%s\n", at ?
				(int)(at - t) : (int)strlen(t), t, addr,
				at ? at + 4 : "");
		count_error();
		return;
	}
	if ((h->kind == 6 || h->kind == 9) &&
	    len >= sizeof(*h) + BPF_STRLEN) {
		/* error("msg") or warn("msg") (prelude_task.c) in a kernel
		 * probe: its message */
		char msg[BPF_STRLEN + 1];
		memcpy(msg, (const char *)rec + sizeof(*h), BPF_STRLEN);
		msg[BPF_STRLEN] = 0;
		if (h->kind == 6) {
			if (!run_failed())
				run_error_text(msg);
			return;
		}
		size_t n = strlen(msg);
		fflush(stdout);
		fprintf(stderr, "WARNING: %s%s", msg,
			n && msg[n - 1] == '\n' ? "" : "\n");
		return;
	}
	if (h->kind == 4 && len >= sizeof(*h) + h->id) {
		/* text formatted in the kernel (print_ubacktrace()) */
		fwrite((const char *)rec + sizeof(*h), 1, h->id, stdout);
		return;
	}
	if (h->kind == 7 && (h->id & 0x80000000u)) {
		/* print_stack(): a string of addresses (kstack.c) */
		bpf_kstack_print_syms(stdout, (const char *)rec + sizeof(*h),
				      len - sizeof(*h));
		return;
	}
	if (h->kind == 7 && len >= sizeof(*h) + 8ULL * h->id) {
		/* a kernel stack's addresses (print_backtrace()) */
		unsigned long long pcs[64];
		unsigned n = h->id < 64 ? h->id : 64;
		memcpy(pcs, (const char *)rec + sizeof(*h), 8ULL * n);
		bpf_kstack_print(stdout, pcs, n);
		return;
	}
	if (h->kind == 8 && len >= sizeof(*h) + sizeof(struct stp_stat_desc) +
	    sizeof(struct stp_stat)) {
		/* print(@hist_*) in a kernel probe: the statistic's
		 * description and its merged aggregate (emit_stat.c) */
		struct stp_stat_desc d;
		const char *a = (const char *)rec + sizeof(*h) + sizeof(d);
		memcpy(&d, (const char *)rec + sizeof(*h), sizeof(d));
		if (d.nbuckets >= 0 && len >= sizeof(*h) + sizeof(d) +
		    sizeof(struct stp_stat) + 8ULL * (unsigned)d.nbuckets) {
			struct bpf_sink sink = { .f = stdout };
			bpf_hist(&sink, &d, (const struct stp_stat *)a);
		}
		return;
	}
	if (h->kind == 5 && len >= sizeof(*h) + h->id) {
		/* a user stack reached a file without tables (its path) */
		fflush(stdout);
		fprintf(stderr, "WARNING: Missing unwind data for a module, "
			"rerun with 'stap -d %.*s'\n", (int)h->id,
			(const char *)rec + sizeof(*h));
		return;
	}
	struct bpf_sink sink = { .f = stdout };
	format_record(&sink, rec, len);
}

/* sprintf and friends: a record formatted into a script string. */
static void format_string(char *dst, const void *rec, unsigned len)
{
	char buf[BPF_STRLEN];
	struct bpf_sink sink = { .buf = buf };

	buf[0] = 0;
	format_record(&sink, rec, len);
	memcpy(dst, buf, sink.len + 1);
}

static void hist_out(char *dst, const struct stp_stat_desc *d,
		     const struct stp_stat *agg)
{
	struct bpf_sink sink = { .f = dst ? NULL : stdout, .buf = dst };

	if (dst) {
		/* appended to what dst holds (a print's string so far) */
		sink.len = strnlen(dst, BPF_STRLEN - 1);
	}
	bpf_hist(&sink, d, agg);
}

static int on_ring_record(void *ctx, void *data, size_t len)
{
	(void)ctx;
	print_record(data, (unsigned)len);
	return 0;
}

static void run_list(void (*const *list)(void))
{
	for (int i = 0; list[i] && !exit_requested; i++)
		list[i]();
}

static unsigned long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL +
	       (unsigned long long)t.tv_nsec;
}

/* Timer i's next period: ns +/- up to rand_ns (.randomize), redrawn at
 * every expiry, never under 10 us, as the module's (runtime/timer.c). */
static unsigned long long timer_period(const struct user_half *u, int i)
{
	unsigned long long n = u->timers[i].ns, r = u->timers[i].rand_ns;

	if (r && r <= n)
		n = n - r + ((unsigned long long)arc4random() << 32 |
			     arc4random()) % (2 * r + 1);
	return n > 10000 ? n : 10000;
}

static long long realtime_offset(void)
{
	struct timespec r, m;
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return (r.tv_sec - m.tv_sec) * 1000000000LL + (r.tv_nsec - m.tv_nsec);
}

/* set while attaching a program whose refusal the loader reports
 * itself (a fentry/fexit: SystemTap's registration warning) */
static bool attach_quiet;

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level == LIBBPF_WARN && !attach_quiet)
		return vfprintf(stderr, fmt, args);
	return 0;
}

/* The probe point of fentry/fexit program p, from the table (attach.c's
 * stp_kfuncs), or NULL. */
static const char *kfunc_pp(const struct stp_kfunc *t, struct bpf_program *p)
{
	const struct stp_kfunc *row = row_of(t, sizeof(*t), p);

	return row ? row->pp : NULL;
}

/* The dispatches' program arrays (attach_dispatch.c): each entry of the
 * table (program, array, key; NULL-ended) put in its array. 0, or -1
 * after a message. */
struct stp_jump {
	const char *prog, *map;
	unsigned key;
};
static int fill_dispatch(struct bpf_object *obj, const struct stp_jump *t)
{
	for (; t && t->prog; t++) {
		struct bpf_program *p =
			bpf_object__find_program_by_name(obj, t->prog);
		struct bpf_map *m = bpf_object__find_map_by_name(obj, t->map);
		int fd = p ? bpf_program__fd(p) : -1;
		if (!m || fd < 0 || bpf_map__update_elem(m, &t->key,
				sizeof(t->key), &fd, sizeof(fd), BPF_ANY)) {
			fprintf(stderr, "stap: error: the dispatch to %s: %s\n",
				t->prog, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/*
 * A timer in the kernel: a cpu-clock software event (it ticks whether the
 * CPU runs or idles) every ns, on every CPU for timer.profile, else on
 * the first CPU that takes it (one timer, as the module's hrtimer); 0, or
 * 1 after a message. The links own the events' descriptors.
 */
static int attach_perf(const struct user_half *u, struct bpf_program *p,
		       struct bpf_link **links, int *nlinks, int max_links)
{
	const struct perf_row *row = row_of(u->perf, sizeof(*u->perf), p);

	if (!row)
		return 0;
	long ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int attached = 0;
	for (int cpu = 0; cpu < ncpus && *nlinks < max_links; cpu++) {
		struct perf_event_attr a = {
			.type = row->type,
			.size = sizeof(a),
			.config = row->config,
			.sample_period = row->ns,
			.freq = row->freq != 0,
		};
		int fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;	/* an offline CPU */
		struct bpf_link *l = bpf_program__attach_perf_event(p, fd);
		if (!l) {
			close(fd);
			continue;
		}
		links[(*nlinks)++] = l;
		attached++;
		if (!row->all_cpus)
			break;
	}
	if (!attached && row->pp) {
		/* a perf probe's event (no PMU for it...): the module's */
		fprintf(stderr, "ERROR: probe %s registration error "
			"[man warning::pass5] (rc %d)\n", row->pp,
			-errno);
		return 1;
	}
	if (!attached) {
		fprintf(stderr, "stap: error: attaching a timer (a cpu-clock "
			"perf event): %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * A uprobe program on its binary at its file offset (a mark's semaphore
 * counted by the kernel while it is attached); NULL, or the link.
 */
static struct bpf_link *attach_uprobe(const struct user_half *u,
				      struct bpf_program *p)
{
	const struct uprobe_row *row = row_of(u->uprobes, sizeof(*u->uprobes),
					      p);

	if (!row) {
		errno = ENOENT;
		return NULL;
	}
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = row->ret != 0,
		    .ref_ctr_offset = (size_t)row->ref_ctr);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(p,
		row->pid ? (pid_t)row->pid : -1,
		row->path, (size_t)row->offset, &o);
	if (!l)
		fprintf(stderr, "stap: error: attaching a uprobe on %s at file "
			"offset 0x%llx: %s\n", row->path,
			row->offset, strerror(errno));
	return l;
}

/*
 * -c CMD: CMD forked now, held on a pipe until the probes are
 * attached (release_command); -1 on failure. The child is its own
 * until it exits; the loader's run ends then.
 */
static pid_t start_command(const char *cmd, int *release)
{
	int fds[2];

	if (pipe(fds))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		char c;
		close(fds[1]);
		/* nothing written: the loader gave up, the command never runs */
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		close(fds[0]);
		/* the command itself, as staprun runs it (target() is its
		 * pid), when its words need no shell; else sh -c */
		wordexp_t w;
		if (!wordexp(cmd, &w, WRDE_NOCMD | WRDE_UNDEF) && w.we_wordc) {
			execvp(w.we_wordv[0], w.we_wordv);
			fprintf(stderr, "stap: error: cannot run %s: %s\n",
				w.we_wordv[0], strerror(errno));
			_exit(127);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	*release = fds[1];
	return pid;
}

int bpf_load_and_run(const char *dir, bool verbose, const char *cmd,
		     long long target_pid)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/prog.so", dir);
	return bpf_load_and_run_so(path, verbose, cmd, target_pid);
}

int bpf_load_and_run_so(const char *so_path, bool verbose, const char *cmd,
			long long target_pid)
{
	pid_t child = -1;
	int release = -1;
	char path[4096];
	int status = 1;
	struct bpf_object *obj = NULL;
	struct ring_buffer *rb = NULL;
	/* a link per program (syscall.* has over 400), per CPU for a
	 * perf event: sized when the programs are known */
	struct bpf_link **links = NULL;
	int nlinks = 0, max_links = 0;
	void *so;
	struct user_half u;
	struct arena fmt_arena = { 0 };

	if (!verbose)
		libbpf_set_print(libbpf_quiet);
	/* a program and a link are a descriptor each: syscall.* with its
	 * returns is some 1,700, over a soft limit of 1,024 (the guests') */
	struct rlimit nofile;
	if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 &&
	    nofile.rlim_cur < nofile.rlim_max) {
		nofile.rlim_cur = nofile.rlim_max;
		setrlimit(RLIMIT_NOFILE, &nofile);
	}
	snprintf(path, sizeof(path), "%s", so_path);
	so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!so) {
		fprintf(stderr, "stap: error: loading %s: %s\n", path,
			dlerror());
		return 1;
	}
	u.begin = (void (*const *)(void))dlsym(so, "stp_begin");
	u.end = (void (*const *)(void))dlsym(so, "stp_end");
	u.timers = dlsym(so, "stp_timers");
	u.fmts = dlsym(so, "stp_fmts");
	u.nmaps = dlsym(so, "stp_nmaps");
	u.init = (void (*)(struct stp_rt *))dlsym(so, "stp_user_init");
	u.perf = dlsym(so, "stp_perf");
	u.uprobes = dlsym(so, "stp_uprobes");
	error_texts = (const char *const *)dlsym(so, "stp_errors");
	const long long *maxerr = dlsym(so, "stp_max_errors");
	max_errors = maxerr ? (int)*maxerr : 0;
	if (!u.begin || !u.end || !u.timers || !u.fmts || !u.nmaps || !u.init ||
	    !error_texts || !u.perf || !u.uprobes) {
		fprintf(stderr, "stap: error: %s: not a program of this "
			"backend\n", path);
		goto out;
	}
	loaded = &u;
	int nfmts = 0;
	while (u.fmts[nfmts].fmt)
		nfmts++;
	parsed = calloc((size_t)nfmts + 1, sizeof(*parsed));
	for (int i = 0; i < nfmts; i++) {
		const char *err;
		size_t off;
		parsed[i].n = format_parse(&fmt_arena, u.fmts[i].fmt,
					   u.fmts[i].len, &parsed[i].pieces,
					   &err, &off);
		if (parsed[i].n < 0)
			parsed[i].n = 0;	/* checked by pass 2 */
	}

	/* the kernel half is inside the user half (pass 4's .incbin), so
	 * one file carries the program into a guest */
	const unsigned char *obj_start = dlsym(so, "stp_bpf_object");
	const unsigned char *obj_end = dlsym(so, "stp_bpf_object_end");
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "stp");
	if (obj_start && obj_end > obj_start)
		obj = bpf_object__open_mem(obj_start,
					   (size_t)(obj_end - obj_start),
					   &opts);
	else
		errno = ENOEXEC;
	if (!obj) {
		fprintf(stderr, "stap: error: opening %s: %s\n", path,
			strerror(errno));
		goto out;
	}
	/* a scratch too big for a per-CPU value: an element a CPU
	 * (emit_program.c, STP_SCR_KEY) */
	struct bpf_map *scr = bpf_object__find_map_by_name(obj, "stp_scr");
	if (scr && bpf_map__type(scr) == BPF_MAP_TYPE_ARRAY &&
	    libbpf_num_possible_cpus() > 0)
		bpf_map__set_max_entries(scr,
					 (__u32)libbpf_num_possible_cpus());
	if (bpf_object__load(obj)) {
		fprintf(stderr, "stap: error: the kernel refused the BPF "
			"program: %s (run with -v for the verifier's log)\n",
			strerror(errno));
		goto out;
	}

	if (fill_dispatch(obj, dlsym(so, "stp_jumps")))
		goto out;

	int *fds = calloc((size_t)*u.nmaps + 1, sizeof(int));
	for (int i = 0; i < *u.nmaps; i++) {
		char name[32];
		snprintf(name, sizeof(name), "stp_m%d", i);
		struct bpf_map *m = bpf_object__find_map_by_name(obj, name);
		fds[i] = m ? bpf_map__fd(m) : -1;
	}
	void *globals = NULL;
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, "stp.bss");
	size_t gsize = bss ? bpf_map__value_size(bss) : 0;
	/* the kernel's own copy, shared with the BPF half (libbpf maps it
	 * so only for skeletons) */
	if (bss) {
		globals = mmap(NULL, gsize, PROT_READ | PROT_WRITE, MAP_SHARED,
			       bpf_map__fd(bss), 0);
		if (globals == MAP_FAILED)
			globals = NULL;
	}
	if (!globals) {
		fprintf(stderr, "stap: error: the program's globals are not "
			"mapped\n");
		free(fds);
		goto out;
	}
	struct stp_rt rt = { .map_fds = fds, .globals = globals,
			     .ncpus = bpf_ncpus(), .print = print_record,
			     .exit = request_exit, .error = run_error,
			     .error_text = run_error_text,
			     .format = format_string, .text = bpf_text,
			     .stat_merge = bpf_stat_merge, .hist = hist_out };
	struct stp_globals_head *head = globals;
	head->time_off = realtime_offset();
	head->target = target_pid;
	head->loader_pid = getpid();
	u.init(&rt);

	struct bpf_map *rbmap = bpf_object__find_map_by_name(obj, "stp_rb");
	rb = ring_buffer__new(bpf_map__fd(rbmap), on_ring_record, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "stap: error: the ring buffer: %s\n",
			strerror(errno));
		free(fds);
		goto out;
	}

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (cmd) {
		child = start_command(cmd, &release);
		head->target = child > 0 ? child : 0;
		if (child < 0) {
			fprintf(stderr, "stap: error: starting '%s': %s\n", cmd,
				strerror(errno));
			free(fds);
			goto out;
		}
	}
	/* process("PATH").*: the executables as this machine has them */
	bpf_process_exes(obj, dlsym(so, "stp_proc_exes"));
	bpf_kstack_ranges(obj);	/* backtrace()'s frames to drop */
	run_list(u.begin);
	fflush(stdout);
	struct bpf_program *p;
	bool attach_failed = false;
	long ncpus_conf = sysconf(_SC_NPROCESSORS_CONF);
	bpf_object__for_each_program(p, obj)
		max_links += !strcmp(bpf_program__section_name(p),
				     "perf_event") && ncpus_conf > 0 ?
			     (int)ncpus_conf : 1;
	links = calloc((size_t)max_links + 1, sizeof(*links));
	if (!links) {
		fprintf(stderr, "stap: error: %s\n", strerror(errno));
		attach_failed = exit_requested = true;
	}
	const struct stp_kfunc *kfuncs = dlsym(so, "stp_kfuncs");
	const char *warned = NULL;
	bpf_object__for_each_program(p, obj) {
		if (exit_requested || nlinks == max_links)
			break;
		if (!strcmp(bpf_program__section_name(p), "perf_event")) {
			if (attach_perf(&u, p, links, &nlinks, max_links)) {
				attach_failed = true;
				exit_requested = true;
				break;
			}
			continue;
		}
		/* a dispatch's target: reached by its tail call */
		if (!strncmp(bpf_program__name(p), "stp_j", 5))
			continue;
		const char *sec = bpf_program__section_name(p);
		bool up = !strcmp(sec, "uprobe") || !strcmp(sec, "uretprobe");
		attach_quiet = kfunc_pp(kfuncs, p) != NULL;
		struct bpf_link *l = up ? attach_uprobe(&u, p) :
				     bpf_program__attach(p);
		attach_quiet = false;
		if (!l && up) {
			attach_failed = true;
			exit_requested = true;
			break;
		}
		const char *kpp = l ? NULL : kfunc_pp(kfuncs, p);
		if (!l && kpp) {
			/* the module backend's warning (runtime/kfunc.c);
			 * the entry half of a .return warns with it once */
			if (!warned || strcmp(kpp, warned))
				fprintf(stderr, "WARNING: probe %s registration "
					"error [man warning::pass5] (rc %d)\n",
					kpp, -errno);
			warned = kpp;
			continue;
		}
		if (!l) {
			fprintf(stderr, "stap: error: attaching %s: %s\n",
				bpf_program__section_name(p), strerror(errno));
			attach_failed = true;
			exit_requested = true;
			break;
		}
		links[nlinks++] = l;
	}

	/* process.*: the tasks running now (a fork since is recorded) */
	const int *scan = dlsym(so, "stp_proc_scan");
	if (!attach_failed && !exit_requested && scan &&
	    bpf_process_scan(obj, *scan)) {
		attach_failed = true;
		exit_requested = true;
	}
	if (release >= 0) {
		/* attached (or given up: the command does not run) */
		if (!exit_requested && write(release, "g", 1) != 1)
			exit_requested = true;
		close(release);
		release = -1;
	}
	int ntimers = 0;
	while (u.timers[ntimers].fn)
		ntimers++;
	unsigned long long *due = calloc((size_t)ntimers + 1, sizeof(*due));
	unsigned long long start = now_ns();
	for (int i = 0; i < ntimers; i++)
		due[i] = start + timer_period(&u, i);
	while (!exit_requested && !stop_signal) {
		unsigned long long now = now_ns(), next = now + 100000000ULL;
		for (int i = 0; i < ntimers; i++)
			if (due[i] < next)
				next = due[i];
		int ms = next > now ? (int)((next - now + 999999) / 1000000) : 0;
		int r = ring_buffer__poll(rb, ms);
		if (r < 0 && r != -EINTR) {
			fprintf(stderr, "stap: error: reading the ring buffer: "
				"%s\n", strerror(-r));
			break;
		}
		if (head->exit)		/* its record may have been lost */
			exit_requested = true;
		if (child > 0 && waitpid(child, NULL, WNOHANG) == child) {
			/* the command's end ends the run, after its events */
			child = -1;
			ring_buffer__consume(rb);
			exit_requested = true;
		}
		now = now_ns();
		for (int i = 0; i < ntimers && !exit_requested; i++)
			if (due[i] <= now) {
				ring_buffer__consume(rb);
				u.timers[i].fn();
				due[i] += timer_period(&u, i);
				if (due[i] <= now)
					due[i] = now + timer_period(&u, i);
			}
		fflush(stdout);
	}
	free(due);
	/* detach, print what is left, then end (exit() there ends it) */
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	nlinks = 0;
	ring_buffer__consume(rb);
	if (head->lost_errors) {
		fprintf(stderr, "ERROR: %llu run-time error records lost\n",
			head->lost_errors);
		nerrors += (int)head->lost_errors;
	}
	exit_requested = false;
	/* past MAXERRORS, or a probe that could not be placed (which
	 * fails the session, as the module's): no end probe runs */
	if (!run_failed() && !attach_failed)
		run_list(u.end);
	ring_buffer__consume(rb);
	fflush(stdout);
	if (head->lost)
		fprintf(stderr, "WARNING: %llu output records lost\n",
			head->lost);
	status = attach_failed || run_failed() ? 1 : 0;
	if (nerrors)
		fprintf(stderr, "WARNING: Number of errors: %d, skipped probes: "
			"0\n", nerrors);
	free(fds);
	munmap(globals, gsize);
out:
	if (release >= 0)
		close(release);
	if (child > 0) {
		/* the run ended first (exit(), ^C): the command goes on, as
		 * SystemTap leaves it; reaped if it already ended */
		waitpid(child, NULL, WNOHANG);
	}
	for (int i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	free(links);
	ring_buffer__free(rb);
	bpf_object__close(obj);
	dlclose(so);
	free(parsed);
	parsed = NULL;
	arena_free(&fmt_arena);
	return status;
}
