// SPDX-License-Identifier: GPL-2.0
/*
 * Two managers change one task's policy at once: the policy and the
 * SCHED_STAYAWAKE mark must come from the same call, the later one.
 *
 * sched_setscheduler() writes the policy under the runqueue lock and the
 * mark after it. Manager A sets SCHED_FIFO with the mark; manager B sets
 * SCHED_OTHER (which says "no mark") while A is between the two. Any order
 * of the two calls ends SCHED_OTHER and unmarked; a kernel that applies
 * A's mark last leaves the task SCHED_OTHER and marked, holding the system
 * awake although the last caller said otherwise.
 *
 * The window is a few microseconds wide; the test kernel's
 * /sys/kernel/debug/sched/stayawake_mark_delay_ms (CONFIG_SCHED_STAYAWAKE_DEBUG)
 * holds it open, and B goes in once it sees the policy written and the
 * mark not yet there, so the interleaving is certain, not likely.
 * Witnesses: sched_getscheduler() (the mark is its SCHED_STAYAWAKE bits)
 * and the StayAwake: line of /proc/PID/status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define DELAY_KNOB "/sys/kernel/debug/sched/stayawake_mark_delay_ms"
#define DELAY_MS "500"

static pid_t main_pid, target;

static void kill_target(void)
{
	if (target > 0) {
		kill(target, SIGKILL);
		waitpid(target, NULL, 0);
		target = 0;
	}
}

static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	write_str(DELAY_KNOB, "0");
	kill_target();
}

static pid_t start_target(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	return pid;
}

/* Manager A: SCHED_FIFO 1 with the mark, from a child; returns its pid. */
static pid_t start_marker(pid_t pid)
{
	pid_t a = fork();

	if (a == 0) {
		struct sched_param sp = { .sched_priority = 1 };

		_exit(sched_setscheduler(pid, SCHED_FIFO | SCHED_STAYAWAKE,
					 &sp) ? errno : 0);
	}
	if (a < 0)
		tap_bail("fork: %s", strerror(errno));
	return a;
}

static int join(pid_t a)
{
	int status;

	if (waitpid(a, &status, 0) != a || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Policy without the mark, and whether the mark is set. */
static int policy_of(pid_t pid, bool *marked)
{
	int p = sched_getscheduler(pid);

	*marked = p >= 0 && (p & SCHED_STAYAWAKE);
	return p < 0 ? p : p & ~SCHED_STAYAWAKE;
}

/* Up to 5 s for A's policy to be written while its mark is not yet. */
static bool wait_policy_before_mark(pid_t pid)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	bool marked;

	while (clock_ns(CLOCK_MONOTONIC) < end) {
		if (policy_of(pid, &marked) == SCHED_FIFO)
			return !marked;
		usleep(1000);
	}
	return false;
}

int main(void)
{
	struct sched_param other = { 0 };
	char word[32];
	bool marked, window;
	int err, policy;
	pid_t a;

	tap_init("policy_race");
	main_pid = getpid();
	atexit(cleanup);
	if (write_str(DELAY_KNOB, DELAY_MS))
		tap_bail("%s: %s (CONFIG_SCHED_STAYAWAKE_DEBUG?)", DELAY_KNOB,
			 strerror(errno));

	/* Alone, a delayed mark still lands: the delay itself is harmless. */
	target = start_target();
	err = join(start_marker(target));
	policy = policy_of(target, &marked);
	tap_check(!err && policy == SCHED_FIFO && marked &&
		  wait_stayawake_state(target, "boosted"),
		  "a delayed mark with nobody racing it lands",
		  "sched_setscheduler: %s; policy %d, marked %d, StayAwake: %s",
		  strerror(err), policy, marked,
		  proc_stayawake(target, word, sizeof(word)));
	kill_target();

	/* A's policy, then B's whole call, then A's mark. */
	target = start_target();
	a = start_marker(target);
	window = wait_policy_before_mark(target);
	tap_check(window, "the second manager went in between policy and mark",
		  "SCHED_FIFO written and no mark yet seen: %d", window);
	if (sched_setscheduler(target, SCHED_OTHER, &other))
		tap_diag("sched_setscheduler(SCHED_OTHER): %s", strerror(errno));
	err = join(a);
	policy = policy_of(target, &marked);
	tap_check(!err && policy == SCHED_OTHER && !marked,
		  "the last call decides policy and mark together",
		  "first call: %s; policy %d, marked %d (SCHED_OTHER unmarked wanted)",
		  strerror(err), policy, marked);
	tap_check(wait_stayawake_state(target, "off"),
		  "the task does not hold the system awake",
		  "StayAwake: %s", proc_stayawake(target, word, sizeof(word)));
	tap_check(!stayawake_source_active(), "the stayawake source is idle",
		  "%s", stayawake_source_str());
	return tap_done();
}
