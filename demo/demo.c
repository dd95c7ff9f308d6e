// SPDX-License-Identifier: GPL-2.0
/*
 * The RFC's scenario, played in the guest under /sys/power/autosleep: an
 * important task, an event loop, works, waits in epoll_wait on an alarm
 * timerfd and a pipe, the system suspends, the RTC wakes it, it works
 * again; an unimportant task runs meanwhile. Prints a
 * live timeline from the kernel's trace events, then the raw events
 * (lines starting "@ ") for demo/timeline.sh on the host.
 *
 * With sa.demo=key (make demo KEY=1) the set also holds the power key's
 * event device, and the host presses the key 2 s into the second sleep
 * (boot/host-requests.sh): the key wakes the system before the alarm, and
 * the worker reads it boosted.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/input.h>
#include <linux/sched.h>	/* SCHED_STAYAWAKE, from the patched tree */

#define TR "/sys/kernel/tracing/"
#define CYCLES 3
#define WORK_MS 1500
#define SLEEP_S 5
#define PRESS_S 2

static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void busy_ms(int ms)
{
	double end = now(CLOCK_MONOTONIC) + ms / 1000.0;

	while (now(CLOCK_MONOTONIC) < end)
		;
}

static void background(void)
{
	struct timespec nap = { .tv_nsec = 400 * 1000 * 1000 };

	prctl(PR_SET_NAME, "background");
	for (;;) {
		busy_ms(100);
		nanosleep(&nap, NULL);
	}
}

/* The first event device that has KEY_POWER, opened non-blocking; or -1 */
static int open_power_key(void)
{
	unsigned long bits[KEY_CNT / (8 * sizeof(long)) + 1];
	char path[32];
	int i, fd;

	for (i = 0; i < 32; i++) {
		snprintf(path, sizeof(path), "/dev/input/event%d", i);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd < 0)
			continue;
		memset(bits, 0, sizeof(bits));
		if (ioctl(fd, EVIOCGBIT(EV_KEY, sizeof(bits)), bits) >= 0 &&
		    bits[KEY_POWER / (8 * sizeof(long))] &
		    (1UL << (KEY_POWER % (8 * sizeof(long)))))
			return fd;
		close(fd);
	}
	return -1;
}

/* Whether the key's file held a press; tells the trace so (the timeline) */
static bool read_key(int key)
{
	struct input_event ev[16];
	bool down = false;
	ssize_t n;
	int i;

	while ((n = read(key, ev, sizeof(ev))) > 0)
		for (i = 0; i < n / (ssize_t)sizeof(*ev); i++)
			down |= ev[i].type == EV_KEY &&
				ev[i].code == KEY_POWER && ev[i].value == 1;
	if (down)
		put(TR "trace_marker", "stayawake-demo: worker read KEY_POWER");
	return down;
}

/* The event loop's one wait: until the alarm timerfd fires in @secs, or a
 * press of the power key (@key, if not -1) */
static void wait_alarm(int ep, int tfd, int key, int secs)
{
	struct itimerspec its = { .it_value = { .tv_sec = secs } };
	struct epoll_event ev;
	uint64_t ticks;

	timerfd_settime(tfd, 0, &its, NULL);
	for (;;) {
		/* Unmarked, the freezer ends it with EINTR: loops retry */
		if (epoll_wait(ep, &ev, 1, -1) != 1)
			continue;
		if (ev.data.fd == tfd &&
		    read(tfd, &ticks, sizeof(ticks)) == sizeof(ticks))
			return;
		if (ev.data.fd == key && read_key(key))
			return;
	}
}

/* Ask the host to press the power key @secs from now (a console line) */
static void press_key(int secs)
{
	char req[48];
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY);

	snprintf(req, sizeof(req), "\nSTAYAWAKE-HOST press-power %d\n", secs);
	if (fd < 0 || write(fd, req, strlen(req)) < 0)
		perror("demo: /dev/console");
	if (fd >= 0)
		close(fd);
}

