// SPDX-License-Identifier: GPL-2.0
/*
 * Input wakes the device. A marked task waits for the power key on its event
 * device in read(), poll() or epoll_wait(); the host presses the key
 * (boot/host-requests.sh answers the line "STAYAWAKE-HOST press-power N").
 * The key is found by the device its input device hangs off, which is also
 * the wakeup source its driver reports with (platform "input_key": virt's
 * gpio-keys on arm64, the ACPI power button LNXPWRBN:00 on x86_64 pc).
 *
 * - awake: nothing suspends. The reader is deboosted while it waits (its
 *   device may wake the system), and the key's wakeup boosts it again
 *   before it reads the key; the trace shows the reboost "input".
 * - suspend: a suspender runs. The system suspends in the wait, the key
 *   wakes it (the key's wakeup source counted it; BOOTTIME shows the wait
 *   ended within seconds of the press, far from the suspender's 20 s safety
 *   alarm), the reader reads KEY_POWER, and it is boosted again from the
 *   wait on: every request is refused while it handles the key. The trace
 *   shows the chain: the key's hold is taken, "stayawake" is taken while it
 *   is held, and the in-progress count stays above zero in between. Where
 *   the machine cannot wake from the key (platform "input_wake" says why)
 *   these cases skip, as data (tests/expected/skips-ARCH).
 * - With the key's power/wakeup disabled a marked reader stays boosted (a
 *   suspend is refused); an unmarked reader changes nothing (an alarm
 *   suspend works while it waits, and it still waits after).
 *
 * Nothing acts on KEY_POWER in our initramfs: the guest does not power off.
 * Without the host's helper (a board, a lab: no sa.host=qmp on the command
 * line) the cases that need a press skip with that reason.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TRACING "/sys/kernel/tracing/"
/* The host presses the key this long after our request */
#define PRESS_S 5
/* The wake is the key's if the wait ends this soon after the press */
#define WAKE_SLACK_S 3
/* A wait that no key ended by then fails; the suspender's alarm is at 20 s */
#define GIVE_UP_S 25

enum key_wait { KW_READ, KW_POLL, KW_EPOLL, KW_WAITS };

static const char *const wait_name[KW_WAITS] = { "read", "poll",
						  "epoll_wait" };
/* What the reboost says in the trace for each wait */
static const char *const reason[KW_WAITS] = { "reason=input", "reason=poll",
					       "reason=poll" };

static char dev_path[300];	/* /dev/input/eventN of the key */
static char wakeup_path[PATH_MAX + 16];	/* its parent's power/wakeup */
static char key_dev[64];	/* platform input_key */
static char no_key[128];	/* why there is no key to read, or "" */
static char no_press[128];	/* why no case can press the key, or "" */
static char no_wake[128];	/* why a press cannot wake, or "" */

/* The event device whose input device hangs off @parent */
static bool find_key(const char *parent)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct dirent *d;
	DIR *dir = opendir("/sys/class/input");
	bool found = false;
	ssize_t n;

	while (dir && !found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "event", 5))
			continue;
		snprintf(link, sizeof(link), "/sys/class/input/%s/device/device",
			 d->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		found = !strcmp(strrchr(target, '/') + 1, parent);
		if (found) {
			snprintf(dev_path, sizeof(dev_path), "/dev/input/%s",
				 d->d_name);
			snprintf(wakeup_path, sizeof(wakeup_path),
				 "%s/power/wakeup", link);
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

static bool host_helper(void)
{
	char buf[1024];

	return strstr(read_line("/proc/cmdline", buf, sizeof(buf)),
		      "sa.host=qmp") != NULL;
}

/*
 * Ask the host to press the key @secs from now, on a console line of its
 * own (our output is shown only once we are done), and give up a wait that
 * no press ends: a BOOTTIME timer, which counts time asleep (and fires at
 * the next wake, the suspender's alarm at the latest), signals us; the
 * handler sets gave_up, and the waits do not restart then.
 */
static volatile sig_atomic_t gave_up;
static timer_t give_up_timer;
static bool give_up_armed;

static void give_up(int sig)
{
	gave_up = 1;
}

static void press_key(int secs)
{
	struct sigaction sa = { .sa_handler = give_up };
	struct itimerspec its = { .it_value = { secs + GIVE_UP_S, 0 } };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGALRM };
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY);
	char req[64];
	int n = snprintf(req, sizeof(req), "\nSTAYAWAKE-HOST press-power %d\n",
			 secs);

	if (fd < 0 || write(fd, req, n) != n)
		tap_bail("cannot ask the host for a key press: %s",
			 strerror(errno));
	close(fd);
	gave_up = 0;
	sigaction(SIGALRM, &sa, NULL);
	if (!give_up_armed &&
	    timer_create(CLOCK_BOOTTIME, &sev, &give_up_timer))
		tap_bail("timer_create: %s", strerror(errno));
	give_up_armed = true;
	timer_settime(give_up_timer, 0, &its, NULL);
}

