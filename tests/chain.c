// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup chain: from the RTC alarm interrupt to the woken important task,
 * each hold is taken before the one before it is dropped, by name and in
 * order:
 *
 *   driver's IRQ hold -> rtc core (RTC parent) -> alarmtimer -> stayawake
 *   pl031_alarm          9010000.pl031            (arm64, PL031)
 *   rtc_cmos             00:04                    (x86_64, rtc-cmos)
 *
 * and the in-progress count never reaches zero from the driver's hold to the
 * reboost. Witness: the power:wakeup_source_* trace events (boot clock),
 * whose state is the kernel's combined event counter, in-progress count in
 * its low 16 bits; alarmtimer:alarmtimer_suspend gives the suspend entry.
 *
 * The chain exists only when the RTC wakes the system before the task's
 * alarm is due. On QEMU it seldom does by itself: the rtc core rounds the
 * alarm up to the next whole second (rtc_ktime_to_tm()), QEMU's PL031
 * counts its ticks from when the alarm was set (so it always fires late),
 * and on x86 the sleep time is injected from the CMOS clock in whole
 * seconds (all four cycles of a run resumed 0.07-0.15 s after the expiry);
 * the alarm may then run from the timekeeping
 * resume, before any device resumes, and reboost the task before the RTC
 * is looked at. A real RTC that matches on a second boundary wakes up to a
 * second early, which is what the chain is for. The test makes that case:
 * a pacer alarm (an alarm timerfd nobody reads) due PACER_NS before the
 * task's alarm is what the RTC is programmed for, so the RTC wakes the
 * system while the task's alarm is still ahead (alarmtimer holds for an
 * alarm due within 2 s). The suspend is started half a second out of
 * phase with the pacer, so the rounding costs about half a second, and a
 * cycle where the task's alarm was due at the wake all the same is
 * retried (bounded) with the reason and the times measured.
 *
 * On arm64 the pacer itself is due when the PL031 wakes the system, fires
 * while tasks are still frozen and takes alarmtimer (0014) before the
 * PL031 hold: alarmtimer is then required to be held when the rtc core's
 * hold ends, which the rtc core's work re-arms (0013). The PL031 alarm
 * that wakes s2idle is taken by the PM core, not the handler; the driver
 * picks it up in its noirq resume (rtc-pl031/0001), so its IRQ count stays.
 *
 * The task waits twice: in clock_nanosleep(CLOCK_BOOTTIME_ALARM), and in
 * epoll_wait() on an alarm timerfd, where the link after alarmtimer is the
 * timerfd's wait queue and then the epoll set's (issue 19).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TRACING "/sys/kernel/tracing/"
#define MAX_EV 4096
#define CYCLES 4
/* The pacer is due LEAD_NS after the suspender's first write, plus the
 * suspend entry's latency as measured (first guess ENTRY_NS); the task's
 * alarm PACER_NS after it. */
#define LEAD_NS (3500LL * 1000 * 1000)
#define ENTRY_NS (40LL * 1000 * 1000)
#define PACER_NS (1000LL * 1000 * 1000)

struct ev {
	bool activate;
	char name[64];
	unsigned int inpr;
	double ts;
};

static struct ev ev[MAX_EV];
static int nev;
static double suspend_ts;	/* alarmtimer_suspend, or -1 */
/* The test drops its mark here (a trace marker): ev index, or -1 */
static int unmark_at;
#define UNMARK_MARKER "sa-chain: unmark"
static char rtc_src[128];	/* the RTC's parent device: the rtc core's hold */
static char drv_src[64];	/* the RTC driver's IRQ hold */
static pid_t suspender;
static pid_t main_pid;

static const char *const trace_events[] = {
	"events/power/wakeup_source_activate/enable",
	"events/power/wakeup_source_deactivate/enable",
	"events/alarmtimer/alarmtimer_suspend/enable",
};

static int tracing(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "%s", file);
	return write_str(path, val);
}

static void stop_suspender(void)
{
	if (suspender > 0) {
		kill(suspender, SIGKILL);
		waitpid(suspender, NULL, 0);
		suspender = 0;
	}
}

static void trace_off(void)
{
	unsigned int i;

	tracing("tracing_on", "0");
	for (i = 0; i < sizeof(trace_events) / sizeof(*trace_events); i++)
		tracing(trace_events[i], "0");
}

