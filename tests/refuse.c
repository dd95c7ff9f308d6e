// SPDX-License-Identifier: GPL-2.0
/*
 * Suspend refusal: while an important task runs, or blocks on a wait that is
 * not wakeup-capable (CLOCK_MONOTONIC sleep, pipe read), writing "mem" to
 * /sys/power/state fails with EBUSY and suspend_stats/success does not move.
 * Once the mark is cleared, an RTC alarm suspend succeeds.
 *
 * A refusal must also end a wakeup_count check that user space armed (as
 * autosleep and suspend daemons do), like any aborted attempt does: else
 * the next plain suspend, with nothing marked, fails on the stale count.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

/* A marked child that blocks as told; the pipe says when it is blocking. */
static pid_t blocked_child(int how, int *hold)
{
	int ready[2], block[2];
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(block))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		struct timespec ts = { .tv_sec = 3600 };

		if (stayawake_mark(0, true))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		if (how == 0)
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
		else
			(void)!read(block[0], &c, 1);
		_exit(0);
	}
	if (read(ready[0], &c, 1) != 1)
		tap_bail("child did not start");
	close(ready[0]);
	close(ready[1]);
	close(block[0]);
	*hold = block[1];
	return pid;
}

static void on_usr1(int sig)
{
}

/*
 * A marked child deboosted in an alarm sleep; SIGUSR1 ends the sleep and
 * it then waits boosted in pause().
 */
static pid_t alarm_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_usr1 };
		struct timespec ts = { .tv_sec = 3600 };

		sigaction(SIGUSR1, &sa, NULL);
		if (stayawake_mark(0, true))
			_exit(2);
		clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		pause();
		_exit(0);
	}
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	return pid;
}

static void stale_count(void)
{
	struct alarm_suspend as;
	char count[32];
	bool armed;
	int err;
	pid_t pid;

	wait_sources_idle();
	pid = alarm_child();
	if (!wait_stayawake_state(pid, "deboosted"))
		tap_bail("the alarm sleeper never deboosted");
	/* Armed only while nothing is in progress: the sleeper holds nothing. */
	armed = read_line("/sys/power/wakeup_count", count, sizeof(count)) &&
		!write_str("/sys/power/wakeup_count", count);
	kill(pid, SIGUSR1);
	if (!wait_stayawake_state(pid, "boosted"))
		tap_bail("SIGUSR1 did not reboost the sleeper");
	err = write_str("/sys/power/state", "mem");
	tap_check(armed && err == -EBUSY,
		  "refused after user space armed wakeup_count",
		  "wakeup_count %s written: %s; write mem: %s", count,
		  armed ? "ok" : "refused", err ? strerror(-err) : "ok");
	/* Its exit ends the stayawake hold: an event after the saved count. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	wait_sources_idle();
	alarm_suspend(4, &as);
	tap_check(as.ok, "the refusal left no stale wakeup_count check",
		  "write: %s, success %ld->%ld, suspended %.2f s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9);
}

/* Wait (up to 10 s) until the child sleeps, so it really blocks. */
static void wait_sleeping(pid_t pid)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 10 * SEC_NS;

	while (!proc_sleeping(pid))
		if (clock_ns(CLOCK_MONOTONIC) > end)
			tap_bail("child %d never blocked", pid);
}

int main(void)
{
	struct alarm_suspend as;
	int hold;
	pid_t pid;

	tap_init("refuse");

	if (stayawake_mark(0, true))
		tap_bail("cannot mark: %s", strerror(errno));
	check_suspend_refused("refused while an important task runs");
	stayawake_mark(0, false);

	for (int how = 0; how < 2; how++) {
		pid = blocked_child(how, &hold);
		wait_sleeping(pid);
		check_suspend_refused(how ? "refused while it blocks on a pipe read" :
				      "refused while it sleeps on CLOCK_MONOTONIC");
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(hold);
	}

	alarm_suspend(4, &as);
	tap_check(as.ok, "suspends once no task is marked",
		  "write: %s, success %ld->%ld, suspended %.2f s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9);
	stale_count();
	return tap_done();
}
