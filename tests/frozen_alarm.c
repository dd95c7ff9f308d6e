// SPDX-License-Identifier: GPL-2.0
/*
 * frozen_alarm: an alarm that fires after the freezer has frozen its sleeper
 * must not be slept through.
 *
 * Alarm sleeps are freezable in this series: the freezer freezes the sleeper
 * in place and its alarm stays queued for alarmtimer_suspend(). If that alarm
 * fires while the freezer still waits for another task, the wakeup reaches a
 * frozen task and the alarm leaves the queue; alarmtimer_suspend() then sees
 * nothing to program and the system would sleep until some other wakeup.
 * (Mainline kicks the sleeper out and remembers its expiry in freezer_delta.)
 *
 * The window is held open on purpose, for as long as we choose: the freezer
 * waits (kernel/power/process.c, try_to_freeze_tasks()) for every user task
 * until it is frozen, and a task only freezes on its way back to user space
 * or in a freezable sleep. Holdup tasks read a sparse memfd (holes: the
 * shared zero page, no memory used) into a small buffer with one preadv();
 * shmem_file_read_iter() never looks at signals, so the freezer's fake
 * signal does not cut it short. How long that takes is measured first and
 * the read length and number of readers are scaled to the window wanted,
 * whatever the host's speed. The sleeper's alarm fires a third of the way
 * through it, when the sleeper is long frozen. An RTC alarm 12 s out is the
 * safety net, so a kernel with the hole fails the case instead of hanging.
 * Run once with an unmarked sleeper and once with a SCHED_STAYAWAKE one;
 * then once with a marked sleeper that its v1 cgroup froze in place and a
 * manager unmarked while frozen: the wakeup that would make it choose
 * again is lost, so only its alarm can stop the attempt (half-way through
 * the window here, leaving time to freeze and unmark it).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SAFETY_S 12
/* The freezer is held up this long (its own timeout is 20 s). */
#define WINDOW_NS (1500 * 1000 * 1000LL)
#define BUF_LEN (2 << 20)
/* One preadv() of at most 1023 buffers: under MAX_RW_COUNT (2 GiB). */
#define MAX_IOV 1023
#define MAX_READERS 64
#define CALIB_LEN (256LL << 20)

/* The v1 freezer, mounted by /init */
#define CG1_DIR "/dev/freezer/frozen_alarm"

enum variant { UNMARKED, MARKED, UNMARKED_FROZEN };

static const char *const variant_name[] = {
	[UNMARKED] = "unmarked",
	[MARKED] = "marked",
	[UNMARKED_FROZEN] = "unmarked while its cgroup froze it",
};

static int memfd = -1;
static pid_t children[MAX_READERS + 1];
static int nchildren;
static pid_t main_pid;

/* However the program ends, no holdup or sleeper outlives it. */
static void kill_children(void)
{
	if (getpid() != main_pid)
		return;
	/* A task its v1 cgroup froze dies only once thawed */
	write_str(CG1_DIR "/freezer.state", "THAWED");
	while (nchildren > 0)
		kill(children[--nchildren], SIGKILL);
}

static void track(pid_t pid)
{
	if (pid > 0 && nchildren < MAX_READERS + 1)
		children[nchildren++] = pid;
}

static void reap(void)
{
	while (nchildren > 0)
		waitpid(children[--nchildren], NULL, 0);
}

/*
 * One preadv() of @len bytes of holes into a 2 MiB buffer; ns, or -1. Just
 * before it, a byte to @ready (if not -1): a reader the freezer catches
 * before its read holds nothing up.
 */
static int64_t holdup_read(long long len, int ready)
{
	struct iovec iov[MAX_IOV];
	int n = (len + BUF_LEN - 1) / BUF_LEN, i;
	int64_t t0;
	ssize_t got;
	char *buf;

	if (n > MAX_IOV)
		n = MAX_IOV;
	buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -1;
	/* Present and private, so the copy never faults. */
	memset(buf, 1, BUF_LEN);
	for (i = 0; i < n; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = BUF_LEN;
	}
	if (ready >= 0 && write(ready, "r", 1) != 1)
		return -1;
	t0 = clock_ns(CLOCK_MONOTONIC);
	got = preadv(memfd, iov, n, 0);
	t0 = clock_ns(CLOCK_MONOTONIC) - t0;
	munmap(buf, BUF_LEN);
	return got == (ssize_t)n * BUF_LEN ? t0 : -1;
}

