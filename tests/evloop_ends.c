// SPDX-License-Identifier: GPL-2.0
/*
 * What else ends an event loop's wait, through each call of the poll family
 * (see evloop for the alarm):
 *
 * - a set with no wakeup-capable file (a CLOCK_BOOTTIME timerfd and a pipe)
 *   keeps the marked task boosted: with suspend requested in a loop
 *   throughout, nothing suspends;
 * - with an alarm timerfd armed far out and a pipe, the task deboosts (its
 *   /proc StayAwake: says so) and then a write to the pipe, a signal or the
 *   call's own timeout ends the wait; the task is boosted again when it
 *   returns: "stayawake" is what refuses "mem".
 *
 * io_uring is not covered: io_uring_enter() waiting for the read of an
 * alarm timerfd keeps the task boosted, and nothing suspends through it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define AWAKE_S 4
#define FAR_S 60
#define TIMEOUT_MS 2000
#define SAFETY_MS 20000

enum end { BY_PIPE, BY_SIGNAL, BY_TIMEOUT, ENDS };

static const struct {
	const char *name;
	int timeout_ms;
	int want;	/* what the call returns */
} ends[ENDS] = {
	[BY_PIPE]    = { "a pipe write", SAFETY_MS, 1 },
	[BY_SIGNAL]  = { "a signal", SAFETY_MS, -EINTR },
	[BY_TIMEOUT] = { "the timeout", TIMEOUT_MS, 0 },
};

static void on_usr1(int sig)
{
}

static void stays_awake(enum poll_call call)
{
	const char *name = poll_call_name[call];
	struct suspender sus;
	struct loop_set ls;
	long s0, s1, r;
	int n;

	n = loop_set_open(&ls, CLOCK_BOOTTIME, true, false);
	if (n || loop_set_arm(&ls, AWAKE_S * SEC_NS))
		tap_bail("boottime set: %s", strerror(n ? -n : errno));
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	suspender_start(&sus);
	s0 = suspend_success();
	do
		n = poll_call_wait(call, ls.fd, ls.n, ls.ep, -1);
	while (n == -EINTR);
	s1 = suspend_success();
	r = suspender_refused(&sus);
	suspender_stop(&sus);
	stayawake_mark(0, false);
	loop_set_close(&ls);
	tap_check(n == 1 && s1 == s0 && r > 0,
		  tap_case(name, "boottime timerfd and a pipe: stayed awake"),
		  "returned %d, success %ld->%ld while %ld requests were refused",
		  n, s0, s1, r);
}

/* io_uring_enter() waits for a read of a (blocking) alarm timerfd */
static void io_uring_stays_awake(void)
{
	struct itimerspec its = { .it_value = { .tv_sec = AWAKE_S } };
	struct io_uring_sqe *sqe;
	struct suspender sus;
	struct ring r;
	uint64_t ticks;
	long s0, s1, refused;
	int fd, n;

	ring_setup(&r);
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		tap_bail("alarm timerfd: %s", strerror(errno));
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	suspender_start(&sus);
	s0 = suspend_success();
	sqe = ring_sqe(&r);
	sqe->opcode = IORING_OP_READ;
	sqe->fd = fd;
	sqe->addr = (unsigned long)&ticks;
	sqe->len = sizeof(ticks);
	do
		n = ring_submit(&r, 1);
	while (n == -EINTR);
	s1 = suspend_success();
	refused = suspender_refused(&sus);
	suspender_stop(&sus);
	stayawake_mark(0, false);
	close(fd);
	ring_close(&r);
	tap_check(n == 1 && ring_cq_tail(&r) == 1 && s1 == s0 && refused > 0,
		  "io_uring_enter: alarm timerfd read: stayed awake",
		  "submitted %d, completions %u, success %ld->%ld while %ld requests were refused",
		  n, ring_cq_tail(&r), s0, s1, refused);
}

/* Once @parent is deboosted, end its wait; exits 0 if it saw that. */
static pid_t ender(pid_t parent, enum end e, int pipe_w)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (!wait_stayawake_state(parent, "deboosted"))
		_exit(1);
	if (e == BY_PIPE && write(pipe_w, "x", 1) != 1)
		_exit(2);
	if (e == BY_SIGNAL && kill(parent, SIGUSR1))
		_exit(3);
	_exit(0);
}

static void ended(enum poll_call call, enum end e)
{
	const char *name = poll_call_name[call];
	struct loop_set ls;
	char what[96];
	int n, status;
	pid_t pid;

	n = loop_set_open(&ls, CLOCK_BOOTTIME_ALARM, true, false);
	if (n || loop_set_arm(&ls, FAR_S * SEC_NS))
		tap_bail("alarm set: %s", strerror(n ? -n : errno));
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	pid = ender(getpid(), e, ls.pipe[1]);
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	n = poll_call_wait(call, ls.fd, ls.n, ls.ep, ends[e].timeout_ms);
	waitpid(pid, &status, 0);
	snprintf(what, sizeof(what), "%s: deboosted, then it ended the wait",
		 ends[e].name);
	tap_check(n == ends[e].want && WIFEXITED(status) &&
		  !WEXITSTATUS(status), tap_case(name, what),
		  "returned %d (want %d), the ender saw it deboosted: %s",
		  n, ends[e].want,
		  WIFEXITED(status) && !WEXITSTATUS(status) ? "yes" : "no");
	snprintf(what, sizeof(what), "%s: boosted after the wait",
		 ends[e].name);
	check_suspend_refused(tap_case(name, what));
	stayawake_mark(0, false);
	loop_set_close(&ls);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int call, e;

	tap_init("evloop_ends");
	/* No SA_RESTART: the signal ends the wait with EINTR */
	if (sigaction(SIGUSR1, &sa, NULL))
		tap_bail("sigaction: %s", strerror(errno));
	for (call = 0; call < PC_CALLS; call++) {
		stays_awake(call);
		for (e = 0; e < ENDS; e++)
			ended(call, e);
	}
	io_uring_stays_awake();
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}