static void keep_waiting(void)
{
	struct itimerspec off = { { 0, 0 }, { 0, 0 } };

	timer_settime(give_up_timer, 0, &off, NULL);
}

/* Whether @n bytes of events at @ev hold a press of KEY_POWER */
static bool power_down(const struct input_event *ev, ssize_t n)
{
	bool down = false;
	int i;

	for (i = 0; i < n / (ssize_t)sizeof(*ev); i++)
		down |= ev[i].type == EV_KEY && ev[i].code == KEY_POWER &&
			ev[i].value == 1;
	return down;
}

/* Read what is queued on @fd (non-blocking); true if KEY_POWER went down. */
static bool drain(int fd, bool *down)
{
	struct input_event ev[16];
	int flags = fcntl(fd, F_GETFL);
	ssize_t n;

	fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	while ((n = read(fd, ev, sizeof(ev))) > 0)
		*down |= power_down(ev, n);
	fcntl(fd, F_SETFL, flags);
	return *down;
}

/*
 * Block until the key's device has events, through @w; the freezer may end
 * the poll family's waits with EINTR, and an event loop retries. A read
 * leaves its events in *down. 0 or an errno.
 */
static int wait_key(enum key_wait w, int fd, bool *down)
{
	struct epoll_event ee = { .events = EPOLLIN };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct input_event ev[16];
	int ep, n, err = 0;

	switch (w) {
	case KW_READ:
		do
			n = read(fd, ev, sizeof(ev));
		while (n < 0 && errno == EINTR && !gave_up);
		if (n < 0)
			return errno;
		*down |= power_down(ev, n);
		return 0;
	case KW_POLL:
		do
			n = poll(&p, 1, -1);
		while (n < 0 && errno == EINTR && !gave_up);
		return n == 1 ? 0 : n < 0 ? errno : EPROTO;
	default:
		ep = epoll_create1(0);
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ee))
			err = errno;
		while (!err && (n = epoll_wait(ep, &ee, 1, -1)) != 1)
			if (n >= 0 || errno != EINTR || gave_up)
				err = n < 0 ? errno : EPROTO;
		if (ep >= 0)
			close(ep);
		return err;
	}
}

static int open_key(void)
{
	int fd = open(dev_path, O_RDONLY);
	bool down = false;

	if (fd < 0)
		tap_bail("%s: %s", dev_path, strerror(errno));
	/* A press of an earlier case may still be queued */
	drain(fd, &down);
	return fd;
}

/* Wait for the release of a press (QEMU holds the key 100 ms), then read all */
static void settle(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	bool down = false;

	while (poll(&p, 1, 500) == 1 && drain(fd, &down))
		down = false;
}

static int tracing(const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "%s", file);
	return write_str(path, val);
}

static const char *const trace_events[] = {
	"events/power/wakeup_source_activate/enable",
	"events/power/wakeup_source_deactivate/enable",
	"events/stayawake/stayawake_reboost/enable",
	"events/power/suspend_resume/enable",
};

/*
 * Of the suspend's steps, only those chain_held() reads: every request the
 * suspender makes, refused or not, adds a suspend_enter, thousands a
 * second, and a full buffer drops its oldest events, the chain's.
 */
#define SUSPEND_STEPS "action == \"machine_suspend\" || action == \"thaw_processes\""

