// SPDX-License-Identifier: GPL-2.0
/*
 * Which waits deboost a SCHED_STAYAWAKE task, and when the timerfd wait
 * boosts it again.
 *
 * A marked task that blocks in a wait no wakeup device ends (a timerfd read
 * on CLOCK_MONOTONIC or CLOCK_BOOTTIME, a futex wait) stays boosted: its
 * /proc StayAwake: says so, the "stayawake" source stays active, and it is
 * what refuses "mem". The same task reading a CLOCK_BOOTTIME_ALARM timerfd
 * is deboosted (the control: the setup reaches the wait that deboosts).
 *
 * Then the alarm timerfd read under a real suspend: a suspender writes "mem"
 * in a loop while the marked reader waits. The system suspends (BOOTTIME ran
 * ahead of MONOTONIC across the read, suspend_stats/success rose), and the
 * trace (boot clock) tells the order: deboost:timerfd, machine_suspend begin
 * and end, reboost:timerfd in the waker's context before the reader's last
 * sched_wakeup, then the marker the reader writes as soon as read() returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>

#include "lib.h"

#define TR "/sys/kernel/tracing/"
#define MARKER "sa-reader: read returned"

enum wait_kind { TFD_MONO, TFD_BOOT, FUTEX, TFD_ALARM };

static const struct {
	const char *name;
	int clock;
} waits[] = {
	[TFD_MONO]  = { "monotonic timerfd read", CLOCK_MONOTONIC },
	[TFD_BOOT]  = { "boottime timerfd read", CLOCK_BOOTTIME },
	[FUTEX]     = { "futex wait", -1 },
	[TFD_ALARM] = { "alarm timerfd read", CLOCK_BOOTTIME_ALARM },
};

static pid_t child_pid;

static void kill_child(void)
{
	if (child_pid > 0) {
		kill(child_pid, SIGKILL);
		waitpid(child_pid, NULL, 0);
	}
	child_pid = 0;
}

/* A marked child blocked in the wait; returns once it blocks there. */
static bool start_waiter(enum wait_kind k)
{
	int ready[2];
	char c;

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	child_pid = fork();
	if (!child_pid) {
		struct itimerspec its = { .it_value.tv_sec = 3600 };
		uint64_t ticks;
		int word = 0, fd = -1;

		if (stayawake_mark(0, true))
			_exit(2);
		if (k != FUTEX) {
			fd = timerfd_create(waits[k].clock, 0);
			if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
				_exit(3);
		}
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		if (k == FUTEX)
			syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, NULL);
		else
			(void)!read(fd, &ticks, sizeof(ticks));
		_exit(5);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		return false;
	}
	close(ready[0]);
	return wait_blocked_in(child_pid, k == FUTEX ? SYS_futex : SYS_read, 5);
}

static void stays_boosted(enum wait_kind k)
{
	char what[96], sa[16];
	bool blocked = start_waiter(k);
	bool active = stayawake_source_active();

	proc_stayawake(child_pid, sa, sizeof(sa));
	snprintf(what, sizeof(what), "%s: stays boosted", waits[k].name);
	tap_check(blocked && !strcmp(sa, "boosted") && active, what,
		  "blocked in it %s, StayAwake: %s, %s", blocked ? "yes" : "no",
		  sa, stayawake_source_str());
	snprintf(what, sizeof(what), "%s: mem refused", waits[k].name);
	check_suspend_refused(what);
	kill_child();
}

static void alarm_control(void)
{
	bool blocked = start_waiter(TFD_ALARM);
	bool active = stayawake_source_active();
	char sa[16];

	proc_stayawake(child_pid, sa, sizeof(sa));
	tap_check(blocked && !strcmp(sa, "deboosted") && !active,
		  "alarm timerfd read: deboosted (control)",
		  "blocked in it %s, StayAwake: %s, %s", blocked ? "yes" : "no",
		  sa, stayawake_source_str());
	kill_child();
}

/* ---- the alarm timerfd read under a suspend loop, traced ---- */

struct reader_result {
	int n;				/* read()'s return */
	int64_t suspended_ns;		/* BOOTTIME - MONOTONIC across it */
	char state[16];			/* StayAwake: right after it */
};

