// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input and security: SCHED_STAYAWAKE combined with every other policy
 * and flag, invalid parameters and pids get a clean error and change
 * nothing; a user without CAP_BLOCK_SUSPEND cannot block suspend by any
 * route nor touch another user's tasks. Tests api covers the basics.
 *
 * The flag cases and the owner cases go through the series' own checks in
 * __sched_setscheduler(): every sched_setattr() flag next to
 * SCHED_FLAG_STAYAWAKE, errors before and after the mark's checks, and who
 * may mark whom (root, a user with CAP_BLOCK_SUSPEND and/or CAP_SYS_NICE,
 * one with neither). Each is judged by the return value and by the
 * kernel's state: the getter, /proc/PID/status StayAwake:, and the
 * "stayawake" wakeup source.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

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

/* The kernel's view of a task: the getter, /proc StayAwake:, the source. */
struct kstate {
	int pol;
	char sa[16];
	bool src;
};

static void kstate(pid_t pid, struct kstate *k)
{
	k->pol = sched_getscheduler(pid);
	proc_stayawake(pid ? pid : getpid(), k->sa, sizeof(k->sa));
	k->src = stayawake_source_active();
}

/* Marked and holding the system (no other task is marked meanwhile). */
static bool k_marked(const struct kstate *k)
{
	return k->pol >= 0 && (k->pol & SCHED_STAYAWAKE) &&
	       !strcmp(k->sa, "boosted") && k->src;
}

static bool k_unmarked(const struct kstate *k)
{
	return k->pol >= 0 && !(k->pol & SCHED_STAYAWAKE) &&
	       !strcmp(k->sa, "off") && !k->src;
}

#define KFMT "policy %#x, StayAwake: %s, stayawake %s"
#define KARGS(k) (k).pol, (k).sa, (k).src ? "active" : "idle"

/* Mark with another policy, read both back, go back to SCHED_OTHER. */
static void with_policy(int policy, int prio, const char *name)
{
	int r = setsched(0, policy | SCHED_STAYAWAKE, prio);
	struct kstate k;

	kstate(0, &k);
	tap_check(!r && (k.pol & ~SCHED_STAYAWAKE) == policy && k_marked(&k),
		  name, "errno %d, " KFMT, r, KARGS(k));
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
	tap_check(!r && marked(0) == 1, "... and without it keeps the mark",
		  "errno %d, marked %d", r, marked(0));
	setsched(0, SCHED_OTHER, 0);
}

/* ---- every flag that reaches __sched_setscheduler() with the mark ---- */

/*
 * A task that waits until killed, with a policy of its own, then (if @uid
 * is not 0) the uids of @uid: the target of the cases below.
 */
static pid_t waiter(int policy, int prio, uid_t uid)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		/*
		 * A SCHED_DEADLINE target with DL_OVERRUN gets SIGXCPU when it
		 * overruns its runtime, as the kick of a mark can make it do on
		 * a slow (debug) kernel: that must not end it mid-case.
		 */
		signal(SIGXCPU, SIG_IGN);
		if (setsched(0, policy, prio) ||
		    (uid && (setresgid(uid, uid, uid) ||
			     setresuid(uid, uid, uid))) ||
		    write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		tap_diag("target %d failed to start", pid);
	close(ready[0]);
	return pid;
}