/* Tracing is off when a test starts (tap_teardown() of the one before) */
static void trace_on(bool on)
{
	unsigned int i;

	if (!on)
		tracing("tracing_on", "0");
	if (on && trace_clear())
		tap_bail("cannot clear the trace");
	if (tracing("events/power/suspend_resume/filter",
		    on ? SUSPEND_STEPS : "0") && on)
		tap_bail("cannot filter the suspend's steps");
	for (i = 0; i < sizeof(trace_events) / sizeof(*trace_events); i++)
		if (tracing(trace_events[i], on ? "1" : "0") && on)
			tap_bail("cannot enable %s", trace_events[i]);
	if (on && tracing("tracing_on", "1"))
		tap_bail("cannot switch tracing on");
}

/*
 * The chain in the trace: "stayawake" is taken (the reader boosted) while
 * the key's hold is held, with the in-progress count (the low 16 bits of
 * state=) above zero at every event from +KEY on; or in the resume of the
 * suspend the key woke, from the wake (machine_suspend ends) to the thaw,
 * where no other suspend can start: gpio-keys' resume reports a key that
 * is still down, which may come before its interrupt's replay. The boost
 * must be the key's: the reboost that follows says input or poll (not a
 * signal's, say). *story gets the events, for the witness.
 */
static bool chain_held(const char *key, char *story, size_t len)
{
	FILE *f = fopen(TRACING "trace", "r");
	char line[512], name[64];
	bool held = false, resuming = false, ok = false, boosted = false;
	long lost = trace_lost("");
	unsigned long state;
	size_t off = 0;

	/* A story with a gap proves nothing: say so, and fail */
	story[0] = 0;
	if (lost < 0)
		off = snprintf(story, len, " (no trace losses to read)");
	else if (lost)
		off = snprintf(story, len, " (the trace lost %ld events)", lost);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, ": wakeup_source_");
		char *r = strstr(line, ": stayawake_reboost:");
		bool act;

		if (*line == '#')
			continue;
		if (r && (r = strstr(r, "reason=")) && off < len)
			off += snprintf(story + off, len - off, " reboost:%.*s",
					(int)strcspn(r + 7, " \n"), r + 7);
		if (r) {
			ok |= boosted && (!strncmp(r, "reason=input", 12) ||
					  !strncmp(r, "reason=poll", 11));
			boosted = false;
		}
		if (strstr(line, ": machine_suspend[") && strstr(line, " end")) {
			resuming = true;
			if (off < len)
				off += snprintf(story + off, len - off, " wake(");
		}
		if (strstr(line, ": thaw_processes[") && strstr(line, "begin")) {
			resuming = false;
			if (off < len)
				off += snprintf(story + off, len - off, " )thaw");
		}
		if (!p)
			continue;
		p += strlen(": wakeup_source_");
		act = !strncmp(p, "activate", 8);
		if (sscanf(strchr(p, ' '), " %63s state=%lx", name,
			   &state) != 2)
			continue;
		if (off < len)
			off += snprintf(story + off, len - off, " %c%s/%lu",
					act ? '+' : '-', name, state & 0xffff);
		if (!strcmp(name, key))
			held = act;
		if (!(state & 0xffff))
			held = false;
		if (act && !strcmp(name, "stayawake"))
			boosted = held || resuming;
	}
	if (f)
		fclose(f);
	return ok && !lost;
}

/* A child that tells, by its exit status, whether @pid waits deboosted */
static pid_t watch_deboosted(pid_t pid)
{
	pid_t child;

	fflush(stdout);
	child = fork();
	if (child)
		return child;
	_exit(wait_sleeping_state(pid, "deboosted", 3) ? 0 : 1);
}

/* The trace's lines of the chain, for a case that failed */
static void show_trace(const char *key)
{
	const char *const words[] = { key, "stayawake", "machine_suspend[",
				      "thaw_processes[" };
	FILE *f = fopen(TRACING "trace", "r");
	char line[512];
	unsigned int i;
	int n = 0;

	while (f && n < 60 && fgets(line, sizeof(line), f)) {
		for (i = 0; i < sizeof(words) / sizeof(*words); i++)
			if (*line != '#' && strstr(line, words[i]))
				break;
		if (i == sizeof(words) / sizeof(*words))
			continue;
		line[strcspn(line, "\n")] = 0;
		tap_diag("%s", line);
		n++;
	}
	if (f)
		fclose(f);
}