/*
 * Runs before lib's teardown (atexit is LIFO), however the program ends,
 * tap_bail() included: the suspender must not outlive us, and the trace
 * events are switched off again.
 */
static void chain_teardown(void)
{
	if (getpid() != main_pid)
		return;
	stop_suspender();
	trace_off();
}

static void setup_fail(const char *what, int err)
{
	tap_bail("%s: %s", what, strerror(err < 0 ? -err : err));
}

static void read_trace(void)
{
	FILE *f = fopen(TRACING "trace", "r");
	char line[512];

	nev = 0;
	suspend_ts = -1;
	unmark_at = -1;
	if (!f)
		tap_bail("cannot read the trace");
	while (fgets(line, sizeof(line), f) && nev < MAX_EV) {
		char *p = strstr(line, ": wakeup_source_");
		char *q = strstr(line, ": alarmtimer_suspend:");
		char *t, *mark = p ? p : q;
		unsigned long state;
		char name[64];
		double ts;

		if (strstr(line, UNMARK_MARKER) && *line != '#') {
			unmark_at = nev;
			continue;
		}
		if (!mark || *line == '#')
			continue;
		/* The timestamp is the word just before the event's name. */
		*mark = 0;
		t = strrchr(line, ' ');
		if (!t || sscanf(t, " %lf", &ts) != 1)
			continue;
		if (q) {
			suspend_ts = ts;
			continue;
		}
		p += strlen(": wakeup_source_");
		if (sscanf(strchr(p, ' '), " %63s state=%lx", name, &state) != 2)
			continue;
		ev[nev].activate = !strncmp(p, "activate", 8);
		snprintf(ev[nev].name, sizeof(ev[nev].name), "%s", name);
		ev[nev].inpr = state & 0xffff;
		ev[nev].ts = ts;
		nev++;
	}
	fclose(f);
}

static int find(int from, const char *name, bool activate)
{
	if (from < 0)
		return -1;
	for (int i = from; i < nev; i++)
		if (ev[i].activate == activate && !strcmp(ev[i].name, name))
			return i;
	return -1;
}

/* Every activation and release after @from, with time, for the witness. */
static const char *story(int from)
{
	static char buf[1024];
	size_t off = 0;

	buf[0] = 0;
	for (int i = from < 0 ? 0 : from; i < nev && off < sizeof(buf) - 1; i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%c%s@%.6f/%u",
				off ? " " : "", ev[i].activate ? '+' : '-',
				ev[i].name, ev[i].ts, ev[i].inpr);
	return buf;
}

struct cycle {
	bool suspended;
	long s0, s1;
	int64_t slept;
	int err;
	double due;		/* the task's alarm's expiry, boot clock, s */
	double pacer;		/* the pacer alarm's expiry */
	double first_write;	/* when the suspender started, boot clock, s */
	long irqs;		/* the RTC's /proc/interrupts count moved by */
	long wake_irq;		/* /sys/power/pm_wakeup_irq after the wake */
};

enum chain_wait { NANOSLEEP, EPOLL, WAITS };

static const char *const wait_name[WAITS] = { "clock_nanosleep",
					      "epoll_wait" };

/* Sleep until @due through @w: 0 or an errno */
static int alarm_wait(enum chain_wait w, const struct timespec *due)
{
	struct itimerspec its = { .it_value = *due };
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, ep, n, err = 0;

	if (w == NANOSLEEP)
		return clock_nanosleep(CLOCK_BOOTTIME_ALARM, TIMER_ABSTIME,
				       due, NULL);
	fd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	ep = epoll_create1(0);
	if (fd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) ||
	    timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL))
		err = errno;
	/* The freezer may end it with EINTR: an event loop retries */
	while (!err && (n = epoll_wait(ep, &ev, 1, -1)) != 1)
		if (n >= 0 || errno != EINTR)
			err = n < 0 ? errno : EPROTO;
	close(ep);
	close(fd);
	return err;
}

/*
 * One traced alarm sleep: marked, the task sleeps on CLOCK_BOOTTIME_ALARM
 * until @lead after the suspender's first write, which starts at a time of
 * our choosing, so that the RTC (whole seconds) wakes the system well
 * before the alarm is due.
 */
