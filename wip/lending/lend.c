// SPDX-License-Identifier: GPL-2.0
/*
 * Lending (work in progress, never run: see README.md here). A marked task
 * hands a job to an unmarked worker and sleeps on an alarm while another
 * process requests suspend in a loop. The worker borrows the boost: the
 * system never suspends while the job runs (BOOTTIME - MONOTONIC stays 0
 * across it), and suspends soon after it ends, as the worker goes idle.
 * Handoffs: a condition variable between threads, a pipe to a child, a
 * UNIX socket to a child, an eventfd, a fork. Then a chain A -> B -> C,
 * an idle pool in 5 s and 15 s timed waits, opt-out, another user's task,
 * and a timer's wakeup, which lends nothing. Witnesses besides the clocks:
 * the stayawake_lend and stayawake_return trace events.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TR "/sys/kernel/tracing/"
#define SLEEP_S 4		/* the lender's alarm */
#define JOB_STEPS 15		/* of 80 ms work and a 20 ms sleep */

/* What a worker measured over its job */
struct job_report {
	int64_t suspended_ns;	/* BOOTTIME - MONOTONIC over the job */
	int64_t end_boot;	/* when it ended */
};

static void tracing(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TR "%s", file);
	write_str(path, val);
}

static void spin_ms(int ms)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
}

/* CPU work mixed with short sleeps, which keep a loan */
static void job(struct job_report *r)
{
	struct timespec nap = { 0, 20 * 1000000L };
	struct clock_pair a, b;

	clock_pair_read(&a);
	for (int i = 0; i < JOB_STEPS; i++) {
		spin_ms(80);
		nanosleep(&nap, NULL);
	}
	clock_pair_read(&b);
	r->suspended_ns = clock_pair_suspended_ns(&a, &b);
	r->end_boot = b.boot;
}

static int alarm_sleep_until(int64_t deadline)
{
	struct timespec ts = { deadline / SEC_NS, deadline % SEC_NS };
	int err;

	do
		err = clock_nanosleep(CLOCK_BOOTTIME_ALARM, TIMER_ABSTIME,
				      &ts, NULL);
	while (err == EINTR);
	return err;
}

enum handoff { H_COND, H_PIPE, H_SOCKET, H_EVENTFD, H_FORK, H_COUNT };
static const char *const handoff_name[H_COUNT] = {
	"condition variable", "pipe", "unix socket", "eventfd", "fork",
};

/* A worker thread woken through a condition variable */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int jobs_given, jobs_done;
static struct job_report thread_report;

static void *cond_worker(void *unused __attribute__((unused)))
{
	pthread_mutex_lock(&mu);
	for (;;) {
		while (jobs_given == jobs_done)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		job(&thread_report);
		pthread_mutex_lock(&mu);
		jobs_done++;
	}
	return NULL;
}

/* A worker process: reads a job from @in (one byte, or eventfd's eight),
 * reports on @out, waits again */
static pid_t process_worker(int in, int out, size_t len)
{
	pid_t pid = fork();
	char buf[8];

	if (pid)
		return pid;
	for (;;) {
		struct job_report r;

		if (read(in, buf, len) != (ssize_t)len)
			_exit(1);
		job(&r);
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
}

/* Hand one job over @h, sleep on the alarm, collect the worker's report */
static int handoff(enum handoff h, struct job_report *r, int64_t *wake)
{
	int rep[2], in[2] = { -1, -1 }, efd = -1, err = 0;
	uint64_t one = 1;
	pthread_t t;
	pid_t pid = 0;

	if (pipe(rep))
		return -errno;
	switch (h) {
	case H_COND:
		if (pthread_create(&t, NULL, cond_worker, NULL))
			return -EAGAIN;
		usleep(100000);		/* let it wait first */
		pthread_mutex_lock(&mu);
		jobs_given++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		break;
	case H_PIPE:
	case H_SOCKET:
		if (h == H_PIPE ? pipe(in) : socketpair(AF_UNIX, SOCK_STREAM,
							0, in))
			return -errno;
		pid = process_worker(in[0], rep[1], 1);
		wait_blocked_in(pid, SYS_read, 2);
		err = write(in[1], "j", 1) == 1 ? 0 : -errno;
		break;
	case H_EVENTFD:
		efd = eventfd(0, 0);
		if (efd < 0)
			return -errno;
		pid = process_worker(efd, rep[1], 8);
		wait_blocked_in(pid, SYS_read, 2);
		err = write(efd, &one, 8) == 8 ? 0 : -errno;
		break;
	case H_FORK:
		pid = fork();
		if (!pid) {
			job(r);
			_exit(write(rep[1], r, sizeof(*r)) != sizeof(*r));
		}
		break;
	default:
		return -EINVAL;
	}
	*wake = clock_ns(CLOCK_BOOTTIME) + SLEEP_S * SEC_NS;
	if (!err)
		err = -alarm_sleep_until(*wake);
	if (h == H_COND) {
		pthread_mutex_lock(&mu);
		while (jobs_done != jobs_given) {
			pthread_mutex_unlock(&mu);
			usleep(10000);
			pthread_mutex_lock(&mu);
		}
		pthread_mutex_unlock(&mu);
		*r = thread_report;
	} else if (!err && read(rep[0], r, sizeof(*r)) != sizeof(*r)) {
		err = -EPROTO;
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	close(rep[0]);
	close(rep[1]);
	if (in[0] >= 0) {
		close(in[0]);
		close(in[1]);
	}
	if (efd >= 0)
		close(efd);
	return err;
}

static void check_handoff(enum handoff h)
{
	struct suspender sus;
	struct clock_pair a, b;
	struct job_report r = { 0 };
	int64_t wake = 0, left, slept;
	int err;

	trace_clear();
	suspender_start(&sus);
	clock_pair_read(&a);
	err = handoff(h, &r, &wake);
	clock_pair_read(&b);
	suspender_stop(&sus);
	tap_check(!err && r.suspended_ns == 0,
		  tap_case(handoff_name[h], "no suspend while the job runs"),
		  "err %d, suspended %lld ns in the job, %d lend events", err,
		  (long long)r.suspended_ns, trace_count("stayawake_lend:"));
	/* After the job, the system sleeps within a second, to the alarm */
	left = wake - r.end_boot;
	slept = clock_pair_suspended_ns(&a, &b);
	tap_check(!err && slept >= left - SEC_NS - rtc_early_ns(),
		  tap_case(handoff_name[h], "suspends within 1 s of the end"),
		  "%lld ms left after the job, %lld ms suspended, %d returns",
		  (long long)(left / 1000000), (long long)(slept / 1000000),
		  trace_count("stayawake_return:"));
}

/* A wakeup that comes from a timer, not from a task, lends nothing */
static void check_timer_lends_nothing(void)
{
	struct timespec ts = { 0, 50 * 1000000L };

	trace_clear();
	nanosleep(&ts, NULL);
	tap_check(trace_count("stayawake_lend:") == 0,
		  "a timer's wakeup lends nothing", "%d lend events",
		  trace_count("stayawake_lend:"));
}

int main(void)
{
	tap_init("lend");
	tracing("events/stayawake/enable", "1");
	tracing("tracing_on", "1");
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	wait_sources_idle();
	for (int h = 0; h < H_COUNT; h++)
		check_handoff(h);
	check_timer_lends_nothing();
	/* Still to write: chain A -> B -> C, idle pool (5 s and 15 s timed
	 * waits give back by the horizon), NOLEND, another user's task. */
	stayawake_mark(0, false);
	tracing("tracing_on", "0");
	tracing("events/stayawake/enable", "0");
	return tap_done();
}
