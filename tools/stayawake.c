// SPDX-License-Identifier: GPL-2.0
/*
 * stayawake: run a command marked SCHED_STAYAWAKE, mark or unmark another
 * task, list who keeps the system awake. See stayawake.1.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/sched.h>
/* The uapi struct sched_param clashes with glibc's: take only sched_attr. */
#define sched_param __uapi_sched_param
#include <linux/sched/types.h>
#undef sched_param

/* Exit codes, as the man page lists them */
#define EX_FAIL		1	/* the kernel refused: permission, no such pid */
#define EX_USAGE	2
#define EX_NOFEATURE	3	/* this kernel lacks SCHED_STAYAWAKE */
#define EX_NODEBUGFS	4
#define EX_NOEXEC	126
#define EX_NOTFOUND	127

#define DEBUGFS		"/sys/kernel/debug"

static const char usage[] =
"usage: stayawake [--] COMMAND [ARG]...   run COMMAND marked important\n"
"       stayawake -p PID on|off           mark or unmark a running task\n"
"       stayawake list                    who keeps the system awake now\n"
"       stayawake -h | --help\n"
"\n"
"A task marked SCHED_STAYAWAKE keeps the system out of suspend, except\n"
"while it waits on an alarm clock (CLOCK_BOOTTIME_ALARM,\n"
"CLOCK_REALTIME_ALARM: a sleep, a timerfd alone or in poll/select/epoll,\n"
"a POSIX timer's signal), which wakes the system when it is due. Alarm\n"
"timers need CAP_WAKE_ALARM: without it they fail with EPERM.\n"
"Marking needs CAP_BLOCK_SUSPEND (restating or clearing a mark does not);\n"
"changing another user's task, or a SCHED_DEADLINE one, CAP_SYS_NICE.\n"
"Exit status: 0 done, 1 refused by the kernel (the message names a missing\n"
"capability), 2 usage, 3 no SCHED_STAYAWAKE in this kernel, 4 debugfs not\n"
"mounted, 126/127 COMMAND not runnable/not found; else COMMAND's own.\n";

static int die(int code, const char *fmt, const char *arg)
{
	char msg[512];

	/* One write, so the line never interleaves with others */
	snprintf(msg, sizeof(msg), fmt, arg);
	fprintf(stderr, "stayawake: %s\n", msg);
	return code;
}

/* Does this kernel show a StayAwake: line for us? */
static int kernel_has_stayawake(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int found = 0;

	if (!f)
		return -1;		/* no /proc: cannot tell */
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "StayAwake:", 10);
	fclose(f);
	return found;
}

/* Is capability @cap in our effective set? */
static int have_cap(int cap)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;
	char line[256];

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return !!(eff & 1ULL << cap);
}

/*
 * Does the task belong to another user, as the kernel's owner check sees
 * it (our euid is neither its euid nor its uid)?
 */
static int other_owner(pid_t pid)
{
	unsigned int ruid, euid;
	char path[64], line[256];
	int other = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2) {
			other = geteuid() != euid && geteuid() != ruid;
			break;
		}
	fclose(f);
	return other;
}

static int is_kthread(pid_t pid)
{
	char path[64], buf[512], *p;
	unsigned long flags = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	/* field 9, after "pid (comm) state ppid pgrp session tty tpgid" */
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags);
	fclose(f);
	return !!(flags & 0x00200000);	/* PF_KTHREAD */
}

/*
 * EPERM: name what is missing. Marking needs CAP_BLOCK_SUSPEND (restating
 * a mark does not, on kernels that tell the two apart); changing another
 * user's task, or any SCHED_DEADLINE task, needs CAP_SYS_NICE.
 */
static int not_permitted(pid_t pid, int on, const char *who)
{
	int bs = on && !have_cap(CAP_BLOCK_SUSPEND);
	int other = other_owner(pid);
	int nice = !have_cap(CAP_SYS_NICE) && (other ||
		(sched_getscheduler(pid) & 0xff) == SCHED_DEADLINE);
	char why[160];

	if (!bs && !nice)
		return die(EX_FAIL, "not permitted to change %s", who);
	snprintf(why, sizeof(why), "%s %s needs %s%s%s%s", on ? "marking" :
		 "unmarking", who, bs ? "CAP_BLOCK_SUSPEND" : "",
		 bs && nice ? " and " : "", nice ? "CAP_SYS_NICE" : "",
		 !nice ? "" : other ? " (another user's task)" :
		 " (a SCHED_DEADLINE task)");
	return die(EX_FAIL, "%s", why);
}

static int refused(pid_t pid, int on, const char *who)
{
	switch (errno) {
	case ESRCH:
		return die(EX_FAIL, "no such process: %s", who);
	case EPERM:
		return not_permitted(pid, on, who);
	case EINVAL:
		if (kernel_has_stayawake() == 0)
			return die(EX_NOFEATURE, "this kernel lacks "
				   "SCHED_STAYAWAKE (%s)", "CONFIG_SCHED_STAYAWAKE");
		if (is_kthread(pid))
			return die(EX_FAIL, "%s is a kernel thread, which "
				   "cannot be marked", who);
		return die(EX_FAIL, "the kernel refused to mark %s", who);
	default:
		return die(EX_FAIL, "sched_setattr: %s", strerror(errno));
	}
}

