// SPDX-License-Identifier: GPL-2.0
/*
 * abi: SCHED_STAYAWAKE round-trips. Root sets a child up with a policy, its
 * nice value or priority, RESET_ON_FORK or not, util clamps and the mark;
 * the child drops CAP_BLOCK_SUSPEND (it keeps CAP_SYS_NICE) and hands back
 * to the kernel what the getters told it. Each pair returns 0 and changes
 * nothing: sched_getattr -> sched_setattr, sched_getscheduler +
 * sched_getparam -> sched_setscheduler, and sched_setattr with
 * SCHED_FLAG_KEEP_POLICY or SCHED_FLAG_KEEP_PARAMS and the flag absent keeps
 * the mark as it keeps everything else. Then the capability rule:
 * CAP_BLOCK_SUSPEND is needed only to go from unmarked to marked. Last,
 * SCHED_EXT (6.12's sched_ext policy, 7): with the mark it either marks a
 * sched_ext task, where the kernel has sched_ext, or is refused with EINVAL
 * and changes nothing, as a plain SCHED_EXT is.
 *
 * Witnesses, read by the child itself before and after each call: the whole
 * sched_attr (policy, flags, nice, priority, util_min/max),
 * sched_getscheduler() with its SCHED_STAYAWAKE bit, and the StayAwake:
 * line of /proc/self/status. One child per case; it reports through a pipe
 * and the parent prints the case line.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib.h"

/* uapi/linux/sched.h from 6.12 on; the tests build against 6.1's too */
#ifndef SCHED_EXT
#define SCHED_EXT 7
#endif

#define CLAMP_MIN 128
#define CLAMP_MAX 896

static const struct policy {
	const char *name;	/* the case prefix */
	int policy, nice, prio;
} policies[] = {
	{ "SCHED_OTHER nice 5", SCHED_OTHER, 5, 0 },
	{ "SCHED_BATCH nice -3", SCHED_BATCH, -3, 0 },
	{ "SCHED_IDLE", SCHED_IDLE, 0, 0 },
	{ "SCHED_FIFO prio 10", SCHED_FIFO, 0, 10 },
	{ "SCHED_RR prio 20", SCHED_RR, 0, 20 },
};

/* What the child does to itself. */
enum op {
	OP_ATTR,		/* sched_getattr -> sched_setattr(same, 0) */
	OP_SCHED,		/* getscheduler + getparam -> setscheduler */
	OP_KEEP_POLICY,		/* getattr, flag cleared, KEEP_POLICY added */
	OP_KEEP_PARAMS,		/* getattr, flag cleared, KEEP_PARAMS added */
	OP_KEEP_ALL_MARK,	/* nothing but KEEP_ALL | STAYAWAKE */
	OP_CLEAR,		/* getattr, flag cleared */
	OP_MARK,		/* getattr, flag set */
	OP_DEADLINE,		/* setscheduler(SCHED_DEADLINE | SCHED_STAYAWAKE) */
};

struct step {
	enum op op;
	const char *name;
	int err;		/* the errno it must end with; 0: success */
	bool marked;		/* marked after it; all else as before */
};

static const struct step round_trips[] = {
	{ OP_ATTR, "sched_getattr -> sched_setattr(same attr, flags 0): "
	  "0, nothing changed", 0, true },
	{ OP_SCHED, "sched_getscheduler + sched_getparam -> "
	  "sched_setscheduler: 0, nothing changed", 0, true },
	{ OP_KEEP_POLICY, "sched_setattr(KEEP_POLICY, flag absent): "
	  "0, mark and all else kept", 0, true },
	{ OP_KEEP_PARAMS, "sched_setattr(KEEP_PARAMS, flag absent): "
	  "0, mark and all else kept", 0, true },
};

/* SCHED_OTHER nice 0, marked by root or not, then one or two steps. */
static const struct cap_case {
	bool marked;
	struct step steps[2];
} cap_cases[] = {
	{ false, { { OP_MARK, "unmarked task marking itself: "
		     "EPERM, still unmarked", EPERM, false } } },
	{ true, { { OP_KEEP_ALL_MARK, "marked task, sched_setattr(KEEP_ALL | "
		    "STAYAWAKE): 0, still marked", 0, true } } },
	{ true, { { OP_CLEAR, "marked task restating without the flag: "
		    "0, unmarked", 0, false },
		  { OP_MARK, "... then marking itself again: EPERM, "
		    "still unmarked", EPERM, false } } },
	{ true, { { OP_DEADLINE, "marked task, sched_setscheduler("
		    "SCHED_DEADLINE | SCHED_STAYAWAKE): EINVAL, nothing "
		    "changed", EINVAL, true } } },
};

