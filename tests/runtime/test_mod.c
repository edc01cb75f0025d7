// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hand-written module in the shape pass 3 generates (runtime/README.md):
 * the "floor" test of the runtime and staprun.  STP_TEST selects a
 * scenario.  run-vm.sh builds every scenario (t_<name>.ko), runs them in a
 * qemu VM through vm-tests.sh and diffs the result with expected.txt;
 * print.expected is the exact stdout of scenario 1 (md5 in expected.txt).
 *   1 print      printf conversions (corpus printf_*), begin/end order
 *   2 events     timer.ms(100) + sched_switch tracepoint, exit() from timer
 *   3 maxaction  while (1) in begin: MAXACTION error, error probe, no end
 *   4 divzero    division by zero in a timer probe (event context)
 *   5 notp       unknown tracepoint: start fails
 *   6 forever    timer prints until the loader is stopped (signal / -c)
 *   7 endfail    error inside an end probe
 *   8 flood      a begin probe writes five times what the rings hold: it
 *                waits for the reader, nothing is lost (build with
 *                -DSTP_BUFFER_SIZE=4096 -DSTP_CTL_BUFFER_SIZE=4096
 *                -DSTP_PRINT_BUF_SIZE=1024)
 *   9 contend    a slow timer probe holds the globals write lock, so
 *                sched_switch hits are skipped: "Skipped too many probes"
 *  10 kfunc      kernel.function probes (runtime/kfunc.c): entry by
 *                ftrace, by kprobe (a notrace function, and on request),
 *                return by kretprobe, by symbol and by link-time address
 *                (build with -DKF_VFS_READ_LINK=, -DSTP_KFUNC_ANCHOR_SYM=
 *                and -DSTP_KFUNC_ANCHOR_LINK= from the debug vmlinux)
 *  11 nokfunc    a probe on a function the kernel does not have: a
 *                registration warning, the other probes run
 *  12 kfrefused   a probe on a function kprobes refuse (NOKPROBE): a
 *                registration warning, the session runs
 */
#ifndef STP_TEST
#define STP_TEST 2
#endif
#ifndef STP_MODULE_NAME
#define STP_MODULE_NAME KBUILD_MODNAME
#endif
#define STP_FRAME_SIZE 1040
#define STP_MAXNESTING 1
#include "runtime.h"

static int64_t stp_g_count;
/* the globals' lock, as generated code has one per shared global */
static DEFINE_RWLOCK(stp_test_lock);
static const struct stp_lock stp_test_write[] __maybe_unused = {
	{ &stp_test_lock, true },
};
static const struct stp_lock stp_test_read[] __maybe_unused = {
	{ &stp_test_lock, false },
};
static int64_t stp_g_switches;
static char stp_g_name[MAXSTRINGLEN];

struct stp_locals_probe { int64_t l_i; int64_t l_n; char l_s[MAXSTRINGLEN];
			  char l_t[MAXSTRINGLEN]; };

/* printf with one numeric conversion, as pass 3 would emit inline */
static void __maybe_unused t_l(struct stp_context *c, char conv, u8 fl, int w, int p,
		int64_t v)
{
	const struct stp_fmt f = { .conv = conv, .flags = fl, .width = w,
				   .prec = p };

	stp_print_long(c, &f, v);
}

static void __maybe_unused t_s(struct stp_context *c, u8 fl, int w, int p, const char *s)
{
	const struct stp_fmt f = { .conv = 's', .flags = fl, .width = w,
				   .prec = p };

	stp_print_string(c, &f, s);
}

#define L STP_FMT_LEFT
#define PL STP_FMT_PLUS
#define SP STP_FMT_SPACE
#define A STP_FMT_ALT
#define Z STP_FMT_ZERO

