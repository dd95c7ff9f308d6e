// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input and security: SCHED_STAYAWAKE combined with every other policy
 * and flag, invalid parameters and pids get a clean error and change
 * nothing; a user without CAP_BLOCK_SUSPEND cannot block suspend by any
 * route nor touch another user's tasks. Tests api covers the basics.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"

#define NOBODY 65534

static int marked(pid_t pid)
{
	int pol = sched_getscheduler(pid);

	return pol < 0 ? -1 : !!(pol & SCHED_STAYAWAKE);
}

static int setsched(pid_t pid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(pid, policy, &sp) ? errno : 0;
}

static int setattr(pid_t pid, struct sched_attr *a)
{
	return sys_sched_setattr(pid, a, 0) ? errno : 0;
}

/* Mark with another policy, read both back, go back to SCHED_OTHER. */
static void with_policy(int policy, int prio, const char *name)
{
	int r = setsched(0, policy | SCHED_STAYAWAKE, prio);
	int pol = sched_getscheduler(0);

	tap_check(!r && (pol & ~SCHED_STAYAWAKE) == policy &&
		  (pol & SCHED_STAYAWAKE),
		  name, "errno %d, policy %#x", r, pol);
	setsched(0, SCHED_OTHER, 0);
}

static void combinations(void)
{
	struct sched_attr dl = {
		.size = sizeof(dl), .sched_policy = SCHED_DEADLINE,
		.sched_flags = SCHED_FLAG_STAYAWAKE,
		.sched_runtime = 20000000, .sched_deadline = 10000000,
		.sched_period = 10000000,
	};
	struct sched_attr keep = {
		.size = sizeof(keep), .sched_policy = SCHED_OTHER,
		.sched_flags = SCHED_FLAG_KEEP_PARAMS | SCHED_FLAG_STAYAWAKE,
	};
	struct sched_attr tiny = { .size = 1,
				   .sched_flags = SCHED_FLAG_STAYAWAKE };
	struct sched_param sp = { 0 };
	int r, st;
	pid_t pid;

	with_policy(SCHED_FIFO, 1, "with SCHED_FIFO: marked, policy kept");
	with_policy(SCHED_RR, 1, "with SCHED_RR: marked, policy kept");
	with_policy(SCHED_BATCH, 0, "with SCHED_BATCH: marked, policy kept");
	with_policy(SCHED_IDLE, 0, "with SCHED_IDLE: marked, policy kept");

	r = setsched(0, SCHED_FIFO | SCHED_STAYAWAKE, 100);
	tap_check(r == EINVAL && marked(0) == 0,
		  "with an invalid SCHED_FIFO priority: EINVAL, not marked",
		  "errno %d, marked %d", r, marked(0));
	r = setattr(0, &dl);
	tap_check(r == EINVAL && marked(0) == 0 &&
		  sched_getscheduler(0) == SCHED_OTHER,
		  "with SCHED_DEADLINE runtime > deadline: EINVAL, unchanged",
		  "errno %d, policy %#x", r, sched_getscheduler(0));
	r = setattr(0, &tiny);
	tap_check((r == E2BIG || r == EINVAL) && marked(0) == 0,
		  "sched_attr of size 1: refused, not marked", "errno %d", r);

	r = setsched(0, SCHED_OTHER | SCHED_RESET_ON_FORK | SCHED_STAYAWAKE, 0);
	tap_check(!r && sched_getscheduler(0) ==
		  (SCHED_OTHER | SCHED_RESET_ON_FORK | SCHED_STAYAWAKE),
		  "with SCHED_RESET_ON_FORK: both reported", "policy %#x",
		  sched_getscheduler(0));
	pid = fork();
	if (!pid)
		_exit(sched_getscheduler(0) == SCHED_OTHER ? 0 : 1);
	waitpid(pid, &st, 0);
	tap_check(WIFEXITED(st) && !WEXITSTATUS(st),
		  "... and a fork child has neither", "status %d", st);

	r = sched_setparam(0, &sp) ? errno : 0;
	tap_check(!r && marked(0) == 1, "sched_setparam keeps the mark",
		  "errno %d, marked %d", r, marked(0));
	setsched(0, SCHED_OTHER, 0);

	r = setattr(0, &keep);
	tap_check(!r && marked(0) == 1,
		  "SCHED_FLAG_KEEP_PARAMS with the flag marks", "errno %d", r);
	keep.sched_flags = SCHED_FLAG_KEEP_PARAMS;
	r = setattr(0, &keep);
	tap_check(!r && marked(0) == 0, "... and without it unmarks",
		  "errno %d, marked %d", r, marked(0));
}

static void bad_pids(void)
{
	pid_t dead = fork();
	int r1, r2;

	if (!dead)
		_exit(0);
	waitpid(dead, NULL, 0);
	r1 = setsched(-1, SCHED_OTHER | SCHED_STAYAWAKE, 0);
	r2 = setsched(dead, SCHED_OTHER | SCHED_STAYAWAKE, 0);
	tap_check(r1 == EINVAL && r2 == ESRCH && !stayawake_source_active(),
		  "negative pid EINVAL, dead pid ESRCH, nothing held",
		  "errno %d, %d; %s", r1, r2, stayawake_source_str());
}

/* As nobody: every route to blocking suspend is closed. */
static int unprivileged(pid_t root_task)
{
	int fails = 0, r;

	if (setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return 100;
	r = setsched(0, SCHED_OTHER | SCHED_STAYAWAKE, 0);
	fails += r != EPERM;
	r = setsched(root_task, SCHED_OTHER | SCHED_STAYAWAKE, 0);
	fails += (r != EPERM) << 1;
	r = setsched(root_task, SCHED_OTHER, 0);	/* unmark root's */
	fails += (r != EPERM) << 2;
	fails += (write_str("/sys/power/wake_lock", "nobody") != -EACCES) << 3;
	fails += (write_str("/sys/power/state", "mem") != -EACCES) << 4;
	fails += (write_str("/sys/power/autosleep", "mem") != -EACCES) << 5;
	return fails;
}

static void security(void)
{
	pid_t root_task, pid;
	int st;

	/* A marked root task, asleep on a pipe: boosted. */
	root_task = fork();
	if (!root_task) {
		stayawake_mark(0, true);
		pause();
		_exit(0);
	}
	while (marked(root_task) != 1)
		usleep(1000);
	pid = fork();
	if (!pid)
		_exit(unprivileged(root_task));
	waitpid(pid, &st, 0);
	tap_check(WIFEXITED(st) && !WEXITSTATUS(st),
		  "nobody: cannot mark itself or root's task, nor unmark it, "
		  "nor write wake_lock, state or autosleep",
		  "failed checks mask %#x", WEXITSTATUS(st));
	tap_check(marked(root_task) == 1, "root's task is still marked",
		  "marked %d", marked(root_task));
	kill(root_task, SIGKILL);
	waitpid(root_task, NULL, 0);
	tap_check(!stayawake_source_active(), "nothing held at the end", "%s",
		  stayawake_source_str());
}

int main(void)
{
	tap_init("badinput");
	combinations();
	bad_pids();
	security();
	return tap_done();
}
