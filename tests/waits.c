// SPDX-License-Identifier: GPL-2.0
/*
 * The waits tests put a task in, and the suspender that tries to end them in
 * sleep. Declared in lib.h.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

/* Longer than any wait a test times; see suspender_start() */
#define SAFETY_S 20

void suspender_start(struct suspender *s)
{
	struct itimerspec safety = { { SAFETY_S, 0 }, { SAFETY_S, 0 } };
	int fd;

	s->n = mmap(NULL, sizeof(*s->n), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->n == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	memset(s->n, 0, sizeof(*s->n));
	s->pid = fork();
	if (s->pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (s->pid)
		return;
	/*
	 * Never outlive the test: alone, it would suspend with no alarm set.
	 * A write already in the kernel when the test dies (unmarking it)
	 * may still suspend: an alarm of our own ends any sleep within
	 * SAFETY_S (not marked, we hold nothing awake). A timerfd's alarm
	 * is queued again only when it is read: read it on every pass.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() == 1)
		_exit(0);
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_NONBLOCK);
	if (fd < 0 || timerfd_settime(fd, 0, &safety, NULL))
		_exit(1);
	for (;;) {
		int err = write_str("/sys/power/state", "mem");
		long *n = !err ? &s->n->suspends :
			  err == -EBUSY ? &s->n->refused : &s->n->other;
		uint64_t ticks;

		__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
		if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EAGAIN)
			_exit(1);
	}
}

void suspender_wait_returned(const struct suspender *s)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 10 * SEC_NS;

	while (!__atomic_load_n(&s->n->suspends, __ATOMIC_RELAXED) &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		sched_yield();
}

long suspender_refused(const struct suspender *s)
{
	return __atomic_load_n(&s->n->refused, __ATOMIC_RELAXED);
}

long suspender_work_window(const struct suspender *s, int secs, long *s1,
			   long *s2)
{
	long r;

	suspender_wait_returned(s);
	*s1 = suspend_success();
	r = suspender_refused(s);
	work_window(secs);
	*s2 = suspend_success();
	return suspender_refused(s) - r;
}

void suspender_stop(struct suspender *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
	}
	s->pid = 0;
	munmap(s->n, sizeof(*s->n));
}

const char *const poll_call_name[PC_CALLS] = {
	"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
	"epoll_pwait2",
};

int poll_call_wait(enum poll_call call, const int *fd, int n, int ep,
		   int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, timeout_ms % 1000 * 1000000L };
	struct timeval tv = { ts.tv_sec, ts.tv_nsec / 1000 };
	struct timespec *tsp = timeout_ms < 0 ? NULL : &ts;
	struct timeval *tvp = timeout_ms < 0 ? NULL : &tv;
	struct pollfd p[8];
	struct epoll_event ev;
	int i, top = -1, r;
	fd_set set;

	if (n > 8)
		return -EINVAL;
	FD_ZERO(&set);
	for (i = 0; i < n; i++) {
		p[i] = (struct pollfd){ .fd = fd[i], .events = POLLIN };
		FD_SET(fd[i], &set);
		if (fd[i] > top)
			top = fd[i];
	}
	switch (call) {
	case PC_POLL:
		r = poll(p, n, timeout_ms < 0 ? -1 : timeout_ms);
		break;
	case PC_PPOLL:
		r = ppoll(p, n, tsp, NULL);
		break;
	case PC_SELECT:
		r = select(top + 1, &set, NULL, NULL, tvp);
		break;
	case PC_PSELECT:
		r = pselect(top + 1, &set, NULL, NULL, tsp, NULL);
		break;
	case PC_EPOLL_WAIT:
		r = epoll_wait(ep, &ev, 1, timeout_ms < 0 ? -1 : timeout_ms);
		break;
	case PC_EPOLL_PWAIT:
		r = epoll_pwait(ep, &ev, 1, timeout_ms < 0 ? -1 : timeout_ms,
				NULL);
		break;
	default:
		r = syscall(SYS_epoll_pwait2, ep, &ev, 1, tsp, NULL, 0);
		break;
	}
	return r < 0 ? -errno : r;
}

static int epoll_of(const int *fd, int n)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0), i;

	for (i = 0; ep >= 0 && i < n; i++)
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd[i], &ev)) {
			close(ep);
			return -1;
		}
	return ep;
}

int loop_set_open(struct loop_set *s, int clock, bool with_pipe, bool nested)
{
	int own[2];

	*s = (struct loop_set){ .tfd = -1, .pipe = { -1, -1 }, .inner = -1,
				.ep = -1 };
	s->tfd = timerfd_create(clock, TFD_NONBLOCK);
	if (s->tfd < 0 || (with_pipe && pipe(s->pipe)))
		goto fail;
	own[0] = s->tfd;
	own[1] = s->pipe[0];
	s->n = with_pipe ? 2 : 1;
	if (nested) {
		s->inner = epoll_of(own, s->n);
		if (s->inner < 0)
			goto fail;
		s->fd[0] = s->inner;
		s->n = 1;
	} else {
		memcpy(s->fd, own, sizeof(own));
	}
	s->ep = epoll_of(s->fd, s->n);
	if (s->ep >= 0)
		return 0;
fail:
	loop_set_close(s);
	return -errno;
}

int loop_set_arm(const struct loop_set *s, int64_t ns)
{
	struct itimerspec its = { .it_value = { ns / SEC_NS, ns % SEC_NS } };

	return timerfd_settime(s->tfd, 0, &its, NULL) ? -errno : 0;
}

void loop_set_close(struct loop_set *s)
{
	int *fds[] = { &s->ep, &s->inner, &s->tfd, &s->pipe[0], &s->pipe[1] };
	unsigned int i;

	for (i = 0; i < sizeof(fds) / sizeof(*fds); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

void work_window(int secs)
{
	struct timespec nap = { .tv_nsec = 100 * 1000 * 1000 };
	int64_t end = clock_ns(CLOCK_MONOTONIC) + secs * SEC_NS;

	/* Spin, but let a suspender on the same CPU (x86_64: one) run too */
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		int64_t spin = clock_ns(CLOCK_MONOTONIC) + 50 * 1000 * 1000;

		while (clock_ns(CLOCK_MONOTONIC) < spin)
			;
		clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
	}
}
