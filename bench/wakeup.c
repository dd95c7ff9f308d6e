// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeup-path micro benchmarks, run in the guest: pipe ping-pong (plain
 * reads, or each read after a poll() or an epoll_wait() on the pipe) and
 * futex ping-pong between two processes, and a hackbench-style many-to-many
 * pipe run. Each prints "BENCH name tasks ns_per_op" from CLOCK_MONOTONIC,
 * which counts instructions when QEMU runs with -icount. The tasks are
 * "unmarked" while nothing was ever marked since boot (the hooks' static key
 * is off), "bystander": unmarked while another task is marked (key on),
 * "marked": the parent SCHED_STAYAWAKE without lending (it never deboosts
 * on these waits), its children unmarked; "lending": the same, the
 * children borrowing its boost (a loan at each wakeup, given back at each
 * wait).
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>	/* SCHED_STAYAWAKE, from the patched tree */
/* The uapi struct sched_param clashes with glibc's: take only sched_attr */
#define sched_param __uapi_sched_param
#include <linux/sched/types.h>
#undef sched_param

#define ROUNDS 20000
#define HB_GROUPS 4		/* hackbench: senders = receivers per group */
#define HB_MSGS 400

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

enum tasks { UNMARKED, BYSTANDER, MARKED, LENDING };
static const char *const tasks_name[] = {
	"unmarked", "bystander", "marked", "lending",
};

/* MARKED lends nothing (SCHED_FLAG_STAYAWAKE_NOLEND); LENDING lends its
 * boost to the unmarked partner, which gives it back at each wait */
static void mark(int tasks)
{
	struct sched_attr a = { .size = sizeof(a) };

	if (tasks < MARKED)
		return;
	a.sched_flags = SCHED_FLAG_STAYAWAKE |
			(tasks == MARKED ? SCHED_FLAG_STAYAWAKE_NOLEND : 0);
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		perror("bench: SCHED_FLAG_STAYAWAKE");
		exit(1);
	}
}

enum wait_by { BY_READ, BY_POLL, BY_EPOLL };

/* Block until @fd is readable by @by (@ep: an epoll set holding it), then
 * read one byte */
static int take(int fd, enum wait_by by, int ep, char *c)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct epoll_event ev;

	if (by == BY_POLL && poll(&p, 1, -1) != 1)
		return -1;
	if (by == BY_EPOLL && epoll_wait(ep, &ev, 1, -1) != 1)
		return -1;
	return read(fd, c, 1) == 1 ? 0 : -1;
}

static int epoll_on(int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
		exit(1);
	return ep;
}

static double pingpong_by(int tasks, enum wait_by by)
{
	int a[2], b[2], i, ep;
	int64_t t0;
	char c = 0;
	pid_t pid;

	if (pipe(a) || pipe(b))
		exit(1);
	mark(tasks);
	pid = fork();
	if (!pid) {
		ep = by == BY_EPOLL ? epoll_on(a[0]) : -1;
		for (i = 0; i < ROUNDS; i++)
			if (take(a[0], by, ep, &c) || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	ep = by == BY_EPOLL ? epoll_on(b[0]) : -1;
	t0 = now_ns();
	for (i = 0; i < ROUNDS; i++)
		if (write(a[1], &c, 1) != 1 || take(b[0], by, ep, &c))
			exit(1);
	t0 = now_ns() - t0;
	waitpid(pid, NULL, 0);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return (double)t0 / (2 * ROUNDS);
}

static double pipe_pingpong(int tasks)
{
	return pingpong_by(tasks, BY_READ);
}

static double poll_pingpong(int tasks)
{
	return pingpong_by(tasks, BY_POLL);
}

static double epoll_pingpong(int tasks)
{
	return pingpong_by(tasks, BY_EPOLL);
}

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Two processes hand a token back and forth through a shared futex word. */
static double futex_pingpong(int tasks)
{
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int64_t t0;
	pid_t pid;
	int i;

	if (w == MAP_FAILED)
		exit(1);
	*w = 0;
	mark(tasks);
	pid = fork();
	if (!pid) {
		for (i = 0; i < ROUNDS; i++) {
			while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != 1)
				futex(w, FUTEX_WAIT, 0);
			__atomic_store_n(w, 0, __ATOMIC_RELEASE);
			futex(w, FUTEX_WAKE, 1);
		}
		_exit(0);
	}
	t0 = now_ns();
	for (i = 0; i < ROUNDS; i++) {
		__atomic_store_n(w, 1, __ATOMIC_RELEASE);
		futex(w, FUTEX_WAKE, 1);
		while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != 0)
			futex(w, FUTEX_WAIT, 1);
	}
	t0 = now_ns() - t0;
	waitpid(pid, NULL, 0);
	munmap(w, 4096);
	return (double)t0 / (2 * ROUNDS);
}

