// SPDX-License-Identifier: GPL-2.0
/*
 * Nothing marked behaves like vanilla 6.1: with no task marked
 * SCHED_STAYAWAKE, every way into sleep gives what vanilla gives.
 * /sys/power/state with each state (alone, and while an EPOLLWAKEUP epoll
 * item holds its wakeup source active), the wakeup_count protocol,
 * /sys/power/autosleep and the uswsusp ioctls on /dev/snapshot.
 *
 * Each case prints what it measured as 'got "..."' in words that do not
 * depend on the kernel (an error name, suspend_stats' steps, whether
 * CLOCK_BOOTTIME ran ahead of CLOCK_MONOTONIC), and passes when that is
 * what vanilla gives. `make test` boots the vanilla kernel with this test
 * too (tests/order-vanilla) and scripts/compare-nomark.sh puts the two
 * boots' results side by side, row by row.
 *
 * A state the kernel does not offer is a row all the same ("not offered"),
 * decided by writing it; /dev/snapshot likewise ("not configured").
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <linux/suspend_ioctls.h>

#include "lib.h"

/*
 * RTC wake alarm for each suspend. The RTCs count whole seconds (PL031,
 * CMOS), so +2 may fire after 1.0 s, too close to a slow suspend entry on
 * a busy host; +3 keeps 2 s.
 */
#define ALARM_S 3
/* How long autosleep gets to (wrongly) suspend while a source is held. */
#define HELD_WINDOW_S 3
/* BOOTTIME ahead of MONOTONIC by this much: the system slept. */
#define SLEPT_NS SEC_NS

#define WAKEALARM "/sys/class/rtc/rtc0/wakealarm"
#define PM_TEST "/sys/power/pm_test"
#define PM_TEST_DELAY "/sys/module/suspend/parameters/pm_test_delay"

/*
 * The results vanilla gives. A suspend woken by the RTC: success +1 and
 * BOOTTIME ran ahead; a pm_test run: counted, but timekeeping never stopped.
 */
#define SLEPT "0, success +1, fail +0, slept"
#define TESTED "0, success +1, fail +0, did not sleep"

/*
 * The states written to /sys/power/state, and how each is driven where the
 * kernel offers it: woken by an RTC alarm, or through /sys/power/pm_test
 * at the deepest level the state has where nothing could wake it or it
 * must not really happen.
 */
struct way {
	const char *state;
	const char *pm_test;	/* NULL: a real sleep, the RTC wakes it */
	const char *want;	/* vanilla's result where offered */
	const char *absent;	/* and where not */
};

static const struct way ways[] = {
	{ "mem", NULL, SLEPT, "not offered, EINVAL" },
	/* pm_test where the RTC cannot wake it: see way_here() */
	{ "freeze", NULL, SLEPT, "not offered, EINVAL" },
	{ "standby", NULL, SLEPT, "not offered, EINVAL" },
	/*
	 * Hibernation up to the point where the image would be written (a
	 * real one needs a resume from swap); hibernate() counts nothing in
	 * suspend_stats, and pm_test's delay runs with timekeeping suspended,
	 * so BOOTTIME runs ahead ("slept"). Without CONFIG_HIBERNATION "disk"
	 * is still parsed, and hibernate() says ENOSYS.
	 */
	{ "disk", "core", "0, success +0, fail +0, slept",
	  "not offered, ENOSYS" },
};

/* An EPOLLWAKEUP epoll item on an eventfd, or on an alarm timerfd. */
struct hold {
	int ep;
	int fd;
	const char *name;	/* its wakeup source: the file's name */
};

static struct hold ev_hold = { -1, -1, "[eventfd]" };
static struct hold alarm_hold = { -1, -1, "[timerfd]" };
static char pm_test_delay_saved[16];

static const char *ename(int err)
{
	const char *n = err ? strerrorname_np(-err) : "0";

	return n ? n : "error";
}

/* Is the wakeup source @name active? debugfs counts whole ms: wait 3 ms. */
static bool source_active(const char *name)
{
	struct timespec ms3 = { .tv_nsec = 3000000 };
	struct wakeup_stat st;

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ms3, NULL);
	return wakeup_stat(name, &st) && st.active_since_ms > 0;
}

static void hold_add(struct hold *h, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLWAKEUP };

	h->fd = fd;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	if (h->fd < 0 || h->ep < 0 ||
	    epoll_ctl(h->ep, EPOLL_CTL_ADD, h->fd, &ev))
		tap_bail("%s epoll item: %s", h->name, strerror(errno));
	if (!wakeup_stat(h->name, &(struct wakeup_stat){ 0 }))
		tap_bail("EPOLLWAKEUP on %s registered no wakeup source", h->name);
}