struct holdup {
	long long len;		/* bytes each reader reads */
	int readers;
	int64_t window_ns;	/* what they should take together */
};

/*
 * Scale the holdup to WINDOW_NS from a measured read: one reader per CPU,
 * each reading up to MAX_IOV buffers, and more readers per CPU when one
 * read is too fast to last the window.
 */
static void holdup_plan(struct holdup *h)
{
	int cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t t, per;
	double ns_per_byte;

	holdup_read(CALIB_LEN, -1);
	t = holdup_read(CALIB_LEN, -1);
	if (t <= 0)
		tap_bail("preadv of %lld MiB of a sparse memfd: %s",
			 CALIB_LEN >> 20, strerror(errno));
	if (cpus < 1)
		cpus = 1;
	ns_per_byte = (double)t / CALIB_LEN;
	h->len = WINDOW_NS / ns_per_byte;
	if (h->len > (long long)MAX_IOV * BUF_LEN)
		h->len = (long long)MAX_IOV * BUF_LEN;
	h->len = (h->len + BUF_LEN - 1) / BUF_LEN * BUF_LEN;
	per = h->len * ns_per_byte;
	h->readers = cpus * ((WINDOW_NS + per - 1) / per);
	if (h->readers > MAX_READERS)
		h->readers = MAX_READERS;
	h->window_ns = per * (h->readers / cpus);
	tap_diag("preadv() of %lld MiB of holes takes %.3f s here: %d readers "
		 "of %lld MiB on %d CPUs, about %.2f s", CALIB_LEN >> 20, t / 1e9,
		 h->readers, h->len >> 20, cpus, h->window_ns / 1e9);
}

/*
 * Each reader writes to @fd when its read returned (BOOTTIME). Returns once
 * every reader is about to read (up to 5 s: a debug kernel forks slowly).
 */
static void holdup_start(const struct holdup *h, int fd)
{
	struct pollfd pfd = { .events = POLLIN };
	int ready[2], got = 0;
	char c;

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	pfd.fd = ready[0];
	for (int i = 0; i < h->readers; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			int64_t end;

			if (holdup_read(h->len, ready[1]) < 0)
				_exit(1);
			end = clock_ns(CLOCK_BOOTTIME);
			_exit(write(fd, &end, sizeof(end)) != sizeof(end));
		}
		if (pid < 0)
			tap_bail("fork: %s", strerror(errno));
		track(pid);
	}
	while (got < h->readers && poll(&pfd, 1, 5000) > 0 &&
	       read(ready[0], &c, 1) == 1)
		got++;
	if (got < h->readers)
		tap_diag("%d of %d readers ready after 5 s", got, h->readers);
	close(ready[0]);
	close(ready[1]);
}

