// SPDX-License-Identifier: GPL-2.0
/*
 * rfc_scenario: the scenario of John Stultz's RFC "Proposal for optimistic
 * suspend idea" (https://lore.kernel.org/r/1317064434-1829-1-git-send-email-john.stultz@linaro.org),
 * played by a program of our own. As the cover letter describes it, a task
 * marks itself important with sched_setscheduler(0, SCHED_STAYAWAKE, ...)
 * and then does nothing special: it waits for input, sleeps on
 * CLOCK_BOOTTIME, sleeps on CLOCK_BOOTTIME_ALARM, and again. The system
 * must stay awake while it waits for input and while it sleeps on
 * CLOCK_BOOTTIME (neither is a wakeup-backed wait), and may suspend only
 * while it sleeps on the RTC-backed CLOCK_BOOTTIME_ALARM, whose alarm wakes
 * it boosted again.
 *
 * Each phase is identified without guessing: the child tells us through a
 * pipe which wait it is about to enter (and when), and we judge only once
 * the kernel shows it blocked in that very system call
 * (/proc/PID/syscall: its number and first argument, the fd or the clock)
 * and asleep; then StayAwake: in /proc/PID/status, the "stayawake" wakeup
 * source and a suspend attempt tell whether it holds the system.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define BOOTTIME_S 4
#define ALARM_S 6
#define PHASE_TIMEOUT_MS 15000
/* How much of the alarm sleep may pass awake: tests/platform/ARCH. */
#define SHORT_NS rtc_early_ns()

enum phase { INPUT = 'I', BOOTTIME = 'B', ALARM = 'A', WOKE = 'W' };

struct report {
	char phase;
	int64_t boot_ns;	/* CLOCK_BOOTTIME when it was sent */
};

static pid_t main_pid, child;

static void kill_child(void)
{
	if (getpid() == main_pid && child > 0)
		kill(child, SIGKILL);
}

static void say(int fd, char phase)
{
	struct report r = { .phase = phase, .boot_ns = clock_ns(CLOCK_BOOTTIME) };

	if (write(fd, &r, sizeof(r)) != sizeof(r))
		_exit(3);
}

/* The RFC's program, in our words: mark, then input, BOOTTIME, ALARM. */
static void scenario(int in, int out)
{
	struct sched_param p = { .sched_priority = 0 };
	char line[256];

	if (sched_setscheduler(0, SCHED_STAYAWAKE, &p))
		_exit(2);
	for (;;) {
		struct timespec boot = { .tv_sec = BOOTTIME_S };
		struct timespec alarm = { .tv_sec = ALARM_S };

		say(out, INPUT);
		if (read(in, line, sizeof(line)) <= 0)
			_exit(0);
		say(out, BOOTTIME);
		while (clock_nanosleep(CLOCK_BOOTTIME, 0, &boot, &boot) == EINTR)
			;
		say(out, ALARM);
		while (clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &alarm, &alarm) ==
		       EINTR)
			;
		say(out, WOKE);
	}
}

/* The child's next report, which must be @want; false on timeout. */
static bool expect(int fd, char want, struct report *r)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, PHASE_TIMEOUT_MS) != 1 ||
	    read(fd, r, sizeof(*r)) != sizeof(*r)) {
		tap_diag("no report from the child (waiting for '%c')", want);
		return false;
	}
	if (r->phase != want) {
		tap_diag("the child reported '%c', expected '%c'", r->phase, want);
		return false;
	}
	/* The report woke this observer, which borrows the child's boost
	 * (lending): give it back, or it would keep the system awake */
	give_back_loan();
	return true;
}

/*
 * Is @pid asleep in system call @nr with first argument @arg0? From
 * /proc/PID/syscall ("NR ARG0 ..." while blocked) and /proc/PID/stat.
 */
static bool blocked_in(pid_t pid, long nr, long arg0)
{
	char path[64];
	long n, a;
	FILE *f;
	int got;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	got = fscanf(f, "%ld %lx", &n, &a);
	fclose(f);
	return got == 2 && n == nr && a == arg0 && proc_sleeping(pid);
}