static pid_t target(int policy, int prio)
{
	return waiter(policy, prio, 0);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int getflags(pid_t pid)
{
	struct sched_attr a = { .size = sizeof(a) };

	return sys_sched_getattr(pid, &a, sizeof(a), 0) ? -1 : (int)a.sched_flags;
}

/*
 * sched_setattr() on a fresh target of @policy/@prio: the result is @want
 * (an errno), and the target ends marked exactly when the call worked.
 */
static void attr_case(const char *name, int policy, int prio,
		      struct sched_attr *a, int want, int want_pol)
{
	pid_t pid = target(policy, prio);
	int r = setattr(pid, a), fl = getflags(pid);
	struct kstate k;

	kstate(pid, &k);
	tap_check(r == want && (want ? k_unmarked(&k) : k_marked(&k)) &&
		  (k.pol & ~SCHED_STAYAWAKE & ~SCHED_RESET_ON_FORK) ==
		  (want ? policy : want_pol),
		  name, "errno %d, " KFMT ", sched_flags %#x", r, KARGS(k), fl);
	reap(pid);
}

static void flags(void)
{
	struct sched_attr a;
	struct sched_param sp = { 0 };
	struct kstate k;
	int r, fl;
	pid_t pid;

	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_OTHER,
		.sched_flags = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_RESET_ON_FORK };
	pid = target(SCHED_OTHER, 0);
	r = setattr(pid, &a);
	fl = getflags(pid);
	kstate(pid, &k);
	tap_check(!r && k_marked(&k) && (k.pol & SCHED_RESET_ON_FORK) &&
		  (fl & SCHED_FLAG_RESET_ON_FORK) && (fl & SCHED_FLAG_STAYAWAKE),
		  "flag with RESET_ON_FORK: marked, both reported",
		  "errno %d, " KFMT ", sched_flags %#x", r, KARGS(k), fl);
	reap(pid);

	/* KEEP_POLICY: the policy field is ignored, the task's is kept. */
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_IDLE,
		.sched_flags = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_KEEP_POLICY };
	attr_case("flag with KEEP_POLICY: marked, policy kept", SCHED_BATCH, 0,
		  &a, 0, SCHED_BATCH);
	/* ... but the parameters are the call's: priority 0 is not FIFO's. */
	attr_case("flag with KEEP_POLICY on FIFO, priority 0: EINVAL, unmarked",
		  SCHED_FIFO, 5, &a, EINVAL, 0);
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_FIFO,
		.sched_flags = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_KEEP_PARAMS };
	pid = target(SCHED_FIFO, 7);
	r = setattr(pid, &a);
	kstate(pid, &k);
	sched_getparam(pid, &sp);
	tap_check(!r && k_marked(&k) &&
		  (k.pol & ~SCHED_STAYAWAKE) == SCHED_FIFO &&
		  sp.sched_priority == 7,
		  "flag with KEEP_PARAMS: marked, FIFO priority kept",
		  "errno %d, " KFMT ", priority %d", r, KARGS(k),
		  sp.sched_priority);
	reap(pid);

	/*
	 * UTIL_CLAMP is validated after the mark's checks: without
	 * CONFIG_UCLAMP_TASK the call fails there and must not mark; with it,
	 * valid clamps mark. Invalid clamps fail either way.
	 */
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_OTHER,
		.sched_flags = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_UTIL_CLAMP,
		.sched_util_min = 0, .sched_util_max = 1024 };
	pid = target(SCHED_OTHER, 0);
	r = setattr(pid, &a);
	kstate(pid, &k);
	tap_check((!r && k_marked(&k)) || (r == EOPNOTSUPP && k_unmarked(&k)),
		  "flag with UTIL_CLAMP_MIN|MAX: marked, or EOPNOTSUPP unmarked",
		  "errno %d, " KFMT, r, KARGS(k));
	reap(pid);
	a.sched_util_min = 2000;
	pid = target(SCHED_OTHER, 0);
	r = setattr(pid, &a);
	kstate(pid, &k);
	tap_check((r == EINVAL || r == EOPNOTSUPP) && k_unmarked(&k),
		  "flag with an invalid UTIL_CLAMP: refused, unmarked",
		  "errno %d, " KFMT, r, KARGS(k));
	reap(pid);

	/* RECLAIM and DL_OVERRUN mean nothing to SCHED_OTHER: accepted. */
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_OTHER,
		.sched_flags = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_RECLAIM |
			       SCHED_FLAG_DL_OVERRUN };
	attr_case("flag with RECLAIM and DL_OVERRUN on SCHED_OTHER: marked",
		  SCHED_OTHER, 0, &a, 0, SCHED_OTHER);
	a = (struct sched_attr){ .size = sizeof(a),
		.sched_policy = SCHED_DEADLINE,
		.sched_flags = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_RECLAIM |
			       SCHED_FLAG_DL_OVERRUN,
		.sched_runtime = 1000000, .sched_deadline = 10000000,
		.sched_period = 10000000 };
	pid = target(SCHED_OTHER, 0);
	r = setattr(pid, &a);
	fl = getflags(pid);
	kstate(pid, &k);
	tap_check(!r && k_marked(&k) &&
		  (k.pol & ~SCHED_STAYAWAKE) == SCHED_DEADLINE &&
		  (fl & (SCHED_FLAG_RECLAIM | SCHED_FLAG_DL_OVERRUN |
			 SCHED_FLAG_STAYAWAKE)) ==
		  (SCHED_FLAG_RECLAIM | SCHED_FLAG_DL_OVERRUN |
		   SCHED_FLAG_STAYAWAKE),
		  "flag with SCHED_DEADLINE, RECLAIM, DL_OVERRUN: marked",
		  "errno %d, " KFMT ", sched_flags %#x", r, KARGS(k), fl);
	reap(pid);

	/* Invalid combinations: refused, nothing marked. */
	pid = target(SCHED_OTHER, 0);
	r = setsched(pid, SCHED_DEADLINE | SCHED_STAYAWAKE, 0);
	kstate(pid, &k);
	tap_check(r == EINVAL && k_unmarked(&k),
		  "SCHED_STAYAWAKE with SCHED_DEADLINE, no parameters: EINVAL",
		  "errno %d, " KFMT, r, KARGS(k));
	r = setsched(pid, SCHED_OTHER | SCHED_STAYAWAKE | 0x10000000, 0);
	kstate(pid, &k);
	tap_check(r == EINVAL && k_unmarked(&k),
		  "SCHED_STAYAWAKE with junk policy bits: EINVAL",
		  "errno %d, " KFMT, r, KARGS(k));
	reap(pid);
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = 7,
		.sched_flags = SCHED_FLAG_STAYAWAKE };
	attr_case("flag with an invalid policy: EINVAL, unmarked", SCHED_OTHER,
		  0, &a, EINVAL, 0);
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_OTHER,
		.sched_flags = SCHED_FLAG_STAYAWAKE | 0x10000000 /* SUGOV */ };
	attr_case("flag with SCHED_FLAG_SUGOV: EINVAL, unmarked", SCHED_OTHER,
		  0, &a, EINVAL, 0);
	/* The lowest bit above every flag the kernel knows */
	a.sched_flags = SCHED_FLAG_STAYAWAKE | (SCHED_FLAG_ALL + 1);
	attr_case("flag with an unknown flag bit: EINVAL, unmarked",
		  SCHED_OTHER, 0, &a, EINVAL, 0);

	/* A call that fails leaves a marked task marked, whatever it asked. */
	pid = target(SCHED_OTHER, 0);
	stayawake_mark(pid, true);
	r = setsched(pid, SCHED_FIFO, 100);
	kstate(pid, &k);
	tap_check(r == EINVAL && k_marked(&k),
		  "a failing unmark (FIFO priority 100) keeps the mark",
		  "errno %d, " KFMT, r, KARGS(k));
	a = (struct sched_attr){ .size = sizeof(a), .sched_policy = SCHED_OTHER,
		.sched_flags = SCHED_FLAG_UTIL_CLAMP, .sched_util_min = 2000,
		.sched_util_max = 1024 };
	r = setattr(pid, &a);
	kstate(pid, &k);
	tap_check((r == EINVAL || r == EOPNOTSUPP) && k_marked(&k),
		  "an unmark failing after the mark's checks keeps the mark",
		  "UTIL_CLAMP: errno %d, " KFMT, r, KARGS(k));
	reap(pid);
}

