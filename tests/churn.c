// SPDX-License-Identifier: GPL-2.0
/*
 * Churn: for CHURN_S seconds, threads of several processes race to mark and
 * unmark themselves and each other through both syscalls, fork (and exec),
 * exit, send each other signals, sleep on alarm clocks and alarm timerfds
 * (read, or in a random call of the poll family, with a pipe, nested),
 * while a suspender keeps freezing and thawing them. Then every survivor is
 * parked in a plain wait with a mark we choose, and the kernel's count of
 * boosted tasks and each task's StayAwake: line must match it; once they
 * exit, nothing is held and the system suspends.
 *
 * Every second ends in a lull of alarm sleeps only: with lending, busy
 * borrowers could keep a slow (debug) kernel boosted for the whole churn
 * and no suspend attempt would get as far as the freezer.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define CHURN_S 30
#define PROCS 4
#define THREADS 2			/* per process */
#define NT (PROCS * THREADS)
#define LULL_US 300000			/* of every second */

struct shared {
	volatile int stop;
	volatile int lull;		/* alarm sleeps only */
	volatile int tid[NT];		/* every churning thread */
	volatile int parked;		/* threads done churning */
	volatile unsigned long ops;
};

static struct shared *sh;
static int park_pipe[2];

static void on_usr1(int sig)
{
}

/*
 * sched_setattr(): KEEP_ALL | STAYAWAKE marks and keeps the rest; KEEP_ALL
 * alone would keep the mark too, so clearing restates the task's own
 * attributes without the flag.
 */
static int mark_attr(pid_t pid, bool on)
{
	struct sched_attr a = {
		.size = sizeof(a),
		.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_STAYAWAKE,
	};

	if (!on) {
		if (sys_sched_getattr(pid, &a, sizeof(a), 0))
			return -1;
		a.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
	}
	return sys_sched_setattr(pid, &a, 0);
}

static void mark_any(pid_t pid, bool on, unsigned int r)
{
	if (r & 1)
		stayawake_mark(pid, on);
	else
		mark_attr(pid, on);
}

/* An event loop's wait: a random call of the poll family on an alarm
 * timerfd with a pipe, maybe nested, for @ts */
static void short_loop_wait(unsigned int r, const struct timespec *ts)
{
	struct loop_set ls;

	if (loop_set_open(&ls, CLOCK_BOOTTIME_ALARM, r & 1, r & 2))
		return;
	if (!loop_set_arm(&ls, ts->tv_nsec))
		poll_call_wait((r >> 2) % PC_CALLS, ls.fd, ls.n, ls.ep, -1);
	loop_set_close(&ls);
}

static void short_alarm_sleep(unsigned int r)
{
	struct timespec ts = { .tv_nsec = (10 + r % 40) * 1000000L };
	struct itimerspec its = { .it_value = ts };
	uint64_t ticks;
	int fd;

	if (r & 1) {
		clock_nanosleep(r & 2 ? CLOCK_BOOTTIME_ALARM :
			       CLOCK_REALTIME_ALARM, 0, &ts, NULL);
		return;
	}
	if (r & 2) {
		short_loop_wait(r >> 6, &ts);
		return;
	}
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (fd < 0)
		return;
	timerfd_settime(fd, 0, &its, NULL);
	if (read(fd, &ticks, sizeof(ticks)) < 0 && errno != EINTR)
		tap_diag("timerfd read: %s", strerror(errno));
	close(fd);
}

static void forked_child(unsigned int r)
{
	pid_t pid = fork();

	if (pid)
		return;
	if (r & 1)
		stayawake_mark(0, true);
	if (r & 2)
		execl("/bin/true", "true", NULL);
	if (r & 4)
		short_alarm_sleep(r >> 3);
	_exit(0);
}

