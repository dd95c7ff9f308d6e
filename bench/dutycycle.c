// SPDX-License-Identifier: GPL-2.0
/*
 * Opportunistic-suspend efficiency under /sys/power/autosleep: 200 ms of
 * work, then a 5 s alarm wait, CYCLES times, done two ways:
 *   A  SCHED_STAYAWAKE once, then clock_nanosleep(CLOCK_BOOTTIME_ALARM)
 *   B  /sys/power/wake_lock + wake_unlock around a CLOCK_BOOTTIME_ALARM
 *      timerfd watched by epoll with EPOLLWAKEUP (the Android idiom)
 *   E  SCHED_STAYAWAKE once, then an event loop: epoll_wait on a
 *      CLOCK_BOOTTIME_ALARM timerfd (no EPOLLWAKEUP, no wake_lock)
 * Witnesses: BOOTTIME - MONOTONIC (suspended time), the trace (boot clock)
 * for when each suspend began and the task's own system calls.
 * Prints "DUTY" lines for bench/report.sh and "SPAN" lines for the plot.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>	/* SCHED_STAYAWAKE, from the patched tree */

#define CYCLES 20
#define WORK_MS 200
#define SLEEP_S 5
#define TR "/sys/kernel/tracing/"

static int64_t ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static void busy(int ms)
{
	int64_t end = ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (ns(CLOCK_MONOTONIC) < end)
		;
}

struct cycle {
	int64_t work0_b, work0_m, work1_b, work1_m;	/* boot, mono */
	int64_t wait_b, deadline_b, woke_b;
};

static struct cycle cy[CYCLES];

/* One way of waiting: set up, then wait until the absolute boot deadline. */
struct way {
	const char *name;
	void (*setup)(void);
	void (*wait)(int64_t deadline);
	void (*done)(void);
};

static void a_setup(void)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, SCHED_OTHER | SCHED_STAYAWAKE, &sp)) {
		perror("duty A: SCHED_STAYAWAKE");
		exit(1);
	}
}

static void a_wait(int64_t deadline)
{
	struct timespec ts = { deadline / 1000000000LL, deadline % 1000000000LL };

	while (clock_nanosleep(CLOCK_BOOTTIME_ALARM, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static void a_done(void)
{
	struct sched_param sp = { 0 };

	sched_setscheduler(0, SCHED_OTHER, &sp);
}

static int lock_fd, unlock_fd, tfd, ep;

static void b_setup(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLWAKEUP };

	lock_fd = open("/sys/power/wake_lock", O_WRONLY);
	unlock_fd = open("/sys/power/wake_unlock", O_WRONLY);
	tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	ep = epoll_create1(0);
	if (lock_fd < 0 || unlock_fd < 0 || tfd < 0 || ep < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev) ||
	    write(lock_fd, "dutyB", 5) != 5) {
		perror("duty B: setup");
		exit(1);
	}
}

/* Until the deadline in epoll_wait on tfd; B drops its wake lock meanwhile */
static void alarm_epoll_wait(int64_t deadline, bool wake_lock)
{
	struct itimerspec its = {
		.it_value = { deadline / 1000000000LL, deadline % 1000000000LL },
	};
	struct epoll_event ev;
	uint64_t ticks;

	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
	if (wake_lock && write(unlock_fd, "dutyB", 5) != 5)
		perror("wake_unlock");
	while (epoll_wait(ep, &ev, 1, -1) != 1)
		;
	/* EPOLLWAKEUP holds until the next epoll_wait: take ours first. */
	if (wake_lock && write(lock_fd, "dutyB", 5) != 5)
		perror("wake_lock");
	if (read(tfd, &ticks, sizeof(ticks)) != sizeof(ticks))
		perror("timerfd read");
}

static void b_wait(int64_t deadline)
{
	alarm_epoll_wait(deadline, true);
}

static void b_done(void)
{
	if (write(unlock_fd, "dutyB", 5) != 5)
		perror("wake_unlock");
	close(ep);
	close(tfd);
	close(lock_fd);
	close(unlock_fd);
}

static void e_setup(void)
{
	struct epoll_event ev = { .events = EPOLLIN };

	a_setup();
	tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	ep = epoll_create1(0);
	if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev)) {
		perror("duty E: setup");
		exit(1);
	}
}

static void e_wait(int64_t deadline)
{
	alarm_epoll_wait(deadline, false);
}

static void e_done(void)
{
	close(ep);
	close(tfd);
	a_done();
}

static const struct way ways[] = {
	{ "A", a_setup, a_wait, a_done },
	{ "B", b_setup, b_wait, b_done },
	{ "E", e_setup, e_wait, e_done },
};

/*
 * Boot-clock timestamps of each "suspend_enter[state] begin", the count of
 * our sys_enters, and a SUSP line per suspended span for the plot.
 */
