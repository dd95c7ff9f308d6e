// SPDX-License-Identifier: GPL-2.0
/* Shared helper for the stayawake guest tests; see lib.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/rtc.h>

#include "lib.h"

static const char *tap_name = "test";
static int tap_num, tap_pass, tap_fail, tap_skipped;

static pid_t tap_pid;

/*
 * However the program ends (a failed case, tap_bail(), a return from main),
 * the next test starts clean: autosleep off, tracing off, the main task
 * unmarked. Forked children inherit the handler; only the main task acts.
 * /init also sweeps what is left (processes, the RTC alarm).
 */
static void tap_teardown(void)
{
	char as[16] = "";
	FILE *f;

	if (getpid() != tap_pid)
		return;
	/* Switching autosleep is itself a wakeup event: only when it is on. */
	f = fopen("/sys/power/autosleep", "r");
	if (f && fscanf(f, "%15s", as) == 1 && strcmp(as, "off"))
		write_str("/sys/power/autosleep", "off");
	if (f)
		fclose(f);
	write_str("/sys/kernel/tracing/tracing_on", "0");
	stayawake_mark(0, false);
}

void tap_init(const char *name)
{
	tap_name = name;
	tap_pid = getpid();
	atexit(tap_teardown);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n# %s\n", name);
}

static void vline(const char *fmt, va_list ap)
{
	if (fmt && *fmt) {
		printf(" # ");
		vprintf(fmt, ap);
	}
	printf("\n");
}

bool tap_check(bool cond, const char *caze, const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	if (cond)
		tap_pass++;
	else
		tap_fail++;
	printf("%sok %d %s: %s", cond ? "" : "not ", tap_num, tap_name, caze);
	va_start(ap, fmt);
	vline(fmt, ap);
	va_end(ap);
	return cond;
}

const char *tap_case(const char *prefix, const char *name)
{
	static char buf[160];

	snprintf(buf, sizeof(buf), "%s: %s", prefix, name);
	return buf;
}

void tap_skip(const char *caze, const char *why)
{
	tap_num++;
	tap_skipped++;
	printf("ok %d %s: %s # SKIP %s\n", tap_num, tap_name, caze, why);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	tap_fail++;
	printf("not ok %d %s: setup # ", tap_num, tap_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(tap_done());
}

int tap_done(void)
{
	printf("1..%d\n", tap_num);
	printf("# %s: %d passed, %d failed, %d skipped\n", tap_name,
	       tap_pass, tap_fail, tap_skipped);
	fflush(stdout);
	if (tap_fail)
		return 1;
	return tap_pass ? 0 : KSFT_SKIP;
}

int64_t clock_ns(int clockid)
{
	struct timespec ts;

	if (clock_gettime(clockid, &ts))
		tap_bail("clock_gettime(%d): %s", clockid, strerror(errno));
	return ts.tv_sec * SEC_NS + ts.tv_nsec;
}

/*
 * MONOTONIC between two BOOTTIME reads, BOOTTIME taken as their midpoint:
 * off by half the gap at most. A task preempted between the reads (a busy
 * guest, or a host that stalls the guest's CPU: 5.6 ms once, read as
 * 2.8 ms of suspend) widens the gap: read again, keep the tightest.
 */
#define PAIR_TIGHT_NS 50000
#define PAIR_TRIES 100

void clock_pair_read(struct clock_pair *p)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < PAIR_TRIES && best > PAIR_TIGHT_NS; i++) {
		int64_t b1 = clock_ns(CLOCK_BOOTTIME);
		int64_t m = clock_ns(CLOCK_MONOTONIC);
		int64_t b2 = clock_ns(CLOCK_BOOTTIME);

		if (b2 - b1 < best) {
			best = b2 - b1;
			p->boot = b1 + (b2 - b1) / 2;
			p->mono = m;
		}
	}
}

int64_t clock_pair_suspended_ns(const struct clock_pair *a,
				const struct clock_pair *b)
{
	return (b->boot - a->boot) - (b->mono - a->mono);
}

const char *read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f && fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
	return buf;
}

long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

long suspend_success(void)
{
	return read_long("/sys/power/suspend_stats/success");
}

