// SPDX-License-Identifier: GPL-2.0
/*
 * Marking a task that already waits on an alarm. A manager marks a task
 * that sleeps on an alarm clock or reads an alarm timerfd, or unmarks and
 * marks again one that waits deboosted: the task must deboost at once and
 * go on waiting, not hold the system awake for the rest of its wait (an
 * hour here). Witnesses: /proc's StayAwake: line and syscall, and an alarm
 * suspend while the marked sleeper waits.
 *
 * The event-loop waits (ppoll, epoll_pwait, rt_sigsuspend with a POSIX
 * alarm timer) are marked inside the window between their look at the
 * mark and their task state, held open by stayawake_wait_delay_ms
 * (CONFIG_SCHED_STAYAWAKE_DEBUG): the mark's kick finds the task still
 * running there, so the wait must look again after setting its state.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define WAIT_DELAY_KNOB "/sys/kernel/debug/sched/stayawake_wait_delay_ms"

static pid_t main_pid, child;

static void kill_child(void)
{
	if (getpid() == main_pid && child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = 0;
	}
	if (getpid() == main_pid)
		write_str(WAIT_DELAY_KNOB, "0");
}

/* An unmarked child waiting an hour on an alarm clock or alarm timerfd. */
static pid_t waiter(bool timerfd)
{
	long nr = timerfd ? SYS_read : SYS_clock_nanosleep;
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { .tv_sec = 3600 };
		struct itimerspec its = { .it_value = ts };
		uint64_t ticks;
		int fd;

		if (!timerfd) {
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
			_exit(0);
		}
		fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
		if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
			_exit(3);
		(void)!read(fd, &ticks, sizeof(ticks));
		_exit(0);
	}
	if (pid < 0 || !wait_blocked_in(pid, nr, 5))
		tap_bail("the waiter never blocked: %s", strerror(errno));
	return pid;
}

/* Deboosted and still in its wait: the wakeup that made it look again did
 * not end the wait. */
static void check_deboosted(pid_t pid, bool timerfd, const char *what)
{
	long nr = timerfd ? SYS_read : SYS_clock_nanosleep;
	bool deboosted = wait_stayawake_state(pid, "deboosted");
	bool waiting = wait_blocked_in(pid, nr, 1);
	char sa[32];

	tap_check(deboosted && waiting, what,
		  "StayAwake: %s, %s", proc_stayawake(pid, sa, sizeof(sa)),
		  waiting ? "still in its wait" : "left its wait");
}

enum loop_wait { LW_PPOLL, LW_EPOLL, LW_SIGSUSPEND, LW_COUNT };
static const char *const loop_wait_name[LW_COUNT] = {
	"ppoll", "epoll_pwait", "rt_sigsuspend",
};
static const long loop_wait_nr[LW_COUNT] = {
	SYS_ppoll, SYS_epoll_pwait, SYS_rt_sigsuspend,
};

static void on_alarm(int sig)
{
}

/* An unmarked child in an event-loop wait that an alarm an hour out ends */
static pid_t loop_waiter(enum loop_wait w)
{
	struct itimerspec its = { .it_value = { .tv_sec = 3600 } };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGALRM };
	struct epoll_event ev = { .events = EPOLLIN };
	pid_t pid = fork();
	sigset_t none;
	timer_t tm;
	int fd, ep;

	if (pid)
		return pid;
	sigemptyset(&none);
	if (w == LW_SIGSUSPEND) {
		signal(SIGALRM, on_alarm);	/* taken: an ignored one is not */
		if (timer_create(CLOCK_BOOTTIME_ALARM, &sev, &tm) ||
		    timer_settime(tm, 0, &its, NULL))
			_exit(3);
		sigsuspend(&none);
		_exit(0);
	}
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		_exit(3);
	if (w == LW_PPOLL) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		ppoll(&p, 1, NULL, NULL);
		_exit(0);
	}
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		_exit(3);
	epoll_pwait(ep, &ev, 1, -1, NULL);
	_exit(0);
}

/* The child is in @nr, in the delay (the only 'D' sleep on that path) */
static bool in_wait_delay(pid_t pid, long nr)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;

	while (clock_ns(CLOCK_MONOTONIC) < end) {
		if (proc_state(pid) == 'D' && proc_syscall(pid) == nr)
			return true;
		usleep(1000);
	}
	return false;
}

static void check_loop_wait(enum loop_wait w)
{
	const char *what = tap_case(loop_wait_name[w],
				    "marked before it sleeps: deboosts");
	bool in, deboosted, waiting;
	char sa[32];

	if (write_str(WAIT_DELAY_KNOB, "1000"))
		tap_bail("%s: %s", WAIT_DELAY_KNOB, strerror(errno));
	child = loop_waiter(w);
	in = in_wait_delay(child, loop_wait_nr[w]);
	if (stayawake_mark(child, true))
		tap_bail("marking %d: %s", child, strerror(errno));
	write_str(WAIT_DELAY_KNOB, "0");
	/* Judged before the diagnostics read: their order is unspecified */
	deboosted = wait_stayawake_state(child, "deboosted");
	waiting = wait_blocked_in(child, loop_wait_nr[w], 2);
	tap_check(in && deboosted && waiting, what,
		  "%s the delay, StayAwake: %s, %s",
		  in ? "marked in" : "never seen in",
		  proc_stayawake(child, sa, sizeof(sa)),
		  waiting ? "still in its wait" : "left its wait");
	kill_child();
}

int main(void)
{
	int err;

	tap_init("mark_asleep");
	main_pid = getpid();
	atexit(kill_child);

	child = waiter(false);
	err = stayawake_mark(child, true);
	if (err)
		tap_bail("marking %d: %s", child, strerror(errno));
	check_deboosted(child, false, "marked in an alarm sleep: deboosts and sleeps on");
	check_alarm_suspend("marked in an alarm sleep: an alarm suspend works", 3);

	if (stayawake_mark(child, false) || stayawake_mark(child, true))
		tap_bail("unmark and mark %d: %s", child, strerror(errno));
	check_deboosted(child, false,
			"unmarked and marked again in an alarm sleep: deboosts");
	kill_child();

	child = waiter(true);
	if (stayawake_mark(child, true))
		tap_bail("marking %d: %s", child, strerror(errno));
	check_deboosted(child, true,
			"marked while reading an alarm timerfd: deboosts and waits on");
	kill_child();

	for (int w = 0; w < LW_COUNT; w++)
		check_loop_wait(w);
	return tap_done();
}
