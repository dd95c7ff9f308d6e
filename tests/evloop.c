// SPDX-License-Identifier: GPL-2.0
/*
 * Event loops that sleep: a marked task waits for an alarm timerfd through
 * each call of the poll family (poll, ppoll, select, pselect6, epoll_wait,
 * epoll_pwait, epoll_pwait2), the timerfd alone, with a pipe that stays
 * empty, or nested (inside an epoll set that poll and select watch, or that
 * an outer epoll set holds). Another process requests suspend in a loop.
 *
 * The system suspends in the wait (suspend_stats/success rose, BOOTTIME ran
 * ahead of MONOTONIC across it, by more than a second) and the task is boosted again when it
 * returns: through a work window after it every request is refused and
 * nothing suspends. What else ends such a wait is evloop_ends.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SLEEP_S 5
#define WORK_S 1

static const struct {
	const char *name;
	bool pipe, nested;
} sets[] = {
	{ "alarm timerfd alone", false, false },
	{ "alarm timerfd and a pipe", true, false },
	{ "alarm timerfd in a nested epoll set", false, true },
};

/* Until the timerfd is ready. The freezer may end a wait with EINTR where
 * it must wake the task to freeze it: an event loop retries, so do we. */
static int alarm_wait(enum poll_call call, struct loop_set *ls)
{
	int n = loop_set_arm(ls, SLEEP_S * SEC_NS);

	if (n)
		return n;
	do
		n = poll_call_wait(call, ls->fd, ls->n, ls->ep, -1);
	while (n == -EINTR);
	return n == 1 ? 0 : n < 0 ? n : -EPROTO;
}

static void cycle(enum poll_call call, unsigned int i)
{
	const char *name = poll_call_name[call];
	struct clock_pair c0, c1;
	struct suspender sus;
	struct loop_set ls;
	long s0, s1, s2, refused;
	int64_t slept, elapsed;
	char what[96];
	int err;

	err = loop_set_open(&ls, CLOCK_BOOTTIME_ALARM, sets[i].pipe,
			    sets[i].nested);
	if (err)
		tap_bail("%s: %s", sets[i].name, strerror(-err));
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	suspender_start(&sus);
	s0 = suspend_success();
	clock_pair_read(&c0);
	err = alarm_wait(call, &ls);
	clock_pair_read(&c1);
	refused = suspender_work_window(&sus, WORK_S, &s1, &s2);
	/* Stopped while still marked: nothing may suspend meanwhile */
	suspender_stop(&sus);
	stayawake_mark(0, false);
	loop_set_close(&ls);

	slept = clock_pair_suspended_ns(&c0, &c1);
	elapsed = c1.boot - c0.boot;
	snprintf(what, sizeof(what), "%s: suspended in the wait", sets[i].name);
	tap_check(!err && s1 > s0 && slept > SEC_NS, tap_case(name, what),
		  "%s, success %ld->%ld, suspended %.2f s of %d s",
		  err ? strerror(-err) : "ready", s0, s1, slept / 1e9, SLEEP_S);
	snprintf(what, sizeof(what), "%s: woke by its deadline + 2 s",
		 sets[i].name);
	tap_check(elapsed >= SLEEP_S * SEC_NS &&
		  elapsed <= (SLEEP_S + 2) * SEC_NS, tap_case(name, what),
		  "waited %.2f s of %d s (BOOTTIME)", elapsed / 1e9, SLEEP_S);
	snprintf(what, sizeof(what), "%s: boosted after the wait",
		 sets[i].name);
	tap_check(s2 == s1 && refused > 0, tap_case(name, what),
		  "success %ld->%ld while %ld requests were refused",
		  s1, s2, refused);
}

int main(void)
{
	unsigned int i;
	int call;

	tap_init("evloop");
	for (call = 0; call < PC_CALLS; call++)
		for (i = 0; i < sizeof(sets) / sizeof(*sets); i++)
			cycle(call, i);
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}
