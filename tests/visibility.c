// SPDX-License-Identifier: GPL-2.0
/*
 * Who keeps the system awake, as the kernel shows it: the -stayawake
 * release, the StayAwake: line of /proc/PID/status, the debugfs list with
 * its boosted time, and the stayawake:* trace events with their reasons.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TR "/sys/kernel/tracing/"

static void on_usr1(int sig)
{
}

static void spin_ms(int ms)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000LL;

	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
}

static void alarm_sleep(int clock, int secs)
{
	struct timespec ts = { .tv_sec = secs };

	clock_nanosleep(clock, 0, &ts, NULL);
}

static void check_release(void)
{
	struct utsname u;
	size_t n;

	uname(&u);
	n = strlen(u.release);
	tap_check(n > 10 && !strcmp(u.release + n - 10, "-stayawake"),
		  "the patched kernel booted (release ends in -stayawake)",
		  "%s", u.release);
}

/* The child sleeps deboosted; we, boosted, watch both in /proc and debugfs. */
static void check_states(void)
{
	struct stayawake_entry me, kid, me2, kid2;
	int boosted, lines, b2, l2, st;
	char buf[16];
	pid_t pid;
	bool ok;

	tap_check(!strcmp(proc_stayawake(getpid(), buf, sizeof(buf)), "off"),
		  "/proc status of an unmarked task says off", "'%s'", buf);
	tap_check(!stayawake_debugfs(getpid(), &me, &boosted, &lines),
		  "an unmarked task is not listed in debugfs", "boosted %d",
		  boosted);

	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	tap_check(!strcmp(proc_stayawake(getpid(), buf, sizeof(buf)),
			  "boosted"),
		  "/proc status of a marked task says boosted", "'%s'", buf);

	pid = fork();
	if (!pid) {
		stayawake_mark(0, true);
		alarm_sleep(CLOCK_BOOTTIME_ALARM, 3);
		spin_ms(400);
		_exit(0);
	}
	ok = wait_sleeping_state(pid, "deboosted", 5);
	tap_check(ok, "/proc status of a task in an alarm sleep says deboosted",
		  "'%s'", proc_stayawake(pid, buf, sizeof(buf)));

	ok = stayawake_debugfs(pid, &kid, &boosted, &lines) &&
	     stayawake_debugfs(getpid(), &me, &boosted, &lines);
	tap_check(ok && !strcmp(kid.state, "deboosted") &&
		  !strcmp(me.state, "boosted"),
		  "debugfs lists both marked tasks with their states",
		  "self %s, child %s", ok ? me.state : "?",
		  ok ? kid.state : "?");
	tap_check(boosted == lines && boosted >= 1,
		  "debugfs header counts the boosted lines",
		  "header %d, lines %d", boosted, lines);

	spin_ms(300);
	stayawake_debugfs(pid, &kid2, &b2, &l2);
	stayawake_debugfs(getpid(), &me2, &b2, &l2);
	tap_check(kid2.awake_s == kid.awake_s,
		  "a deboosted task's awake time stands still",
		  "%.6f -> %.6f s", kid.awake_s, kid2.awake_s);
	tap_check(me2.awake_s - me.awake_s >= 0.29 &&
		  me2.awake_s - me.awake_s < 1.0,
		  "a boosted task's awake time runs",
		  "%.6f -> %.6f s over 0.3 s", me.awake_s, me2.awake_s);
	tap_check(me.marked_at_s > 0 && me.marked_at_s <= kid.marked_at_s &&
		  kid.marked_at_s <= clock_ns(CLOCK_BOOTTIME) / 1e9,
		  "marked_at is the boottime of the mark",
		  "self %.6f, child %.6f", me.marked_at_s, kid.marked_at_s);

	/* The alarm boosts the child; it works 400 ms, then exits. */
	ok = false;
	while (!ok && waitpid(pid, &st, WNOHANG) == 0)
		ok = !strcmp(proc_stayawake(pid, buf, sizeof(buf)), "boosted");
	tap_check(ok, "/proc status says boosted once the alarm woke it",
		  "'%s'", buf);
	waitpid(pid, &st, 0);
	tap_check(!stayawake_debugfs(pid, &kid, &boosted, &lines),
		  "an exited task is not listed", "boosted %d", boosted);

	stayawake_mark(0, false);
	tap_check(!stayawake_debugfs(getpid(), &me, &boosted, &lines) &&
		  boosted == 0 && lines == 0,
		  "unmarked: not listed, no boosted task left",
		  "boosted %d, lines %d", boosted, lines);
}