/* Wait (at most ms) for the item's event; returns epoll_wait()'s result. */
static int hold_wait(struct hold *h, int ms)
{
	struct epoll_event ev;

	return epoll_wait(h->ep, &ev, 1, ms);
}

/*
 * Make the eventfd readable (its poll callback activates the item's
 * source) and let epoll_wait() return it: a level-triggered item keeps the
 * source active until the next epoll_wait() finds the file not ready.
 */
static bool hold_take(struct hold *h)
{
	uint64_t one = 1;

	if (write(h->fd, &one, sizeof(one)) != sizeof(one) ||
	    hold_wait(h, 1000) != 1)
		return false;
	return source_active(h->name);
}

/* Consume the event and epoll_wait() again: the source goes idle. */
static bool hold_release(struct hold *h)
{
	uint64_t v;

	if (read(h->fd, &v, sizeof(v)) != sizeof(v) || hold_wait(h, 0) != 0)
		return false;
	return !source_active(h->name);
}

static void hold_close(struct hold *h)
{
	if (h->ep >= 0)
		close(h->ep);
	if (h->fd >= 0)
		close(h->fd);
	h->ep = h->fd = -1;
}

static bool state_offered(const char *state)
{
	char buf[128] = "", *w, *save;
	FILE *f = fopen("/sys/power/state", "r");

	if (f && !fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	if (f)
		fclose(f);
	for (w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
		if (!strcmp(w, state))
			return true;
	return false;
}

static int arm_rtc(void)
{
	char rel[16];

	/* sysfs refuses to replace an armed alarm: disarm first. */
	write_str(WAKEALARM, "0");
	snprintf(rel, sizeof(rel), "+%d", ALARM_S);
	return write_str(WAKEALARM, rel);
}

/* Every case starts with no wakeup source active (an RTC wakeup's holds). */
static void settle(void)
{
	wait_sources_idle();
	if (strcmp(active_sources(), "none"))
		tap_diag("still active after 5 s: %s", active_sources());
}

/*
 * One write to /sys/power/state, woken by an RTC alarm or run as a
 * pm_test, judged by its return, suspend_stats and the clocks.
 */
struct attempt {
	int err;
	long success, fail;		/* the steps of suspend_stats */
	int64_t slept_ns;		/* BOOTTIME - MONOTONIC across it */
	char got[96];
};

static void enter(const char *state, const char *pm_test, struct attempt *a)
{
	long s0 = suspend_success();
	long f0 = read_long("/sys/power/suspend_stats/fail");
	struct clock_pair c0, c1;
	int err = 0;

	if (pm_test)
		err = write_str(PM_TEST, pm_test);
	else
		err = arm_rtc();
	clock_pair_read(&c0);
	if (!err)
		err = write_str("/sys/power/state", state);
	clock_pair_read(&c1);
	write_str(WAKEALARM, "0");
	write_str(PM_TEST, "none");
	a->err = err;
	a->success = suspend_success() - s0;
	a->fail = read_long("/sys/power/suspend_stats/fail") - f0;
	a->slept_ns = clock_pair_suspended_ns(&c0, &c1);
	snprintf(a->got, sizeof(a->got), "%s, success %+ld, fail %+ld, %s",
		 ename(a->err), a->success, a->fail,
		 a->slept_ns >= SLEPT_NS ? "slept" : "did not sleep");
}

/* The case line: pass when got is what vanilla gives. */
static void row(const char *caze, const char *got, const char *want,
		const char *detail)
{
	bool same = !strcmp(got, want);

	tap_check(same, caze, "got \"%s\"%s%s%s; %s", got,
		  same ? "" : ", vanilla gives \"", same ? "" : want,
		  same ? "" : "\"", detail);
}

static void attempt_row(const char *caze, struct attempt *a, const char *want,
			const char *how)
{
	char d[192];

	snprintf(d, sizeof(d), "%s, BOOTTIME-MONOTONIC %+.2f s", how,
		 a->slept_ns / 1e9);
	row(caze, a->got, want, d);
}

/* No task is marked: no StayAwake: line says otherwise (vanilla has none). */
static void nothing_marked(void)
{
	char got[64] = "none", state[16];
	glob_t g;
	size_t i;
	int n = 0;

	if (glob("/proc/[0-9]*", 0, NULL, &g))
		g.gl_pathc = 0;
	for (i = 0; i < g.gl_pathc; i++) {
		unsigned int uid;

		if (!proc_status(g.gl_pathv[i] + 6, &uid, state, sizeof(state)) &&
		    state[0] && strcmp(state, "off"))
			n++;
	}
	if (n)
		snprintf(got, sizeof(got), "%d marked", n);
	row("no task is marked", got, "none", "StayAwake: in /proc/*/status");
	globfree(&g);
}

static void sysfs_rows(void)
{
	char st[128], ms[128];

	read_line("/sys/power/state", st, sizeof(st));
	read_line("/sys/power/mem_sleep", ms, sizeof(ms));
	tap_check(state_offered("mem") && state_offered("freeze"),
		  "/sys/power/state offers mem and freeze",
		  "got \"%s\"; mem_sleep %s", st, ms);
}

/*
 * The way as this machine drives it: a "freeze" the RTC cannot wake
 * (tests/platform/ARCH: freeze_pm_test) goes as deep as that pm_test.
 */
static struct way way_here(const struct way *w)
{
	static char level[32];
	struct way here = *w;

	if (!strcmp(w->state, "freeze")) {
		snprintf(level, sizeof(level), "%s", platform("freeze_pm_test"));
		if (strcmp(level, "-")) {
			here.pm_test = level;
			here.want = TESTED;
		}
	}
	return here;
}

/* Each state alone, then each while an EPOLLWAKEUP source is active. */
static void state_rows(bool held)
{
	char caze[96], how[96];
	size_t i;

	for (i = 0; i < sizeof(ways) / sizeof(ways[0]); i++) {
		const struct way here = way_here(&ways[i]), *w = &here;
		struct attempt a;

		snprintf(caze, sizeof(caze), "%s%s", w->state,
			 held ? " while an EPOLLWAKEUP source is active" : "");
		if (!state_offered(w->state)) {
			int err = write_str("/sys/power/state", w->state);

			snprintf(a.got, sizeof(a.got), "not offered, %s", ename(err));
			row(caze, a.got, w->absent, "not in /sys/power/state");
			continue;
		}
		settle();
		if (held && !hold_take(&ev_hold))
			tap_bail("%s not active after the eventfd's event", ev_hold.name);
		enter(w->state, w->pm_test, &a);
		if (w->pm_test)
			snprintf(how, sizeof(how), "pm_test %s", w->pm_test);
		else
			snprintf(how, sizeof(how), "RTC alarm +%d s", ALARM_S);
		if (held) {
			/* the item still holds its source after the attempt */
			snprintf(how + strlen(how), sizeof(how) - strlen(how),
				 ", %s %s after", ev_hold.name,
				 source_active(ev_hold.name) ? "active" : "idle");
			if (!hold_release(&ev_hold))
				tap_bail("%s still active after its release", ev_hold.name);
		}
		attempt_row(caze, &a, w->want, how);
	}
}

/* uswsusp: SNAPSHOT_FREEZE then SNAPSHOT_UNFREEZE on /dev/snapshot. */
static void snapshot_row(bool held)
{
	const char *caze = held ? "uswsusp SNAPSHOT_FREEZE while an EPOLLWAKEUP source is active" :
				  "uswsusp SNAPSHOT_FREEZE";
	char got[64];
	int fd, err = 0;

	if (access("/dev/snapshot", F_OK)) {
		row(caze, "not configured", "not configured", "no /dev/snapshot");
		return;
	}
	settle();
	if (held && !hold_take(&ev_hold))
		tap_bail("%s not active after the eventfd's event", ev_hold.name);
	fd = open("/dev/snapshot", O_RDONLY);
	if (fd < 0 || ioctl(fd, SNAPSHOT_FREEZE, 0))
		err = -errno;
	if (fd >= 0) {
		ioctl(fd, SNAPSHOT_UNFREEZE, 0);
		close(fd);
	}
	if (held && !hold_release(&ev_hold))
		tap_bail("%s still active after its release", ev_hold.name);
	snprintf(got, sizeof(got), "%s%s", fd < 0 ? "open: " : "", ename(err));
	row(caze, got, "0", "then SNAPSHOT_UNFREEZE");
}

static volatile sig_atomic_t timer_fired;

static void on_timer(int sig)
{
	timer_fired = 1;
}

/*
 * Read /sys/power/wakeup_count; the read blocks while a wakeup event is in
 * progress, here at most limit_ms (then EINTR). Returns -errno or 0.
 */
static int wc_read(unsigned int *count, int limit_ms, int64_t *took_ns)
{
	struct itimerval it = { .it_value = { limit_ms / 1000, limit_ms % 1000 * 1000 } };
	struct sigaction sa = { .sa_handler = on_timer };	/* no SA_RESTART */
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	char buf[32];
	ssize_t n;
	int fd, err = 0;

	sigaction(SIGALRM, &sa, NULL);
	fd = open("/sys/power/wakeup_count", O_RDONLY);
	if (fd < 0)
		return -errno;
	setitimer(ITIMER_REAL, &it, NULL);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		err = -errno;
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	close(fd);
	if (took_ns)
		*took_ns = clock_ns(CLOCK_MONOTONIC) - t0;
	if (err)
		return err;
	buf[n] = 0;
	return sscanf(buf, "%u", count) == 1 ? 0 : -EIO;
}

static int wc_write(unsigned int count)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", count);
	return write_str("/sys/power/wakeup_count", buf);
}

/* A wakeup event: the eventfd's source activated and released. */
static void wakeup_event(void)
{
	if (!hold_take(&ev_hold) || !hold_release(&ev_hold))
		tap_bail("%s did not go active and idle again", ev_hold.name);
}

static void wakeup_count_rows(void)
{
	unsigned int c = 0;
	struct attempt a;
	char got[96], d[96];
	int64_t took;
	int err;

	/* With a source active the read waits for it: a signal ends it. */
	settle();
	if (!hold_take(&ev_hold))
		tap_bail("%s not active after the eventfd's event", ev_hold.name);
	err = wc_read(&c, 1000, &took);
	snprintf(got, sizeof(got), "%s", err == -EINTR && took >= 900000000 ?
		 "blocked until a signal, EINTR" : ename(err));
	snprintf(d, sizeof(d), "returned after %.2f s, signal at 1 s", took / 1e9);
	row("wakeup_count read while an EPOLLWAKEUP source is active", got,
	    "blocked until a signal, EINTR", d);

	/* The count read before the source went active, written while it is. */
	if (!hold_release(&ev_hold))
		tap_bail("%s still active after its release", ev_hold.name);
	err = wc_read(&c, 10000, NULL);
	if (!err) {
		if (!hold_take(&ev_hold))
			tap_bail("%s not active after the eventfd's event", ev_hold.name);
		err = wc_write(c);
		if (!hold_release(&ev_hold))
			tap_bail("%s still active after its release", ev_hold.name);
	}
	row("wakeup_count written while an EPOLLWAKEUP source is active",
	    ename(err), "EINVAL", "the count read before it went active");

	/* Read, written back, nothing in between: mem suspends. */
	settle();
	err = wc_read(&c, 10000, NULL);
	if (!err)
		err = wc_write(c);
	snprintf(got, sizeof(got), "%s", err ? ename(err) : "accepted");
	row("wakeup_count written back", got, "accepted", "nothing in between");
	enter("mem", NULL, &a);
	attempt_row("mem after wakeup_count was written back", &a, SLEPT,
		    "RTC alarm");

	/* A wakeup event between reading and writing: the write fails, and
	 * the next plain mem is not bound by it. */
	settle();
	err = wc_read(&c, 10000, NULL);
	if (!err) {
		wakeup_event();
		err = wc_write(c);
	}
	snprintf(got, sizeof(got), "%s", err ? ename(err) : "accepted");
	row("wakeup_count written after a wakeup event since it was read", got,
	    "EINVAL", "the eventfd's source activated and released");
	enter("mem", NULL, &a);
	attempt_row("mem after the refused wakeup_count write", &a, SLEPT,
		    "RTC alarm");

	/* A wakeup event after a successful write: mem fails, counted. */
	settle();
	err = wc_read(&c, 10000, NULL);
	if (!err)
		err = wc_write(c);
	if (err) {
		snprintf(a.got, sizeof(a.got), "wakeup_count write: %s", ename(err));
		a.slept_ns = 0;
	} else {
		wakeup_event();
		enter("mem", NULL, &a);
	}
	attempt_row("mem after a wakeup event since wakeup_count was written", &a,
		    "EBUSY, success +0, fail +1, did not sleep",
		    "RTC alarm armed in case it sleeps");
}

/*
 * suspend_stats/success as soon as it is above s, at most 5 s: autosleep's
 * worker counts its suspend only after the thaw has let this task run.
 */
static long success_after(long s)
{
	struct timespec ms10 = { .tv_nsec = 10000000 };
	long now;
	int i;

	for (i = 0; i < 500 && (now = suspend_success()) <= s; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ms10, NULL);
	return now;
}

/*
 * Autosleep: it does not suspend while the eventfd's source is active; once
 * that is released it suspends until an alarm timerfd (CLOCK_BOOTTIME_ALARM)
 * with EPOLLWAKEUP fires. That item's source holds the system awake from the
 * alarm on, so autosleep is switched off while it is held, never racing a
 * suspend that nothing would wake.
 */
static void autosleep_rows(void)
{
	struct itimerspec its = { .it_value = { .tv_sec = HELD_WINDOW_S + ALARM_S } };
	struct timespec window = { .tv_sec = HELD_WINDOW_S };
	struct clock_pair c0, c1, c2;
	long s0, s1, s2;
	char d[192];
	int err, n;

	hold_add(&alarm_hold, timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_CLOEXEC));
	settle();
	if (!hold_take(&ev_hold))
		tap_bail("%s not active after the eventfd's event", ev_hold.name);
	/* Armed first: it also wakes a system that wrongly suspends now. */
	if (timerfd_settime(alarm_hold.fd, 0, &its, NULL))
		tap_bail("alarm timerfd: %s", strerror(errno));
	s0 = suspend_success();
	clock_pair_read(&c0);
	err = write_str("/sys/power/autosleep", "mem");
	if (err)
		tap_bail("autosleep mem: %s", strerror(-err));
	clock_nanosleep(CLOCK_MONOTONIC, 0, &window, NULL);
	s1 = suspend_success();
	clock_pair_read(&c1);
	snprintf(d, sizeof(d), "%d s window: success %ld->%ld, BOOTTIME-MONOTONIC %+.2f s",
		 HELD_WINDOW_S, s0, s1, clock_pair_suspended_ns(&c0, &c1) / 1e9);
	row("autosleep mem while an EPOLLWAKEUP source is active",
	    s1 == s0 && clock_pair_suspended_ns(&c0, &c1) < SLEPT_NS ?
	    "stayed awake" : "suspended", "stayed awake", d);

	/* Released: autosleep suspends; the alarm wakes and holds. */
	if (!hold_release(&ev_hold))
		tap_bail("%s still active after its release", ev_hold.name);
	n = hold_wait(&alarm_hold, (ALARM_S + 10) * 1000);
	s2 = success_after(s1);
	clock_pair_read(&c2);
	snprintf(d, sizeof(d), "success %ld->%ld, BOOTTIME-MONOTONIC %+.2f s, "
		 "alarm %s, %s %s", s1, s2, clock_pair_suspended_ns(&c1, &c2) / 1e9,
		 n == 1 ? "fired" : "did not fire", alarm_hold.name,
		 source_active(alarm_hold.name) ? "holding" : "idle");
	row("autosleep mem suspends once the source is released",
	    s2 > s1 && clock_pair_suspended_ns(&c1, &c2) >= SLEPT_NS ?
	    "suspended" : "stayed awake", "suspended", d);

	err = write_str("/sys/power/autosleep", "off");
	row("autosleep off", ename(err), "0", "while the alarm's source holds");
	hold_close(&alarm_hold);
}