bool wakeup_stat(const char *name, struct wakeup_stat *st)
{
	FILE *f = fopen("/sys/kernel/debug/wakeup_sources", "r");
	char line[512], n[128];
	bool found = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long since;
		unsigned long a, e, w, x;

		if (sscanf(line, "%127s %lu %lu %lu %lu %llu", n, &a, &e, &w,
			   &x, &since) != 6)
			continue;
		if (strcmp(n, name))
			continue;
		st->active_count = a;
		st->event_count = e;
		st->wakeup_count = w;
		st->active_since_ms = since;
		found = true;
		break;
	}
	fclose(f);
	return found;
}

char proc_state(int pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	char s = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		if (p && p[1] == ' ')
			s = p[2];
	}
	fclose(f);
	return s;
}

bool proc_sleeping(int pid)
{
	return proc_state(pid) == 'S';
}

/*
 * EBUSY alone does not say who refused: a hold left by an earlier event
 * (alarmtimer after an RTC wakeup, the RTC's own source) refuses just the
 * same. So the refusal counts only if "stayawake" was active, and no other
 * source was, from before the write until after it: its active_count did not
 * move (it did not go idle in between), and no other source was activated.
 * The caller must have no RTC wake alarm of its own armed.
 */
bool check_suspend_refused(const char *what)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	struct sources_snap a, b;
	long s0, s1;
	bool ok;
	int err;

	/* Holds of earlier events end by themselves; give them 5 s. */
	for (;;) {
		sources_snap(&a);
		if (!a.others_active[0] ||
		    clock_ns(CLOCK_MONOTONIC) > end)
			break;
		usleep(10000);
	}
	/*
	 * A safety net for a kernel that wrongly lets the write suspend: the
	 * RTC wakes it after 10 s instead of never. Disarmed right after.
	 */
	rtc_arm_alarm(10);
	s0 = suspend_success();
	err = write_str("/sys/power/state", "mem");
	s1 = suspend_success();
	rtc_disarm_alarm();
	sources_snap(&b);
	ok = err == -EBUSY && s1 == s0 && a.sa_active && b.sa_active &&
	     a.sa_count == b.sa_count && !a.others_active[0] &&
	     !b.others_active[0] && a.others_count == b.others_count;
	return tap_check(ok, what,
			 "write: %s, success %ld->%ld, stayawake %s->%s "
			 "(active_count %lu->%lu), other sources active: %s/%s, "
			 "their activations %lu->%lu",
			 err ? strerror(-err) : "ok", s0, s1,
			 a.sa_active ? "active" : "idle",
			 b.sa_active ? "active" : "idle", a.sa_count, b.sa_count,
			 a.others_active[0] ? a.others_active : "none",
			 b.others_active[0] ? b.others_active : "none",
			 a.others_count, b.others_count);
}

bool alarm_suspend(int secs, struct alarm_suspend *r)
{
	struct clock_pair a, b;

	r->success_before = suspend_success();
	clock_pair_read(&a);
	r->err = rtc_arm_alarm(secs);
	if (!r->err)
		r->err = write_str("/sys/power/state", "mem");
	clock_pair_read(&b);
	r->success_after = suspend_success();
	r->suspended_ns = clock_pair_suspended_ns(&a, &b);
	r->ok = !r->err && r->success_after == r->success_before + 1;
	return r->ok;
}

bool check_alarm_suspend(const char *what, int secs)
{
	struct alarm_suspend as;

	wait_sources_idle();
	alarm_suspend(secs, &as);
	return tap_check(as.ok && as.suspended_ns > SEC_NS, what,
			 "write: %s, success %ld->%ld, suspended %.2f s",
			 as.err ? strerror(-as.err) : "ok", as.success_before,
			 as.success_after, as.suspended_ns / 1e9);
}