/* The child's events as "event:reason ..." from the trace buffer. */
static void trace_story(pid_t pid, char *out, size_t len)
{
	FILE *f = fopen(TR "trace", "r");
	char line[512], ev[64], why[32], key[32];
	size_t off = 0;

	out[0] = 0;
	if (!f)
		return;
	snprintf(key, sizeof(key), " pid=%d ", pid);
	while (fgets(line, sizeof(line), f)) {
		char *e = strstr(line, " stayawake_"), *p = strstr(line, key);
		char *r = strstr(line, "reason=");

		if (!e || !p || !r || sscanf(e + 11, "%63[a-z]", ev) != 1 ||
		    sscanf(r + 7, "%31[a-z]", why) != 1)
			continue;
		off += snprintf(out + off, len - off, "%s%s:%s", off ? " " : "",
				ev, why);
		if (off >= len)
			break;
	}
	fclose(f);
}

static void check_trace(void)
{
	const char *want = "mark:user deboost:alarm reboost:alarm "
			   "deboost:timerfd reboost:timerfd deboost:alarm "
			   "reboost:signal unmark:exit";
	struct itimerspec its = { .it_value.tv_sec = 1 };
	char story[512];
	uint64_t ticks;
	pid_t pid;
	int st, fd;

	int go[2];
	char c;

	if (write_str(TR "events/stayawake/enable", "1"))
		tap_bail("cannot enable the stayawake trace events");
	if (pipe(go))
		tap_bail("pipe: %s", strerror(errno));
	trace_clear();
	write_str(TR "tracing_on", "1");

	pid = fork();
	if (!pid) {
		signal(SIGUSR1, on_usr1);
		stayawake_mark(0, true);
		alarm_sleep(CLOCK_BOOTTIME_ALARM, 1);
		fd = timerfd_create(CLOCK_REALTIME_ALARM, 0);
		timerfd_settime(fd, 0, &its, NULL);
		if (read(fd, &ticks, sizeof(ticks)) < 0 ||
		    write(go[1], "", 1) != 1)
			_exit(2);
		alarm_sleep(CLOCK_REALTIME_ALARM, 30);	/* ended by SIGUSR1 */
		_exit(0);				/* still marked */
	}
	/* The third sleep: the one after the timerfd read */
	if (read(go[0], &c, 1) != 1 || !wait_sleeping_state(pid, "deboosted", 5))
		tap_diag("child never deboosted in its last sleep");
	kill(pid, SIGUSR1);
	waitpid(pid, &st, 0);
	write_str(TR "events/stayawake/enable", "0");

	trace_story(pid, story, sizeof(story));
	tap_check(!strcmp(story, want),
		  "trace events tell the story with their reasons",
		  "%s", story);

	/* Marked once, unmarked, then exits: its exit is no event. */
	write_str(TR "events/stayawake/enable", "1");
	trace_clear();
	pid = fork();
	if (!pid) {
		stayawake_mark(0, true);
		stayawake_mark(0, false);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	write_str(TR "events/stayawake/enable", "0");
	trace_story(pid, story, sizeof(story));
	tap_check(!strcmp(story, "mark:user unmark:user"),
		  "an unmarked task's exit traces nothing", "%s", story);
}

/* Is a wakeup source named @name in /sys/class/wakeup? */
static bool class_wakeup_has(const char *name)
{
	char path[64], buf[64];
	int i, misses = 0;

	/* wakeupN ids are never reused; stop after a long run of gaps */
	for (i = 0; misses < 64; i++) {
		snprintf(path, sizeof(path), "/sys/class/wakeup/wakeup%d/name", i);
		if (!*read_line(path, buf, sizeof(buf))) {
			misses++;
			continue;
		}
		misses = 0;
		if (!strcmp(buf, name))
			return true;
	}
	return false;
}

/*
 * Every wakeup source of the series is where users look for one: the
 * shared boost, the alarm hold, and the hold of the RTC driver rtc0 uses.
 */
static void check_sources(void)
{
	static const char *const rtc_hold[][2] = {
		{ "rtc-pl031", "pl031_alarm" },
		{ "rtc_cmos", "rtc_cmos" },
	};
	const char *names[3] = { "stayawake", "alarmtimer", NULL };
	char rtc[64] = "", missing[128] = "";
	struct wakeup_stat st;
	size_t i;

	read_line("/sys/class/rtc/rtc0/name", rtc, sizeof(rtc));
	for (i = 0; i < sizeof(rtc_hold) / sizeof(rtc_hold[0]); i++)
		if (!strncmp(rtc, rtc_hold[i][0], strlen(rtc_hold[i][0])))
			names[2] = rtc_hold[i][1];
	for (i = 0; i < 3; i++)
		if (!names[i] || !class_wakeup_has(names[i]) ||
		    !wakeup_stat(names[i], &st))
			snprintf(missing + strlen(missing),
				 sizeof(missing) - strlen(missing), " %s",
				 names[i] ? names[i] : "(rtc0's driver?)");
	tap_check(!missing[0],
		  "the series' wakeup sources are in /sys/class/wakeup and debugfs",
		  "missing:%s (rtc0: %s)", missing, rtc);
}

int main(void)
{
	tap_init("visibility");
	check_release();
	check_sources();
	check_states();
	check_trace();
	return tap_done();
}