/* The kernel's view of the calling task. */
struct snap {
	struct sched_attr a;
	int pol;		/* sched_getscheduler() */
	char sa[16];		/* StayAwake: */
};

struct report {
	int err;		/* errno of the step; -1: no report */
	struct snap before, after;
};

static void snap(struct snap *s)
{
	memset(s, 0, sizeof(*s));
	if (sys_sched_getattr(0, &s->a, sizeof(s->a), 0))
		s->a.sched_policy = ~0u;
	s->pol = sched_getscheduler(0);
	proc_stayawake(getpid(), s->sa, sizeof(s->sa));
}

static bool is_marked(const struct snap *s)
{
	return (s->a.sched_flags & SCHED_FLAG_STAYAWAKE) && s->pol >= 0 &&
	       (s->pol & SCHED_STAYAWAKE) && !strcmp(s->sa, "boosted");
}

/* Unmarked, and holding nothing or a boost it borrows: root lends to the
 * children it wakes what it borrowed from a marked child before */
static bool is_unmarked(const struct snap *s)
{
	return !(s->a.sched_flags & SCHED_FLAG_STAYAWAKE) && s->pol >= 0 &&
	       !(s->pol & SCHED_STAYAWAKE) &&
	       (!strcmp(s->sa, "off") || !strcmp(s->sa, "borrowed"));
}

static bool same(const struct snap *a, const struct snap *b)
{
	return !memcmp(&a->a, &b->a, sizeof(a->a)) && a->pol == b->pol &&
	       !strcmp(a->sa, b->sa);
}

static const char *snap_str(const struct snap *s, char *buf, size_t len)
{
	snprintf(buf, len, "policy %u flags %#llx nice %d prio %u util %u/%u, "
		 "getscheduler %#x, StayAwake: %s", s->a.sched_policy,
		 (unsigned long long)s->a.sched_flags, s->a.sched_nice,
		 s->a.sched_priority, s->a.sched_util_min, s->a.sched_util_max,
		 s->pol, s->sa);
	return buf;
}

static int do_step(enum op op)
{
	struct sched_attr a = { .size = sizeof(a) };
	struct sched_param sp = { 0 };
	int pol;

	switch (op) {
	case OP_SCHED:
		pol = sched_getscheduler(0);
		if (pol < 0 || sched_getparam(0, &sp))
			return errno;
		return sched_setscheduler(0, pol, &sp) ? errno : 0;
	case OP_DEADLINE:
		return sched_setscheduler(0, SCHED_DEADLINE | SCHED_STAYAWAKE,
					  &sp) ? errno : 0;
	case OP_KEEP_ALL_MARK:
		a.sched_flags = SCHED_FLAG_KEEP_ALL | SCHED_FLAG_STAYAWAKE;
		break;
	default:
		if (sys_sched_getattr(0, &a, sizeof(a), 0))
			return errno;
		if (op == OP_MARK)
			a.sched_flags |= SCHED_FLAG_STAYAWAKE;
		else if (op != OP_ATTR)
			a.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
		if (op == OP_KEEP_POLICY)
			a.sched_flags |= SCHED_FLAG_KEEP_POLICY;
		if (op == OP_KEEP_PARAMS)
			a.sched_flags |= SCHED_FLAG_KEEP_PARAMS;
	}
	return sys_sched_setattr(0, &a, 0) ? errno : 0;
}

/* The child: once set up, without CAP_BLOCK_SUSPEND, run the steps. */
static void __attribute__((noreturn))
child(int go, int res, const struct step *steps, int n)
{
	struct report r;
	int cap_err;
	char c;

	if (read(go, &c, 1) != 1)
		_exit(2);
	cap_err = drop_cap(CAP_BLOCK_SUSPEND) ? errno : 0;
	if (write(res, &cap_err, sizeof(cap_err)) != sizeof(cap_err))
		_exit(3);
	for (int i = 0; i < n && !cap_err; i++) {
		snap(&r.before);
		r.err = do_step(steps[i].op);
		snap(&r.after);
		if (write(res, &r, sizeof(r)) != sizeof(r))
			_exit(4);
	}
	_exit(0);
}

struct task {
	struct sched_attr want;	/* what root sets */
	int set_err;		/* root's sched_setattr() */
	int clamp_err;		/* ... with the clamps, if they failed */
	int cap_err;		/* the child's capset(); -1: no report */
};