static void __maybe_unused stp_probe_begin_print(struct stp_context *c)
{
	struct stp_locals_probe *l = stp_frame(c, 0);
	static const char msg[] = "Hello, memory!";
	struct stp_strbuf sb;
	int64_t a = (long)msg;
	int i;

	STP_ACTION(c, 1, "begin");
	/* printf_flags */
	stp_print_str(c, "["); t_l(c, 'd', 0, 5, -1, 42);
	stp_print_str(c, "] ["); t_l(c, 'd', L, 5, -1, 42);
	stp_print_str(c, "] ["); t_l(c, 'd', Z, 5, -1, 42);
	stp_print_str(c, "] ["); t_l(c, 'd', PL, -1, -1, 42);
	stp_print_str(c, "] ["); t_l(c, 'd', PL, -1, -1, -42);
	stp_print_str(c, "] ["); t_l(c, 'd', SP, -1, -1, 42);
	stp_print_str(c, "] ["); t_l(c, 'd', SP, -1, -1, -42);
	stp_print_str(c, "]\n[");
	t_l(c, 'd', Z, 5, -1, -42);
	stp_print_str(c, "] ["); t_l(c, 'd', L, 5, -1, -42);
	stp_print_str(c, "] ["); t_l(c, 'd', PL, 5, -1, 42);
	stp_print_str(c, "] ["); t_l(c, 'd', 0, 1, -1, 12345);
	stp_print_str(c, "]\n[");
	t_l(c, 'x', A, -1, -1, 255);
	stp_print_str(c, "] ["); t_l(c, 'X', A, -1, -1, 255);
	stp_print_str(c, "] ["); t_l(c, 'o', A, -1, -1, 8);
	stp_print_str(c, "] ["); t_l(c, 'x', A, -1, -1, 0);
	stp_print_str(c, "] ["); t_l(c, 'o', A, -1, -1, 0);
	stp_print_str(c, "]\n[");
	t_l(c, 'x', A, 10, -1, 255);
	stp_print_str(c, "] ["); t_l(c, 'x', L, 10, -1, 255);
	stp_print_str(c, "] ["); t_l(c, 'x', A, 10, -1, 255);
	stp_print_str(c, "] ["); t_l(c, 'x', L, 10, -1, 255);
	stp_print_str(c, "]\n[");
	t_l(c, 'x', 0, 8, -1, 48879);
	stp_print_str(c, "] ["); t_l(c, 'X', L, 8, -1, 48879);
	stp_print_str(c, "] ["); t_l(c, 'o', Z, 8, -1, 511);
	stp_print_str(c, "]\n[");
	t_l(c, 'u', 0, 8, -1, 7);
	stp_print_str(c, "] ["); t_l(c, 'u', L, 8, -1, 7);
	stp_print_str(c, "]\n[");
	t_l(c, 'u', PL, -1, -1, 5);
	stp_print_str(c, "] ["); t_l(c, 'u', SP, -1, -1, 5);
	stp_print_str(c, "]\n");
	/* printf_ints */
	t_l(c, 'd', 0, -1, -1, -255); stp_print_char(c, ' ');
	t_l(c, 'u', 0, -1, -1, -255); stp_print_char(c, ' ');
	t_l(c, 'o', 0, -1, -1, -255); stp_print_char(c, ' ');
	t_l(c, 'x', 0, -1, -1, -255); stp_print_char(c, ' ');
	t_l(c, 'X', 0, -1, -1, 3735928559LL); stp_print_char(c, '\n');
	t_l(c, 'd', 0, -1, -1, S64_MIN); stp_print_char(c, '|');
	t_l(c, 'u', 0, -1, -1, S64_MIN); stp_print_char(c, '|');
	t_l(c, 'x', 0, -1, -1, S64_MIN); stp_print_char(c, '\n');
	/* precision on integers */
	t_l(c, 'd', 0, 8, 5, -42); stp_print_char(c, '|');
	t_l(c, 'x', A, -1, 4, 255); stp_print_char(c, '\n');
	/* printf_char */
	stp_print_str(c, "[");
	t_l(c, 'c', 0, 3, -1, 65);
	stp_print_str(c, "] [");
	t_l(c, 'c', L, 3, -1, 66);
	stp_print_str(c, "] [");
	t_l(c, 'c', 0, -1, -1, 65 + 256);
	stp_print_str(c, "]\n");
	/* printf_binary */
	t_l(c, 'b', 0, -1, -1, 0x0a44434241LL);
	t_l(c, 'b', 0, 1, -1, 0x4f);
	t_l(c, 'b', 0, 1, -1, 0x4b);
	t_l(c, 'b', 0, 1, -1, 0x0a);
	t_l(c, 'b', 0, 2, -1, 0x0a5a);
	t_l(c, 'b', 0, 4, -1, 0x0a595857);
	t_l(c, 'b', 0, 8, -1, 0x0a3736353433LL);
	t_l(c, 'b', 0, -1, -1, 1);
	t_l(c, 'b', 0, -1, -1, -1);
	stp_print_char(c, '\n');
	/* printf_pointer */
	stp_print_str(c, "[");
	t_l(c, 'p', 0, -1, -1, 0);
	stp_print_str(c, "] [");
	t_l(c, 'p', 0, -1, -1, -1);
	stp_print_str(c, "] [");
	t_l(c, 'p', 0, 20, -1, 4660);
	stp_print_str(c, "] [");
	t_l(c, 'p', L, 20, -1, 4660);
	stp_print_str(c, "] [");
	t_l(c, 'p', Z, 20, -1, 4660);
	stp_print_str(c, "]\n");
	/* printf_star / strings */
	stp_print_str(c, "[");
	t_s(c, 0, 8, -1, "abc");
	stp_print_str(c, "] [");
	t_s(c, 0, -1, 2, "abcdef");
	stp_print_str(c, "] [");
	t_s(c, 0, 7, 3, "abcdef");
	stp_print_str(c, "] [");
	t_s(c, L, 7, 3, "abcdef");
	stp_print_str(c, "] [");
	t_l(c, 'x', Z, 8, -1, 3054);
	stp_print_str(c, "]\n");
	/* printf_mem */
	stp_print_str(c, "[");
	t_l(c, 'm', 0, -1, 5, a);
	stp_print_str(c, "] [");
	t_l(c, 'm', 0, -1, -1, a);
	stp_print_str(c, "] [");
	t_l(c, 'M', 0, -1, 4, a);
	stp_print_str(c, "] [");
	t_l(c, 'm', 0, 10, 3, a);
	stp_print_str(c, "] [");
	t_l(c, 'm', L, 10, 3, a);
	stp_print_str(c, "] [");
	t_l(c, 'M', 0, 10, 3, a);
	stp_print_str(c, "] [");
	t_l(c, 'm', 0, -1, 2, a + 7);
	stp_print_str(c, "]\n");
	/* sprintf into a string, truncation, strcat aliasing */
	stp_sb_init(&sb, l->l_s);
	stp_sb_str(&sb, "x=");
	{
		static const struct stp_fmt f = { .conv = 'd', .width = 4,
						  .prec = -1 };
		stp_sb_long(&sb, &f, 7);
	}
	stp_sb_char(&sb, '!');
	stp_print_str(c, l->l_s);
	stp_print_char(c, '\n');
	stp_sb_init(&sb, l->l_t);
	for (i = 0; i < 600; i++)
		stp_sb_char(&sb, 'a' + i % 26);
	l->l_i = strlen(l->l_t);
	t_l(c, 'd', 0, -1, -1, l->l_i);
	stp_print_char(c, '\n');
	stp_strcpy(l->l_s, "ab");
	stp_strcat(l->l_s, l->l_s);
	stp_strcat(l->l_s, l->l_s);
	stp_print_str(c, l->l_s);
	stp_print_char(c, '\n');
	stp_strcpy(l->l_s, l->l_t);
	stp_strcat(l->l_s, "zzz");
	t_l(c, 'd', 0, -1, -1, strlen(l->l_s));
	stp_print_char(c, '\n');
	stp_execname(stp_g_name);
	stp_print_str(c, stp_g_name);
	stp_print_char(c, '\n');
	t_l(c, 'd', 0, -1, -1, stp_pid() == stp_tid());
	stp_print_char(c, '\n');
out:
	return;
}