static void traced_cycle(struct cycle *c, enum chain_wait w, int64_t lead)
{
	struct clock_pair c0, c1;
	struct itimerspec pacer = { 0 };
	struct timespec due, go;
	long irq0 = rtc_irqs();
	int tfd;
	int64_t now, start;
	unsigned int i;
	int err;

	memset(c, 0, sizeof(*c));
	tracing("tracing_on", "0");
	if (trace_clear())
		tap_bail("cannot clear the trace");
	for (i = 0; i < sizeof(trace_events) / sizeof(*trace_events); i++) {
		err = tracing(trace_events[i], "1");
		if (err)
			setup_fail(trace_events[i], err);
	}
	tracing("tracing_on", "1");

	if (stayawake_mark(0, true))
		setup_fail("cannot mark", errno);
	now = clock_ns(CLOCK_BOOTTIME);
	start = now + 300 * 1000 * 1000;
	go.tv_sec = start / SEC_NS;
	go.tv_nsec = start % SEC_NS;
	c->pacer = (start + lead) / 1e9;
	c->due = (start + lead + PACER_NS) / 1e9;
	c->first_write = start / 1e9;
	pacer.it_value.tv_sec = (start + lead) / SEC_NS;
	pacer.it_value.tv_nsec = (start + lead) % SEC_NS;
	due.tv_sec = (start + lead + PACER_NS) / SEC_NS;
	due.tv_nsec = (start + lead + PACER_NS) % SEC_NS;
	tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	if (tfd < 0)
		setup_fail("timerfd_create", errno);
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &pacer, NULL))
		setup_fail("timerfd_settime", errno);

	suspender = fork();
	if (suspender < 0)
		setup_fail("fork", errno);
	if (suspender == 0) {
		/* Not an alarm clock: this nap must not wake the system. */
		while (clock_nanosleep(CLOCK_BOOTTIME, TIMER_ABSTIME, &go,
				       NULL) == EINTR)
			;
		for (;;) {
			write_str("/sys/power/state", "mem");
			usleep(1000);
		}
	}
	c->s0 = suspend_success();
	clock_pair_read(&c0);
	c->err = alarm_wait(w, &due);
	clock_pair_read(&c1);
	/* Wait for the suspender's suspend to be counted, then stop it. */
	for (i = 0; i < 1000 && suspend_success() == c->s0; i++)
		usleep(10000);
	c->s1 = suspend_success();
	stop_suspender();
	close(tfd);
	c->wake_irq = read_long("/sys/power/pm_wakeup_irq");
	tracing("trace_marker", UNMARK_MARKER);
	stayawake_mark(0, false);
	/*
	 * Some holds end by their timeout (alarmtimer's): let them end inside
	 * the trace. A hold that is never released is still missing its
	 * deactivation then.
	 */
	wait_sources_idle();
	trace_off();

	c->slept = clock_pair_suspended_ns(&c0, &c1);
	c->suspended = !c->err && c->s1 > c->s0 && c->slept > 2 * SEC_NS;
	c->irqs = rtc_irqs() - irq0;
	read_trace();
}

static void dump_diag(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f))
		tap_diag("irq: %.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
	f = fopen("/sys/kernel/debug/wakeup_sources", "r");
	while (f && fgets(line, sizeof(line), f))
		tap_diag("ws: %.*s", (int)strcspn(line, "\n"), line);
	if (f)
		fclose(f);
}

/* The chain as found in one cycle's trace: event indexes, -1 if absent. */
struct chain {
	int deboost;
	int act[4], rel[4];	/* driver, rtc core, alarmtimer, stayawake */
	int zero;		/* in-progress zero between act[0] and act[3] */
	int first_rtc;		/* first activation of an RTC hold */
};

static const char *link_name(int k)
{
	static const char *const fixed[] = { NULL, NULL, "alarmtimer",
					     "stayawake" };

	return k == 0 ? drv_src : k == 1 ? rtc_src : fixed[k];
}

/*
 * The activation of @name in [from, to) that is still held at @to (not
 * released in between), or -1.
 */
static int held_at(int from, int to, const char *name)
{
	int a = -1;

	for (int i = from; i >= 0 && i < to && i < nev; i++)
		if (!strcmp(ev[i].name, name))
			a = ev[i].activate ? i : -1;
	return a;
}

/*
 * Link k is taken before link k - 1 lets go and still held then: the
 * driver's after the deboost, the rtc core's after the driver's, stayawake
 * after alarmtimer's. alarmtimer may have been taken before the RTC links
 * (an alarm that fired during the freeze holds it, 0014: on arm64 the RTC
 * wakes after the alarm it was set for, which then fires frozen); what
 * counts is that it is held when the rtc core's hold ends.
 */
