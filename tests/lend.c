// SPDX-License-Identifier: GPL-2.0
/*
 * Lending: a marked task that hands work to an unmarked one lends it its
 * boost until that task is idle again. The marked task (this one) hands a
 * job over and sleeps on an alarm while another process requests suspend
 * in a loop. The worker borrows: the system never suspends while the job
 * runs (BOOTTIME - MONOTONIC stays 0 across it), and suspends within a
 * second after it ends, as the worker goes idle. Witnesses besides the
 * clocks: /proc/PID/status ("borrowed from PID N"), the debugfs loan
 * counts and the stayawake_lend and stayawake_return trace events.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TR "/sys/kernel/tracing/"
/*
 * The loans are counted in a trace instance of their own that records
 * nothing else: the main buffer also takes every event of the
 * suspender's refused attempts (thousands a second), and once lost a
 * loan's event there between two reads of one case.
 */
#define LOANS "instances/stayawake_lend/"
#define ALARM_S 6		/* the lender's alarm, after a handoff */
#define JOB_STEPS 15		/* of 80 ms work and a 20 ms sleep */
#define POOL 2			/* idle pool: workers in 5 s and 15 s waits */
#define OTHER_UID 1000
/* Suspends last seconds; two reads of the clock pair differ by far less */
#define NO_SUSPEND_NS 1000000LL

/* What a worker measured over its job */
struct job_report {
	int64_t suspended_ns;	/* BOOTTIME - MONOTONIC over the job */
	int64_t end_boot;	/* when it ended */
	int lender;		/* whom it borrowed from, halfway through */
};

static void tracing(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TR "%s", file);
	write_str(path, val);
}

/* Lines of the loans' trace buffer that hold all of @a, @b and @c */
static int trace_count_all(const char *a, const char *b, const char *c)
{
	FILE *f = fopen(TR LOANS "trace", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, a) && strstr(line, b) && strstr(line, c);
	if (f)
		fclose(f);
	return n;
}

/* Empty both buffers: the main one (for show_trace()) and the loans' */
static void traces_clear(void)
{
	int fd = open(TR LOANS "trace", O_WRONLY | O_TRUNC);

	if (fd >= 0)
		close(fd);
	trace_clear();
}

/* The loans' instance: stayawake_lend and stayawake_return only */
static void loans_trace(bool on)
{
	const char *v = on ? "1" : "0";

	if (on && mkdir(TR LOANS, 0755) && errno != EEXIST)
		tap_bail("cannot make the trace instance %s: %s", LOANS,
			 strerror(errno));
	tracing(LOANS "events/stayawake/stayawake_lend/enable", v);
	tracing(LOANS "events/stayawake/stayawake_return/enable", v);
	tracing(LOANS "tracing_on", v);
	if (!on)
		rmdir(TR LOANS);
}

/* Whom @tid borrows from ("borrowed from PID N" in its status), 0 if
 * nobody, -1 if unreadable */
static int proc_lender(int tid)
{
	char path[64], line[256];
	int lender = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "StayAwake:", 10) &&
		    sscanf(line, "StayAwake: borrowed from PID %d", &lender) != 1)
			lender = 0;
	if (f)
		fclose(f);
	return lender;
}

static int gettid_(void)
{
	return (int)syscall(SYS_gettid);
}

static void spin_ms(int ms)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
}

/* CPU work mixed with 20 ms sleeps, which keep a loan */
static void job(struct job_report *r, int steps)
{
	struct timespec nap = { 0, 20 * 1000000L };
	struct clock_pair a, b;

	clock_pair_read(&a);
	for (int i = 0; i < steps; i++) {
		spin_ms(80);
		if (i == steps / 2)
			r->lender = proc_lender(gettid_());
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

/* mark (lending unless @nolend) or unmark the calling thread */
static int mark(bool on, bool nolend)
{
	struct sched_attr a = { .size = sizeof(a) };

	if (on)
		a.sched_flags = SCHED_FLAG_STAYAWAKE |
				(nolend ? SCHED_FLAG_STAYAWAKE_NOLEND : 0);
	return sys_sched_setattr(0, &a, 0);
}

/* The debugfs loan counts: "# loans: N, given back: M" */
static bool loan_counts(long *loans, long *returns)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/sys/kernel/debug/sched/stayawake", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "# loans: %ld, given back: %ld", loans,
			       returns) == 2;
	fclose(f);
	return found;
}

/* Trace lines of @what ("stayawake_lend", "stayawake_return") for task
 * @pid with @reason */