static void __maybe_unused stp_probe_say(struct stp_context *c, const char *s)
{
	STP_ACTION(c, 1, "say");
	stp_print_str(c, s);
out:
	return;
}

static void __maybe_unused stp_probe_prio10(struct stp_context *c)
{
	stp_probe_say(c, "begin priority 10\n");
}

static void __maybe_unused stp_probe_default_a(struct stp_context *c)
{
	stp_probe_say(c, "begin default A\n");
}

static void __maybe_unused stp_probe_prio_m5(struct stp_context *c)
{
	stp_probe_say(c, "begin priority -5\n");
}

static void __maybe_unused stp_probe_default_b(struct stp_context *c)
{
	stp_probe_say(c, "begin default B\n");
	stp_request_exit(c);
	stp_probe_say(c, "still running after exit()\n");
}

static void __maybe_unused stp_probe_end1(struct stp_context *c)
{
	stp_probe_say(c, "end 1\n");
}

static void __maybe_unused stp_probe_end_m1(struct stp_context *c)
{
	stp_probe_say(c, "end priority -1\n");
}

static void __maybe_unused stp_probe_end2(struct stp_context *c)
{
	stp_probe_say(c, "end 2\n");
}

static void __maybe_unused stp_probe_error(struct stp_context *c)
{
	stp_probe_say(c, "error probe ran\n");
}

