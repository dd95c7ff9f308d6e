// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_STAYAWAKE API: set and clear through sched_setscheduler() and
 * sched_setattr(), both getters, another pid, CAP_BLOCK_SUSPEND (needed only
 * to go from unmarked to marked; tests abi covers the round-trips), junk bits,
 * fork, exec, exit, kernel threads. Witnesses: the getters and the
 * "stayawake" wakeup source in /sys/kernel/debug/wakeup_sources; for fork
 * and exec also /proc/PID/status StayAwake: and a refused "mem": an exec'd
 * marked task still holds the system, a fork child adds no hold.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"

static int getflags(pid_t pid)
{
	struct sched_attr a = { .size = sizeof(a) };

	if (sys_sched_getattr(pid, &a, sizeof(a), 0))
		return -1;
	return a.sched_flags;
}

static int setattr(pid_t pid, int policy, unsigned long long flags)
{
	struct sched_attr a = {
		.size = sizeof(a),
		.sched_policy = policy,
		.sched_flags = flags,
	};

	return sys_sched_setattr(pid, &a, 0) ? -errno : 0;
}

static int mark(pid_t pid, bool on)
{
	return stayawake_mark(pid, on) ? -errno : 0;
}

/* A child that waits until killed; returns its pid. */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Run fn in a child; its exit status is the result (0 = yes). */
static int in_child(int (*fn)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int child_marked_after_fork(void)
{
	return sched_getscheduler(0) & SCHED_STAYAWAKE ? 1 : 0;
}

/* sched_getattr, the flag cleared, sched_setattr without KEEP flags. */
static int unmark_attr(pid_t pid)
{
	struct sched_attr a = { .size = sizeof(a) };

	if (sys_sched_getattr(pid, &a, sizeof(a), 0))
		return -errno;
	a.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
	return sys_sched_setattr(pid, &a, 0) ? -errno : 0;
}

/*
 * Without CAP_BLOCK_SUSPEND a task may restate its own mark and clear it;
 * only going from unmarked to marked needs the capability.
 */
static int child_without_cap(void)
{
	if (mark(0, true))
		return 2;	/* setup: could not mark itself */
	if (drop_cap(CAP_BLOCK_SUSPEND))
		return 3;
	if (mark(0, true))
		return 4;	/* restating the mark must not need it */
	if (setattr(0, 0, SCHED_FLAG_KEEP_ALL | SCHED_FLAG_STAYAWAKE))
		return 5;
	if (!(sched_getscheduler(0) & SCHED_STAYAWAKE))
		return 6;
	if (mark(0, false))
		return 7;	/* nor clearing it */
	if (sched_getscheduler(0) & SCHED_STAYAWAKE)
		return 8;
	if (mark(0, true) != -EPERM)
		return 9;	/* setting it again must */
	return sched_getscheduler(0) & SCHED_STAYAWAKE ? 10 : 0;
}

/*
 * A marked child execs this program, which reports its mark and waits: the
 * exec'd task still holds the system, and its exit lets go.
 */
static void test_exec(const char *self)
{
	int rep[2], st;
	char c = 0, fd[16], sa[16];
	pid_t pid;

	if (pipe(rep))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(rep[0]);
		if (mark(0, true))
			_exit(2);
		snprintf(fd, sizeof(fd), "%d", rep[1]);
		execl(self, self, "--report-marked", fd, (char *)NULL);
		_exit(3);
	}
	close(rep[1]);
	if (read(rep[0], &c, 1) != 1)
		c = 0;
	close(rep[0]);
	tap_check(c == 'y', "mark kept across exec",
		  "exec'd child reported '%c'", c ? c : '-');
	proc_stayawake(pid, sa, sizeof(sa));
	tap_check(!strcmp(sa, "boosted") && stayawake_source_active(),
		  "exec'd marked task is boosted", "StayAwake: %s, %s", sa,
		  stayawake_source_str());
	check_suspend_refused("exec'd marked task: mem refused");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	tap_check(!stayawake_source_active(), "exec'd task's exit drops the hold",
		  "%s", stayawake_source_str());
}

