// SPDX-License-Identifier: GPL-2.0
/*
 * Every wakeup that ends a deboosted wait as a signal does boosts the task,
 * also one that does not go through complete_signal(): task work queued
 * with TWA_SIGNAL, as io_uring queues the completion of a request.
 *
 * A marked task sleeps on the alarm clock, deboosted; the sleep is
 * freezable, so its v1 freezer cgroup freezes it in place, where no wakeup
 * reaches it (a system suspend's freezer does the same). Its io_uring
 * timeout then expires: the completion waits for the task to run, so the
 * task must be boosted now, or a suspend would go ahead with its work
 * pending. A real signal (complete_signal()) is the control. Witnesses:
 * the StayAwake: line, the stayawake_reboost trace event, the CQ ring.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>

#include "lib.h"

#define CG1_DIR "/dev/freezer/notify_signal"
#define TIMEOUT_S 2
#define TRACE "/sys/kernel/tracing/"

enum waker { IO_URING, SIGNAL };

static const char *const waker_name[] = {
	[IO_URING] = "io_uring timeout",
	[SIGNAL] = "signal",
};

static pid_t main_pid, child;

static void cleanup(void)
{
	if (getpid() != main_pid)
		return;
	write_str(CG1_DIR "/freezer.state", "THAWED");
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	rmdir(CG1_DIR);
	write_str(TRACE "tracing_on", "0");
	write_str(TRACE "events/stayawake/enable", "0");
}

/* In the child: a TIMEOUT_S timeout request, submitted by this task. */
static int submit_timeout(struct ring *r)
{
	static struct __kernel_timespec ts = { .tv_sec = TIMEOUT_S };
	struct io_uring_sqe *sqe = ring_sqe(r);

	sqe->opcode = IORING_OP_TIMEOUT;
	sqe->fd = -1;
	sqe->addr = (unsigned long)&ts;
	sqe->len = 1;
	sqe->user_data = 1;
	return ring_submit(r, 0) == 1 ? 0 : -1;
}

static void on_signal(int sig)
{
}

/* Marked, with its io_uring timeout pending if @w says so, asleep for good. */
static pid_t sleeper(enum waker w, struct ring *r)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { 3600, 0 };

		signal(SIGUSR1, on_signal);
		if (stayawake_mark(0, true) ||
		    (w == IO_URING && submit_timeout(r)))
			_exit(2);
		for (;;)
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
	}
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	return pid;
}

/* Lines of the trace that reboost @pid for a signal. */
static int reboosts(pid_t pid)
{
	char s[64];

	snprintf(s, sizeof(s), "pid=%d reason=signal", pid);
	return trace_count(s);
}

static void one(enum waker w)
{
	const char *who = waker_name[w];
	struct ring r;
	char word[32];
	unsigned int cq0;
	bool frozen;
	int64_t end;

	ring_setup(&r);
	cq0 = ring_cq_tail(&r);
	trace_clear();
	child = sleeper(w, &r);
	frozen = wait_blocked_in(child, SYS_clock_nanosleep, 5) &&
		 wait_stayawake_state(child, "deboosted") &&
		 cg1_freeze(CG1_DIR, child);
	tap_check(frozen && wait_stayawake_state(child, "deboosted"),
		  tap_case(who, "frozen in place in its alarm sleep, deboosted"),
		  "frozen %d, StayAwake: %s", frozen,
		  proc_stayawake(child, word, sizeof(word)));

	if (w == SIGNAL) {
		kill(child, SIGUSR1);
	} else {
		/* The timeout expires; its completion waits for the task. */
		usleep((TIMEOUT_S + 1) * 1000000);
	}
	tap_check(wait_stayawake_state(child, "boosted") && reboosts(child) > 0,
		  tap_case(who, "the frozen sleeper is boosted at once"),
		  "StayAwake: %s, %d signal reboost events",
		  proc_stayawake(child, word, sizeof(word)), reboosts(child));
	if (w == IO_URING)
		tap_check(ring_cq_tail(&r) == cq0,
			  tap_case(who, "its completion waits for the task"),
			  "CQ tail %u -> %u", cq0, ring_cq_tail(&r));

	write_str(CG1_DIR "/freezer.state", "THAWED");
	end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	while (w == IO_URING && ring_cq_tail(&r) == cq0 &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		usleep(10000);
	if (w == IO_URING)
		tap_check(ring_cq_tail(&r) != cq0,
			  tap_case(who, "thawed, the task completes the request"),
			  "CQ tail %u -> %u", cq0, ring_cq_tail(&r));
	tap_check(wait_stayawake_state(child, "deboosted"),
		  tap_case(who, "and sleeps on deboosted"), "StayAwake: %s",
		  proc_stayawake(child, word, sizeof(word)));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	child = 0;
	rmdir(CG1_DIR);
	close(r.fd);
}

int main(void)
{
	tap_init("notify_signal");
	main_pid = getpid();
	atexit(cleanup);
	if (write_str(TRACE "events/stayawake/enable", "1") ||
	    write_str(TRACE "tracing_on", "1"))
		tap_bail("stayawake trace events: %s", strerror(errno));
	one(SIGNAL);
	one(IO_URING);
	return tap_done();
}
