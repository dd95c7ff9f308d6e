// SPDX-License-Identifier: GPL-2.0
/*
 * The RFC's own userland test program (tests/rfc/suspend-block-test.c),
 * built unmodified, still works: it marks itself, keeps the system awake
 * while it waits for input and while it sleeps on CLOCK_BOOTTIME, and lets it
 * suspend while it sleeps on CLOCK_BOOTTIME_ALARM, whose alarm wakes it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define PROG "/tests/suspend-block-test"

static bool sleeping(pid_t pid)
{
	return proc_sleeping(pid);
}

/* Poll the kernel's view (up to limit_s) until cond(pid) holds. */
static bool until(bool (*cond)(pid_t), pid_t pid, int limit_s)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + limit_s * SEC_NS;

	while (!cond(pid))
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return false;
	return true;
}

static bool marked(pid_t pid)
{
	return sched_getscheduler(pid) == SCHED_STAYAWAKE;
}

static bool deboosted(pid_t pid)
{
	return sleeping(pid) && !stayawake_source_active();
}

static bool boosted(pid_t pid)
{
	return stayawake_source_active();
}

int main(void)
{
	struct clock_pair c0, c1;
	int in[2], out[2], err;
	bool ok;
	long s0, s1;
	pid_t pid;

	tap_init("rfc_program");
	if (access(PROG, X_OK))
		tap_bail("%s missing", PROG);
	if (pipe(in) || pipe(out))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(PROG, PROG, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);

	ok = until(marked, pid, 10) && until(sleeping, pid, 10);
	tap_check(ok, "it marks itself and waits for input", "policy %#x",
		  sched_getscheduler(pid));
	check_suspend_refused("suspend refused while it waits for input");

	if (write(in[1], "go\n", 3) != 3)
		tap_bail("write to the program: %s", strerror(errno));
	ok = until(sleeping, pid, 10) && stayawake_source_active();
	tap_check(ok, "boosted in its CLOCK_BOOTTIME sleep", "%s",
		  stayawake_source_str());
	check_suspend_refused("suspend refused during the CLOCK_BOOTTIME sleep");

	ok = until(deboosted, pid, 20);
	tap_check(ok, "deboosted in its BOOTTIME_ALARM sleep", "%s",
		  stayawake_source_str());
	s0 = suspend_success();
	clock_pair_read(&c0);
	err = write_str("/sys/power/state", "mem");
	clock_pair_read(&c1);
	s1 = suspend_success();
	tap_check(!err && s1 == s0 + 1 && clock_pair_suspended_ns(&c0, &c1) > 5 * SEC_NS,
		  "suspends until the program's alarm wakes it",
		  "success %ld->%ld, suspended %.2f s", s0, s1,
		  clock_pair_suspended_ns(&c0, &c1) / 1e9);
	/* The RTC counts seconds: it may wake us a little before the alarm. */
	ok = until(boosted, pid, 3);
	tap_check(ok, "boosted again after its alarm", "%s",
		  stayawake_source_str());

	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	tap_check(!stayawake_source_active(), "idle once it is gone", "%s",
		  stayawake_source_str());
	return tap_done();
}
