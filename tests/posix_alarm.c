// SPDX-License-Identifier: GPL-2.0
/*
 * POSIX alarm timers and the waits for their signals: a marked task owns a
 * timer_create() timer on CLOCK_BOOTTIME_ALARM or CLOCK_REALTIME_ALARM that
 * sends SIGRTMIN to its process (SIGEV_SIGNAL) or to its thread
 * (SIGEV_THREAD_ID), and waits for it in sigwaitinfo, sigtimedwait,
 * sigsuspend, pause, epoll_wait on a signalfd, or with a handler in ppoll
 * with no files or epoll_pwait on an empty set (a signal ends any wait of
 * the poll family; glibc's pause() is such a ppoll on arm64). Another process requests
 * suspend in a loop: the system suspends in the wait (suspend_stats/success
 * rose, BOOTTIME ahead of MONOTONIC by more than a second), the signal
 * arrives by the deadline + 2 s, and through a work window after it every
 * request is refused. The control: the same wait for a CLOCK_BOOTTIME
 * timer's signal keeps the system awake. Without CAP_WAKE_ALARM, creating
 * either kind of alarm timer fails with the kernel's EPERM.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SLEEP_S 5
#define WORK_S 1

enum how { SIGWAITINFO, SIGTIMEDWAIT, SIGSUSPEND, PAUSE, SIGNALFD, PPOLL,
	   EPOLL_PWAIT, HOWS };

static const char *const how_name[HOWS] = {
	"sigwaitinfo", "sigtimedwait", "sigsuspend", "pause",
	"signalfd in epoll_wait", "ppoll with no files",
	"epoll_pwait on an empty set",
};

static volatile sig_atomic_t caught;

static void on_sig(int sig)
{
	caught = 1;
}

/* A timer on @clock that sends SIGRTMIN SLEEP_S out; -errno on failure */
static int timer_start(int clock, bool thread, timer_t *t)
{
	struct sigevent sev = {
		.sigev_notify = thread ? SIGEV_THREAD_ID : SIGEV_SIGNAL,
		.sigev_signo = SIGRTMIN,
	};
	struct itimerspec its = { .it_value = { .tv_sec = SLEEP_S } };

	if (thread)
		sev._sigev_un._tid = syscall(SYS_gettid);
	if (timer_create(clock, &sev, t))
		return -errno;
	if (timer_settime(*t, 0, &its, NULL)) {
		timer_delete(*t);
		return -errno;
	}
	return 0;
}

/* Wait for SIGRTMIN in @how; 0 once it came, or -errno */
static int signal_wait(enum how how, int clock, bool thread)
{
	struct timespec far = { .tv_sec = 60 };
	struct epoll_event ev = { .events = EPOLLIN };
	struct signalfd_siginfo ssi;
	sigset_t set, none;
	int r, sfd = -1, ep = -1;
	timer_t t;

	sigemptyset(&none);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	caught = 0;
	/* Blocked, so it stays pending for the waits that take it so */
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (how == SIGNALFD) {
		/* The timer first: epoll judges the signalfd when added */
		r = timer_create(clock, &(struct sigevent){
			.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN },
			&t);
		if (r || thread)
			return r ? -errno : -EINVAL;
		sfd = signalfd(-1, &set, SFD_NONBLOCK);
		ep = epoll_create1(0);
		if (sfd < 0 || ep < 0 ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &ev) ||
		    timer_settime(t, 0, &(struct itimerspec){
				  .it_value = { .tv_sec = SLEEP_S } }, NULL))
			r = -errno;
	} else {
		r = timer_start(clock, thread, &t);
		if (r)
			return r;
		ep = how == EPOLL_PWAIT ? epoll_create1(0) : -1;
		if (how == EPOLL_PWAIT && ep < 0)
			r = -errno;
	}
	while (!r) {
		switch (how) {
		case SIGWAITINFO:
			r = sigwaitinfo(&set, NULL) == SIGRTMIN ? 1 : -errno;
			break;
		case SIGTIMEDWAIT:
			r = sigtimedwait(&set, NULL, &far) == SIGRTMIN ? 1 :
			    -errno;
			break;
		case SIGSUSPEND:
			sigsuspend(&none);
			r = caught ? 1 : -errno;
			break;
		case PAUSE:
			/* A signal already pending is caught right here */
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			if (!caught)
				pause();
			r = caught ? 1 : -errno;
			sigprocmask(SIG_BLOCK, &set, NULL);
			break;
		case PPOLL:
			ppoll(NULL, 0, NULL, &none);
			r = caught ? 1 : -errno;
			break;
		case EPOLL_PWAIT:
			epoll_pwait(ep, &ev, 1, -1, &none);
			r = caught ? 1 : -errno;
			break;
		default:
			r = epoll_wait(ep, &ev, 1, -1);
			r = r < 0 ? -errno :
			    read(sfd, &ssi, sizeof(ssi)) == sizeof(ssi) ? 1 :
			    -EPROTO;
			break;
		}
		/* The freezer may end a wait with EINTR: wait again */
		if (r == -EINTR)
			r = 0;
	}
	timer_delete(t);
	if (ep >= 0)
		close(ep);
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return r == 1 ? 0 : r;
}