static void analyse(struct chain *ch)
{
	int k, i;

	memset(ch, -1, sizeof(*ch));
	ch->deboost = find(0, "stayawake", false);
	ch->act[0] = find(ch->deboost, drv_src, true);
	ch->rel[0] = find(ch->act[0], drv_src, false);
	for (k = 1; k < 4; k++) {
		int from = k == 2 ? ch->deboost : ch->act[k - 1];
		int to = ch->rel[k - 1] < 0 ? nev : ch->rel[k - 1];

		/*
		 * The reboosted task holds stayawake until the test drops
		 * its mark, which may come first when alarmtimer's hold
		 * ends by its timeout (an alarm fired before the thaw).
		 */
		if (k == 3 && unmark_at >= 0 && unmark_at < to)
			to = unmark_at;

		ch->act[k] = ch->act[k - 1] < 0 ? -1 :
			     held_at(from, to, link_name(k));
		ch->rel[k] = find(ch->act[k], link_name(k), false);
	}
	i = find(ch->deboost, drv_src, true);
	k = find(ch->deboost, rtc_src, true);
	ch->first_rtc = i < 0 ? k : k < 0 ? i : i < k ? i : k;
	if (ch->act[0] >= 0 && ch->act[3] >= 0)
		for (i = ch->act[0]; i < ch->act[3]; i++)
			if (!ev[i].inpr) {
				ch->zero = i;
				break;
			}
}

/*
 * Why this cycle shows no chain to check, or NULL: the system did not
 * suspend, or the alarm was already due when it woke, so the timekeeping
 * resume ran the alarm (and reboosted the task) before any device resumed,
 * before an RTC hold could be taken. Neither is a broken chain.
 */
static const char *no_chain(const struct cycle *c, const struct chain *ch)
{
	static char why[256];
	int reboost = find(ch->deboost, "stayawake", true);

	if (!c->suspended) {
		snprintf(why, sizeof(why),
			 "no suspend (err %d, success %ld->%ld, suspended %.2f s)",
			 c->err, c->s0, c->s1, c->slept / 1e9);
		return why;
	}
	if (reboost >= 0 && (ch->first_rtc < 0 || reboost < ch->first_rtc) &&
	    ev[reboost].ts >= c->due) {
		snprintf(why, sizeof(why),
			 "the alarm (due %.6f, pacer %.6f) was due at the wake: reboost at %.6f before any RTC hold (first at %.6f), suspend entered %.6f, RTC irqs +%ld, pm_wakeup_irq %ld",
			 c->due, c->pacer, ev[reboost].ts,
			 ch->first_rtc < 0 ? -1.0 : ev[ch->first_rtc].ts,
			 suspend_ts, c->irqs, c->wake_irq);
		return why;
	}
	return NULL;
}

static double ts_of(int i)
{
	return i < 0 ? -1.0 : ev[i].ts;
}

/*
 * Link k taken after link k - 1 and before link k - 1 let go, by name;
 * the driver's link (k = 0) after the deboost.
 */
static void check_link(const struct chain *ch, const struct cycle *c, int k,
		       const char *caze)
{
	const char *prev = k ? link_name(k - 1) : "the deboost";
	int before = k ? ch->act[k - 1] : ch->deboost;
	bool ok = before >= 0 && ch->act[k] >= 0;
	char held[320] = "";

	if (k)
		snprintf(held, sizeof(held), "; %s held %.6f..%.6f%s", prev,
			 ts_of(ch->act[k - 1]), ts_of(ch->rel[k - 1]),
			 ok && ch->act[k] < ch->act[0] ?
			 "; taken before the RTC links (an alarm fired during the freeze)" : "");
	else
		snprintf(held, sizeof(held), "; the deboost at %.6f",
			 ts_of(ch->deboost));
	tap_check(ok, caze, "%s taken %.6f, released %.6f%s; alarm due %.6f%s%s",
		  link_name(k), ts_of(ch->act[k]), ts_of(ch->rel[k]), held,
		  c->due, ok ? "" : "; after the deboost: ",
		  ok ? "" : story(ch->deboost));
}