static void *churn(void *arg)
{
	int me = (int)(long)arg;
	unsigned int seed = me * 7919 + getpid();
	char c;

	sh->tid[me] = syscall(SYS_gettid);
	while (!sh->stop) {
		unsigned int r = rand_r(&seed);
		pid_t other = sh->tid[r % NT];
		unsigned int op = r % 8;

		if (sh->lull)
			op = 5;
		switch (op) {
		case 0:
			mark_any(0, true, r >> 8);
			break;
		case 1:
			mark_any(0, false, r >> 8);
			break;
		case 2:
			if (other)
				mark_any(other, r & 0x100, r >> 9);
			break;
		case 3:
			forked_child(r >> 8);
			break;
		case 4:
			if (other)
				syscall(SYS_tkill, other, SIGUSR1);
			break;
		case 5:
		case 6:
			short_alarm_sleep(r >> 8);
			break;
		default:
			for (volatile int i = 0; i < 100000; i++)
				;
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		__sync_fetch_and_add(&sh->ops, 1);
	}
	/* No marked child may outlive the churn. */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	/* Park in a wait that never deboosts, until the pipe closes. */
	__sync_fetch_and_add(&sh->parked, 1);
	while (read(park_pipe[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void worker(int p)
{
	pthread_t t[THREADS];
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */

	close(park_pipe[1]);
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 1; i < THREADS; i++)
		pthread_create(&t[i], NULL, churn, (void *)(long)(p * THREADS + i));
	churn((void *)(long)(p * THREADS));
	for (int i = 1; i < THREADS; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

/*
 * Suspend attempts freeze and thaw everybody. One may succeed when no task
 * happens to be boosted: the RTC alarm armed first wakes it.
 */
static pid_t suspender(void)
{
	pid_t pid = fork();

	if (!pid) {
		for (;;) {
			rtc_arm_alarm(2);
			write_str("/sys/power/state", "mem");
		}
	}
	return pid;
}

int main(void)
{
	pid_t procs[PROCS], sus;
	int want = 0, agree = 0, boosted, lines, i;
	char buf[16];
	struct stayawake_entry e;
	struct alarm_suspend as;
	unsigned int seed = 1;
	bool wanted[NT];
	long s0 = suspend_success(), suspends;
	int freezes;

	tap_init("churn");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || pipe(park_pipe))
		tap_bail("setup: %s", strerror(errno));
	/*
	 * Witness of the freezer: power:suspend_resume freeze_processes, and
	 * only that: the refused attempts' other events would overwrite the
	 * ring buffer in 30 s and take the few freezes of a slow run with them.
	 */
	trace_clear();
	write_str("/sys/kernel/tracing/events/power/suspend_resume/filter",
		  "action == \"freeze_processes\"");
	write_str("/sys/kernel/tracing/events/power/suspend_resume/enable", "1");
	write_str("/sys/kernel/tracing/tracing_on", "1");
	sus = suspender();
	for (i = 0; i < PROCS; i++) {
		procs[i] = fork();
		if (!procs[i])
			worker(i);
	}
	for (i = 0; i < CHURN_S; i++) {
		usleep(1000000 - LULL_US);
		sh->lull = 1;
		usleep(LULL_US);
		sh->lull = 0;
	}
	sh->stop = 1;
	kill(sus, SIGKILL);
	waitpid(sus, NULL, 0);
	write_str("/sys/kernel/tracing/events/power/suspend_resume/enable", "0");
	freezes = trace_count("freeze_processes[0] begin");
	write_str("/sys/kernel/tracing/events/power/suspend_resume/filter", "0");
	suspends = suspend_success() - s0;
	for (i = 0; i < 1000 && sh->parked < NT; i++)
		usleep(10000);
	tap_check(sh->parked == NT, "every churning thread came to rest",
		  "%d/%d parked after %lu operations in %d s", sh->parked, NT,
		  sh->ops, CHURN_S);
	tap_check(freezes > 0, "suspend attempts froze the churn",
		  "freezer ran %d times, %ld suspends went through", freezes,
		  suspends);

	/* A known final mark for each survivor, then ask the kernel: the
	 * survivors are parked (idle: they borrow nothing); this task gives
	 * back what it borrowed from them (lending) */
	give_back_loan();
	for (i = 0; i < NT; i++) {
		wanted[i] = rand_r(&seed) & 1;
		if (mark_attr(sh->tid[i], wanted[i]))
			tap_diag("tid %d: %s", sh->tid[i], strerror(errno));
		want += wanted[i];
	}
	for (i = 0; i < NT; i++) {
		bool listed = stayawake_debugfs(sh->tid[i], &e, &boosted,
						&lines);

		proc_stayawake(sh->tid[i], buf, sizeof(buf));
		agree += listed == wanted[i] &&
			 !strcmp(buf, wanted[i] ? "boosted" : "off") &&
			 (!listed || !strcmp(e.state, "boosted"));
	}
	stayawake_debugfs(0, &e, &boosted, &lines);
	tap_check(boosted == want && lines == want,
		  "the kernel counts the boosted tasks we set",
		  "want %d, debugfs header %d, lines %d", want, boosted, lines);
	tap_check(agree == NT, "each task's /proc and debugfs state agree",
		  "%d/%d", agree, NT);

	close(park_pipe[1]);
	for (i = 0; i < PROCS; i++)
		waitpid(procs[i], NULL, 0);
	stayawake_debugfs(0, &e, &boosted, &lines);
	tap_check(boosted == 0 && lines == 0 && !stayawake_source_active(),
		  "all exited: nothing boosted, stayawake idle",
		  "boosted %d, %s", boosted, stayawake_source_str());

	/* The suspender's last RTC alarm may still fire and be handled. */
	wait_sources_idle();
	alarm_suspend(3, &as);
	tap_check(as.ok, "and the system suspends",
		  "write: %s, success %ld->%ld, active sources: %s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, active_sources());
	return tap_done();
}
