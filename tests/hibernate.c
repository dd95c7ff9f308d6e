// SPDX-License-Identifier: GPL-2.0
/*
 * Hibernation and the uswsusp device, with and without marked tasks.
 *
 * The swap drive the Makefile attaches to the guest (boot/x86_64.mk: a
 * virtio-blk disk, made anew and empty for every boot) becomes swap and the
 * resume device, and /sys/power/disk is set to test_resume: "disk" written
 * to /sys/power/state then writes the image to swap, reads it back and
 * restores it, all in one boot. A real write and restore, no power cycle.
 *
 * The restore puts the kernel's memory back as it was at the snapshot: its
 * log and the disk's I/O counters forget what happened after it. So the
 * witnesses are what the restore cannot take back:
 * - the restored kernel's own log after the snapshot: "Hibernation image
 *   restored successfully." is printed only where the image was jumped back
 *   into (in_suspend lives in __nosave memory), "restore of devices
 *   complete" only by the devices' restore callbacks;
 * - the swap drive itself, read with O_DIRECT: a fingerprint (FNV-1a) of
 *   every byte and the number of pages that hold data. An image changes
 *   it; a refused attempt leaves it as it was.
 *
 * (a) nothing marked: "disk" returns 0, the image was written and restored.
 * (b) a marked, boosted task: "disk" fails with EBUSY, nothing is written.
 * (c) a marked task deboosted in clock_nanosleep(CLOCK_BOOTTIME_ALARM): the
 *     same. Hibernation programs no wake alarm (alarmtimer_suspend() runs
 *     only for suspend), so the sleeper's alarm would be slept through.
 * (d) uswsusp, /dev/snapshot: nothing marked, SNAPSHOT_FREEZE works; with a
 *     boosted task or a deboosted alarm sleeper it is refused with EBUSY,
 *     at open() or at SNAPSHOT_FREEZE (which one is printed).
 * (e) then an RTC alarm suspend works: nothing was left behind.
 * Everything set up is undone however the program ends: children killed,
 * swapoff, /sys/power/disk back to the mode it had.
 *
 * Without CONFIG_HIBERNATION (arm64's config) every case skips.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/suspend_ioctls.h>

#include "lib.h"

#define PAGE 4096
#define SCAN_CHUNK (1 << 20)
#define SLEEP_S 60

/* Every case, in the order printed: tests/expected/hibernate. */
static const char *const cases[] = {
	"nothing marked: disk (test_resume) returns 0",
	"nothing marked: the image went to the swap drive",
	"nothing marked: the kernel restored it",
	"boosted task: disk refused with EBUSY",
	"boosted task: no image written",
	"deboosted alarm sleeper: disk refused with EBUSY",
	"deboosted alarm sleeper: no image written",
	"uswsusp, nothing marked: SNAPSHOT_FREEZE and SNAPSHOT_UNFREEZE work",
	"uswsusp, boosted task: refused with EBUSY",
	"uswsusp, deboosted alarm sleeper: refused with EBUSY",
	"then an RTC alarm suspend works",
};

enum { C_A_RET, C_A_WRITTEN, C_A_RESTORED, C_B_REFUSED, C_B_NOTHING,
       C_C_REFUSED, C_C_NOTHING, C_D_PLAIN, C_D_BOOSTED, C_D_SLEEPER,
       C_E_SUSPEND };

static pid_t main_pid;
static pid_t child = -1;
static char swapdev[300];		/* /dev/vdX, once swapped on */
static char mode_before[32];		/* /sys/power/disk's mode, to restore */

/* However the program ends: no child, no swap, the hibernation mode back. */
static void teardown(void)
{
	if (getpid() != main_pid)
		return;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	if (swapdev[0]) {
		if (swapoff(swapdev))
			printf("# swapoff %s: %s\n", swapdev, strerror(errno));
		swapdev[0] = 0;
	}
	if (mode_before[0]) {
		write_str("/sys/power/disk", mode_before);
		mode_before[0] = 0;
	}
}