/* No suspender: the reader deboosts in the wait, the key boosts it again */
static void awake_case(enum key_wait w)
{
	const char *name = wait_name[w];
	bool down = false, deboosted;
	int fd, err, reboosts, st;
	char state[32];
	pid_t watcher;

	const char *why = *no_key ? no_key : no_press;

	if (*why) {
		tap_skip(tap_case(name, "awake: deboosted in the wait"), why);
		tap_skip(tap_case(name, "awake: boosted when the key ends it"),
			 why);
		tap_skip(tap_case(name, "awake: read KEY_POWER"), why);
		return;
	}
	fd = open_key();
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	trace_on(true);
	watcher = watch_deboosted(getpid());
	press_key(PRESS_S);
	err = wait_key(w, fd, &down);
	keep_waiting();
	proc_stayawake(getpid(), state, sizeof(state));
	trace_on(false);
	reboosts = trace_count(reason[w]);
	waitpid(watcher, &st, 0);
	deboosted = WIFEXITED(st) && !WEXITSTATUS(st);
	if (w != KW_READ)
		drain(fd, &down);
	settle(fd);
	stayawake_mark(0, false);
	close(fd);

	tap_check(deboosted, tap_case(name, "awake: deboosted in the wait"),
		  "StayAwake of the waiting reader %s deboosted",
		  deboosted ? "was" : "was never");
	tap_check(!err && !strcmp(state, "boosted") && reboosts > 0,
		  tap_case(name, "awake: boosted when the key ends it"),
		  "%s, StayAwake %s, %d reboosts with %s in the trace",
		  err ? strerror(err) : "woke", state, reboosts, reason[w]);
	tap_check(down, tap_case(name, "awake: read KEY_POWER"),
		  "KEY_POWER %s", down ? "pressed" : "not seen");
}

static void suspend_skip(const char *name, const char *why)
{
	static const char *const what[] = {
		"suspend: suspended in the wait",
		"suspend: the key woke it",
		"suspend: boosted when the wait ended",
		"suspend: read KEY_POWER",
		"suspend: boosted while it handles the key",
		"suspend: the key's hold reached the reader",
	};
	unsigned int i;

	for (i = 0; i < sizeof(what) / sizeof(*what); i++)
		tap_skip(tap_case(name, what[i]), why);
}

static void suspend_case(enum key_wait w)
{
	const char *name = wait_name[w];
	struct wakeup_stat k0 = { 0 }, k1 = { 0 };
	struct clock_pair c0, c1;
	struct suspender sus;
	long s0, s1, s2, refused;
	int64_t slept, elapsed;
	char state[32], story[2048];
	bool down = false, chain;
	int fd, err;

	const char *why = *no_key ? no_key : *no_press ? no_press : no_wake;

	if (*why) {
		suspend_skip(name, why);
		return;
	}
	fd = open_key();
	wait_sources_idle();
	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	wakeup_stat(key_dev, &k0);
	trace_on(true);
	suspender_start(&sus);
	s0 = suspend_success();
	clock_pair_read(&c0);
	press_key(PRESS_S);
	err = wait_key(w, fd, &down);
	keep_waiting();
	clock_pair_read(&c1);
	proc_stayawake(getpid(), state, sizeof(state));
	if (w != KW_READ)
		drain(fd, &down);
	refused = suspender_work_window(&sus, 1, &s1, &s2);
	/* Stopped while still marked: nothing may suspend meanwhile */
	suspender_stop(&sus);
	trace_on(false);
	chain = chain_held(key_dev, story, sizeof(story));
	if (!chain)
		show_trace(key_dev);
	wakeup_stat(key_dev, &k1);
	settle(fd);
	stayawake_mark(0, false);
	close(fd);

	slept = clock_pair_suspended_ns(&c0, &c1);
	elapsed = c1.boot - c0.boot;
	tap_check(!err && s1 > s0 && slept > SEC_NS,
		  tap_case(name, "suspend: suspended in the wait"),
		  "%s, success %ld->%ld, suspended %.2f s",
		  err ? strerror(err) : "woke", s0, s1, slept / 1e9);
	tap_check(slept > SEC_NS && k1.event_count > k0.event_count &&
		  elapsed < (PRESS_S + WAKE_SLACK_S) * SEC_NS,
		  tap_case(name, "suspend: the key woke it"),
		  "%s events %lu->%lu, waited %.2f s (%.2f s suspended) for a press at %d s",
		  key_dev, k0.event_count, k1.event_count, elapsed / 1e9,
		  slept / 1e9, PRESS_S);
	tap_check(!strcmp(state, "boosted"),
		  tap_case(name, "suspend: boosted when the wait ended"),
		  "StayAwake %s", state);
	tap_check(down, tap_case(name, "suspend: read KEY_POWER"),
		  "KEY_POWER %s", down ? "pressed" : "not seen");
	tap_check(s2 == s1 && refused > 0,
		  tap_case(name, "suspend: boosted while it handles the key"),
		  "success %ld->%ld while %ld requests were refused", s1, s2,
		  refused);
	tap_check(chain, tap_case(name, "suspend: the key's hold reached the reader"),
		  "%s", *story ? story + 1 : "no wakeup source event");
}