static void worker(int cmd, int key)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sched_param sp = { 0 };
	int ep, tfd, i;

	prctl(PR_SET_NAME, "worker");
	/* As the RFC's test program sets it */
	if (sched_setscheduler(0, SCHED_OTHER | SCHED_STAYAWAKE, &sp)) {
		perror("demo: sched_setscheduler(SCHED_STAYAWAKE)");
		_exit(1);
	}
	/* One set: the alarm, and a command pipe nobody writes to */
	ep = epoll_create1(0);
	tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, TFD_NONBLOCK);
	ev.data.fd = tfd;
	if (ep < 0 || tfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &ev)) {
		perror("demo: alarm timerfd in epoll");
		_exit(1);
	}
	ev.data.fd = cmd;
	epoll_ctl(ep, EPOLL_CTL_ADD, cmd, &ev);
	ev.data.fd = key;
	if (key >= 0)
		epoll_ctl(ep, EPOLL_CTL_ADD, key, &ev);
	/* A first round with autosleep still off, for `stayawake list`. */
	wait_alarm(ep, tfd, -1, 2);
	busy_ms(1000);
	/* Marked first, so the system stays up until our first sleep. */
	if (put("/sys/power/autosleep", "mem"))
		perror("demo: /sys/power/autosleep");
	for (i = 0; i < CYCLES; i++) {
		busy_ms(WORK_MS);
		if (i == CYCLES - 1)
			break;
		/* The key midway: in the second sleep, before its alarm */
		if (key >= 0 && i == 1)
			press_key(PRESS_S);
		wait_alarm(ep, tfd, key, SLEEP_S);
	}
	/* Still marked: once we are gone nothing would wake the system. */
	put("/sys/power/autosleep", "off");
	_exit(0);
}

/* Wait (up to 5 s) until the worker's StayAwake: line says @state. */
static bool worker_is(pid_t wk, const char *state)
{
	char path[64], line[128], want[64];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/status", wk);
	snprintf(want, sizeof(want), "StayAwake:\t%s\n", state);
	for (i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		bool found = false;

		while (f && !found && fgets(line, sizeof(line), f))
			found = !strcmp(line, want);
		if (f)
			fclose(f);
		if (found)
			return true;
		usleep(10000);
	}
	return false;
}

