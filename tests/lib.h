/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helper for the stayawake guest tests: TAP output and the kernel's
 * own witnesses (clocks, suspend_stats, wakeup_sources).
 */
#ifndef STAYAWAKE_TEST_LIB_H
#define STAYAWAKE_TEST_LIB_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define KSFT_SKIP 4

/* TAP: one line per case, numbered; tap_done() prints the plan and totals. */
void tap_init(const char *name);
bool tap_check(bool cond, const char *caze, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tap_skip(const char *caze, const char *why);
int tap_done(void);
/* "PREFIX: NAME", for a case run once per variant (static buffer). */
const char *tap_case(const char *prefix, const char *name);
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Abort the whole program as one failed case. */
void tap_bail(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
	__attribute__((noreturn));

/* Clocks, in nanoseconds. */
int64_t clock_ns(int clockid);

struct clock_pair {
	int64_t boot;
	int64_t mono;
};

void clock_pair_read(struct clock_pair *p);
/* How much longer BOOTTIME ran than MONOTONIC between a and b: time suspended. */
int64_t clock_pair_suspended_ns(const struct clock_pair *a,
				 const struct clock_pair *b);

/* sysfs/debugfs numbers; -1 when unreadable. */
long read_long(const char *path);
/* A small file's first line, newline cut, in @buf; "" if unreadable. */
const char *read_line(const char *path, char *buf, int len);
int write_str(const char *path, const char *s);
long suspend_success(void);

struct wakeup_stat {
	unsigned long active_count;
	unsigned long event_count;
	unsigned long wakeup_count;
	unsigned long long active_since_ms;
};

/* One source from /sys/kernel/debug/wakeup_sources; false if not listed. */
bool wakeup_stat(const char *name, struct wakeup_stat *st);

/* Name of the device behind /dev/rtcN (its wakeup source's name). */
int rtc_parent_name(const char *rtc, char *buf, int len);

/* The task's state letter in /proc/PID/stat ('R', 'S', 'D' ...), 0 if
 * unreadable. */
char proc_state(int pid);
/* Is the task in interruptible sleep ('S' in /proc/PID/stat)? */
bool proc_sleeping(int pid);

/* TAP case: writing "mem" fails with EBUSY, suspend_stats/success stays, and
 * "stayawake" is what refused it: active before and after the write without
 * a break, and no other wakeup source active or activated meanwhile (waits
 * up to 5 s for earlier holds to end first). */
bool check_suspend_refused(const char *what);

/* Arm the RTC wake alarm 'secs' from now through /dev/rtc0. */
int rtc_arm_alarm(int secs);
/* @when (seconds since the epoch) as the RTC's UTC calendar time. */
struct rtc_time;
void rtc_time_of(long long when, struct rtc_time *tm);
/* Disarm it (through sysfs, which takes "0" whoever armed it). */
void rtc_disarm_alarm(void);

/* One RTC alarm suspend: arm the RTC 'secs' out and write "mem". Call it
 * before the tap_check() that reports it, not in its arguments: their order
 * of evaluation is unspecified (x86_64 gcc read the fields first). */
struct alarm_suspend {
	bool ok;			/* the write worked, success rose by one */
	int err;			/* -errno of the arming or of the write */
	long success_before, success_after;
	int64_t suspended_ns;		/* BOOTTIME - MONOTONIC across both */
};

/* Returns r->ok. */
bool alarm_suspend(int secs, struct alarm_suspend *r);
/* TAP case @what: once no source is active, an alarm suspend of @secs
 * works and the system slept more than a second of it. */
bool check_alarm_suspend(const char *what, int secs);

/* Run argv[0] with stdout and stderr into out (NUL-terminated); in the
 * child, setup(how) first unless NULL (it _exit()s on failure). Returns the
 * exit status, or 128 + the signal that killed it. */
int run_capture(const char *const argv[], char *out, size_t len,
		void (*setup)(int how), int how);

/* Wait up to 5 s for every wakeup source to be idle: holds left by an
 * earlier attempt or a late RTC alarm would refuse the next suspend. */
void wait_sources_idle(void);

#define SEC_NS 1000000000LL


/* SCHED_STAYAWAKE helpers (uapi values come from the patched headers). */
#include <sched.h>
#include <sys/types.h>
#include <linux/sched.h>
/* The uapi struct sched_param clashes with glibc's: take only sched_attr. */
#define sched_param __uapi_sched_param
#include <linux/sched/types.h>
#undef sched_param
#ifndef SCHED_FLAG_STAYAWAKE_NOLEND
/* The headers of a kernel before lending: the tests still build, and say
 * what such a kernel does with the flag */
#define SCHED_FLAG_STAYAWAKE_NOLEND 0x100
#endif

int sys_sched_setattr(pid_t pid, struct sched_attr *attr, unsigned int flags);
int sys_sched_getattr(pid_t pid, struct sched_attr *attr, unsigned int size,
		      unsigned int flags);
/* Mark @pid (SCHED_OTHER, SCHED_FLAG_STAYAWAKE_NOLEND: no lending) or
 * unmark it; 0, or -1 with errno */
int stayawake_mark(pid_t pid, bool on);
/* Give back a boost the calling task borrows (lending) by an idle wait:
 * a sleep just beyond the loan horizon. */
void give_back_loan(void);
/* Is the "stayawake" wakeup source active? Spins 3 ms on MONOTONIC first so
 * that debugfs's millisecond active_since cannot read 0 for an active one. */
bool stayawake_source_active(void);
/* The source's counters, for a TAP witness (static buffer). */
const char *stayawake_source_str(void);
/* Drop a capability (CAP_BLOCK_SUSPEND, ...) from the calling process:
 * every set, and the bounding set, or an exec as root gives it back. */
#include <linux/capability.h>
int drop_cap(int cap);

/* The StayAwake: word of /proc/PID/status ("off", ...); "" if unreadable
 * or longer than len - 1. */
const char *proc_stayawake(int pid, char *buf, int len);
/* Wait up to 5 s for that word to be @want; false if it never was. */
bool wait_stayawake_state(int pid, const char *want);
/* Wait up to @secs until the task sleeps ('S') with that word @want. */
bool wait_sleeping_state(int pid, const char *want, int secs);
/* The same for /proc/<pid>/status by name, and its real uid (~0 if not
 * read); -1 if the task is gone. */
int proc_status(const char *pid, unsigned int *ruid, char *state, int len);

/* One task's line in /sys/kernel/debug/sched/stayawake. */
struct stayawake_entry {
	char comm[32];
	char state[16];
	double awake_s;
	double marked_at_s;
};

/* The task's line; false if it is not listed. *boosted gets the header's
 * count of boosted tasks and *lines_boosted the lines that say so. */
bool stayawake_debugfs(int pid, struct stayawake_entry *e, int *boosted,
		       int *lines_boosted);

/* The /proc/interrupts count (all CPUs) of the line naming @name; -1 if none. */
long irq_count(const char *name);
/* The same for the RTC's line (platform "rtc_irq"). */
long rtc_irqs(void);
/* The Linux IRQ number of the /proc/interrupts line naming @name; -1 if none. */
int irq_number(const char *name);

/* The value of @key in /etc/platform (tests/platform/ARCH); bails if absent. */
const char *platform(const char *key);
/* How much of an RTC-timed sleep may pass awake: platform "rtc_early_ms". */
int64_t rtc_early_ns(void);

/* Names of the wakeup sources active now, or "none" (static buffer). */
const char *active_sources(void);

/* Lines of the trace buffer that contain @s. */
int trace_count(const char *s);

/* Empty the trace buffer (O_TRUNC, as `> trace` does). */
int trace_clear(void);

/* Events the buffer of trace instance @dir ("instances/NAME/", "" the
 * main one) lost since it was last emptied: a full ring buffer drops its
 * oldest. -1 if unreadable. */
long trace_lost(const char *dir);

/* The positive number after @key (e.g. "sa.cycles=") on the kernel's
 * command line, or @dflt. */
int cmdline_int(const char *key, int dflt);

/* The wakeup sources, as check_suspend_refused() judges a refusal. */
struct sources_snap {
	bool sa_active;			/* "stayawake" is active */
	unsigned long sa_count;		/* its active_count */
	unsigned long others_count;	/* sum of every other active_count */
	char others_active[256];	/* other active sources, or "" */
};

void sources_snap(struct sources_snap *s);

/* rtc0's device and the folder of the driver it is bound to. */
struct rtc_binding {
	char dev[PATH_MAX];
	char drv[PATH_MAX];
};

/* Fill @b from rtc0; false if it has no device or driver. */
bool rtc_binding_get(struct rtc_binding *b);
/* Write the device's name to the driver's @file ("bind", "unbind"). */
int rtc_binding_write(const struct rtc_binding *b, const char *file);
bool rtc_bound(const struct rtc_binding *b);

/* A child that marks itself if @marked, sleeps on CLOCK_BOOTTIME_ALARM
 * until @deadline (ns, through EINTR) and writes the BOOTTIME it woke at
 * (int64_t) to @fd. */
pid_t alarm_sleeper(bool marked, int64_t deadline, int fd);

/* Freeze @pid in the v1 freezer cgroup @dir (made if need be, under
 * /dev/freezer, mounted by /init); true once freezer.state says FROZEN
 * (up to 5 s). Thawing writes THAWED to @dir/freezer.state. */
bool cg1_freeze(const char *dir, pid_t pid);

/* The system call a task is blocked in (/proc/PID/syscall), -1 if none. */
long proc_syscall(int pid);
/* Wait up to secs until the task sleeps in system call nr. */
bool wait_blocked_in(int pid, long nr, int secs);

/* A child that writes "mem" to /sys/power/state in a loop and counts the
 * outcomes in memory shared with the caller. */
struct suspender {
	pid_t pid;
	struct suspender_counts {
		long suspends;	/* writes that returned 0: slept and resumed */
		long refused;	/* writes refused with EBUSY */
		long other;	/* writes that failed otherwise */
	} *n;
};

/* Start it; bails if it cannot. */
void suspender_start(struct suspender *s);
/* suspend_stats/success counts a suspend only once pm_suspend() returns,
 * after the thaw, so a woken task may run first: wait (up to 10 s) until
 * the suspender saw a write return 0. */
void suspender_wait_returned(const struct suspender *s);
long suspender_refused(const struct suspender *s);
/* After a wait that slept: once a write returned (as above), @secs of work
 * (work_window()); *s1 and *s2 are suspend_stats/success before and after
 * it. Returns the requests refused during it. */
long suspender_work_window(const struct suspender *s, int secs, long *s1,
			   long *s2);
/* Kill it and wait for it. */
void suspender_stop(struct suspender *s);

/* The poll family, one wait each: */
enum poll_call { PC_POLL, PC_PPOLL, PC_SELECT, PC_PSELECT, PC_EPOLL_WAIT,
		 PC_EPOLL_PWAIT, PC_EPOLL_PWAIT2, PC_CALLS };

extern const char *const poll_call_name[PC_CALLS];

/* One wait through @call until one of the @n files @fd is readable; the
 * epoll calls wait on @ep, which holds them. @timeout_ms < 0: none.
 * Returns how many are ready, or -errno. */
int poll_call_wait(enum poll_call call, const int *fd, int n, int ep,
		   int timeout_ms);

/* The files of one event-loop wait: a non-blocking timerfd, maybe the read
 * end of a pipe, maybe both inside an epoll set of their own (nested);
 * poll and select watch fd[0..n), the epoll calls wait on ep, which holds
 * the same. */
struct loop_set {
	int tfd, pipe[2], inner, ep;
	int fd[2], n;
};

/* 0 or -errno (nothing left open). */
int loop_set_open(struct loop_set *s, int clock, bool with_pipe,
		  bool nested);
/* Arm the timerfd @ns out: 0 or -errno. */
int loop_set_arm(const struct loop_set *s, int64_t ns);
void loop_set_close(struct loop_set *s);

/* @secs of work on MONOTONIC: spins, with naps a suspender can run in. */
void work_window(int secs);

/* An io_uring, set up with raw system calls (no liburing in the guest). */
#include <linux/io_uring.h>
struct ring {
	int fd;
	struct io_uring_params p;
	unsigned int *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_tail;
	struct io_uring_sqe *sqes;
};

/* Set up a ring of 4 entries, mapped; bails if it cannot. */
void ring_setup(struct ring *r);
void ring_close(struct ring *r);
unsigned int ring_cq_tail(const struct ring *r);
/* The next submission entry, zeroed, for the caller to fill. */
struct io_uring_sqe *ring_sqe(struct ring *r);
/* Submit it, waiting for @wait_nr completions: io_uring_enter()'s
 * result, or -errno. */
int ring_submit(struct ring *r, unsigned int wait_nr);

#endif
