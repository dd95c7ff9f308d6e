// SPDX-License-Identifier: GPL-2.0
/*
 * Stopped and frozen important tasks: a SCHED_STAYAWAKE task that cannot run
 * does not keep the system awake.
 *
 * Per way of stopping a task (job control: SIGSTOP and SIGTSTP; ptrace:
 * PTRACE_SEIZE + PTRACE_INTERRUPT, and PTRACE_ATTACH; cgroup v2
 * cgroup.freeze; cgroup v1 freezer.state), two marked children, one spinning
 * in user space and one blocked in a pipe read (a wait no wakeup device ends,
 * so it keeps its boost), are stopped and the kernel's own word that they
 * are is waited for: 'T' or 't' in /proc/PID/stat, "frozen 1" in
 * cgroup.events, FROZEN in freezer.state. Then:
 *
 *  - both are deboosted (/proc/PID/status "StayAwake:", the "stayawake"
 *    wakeup source idle, the debugfs count of boosted tasks 0), and the
 *    system suspends on an RTC alarm (suspend_stats/success, BOOTTIME ahead
 *    of MONOTONIC), after which both are still stopped and deboosted;
 *  - as soon as SIGCONT, PTRACE_CONT, PTRACE_DETACH or the thaw returns,
 *    both are boosted again (the waker reboosts; nothing waits for the
 *    children to run), and "mem" is refused with EBUSY by "stayawake";
 *  - the stayawake:stayawake_deboost and _reboost trace events of both
 *    carry the mechanism's reason (stop, ptrace, cgroup) and balance;
 *  - stopped again, unmarked and marked again by the test (a manager's
 *    sched_setscheduler()), both stay deboosted: a mark does not boost a
 *    task that cannot run; the continue boosts them as before;
 *  - stopped again and killed with SIGKILL (a v1-frozen task dies only once
 *    thawed), they leave nothing held: the source idle, no boosted task, and
 *    the system suspends.
 *
 * A cgroup hierarchy that is not mounted (a kernel without CONFIG_CGROUPS or
 * CONFIG_CGROUP_FREEZER; /init mounts cgroup2 at /sys/fs/cgroup and the v1
 * freezer at /dev/freezer) fails that mechanism's cases: it is not a skip.
 *
 * The system freezer during an ordinary suspend, with a deboosted alarm
 * sleeper, is boost_waits' "alarm timerfd read" story, alarm_sleep's and
 * frozen_alarm's; here it only meets tasks that are already stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define TR "/sys/kernel/tracing/"
#define CG2 "/sys/fs/cgroup"
#define CG2_DIR CG2 "/sa-stopped"
#define CG1 "/dev/freezer"
#define CG1_DIR CG1 "/sa-stopped"
/* Bound on every wait for the kernel's state (s). */
#define WAIT_S 10

enum mech_kind { M_SIGSTOP, M_SIGTSTP, M_SEIZE, M_ATTACH, M_CG2, M_CG1 };

static const struct mech {
	const char *name;
	const char *reason;	/* of the trace events */
} mechs[] = {
	[M_SIGSTOP] = { "SIGSTOP", "stop" },
	[M_SIGTSTP] = { "SIGTSTP", "stop" },
	[M_SEIZE]   = { "ptrace seize", "ptrace" },
	[M_ATTACH]  = { "ptrace attach", "ptrace" },
	[M_CG2]     = { "cgroup v2 freeze", "cgroup" },
	[M_CG1]     = { "cgroup v1 freezer", "cgroup" },
};

enum { SPINNER, READER, NCHILD };
static const char *const child_name[NCHILD] = { "spinner", "reader" };

static pid_t main_pid;
static pid_t kids[NCHILD];
static int hold_fd = -1;	/* the write end of the reader's pipe */
static bool cg1_made, cg2_made;

/* ---- the kernel's state ---- */

static const char *sa_state(pid_t pid)
{
	static char buf[NCHILD][16];
	static int i;
	char *b = buf[i++ % NCHILD];

	proc_stayawake(pid, b, 16);
	return b[0] ? b : "(none)";
}

