// SPDX-License-Identifier: GPL-2.0-or-later
/* Running a pass on a deep stack; see deep.h. */
#include "lib/deep.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* Set on the threads deep_call makes: a nested call runs in place. */
static _Thread_local bool on_deep_stack;

struct deep_job {
	void (*fn)(void *arg);
	void *arg;
};

static void *deep_thread(void *p)
{
	struct deep_job *job = p;

	on_deep_stack = true;
	job->fn(job->arg);
	return NULL;
}

void deep_call(void (*fn)(void *arg), void *arg)
{
	struct deep_job job = { fn, arg };
	pthread_attr_t attr;
	pthread_t t;
	bool started = false;

	if (on_deep_stack) {
		fn(arg);
		return;
	}
	/* the stack is mapped, not committed: only the pages a deep input
	 * touches cost memory */
	if (pthread_attr_init(&attr) == 0) {
		started = pthread_attr_setstacksize(&attr, DEEP_STACK_BYTES) == 0 &&
			  pthread_create(&t, &attr, deep_thread, &job) == 0;
		pthread_attr_destroy(&attr);
	}
	if (started)
		pthread_join(t, NULL);
	else
		fn(arg);
}
