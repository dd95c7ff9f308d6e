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
	struct clock_pair c0, c1;
	int hold, err;
	long s0, s1;
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

	s0 = suspend_success();
	clock_pair_read(&c0);
	err = rtc_arm_alarm(4);
	if (!err)
		err = write_str("/sys/power/state", "mem");
	clock_pair_read(&c1);
	s1 = suspend_success();
	tap_check(!err && s1 == s0 + 1, "suspends once no task is marked",
		  "success %ld->%ld, suspended %.2f s", s0, s1,
		  clock_pair_suspended_ns(&c0, &c1) / 1e9);
	return tap_done();
}