int run_capture(const char *const argv[], char *out, size_t len,
		void (*setup)(int how), int how)
{
	size_t off = 0;
	int fd[2], st;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		if (setup)
			setup(how);
		execv(argv[0], (char *const *)argv);
		_exit(97);
	}
	close(fd[1]);
	while (off + 1 < len && (n = read(fd[0], out + off, len - off - 1)) > 0)
		off += n;
	out[off] = 0;
	close(fd[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void wait_sources_idle(void)
{
	int i;

	for (i = 0; i < 500 && strcmp(active_sources(), "none"); i++)
		usleep(10000);
}

int rtc_parent_name(const char *rtc, char *buf, int len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/rtc/%s/device", rtc);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	snprintf(buf, len, "%s", basename(target));
	return 0;
}

void rtc_disarm_alarm(void)
{
	write_str("/sys/class/rtc/rtc0/wakealarm", "0");
}

void rtc_time_of(long long when, struct rtc_time *tm)
{
	time_t w = when;
	struct tm t;

	gmtime_r(&w, &t);
	tm->tm_sec = t.tm_sec;
	tm->tm_min = t.tm_min;
	tm->tm_hour = t.tm_hour;
	tm->tm_mday = t.tm_mday;
	tm->tm_mon = t.tm_mon;
	tm->tm_year = t.tm_year;
	tm->tm_wday = -1;
	tm->tm_yday = -1;
	tm->tm_isdst = -1;
}

int rtc_arm_alarm(int secs)
{
	struct rtc_wkalrm alm = { .enabled = 1 };
	struct rtc_time tm;
	struct tm t;
	int fd, err = 0;

	fd = open("/dev/rtc0", O_RDONLY);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, RTC_RD_TIME, &tm)) {
		err = -errno;
		goto out;
	}
	memset(&t, 0, sizeof(t));
	t.tm_sec = tm.tm_sec;
	t.tm_min = tm.tm_min;
	t.tm_hour = tm.tm_hour;
	t.tm_mday = tm.tm_mday;
	t.tm_mon = tm.tm_mon;
	t.tm_year = tm.tm_year;
	rtc_time_of(timegm(&t) + secs, &alm.time);
	if (ioctl(fd, RTC_WKALM_SET, &alm))
		err = -errno;
out:
	close(fd);
	return err;
}

#include <sys/syscall.h>
#include <linux/capability.h>

int sys_sched_setattr(pid_t pid, struct sched_attr *attr, unsigned int flags)
{
	return syscall(SYS_sched_setattr, pid, attr, flags);
}

int sys_sched_getattr(pid_t pid, struct sched_attr *attr, unsigned int size,
		      unsigned int flags)
{
	return syscall(SYS_sched_getattr, pid, attr, size, flags);
}

bool wait_stayawake_state(int pid, const char *want)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	char sa[32];

	while (strcmp(proc_stayawake(pid, sa, sizeof(sa)), want))
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return false;
	return true;
}

bool wait_sleeping_state(int pid, const char *want, int secs)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + secs * SEC_NS;
	char buf[32];

	do {
		if (proc_sleeping(pid) &&
		    !strcmp(proc_stayawake(pid, buf, sizeof(buf)), want))
			return true;
		usleep(10000);
	} while (clock_ns(CLOCK_MONOTONIC) < end);
	return false;
}

int stayawake_mark(pid_t pid, bool on)
{
	struct sched_attr a = { .size = sizeof(a), .sched_policy = SCHED_OTHER };

	/* Lending only where a test asks for it (lend.c): helpers it forks
	 * or wakes (a suspender, a child) must not keep the system awake */
	if (on)
		a.sched_flags = SCHED_FLAG_STAYAWAKE |
				SCHED_FLAG_STAYAWAKE_NOLEND;
	if (!sys_sched_setattr(pid, &a, 0))
		return 0;
	/* A kernel before lending refuses the flag, and lends nothing */
	if (!on || errno != EINVAL)
		return -1;
	a.sched_flags = SCHED_FLAG_STAYAWAKE;
	return sys_sched_setattr(pid, &a, 0) ? -1 : 0;
}

void give_back_loan(void)
{
	long ms = read_long("/proc/sys/kernel/sched_stayawake_loan_horizon_ms");
	struct timespec ts;

	ms = (ms < 0 ? 0 : ms) + 20;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&ts, NULL);
}

bool stayawake_source_active(void)
{
	struct wakeup_stat st;
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 3000000;

	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
	if (!wakeup_stat("stayawake", &st))
		return false;
	return st.active_since_ms > 0;
}

const char *stayawake_source_str(void)
{
	static char buf[128];
	struct wakeup_stat st;

	if (!wakeup_stat("stayawake", &st))
		return "no stayawake source";
	snprintf(buf, sizeof(buf), "stayawake active_count %lu active_since %llu ms",
		 st.active_count, st.active_since_ms);
	return buf;
}

int drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int i = cap / 32;
	unsigned int bit = 1u << (cap % 32);

	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) ||
	    syscall(SYS_capget, &hdr, data))
		return -1;
	data[i].effective &= ~bit;
	data[i].permitted &= ~bit;
	data[i].inheritable &= ~bit;
	return syscall(SYS_capset, &hdr, data);
}

int proc_status(const char *pid, unsigned int *ruid, char *state, int len)
{
	char path[300], line[256], word[16];
	FILE *f;

	*ruid = ~0u;
	state[0] = 0;
	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Uid: %u", ruid);
		/* %15s into a buffer of our own: the caller's may be shorter. */
		if (sscanf(line, "StayAwake: %15s", word) == 1 &&
		    (int)strlen(word) < len)
			strcpy(state, word);
	}
	fclose(f);
	return 0;
}

const char *proc_stayawake(int pid, char *buf, int len)
{
	char num[16];
	unsigned int ruid;

	snprintf(num, sizeof(num), "%d", pid);
	proc_status(num, &ruid, buf, len);
	return buf;
}

bool stayawake_debugfs(int pid, struct stayawake_entry *e, int *boosted,
		       int *lines_boosted)
{
	FILE *f = fopen("/sys/kernel/debug/sched/stayawake", "r");
	char line[256];
	bool found = false;

	*boosted = -1;
	*lines_boosted = 0;
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		struct stayawake_entry x;
		int p;

		if (sscanf(line, "# boosted tasks: %d", boosted) == 1)
			continue;
		if (sscanf(line, "%d %31s %15s %lf %lf", &p, x.comm, x.state,
			   &x.awake_s, &x.marked_at_s) != 5)
			continue;
		if (!strcmp(x.state, "boosted"))
			(*lines_boosted)++;
		if (p == pid) {
			*e = x;
			found = true;
		}
	}
	fclose(f);
	return found;
}