static void __maybe_unused stp_probe_begin_start(struct stp_context *c)
{
	STP_ACTION(c, 1, "begin");
	stp_print_str(c, "start\n");
	stp_print_str(c, "target=");
	t_l(c, 'd', 0, -1, -1, stp_target());
	stp_print_char(c, '\n');
out:
	return;
}

/* timer.ms(100) { count++; if (count == 5) exit() } */
static void __maybe_unused stp_probe_timer_count(struct stp_context *c)
{
	STP_ACTION(c, 2, "identifier 'count' at t.stp:4:3");
	stp_g_count++;
	if (stp_g_count == 5)
		stp_request_exit(c);
out:
	return;
}

/* kernel.trace("sched_switch") { switches++ } */
static void __maybe_unused stp_probe_tp_switch(struct stp_context *c)
{
	STP_ACTION(c, 1, "identifier 'switches' at t.stp:6:3");
	stp_g_switches++;
out:
	return;
}

static void __maybe_unused stp_probe_end_counts(struct stp_context *c)
{
	STP_ACTION(c, 1, "end");
	stp_print_str(c, "count=");
	t_l(c, 'd', 0, -1, -1, stp_g_count);
	stp_print_str(c, stp_g_switches > 0 ? " switches>0\n" :
			 " switches=0\n");
out:
	return;
}

/* begin { println("looping"); n = 0; while (n >= 0) n++ } */
static void __maybe_unused stp_probe_maxaction(struct stp_context *c)
{
	struct stp_locals_probe *l = stp_frame(c, 0);

	STP_ACTION(c, 2, "identifier 'n' at err_maxaction.stp:4:3");
	stp_print_str(c, "looping\n");
	l->l_n = 0;
	while (l->l_n >= 0) {
		STP_ACTION(c, 1, "identifier 'n' at err_maxaction.stp:5:18");
		l->l_n++;
	}
	stp_print_str(c, "not reached\n");
out:
	return;
}