/* The mode in brackets in /sys/power/disk ("[platform] shutdown ..."). */
static const char *disk_mode(char *buf, int len)
{
	char line[256], *a, *b;

	buf[0] = 0;
	read_line("/sys/power/disk", line, sizeof(line));
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && b - a - 1 < len) {
		memcpy(buf, a + 1, b - a - 1);
		buf[b - a - 1] = 0;
	}
	return buf;
}

/* The first virtio disk: its /dev name and its "major:minor". */
static bool find_disk(char *dev, int dlen, char *majmin, int mlen,
		      long long *bytes)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	char path[300], sz[32];
	bool found = false;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "vd", 2))
			continue;
		snprintf(dev, dlen, "/dev/%s", e->d_name);
		snprintf(path, sizeof(path), "/sys/block/%s/dev", e->d_name);
		read_line(path, majmin, mlen);
		snprintf(path, sizeof(path), "/sys/block/%s/size", e->d_name);
		*bytes = atoll(read_line(path, sz, sizeof(sz))) * 512;
		found = majmin[0] && *bytes > 0;
		break;
	}
	if (d)
		closedir(d);
	return found;
}

struct drive {
	uint64_t fnv;		/* FNV-1a of every byte */
	long data_pages;	/* pages after the header that are not zero */
	int err;		/* -errno of open or read */
};

/* Read the whole drive past the page cache (it would show stale data). */
static void scan_drive(const char *dev, struct drive *d)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char *buf;
	long long off = 0;
	ssize_t n;
	int fd;

	d->data_pages = 0;
	d->err = 0;
	if (posix_memalign((void **)&buf, PAGE, SCAN_CHUNK)) {
		d->err = -ENOMEM;
		return;
	}
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0)
		d->err = -errno;
	while (fd >= 0 && (n = read(fd, buf, SCAN_CHUNK)) > 0) {
		for (ssize_t p = 0; p < n; p += PAGE) {
			const uint64_t *w = (const uint64_t *)(buf + p);
			bool data = false;

			for (int i = 0; i < PAGE / 8; i++) {
				h = (h ^ w[i]) * 0x100000001b3ULL;
				data |= w[i] != 0;
			}
			if (data && off + p > 0)
				d->data_pages++;
		}
		off += n;
	}
	if (fd >= 0 && n < 0)
		d->err = -errno;
	if (fd >= 0)
		close(fd);
	free(buf);
	d->fnv = h;
}

/* What the kernel logged between kmsg_mark() and kmsg_scan(). */
struct klog {
	bool entry, restored, devices_restored, exit;
	int lines;
};

static int kmsg_mark(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

#define SHOWN 10

/* Read the records since the mark; show the last few about hibernation. */
static void kmsg_scan(int fd, struct klog *k)
{
	static char last[SHOWN][160];
	char rec[1024], *msg;
	int shown = 0;
	ssize_t n;

	memset(k, 0, sizeof(*k));
	while (fd >= 0) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten meanwhile: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = 0;
		k->lines++;
		k->entry |= !!strstr(msg, "PM: hibernation: hibernation entry");
		k->restored |= !!strstr(msg, "Hibernation image restored successfully");
		k->devices_restored |= !!strstr(msg, "restore of devices complete");
		k->exit |= !!strstr(msg, "PM: hibernation: hibernation exit");
		if (strstr(msg, "hibernation") || strstr(msg, "Image") ||
		    strstr(msg, "swap") || strstr(msg, "rror") ||
		    strstr(msg, "ail") || strstr(msg, "efus"))
			snprintf(last[shown++ % SHOWN], sizeof(last[0]), "%s", msg);
	}
	if (fd >= 0)
		close(fd);
	for (int i = shown > SHOWN ? shown - SHOWN : 0; i < shown; i++)
		tap_diag("  kernel: %s", last[i % SHOWN]);
}