/* ---- who may mark whom: the owner check with the capability held ---- */

#define OTHER_UID 1000
#define CAPS_NONE 0
#define CAPS_BS (1ull << CAP_BLOCK_SUSPEND)
#define CAPS_NICE (1ull << CAP_SYS_NICE)

/* A task of @uid that waits until killed, marked by root if @marked. */
static pid_t user_target(uid_t uid, bool marked)
{
	pid_t pid = waiter(SCHED_OTHER, 0, uid);

	if (marked && stayawake_mark(pid, true))
		tap_diag("root could not mark %d: %s", pid, strerror(errno));
	return pid;
}

/* Become @uid with exactly the capabilities in @caps. */
static int become(uid_t uid, unsigned long long caps)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { 0 };

	if (prctl(PR_SET_KEEPCAPS, 1) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	if (caps == ~0ull)
		return 0;	/* root keeps all it has */
	d[0].effective = d[0].permitted = (unsigned int)caps;
	d[1].effective = d[1].permitted = (unsigned int)(caps >> 32);
	return syscall(SYS_capset, &hdr, d);
}

enum op { OP_MARK, OP_UNMARK };

struct actor {
	pid_t pid;
	int go, done;		/* our ends: start the call, let it exit */
	int res;
};

/*
 * An actor of @uid with @caps: once started, it calls sched_setscheduler()
 * on @pid (0: itself), reports the errno, and waits until told to exit, so
 * that its own state can be read too.
 */