/* timer.ms(100) { count++; printf("100/%d = %d\n", 3 - count, ...) } */
static void __maybe_unused stp_probe_divzero(struct stp_context *c)
{
	int64_t d;

	STP_ACTION(c, 1, "identifier 'count' at d.stp:3:3");
	stp_g_count++;
	d = 3 - stp_g_count;
	if (d == 0) {
		stp_error(c, "division by 0", "operator '/' at d.stp:4:30");
		goto out;
	}
	stp_print_str(c, "100/");
	t_l(c, 'd', 0, -1, -1, d);
	stp_print_str(c, " = ");
	t_l(c, 'd', 0, -1, -1, 100 / d);
	stp_print_char(c, '\n');
out:
	return;
}

static void __maybe_unused stp_probe_tick(struct stp_context *c)
{
	STP_ACTION(c, 1, "tick");
	stp_g_count++;
	if (stp_g_count <= 3)
		stp_print_str(c, "tick\n");
out:
	return;
}

static void __maybe_unused stp_probe_end_signal(struct stp_context *c)
{
	stp_probe_say(c, "end probe ran\n");
}

static void __maybe_unused stp_probe_end_fail(struct stp_context *c)
{
	STP_ACTION(c, 1, "end");
	stp_print_str(c, "end starts\n");
	stp_error(c, "division by 0", "operator '/' at err_in_end.stp:9:20");
	goto out;
out:
	return;
}

/* begin { for (i = 0; i < 200; i++) printf("%099d\n", i); exit() } */
static void __maybe_unused stp_probe_flood(struct stp_context *c)
{
	struct stp_locals_probe *l = stp_frame(c, 0);
	static const struct stp_fmt f = { .conv = 'd', .flags = STP_FMT_ZERO,
					  .width = 99, .prec = -1 };

	for (l->l_i = 0; l->l_i < 200; l->l_i++) {
		STP_ACTION(c, 1, "flood");
		stp_print_long(c, &f, l->l_i);
		stp_print_char(c, '\n');
	}
	stp_request_exit(c);
out:
	return;
}

/* timer.ms(5) { hog the globals for 3 ms } */
static void __maybe_unused stp_probe_hog(struct stp_context *c)
{
	STP_ACTION(c, 1, "hog");
	stp_g_count++;
	mdelay(3);
out:
	return;
}

static void __maybe_unused stp_probe_exit_now(struct stp_context *c)
{
	stp_probe_say(c, "begin ok\n");
	stp_request_exit(c);
}

#if STP_TEST >= 10 && STP_TEST <= 12
/*
 * The targets: this module's own functions, called by a work item at
 * known times with known arguments once the probes are armed.
 * stp_kf_traced has an fentry call (ftrace attaches); stp_kf_plain is
 * notrace, so the entry probe falls back to a kprobe. noipa: no inlining
 * or cloning, the symbols stay what the probes name.
 */
int stp_kf_traced(int x);
int stp_kf_plain(int x);

__attribute__((noipa)) int stp_kf_traced(int x)
{
	return 2 * x;
}

__attribute__((noipa)) notrace int stp_kf_plain(int x)
{
	return x + 100;
}

/* runtime/probes.c's, not in its interface: only this test waits on it */
extern struct mutex stp_ctl_mutex;

static int stp_kf_round;
static void stp_kf_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(stp_kf_work, stp_kf_work_fn);

/* Five rounds 50 ms apart, after "start" has armed the probes, then exit. */
static void stp_kf_work_fn(struct work_struct *w)
{
	/* begin probes and arming run under the ctl mutex: when it is
	 * free, the probes are armed, unless exit() came first */
	mutex_lock(&stp_ctl_mutex);
	mutex_unlock(&stp_ctl_mutex);
	if (!stp_events_on())
		return;
	stp_kf_round++;
	stp_kf_traced(stp_kf_round);
	stp_kf_plain(stp_kf_round);
	if (stp_kf_round < 5)
		schedule_delayed_work(&stp_kf_work, HZ / 20);
	else
		stp_request_exit(NULL);	/* it does not use the context */
}