/*
 * A child that marks itself if @marked and waits in @w until KEY_POWER goes
 * down: other keys, such as the KEY_WAKEUP an ACPI power button may report
 * on resume, do not end its wait.
 */
static pid_t reader(bool marked, enum key_wait w)
{
	bool down = false;
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	fd = open_key();
	if (marked && stayawake_mark(0, true))
		_exit(2);
	while (!down) {
		if (wait_key(w, fd, &down))
			_exit(1);
		if (w != KW_READ)
			drain(fd, &down);
	}
	_exit(0);
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The key may not wake the system: its marked reader keeps it awake */
static void nowake_case(enum key_wait w)
{
	const char *name = wait_name[w];
	char was[16], state[32];
	bool asleep;
	pid_t pid;

	if (*no_key) {
		tap_skip(tap_case(name, "wakeup disabled: the reader waits boosted"),
			 no_key);
		tap_skip(tap_case(name, "wakeup disabled: a suspend is refused"),
			 no_key);
		return;
	}
	read_line(wakeup_path, was, sizeof(was));
	if (write_str(wakeup_path, "disabled"))
		tap_bail("cannot write %s", wakeup_path);
	pid = reader(true, w);
	asleep = wait_sleeping_state(pid, "boosted", 3);
	proc_stayawake(pid, state, sizeof(state));
	tap_check(asleep, tap_case(name, "wakeup disabled: the reader waits boosted"),
		  "StayAwake %s", state);
	check_suspend_refused(tap_case(name,
				       "wakeup disabled: a suspend is refused"));
	stop(pid);
	write_str(wakeup_path, was);
}

/* An unmarked reader: nothing of ours is in play */
static void unmarked_case(void)
{
	char state[32];
	bool waits;
	pid_t pid;

	if (*no_key) {
		tap_skip("unmarked reader: waits in read, not marked", no_key);
		tap_skip("unmarked reader: an alarm suspend works", no_key);
		tap_skip("unmarked reader: still waits for a key after it",
			 no_key);
		return;
	}
	pid = reader(false, KW_READ);
	waits = wait_blocked_in(pid, SYS_read, 5);
	proc_stayawake(pid, state, sizeof(state));
	tap_check(waits && !strcmp(state, "off"),
		  "unmarked reader: waits in read, not marked", "StayAwake %s",
		  state);
	check_alarm_suspend("unmarked reader: an alarm suspend works", 3);
	tap_check(wait_blocked_in(pid, SYS_read, 5),
		  "unmarked reader: still waits for a key after it",
		  "state %c", proc_state(pid));
	stop(pid);
}

int main(void)
{
	int w;

	tap_init("input");
	snprintf(key_dev, sizeof(key_dev), "%s", platform("input_key"));
	snprintf(no_wake, sizeof(no_wake), "%s", platform("input_wake"));
	if (!strcmp(no_wake, "-"))
		no_wake[0] = 0;
	if (!find_key(key_dev))
		snprintf(no_key, sizeof(no_key),
			 "no input device hangs off %s", key_dev);
	if (!host_helper())
		snprintf(no_press, sizeof(no_press),
			 "no host presses the key (no sa.host=qmp)");
	tap_diag("key: %s (%s), wakeup %s", dev_path, key_dev, wakeup_path);
	for (w = 0; w < KW_WAITS; w++) {
		awake_case(w);
		suspend_case(w);
		nowake_case(w);
	}
	unmarked_case();
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	return tap_done();
}