static int loan_events(const char *what, int pid, const char *reason)
{
	char pat[96];

	/* "comm=%s pid=%d lender=%d reason=%s" */
	snprintf(pat, sizeof(pat), " pid=%d lender=", pid);
	return trace_count_all(what, pat, reason);
}

/*
 * A suspender for one case: started anew each time, so that its periodic
 * safety alarm (every 20 s) never wakes the system inside a case's
 * window. This task is marked before it starts (or the suspender could
 * suspend with no alarm to wake the system) without lending (or the
 * suspender would borrow and keep the system awake for good).
 */
static void suspender_on(struct suspender *s)
{
	if (stayawake_mark(0, true))	/* without lending, where it lends */
		tap_bail("cannot mark: %s", strerror(errno));
	suspender_start(s);
	if (mark(true, false))
		tap_bail("cannot mark: %s", strerror(errno));
}

/* ---- the five handoffs ---- */

enum handoff { H_COND, H_PIPE, H_SOCKET, H_EVENTFD, H_FORK, H_COUNT };
static const char *const handoff_name[H_COUNT] = {
	"condition variable", "pipe", "unix socket", "eventfd", "fork",
};

/* A worker thread woken through a condition variable */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int jobs_given, jobs_done, cond_tid;
static struct job_report thread_report;

static void *cond_worker(void *unused __attribute__((unused)))
{
	pthread_mutex_lock(&mu);
	cond_tid = gettid_();
	for (;;) {
		while (jobs_given == jobs_done)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		job(&thread_report, JOB_STEPS);
		pthread_mutex_lock(&mu);
		jobs_done++;
	}
	return NULL;
}

/* A worker process: reads a job from @in (@len bytes), reports on @out,
 * waits for the next */