/* The chain of one wait, judged from up to CYCLES traced cycles */
static void judge(enum chain_wait w)
{
	static const char *const link_case[] = {
		"driver's IRQ hold taken after the deboost",
		"rtc core's hold taken under the driver's",
		"alarmtimer held when the rtc core's hold ends",
		"stayawake reactivated under alarmtimer",
	};
	const char *how = wait_name[w];
	int64_t lead = LEAD_NS + ENTRY_NS;
	struct cycle c;
	struct chain ch;
	const char *why = NULL;
	int cycle, k, leaked = 0;
	char which[160] = "";

	for (cycle = 1; cycle <= CYCLES; cycle++) {
		traced_cycle(&c, w, lead);
		analyse(&ch);
		why = no_chain(&c, &ch);
		if (!why)
			break;
		tap_diag("%s cycle %d: no chain to check: %s", how, cycle, why);
		tap_diag("%s cycle %d trace: %s", how, cycle, story(ch.deboost));
		dump_diag();
		/*
		 * Aim again half a second out of phase, from the suspend
		 * entry's latency as measured this time.
		 */
		if (suspend_ts > c.first_write && suspend_ts < c.pacer)
			lead = LEAD_NS + (int64_t)((suspend_ts - c.first_write) * 1e9);
	}
	if (why)
		tap_diag("%s: no chain in %d cycles: judging the last one", how,
			 CYCLES);

	tap_check(c.suspended, tap_case(how, "suspended during the alarm sleep"),
		  "cycle %d: success %ld->%ld, suspended %.2f s, suspend entered %.6f, pacer due %.6f, alarm due %.6f, RTC irqs +%ld, pm_wakeup_irq %ld, %d events",
		  cycle > CYCLES ? CYCLES : cycle, c.s0, c.s1, c.slept / 1e9,
		  suspend_ts, c.pacer, c.due, c.irqs, c.wake_irq, nev);
	for (k = 0; k < 4; k++)
		check_link(&ch, &c, k, tap_case(how, link_case[k]));
	tap_check(ch.act[0] >= 0 && ch.act[3] >= 0 && ch.zero < 0,
		  tap_case(how, "in-progress count never zero from the driver's hold to the reboost"),
		  "%s%s%.6f: %s", ch.zero < 0 ? "" : "zero after ",
		  ch.zero < 0 ? "" : ev[ch.zero].name,
		  ch.zero < 0 ? ts_of(ch.act[0]) : ts_of(ch.zero),
		  story(ch.act[0] >= 0 ? ch.act[0] : ch.deboost));

	/* Every chain hold taken after the deboost was released again. */
	for (int i = ch.deboost < 0 ? 0 : ch.deboost; i < nev; i++) {
		struct wakeup_stat st;

		if (!ev[i].activate || !strcmp(ev[i].name, "stayawake"))
			continue;
		if (strcmp(ev[i].name, drv_src) && strcmp(ev[i].name, rtc_src) &&
		    strcmp(ev[i].name, "alarmtimer"))
			continue;
		if (find(i + 1, ev[i].name, false) < 0 ||
		    (wakeup_stat(ev[i].name, &st) && st.active_since_ms)) {
			leaked++;
			snprintf(which, sizeof(which), " %s", ev[i].name);
		}
	}
	tap_check(!leaked, tap_case(how, "driver, rtc core and alarmtimer holds released"),
		  "%d leaked%s; now active: %s", leaked, which, active_sources());
}

int main(void)
{
	char drv[64] = "";
	int w;
	FILE *f;

	tap_init("chain");
	main_pid = getpid();
	atexit(chain_teardown);
	if (rtc_parent_name("rtc0", rtc_src, sizeof(rtc_src)))
		tap_bail("no rtc0");
	/* "rtc-pl031 9010000.pl031" or "rtc_cmos 00:04": the driver's name. */
	f = fopen("/sys/class/rtc/rtc0/name", "r");
	if (!f || fscanf(f, "%63s", drv) != 1)
		tap_bail("cannot read /sys/class/rtc/rtc0/name");
	fclose(f);
	if (!strcmp(drv, "rtc-pl031"))
		snprintf(drv_src, sizeof(drv_src), "pl031_alarm");
	else if (!strcmp(drv, "rtc_cmos"))
		snprintf(drv_src, sizeof(drv_src), "rtc_cmos");
	else
		tap_bail("rtc0 is %s: no IRQ hold known for it", drv);
	tap_diag("chain: %s > %s > alarmtimer > stayawake", drv_src, rtc_src);
	if (tracing("trace_clock", "boot") || tracing("buffer_size_kb", "2048"))
		tap_bail("cannot set up the trace");

	for (w = 0; w < WAITS; w++)
		judge(w);
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}
