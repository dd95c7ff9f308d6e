// SPDX-License-Identifier: GPL-2.0
/*
 * Suspend refusal: while an important task runs, or blocks on a wait that is
 * not wakeup-capable (CLOCK_MONOTONIC sleep, pipe read), writing "mem" to
 * /sys/power/state fails with EBUSY and suspend_stats/success does not move.
 * Once the mark is cleared, an RTC alarm suspend succeeds.
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
	return tap_done();
}