static void show_list(const char *when)
{
	pid_t pid;

	printf("\n  $ stayawake list          # %s\n", when);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		execl("/bin/stayawake", "stayawake", "list", NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	putchar('\n');
	fflush(stdout);
}

/* Autosleep is still off: who keeps the system awake, as a person asks. */
static void preview(pid_t wk)
{
	if (worker_is(wk, "deboosted"))
		show_list("worker waits in epoll_wait on its alarm: not holding the system");
	if (worker_is(wk, "boosted"))
		show_list("worker works: holding the system awake");
}

/* One trace line as a person reads it; "" for lines we do not show. */
static bool suspended;

static void say(const char *line, double t0)
{
	const char *ev = strstr(line, ": "), *colon;
	char what[160] = "", name[64], comm[32], why[16];
	double ts;

	if (!ev)
		return;
	colon = ev;
	while (colon > line && colon[-1] != ' ')
		colon--;
	if (sscanf(colon, "%lf", &ts) != 1)
		return;
	ev += 2;
	if (sscanf(ev, "stayawake_%15[a-z]: comm=%31s pid=%*d reason=%15s",
		   name, comm, why) == 3) {
		snprintf(what, sizeof(what), "%-10s %-9s (%s)", comm,
			 !strcmp(name, "deboost") ? "deboosted" :
			 !strcmp(name, "unmark") ? "unmarked" : "boosted", why);
	} else if (strstr(ev, "machine_suspend") && strstr(ev, "begin") &&
		   !suspended) {
		/* s2idle may enter its idle loop more than once */
		suspended = true;
		snprintf(what, sizeof(what), "%-10s suspended", "system");
	} else if (strstr(ev, "dpm_resume_noirq") && strstr(ev, "begin")) {
		/* Not machine_suspend's end: on S3 the clock has not yet
		 * caught up with the sleep there. */
		suspended = false;
		snprintf(what, sizeof(what), "%-10s awake", "system");
	} else if (strstr(ev, "stayawake-demo: worker read KEY_POWER")) {
		snprintf(what, sizeof(what), "%-10s read KEY_POWER", "worker");
	} else if (sscanf(ev, "wakeup_source_activate: %63s", name) == 1 &&
		   strcmp(name, "autosleep")) {
		snprintf(what, sizeof(what), "%-10s %s", "wakeup", name);
	}
	if (what[0])
		printf("  %7.3f s   %s\n", ts - t0, what);
	fflush(stdout);
}

int main(void)
{
	static char buf[1 << 20];
	size_t used = 0, start = 0;
	double b0, m0, b1, m1, t0;
	int fd, st, cmd[2], key = -1;
	char cmdline[1024] = "";
	pid_t bg, wk;
	FILE *f;

	put(TR "tracing_on", "0");
	put(TR "trace_clock", "boot");	/* counts the suspended time too */
	put(TR "buffer_size_kb", "1024");
	put(TR "trace", "");
	put(TR "events/stayawake/enable", "1");
	put(TR "events/power/suspend_resume/enable", "1");
	put(TR "events/power/wakeup_source_activate/enable", "1");
	put(TR "events/power/wakeup_source_deactivate/enable", "1");
	put(TR "tracing_on", "1");
	fd = open(TR "trace_pipe", O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		perror("demo: " TR "trace_pipe");
		return 1;
	}

	f = fopen("/proc/cmdline", "r");
	if (f && !fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = 0;
	if (f)
		fclose(f);
	if (strstr(cmdline, "sa.demo=key")) {
		key = strstr(cmdline, "sa.host=qmp") ? open_power_key() : -1;
		printf(key < 0 ? "demo: no power key, or no host to press it: no key\n" :
		       "demo: the power key is in the worker's set; the host presses it "
		       "%d s into its second sleep\n", PRESS_S);
	}
	printf("stayawake demo: 'worker' is marked SCHED_STAYAWAKE and works %.1f s,\n"
	       "then waits %d s in epoll_wait on a CLOCK_BOOTTIME_ALARM timerfd and a\n"
	       "pipe, %d times, under autosleep;\n"
	       "'background' (not marked) works 100 ms in every 500 ms.\n"
	       "First one round with autosleep off, to ask who keeps the system awake.\n",
	       WORK_MS / 1000.0, SLEEP_S, CYCLES);
	fflush(stdout);
	t0 = b0 = now(CLOCK_BOOTTIME);
	m0 = now(CLOCK_MONOTONIC);
	bg = fork();
	if (!bg)
		background();
	if (pipe(cmd)) {
		perror("demo: pipe");
		return 1;
	}
	wk = fork();
	if (!wk)
		worker(cmd[0], key);
	preview(wk);
	printf("The kernel's trace, as it happens:\n\n"
	       "     time     who        state\n");
	fflush(stdout);

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		poll(&p, 1, 200);
		while (used < sizeof(buf) - 1 &&
		       (n = read(fd, buf + used, sizeof(buf) - 1 - used)) > 0)
			used += n;
		buf[used] = 0;
		/* Show the complete lines */
		while (start < used) {
			char *nl = strchr(buf + start, '\n');

			if (!nl)
				break;
			*nl = 0;
			say(buf + start, t0);
			*nl = '\n';
			start = nl + 1 - buf;
		}
		if (waitpid(wk, &st, WNOHANG) == wk)
			break;
	}
	b1 = now(CLOCK_BOOTTIME);
	m1 = now(CLOCK_MONOTONIC);
	kill(bg, SIGKILL);
	waitpid(bg, NULL, 0);
	put(TR "tracing_on", "0");

	printf("\nworker exited (status %d). In %.1f s the system was suspended "
	       "%.1f s (%.0f%%),\nby its own clocks: CLOCK_BOOTTIME ran on, "
	       "CLOCK_MONOTONIC stood still.\n", WEXITSTATUS(st), b1 - b0,
	       (b1 - b0) - (m1 - m0), 100 * ((b1 - b0) - (m1 - m0)) / (b1 - b0));
	printf("@ t0 %.6f\n", t0);
	for (start = 0; start < used;) {
		char *nl = strchr(buf + start, '\n');

		if (!nl)
			break;
		printf("@ %.*s\n", (int)(nl - buf - start), buf + start);
		start = nl + 1 - buf;
	}
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1;
}