/* The boosted tasks the kernel counts (debugfs header); -1 if unread. */
static int boosted_tasks(void)
{
	FILE *f = fopen("/sys/kernel/debug/sched/stayawake", "r");
	char line[256];
	int n = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "# boosted tasks: %d", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

/* cgroup.events says "frozen 1". */
static bool cg2_frozen(void)
{
	FILE *f = fopen(CG2_DIR "/cgroup.events", "r");
	char line[64];
	bool frozen = false;

	while (f && fgets(line, sizeof(line), f))
		if (!strcmp(line, "frozen 1\n"))
			frozen = true;
	if (f)
		fclose(f);
	return frozen;
}

static bool cg1_frozen(void)
{
	char buf[32];

	return !strcmp(read_line(CG1_DIR "/freezer.state", buf, sizeof(buf)),
		       "FROZEN");
}

/* The kernel says the mechanism holds the child. */
static bool is_stopped(enum mech_kind m, pid_t pid)
{
	switch (m) {
	case M_SIGSTOP:
	case M_SIGTSTP:
		return proc_state(pid) == 'T';
	case M_SEIZE:
	case M_ATTACH:
		return proc_state(pid) == 't';
	case M_CG2:
		return cg2_frozen();
	case M_CG1:
		return cg1_frozen();
	}
	return false;
}

static bool all_deboosted(void)
{
	for (int i = 0; i < NCHILD; i++)
		if (strcmp(sa_state(kids[i]), "deboosted"))
			return false;
	return true;
}

static bool all_stopped(enum mech_kind m)
{
	for (int i = 0; i < NCHILD; i++)
		if (!is_stopped(m, kids[i]))
			return false;
	return true;
}

/* Poll cond() every ms for at most secs; how long it took in *ms. */
static bool wait_for(bool (*cond)(void *), void *arg, int secs, double *ms)
{
	int64_t t0 = clock_ns(CLOCK_MONOTONIC), end = t0 + secs * SEC_NS;
	bool ok;

	while (!(ok = cond(arg)) && clock_ns(CLOCK_MONOTONIC) < end)
		usleep(1000);
	if (ms)
		*ms = (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6;
	return ok;
}

static bool cond_stopped(void *m)
{
	return all_stopped(*(enum mech_kind *)m);
}

static bool cond_deboosted(void *unused)
{
	return all_deboosted();
}

/* The children's states, for a witness (static buffer). */
static const char *kids_str(void)
{
	static char buf[160];
	int off = 0;

	for (int i = 0; i < NCHILD; i++) {
		char st = proc_state(kids[i]);

		off += snprintf(buf + off, sizeof(buf) - off,
				"%s%s %d '%c' StayAwake: %s", i ? ", " : "",
				child_name[i], kids[i], st ? st : '-',
				sa_state(kids[i]));
	}
	return buf;
}

/* ---- tracing ---- */

static void tracing(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TR "%s", file);
	write_str(path, val);
}

static void trace_start(void)
{
	tracing("tracing_on", "0");
	trace_clear();
	tracing("buffer_size_kb", "1024");
	tracing("events/stayawake/enable", "1");
	tracing("tracing_on", "1");
}

static void trace_stop(void)
{
	tracing("tracing_on", "0");
	tracing("events/stayawake/enable", "0");
}

struct boosts {
	int deboost, reboost;		/* with the mechanism's reason */
	int deboost_all, reboost_all;	/* with any reason */
	char others[96];		/* events with another reason */
};

/* The stayawake_deboost/_reboost events of @pid in the trace buffer. */
static void read_boosts(pid_t pid, const char *reason, struct boosts *b)
{
	FILE *f = fopen(TR "trace", "r");
	char line[512], who[32], why[32];
	int off = 0;

	memset(b, 0, sizeof(*b));
	snprintf(who, sizeof(who), " pid=%d ", pid);
	snprintf(why, sizeof(why), " reason=%s", reason);
	while (f && fgets(line, sizeof(line), f)) {
		char *deb = strstr(line, ": stayawake_deboost:");
		char *reb = strstr(line, ": stayawake_reboost:");
		char *ev = deb ? deb : reb;
		char *r;

		if (line[0] == '#' || !ev || !strstr(ev, who))
			continue;
		if (deb)
			b->deboost_all++;
		else
			b->reboost_all++;
		r = strstr(ev, " reason=");
		if (r && !strncmp(r, why, strlen(why)) &&
		    (r[strlen(why)] == '\n' || r[strlen(why)] == ' ' ||
		     !r[strlen(why)])) {
			if (deb)
				b->deboost++;
			else
				b->reboost++;
		} else if (off < (int)sizeof(b->others) - 1) {
			off += snprintf(b->others + off, sizeof(b->others) - off,
					"%s%s:%.*s", off ? "," : "",
					deb ? "deboost" : "reboost",
					r ? (int)strcspn(r + 8, " \n") : 1,
					r ? r + 8 : "?");
		}
	}
	if (f)
		fclose(f);
}

/* ---- children ---- */

static void child_body(int kind, int ready, int block)
{
	volatile unsigned long spins = 0;
	char c;

	/* A process group of its own, not orphaned: SIGTSTP stops it. */
	setpgid(0, 0);
	if (stayawake_mark(0, true))
		_exit(2);
	if (write(ready, "r", 1) != 1)
		_exit(3);
	if (kind == READER)
		(void)!read(block, &c, 1);
	else
		for (;;)
			spins++;
	_exit(0);
}

/* Both children, marked, spinning and blocked in the read respectively. */
static bool start_kids(char *why, int len)
{
	int ready[2], block[2];
	char c;

	if (pipe(ready) || pipe(block))
		tap_bail("pipe: %s", strerror(errno));
	for (int i = 0; i < NCHILD; i++) {
		kids[i] = fork();
		if (kids[i] < 0)
			tap_bail("fork: %s", strerror(errno));
		if (!kids[i]) {
			close(ready[0]);
			close(block[1]);
			child_body(i, ready[1], block[0]);
		}
		setpgid(kids[i], kids[i]);
	}
	close(ready[1]);
	close(block[0]);
	hold_fd = block[1];
	for (int i = 0; i < NCHILD; i++) {
		if (read(ready[0], &c, 1) != 1) {
			close(ready[0]);
			snprintf(why, len, "a child could not mark itself");
			return false;
		}
	}
	close(ready[0]);
	if (!wait_blocked_in(kids[READER], SYS_read, WAIT_S)) {
		snprintf(why, len, "the reader never blocked in read()");
		return false;
	}
	for (int i = 0; i < NCHILD; i++) {
		if (strcmp(sa_state(kids[i]), "boosted")) {
			snprintf(why, len, "not boosted before the stop: %s",
				 kids_str());
			return false;
		}
	}
	return true;
}

/* Wait until no child is left; true if all were reaped within the bound. */
static bool reap_kids(void)
{
	int64_t end = clock_ns(CLOCK_MONOTONIC) + WAIT_S * SEC_NS;
	bool all = true;

	for (int i = 0; i < NCHILD; i++) {
		int st;

		while (kids[i] > 0) {
			pid_t r = waitpid(kids[i], &st, WNOHANG | __WALL);

			if (r == kids[i] && (WIFEXITED(st) || WIFSIGNALED(st))) {
				kids[i] = 0;
			} else if (r < 0) {
				kids[i] = 0;
			} else if (clock_ns(CLOCK_MONOTONIC) > end) {
				all = false;
				break;
			} else if (r == 0) {
				usleep(1000);
			}
		}
	}
	return all;
}

static void cg_thaw(void)
{
	if (cg2_made)
		write_str(CG2_DIR "/cgroup.freeze", "0");
	if (cg1_made)
		write_str(CG1_DIR "/freezer.state", "THAWED");
}

static void cg_remove(void)
{
	if (cg2_made && !rmdir(CG2_DIR))
		cg2_made = false;
	if (cg1_made && !rmdir(CG1_DIR))
		cg1_made = false;
}

/* However the program ends: no child, no cgroup, no trace event left. */
static void teardown(void)
{
	if (getpid() != main_pid)
		return;
	cg_thaw();
	for (int i = 0; i < NCHILD; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	reap_kids();
	if (hold_fd >= 0)
		close(hold_fd);
	hold_fd = -1;
	cg_remove();
	trace_stop();
}

/* Put both children into the mechanism's cgroup. */
static bool cg_enter(enum mech_kind m, char *why, int len)
{
	const char *dir = m == M_CG2 ? CG2_DIR : CG1_DIR;
	const char *root = m == M_CG2 ? CG2 "/cgroup.procs" : CG1 "/cgroup.procs";
	char path[128], num[16];
	int err;

	if (access(root, F_OK)) {
		snprintf(why, len, "%s is not mounted (%s: %s)",
			 m == M_CG2 ? "cgroup2" : "the v1 freezer", root,
			 strerror(errno));
		return false;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(why, len, "mkdir %s: %s", dir, strerror(errno));
		return false;
	}
	if (m == M_CG2)
		cg2_made = true;
	else
		cg1_made = true;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	for (int i = 0; i < NCHILD; i++) {
		snprintf(num, sizeof(num), "%d", kids[i]);
		err = write_str(path, num);
		if (err) {
			snprintf(why, len, "%s <- %s: %s", path, num,
				 strerror(-err));
			return false;
		}
	}
	return true;
}

/* ---- the mechanisms ---- */

/* Stop both; ptrace's stops are also reported to us by waitpid(). */
static int do_stop(enum mech_kind m, bool again)
{
	int err = 0;

	for (int i = 0; i < NCHILD && !err; i++) {
		pid_t p = kids[i];

		switch (m) {
		case M_SIGSTOP:
			err = kill(p, SIGSTOP);
			break;
		case M_SIGTSTP:
			err = kill(p, SIGTSTP);
			break;
		case M_SEIZE:
			if (!again)
				err = ptrace(PTRACE_SEIZE, p, 0, 0);
			if (!err)
				err = ptrace(PTRACE_INTERRUPT, p, 0, 0);
			break;
		case M_ATTACH:
			err = ptrace(PTRACE_ATTACH, p, 0, 0);
			break;
		case M_CG2:
			if (i == 0)
				return write_str(CG2_DIR "/cgroup.freeze", "1");
			break;
		case M_CG1:
			if (i == 0)
				return write_str(CG1_DIR "/freezer.state",
						 "FROZEN");
			break;
		}
	}
	return err ? -errno : 0;
}

/* Consume the ptrace stop reports, so the next waitpid() sees the exit. */
static void eat_stops(enum mech_kind m)
{
	int st;

	if (m != M_SEIZE && m != M_ATTACH)
		return;
	for (int i = 0; i < NCHILD; i++)
		waitpid(kids[i], &st, WNOHANG | __WALL);
}

/*
 * Let one child (or, for the cgroups, both) go on, and read StayAwake: as
 * soon as the call returns.
 */
static int do_continue(enum mech_kind m, char after[NCHILD][16])
{
	int err = 0;

	if (m == M_CG2 || m == M_CG1) {
		err = m == M_CG2 ? write_str(CG2_DIR "/cgroup.freeze", "0") :
			write_str(CG1_DIR "/freezer.state", "THAWED");
		for (int i = 0; i < NCHILD; i++)
			proc_stayawake(kids[i], after[i], 16);
		return err;
	}
	for (int i = 0; i < NCHILD; i++) {
		pid_t p = kids[i];
		int e;

		if (m == M_SEIZE)
			e = ptrace(PTRACE_CONT, p, 0, 0);
		else if (m == M_ATTACH)
			e = ptrace(PTRACE_DETACH, p, 0, 0);
		else
			e = kill(p, SIGCONT);
		proc_stayawake(p, after[i], 16);
		if (e && !err)
			err = -errno;
	}
	return err;
}

static const char *case_names[] = {
	"stopped: deboosted",
	"stopped: the system suspends",
	"continued: boosted at once",
	"continued: mem refused",
	"trace: deboost and reboost carry the reason",
	"marked again while stopped: deboosted",
	"marked again while stopped, continued: boosted at once",
	"killed while stopped: nothing held",
	"killed while stopped: the system suspends",
};

#define NCASES (sizeof(case_names) / sizeof(case_names[0]))

/* The cases not reached fail with the reason why. */
static void fail_rest(enum mech_kind m, unsigned int from, const char *why)
{
	for (unsigned int i = from; i < NCASES; i++)
		tap_check(false, tap_case(mechs[m].name, case_names[i]), "%s",
			  why);
}

static void suspend_case(enum mech_kind m, const char *caze, bool stopped)
{
	struct alarm_suspend as;
	bool still_stopped = true, still_deboosted = true;

	wait_sources_idle();
	alarm_suspend(3, &as);
	/*
	 * The system's thaw wakes a cgroup v2 frozen task, which leaves its
	 * trap and freezes again (cgroup.events says frozen 0 meanwhile):
	 * give it a bounded moment to be back.
	 */
	if (stopped) {
		still_stopped = wait_for(cond_stopped, &m, 2, NULL);
		still_deboosted = wait_for(cond_deboosted, NULL, 2, NULL);
	}
	tap_check(as.ok && as.suspended_ns > SEC_NS && still_stopped &&
		  still_deboosted, tap_case(mechs[m].name, caze),
		  "write: %s, success %ld->%ld, suspended %.2f s%s%s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, as.suspended_ns / 1e9,
		  stopped ? "; after it: " : "", stopped ? kids_str() : "");
}

/*
 * Continue both: boosted as soon as the call returns; then the reader is
 * back in its read(), where it blocks boosted.
 */
static void continue_case(enum mech_kind m, const char *caze)
{
	char after[NCHILD][16];
	int err = do_continue(m, after);

	tap_check(!err && !strcmp(after[SPINNER], "boosted") &&
		  !strcmp(after[READER], "boosted"),
		  tap_case(mechs[m].name, caze),
		  "continue: %s, StayAwake: right after it: spinner %s, reader %s",
		  err ? strerror(-err) : "ok", after[SPINNER], after[READER]);
	wait_blocked_in(kids[READER], SYS_read, WAIT_S);
}

/* Stop both again; if they do not stop, the cases from @from on fail. */
static bool stop_again(enum mech_kind m, unsigned int from)
{
	char why[200];
	double t_stop;
	int err = do_stop(m, true);
	bool stopped = !err && wait_for(cond_stopped, &m, WAIT_S, &t_stop);

	eat_stops(m);
	if (!stopped) {
		snprintf(why, sizeof(why), "not stopped again (%s): %s",
			 err ? strerror(-err) : "ok", kids_str());
		fail_rest(m, from, why);
		teardown();
	}
	return stopped;
}

static void run_mech(enum mech_kind m)
{
	const char *name = mechs[m].name;
	char why[200];
	struct boosts b[NCHILD];
	double t_stop, t_deb;
	bool stopped, deboosted, ok;
	int err, boosted;

	tap_diag("---- %s", name);
	if (!start_kids(why, sizeof(why))) {
		fail_rest(m, 0, why);
		teardown();
		return;
	}
	if ((m == M_CG2 || m == M_CG1) && !cg_enter(m, why, sizeof(why))) {
		fail_rest(m, 0, why);
		teardown();
		return;
	}

	/* (a) stopped: deboosted, and the system suspends */
	trace_start();
	err = do_stop(m, false);
	stopped = !err && wait_for(cond_stopped, &m, WAIT_S, &t_stop);
	eat_stops(m);
	deboosted = stopped && wait_for(cond_deboosted, NULL, 2, &t_deb);
	boosted = boosted_tasks();
	ok = stopped && deboosted && !stayawake_source_active() && boosted == 0;
	tap_check(ok, tap_case(name, case_names[0]),
		  "stop: %s, stopped %s after %.1f ms, %s; %s, boosted tasks %d",
		  err ? strerror(-err) : "ok", stopped ? "yes" : "NO",
		  stopped ? t_stop : 0.0, kids_str(), stayawake_source_str(),
		  boosted);
	if (!stopped) {
		fail_rest(m, 1, "not stopped");
		teardown();
		return;
	}
	suspend_case(m, case_names[1], true);

	/* (b) continued: boosted as soon as the call returns, mem refused */
	continue_case(m, case_names[2]);
	check_suspend_refused(tap_case(name, case_names[3]));

	/* (d) the trace of both, from the stop to here */
	tracing("tracing_on", "0");
	for (int i = 0; i < NCHILD; i++)
		read_boosts(kids[i], mechs[m].reason, &b[i]);
	ok = true;
	for (int i = 0; i < NCHILD; i++)
		ok = ok && b[i].deboost >= 1 && b[i].reboost >= 1 &&
		     b[i].deboost_all == b[i].reboost_all;
	tap_check(ok, tap_case(name, case_names[4]),
		  "reason=%s: spinner deboost x%d reboost x%d (all reasons "
		  "%d/%d, others: %s), reader deboost x%d reboost x%d (all "
		  "reasons %d/%d, others: %s)", mechs[m].reason,
		  b[0].deboost, b[0].reboost, b[0].deboost_all, b[0].reboost_all,
		  b[0].others[0] ? b[0].others : "none", b[1].deboost,
		  b[1].reboost, b[1].deboost_all, b[1].reboost_all,
		  b[1].others[0] ? b[1].others : "none");
	trace_stop();

	/*
	 * (e) a manager unmarks and marks both while they are stopped: the new
	 * mark does not hold the system awake for a task that cannot run, and
	 * the continue still boosts it
	 */
	if (!stop_again(m, 5))
		return;
	err = 0;
	for (int i = 0; i < NCHILD && !err; i++)
		if (stayawake_mark(kids[i], false) || stayawake_mark(kids[i], true))
			err = -errno;
	deboosted = !err && wait_for(cond_deboosted, NULL, 2, &t_deb);
	boosted = boosted_tasks();
	tap_check(deboosted && !stayawake_source_active() && boosted == 0,
		  tap_case(name, case_names[5]),
		  "unmark and mark: %s; %s; %s, boosted tasks %d",
		  err ? strerror(-err) : "ok", kids_str(),
		  stayawake_source_str(), boosted);
	continue_case(m, case_names[6]);

	/* (c) stopped again and killed: nothing held */
	if (!stop_again(m, 7))
		return;
	for (int i = 0; i < NCHILD; i++)
		kill(kids[i], SIGKILL);
	if (m == M_CG1) {
		/* A v1-frozen task dies once thawed. */
		snprintf(why, sizeof(why), "killed while frozen: %s",
			 kids_str());
		tap_diag("%s", why);
		write_str(CG1_DIR "/freezer.state", "THAWED");
	}
	ok = reap_kids();
	boosted = boosted_tasks();
	tap_check(ok && !stayawake_source_active() && boosted == 0,
		  tap_case(name, case_names[7]),
		  "reaped: %s, %s, boosted tasks %d", ok ? "yes" : "NO",
		  stayawake_source_str(), boosted);
	close(hold_fd);
	hold_fd = -1;
	cg_remove();
	suspend_case(m, case_names[8], false);
}

int main(void)
{
	tap_init("stopped_frozen");
	main_pid = getpid();
	atexit(teardown);
	if (!wakeup_stat("stayawake", &(struct wakeup_stat){ 0 }))
		tap_bail("no 'stayawake' wakeup source: kernel without SCHED_STAYAWAKE?");

	for (enum mech_kind m = M_SIGSTOP; m <= M_CG1; m++)
		run_mech(m);
	return tap_done();
}