/*
 * A child, set up by root as t->want (without the clamps if this kernel has
 * none: that is the setup case's failure, not a reason to stop), runs
 * @steps; their reports in @r.
 */
static void run_task(struct task *t, const struct step *steps, int n,
		     struct report *r)
{
	struct sched_attr a = t->want;
	int go[2], res[2];
	pid_t pid;

	if (pipe(go) || pipe(res))
		tap_bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		tap_bail("fork: %s", strerror(errno));
	if (!pid) {
		close(go[1]);
		close(res[0]);
		child(go[0], res[1], steps, n);
	}
	close(go[0]);
	close(res[1]);
	t->clamp_err = 0;
	t->set_err = sys_sched_setattr(pid, &a, 0) ? errno : 0;
	if (t->set_err == EOPNOTSUPP &&
	    (a.sched_flags & SCHED_FLAG_UTIL_CLAMP)) {
		t->clamp_err = t->set_err;
		a.sched_flags &= ~SCHED_FLAG_UTIL_CLAMP;
		t->set_err = sys_sched_setattr(pid, &a, 0) ? errno : 0;
	}
	t->cap_err = -1;
	if (write(go[1], "g", 1) != 1 ||
	    read(res[0], &t->cap_err, sizeof(t->cap_err)) !=
	    sizeof(t->cap_err))
		t->cap_err = -1;
	for (int i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		if (read(res[0], &r[i], sizeof(r[i])) != sizeof(r[i]))
			r[i].err = -1;
	}
	close(go[1]);
	close(res[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static const char *err_str(int err)
{
	return err < 0 ? "no report" : err ? strerror(err) : "0";
}

static void check_step(const char *prefix, const struct step *s,
		       const struct report *r)
{
	struct snap want = r->before;
	char now[160], was[160];
	bool kept, ok;

	if (!s->marked) {
		want.a.sched_flags &= ~SCHED_FLAG_STAYAWAKE;
		want.pol &= ~SCHED_STAYAWAKE;
		/* A loan from before the step stays: the step does not wait */
		strcpy(want.sa, strcmp(r->before.sa, "borrowed") ? "off" :
							      "borrowed");
	}
	kept = same(&want, &r->after);
	ok = r->err == s->err && kept &&
	     (s->marked ? is_marked(&r->after) : is_unmarked(&r->after));
	tap_check(ok, tap_case(prefix, s->name), "%s; %s%s%s", err_str(r->err),
		  snap_str(&r->after, now, sizeof(now)),
		  kept ? "" : "; was ",
		  kept ? "" : snap_str(&r->before, was, sizeof(was)));
}

/* As root set it up, marked, after the child dropped the capability. */
static void check_setup(const char *prefix, const struct task *t,
			const struct snap *s)
{
	const struct sched_attr *w = &t->want;
	int pol = w->sched_policy | SCHED_STAYAWAKE |
		  (w->sched_flags & SCHED_FLAG_RESET_ON_FORK ?
		   SCHED_RESET_ON_FORK : 0);
	unsigned long long fl = SCHED_FLAG_STAYAWAKE | SCHED_FLAG_RESET_ON_FORK;
	bool rt = w->sched_policy == SCHED_FIFO || w->sched_policy == SCHED_RR;
	char now[160];

	tap_check(!t->set_err && !t->clamp_err && !t->cap_err &&
		  s->a.sched_policy == w->sched_policy &&
		  (s->a.sched_flags & fl) == (w->sched_flags & fl) &&
		  (rt || s->a.sched_nice == w->sched_nice) &&
		  s->a.sched_priority == w->sched_priority &&
		  s->a.sched_util_min == CLAMP_MIN &&
		  s->a.sched_util_max == CLAMP_MAX && s->pol == pol &&
		  is_marked(s),
		  tap_case(prefix, "set up by root with util clamp 128/896 and "
			   "marked, CAP_BLOCK_SUSPEND dropped"),
		  "root's sched_setattr: %s%s%s, capset: %s; %s",
		  err_str(t->set_err), t->clamp_err ? ", with util clamp: " : "",
		  t->clamp_err ? strerror(t->clamp_err) : "",
		  err_str(t->cap_err), snap_str(s, now, sizeof(now)));
}

static void round_trip_cases(void)
{
	const int nr = sizeof(round_trips) / sizeof(*round_trips);

	for (size_t i = 0; i < sizeof(policies) / sizeof(*policies); i++) {
		const struct policy *p = &policies[i];

		for (int rof = 0; rof < 2; rof++) {
			struct task t = { .want = {
				.size = sizeof(t.want),
				.sched_policy = p->policy,
				.sched_flags = SCHED_FLAG_STAYAWAKE |
					SCHED_FLAG_UTIL_CLAMP |
					(rof ? SCHED_FLAG_RESET_ON_FORK : 0),
				.sched_nice = p->nice,
				.sched_priority = p->prio,
				.sched_util_min = CLAMP_MIN,
				.sched_util_max = CLAMP_MAX,
			} };
			struct report r;
			char prefix[64];

			snprintf(prefix, sizeof(prefix), "%s%s", p->name,
				 rof ? ", RESET_ON_FORK" : "");
			for (int j = 0; j < nr; j++) {
				run_task(&t, &round_trips[j], 1, &r);
				if (!j)
					check_setup(prefix, &t, &r.before);
				check_step(prefix, &round_trips[j], &r);
			}
		}
	}
}

static void capability_cases(void)
{
	for (size_t i = 0; i < sizeof(cap_cases) / sizeof(*cap_cases); i++) {
		const struct cap_case *c = &cap_cases[i];
		struct task t = { .want = {
			.size = sizeof(t.want), .sched_policy = SCHED_OTHER,
			.sched_flags = c->marked ? SCHED_FLAG_STAYAWAKE : 0,
		} };
		struct report r[2];
		int n = c->steps[1].name ? 2 : 1;

		run_task(&t, c->steps, n, r);
		if (t.set_err || t.cap_err)
			tap_diag("setup: sched_setattr %s, capset %s",
				 err_str(t.set_err), err_str(t.cap_err));
		for (int j = 0; j < n; j++)
			check_step("without CAP_BLOCK_SUSPEND", &c->steps[j],
				   &r[j]);
	}
}

/* Back to unmarked SCHED_OTHER nice 0, as the test started. */
static void restore_other(void)
{
	struct sched_param sp = { 0 };

	if (sched_setscheduler(0, SCHED_OTHER, &sp))
		tap_diag("restoring SCHED_OTHER: %s", strerror(errno));
}

/*
 * SCHED_EXT with the mark, by both calls, on this task: the kernel must
 * either mark a sched_ext task (when a plain SCHED_EXT is accepted) or
 * refuse with EINVAL and leave policy and mark as they were.
 */
static void sched_ext_cases(void)
{
	struct sched_param sp = { 0 };
	struct sched_attr a = {
		.size = sizeof(a), .sched_policy = SCHED_EXT,
		.sched_flags = SCHED_FLAG_STAYAWAKE,
	};
	struct snap before, after;
	char b1[160], b2[160];
	bool ext;
	int r, err;

	ext = !sched_setscheduler(0, SCHED_EXT, &sp);
	restore_other();
	tap_diag("sched_ext is %sin this kernel (plain SCHED_EXT: %s)",
		 ext ? "" : "not ", ext ? "0" : "refused");
	for (int i = 0; i < 2; i++) {
		snap(&before);
		r = i ? sys_sched_setattr(0, &a, 0) :
			sched_setscheduler(0, SCHED_EXT | SCHED_STAYAWAKE, &sp);
		err = r ? errno : 0;
		snap(&after);
		restore_other();
		tap_check(ext ? !err && is_marked(&after) &&
				after.a.sched_policy == SCHED_EXT :
				err == EINVAL && same(&before, &after),
			  i ? "sched_setattr(SCHED_EXT, SCHED_FLAG_STAYAWAKE): "
			      "marks a sched_ext task, or EINVAL and nothing changed" :
			      "sched_setscheduler(SCHED_EXT | SCHED_STAYAWAKE): "
			      "marks a sched_ext task, or EINVAL and nothing changed",
			  "%s; before: %s; after: %s", err_str(err),
			  snap_str(&before, b1, sizeof(b1)),
			  snap_str(&after, b2, sizeof(b2)));
	}
}

int main(void)
{
	struct wakeup_stat w;

	tap_init("abi");
	if (!wakeup_stat("stayawake", &w))
		tap_bail("no 'stayawake' wakeup source: kernel without SCHED_STAYAWAKE?");
	round_trip_cases();
	capability_cases();
	sched_ext_cases();
	/* What this task borrowed from its marked children goes back */
	give_back_loan();
	tap_check(!stayawake_source_active(), "nothing held at the end", "%s",
		  stayawake_source_str());
	return tap_done();
}