static void actor_start(struct actor *a, uid_t uid, unsigned long long caps)
{
	int go[2], res[2], done[2];
	char c;

	if (pipe(go) || pipe(res) || pipe(done))
		tap_bail("pipe: %s", strerror(errno));
	a->pid = fork();
	if (!a->pid) {
		pid_t pid;
		int op, err;

		close(go[1]);
		close(res[0]);
		close(done[1]);
		if (become(uid, caps))
			_exit(2);
		if (write(res[1], "r", 1) != 1 ||
		    read(go[0], &pid, sizeof(pid)) != sizeof(pid) ||
		    read(go[0], &op, sizeof(op)) != sizeof(op))
			_exit(3);
		err = stayawake_mark(pid, op == OP_MARK) ? errno : 0;
		if (write(res[1], &err, sizeof(err)) != sizeof(err))
			_exit(4);
		(void)!read(done[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(res[1]);
	close(done[0]);
	a->go = go[1];
	a->res = res[0];
	a->done = done[1];
	if (read(a->res, &c, 1) != 1)
		tap_diag("actor %d failed to set up", a->pid);
}

/* Returns the errno of the call, or -1 if the actor failed. */
static int actor_call(struct actor *a, pid_t pid, enum op op)
{
	int o = op, err = -1;

	if (write(a->go, &pid, sizeof(pid)) != sizeof(pid) ||
	    write(a->go, &o, sizeof(o)) != sizeof(o) ||
	    read(a->res, &err, sizeof(err)) != sizeof(err))
		return -1;
	return err;
}

static void actor_end(struct actor *a)
{
	close(a->done);
	close(a->go);
	close(a->res);
	waitpid(a->pid, NULL, 0);
}

/*
 * @uid with @caps does @op on a task of @tuid (marked by root if @marked):
 * the call returns @want and the target ends up marked or not.
 */
static void owner_case(const char *name, uid_t uid, unsigned long long caps,
		       uid_t tuid, bool marked, enum op op, int want,
		       bool want_marked)
{
	pid_t pid = user_target(tuid, marked);
	struct actor a;
	struct kstate k;
	int r;

	actor_start(&a, uid, caps);
	r = actor_call(&a, pid, op);
	kstate(pid, &k);
	actor_end(&a);
	tap_check(r == want && (want_marked ? k_marked(&k) : k_unmarked(&k)),
		  name, "errno %d, target " KFMT, r, KARGS(k));
	reap(pid);
}

static void owners(void)
{
	struct actor a;
	struct kstate k;
	int r;

	owner_case("root marks another uid's task", 0, ~0ull, NOBODY, false,
		   OP_MARK, 0, true);
	owner_case("CAP_BLOCK_SUSPEND, another user's task: EPERM", OTHER_UID,
		   CAPS_BS, NOBODY, false, OP_MARK, EPERM, false);
	owner_case("CAP_BLOCK_SUSPEND, unmarking another user's task: EPERM",
		   OTHER_UID, CAPS_BS, NOBODY, true, OP_UNMARK, EPERM, true);
	owner_case("CAP_BLOCK_SUSPEND, own uid's other task: marked",
		   OTHER_UID, CAPS_BS, OTHER_UID, false, OP_MARK, 0, true);
	owner_case("CAP_SYS_NICE only, another user's task: EPERM", OTHER_UID,
		   CAPS_NICE, NOBODY, false, OP_MARK, EPERM, false);
	owner_case("CAP_SYS_NICE and CAP_BLOCK_SUSPEND, another user's: marked",
		   OTHER_UID, CAPS_NICE | CAPS_BS, NOBODY, false, OP_MARK, 0,
		   true);
	owner_case("no capability, own uid's marked task: unmarked", OTHER_UID,
		   CAPS_NONE, OTHER_UID, true, OP_UNMARK, 0, false);
	owner_case("no capability, own uid's marked task: re-marked, kept",
		   OTHER_UID, CAPS_NONE, OTHER_UID, true, OP_MARK, 0, true);

	/*
	 * Itself: marks with the capability; without, restating the mark
	 * that root gave it needs none.
	 */
	actor_start(&a, OTHER_UID, CAPS_BS);
	r = actor_call(&a, 0, OP_MARK);
	kstate(a.pid, &k);
	actor_end(&a);
	tap_check(!r && k_marked(&k), "CAP_BLOCK_SUSPEND, itself: marked",
		  "errno %d, " KFMT, r, KARGS(k));
	actor_start(&a, OTHER_UID, CAPS_NONE);
	stayawake_mark(a.pid, true);
	r = actor_call(&a, 0, OP_MARK);
	kstate(a.pid, &k);
	actor_end(&a);
	tap_check(!r && k_marked(&k),
		  "no capability, marked by root, marking itself again: kept",
		  "errno %d, " KFMT, r, KARGS(k));
	tap_check(!stayawake_source_active(), "owner cases hold nothing after",
		  "%s", stayawake_source_str());
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
	flags();
	bad_pids();
	owners();
	security();
	return tap_done();
}
