// SPDX-License-Identifier: GPL-2.0
/*
 * The RTC core's work is queued with a hold on the RTC's parent device,
 * which the work drops when it has run unless it was queued again. A
 * queuer that has taken its hold but not yet queued the work must not let
 * the running work drop the hold for the run it is about to queue: that
 * run would then wait with nothing holding the system awake.
 *
 * The window is a few instructions wide; the test kernel's
 * /sys/kernel/debug/sched/stayawake_rtc_queue_delay_ms
 * (CONFIG_SCHED_STAYAWAKE_DEBUG) busy-waits inside it. Two processes set
 * the RTC's time over and over (rtc_set_time() queues the work after it
 * drops the RTC's lock, so the work can run in between). Witness: the
 * trace, on the boot clock: every workqueue_queue_work of
 * rtc_timer_do_work must come while the parent's wakeup source is active
 * (power:wakeup_source_activate/deactivate of its name).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/rtc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define DELAY_KNOB "/sys/kernel/debug/sched/stayawake_rtc_queue_delay_ms"
#define DELAY_MS "10"
#define SETTERS 2
#define SETS 100
#define TRACING "/sys/kernel/tracing/"

static const char *const events[] = {
	"events/power/wakeup_source_activate/",
	"events/power/wakeup_source_deactivate/",
	"events/workqueue/workqueue_queue_work/",
};

static pid_t main_pid, setter[SETTERS];

static int tracing(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "%s", file);
	return write_str(path, val);
}

static void event_set(const char *file, const char *val)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < sizeof(events) / sizeof(*events); i++) {
		snprintf(path, sizeof(path), "%s%s", events[i], file);
		tracing(path, val);
	}
}

/* The RTC from the system clock, which the sets do not move. */
static void rtc_restore(void)
{
	struct rtc_time tm;
	int fd = open("/dev/rtc0", O_RDONLY);

	rtc_time_of(time(NULL), &tm);
	if (fd >= 0) {
		ioctl(fd, RTC_SET_TIME, &tm);
		close(fd);
	}
}

static void teardown(void)
{
	int i;

	if (getpid() != main_pid)
		return;
	for (i = 0; i < SETTERS; i++)
		if (setter[i] > 0) {
			kill(setter[i], SIGKILL);
			waitpid(setter[i], NULL, 0);
			setter[i] = 0;
		}
	write_str(DELAY_KNOB, "0");
	tracing("tracing_on", "0");
	event_set("enable", "0");
	event_set("filter", "0");
	tracing("trace_clock", "local");
	rtc_restore();
}

/*
 * Set the time just read, SETS times; exits with 0 or the failed ioctl's
 * errno. /dev/rtc0 opens once at a time: the setters share one open.
 */
static void set_loop(int fd)
{
	struct rtc_time tm;
	int i;

	for (i = 0; i < SETS; i++)
		if (ioctl(fd, RTC_RD_TIME, &tm) || ioctl(fd, RTC_SET_TIME, &tm))
			_exit(errno);
	_exit(0);
}

struct replay {
	int queued;		/* workqueue_queue_work of rtc_timer_do_work */
	int unheld;		/* ... while the parent's source was inactive */
	int activations;
	double first_unheld;	/* boot clock, s */
	bool active_at_end;
};

/* The timestamp: the word before the event's name. */
static double event_ts(char *line)
{
	char *name = strstr(line, ": workqueue_queue_work"), *t;
	double ts = -1;

	if (!name)
		return ts;
	*name = 0;
	t = strrchr(line, ' ');
	if (t)
		sscanf(t, " %lf", &ts);
	return ts;
}

static void replay_trace(const char *parent, struct replay *r)
{
	FILE *f = fopen(TRACING "trace", "r");
	char line[512], act[192], deact[192];
	bool active = false;

	snprintf(act, sizeof(act), "wakeup_source_activate: %s ", parent);
	snprintf(deact, sizeof(deact), "wakeup_source_deactivate: %s ", parent);
	memset(r, 0, sizeof(*r));
	if (!f)
		tap_bail("cannot read the trace");
	while (fgets(line, sizeof(line), f)) {
		if (*line == '#')
			continue;
		if (strstr(line, act)) {
			active = true;
			r->activations++;
		} else if (strstr(line, deact)) {
			active = false;
		} else if (strstr(line, "function=rtc_timer_do_work")) {
			r->queued++;
			if (!active && !r->unheld++)
				r->first_unheld = event_ts(line);
		}
	}
	r->active_at_end = active;
	fclose(f);
}

int main(void)
{
	char parent[128], filter[192];
	struct wakeup_stat st;
	struct replay r;
	int i, fd, failed = 0, status, err = 0;

	tap_init("irqwork_race");
	main_pid = getpid();
	atexit(teardown);
	if (rtc_parent_name("rtc0", parent, sizeof(parent)))
		tap_bail("no parent device for rtc0: %s", strerror(errno));
	if (!wakeup_stat(parent, &st))
		tap_bail("the RTC's parent %s has no wakeup source", parent);
	if (write_str(DELAY_KNOB, "0"))
		tap_bail("%s: %s (CONFIG_SCHED_STAYAWAKE_DEBUG?)", DELAY_KNOB,
			 strerror(errno));
	/* Only the parent's holds; every queuing, to pick the RTC's out */
	snprintf(filter, sizeof(filter), "name == \"%s\"", parent);
	if (tracing("trace_clock", "boot") ||
	    tracing("buffer_size_kb", "4096") ||
	    tracing("events/power/wakeup_source_activate/filter", filter) ||
	    tracing("events/power/wakeup_source_deactivate/filter", filter))
		tap_bail("cannot set up the trace");
	wait_sources_idle();
	if (trace_clear())
		tap_bail("cannot clear the trace");
	event_set("enable", "1");
	tracing("tracing_on", "1");

	fd = open("/dev/rtc0", O_RDONLY);
	if (fd < 0)
		tap_bail("/dev/rtc0: %s", strerror(errno));
	write_str(DELAY_KNOB, DELAY_MS);
	for (i = 0; i < SETTERS; i++) {
		setter[i] = fork();
		if (setter[i] < 0)
			tap_bail("fork: %s", strerror(errno));
		if (!setter[i])
			set_loop(fd);
	}
	for (i = 0; i < SETTERS; i++) {
		waitpid(setter[i], &status, 0);
		setter[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			failed++;
			err = WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
		}
	}
	close(fd);
	write_str(DELAY_KNOB, "0");
	wait_sources_idle();
	tracing("tracing_on", "0");
	replay_trace(parent, &r);
	wakeup_stat(parent, &st);

	tap_check(!failed && r.queued >= SETS / 2 && r.activations > 0,
		  "the setters queued the rtc core's work with holds",
		  "%d of %d setters failed%s%s; %d queued, %s activated %d "
		  "times", failed, SETTERS, err ? ": " : "",
		  err ? strerror(err) : "", r.queued, parent, r.activations);
	if (r.unheld)
		tap_diag("first queued unheld at %.6f s (boot clock)",
			 r.first_unheld);
	tap_check(!r.unheld, "the work was never queued without a hold",
		  "%d of %d queued while %s was inactive", r.unheld, r.queued,
		  parent);
	tap_check(!r.active_at_end && !st.active_since_ms,
		  "the parent's hold ends when the work is done",
		  "%s active_since %llu ms", parent, st.active_since_ms);
	return tap_done();
}