static void cycle(enum how how, int clock, bool thread)
{
	bool alarm = clock != CLOCK_BOOTTIME;
	char name[96], what[64];
	struct clock_pair c0, c1;
	struct suspender sus;
	long s0, s1, s2, refused;
	int64_t slept, elapsed;
	int err;

	snprintf(name, sizeof(name), "%s, %s, %s", how_name[how],
		 clock == CLOCK_BOOTTIME ? "CLOCK_BOOTTIME" :
		 clock == CLOCK_BOOTTIME_ALARM ? "CLOCK_BOOTTIME_ALARM" :
		 "CLOCK_REALTIME_ALARM", thread ? "SIGEV_THREAD_ID" :
		 "SIGEV_SIGNAL");
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	suspender_start(&sus);
	s0 = suspend_success();
	clock_pair_read(&c0);
	err = signal_wait(how, clock, thread);
	clock_pair_read(&c1);
	if (alarm) {
		refused = suspender_work_window(&sus, WORK_S, &s1, &s2);
	} else {
		s1 = s2 = suspend_success();
		refused = suspender_refused(&sus);
	}
	suspender_stop(&sus);
	stayawake_mark(0, false);

	slept = clock_pair_suspended_ns(&c0, &c1);
	elapsed = c1.boot - c0.boot;
	if (!alarm) {
		tap_check(!err && s1 == s0 && refused > 0,
			  tap_case(name, "stayed awake in the wait"),
			  "%s, success %ld->%ld while %ld requests were refused",
			  err ? strerror(-err) : "signalled", s0, s1, refused);
		return;
	}
	tap_check(!err && s1 > s0 && slept > SEC_NS,
		  tap_case(name, "suspended in the wait"),
		  "%s, success %ld->%ld, suspended %.2f s of %d s",
		  err ? strerror(-err) : "signalled", s0, s1, slept / 1e9,
		  SLEEP_S);
	snprintf(what, sizeof(what), "signalled by its deadline + 2 s");
	tap_check(elapsed >= SLEEP_S * SEC_NS &&
		  elapsed <= (SLEEP_S + 2) * SEC_NS, tap_case(name, what),
		  "waited %.2f s of %d s (BOOTTIME)", elapsed / 1e9, SLEEP_S);
	tap_check(s2 == s1 && refused > 0,
		  tap_case(name, "boosted after the wait"),
		  "success %ld->%ld while %ld requests were refused",
		  s1, s2, refused);
}

/* In a child without CAP_WAKE_ALARM: both kinds of alarm timer, EPERM */
static void without_cap_wake_alarm(void)
{
	int status, fd = -1;
	pid_t pid = fork();
	timer_t t;

	if (!pid) {
		if (drop_cap(CAP_WAKE_ALARM))
			_exit(10);
		if (timer_create(CLOCK_BOOTTIME_ALARM, NULL, &t) == 0 ||
		    errno != EPERM)
			_exit(1);
		fd = timerfd_create(CLOCK_REALTIME_ALARM, 0);
		_exit(fd < 0 && errno == EPERM ? 0 : 2);
	}
	waitpid(pid, &status, 0);
	tap_check(WIFEXITED(status) && !WEXITSTATUS(status),
		  "without CAP_WAKE_ALARM: timer_create and timerfd_create fail with EPERM",
		  "child exit %d (10: capset failed, 1: timer_create, 2: timerfd_create did not fail with EPERM)",
		  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_sig };
	int how;

	tap_init("posix_alarm");
	if (sigaction(SIGRTMIN, &sa, NULL))
		tap_bail("sigaction: %s", strerror(errno));
	for (how = 0; how < HOWS; how++) {
		cycle(how, how % 2 ? CLOCK_REALTIME_ALARM :
		      CLOCK_BOOTTIME_ALARM, false);
		if (how != SIGNALFD)
			cycle(how, CLOCK_BOOTTIME_ALARM, true);
	}
	cycle(SIGWAITINFO, CLOCK_BOOTTIME, false);
	without_cap_wake_alarm();
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}
