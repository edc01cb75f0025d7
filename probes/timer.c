// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timer.s/ms/us/ns(N) (and their long names), timer.jiffies(N),
 * timer.hz(N), each with .randomize(M), and timer.profile: one hrtimer
 * each, or a tick on every CPU for timer.profile. No context values.
 */
#include "probes/probes.h"

/* The point's timer: its attach description (semantic/attach.h). */
static struct attach_timer *timer_of(struct derived_probe *dp)
{
	dp->attach.kind = ATTACH_TIMER;
	return &dp->attach.timer;
}

static const struct {
	const char *unit;
	uint64_t ns;
} timer_units[] = {
	{ "s", 1000000000ULL }, { "sec", 1000000000ULL },
	{ "ms", 1000000ULL }, { "msec", 1000000ULL },
	{ "us", 1000ULL }, { "usec", 1000ULL },
	{ "ns", 1ULL }, { "nsec", 1ULL },
};


/*
 * timer.UNIT(N)[.randomize(M)] (s, ms, us, ns and their long names, and
 * jiffies), timer.hz(N), timer.profile: SystemTap's argument checks and
 * messages. One hrtimer each (not per CPU), but timer.profile: a tick on
 * every CPU, every millisecond, as SystemTap's perf cpu-clock sampling
 * (it names the point so).
 */
static bool derive_timer(struct sema *se, struct node *point,
			 struct derived_probe *dp)
{
	struct node *c0 = point->point.comps, *unit = c0->next;
	struct arena *a = &se->s->arena;
	const uint64_t min_ns = 100000, max_ns = 86400ULL * 1000000000ULL;
	uint64_t scale = 0;

	if (!unit)
		return point_error(se, point, c0, "timer needs a unit: "
				   "timer.s(N), timer.ms(N), ...");
	for (size_t i = 0; i < sizeof(timer_units) / sizeof(timer_units[0]); i++)
		if (comp_is(unit, timer_units[i].unit))
			scale = timer_units[i].ns;
	struct node *opt = unit->next;
	if (comp_is(unit, "profile")) {
		if (opt && comp_is(opt, "tick") && !opt->next)
			return point_error(se, point, opt, "profiling timer "
					   "support (register_timer_hook) not "
					   "found in kernel!");
		if (opt)
			return point_error(se, point, opt, arena_printf(a,
					   "timer.profile takes no '.%s'",
					   opt->comp.name));
		if (unit->comp.arg)
			return point_error(se, point, unit, "timer.profile "
					   "takes no argument");
		timer_of(dp)->profile = true;
		timer_of(dp)->period_ns = 1000000;
		/* 4.8's timer.profile is its perf cpu-clock point, listed
		 * by -l as written */
		dp->pp = "perf.type(1).config(0).sample(1000000)";
		dp->pp_from = "timer.profile";
		return true;
	}
	if (opt && !comp_is(opt, "randomize"))
		return point_error(se, point, opt, arena_printf(a,
				   "unexpected component '.%s' after timer.%s",
				   opt->comp.name, unit->comp.name));
	if (opt && comp_is(unit, "hz"))
		return point_error(se, point, opt, "timer.hz takes no "
				   "'.randomize'");
	if (opt && opt->next)
		return point_error(se, point, opt->next, arena_printf(a,
				   "unexpected component '.%s' after "
				   ".randomize", opt->next->comp.name));
	if (!scale && !comp_is(unit, "hz") && !comp_is(unit, "jiffies"))
		return point_error(se, point, unit, "unknown timer unit "
				   "(expected s, ms, us, ns, jiffies, hz or "
				   "profile)");
	if (!unit->comp.arg || unit->comp.arg->kind != N_NUMBER)
		return point_error(se, point, unit, arena_printf(a,
				   "timer.%s needs a number: timer.%s(N)",
				   unit->comp.name, unit->comp.name));
	if (opt && (!opt->comp.arg || opt->comp.arg->kind != N_NUMBER))
		return point_error(se, point, opt, "'.randomize' needs a "
				   "number: .randomize(N)");
	int64_t v = unit->comp.arg->num.value;
	int64_t r = opt ? opt->comp.arg->num.value : 0;

	if (comp_is(unit, "hz")) {
		if (v <= 0)
			return point_error(se, point, unit, "frequency must be "
					   "greater than 0");
		timer_of(dp)->period_ns = 1000000000ULL / (uint64_t)v;
		if (timer_of(dp)->period_ns < min_ns)
			return point_error(se, point, unit, arena_printf(a,
					   "interval value out of range (%" PRIu64
					   ", %" PRIu64 ")", min_ns, max_ns));
		return true;
	}
	if (comp_is(unit, "jiffies")) {
		if (v <= 0 || v > 1000000)
			return point_error(se, point, unit, "invalid interval "
					   "for jiffies timer");
		if (r < 0 || r > v)
			return point_error(se, point, opt, "invalid randomize "
					   "for jiffies timer");
		/* in jiffies: the runtime knows the kernel's HZ */
		timer_of(dp)->jiffies = true;
		timer_of(dp)->period_ns = (uint64_t)v;
		timer_of(dp)->randomize_ns = (uint64_t)r;
		return true;
	}
	uint64_t lo = min_ns / scale ? min_ns / scale : 1, hi = max_ns / scale;
	if (v < (int64_t)lo || (uint64_t)v > hi)
		return point_error(se, point, unit, arena_printf(a,
				   "interval value out of range (%" PRIu64 ", %"
				   PRIu64 ")", lo, hi));
	if (r < 0 || r > v)
		return point_error(se, point, opt, "randomization value out of "
				   "range");
	timer_of(dp)->period_ns = (uint64_t)v * scale;
	timer_of(dp)->randomize_ns = (uint64_t)r * scale;
	return true;
}

static int derive(struct sema *se, struct node *point, struct derived_probe *dp)
{
	return derive_timer(se, point, dp);
}

static const char *const roots[] = { "timer", NULL };
static const char *const probe_types[] = {
	"timer.hz(number)", "timer.jiffies(number)",
	"timer.jiffies(number).randomize(number)", "timer.profile",
	"timer.s(number)", "timer.s(number).randomize(number)",
	"timer.sec(number)", "timer.sec(number).randomize(number)",
	"timer.ms(number)", "timer.ms(number).randomize(number)",
	"timer.msec(number)", "timer.msec(number).randomize(number)",
	"timer.us(number)", "timer.us(number).randomize(number)",
	"timer.usec(number)", "timer.usec(number).randomize(number)",
	"timer.ns(number)", "timer.ns(number).randomize(number)",
	"timer.nsec(number)", "timer.nsec(number).randomize(number)",
	NULL,
};

const struct probe_family timer_family = {
	.point_size = sizeof(struct derived_probe),
	.name = "timer",
	.roots = roots,
	.probe_types = probe_types,
	.derive = derive,
};