/* Every sender writes HB_MSGS messages to every receiver of its group. */
static double hackbench(int tasks)
{
	int fds[HB_GROUPS][2], g, i, m, n = 0;
	char msg[100] = { 0 };
	int64_t t0;

	mark(tasks);
	t0 = now_ns();
	for (g = 0; g < HB_GROUPS; g++) {
		if (pipe(fds[g]))
			exit(1);
		for (i = 0; i < 2; i++, n++) {
			if (fork())
				continue;
			if (i == 0) {		/* sender */
				for (m = 0; m < HB_MSGS; m++)
					if (write(fds[g][1], msg, sizeof(msg)) !=
					    sizeof(msg))
						_exit(1);
			} else {		/* receiver */
				for (m = 0; m < HB_MSGS; m++)
					if (read(fds[g][0], msg, sizeof(msg)) !=
					    sizeof(msg))
						_exit(1);
			}
			_exit(0);
		}
	}
	while (n--)
		wait(NULL);
	t0 = now_ns() - t0;
	for (g = 0; g < HB_GROUPS; g++) {
		close(fds[g][0]);
		close(fds[g][1]);
	}
	return (double)t0 / (HB_GROUPS * HB_MSGS);
}

static void run(const char *name, double (*fn)(int), int tasks, int reps)
{
	double best = 0;

	/* The best of a few: the least disturbed by the rest of the guest. */
	for (int r = 0; r < reps; r++) {
		pid_t pid;
		int fd[2];
		double v;

		if (pipe(fd))
			exit(1);
		pid = fork();		/* the mark must not outlive the case */
		if (!pid) {
			v = fn(tasks);
			if (write(fd[1], &v, sizeof(v)) != sizeof(v))
				_exit(1);
			_exit(0);
		}
		if (read(fd[0], &v, sizeof(v)) != sizeof(v))
			v = -1;
		waitpid(pid, NULL, 0);
		close(fd[0]);
		close(fd[1]);
		if (r == 0 || v < best)
			best = v;
	}
	printf("BENCH %s %s %.1f\n", name, tasks_name[tasks], best);
	fflush(stdout);
}

/* Whether the kernel has the feature, without marking: a mark turns the
 * hooks' static key on for good, and the unmarked runs come first. */
static int have_stayawake(void)
{
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");
	int have = 0;

	if (!f)
		return 0;
	while (!have && fgets(line, sizeof(line), f))
		have = !strncmp(line, "StayAwake:", 10);
	fclose(f);
	return have;
}

/* A marked task that sleeps until killed: the bystander runs beside it */
static pid_t marked_sleeper(void)
{
	pid_t pid = fork();

	if (!pid) {
		mark(MARKED);
		for (;;)
			pause();
	}
	if (pid < 0)
		exit(1);
	return pid;
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5;
	/* Marked runs only where the kernel has the feature */
	int last = have_stayawake() ? LENDING : UNMARKED;
	pid_t sleeper = 0;

	for (int t = UNMARKED; t <= last; t++) {
		if (t == BYSTANDER)
			sleeper = marked_sleeper();
		run("pipe_pingpong", pipe_pingpong, t, reps);
		run("poll_pingpong", poll_pingpong, t, reps);
		run("epoll_pingpong", epoll_pingpong, t, reps);
		run("futex_pingpong", futex_pingpong, t, reps);
		run("hackbench", hackbench, t, reps);
	}
	if (sleeper) {
		kill(sleeper, SIGKILL);
		waitpid(sleeper, NULL, 0);
	}
	return 0;
}