/*
 * However the program ends: autosleep off (with a source held, so that no
 * suspend starts meanwhile), no RTC alarm, pm_test none, and no
 * wakeup_count check left armed (a count no kernel has disarms it).
 */
static void teardown(void)
{
	char as[16];

	read_line("/sys/power/autosleep", as, sizeof(as));
	if (as[0] && strcmp(as, "off")) {
		bool held = ev_hold.ep >= 0 && hold_take(&ev_hold);

		write_str("/sys/power/autosleep", "off");
		if (held)
			hold_release(&ev_hold);
	}
	write_str(WAKEALARM, "0");
	write_str(PM_TEST, "none");
	if (pm_test_delay_saved[0])
		write_str(PM_TEST_DELAY, pm_test_delay_saved);
	write_str("/sys/power/wakeup_count", "4294967295");
	hold_close(&alarm_hold);
	hold_close(&ev_hold);
}

int main(void)
{
	tap_init("nomark");
	atexit(teardown);
	/* pm_test waits 5 s at its level by default; 1 s proves as much. */
	read_line(PM_TEST_DELAY, pm_test_delay_saved, sizeof(pm_test_delay_saved));
	if (pm_test_delay_saved[0])
		write_str(PM_TEST_DELAY, "1");
	hold_add(&ev_hold, eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));

	nothing_marked();
	sysfs_rows();
	state_rows(false);
	state_rows(true);
	snapshot_row(false);
	snapshot_row(true);
	wakeup_count_rows();
	/*
	 * Last: on vanilla, autosleep's worker, still waiting for the alarm's
	 * source when autosleep goes off, arms the wakeup_count check once
	 * that source is released (patch 0001 fixes it); no suspend follows
	 * here, and tests/order-vanilla runs nomark last.
	 */
	autosleep_rows();
	return tap_done();
}