static int64_t stp_g_kf[16];	/* hit counts and sums, by probe */

static void __maybe_unused stp_probe_kf_begin(struct stp_context *c)
{
	STP_ACTION(c, 1, "begin");
	stp_print_str(c, "start\n");
	schedule_delayed_work(&stp_kf_work, HZ / 20);
out:
	return;
}

/* probe kernel.function(...) { hits[N]++; sum[N] += $x (or $return) } */
#define KF_HANDLER(n, val)						\
	static void __maybe_unused stp_probe_kf##n(struct stp_context *c) \
	{								\
		STP_ACTION(c, 1, "kernel.function");			\
		stp_g_kf[2 * (n)]++;					\
		stp_g_kf[2 * (n) + 1] += (val);				\
	out:								\
		return;							\
	}
KF_HANDLER(0, (int)c->regs->di)		/* stp_kf_traced entry: x */
KF_HANDLER(1, (int)regs_return_value(c->regs))	/* its return: 2x */
KF_HANDLER(2, (int)c->regs->di)		/* stp_kf_plain entry */
KF_HANDLER(3, (int)c->regs->di)		/* stp_kf_traced, kprobe asked */
KF_HANDLER(4, 0)			/* vfs_read entry */
KF_HANDLER(5, 0)			/* vfs_read return */
KF_HANDLER(6, 0)			/* vfs_read by address */

static const struct stp_probe stp_probes[];

static void __maybe_unused stp_probe_kf_end(struct stp_context *c)
{
	static const char *const what[] = {
		"stp_kf_traced", "stp_kf_traced.return", "stp_kf_plain",
		"stp_kf_traced (kprobe asked)", "vfs_read", "vfs_read.return",
		"vfs_read (by address)",
	};
	int i;

	STP_ACTION(c, 1, "end");
	for (i = 0; i < 7; i++) {
		stp_print_str(c, what[i]);
		stp_print_str(c, ": ");
		stp_print_str(c, stp_kfunc_how(&stp_probes[i + 1]));
		if (i < 4) {
			stp_print_str(c, ", hits ");
			t_l(c, 'd', 0, -1, -1, stp_g_kf[2 * i]);
			stp_print_str(c, ", sum ");
			t_l(c, 'd', 0, -1, -1, stp_g_kf[2 * i + 1]);
		} else {
			stp_print_str(c, stp_g_kf[2 * i] > 0 ? ", hits > 0" :
				      ", no hits");
		}
		stp_print_char(c, '\n');
	}
out:
	return;
}
#endif

/*
 * The probe table, and each attach kind's table (runtime/KIND.h) for the
 * event probes, pointing at each other; stp_kinds lists the kinds'
 * tables for the session to arm.
 */
#define EV(kind, k) .type = STP_PROBE_EVENT, .attach = &kind[k]
#if STP_TEST == 2 || STP_TEST == 4 || STP_TEST == 5 || STP_TEST == 6 || \
    STP_TEST == 9
static const struct stp_timer_probe stp_timers_t[1];
#endif
#if STP_TEST == 2 || STP_TEST == 5 || STP_TEST == 6 || STP_TEST == 9
static const struct stp_tp_probe stp_tps_t[1];
#endif
#if STP_TEST >= 10 && STP_TEST <= 12
static const struct stp_kfunc_probe stp_kfuncs_t[];
#endif

static const struct stp_probe stp_probes[] = {
#if STP_TEST == 1
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_prio10,
	  .pp = "begin(10)", .priority = 10 },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_print,
	  .pp = "begin(-10)", .priority = -10 },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_default_a,
	  .pp = "begin" },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_prio_m5,
	  .pp = "begin(-5)", .priority = -5 },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_default_b,
	  .pp = "begin" },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_m1, .pp = "end(-1)",
	  .priority = -1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end2, .pp = "end" },
	{ .type = STP_PROBE_ERROR, .handler = stp_probe_error, .pp = "error" },