/* Wait up to 10 s for the child to block in @nr(@arg0, ...). */
static bool until_blocked(long nr, long arg0)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 10 * SEC_NS;

	while (!blocked_in(child, nr, arg0))
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return false;
		else
			usleep(1000);
	return true;
}

static const char *state(void)
{
	static char buf[32];

	return proc_stayawake(child, buf, sizeof(buf));
}

int main(void)
{
	int in[2], out[2], err;
	struct clock_pair c0, c1;
	struct report r;
	int64_t deadline;
	long s0, s1;
	bool ok;

	tap_init("rfc_scenario");
	main_pid = getpid();
	atexit(kill_child);
	if (pipe(in) || pipe(out))
		tap_bail("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		tap_bail("fork: %s", strerror(errno));
	if (child == 0) {
		close(in[1]);
		close(out[0]);
		scenario(in[0], out[1]);
	}
	close(in[0]);
	close(out[1]);

	/* 1. Marked, waiting for input: read(fd in[0]) and boosted. */
	ok = expect(out[0], INPUT, &r) && until_blocked(SYS_read, in[0]);
	tap_check(ok && sched_getscheduler(child) == SCHED_STAYAWAKE &&
		  !strcmp(state(), "boosted") && stayawake_source_active(),
		  "it marks itself and waits for input",
		  "policy %#x, StayAwake: %s, %s", sched_getscheduler(child),
		  state(), stayawake_source_str());
	check_suspend_refused("suspend refused while it waits for input");

	/* 2. Its CLOCK_BOOTTIME sleep: not a wakeup-backed wait. */
	if (write(in[1], "go\n", 3) != 3)
		tap_bail("write to the child: %s", strerror(errno));
	ok = expect(out[0], BOOTTIME, &r) &&
	     until_blocked(SYS_clock_nanosleep, CLOCK_BOOTTIME);
	tap_check(ok && !strcmp(state(), "boosted") && stayawake_source_active(),
		  "boosted in its CLOCK_BOOTTIME sleep", "StayAwake: %s, %s",
		  state(), stayawake_source_str());
	check_suspend_refused("suspend refused during the CLOCK_BOOTTIME sleep");

	/* 3. Its CLOCK_BOOTTIME_ALARM sleep: deboosted, the system suspends. */
	ok = expect(out[0], ALARM, &r) &&
	     until_blocked(SYS_clock_nanosleep, CLOCK_BOOTTIME_ALARM);
	deadline = r.boot_ns + ALARM_S * SEC_NS;
	tap_check(ok && !strcmp(state(), "deboosted") &&
		  !stayawake_source_active(),
		  "deboosted in its CLOCK_BOOTTIME_ALARM sleep", "StayAwake: %s, %s",
		  state(), stayawake_source_str());
	wait_sources_idle();
	s0 = suspend_success();
	clock_pair_read(&c0);
	err = write_str("/sys/power/state", "mem");
	clock_pair_read(&c1);
	s1 = suspend_success();
	/*
	 * Nothing else arms the RTC: only the child's alarm can end this
	 * suspend, and it lasts until then, but for SHORT_NS.
	 */
	tap_check(!err && s1 == s0 + 1 &&
		  clock_pair_suspended_ns(&c0, &c1) >= (deadline - c0.boot) - SHORT_NS,
		  "suspends until its alarm wakes it",
		  "write %s, success %ld->%ld, suspended %.2f s, resumed %.2f s "
		  "from the alarm's deadline", err ? strerror(-err) : "ok", s0, s1,
		  clock_pair_suspended_ns(&c0, &c1) / 1e9,
		  (c1.boot - deadline) / 1e9);

	/* 4. Woken by its alarm: boosted again, back waiting for input. */
	ok = expect(out[0], WOKE, &r) && r.boot_ns >= deadline &&
	     expect(out[0], INPUT, &r) && until_blocked(SYS_read, in[0]);
	tap_check(ok && !strcmp(state(), "boosted") && stayawake_source_active(),
		  "boosted again after its alarm", "StayAwake: %s, %s", state(),
		  stayawake_source_str());

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	child = 0;
	tap_check(!stayawake_source_active(), "idle once it is gone", "%s",
		  stayawake_source_str());
	return tap_done();
}