static pid_t process_worker(int in, int out, size_t len)
{
	pid_t pid = fork();
	char buf[8];

	if (pid)
		return pid;
	for (;;) {
		struct job_report r = { 0 };

		if (read(in, buf, len) != (ssize_t)len)
			_exit(1);
		job(&r, JOB_STEPS);
		if (write(out, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
}

/* A worker's exit, or its absence (0), as a case's diagnostic */
static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Hand one job over @h, sleep on the alarm, collect the worker's report */
static int handoff(enum handoff h, struct job_report *r, int64_t *wake,
		   int *worker, int *loans)
{
	int rep[2], in[2] = { -1, -1 }, efd = -1, err = 0;
	static pthread_t t;
	uint64_t one = 1;
	pid_t pid = 0;

	if (pipe(rep))
		return -errno;
	switch (h) {
	case H_COND:
		if (!cond_tid && pthread_create(&t, NULL, cond_worker, NULL)) {
			err = -EAGAIN;
			break;
		}
		while (!__atomic_load_n(&cond_tid, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (!wait_blocked_in(cond_tid, SYS_futex, 5)) {
			err = -ETIMEDOUT;
			break;
		}
		*worker = cond_tid;
		pthread_mutex_lock(&mu);
		jobs_given++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&mu);
		break;
	case H_PIPE:
	case H_SOCKET:
		if (h == H_PIPE ? pipe(in) : socketpair(AF_UNIX, SOCK_STREAM,
							0, in)) {
			err = -errno;
			break;
		}
		pid = process_worker(in[0], rep[1], 1);
		*worker = pid;
		if (!wait_blocked_in(pid, SYS_read, 5))
			err = -ETIMEDOUT;
		else if (write(in[1], "j", 1) != 1)
			err = -errno;
		break;
	case H_EVENTFD:
		efd = eventfd(0, 0);
		if (efd < 0) {
			err = -errno;
			break;
		}
		pid = process_worker(efd, rep[1], 8);
		*worker = pid;
		if (!wait_blocked_in(pid, SYS_read, 5))
			err = -ETIMEDOUT;
		else if (write(efd, &one, 8) != 8)
			err = -errno;
		break;
	case H_FORK:
		pid = fork();
		if (!pid) {
			job(r, JOB_STEPS);
			_exit(write(rep[1], r, sizeof(*r)) != sizeof(*r));
		}
		*worker = pid;
		break;
	default:
		err = -EINVAL;
	}
	*wake = clock_ns(CLOCK_BOOTTIME) + ALARM_S * SEC_NS;
	if (!err)
		err = -alarm_sleep_until(*wake);
	if (!err && h == H_COND) {
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
	/* The workers wait for their next job: idle, nothing borrowed */
	if (!err && h != H_FORK && !wait_stayawake_state(*worker, "off"))
		err = -EBUSY;
	*loans = loan_events("stayawake_lend:", *worker,
			     h == H_FORK ? "reason=fork" : "reason=wakeup");
	reap(pid);
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

/* On a failure: the case's last loans, boosts and suspend steps, from
 * the trace */
#define SHOW_LINES 80
static void show_trace(void)
{
	static const char *const keep[] = {
		"stayawake_", "suspend_enter", "freeze_processes",
		"machine_suspend", "s2idle",
	};
	static char last[SHOW_LINES][512];
	FILE *f = fopen(TR "trace", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (strstr(line, keep[i])) {
				line[strcspn(line, "\n")] = 0;
				snprintf(last[n++ % SHOW_LINES], sizeof(last[0]),
					 "%s", line);
				break;
			}
	}
	if (f)
		fclose(f);
	for (int i = n > SHOW_LINES ? n - SHOW_LINES : 0; i < n; i++)
		tap_diag("trace: %s", last[i % SHOW_LINES]);
}

/* The job kept the system awake; it slept within 1 s of the job's end */
static void check_job(const char *name, int err, const struct job_report *r,
		      int lender, int64_t wake, const struct clock_pair *a,
		      const struct clock_pair *b)
{
	int64_t left = wake - r->end_boot;
	int64_t slept = clock_pair_suspended_ns(a, b);

	if (!tap_check(!err && r->suspended_ns < NO_SUSPEND_NS &&
		       r->lender == lender,
		       tap_case(name, "no suspend while the job runs"),
		       "err %d, suspended %lld ns in the job, borrowed from %d (want %d)",
		       err, (long long)r->suspended_ns, r->lender, lender))
		show_trace();
	tap_check(!err && left > SEC_NS && slept >= left - SEC_NS - rtc_early_ns(),
		  tap_case(name, "suspends within 1 s of the end"),
		  "%lld ms left after the job, %lld ms suspended",
		  (long long)(left / 1000000), (long long)(slept / 1000000));
}

static void check_handoff(enum handoff h)
{
	struct job_report r = { 0 };
	struct clock_pair a, b;
	int64_t wake = 0;
	int err, worker = 0, loans = 0;
	struct suspender sus;

	suspender_on(&sus);
	traces_clear();
	clock_pair_read(&a);
	err = handoff(h, &r, &wake, &worker, &loans);
	clock_pair_read(&b);
	suspender_stop(&sus);
	check_job(handoff_name[h], err, &r, getpid(), wake, &a, &b);
	/* A worker thread that wakes on the condition variable and then waits
	 * for the mutex gives the loan back (a futex wait is idle) and takes
	 * it again from the mutex's holder. A count from a buffer that lost
	 * events proves nothing; the main buffer's losses are for the reader */
	tap_check(!err && (h == H_COND ? loans >= 1 : loans == 1) &&
		  trace_lost(LOANS) == 0,
		  tap_case(handoff_name[h], "the job's loan, traced"),
		  "err %d, %d loans to %d for the job, %d events in all, "
		  "%ld lost (main buffer: %ld)", err, loans, worker,
		  loan_events("stayawake_lend:", worker, "reason="),
		  trace_lost(LOANS), trace_lost(""));
}

/* ---- a chain: A (this task) -> B -> C ---- */

static void check_chain(void)
{
	int ab[2], bc[2], rep[2], err = 0;
	struct job_report r = { 0 };
	struct suspender sus;
	struct clock_pair a, b;
	pid_t pb = 0, pc = 0;
	int64_t wake = 0;
	char c;

	if (pipe(ab) || pipe(bc) || pipe(rep))
		tap_bail("chain: pipes: %s", strerror(errno));
	pc = process_worker(bc[0], rep[1], 1);
	pb = fork();
	if (!pb) {
		/* B: passes each job on to C */
		while (read(ab[0], &c, 1) == 1)
			if (write(bc[1], &c, 1) != 1)
				_exit(1);
		_exit(1);
	}
	suspender_on(&sus);
	traces_clear();
	clock_pair_read(&a);
	if (!wait_blocked_in(pb, SYS_read, 5) ||
	    !wait_blocked_in(pc, SYS_read, 5))
		err = -ETIMEDOUT;
	else if (write(ab[1], "j", 1) != 1)
		err = -errno;
	wake = clock_ns(CLOCK_BOOTTIME) + ALARM_S * SEC_NS;
	if (!err)
		err = -alarm_sleep_until(wake);
	if (!err && read(rep[0], &r, sizeof(r)) != sizeof(r))
		err = -EPROTO;
	clock_pair_read(&b);
	suspender_stop(&sus);
	check_job("chain A -> B -> C", err, &r, pb, wake, &a, &b);
	tap_check(!err && wait_stayawake_state(pb, "off") &&
		  wait_stayawake_state(pc, "off") &&
		  loan_events("stayawake_return:", pb, "reason=idle") >= 1 &&
		  loan_events("stayawake_return:", pc, "reason=idle") >= 1,
		  "chain A -> B -> C: B and C give back when idle",
		  "err %d, B %d returns, C %d returns", err,
		  loan_events("stayawake_return:", pb, "reason=idle"),
		  loan_events("stayawake_return:", pc, "reason=idle"));
	reap(pb);
	reap(pc);
	close(ab[0]);
	close(ab[1]);
	close(bc[0]);
	close(bc[1]);
	close(rep[0]);
	close(rep[1]);
}

/* ---- an idle pool: workers waiting 5 s and 15 s for work ---- */

struct pool_worker {
	pthread_t t;
	int wait_s, tid, job;		/* job: given, not yet taken */
	struct job_report r;
	bool done, quit;
};

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;

static void *pool_main(void *arg)
{
	struct pool_worker *w = arg;

	pthread_mutex_lock(&pool_mu);
	w->tid = gettid_();
	while (!w->quit) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += w->wait_s;
		if (!w->job) {
			pthread_cond_timedwait(&pool_cv, &pool_mu, &until);
			continue;
		}
		w->job = 0;
		pthread_mutex_unlock(&pool_mu);
		job(&w->r, JOB_STEPS / 2);
		pthread_mutex_lock(&pool_mu);
		w->done = true;
	}
	pthread_mutex_unlock(&pool_mu);
	return NULL;
}

static void check_idle_pool(void)
{
	struct pool_worker w[POOL] = { { .wait_s = 5 }, { .wait_s = 15 } };
	struct job_report r = { 0 };
	struct suspender sus;
	struct clock_pair a, b;
	int64_t wake, end = 0;
	int err = 0, i, horizon = 0;

	for (i = 0; i < POOL; i++)
		if (pthread_create(&w[i].t, NULL, pool_main, &w[i]))
			tap_bail("pool: pthread_create failed");
	for (i = 0; i < POOL && !err; i++) {
		while (!__atomic_load_n(&w[i].tid, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (!wait_blocked_in(w[i].tid, SYS_futex, 5))
			err = -ETIMEDOUT;
	}
	suspender_on(&sus);
	traces_clear();
	clock_pair_read(&a);
	pthread_mutex_lock(&pool_mu);
	for (i = 0; i < POOL; i++)
		w[i].job = 1;
	pthread_cond_broadcast(&pool_cv);
	pthread_mutex_unlock(&pool_mu);
	wake = clock_ns(CLOCK_BOOTTIME) + ALARM_S * SEC_NS;
	if (!err)
		err = -alarm_sleep_until(wake);
	pthread_mutex_lock(&pool_mu);
	for (i = 0; i < POOL; i++) {
		if (!w[i].done && !err)
			err = -EPROTO;
		w[i].quit = true;
		if (w[i].r.end_boot > end)
			end = w[i].r.end_boot;
	}
	pthread_cond_broadcast(&pool_cv);
	pthread_mutex_unlock(&pool_mu);
	clock_pair_read(&b);
	suspender_stop(&sus);
	for (i = 0; i < POOL; i++) {
		pthread_join(w[i].t, NULL);
		horizon += loan_events("stayawake_return:", w[i].tid,
				       "reason=horizon");
	}
	/* As one job: the later end, any suspend, a lender neither this task
	 * nor a worker (the mutex's holder wakes the other: a borrower lends
	 * on) */
	r.end_boot = end;
	r.lender = getpid();
	for (i = 0; i < POOL; i++) {
		int l = w[i].r.lender;

		r.suspended_ns += w[i].r.suspended_ns;
		if (l != getpid() && l != w[0].tid && l != w[1].tid)
			r.lender = l;
	}
	check_job("idle pool", err, &r, getpid(), wake, &a, &b);
	tap_check(horizon >= POOL,
		  "idle pool: 5 s and 15 s waits give back beyond the horizon",
		  "%d horizon returns (of %d workers)", horizon, POOL);
}

/*
 * A jiffies sleep beyond 2^32 microseconds (a socket timeout of 71.6
 * minutes): converted to time in 32 bits it would wrap to under a jiffy,
 * inside the horizon, and the borrower would keep its loan while it sleeps.
 */
static void check_long_jiffies_sleep(void)
{
	static const char name[] =
		"a 71.6-minute socket timeout gives back beyond the horizon";
	struct timeval tv = { 4294, 967297 };	/* 2^32 us, rounded up */
	int sv[2], rep[2], err = 0, lent = 0, horizon = 0, lender = -1;
	pid_t pid;
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || pipe(rep))
		tap_bail("%s: %s", name, strerror(errno));
	if (setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		err = -errno;
	pid = err ? -1 : fork();
	if (!pid) {
		while (recvfrom(sv[1], &c, 1, 0, NULL, NULL) == 1)
			if (write(rep[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	if (pid > 0 && !wait_blocked_in(pid, SYS_recvfrom, 5))
		err = -ETIMEDOUT;
	traces_clear();
	/* This task is boosted: the wakeup lends, the next recv() sleeps */
	if (!err && (write(sv[0], "j", 1) != 1 || read(rep[0], &c, 1) != 1))
		err = -EPROTO;
	if (!err && !wait_blocked_in(pid, SYS_recvfrom, 5))
		err = -ETIMEDOUT;
	if (!err) {
		lent = loan_events("stayawake_lend:", pid, "reason=wakeup");
		horizon = loan_events("stayawake_return:", pid,
				      "reason=horizon");
		lender = proc_lender(pid);
	}
	tap_check(!err && lent >= 1 && horizon >= 1 && lender == 0, name,
		  "err %d, %d wakeup loans, %d horizon returns, "
		  "borrows from %d", err, lent, horizon, lender);
	close(sv[0]);
	reap(pid);
	close(sv[1]);
	close(rep[0]);
	close(rep[1]);
}

/* ---- wakeups that lend nothing ---- */

/* A child that sleeps in @how, then reports whom it borrowed from */
enum quiet { Q_TIMER, Q_KTHREAD, Q_NOLEND, Q_OTHER_USER, Q_COUNT };
static const char *const quiet_name[Q_COUNT] = {
	"a timer's wakeup lends nothing",
	"a kernel thread's wakeup lends nothing",
	"SCHED_FLAG_STAYAWAKE_NOLEND lends nothing",
	"a task of another user borrows nothing",
};

static int open_pty(int *slave)
{
	int m;
	char name[64];

	mkdir("/dev/pts", 0755);
	if (mount("devpts", "/dev/pts", "devpts", 0, "ptmxmode=666") &&
	    errno != EBUSY)
		return -1;
	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) || unlockpt(m) ||
	    ptsname_r(m, name, sizeof(name)))
		return -1;
	*slave = open(name, O_RDWR | O_NOCTTY);
	return *slave < 0 ? -1 : m;
}

static void check_quiet(enum quiet q)
{
	int in[2], rep[2], master = -1, slave = -1, lender = -1, err = 0;
	struct sched_attr got = { 0 };
	pid_t pid;
	char c;

	if (pipe(in) || pipe(rep))
		tap_bail("%s: pipes: %s", quiet_name[q], strerror(errno));
	if (q == Q_KTHREAD && (master = open_pty(&slave)) < 0)
		err = -errno;
	if (q == Q_NOLEND && mark(true, true))
		err = -errno;
	pid = err ? -1 : fork();
	if (!pid) {
		struct timespec ts = { 0, 300 * 1000000L };

		if (q == Q_OTHER_USER &&
		    (setresgid(OTHER_UID, OTHER_UID, OTHER_UID) ||
		     setresuid(OTHER_UID, OTHER_UID, OTHER_UID)))
			_exit(1);
		/* Beyond the horizon: whatever it borrowed at fork is back */
		if (q == Q_TIMER)
			nanosleep(&ts, NULL);
		else if (read(q == Q_KTHREAD ? slave : in[0], &c, 1) != 1)
			_exit(1);
		lender = proc_lender(getpid());
		_exit(write(rep[1], &lender, sizeof(lender)) != sizeof(lender));
	}
	if (pid > 0 && q != Q_TIMER &&
	    !wait_blocked_in(pid, SYS_read, 5))
		err = -ETIMEDOUT;
	/* The loan of the fork is back (idle); count from here */
	traces_clear();
	if (!err && q == Q_KTHREAD && write(master, "x\n", 2) != 2)
		err = -errno;
	if (!err && (q == Q_NOLEND || q == Q_OTHER_USER) &&
	    write(in[1], "j", 1) != 1)
		err = -errno;
	if (!err && read(rep[0], &lender, sizeof(lender)) != sizeof(lender))
		err = -EPROTO;
	if (q == Q_NOLEND) {
		got.size = sizeof(got);
		if (sys_sched_getattr(0, &got, sizeof(got), 0) && !err)
			err = -errno;
	}
	tap_check(!err && lender == 0 &&
		  trace_count_all("stayawake_lend:", "reason=wakeup", "") == 0 &&
		  (q != Q_NOLEND ||
		   (got.sched_flags & SCHED_FLAG_STAYAWAKE_NOLEND)),
		  quiet_name[q], "err %d, woken task borrowed from %d, "
		  "%d wakeup loans, flags %#llx", err, lender,
		  trace_count_all("stayawake_lend:", "reason=wakeup", ""),
		  (unsigned long long)got.sched_flags);
	if (q == Q_NOLEND)
		mark(true, false);
	reap(pid);
	close(in[0]);
	close(in[1]);
	close(rep[0]);
	close(rep[1]);
	if (master >= 0)
		close(master);
	if (slave >= 0)
		close(slave);
}

/* SCHED_FLAG_STAYAWAKE_NOLEND round-trips: sched_getattr() reports it,
 * its flags passed back without SCHED_FLAG_STAYAWAKE unmark, and
 * sched_setscheduler() (which cannot state it) clears it */
static void check_nolend_abi(void)
{
	struct sched_attr a = { .size = sizeof(a) }, b = a;
	struct sched_param sp = { 0 };
	unsigned long long got, after;
	char sa[32];
	int err = 0;

	if (mark(true, true) || sys_sched_getattr(0, &a, sizeof(a), 0))
		err = -errno;
	got = a.sched_flags;
	a.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
	if (!err && sys_sched_setattr(0, &a, 0))
		err = -errno;
	proc_stayawake(getpid(), sa, sizeof(sa));
	tap_check(!err && (got & SCHED_FLAG_STAYAWAKE_NOLEND) &&
		  !strcmp(sa, "off"),
		  "NOLEND: reported, and its flags without the mark unmark",
		  "err %d, flags %#llx, then StayAwake %s", err, got, sa);
	err = 0;
	if (mark(true, true) ||
	    sched_setscheduler(0, SCHED_OTHER | SCHED_STAYAWAKE, &sp) ||
	    sys_sched_getattr(0, &b, sizeof(b), 0))
		err = -errno;
	after = b.sched_flags;
	tap_check(!err && (after & SCHED_FLAG_STAYAWAKE) &&
		  !(after & SCHED_FLAG_STAYAWAKE_NOLEND),
		  "NOLEND: sched_setscheduler() marks without it",
		  "err %d, flags %#llx", err, after);
	mark(false, false);
}

int main(void)
{
	long loans0 = 0, returns0 = 0, loans = 0, returns = 0;
	bool counted;

	tap_init("lend");
	tracing("events/stayawake/enable", "1");
	/* suspend_enter, freeze_processes, machine_suspend: for show_trace() */
	tracing("events/power/suspend_resume/enable", "1");
	tracing("tracing_on", "1");
	loans_trace(true);
	/* A kernel without lending has none: every case still runs (and fails) */
	if (!loan_counts(&loans0, &returns0))
		tap_diag("no loan counts in /sys/kernel/debug/sched/stayawake");
	if (mark(true, false))
		tap_bail("cannot mark: %s", strerror(errno));
	wait_sources_idle();
	for (int h = 0; h < H_COUNT; h++)
		check_handoff(h);
	check_chain();
	check_idle_pool();
	check_long_jiffies_sleep();
	for (int q = 0; q < Q_COUNT; q++)
		check_quiet(q);
	/* No suspender runs here: unmarks and marks are safe */
	mark(false, false);
	check_nolend_abi();
	/* Every loan of this test is back, none counted twice */
	wait_sources_idle();
	/* Read before tap_check(): its arguments have no order */
	counted = loan_counts(&loans, &returns);
	tap_check(counted && loans - loans0 == returns - returns0 &&
		  loans > loans0 && !stayawake_source_active(),
		  "every loan given back, the stayawake source idle",
		  "%ld loans, %ld returns, source %s", loans - loans0,
		  returns - returns0, stayawake_source_str());
	loans_trace(false);
	tracing("tracing_on", "0");
	tracing("events/power/suspend_resume/enable", "0");
	tracing("events/stayawake/enable", "0");
	return tap_done();
}
