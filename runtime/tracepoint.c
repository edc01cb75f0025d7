// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.trace probes: each entry registers its callback on the kernel's
 * tracepoint of that name: a typed one the compiler generated (the
 * tracepoint's prototype, its arguments as context values), a lean one
 * (STP_TP_LEAN_HIT), or the generic one below. An entry a dispatch
 * callback runs for (shared) registers nothing itself.
 *
 * A tracepoint of the vmlinux must exist when the module starts. One a
 * module defines (in_module, from pass 2's symbol scan) is armed while
 * that module is loaded: the kernel's tracepoint module notifier reports
 * the modules already loaded when it is registered, then each one that
 * comes or goes. A going module's tracepoints are unregistered in the
 * notifier, before the kernel checks they are quiescent and frees them.
 * stp_tp_mutex orders the notifier against arming and disarming.
 */

struct stp_tracepoint {
	const struct stp_probe *p;	/* its probe */
	const struct stp_tp_probe *k;	/* its tracepoint's entry */
	struct tracepoint *tp;		/* the kernel's, once found */
	struct module *mod;		/* tp's module, NULL: the vmlinux */
	bool armed;
};

static struct stp_tracepoint *stp_tps;	/* the table's tracepoint probes */

static size_t stp_ntps;
static DEFINE_MUTEX(stp_tp_mutex);	/* tp, mod, armed; stp_tp_stopping */
static bool stp_tp_stopping;		/* disarming: arm nothing more */
static bool stp_tp_notified;		/* the module notifier is registered */

/* Generic tracepoint callback: ignores the tracepoint's own arguments. */
static void stp_tp_generic(void *data)
{
	stp_probe_run(data);
}

static void *stp_tp_func(const struct stp_tp_probe *k)
{
	return k->callback ? k->callback : (void *)stp_tp_generic;
}

static void stp_tp_lookup(struct tracepoint *tp, void *priv)
{
	for (size_t i = 0; i < stp_ntps; i++)
		if (!stp_tps[i].tp && !stp_tps[i].k->in_module &&
		    !strcmp(tp->name, stp_tps[i].k->name))
			stp_tps[i].tp = tp;
}

/* Register t's callback on its tracepoint (found); under stp_tp_mutex. */
static int stp_tp_register(struct stp_tracepoint *t)
{
	int ret;

	if (t->k->shared)
		return 0;
	ret = tracepoint_probe_register(t->tp, stp_tp_func(t->k),
					(void *)t->p);
	if (ret) {
		stp_ctl_stderr("ERROR: probe ", t->p->pp,
			       ": cannot register tracepoint '",
			       t->k->name, "'\n", NULL);
		return ret;
	}
	t->armed = true;
	return 0;
}

static void stp_tp_unregister(struct stp_tracepoint *t)
{
	if (t->armed)
		tracepoint_probe_unregister(t->tp, stp_tp_func(t->k),
					    (void *)t->p);
	t->armed = false;
}

#ifdef CONFIG_MODULES
static int stp_tp_module_event(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct module *mod = ((struct tp_module *)data)->mod;
	size_t i;

	mutex_lock(&stp_tp_mutex);
	if (val == MODULE_STATE_COMING && !stp_tp_stopping) {
		for (unsigned int k = 0; k < mod->num_tracepoints; k++) {
			struct tracepoint *tp =
				tracepoint_ptr_deref(&mod->tracepoints_ptrs[k]);

			for (i = 0; i < stp_ntps; i++) {
				struct stp_tracepoint *t = &stp_tps[i];

				if (!t->k->in_module || t->tp ||
				    strcmp(tp->name, t->k->name))
					continue;
				t->tp = tp;
				t->mod = mod;
				stp_tp_register(t);
			}
		}
	} else if (val == MODULE_STATE_GOING) {
		for (i = 0; i < stp_ntps; i++) {
			struct stp_tracepoint *t = &stp_tps[i];

			if (t->mod != mod)
				continue;
			stp_tp_unregister(t);
			t->tp = NULL;
			t->mod = NULL;
		}
	}
	mutex_unlock(&stp_tp_mutex);
	return NOTIFY_OK;
}

static struct notifier_block stp_tp_module_nb = {
	.notifier_call = stp_tp_module_event,
};
#endif

static void stp_tracepoint_disarm(void)
{
	bool unregistered = false;

	mutex_lock(&stp_tp_mutex);
	stp_tp_stopping = true;
	for (size_t i = 0; i < stp_ntps; i++) {
		unregistered |= stp_tps[i].armed;
		stp_tp_unregister(&stp_tps[i]);
	}
	mutex_unlock(&stp_tp_mutex);
#ifdef CONFIG_MODULES
	/* after the unregistering: a module going before this returns is
	 * still told to the notifier, which now finds nothing armed */
	if (stp_tp_notified)
		unregister_tracepoint_module_notifier(&stp_tp_module_nb);
	stp_tp_notified = false;
#endif
	if (unregistered)
		tracepoint_synchronize_unregister();
	kfree(stp_tps);
	stp_tps = NULL;
	stp_ntps = 0;
}

/* Every vmlinux tracepoint the table names must exist: each one missing
 * is reported before any is registered. */
static int stp_tracepoint_arm(const void *table, size_t n)
{
	const struct stp_tp_probe *tab = table;
	size_t i, in_module = 0;
	int ret = 0;

	if (!n)
		return 0;
	stp_tps = kcalloc(n, sizeof(*stp_tps), GFP_KERNEL);
	if (!stp_tps)
		return -ENOMEM;
	stp_tp_stopping = false;
	for (i = 0; i < n; i++) {
		in_module += tab[i].in_module;
		stp_tps[stp_ntps].p = tab[i].probe;
		stp_tps[stp_ntps++].k = &tab[i];
	}
	for_each_kernel_tracepoint(stp_tp_lookup, NULL);
	for (i = 0; i < stp_ntps; i++) {
		if (stp_tps[i].tp || stp_tps[i].k->in_module)
			continue;
		stp_ctl_stderr("ERROR: probe ", stp_tps[i].p->pp,
			       ": no tracepoint named '", stp_tps[i].k->name,
			       "' in this kernel\n", NULL);
		ret = -ENOENT;
	}
	if (ret)
		return ret;
	mutex_lock(&stp_tp_mutex);
	for (i = 0; i < stp_ntps && !ret; i++)
		if (stp_tps[i].tp)
			ret = stp_tp_register(&stp_tps[i]);
	mutex_unlock(&stp_tp_mutex);
	if (ret)
		return ret;	/* the caller disarms */
#ifdef CONFIG_MODULES
	/* arms the tracepoints of the modules loaded now, then of each
	 * module as it comes */
	if (in_module) {
		ret = register_tracepoint_module_notifier(&stp_tp_module_nb);
		stp_tp_notified = !ret;
	}
#endif
	return ret;
}

const struct stp_tp_probe *stp_tp_probe_of(const struct stp_probe *p)
{
	return stp_probe_kind(p) == &stp_tracepoint_kind ? p->attach : NULL;
}

const struct stp_kind_ops stp_tracepoint_kind = {
	.name = "tracepoint",
	.entry_size = sizeof(struct stp_tp_probe),
	.arm = stp_tracepoint_arm,
	.disarm = stp_tracepoint_disarm,
};