/* One write of "disk" to /sys/power/state, with its witnesses. */
struct attempt {
	int err;			/* -errno of the write */
	struct drive before, after;
	struct klog log;
	int64_t slept_ns;		/* BOOTTIME - MONOTONIC across it */
	char sources[256];		/* active wakeup sources just before */
};

static void hibernate_once(const char *what, struct attempt *a)
{
	struct clock_pair c0, c1;
	char mode[32];
	int kfd;

	/* Any other mode would really power the guest off. */
	if (strcmp(disk_mode(mode, sizeof(mode)), "test_resume"))
		tap_bail("%s: /sys/power/disk is '%s', not test_resume", what, mode);
	scan_drive(swapdev, &a->before);
	snprintf(a->sources, sizeof(a->sources), "%s", active_sources());
	kfd = kmsg_mark();
	clock_pair_read(&c0);
	a->err = write_str("/sys/power/state", "disk");
	clock_pair_read(&c1);
	tap_diag("%s: write disk: %s", what, a->err ? strerror(-a->err) : "ok");
	kmsg_scan(kfd, &a->log);
	scan_drive(swapdev, &a->after);
	a->slept_ns = clock_pair_suspended_ns(&c0, &c1);
}

static const char *drive_str(const struct attempt *a)
{
	static char buf[160];

	snprintf(buf, sizeof(buf),
		 "swap drive fnv %016llx->%016llx, data pages %ld->%ld%s",
		 (unsigned long long)a->before.fnv,
		 (unsigned long long)a->after.fnv, a->before.data_pages,
		 a->after.data_pages,
		 a->before.err || a->after.err ? " (read error)" : "");
	return buf;
}

static bool drive_unchanged(const struct attempt *a)
{
	return !a->before.err && !a->after.err && a->before.fnv == a->after.fnv;
}

enum who { BOOSTED, ALARM_SLEEPER };

/*
 * A child that marks itself (sched_setattr, SCHED_FLAG_KEEP_ALL |
 * SCHED_FLAG_STAYAWAKE, lending nothing: its "ready" must not lend this
 * process a boost that would refuse hibernation for it) and then waits in
 * pause() (boosted) or in clock_nanosleep(CLOCK_BOOTTIME_ALARM, 60 s)
 * (deboosted). Returns once the kernel shows it so; bails if it never does.
 */
static void start_child(enum who who)
{
	const char *want = who == BOOSTED ? "boosted" : "deboosted";
	int64_t end;
	int ready[2];
	char c, sa[16] = "";

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		tap_bail("fork: %s", strerror(errno));
	if (child == 0) {
		struct sched_attr attr = {
			.size = sizeof(attr),
			.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_STAYAWAKE |
				       SCHED_FLAG_STAYAWAKE_NOLEND,
		};
		struct timespec ts = { .tv_sec = SLEEP_S };

		if (sys_sched_setattr(0, &attr, 0))
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		if (who == BOOSTED)
			for (;;)
				pause();
		clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		tap_bail("the %s child could not mark itself", want);
	close(ready[0]);
	if (who == ALARM_SLEEPER &&
	    !wait_blocked_in(child, SYS_clock_nanosleep, 10))
		tap_bail("the alarm sleeper never blocked in clock_nanosleep");
	end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	while (strcmp(proc_stayawake(child, sa, sizeof(sa)), want)) {
		if (clock_ns(CLOCK_MONOTONIC) > end)
			tap_bail("the child is '%s', not %s", sa, want);
		usleep(1000);
	}
	tap_diag("child %d marked, StayAwake: %s%s", child, sa,
		 who == ALARM_SLEEPER ? " (in clock_nanosleep, CLOCK_BOOTTIME_ALARM, 60 s)" : "");
}

static void stop_child(void)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	child = -1;
}

/*
 * The marked cases: refused with EBUSY and the drive untouched. @sources
 * says which wakeup sources may be active when it is tried: the boosted
 * task's "stayawake", or none at all for the deboosted sleeper (so that no
 * hold of its own explains an EBUSY).
 */