static void reader(int go, int res)
{
	struct itimerspec its = { .it_value.tv_sec = 5 };
	struct reader_result r = { 0 };
	struct clock_pair a, b;
	uint64_t ticks;
	int fd;
	char c;

	prctl(PR_SET_NAME, "sa-reader");
	if (stayawake_mark(0, true))
		_exit(2);
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (fd < 0 || read(go, &c, 1) != 1)
		_exit(3);
	if (timerfd_settime(fd, 0, &its, NULL))
		_exit(4);
	clock_pair_read(&a);
	r.n = read(fd, &ticks, sizeof(ticks));
	write_str(TR "trace_marker", MARKER);
	clock_pair_read(&b);
	r.suspended_ns = clock_pair_suspended_ns(&a, &b);
	proc_stayawake(getpid(), r.state, sizeof(r.state));
	if (write(res, &r, sizeof(r)) != sizeof(r))
		_exit(5);
	/*
	 * Stay alive, boosted, until killed: the suspender may have checked
	 * for our result just before we wrote it, and its next "mem" must
	 * still be refused, or the system would sleep with no alarm armed.
	 */
	(void)!read(go, &c, 1);
	_exit(0);
}

static void tracing(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TR "%s", file);
	write_str(path, val);
}

static void tracing_setup(pid_t pid)
{
	char filter[32];

	tracing("tracing_on", "0");
	trace_clear();
	tracing("trace_clock", "boot");
	tracing("buffer_size_kb", "1024");
	snprintf(filter, sizeof(filter), "pid == %d", pid);
	tracing("events/sched/sched_wakeup/filter", filter);
	tracing("events/sched/sched_wakeup/enable", "1");
	tracing("events/stayawake/enable", "1");
	tracing("events/power/suspend_resume/enable", "1");
	tracing("tracing_on", "1");
}

static void tracing_teardown(void)
{
	tracing("tracing_on", "0");
	tracing("events/sched/sched_wakeup/enable", "0");
	tracing("events/sched/sched_wakeup/filter", "0");
	tracing("events/stayawake/enable", "0");
	tracing("events/power/suspend_resume/enable", "0");
	tracing("trace_clock", "local");
}

/* The events of the story, by line of the merged trace (its order). */
struct story {
	int deboosts, reboosts;
	int deboost, reboost, marker;	/* line numbers, -1 if absent */
	int ms_begin, ms_end;		/* the first machine_suspend after it */
	int last_wakeup;		/* the reader's last sched_wakeup */
	double t_ms_begin, t_reboost;
	pid_t reboost_ctx;		/* who ran the reboost */
	char reboost_line[160];
};

/* The timestamp before ": event:" at @ev. */
static double line_ts(const char *line, const char *ev)
{
	const char *p = ev;

	while (p > line && p[-1] != ' ')
		p--;
	return atof(p);
}

/* The pid of the task the event ran in ("comm-pid [cpu]"). */
static pid_t line_ctx(const char *line)
{
	const char *p = strstr(line, " [");

	if (!p)
		return -1;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return atoi(p);
}

static void read_story(pid_t pid, struct story *s)
{
	FILE *f = fopen(TR "trace", "r");
	char line[512], who[48];
	int n = 0;

	memset(s, 0, sizeof(*s));
	s->deboost = s->reboost = s->marker = s->ms_begin = s->ms_end = -1;
	s->last_wakeup = -1;
	snprintf(who, sizeof(who), "pid=%d ", pid);
	while (f && fgets(line, sizeof(line), f)) {
		char *deb = strstr(line, ": stayawake_deboost:");
		char *reb = strstr(line, ": stayawake_reboost:");
		char *ms = strstr(line, ": suspend_resume: machine_suspend[");
		char *wake = strstr(line, ": sched_wakeup:");

		n++;
		if (line[0] == '#')
			continue;
		if (deb && strstr(deb, who) && strstr(deb, "reason=timerfd")) {
			/*
			 * A read the freezer interrupted (the reader reboosts
			 * itself on the way out) restarts after the thaw: the
			 * story is the last wait's.
			 */
			s->deboosts++;
			s->deboost = n;
			s->reboost = s->ms_begin = s->ms_end = -1;
		} else if (reb && strstr(reb, who) &&
			   strstr(reb, "reason=timerfd")) {
			s->reboosts++;
			if (s->reboost < 0) {
				s->reboost = n;
				s->reboost_ctx = line_ctx(line);
				s->t_reboost = line_ts(line, reb);
				snprintf(s->reboost_line, sizeof(s->reboost_line),
					 "%.*s", (int)strcspn(line, "\n"), line);
			}
		} else if (ms) {
			/* the first suspend after the deboost, and its end */
			if (strstr(ms, " begin") && s->deboost >= 0 &&
			    s->ms_begin < 0) {
				s->ms_begin = n;
				s->t_ms_begin = line_ts(line, ms);
			} else if (strstr(ms, " end") && s->ms_begin >= 0 &&
				   s->ms_end < 0) {
				s->ms_end = n;
			}
		} else if (wake && s->marker < 0) {
			s->last_wakeup = n;
		} else if (strstr(line, MARKER) && s->marker < 0) {
			s->marker = n;
		}
	}
	if (f)
		fclose(f);
}