static void trace_scan(int64_t *susp, int *nsusp, int max, long *syscalls,
		       int64_t from, int64_t to, const char *way, int64_t base)
{
	int64_t asleep = 0;

	FILE *f = fopen(TR "trace", "r");
	char line[512], key[32];

	*nsusp = 0;
	*syscalls = 0;
	snprintf(key, sizeof(key), "-%d ", getpid());
	while (f && fgets(line, sizeof(line), f)) {
		char *c = strstr(line, ": ");
		char *t = c;
		int64_t ts;

		if (!c)
			continue;
		while (t > line && t[-1] != ' ')
			t--;
		ts = (int64_t)(strtod(t, NULL) * 1e9);
		if (ts < from || ts > to)
			continue;
		if (strstr(line, "suspend_enter[") && strstr(line, "] begin") &&
		    *nsusp < max)
			susp[(*nsusp)++] = ts;
		else if (strstr(line, "machine_suspend[") &&
			 strstr(line, "] begin") && !asleep)
			asleep = ts;
		else if (strstr(line, "dpm_resume_noirq") &&
			 strstr(line, "begin") && asleep) {
			/* S3's machine_suspend end predates the clock catching
			 * up; dpm_resume_noirq does not. */
			printf("SUSP %s %.3f %.3f\n", way, (asleep - base) / 1e9,
			       (ts - base) / 1e9);
			asleep = 0;
		}
		else if (strstr(line, "sys_enter") && strstr(line, key))
			(*syscalls)++;
	}
	if (f)
		fclose(f);
}

static void run(const struct way *w)
{
	int64_t b0, m0, b1, m1, susp[4 * CYCLES], wlat = 0, wmax = 0;
	int64_t slat = 0;
	int nsusp, nslat = 0, in_work = 0, i, j;
	char filter[64];
	long sc;

	put(TR "tracing_on", "0");
	put(TR "trace", "");
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	put(TR "events/raw_syscalls/sys_enter/filter", filter);
	put(TR "events/raw_syscalls/sys_enter/enable", "1");
	put(TR "events/power/suspend_resume/enable", "1");
	put(TR "tracing_on", "1");

	w->setup();
	put("/sys/power/autosleep", "mem");
	b0 = ns(CLOCK_BOOTTIME);
	m0 = ns(CLOCK_MONOTONIC);
	for (i = 0; i < CYCLES; i++) {
		struct cycle *c = &cy[i];

		c->work0_b = ns(CLOCK_BOOTTIME);
		c->work0_m = ns(CLOCK_MONOTONIC);
		busy(WORK_MS);
		c->work1_b = ns(CLOCK_BOOTTIME);
		c->work1_m = ns(CLOCK_MONOTONIC);
		c->wait_b = c->work1_b;
		c->deadline_b = c->wait_b + SLEEP_S * 1000000000LL;
		w->wait(c->deadline_b);
		c->woke_b = ns(CLOCK_BOOTTIME);
	}
	b1 = ns(CLOCK_BOOTTIME);
	m1 = ns(CLOCK_MONOTONIC);
	/* Still holding the system: autosleep off first. */
	put("/sys/power/autosleep", "off");
	w->done();
	put(TR "tracing_on", "0");
	put(TR "events/raw_syscalls/sys_enter/enable", "0");
	put(TR "events/power/suspend_resume/enable", "0");

	trace_scan(susp, &nsusp, 4 * CYCLES, &sc, cy[0].wait_b,
		   cy[CYCLES - 1].woke_b, w->name, b0);
	for (i = 0; i < CYCLES; i++) {
		struct cycle *c = &cy[i];
		int64_t l = c->woke_b - c->deadline_b;

		wlat += l;
		wmax = l > wmax ? l : wmax;
		if ((c->work1_b - c->work0_b) - (c->work1_m - c->work0_m) >
		    20000000LL)
			in_work++;
		for (j = 0; j < nsusp; j++)
			if (susp[j] >= c->wait_b && susp[j] < c->woke_b) {
				slat += susp[j] - c->wait_b;
				nslat++;
				break;
			}
		printf("SPAN %s work %.3f %.3f wait %.3f %.3f\n", w->name,
		       (c->work0_b - b0) / 1e9, (c->work1_b - b0) / 1e9,
		       (c->wait_b - b0) / 1e9, (c->woke_b - b0) / 1e9);
	}
	printf("DUTY %s cycles %d suspended_fraction %.4f ideal %.4f "
	       "wake_latency_ms %.1f wake_latency_max_ms %.1f "
	       "suspend_latency_ms %.1f suspends %d syscalls_per_cycle %.2f "
	       "work_suspends %d\n", w->name, CYCLES,
	       (double)((b1 - b0) - (m1 - m0)) / (b1 - b0),
	       (double)SLEEP_S * 1000 / (SLEEP_S * 1000 + WORK_MS),
	       wlat / 1e6 / CYCLES, wmax / 1e6,
	       nslat ? slat / 1e6 / nslat : -1.0, nslat,
	       (double)sc / CYCLES, in_work);
	fflush(stdout);
}

int main(void)
{
	put(TR "trace_clock", "boot");
	put(TR "buffer_size_kb", "2048");
	for (size_t i = 0; i < sizeof(ways) / sizeof(*ways); i++)
		run(&ways[i]);
	return 0;
}