static void hibernate_refused(int c_refused, int c_nothing, const char *what,
			      const char *sources)
{
	struct attempt a;
	char sa[16];

	hibernate_once(what, &a);
	proc_stayawake(child, sa, sizeof(sa));
	tap_check(a.err == -EBUSY && !strcmp(a.sources, sources),
		  cases[c_refused],
		  "write: %s, wakeup sources active before: %s, the child "
		  "now StayAwake: %s", a.err ? strerror(-a.err) : "ok (hibernated)",
		  a.sources, sa);
	tap_check(drive_unchanged(&a) && !a.log.restored, cases[c_nothing],
		  "%s, restored: %s", drive_str(&a), a.log.restored ? "yes" : "no");
}

/* uswsusp: open /dev/snapshot for hibernation, freeze, unfreeze, close. */
struct snap {
	int open_err, freeze_err, unfreeze_err;
};

static void snapshot_try(struct snap *s)
{
	int fd = open("/dev/snapshot", O_RDONLY);

	s->open_err = fd < 0 ? -errno : 0;
	s->freeze_err = s->unfreeze_err = 1;	/* not reached */
	if (fd < 0)
		return;
	s->freeze_err = ioctl(fd, SNAPSHOT_FREEZE) ? -errno : 0;
	if (!s->freeze_err)
		s->unfreeze_err = ioctl(fd, SNAPSHOT_UNFREEZE) ? -errno : 0;
	close(fd);
}

static const char *errstr(int err)
{
	return err > 0 ? "not tried" : err ? strerror(-err) : "ok";
}

static void snapshot_refused(int c, const char *what)
{
	struct snap s;

	snapshot_try(&s);
	tap_check(s.open_err == -EBUSY || s.freeze_err == -EBUSY, cases[c],
		  "%s: open: %s, SNAPSHOT_FREEZE: %s, SNAPSHOT_UNFREEZE: %s",
		  what, errstr(s.open_err), errstr(s.freeze_err),
		  errstr(s.unfreeze_err));
}

/* /init's timeout ends a hung test with SIGTERM: undo the setup then too. */
static void on_term(int sig)
{
	exit(128 + sig);
}

static int skip_all(const char *why)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_skip(cases[i], why);
	return tap_done();
}