int main(int argc, char **argv)
{
	struct wakeup_stat w0, w1;
	int r, pol;
	pid_t c;

	if (argc > 2 && !strcmp(argv[1], "--report-marked")) {
		int fd = atoi(argv[2]);

		if (write(fd, sched_getscheduler(0) == SCHED_STAYAWAKE ?
			  "y" : "n", 1) != 1)
			return 1;
		close(fd);
		for (;;)
			pause();
	}

	tap_init("api");
	if (!wakeup_stat("stayawake", &w0))
		tap_bail("no 'stayawake' wakeup source: kernel without SCHED_STAYAWAKE?");

	pol = sched_getscheduler(0);
	tap_check(pol == SCHED_OTHER, "unmarked at start", "policy %#x", pol);
	tap_check(!stayawake_source_active(), "source idle with no marked task", "%s",
		  stayawake_source_str());

	r = mark(0, true);
	pol = sched_getscheduler(0);
	tap_check(!r && pol == (SCHED_OTHER | SCHED_STAYAWAKE),
		  "sched_setscheduler(SCHED_STAYAWAKE) marks", "ret %d, policy %#x",
		  r, pol);
	wakeup_stat("stayawake", &w1);
	tap_check(stayawake_source_active() &&
		  w1.active_count == w0.active_count + 1,
		  "stayawake source active while marked",
		  "active_count %lu->%lu", w0.active_count, w1.active_count);
	r = getflags(0);
	tap_check(r >= 0 && (r & SCHED_FLAG_STAYAWAKE), "sched_getattr reports the flag",
		  "sched_flags %#x", r);

	r = mark(0, false);
	pol = sched_getscheduler(0);
	tap_check(!r && pol == SCHED_OTHER && !stayawake_source_active(),
		  "sched_setscheduler(SCHED_OTHER) clears", "policy %#x", pol);

	/* sched_setattr: the flag alone, keeping policy and parameters. */
	setattr(0, SCHED_BATCH, 0);
	r = setattr(0, 0, SCHED_FLAG_KEEP_ALL | SCHED_FLAG_STAYAWAKE);
	pol = sched_getscheduler(0);
	tap_check(!r && pol == (SCHED_BATCH | SCHED_STAYAWAKE) &&
		  stayawake_source_active(),
		  "sched_setattr(KEEP_ALL | STAYAWAKE) sets, policy kept",
		  "ret %d, policy %#x", r, pol);
	r = setattr(0, 0, SCHED_FLAG_KEEP_ALL);
	pol = sched_getscheduler(0);
	tap_check(!r && pol == (SCHED_BATCH | SCHED_STAYAWAKE) &&
		  stayawake_source_active(),
		  "sched_setattr(KEEP_ALL) without the flag keeps the mark",
		  "ret %d, policy %#x", r, pol);
	r = unmark_attr(0);
	pol = sched_getscheduler(0);
	tap_check(!r && pol == SCHED_BATCH && !stayawake_source_active(),
		  "sched_getattr, flag cleared, sched_setattr: clears, policy kept",
		  "ret %d, policy %#x", r, pol);
	setattr(0, SCHED_OTHER, 0);

	/* Junk. */
	{
		struct sched_param sp = { 0 };

		r = sched_setscheduler(0, SCHED_OTHER | 0x01000000, &sp) ? errno : 0;
		tap_check(r == EINVAL, "partial SCHED_STAYAWAKE bits are EINVAL",
			  "errno %d", r);
		r = setattr(0, SCHED_OTHER, SCHED_FLAG_ALL + 1);
		tap_check(r == -EINVAL, "unknown sched_setattr flag is EINVAL",
			  "ret %d", r);
		r = mark(2, true);
		tap_check(r == -EINVAL, "a kernel thread cannot be marked",
			  "kthreadd: ret %d", r);
		tap_check(!(sched_getscheduler(0) & SCHED_STAYAWAKE) &&
			  !stayawake_source_active(), "junk changed nothing", "%s",
			  stayawake_source_str());
	}

	/* Another task, by pid. */
	c = idle_child();
	r = mark(c, true);
	pol = sched_getscheduler(c);
	tap_check(!r && (pol & SCHED_STAYAWAKE) &&
		  !(sched_getscheduler(0) & SCHED_STAYAWAKE) &&
		  stayawake_source_active(),
		  "marks the target pid, not the caller", "child policy %#x", pol);
	reap(c);
	tap_check(!stayawake_source_active(), "exit of a marked task drops its hold",
		  "%s", stayawake_source_str());

	/* fork: the child starts unmarked, and holds nothing. */
	mark(0, true);
	r = in_child(child_marked_after_fork);
	tap_check(r == 0, "fork child is not marked", "child status %d", r);
	c = idle_child();
	{
		char sa[16];

		proc_stayawake(c, sa, sizeof(sa));
		mark(0, false);
		tap_check(!strcmp(sa, "off") && !stayawake_source_active(),
			  "fork child adds no hold",
			  "child's StayAwake: %s; parent unmarked, child alive: %s",
			  sa, stayawake_source_str());
	}
	reap(c);

	test_exec(argv[0]);

	r = in_child(child_without_cap);
	tap_check(r == 0,
		  "without CAP_BLOCK_SUSPEND: restate and clear work, set EPERM",
		  "child status %d", r);

	tap_check(!stayawake_source_active(), "source idle at the end", "%s",
		  stayawake_source_str());
	return tap_done();
}