#elif STP_TEST == 2
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_start,
	  .pp = "begin" },
	{ EV(stp_timers_t, 0), .handler = stp_probe_timer_count,
	  .pp = "timer.ms(100)", .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_tps_t, 0), .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"sched:sched_switch\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_counts, .pp = "end" },
#elif STP_TEST == 3
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_maxaction,
	  .pp = "begin" },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_default_a,
	  .pp = "begin(1)", .priority = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
	{ .type = STP_PROBE_ERROR, .handler = stp_probe_error, .pp = "error" },
#elif STP_TEST == 4
	{ EV(stp_timers_t, 0), .handler = stp_probe_divzero,
	  .pp = "timer.ms(100)", .locks = stp_test_write, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#elif STP_TEST == 5
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_start,
	  .pp = "begin" },
	{ EV(stp_timers_t, 0), .handler = stp_probe_tick,
	  .pp = "timer.ms(100)", .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_tps_t, 0), .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"no_such_tp\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#elif STP_TEST == 6
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_start,
	  .pp = "begin" },
	{ EV(stp_timers_t, 0), .handler = stp_probe_tick,
	  .pp = "timer.ms(100)", .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_tps_t, 0), .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"sched:sched_switch\")",
	  .locks = stp_test_read, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_signal,
	  .pp = "end" },
#elif STP_TEST == 7
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_exit_now,
	  .pp = "begin" },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_fail, .pp = "end" },
	{ .type = STP_PROBE_END, .handler = stp_probe_end2, .pp = "end" },
	{ .type = STP_PROBE_ERROR, .handler = stp_probe_error, .pp = "error" },
#elif STP_TEST == 8
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_flood, .pp = "begin" },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#elif STP_TEST == 9
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_start,
	  .pp = "begin" },
	{ EV(stp_timers_t, 0), .handler = stp_probe_hog,
	  .pp = "timer.ms(5)", .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_tps_t, 0), .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"sched:sched_switch\")",
	  .locks = stp_test_read, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_counts, .pp = "end" },
	{ .type = STP_PROBE_ERROR, .handler = stp_probe_error, .pp = "error" },
#elif STP_TEST == 10
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_kf_begin,
	  .pp = "begin" },
	{ EV(stp_kfuncs_t, 0), .handler = stp_probe_kf0,
	  .pp = "kernel.function(\"stp_kf_traced\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 1), .handler = stp_probe_kf1,
	  .pp = "kernel.function(\"stp_kf_traced\").return",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 2), .handler = stp_probe_kf2,
	  .pp = "kernel.function(\"stp_kf_plain\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 3), .handler = stp_probe_kf3,
	  .pp = "kernel.function(\"stp_kf_traced\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 4), .handler = stp_probe_kf4,
	  .pp = "kernel.function(\"vfs_read\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 5), .handler = stp_probe_kf5,
	  .pp = "kernel.function(\"vfs_read\").return",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 6), .handler = stp_probe_kf6,
	  .pp = "kernel.function(\"vfs_read@fs/read_write.c\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_kf_end, .pp = "end" },
#elif STP_TEST == 11
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_kf_begin,
	  .pp = "begin" },
	{ EV(stp_kfuncs_t, 0), .handler = stp_probe_kf0,
	  .pp = "kernel.function(\"stp_kf_traced\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ EV(stp_kfuncs_t, 1), .handler = stp_probe_kf4,
	  .pp = "kernel.function(\"no_such_function\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#elif STP_TEST == 12
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_kf_begin,
	  .pp = "begin" },
	{ EV(stp_kfuncs_t, 0), .handler = stp_probe_kf4,
	  .pp = "kernel.function(\"kprobe_int3_handler\")",
	  .locks = stp_test_write, .nlocks = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#endif
};