int main(void)
{
	const char *mkswap[] = { "/bin/busybox", "mkswap", swapdev, NULL };
	char majmin[32], line[256], out[512];
	struct alarm_suspend as;
	struct attempt a;
	struct snap s;
	long long bytes;
	int rc;

	tap_init("hibernate");
	main_pid = getpid();
	atexit(teardown);
	signal(SIGTERM, on_term);

	if (access("/sys/power/disk", F_OK))
		return skip_all("no hibernation in this kernel (CONFIG_HIBERNATION)");
	if (!find_disk(swapdev, sizeof(swapdev), majmin, sizeof(majmin), &bytes))
		tap_bail("no virtio disk: the swap drive (boot/$ARCH.mk SWAP_SIZE) is missing");

	/* The drive: swap, and where hibernation writes its image. */
	scan_drive(swapdev, &a.before);
	tap_diag("swap drive %s (%s), %lld MiB, %ld pages of data before mkswap%s",
		 swapdev, majmin, bytes >> 20, a.before.data_pages,
		 a.before.err ? " (unreadable)" : "");
	rc = run_capture((const char *const *)mkswap, out, sizeof(out), NULL, 0);
	if (rc)
		tap_bail("mkswap %s: status %d: %s", swapdev, rc, out);
	if (swapon(swapdev, 0)) {
		int err = errno;

		swapdev[0] = 0;
		tap_bail("swapon: %s", strerror(err));
	}
	rc = write_str("/sys/power/resume", majmin);
	if (rc || strcmp(read_line("/sys/power/resume", line, sizeof(line)), majmin))
		tap_bail("resume device %s: write %s, reads back '%s'", majmin,
			 rc ? strerror(-rc) : "ok", line);

	/* test_resume: the image is written, then restored at once. */
	read_line("/sys/power/disk", line, sizeof(line));
	if (!strstr(line, "test_resume"))
		tap_bail("/sys/power/disk offers no test_resume: '%s'", line);
	disk_mode(mode_before, sizeof(mode_before));
	rc = write_str("/sys/power/disk", "test_resume");
	tap_diag("/sys/power/disk was '%s'; test_resume: %s; swap on, resume %s",
		 line, rc ? strerror(-rc) : "set", majmin);
	if (rc)
		tap_bail("test_resume: %s", strerror(-rc));

	/* (a) Nothing marked: the whole round trip. */
	wait_sources_idle();
	hibernate_once("nothing marked", &a);
	tap_check(!a.err, cases[C_A_RET], "write: %s, wakeup sources active before: %s",
		  a.err ? strerror(-a.err) : "ok", a.sources);
	tap_check(!a.before.err && !a.after.err && a.after.fnv != a.before.fnv &&
		  a.after.data_pages > a.before.data_pages,
		  cases[C_A_WRITTEN], "%s", drive_str(&a));
	tap_check(a.log.entry && a.log.restored && a.log.devices_restored &&
		  a.log.exit, cases[C_A_RESTORED],
		  "kernel log since: entry %s, 'image restored successfully' %s, "
		  "'restore of devices complete' %s, exit %s (%d lines); "
		  "BOOTTIME ran %.2f s ahead of MONOTONIC",
		  a.log.entry ? "yes" : "no", a.log.restored ? "yes" : "no",
		  a.log.devices_restored ? "yes" : "no", a.log.exit ? "yes" : "no",
		  a.log.lines, a.slept_ns / 1e9);

	/* (b) A marked task that is boosted. */
	wait_sources_idle();
	start_child(BOOSTED);
	hibernate_refused(C_B_REFUSED, C_B_NOTHING, "boosted task", "stayawake");
	stop_child();

	/* (c) A marked task deboosted on an alarm that hibernation would miss. */
	wait_sources_idle();
	start_child(ALARM_SLEEPER);
	hibernate_refused(C_C_REFUSED, C_C_NOTHING, "deboosted alarm sleeper", "none");
	stop_child();

	/* (d) The same three through /dev/snapshot. */
	if (access("/dev/snapshot", F_OK)) {
		tap_skip(cases[C_D_PLAIN], "no /dev/snapshot (CONFIG_HIBERNATION_SNAPSHOT_DEV)");
		tap_skip(cases[C_D_BOOSTED], "no /dev/snapshot (CONFIG_HIBERNATION_SNAPSHOT_DEV)");
		tap_skip(cases[C_D_SLEEPER], "no /dev/snapshot (CONFIG_HIBERNATION_SNAPSHOT_DEV)");
	} else {
		wait_sources_idle();
		snapshot_try(&s);
		tap_check(!s.open_err && !s.freeze_err && !s.unfreeze_err,
			  cases[C_D_PLAIN], "open: %s, SNAPSHOT_FREEZE: %s, "
			  "SNAPSHOT_UNFREEZE: %s", errstr(s.open_err),
			  errstr(s.freeze_err), errstr(s.unfreeze_err));
		wait_sources_idle();
		start_child(BOOSTED);
		snapshot_refused(C_D_BOOSTED, "boosted task");
		stop_child();
		wait_sources_idle();
		start_child(ALARM_SLEEPER);
		snapshot_refused(C_D_SLEEPER, "deboosted alarm sleeper");
		stop_child();
	}

	/* (e) Undo it all; an ordinary suspend must still work. */
	teardown();
	wait_sources_idle();
	alarm_suspend(4, &as);
	tap_check(as.ok, cases[C_E_SUSPEND],
		  "write mem: %s, success %ld->%ld, suspended %.2f s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9);
	return tap_done();
}
