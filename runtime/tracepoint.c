// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace probes: each entry registers its callback on the kernel's
 * tracepoint of that name: a typed one the compiler generated (the
 * tracepoint's prototype, its arguments as context values), a lean one
 * (STP_TP_LEAN_HIT), or the generic one below. An entry a dispatch
 * callback runs for (tp_shared) registers nothing itself.
 */

struct stp_tracepoint {
	const struct stp_probe *p;	/* its table entry */
	struct tracepoint *tp;		/* the kernel's, once found */
	bool armed;
};

static struct stp_tracepoint *stp_tps;	/* the table's tracepoint probes */
static size_t stp_ntps;

/* Generic tracepoint callback: ignores the tracepoint's own arguments. */
static void stp_tp_generic(void *data)
{
	stp_probe_run(data);
}

static void *stp_tp_func(const struct stp_probe *p)
{
	return p->tp_callback ? p->tp_callback : (void *)stp_tp_generic;
}

static void stp_tp_lookup(struct tracepoint *tp, void *priv)
{
	for (size_t i = 0; i < stp_ntps; i++)
		if (!stp_tps[i].tp && !strcmp(tp->name, stp_tps[i].p->tp_name))
			stp_tps[i].tp = tp;
}

static void stp_tracepoint_disarm(void)
{
	bool unregistered = false;

	for (size_t i = 0; i < stp_ntps; i++) {
		struct stp_tracepoint *t = &stp_tps[i];

		if (!t->armed)
			continue;
		tracepoint_probe_unregister(t->tp, stp_tp_func(t->p),
					    (void *)t->p);
		t->armed = false;
		unregistered = true;
	}
	if (unregistered)
		tracepoint_synchronize_unregister();
	kfree(stp_tps);
	stp_tps = NULL;
	stp_ntps = 0;
}

/* Every tracepoint the table names must exist: each one missing is
 * reported before any is registered. */
static int stp_tracepoint_arm(const struct stp_probe *tab, size_t n)
{
	size_t i, k = 0;
	int ret = 0;

	for (i = 0; i < n; i++)
		k += tab[i].type == STP_PROBE_TRACEPOINT;
	if (!k)
		return 0;
	stp_tps = kcalloc(k, sizeof(*stp_tps), GFP_KERNEL);
	if (!stp_tps)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (tab[i].type == STP_PROBE_TRACEPOINT)
			stp_tps[stp_ntps++].p = &tab[i];
	for_each_kernel_tracepoint(stp_tp_lookup, NULL);
	for (i = 0; i < stp_ntps; i++) {
		if (stp_tps[i].tp)
			continue;
		stp_ctl_stderr("ERROR: probe ", stp_tps[i].p->pp,
			       ": no tracepoint named '", stp_tps[i].p->tp_name,
			       "' in this kernel\n", NULL);
		ret = -ENOENT;
	}
	if (ret)
		return ret;
	for (i = 0; i < stp_ntps; i++) {
		struct stp_tracepoint *t = &stp_tps[i];

		if (t->p->tp_shared)
			continue;
		ret = tracepoint_probe_register(t->tp, stp_tp_func(t->p),
						(void *)t->p);
		if (ret) {
			stp_ctl_stderr("ERROR: probe ", t->p->pp,
				       ": cannot register tracepoint '",
				       t->p->tp_name, "'\n", NULL);
			return ret;	/* the caller disarms */
		}
		t->armed = true;
	}
	return 0;
}