static void one(enum variant v, const struct holdup *hp)
{
	const char *who = variant_name[v];
	int64_t thawed = 0;
	char word[32];
	struct clock_pair a, b;
	int64_t deadline, woke = 0, ret_b, end, last_end = 0;
	int fd[2], rd[2], err, ended = 0;
	pid_t s;

	if (pipe(fd) || pipe(rd))
		tap_bail("pipe: %s", strerror(errno));
	wait_sources_idle();
	/*
	 * The readers start reading first; the suspend attempt (and so the
	 * freezer) starts once the sleeper is in its alarm sleep and waits for
	 * them; the alarm fires a third of the way through, when the sleeper
	 * is long frozen.
	 */
	holdup_start(hp, rd[1]);
	deadline = clock_ns(CLOCK_BOOTTIME) +
		   hp->window_ns / (v == UNMARKED_FROZEN ? 2 : 3);
	s = alarm_sleeper(v != UNMARKED, deadline, fd[1]);
	track(s);
	/*
	 * In its alarm sleep (and so deboosted, if marked) before the attempt:
	 * with the readers on every CPU a fork can take longer than a fixed
	 * pause, and a marked sleeper not yet in its wait refuses the attempt.
	 */
	if (!wait_blocked_in(s, SYS_clock_nanosleep, 1))
		tap_diag("%s: the sleeper was not in its alarm sleep after 1 s",
			 who);
	if (v == UNMARKED_FROZEN) {
		bool frozen = wait_stayawake_state(s, "deboosted") &&
			      cg1_freeze(CG1_DIR, s);

		/* The mark goes while it cannot run to choose again */
		tap_check(frozen && !stayawake_mark(s, false) &&
			  wait_stayawake_state(s, "off"),
			  tap_case(who, "frozen in place, then unmarked"),
			  "frozen %d, StayAwake: %s", frozen,
			  proc_stayawake(s, word, sizeof(word)));
	}
	err = rtc_arm_alarm(SAFETY_S);
	if (err)
		tap_bail("arming the safety RTC alarm: %s", strerror(-err));
	clock_pair_read(&a);
	err = write_str("/sys/power/state", "mem");
	clock_pair_read(&b);
	ret_b = b.boot;
	if (v == UNMARKED_FROZEN) {
		write_str(CG1_DIR "/freezer.state", "THAWED");
		thawed = clock_ns(CLOCK_BOOTTIME);
	}
	if (read(fd[0], &woke, sizeof(woke)) != sizeof(woke))
		woke = 0;
	reap();
	if (v == UNMARKED_FROZEN)
		rmdir(CG1_DIR);
	close(fd[0]);
	close(fd[1]);
	close(rd[1]);
	while (read(rd[0], &end, sizeof(end)) == sizeof(end)) {
		ended++;
		if (end > last_end)
			last_end = end;
	}
	close(rd[0]);

	tap_diag("%s: alarm %.2f s into the attempt, state write %s after %.2f s, "
		 "suspended %.2f s, sleeper woke %.2f s after the write returned",
		 who, (deadline - a.boot) / 1e9, err ? strerror(-err) : "ok",
		 (ret_b - a.boot) / 1e9, clock_pair_suspended_ns(&a, &b) / 1e9,
		 (woke - ret_b) / 1e9);
	/*
	 * Else the cases below would pass without the window ever opening:
	 * the alarm fell between the start of the write and its return, and
	 * the freezer was still waiting then: the last reader was still
	 * reading (a reader that returned before would have written an
	 * earlier time; one frozen on its way out writes after the thaw,
	 * later still).
	 */
	tap_check(a.boot < deadline && deadline < ret_b &&
		  ended == hp->readers && last_end > deadline,
		  tap_case(who, "the alarm fired inside the suspend attempt"),
		  "%.2f s into it, which ended after %.2f s; %d of %d readers "
		  "done, the last %.2f s after the alarm",
		  (deadline - a.boot) / 1e9, (ret_b - a.boot) / 1e9, ended,
		  hp->readers, (last_end - deadline) / 1e9);
	tap_check(clock_pair_suspended_ns(&a, &b) < SEC_NS,
		  tap_case(who, "the system did not sleep through its fired alarm"),
		  "suspended %.2f s (the safety alarm was %d s out)",
		  clock_pair_suspended_ns(&a, &b) / 1e9, SAFETY_S);
	if (v == UNMARKED_FROZEN)
		tap_check(woke && woke - thawed < SEC_NS,
			  tap_case(who, "the sleeper ran as soon as it was thawed"),
			  "%.2f s after", (woke - thawed) / 1e9);
	else
		tap_check(woke && woke - ret_b < SEC_NS,
			  tap_case(who, "the sleeper ran as soon as the attempt ended"),
			  "%.2f s after", (woke - ret_b) / 1e9);
}

int main(void)
{
	struct alarm_suspend as;
	struct holdup h;

	tap_init("frozen_alarm");
	main_pid = getpid();
	atexit(kill_children);
	memfd = memfd_create("frozen_alarm", 0);
	if (memfd < 0 || ftruncate(memfd, (off_t)MAX_IOV * BUF_LEN))
		tap_bail("sparse memfd: %s", strerror(errno));
	holdup_plan(&h);

	one(UNMARKED, &h);
	one(MARKED, &h);
	one(UNMARKED_FROZEN, &h);

	/* And nothing is left behind: an alarm suspend works. */
	wait_sources_idle();
	alarm_suspend(3, &as);
	tap_check(as.ok && as.suspended_ns > SEC_NS,
		  "an alarm suspend still works afterwards",
		  "write %s, suspended %.2f s", as.err ? strerror(-as.err) : "ok",
		  as.suspended_ns / 1e9);
	return tap_done();
}