/*
 * Set the mark with SCHED_FLAG_KEEP_ALL, so that the policy, priority and
 * nice value stay. KEEP_ALL without the flag keeps the mark too, so clear
 * it by restating the task's own attributes without the flag. (Another
 * task could change its policy between the two calls; the second would
 * undo that.)
 */
static int mark(pid_t pid, int on, const char *who)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_STAYAWAKE,
	};

	if (!on) {
		if (syscall(SYS_sched_getattr, pid, &attr, sizeof(attr), 0))
			return refused(pid, on, who);
		attr.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
	}
	if (!syscall(SYS_sched_setattr, pid, &attr, 0))
		return 0;
	return refused(pid, on, who);
}

static int run(char **argv)
{
	int rc = mark(0, 1, "this process");

	if (rc)
		return rc;
	execvp(argv[0], argv);
	rc = errno == ENOENT ? EX_NOTFOUND : EX_NOEXEC;
	fprintf(stderr, "stayawake: %s: %s\n", argv[0], strerror(errno));
	return rc;
}

static int set_pid(const char *arg, const char *onoff)
{
	char *end;
	long pid = strtol(arg, &end, 10);

	if (!*arg || *end || pid <= 0 || pid > 0x3fffffff)
		return die(EX_USAGE, "not a pid: '%s' (see --help)", arg);
	if (strcmp(onoff, "on") && strcmp(onoff, "off"))
		return die(EX_USAGE, "say on or off, not '%s'", onoff);
	return mark((pid_t)pid, !strcmp(onoff, "on"), arg);
}

/* The shared "stayawake" source and any other source holding us awake. */
static void list_sources(void)
{
	FILE *f = fopen(DEBUGFS "/wakeup_sources", "r");
	unsigned long active, event, wakeup, expire;
	unsigned long long since, total, max, last, prevent;
	char line[512], name[128];
	int others = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lu %lu %lu %lu %llu %llu %llu %llu %llu",
			   name, &active, &event, &wakeup, &expire, &since,
			   &total, &max, &last, &prevent) != 10)
			continue;
		if (!strcmp(name, "stayawake")) {
			printf("stayawake source: %s, activated %lu times, "
			       "held %llu.%03llu s in total\n",
			       since ? "active" : "idle", active,
			       total / 1000, total % 1000);
		} else if (since) {
			printf("%s %s (active %llu ms)", others++ ? "," :
			       "also holding the system awake:", name, since);
		}
	}
	if (others)
		putchar('\n');
	fclose(f);
}

static int list(void)
{
	FILE *f = fopen(DEBUGFS "/sched/stayawake", "r");
	char line[256], comm[32], state[16];
	int pid, lender, boosted = 0, n = 0, borrowing = 0;
	double awake, marked;

	if (!f && access(DEBUGFS "/wakeup_sources", R_OK))
		return die(EX_NODEBUGFS, "debugfs is not mounted (mount -t "
			   "debugfs none %s)", DEBUGFS);
	if (!f)
		return die(EX_NOFEATURE, "this kernel lacks SCHED_STAYAWAKE "
			   "(no %s)", DEBUGFS "/sched/stayawake");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# boosted tasks: %d", &boosted) == 1)
			continue;
		/* Unmarked tasks that borrow a marked task's boost */
		if (sscanf(line, "%d %31s borrowed from %d", &pid, comm,
			   &lender) == 3) {
			printf("%7d  %-16s borrowed from PID %d\n", pid, comm,
			       lender);
			borrowing++;
			continue;
		}
		if (sscanf(line, "%d %31s %15s %lf %lf", &pid, comm, state,
			   &awake, &marked) != 5)
			continue;
		if (!n++)
			printf("%7s  %-16s %-10s %12s %14s\n", "PID", "COMMAND",
			       "STATE", "AWAKE_S", "MARKED_AT_S");
		printf("%7d  %-16s %-10s %12.3f %14.3f\n", pid, comm, state,
		       awake, marked);
	}
	fclose(f);
	printf("%d marked, %d borrowing, %d keeping the system awake\n", n,
	       borrowing, boosted);
	list_sources();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return die(EX_USAGE, "%s", "no command (see --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "list")) {
		if (argc != 2)
			return die(EX_USAGE, "list takes no arguments, got '%s'",
				   argv[2]);
		return list();
	}
	if (!strcmp(argv[1], "-p")) {
		if (argc != 4)
			return die(EX_USAGE, "%s", "usage: stayawake -p PID on|off");
		return set_pid(argv[2], argv[3]);
	}
	if (!strcmp(argv[1], "--")) {
		if (argc < 3)
			return die(EX_USAGE, "%s", "no command after --");
		return run(argv + 2);
	}
	if (argv[1][0] == '-')
		return die(EX_USAGE, "unknown option '%s' (see --help)",
			   argv[1]);
	return run(argv + 1);
}
