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
 *   8 flood      more output than the ring holds: lost records
 *                (build with -DSTP_BUFFER_SIZE=4096 -DSTP_PRINT_BUF_SIZE=1024)
 *   9 contend    a slow timer probe holds the globals write lock, so
 *                sched_switch hits are skipped: "Skipped too many probes"
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
	{ .type = STP_PROBE_TIMER, .handler = stp_probe_timer_count,
	  .pp = "timer.ms(100)", .period_ns = 100000000ULL,
	  .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_TRACEPOINT, .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"sched:sched_switch\")",
	  .tp_name = "sched_switch", .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_counts, .pp = "end" },
#elif STP_TEST == 3
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_maxaction,
	  .pp = "begin" },
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_default_a,
	  .pp = "begin(1)", .priority = 1 },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
	{ .type = STP_PROBE_ERROR, .handler = stp_probe_error, .pp = "error" },
#elif STP_TEST == 4
	{ .type = STP_PROBE_TIMER, .handler = stp_probe_divzero,
	  .pp = "timer.ms(100)", .period_ns = 100000000ULL,
	  .randomize_ns = 20000000ULL, .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#elif STP_TEST == 5
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_start,
	  .pp = "begin" },
	{ .type = STP_PROBE_TIMER, .handler = stp_probe_tick,
	  .pp = "timer.ms(100)", .period_ns = 100000000ULL,
	  .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_TRACEPOINT, .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"no_such_tp\")", .tp_name = "no_such_tp",
	  .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_END, .handler = stp_probe_end1, .pp = "end" },
#elif STP_TEST == 6
	{ .type = STP_PROBE_BEGIN, .handler = stp_probe_begin_start,
	  .pp = "begin" },
	{ .type = STP_PROBE_TIMER, .handler = stp_probe_tick,
	  .pp = "timer.ms(100)", .period_ns = 100000000ULL,
	  .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_TRACEPOINT, .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"sched:sched_switch\")",
	  .tp_name = "sched_switch", .lock = STP_LOCK_READ },
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
	{ .type = STP_PROBE_TIMER, .handler = stp_probe_hog,
	  .pp = "timer.ms(5)", .period_ns = 5000000ULL,
	  .lock = STP_LOCK_WRITE },
	{ .type = STP_PROBE_TRACEPOINT, .handler = stp_probe_tp_switch,
	  .pp = "kernel.trace(\"sched:sched_switch\")",
	  .tp_name = "sched_switch", .lock = STP_LOCK_READ },
	{ .type = STP_PROBE_END, .handler = stp_probe_end_counts, .pp = "end" },
	{ .type = STP_PROBE_ERROR, .handler = stp_probe_error, .pp = "error" },
#endif
};
STP_MODULE_PROBES(stp_probes);