static void suspend_order(void)
{
	int go[2], res[2];
	struct reader_result r = { .n = -1 };
	struct pollfd pfd;
	struct story s;
	long s0, s1;
	int64_t end;
	int tries = 0, busy = 0, got = 0;
	char sa[16] = "";
	pid_t pid;

	wait_sources_idle();
	if (pipe(go) || pipe(res))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid)
		reader(go[0], res[1]);
	child_pid = pid;
	close(go[0]);
	close(res[1]);
	tracing_setup(pid);
	s0 = suspend_success();
	if (write(go[1], "g", 1) != 1)
		tap_diag("cannot start the reader");

	/* The reader is in its wait once it is deboosted (up to 5 s). */
	end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	while (strcmp(proc_stayawake(pid, sa, sizeof(sa)), "deboosted") &&
	       clock_ns(CLOCK_MONOTONIC) < end)
		usleep(1000);

	/*
	 * Suspend until the reader is done, for at most 30 s. The RTC wakes
	 * a kernel that loses the reader's alarm after 40 s instead of never.
	 */
	rtc_arm_alarm(40);
	pfd.fd = res[0];
	pfd.events = POLLIN;
	end = clock_ns(CLOCK_MONOTONIC) + 30 * SEC_NS;
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		if (poll(&pfd, 1, 0) == 1)
			break;
		tries++;
		if (write_str("/sys/power/state", "mem") == -EBUSY) {
			busy++;
			usleep(20000);
		}
	}
	if (poll(&pfd, 1, 5000) == 1)
		got = read(res[0], &r, sizeof(r)) == sizeof(r);
	rtc_disarm_alarm();
	s1 = suspend_success();
	tracing("tracing_on", "0");
	kill_child();
	close(go[1]);
	close(res[0]);

	tap_check(got && r.n == 8 && s1 > s0 && r.suspended_ns > 2 * SEC_NS,
		  "alarm timerfd read: the system suspends",
		  "read %d, success %ld->%ld, BOOTTIME-MONOTONIC across the read "
		  "%.2f s, %d writes of mem (%d EBUSY)", r.n, s0, s1,
		  r.suspended_ns / 1e9, tries, busy);

	read_story(pid, &s);
	/*
	 * On s2idle the alarm may fire, and reboost, before machine_suspend
	 * ends (timekeeping resumes inside it): the sleep is the boot clock's
	 * jump between the suspend's begin and the reboost.
	 */
	tap_check(s.deboosts >= 1 && s.reboosts == s.deboosts &&
		  s.deboost >= 0 &&
		  s.ms_begin > s.deboost && s.ms_end > s.ms_begin &&
		  s.reboost > s.ms_begin && s.marker > s.reboost &&
		  s.t_reboost - s.t_ms_begin > 1.0,
		  "alarm timerfd read: deboost, suspend, reboost, return in order",
		  "trace lines: deboost:timerfd %d (x%d), machine_suspend begin %d "
		  "end %d, reboost:timerfd %d (x%d) %.2f s of boot clock after the "
		  "begin, marker %d", s.deboost, s.deboosts, s.ms_begin, s.ms_end,
		  s.reboost, s.reboosts, s.t_reboost - s.t_ms_begin, s.marker);
	/*
	 * Who ran the reboost is the witness: the waker, not the reader on
	 * its way out. The reader's sched_wakeup is shown but not ordered:
	 * a reader the thaw already woke is running when the alarm's wake
	 * function reboosts it, and then ttwu traces no new wakeup.
	 */
	if (!tap_check(s.reboost >= 0 && s.reboost_ctx != pid &&
		       s.marker > s.reboost,
		       "alarm timerfd read: the waker reboosts before the return",
		       "reboost line %d run by pid %d (reader %d), reader's last "
		       "sched_wakeup line %d, marker %d", s.reboost,
		       s.reboost_ctx, pid, s.last_wakeup, s.marker))
		tap_diag("reboost: %s", s.reboost_line);
	tap_check(got && !strcmp(r.state, "boosted"),
		  "alarm timerfd read: returns boosted", "StayAwake: %s",
		  got ? r.state : "(no result)");
	tracing_teardown();
}

int main(void)
{
	struct alarm_suspend as;

	tap_init("boost_waits");
	if (!wakeup_stat("stayawake", &(struct wakeup_stat){ 0 }))
		tap_bail("no 'stayawake' wakeup source: kernel without SCHED_STAYAWAKE?");

	stays_boosted(TFD_MONO);
	stays_boosted(TFD_BOOT);
	stays_boosted(FUTEX);
	alarm_control();
	suspend_order();

	wait_sources_idle();
	alarm_suspend(3, &as);
	tap_check(as.ok && !stayawake_source_active(),
		  "nothing held at the end: the system suspends",
		  "write: %s, success %ld->%ld, suspended %.2f s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9);
	return tap_done();
}