#if STP_TEST == 2 || STP_TEST == 5 || STP_TEST == 6 || STP_TEST == 9
static const struct stp_tp_probe stp_tps_t[1] = {
	{ .probe = &stp_probes[2],
#if STP_TEST == 5
	  .name = "no_such_tp" },
#else
	  .name = "sched_switch" },
#endif
};
#endif
#if STP_TEST == 2 || STP_TEST == 4 || STP_TEST == 5 || STP_TEST == 6 || \
    STP_TEST == 9
static const struct stp_timer_probe stp_timers_t[1] = {
#if STP_TEST == 4
	{ .probe = &stp_probes[0], .period_ns = 100000000ULL,
	  .randomize_ns = 20000000ULL },
#elif STP_TEST == 9
	{ .probe = &stp_probes[1], .period_ns = 5000000ULL },
#else
	{ .probe = &stp_probes[1], .period_ns = 100000000ULL },
#endif
};
#endif
#if STP_TEST == 10
static const struct stp_kfunc_probe stp_kfuncs_t[] = {
	{ .probe = &stp_probes[1], .symbol = "stp_kf_traced" },
	{ .probe = &stp_probes[2], .symbol = "stp_kf_traced", .maxactive = 4,
	  .flags = STP_KF_RETURN },
	{ .probe = &stp_probes[3], .symbol = "stp_kf_plain" },
	{ .probe = &stp_probes[4], .symbol = "stp_kf_traced",
	  .flags = STP_KF_KPROBE },
	{ .probe = &stp_probes[5], .symbol = "vfs_read" },
	{ .probe = &stp_probes[6], .symbol = "vfs_read",
	  .flags = STP_KF_RETURN },
	{ .probe = &stp_probes[7],
#ifdef KF_VFS_READ_LINK
	  .addr = KF_VFS_READ_LINK,
#else
	  .symbol = "vfs_read",	/* run-vm.sh found no debug vmlinux */
#endif
	},
};
#elif STP_TEST == 11
static const struct stp_kfunc_probe stp_kfuncs_t[] = {
	{ .probe = &stp_probes[1], .symbol = "stp_kf_traced" },
	{ .probe = &stp_probes[2], .symbol = "no_such_function" },
};
#elif STP_TEST == 12
static const struct stp_kfunc_probe stp_kfuncs_t[] = {
	{ .probe = &stp_probes[1], .symbol = "kprobe_int3_handler" },
};
#endif

static const struct stp_kind_table stp_kinds[] = {
#if STP_TEST == 2 || STP_TEST == 5 || STP_TEST == 6 || STP_TEST == 9
	{ &stp_tracepoint_kind, stp_tps_t, ARRAY_SIZE(stp_tps_t) },
#endif
#if STP_TEST == 2 || STP_TEST == 4 || STP_TEST == 5 || STP_TEST == 6 || \
    STP_TEST == 9
	{ &stp_timer_kind, stp_timers_t, ARRAY_SIZE(stp_timers_t) },
#endif
#if STP_TEST >= 10 && STP_TEST <= 12
	{ &stp_kfunc_kind, stp_kfuncs_t, ARRAY_SIZE(stp_kfuncs_t) },
#endif
	{ NULL }
};

#if STP_TEST >= 10 && STP_TEST <= 12
/* STP_MODULE_PROBES, plus: no work item left behind at unload */
STP_MODULE_DESC();

static int __init stp_kf_init(void)
{
	return stp_session_init(stp_probes, ARRAY_SIZE(stp_probes), stp_kinds);
}

static void __exit stp_kf_exit(void)
{
	cancel_delayed_work_sync(&stp_kf_work);
	stp_session_exit();
}
module_init(stp_kf_init);
module_exit(stp_kf_exit);
MODULE_LICENSE("GPL");
#else
STP_MODULE_PROBES(stp_probes, stp_kinds);
#endif