int trace_clear(void)
{
	int fd = open("/sys/kernel/tracing/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

long trace_lost(const char *dir)
{
	char path[PATH_MAX], line[128];
	struct dirent *d;
	long n, lost = -1;
	DIR *cpus;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%sper_cpu", dir);
	cpus = opendir(path);
	/* Every CPU the buffer has, also where their numbers have gaps */
	while (cpus && (d = readdir(cpus))) {
		FILE *f;

		if (strncmp(d->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path),
			 "/sys/kernel/tracing/%sper_cpu/%s/stats", dir,
			 d->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %ld", &n) == 1)
				lost = (lost < 0 ? 0 : lost) + n;
		if (f)
			fclose(f);
	}
	if (cpus)
		closedir(cpus);
	return lost;
}

/*
 * The /proc/interrupts line whose last word (the action's name) is @name,
 * into @line; false if there is none.
 */
static bool interrupts_line(const char *name, char *line, int len)
{
	FILE *f = fopen("/proc/interrupts", "r");
	bool found = false;
	char *end;

	while (f && !found && fgets(line, len, f)) {
		end = line + strcspn(line, "\n");
		*end = 0;
		while (end > line && end[-1] != ' ')
			end--;
		found = !strcmp(end, name);
	}
	if (f)
		fclose(f);
	return found;
}

/* Sum over CPUs of the /proc/interrupts line naming @name; -1 if none. */
long irq_count(const char *name)
{
	char line[512], *p;
	long n, sum = 0;
	int used;

	if (!interrupts_line(name, line, sizeof(line)))
		return -1;
	p = strchr(line, ':');
	while (p && sscanf(p + 1, "%ld%n", &n, &used) == 1) {
		sum += n;
		p += used;
	}
	return sum;
}

long rtc_irqs(void)
{
	return irq_count(platform("rtc_irq"));
}

int irq_number(const char *name)
{
	char line[512];
	int irq;

	if (!interrupts_line(name, line, sizeof(line)) ||
	    sscanf(line, " %d:", &irq) != 1)
		return -1;
	return irq;
}

const char *platform(const char *key)
{
	static char val[128];
	char line[192], k[32];
	FILE *f = fopen("/etc/platform", "r");
	bool found = false;

	/* The value is the rest of the line: a reason may have spaces */
	while (f && !found && fgets(line, sizeof(line), f))
		found = line[0] != '#' &&
			sscanf(line, "%31s %127[^\n]", k, val) == 2 &&
			!strcmp(k, key);
	if (f)
		fclose(f);
	if (!found)
		tap_bail("/etc/platform: no %s (tests/platform/ARCH)", key);
	return val;
}

int64_t rtc_early_ns(void)
{
	return atol(platform("rtc_early_ms")) * 1000000LL;
}

int trace_count(const char *s)
{
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");
	char line[512];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, s) != NULL;
	if (f)
		fclose(f);
	return n;
}

const char *active_sources(void)
{
	static char buf[256];
	FILE *f = fopen("/sys/kernel/debug/wakeup_sources", "r");
	char line[512], name[128];
	size_t off = 0;

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long since;

		if (sscanf(line, "%127s %*u %*u %*u %*u %llu", name, &since) == 2 &&
		    since && off < sizeof(buf))
			off += snprintf(buf + off, sizeof(buf) - off, "%s%s",
					off ? "," : "", name);
	}
	if (f)
		fclose(f);
	return off ? buf : "none";
}

int cmdline_int(const char *key, int dflt)
{
	FILE *f = fopen("/proc/cmdline", "r");
	char buf[1024], *p;
	int v = dflt;

	if (f && fgets(buf, sizeof(buf), f) && (p = strstr(buf, key)))
		v = atoi(p + strlen(key));
	if (f)
		fclose(f);
	return v > 0 ? v : dflt;
}

void sources_snap(struct sources_snap *s)
{
	FILE *f;
	char line[512], name[128];
	size_t off = 0;
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 3000000;

	/* debugfs shows active_since in ms: 0 for a source activated < 1 ms ago */
	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
	memset(s, 0, sizeof(*s));
	f = fopen("/sys/kernel/debug/wakeup_sources", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long since;
		unsigned long count;

		if (sscanf(line, "%127s %lu %*u %*u %*u %llu", name, &count,
			   &since) != 3)
			continue;
		if (!strcmp(name, "stayawake")) {
			s->sa_count = count;
			s->sa_active = since > 0;
			continue;
		}
		s->others_count += count;
		if (since && off < sizeof(s->others_active))
			off += snprintf(s->others_active + off,
					sizeof(s->others_active) - off, "%s%s",
					off ? "," : "", name);
	}
	if (f)
		fclose(f);
}

long proc_syscall(int pid)
{
	char path[64];
	FILE *f;
	long nr = -1;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr;
}

bool wait_blocked_in(int pid, long nr, int secs)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + secs * SEC_NS;

	while (!proc_sleeping(pid) || proc_syscall(pid) != nr) {
		if (clock_ns(CLOCK_MONOTONIC) > end)
			return false;
		usleep(1000);
	}
	return true;
}

bool cg1_freeze(const char *dir, pid_t pid)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * SEC_NS;
	char path[256], buf[32];

	if (mkdir(dir, 0755) && errno != EEXIST)
		return false;
	snprintf(buf, sizeof(buf), "%d", pid);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (write_str(path, buf))
		return false;
	snprintf(path, sizeof(path), "%s/freezer.state", dir);
	if (write_str(path, "FROZEN"))
		return false;
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		if (!strcmp(read_line(path, buf, sizeof(buf)), "FROZEN"))
			return true;
		usleep(10000);
	}
	return false;
}

bool rtc_binding_get(struct rtc_binding *b)
{
	char path[PATH_MAX];
	ssize_t len;

	len = readlink("/sys/class/rtc/rtc0/device", path, sizeof(path) - 1);
	if (len < 0)
		return false;
	path[len] = 0;
	strcpy(b->dev, basename(path));
	return realpath("/sys/class/rtc/rtc0/device/driver", b->drv) != NULL;
}

int rtc_binding_write(const struct rtc_binding *b, const char *file)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/%s", b->drv, file);
	return write_str(path, b->dev);
}

bool rtc_bound(const struct rtc_binding *b)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", b->drv, b->dev);
	return access(path, F_OK) == 0;
}

pid_t alarm_sleeper(bool marked, int64_t deadline, int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { deadline / SEC_NS, deadline % SEC_NS };
		int64_t woke;

		if (marked && stayawake_mark(0, true))
			_exit(2);
		while (clock_nanosleep(CLOCK_BOOTTIME_ALARM, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		woke = clock_ns(CLOCK_BOOTTIME);
		_exit(write(fd, &woke, sizeof(woke)) != sizeof(woke));
	}
	return pid;
}
