// SPDX-License-Identifier: GPL-2.0
/*
 * The deboost/reboost handshake of an alarm wait under fire. A task marked
 * SCHED_STAYAWAKE waits for microseconds on an alarm clock, thousands of
 * times, while autosleep starts a suspend attempt each time it lets go; in
 * the last phase a helper also interrupts it with signals. After every
 * return /proc must say "boosted": a task back from its wait deboosted works
 * with nothing holding the system awake, and under autosleep it can be
 * frozen with no alarm queued (a device that never wakes). An unmarked
 * helper sleeping on an alarm makes sure such a suspend still ends.
 *
 * Each phase must also prove it ran what it claims: enough waits (see
 * MIN_WAITS_PER_S), attempts that reached the freezer, and in the signal
 * phase a signaller that ran to the end and signals that really cut waits
 * short (clock_nanosleep() returned EINTR): a failed fork() would otherwise
 * make it a second plain clock_nanosleep phase.
 *
 * The signals come from two senders: a forked task (a sender on another
 * CPU, which the freezer also freezes) and a POSIX interval timer, whose
 * signals keep coming from the timer interrupt while the freezer runs: a
 * signal that lands between the entry into the wait and the deboost while
 * the freezer is in effect is the race that ba47a93 closed (the wait ended
 * deboosted and the task returned to user space so).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

#define SAFETY_S 3
/*
 * The waits asked for average 0.44 ms in the first two phases (3 in 4 under
 * 30 us, 1 in 4 of 0.2-3.2 ms) and 1 ms with signals (0-2 ms, most cut
 * short); a /proc read follows each. Under TCG, 6 s phases: arm64 did
 * 1500-1600 a second without signals and 2000 with them, x86_64 1390-1530
 * and 2060. 200 a second allows 5 ms a wait, over ten times what is asked
 * plus the autosleep attempts that freeze the task: fewer means the phase
 * did not hammer the handshake as the test claims.
 */
#define MIN_WAITS_PER_S 200
/*
 * The signaller sends one every 0-2 ms, the timer one every 0.4 ms, and the
 * task spends most of its time in waits of 0-2 ms. In 6 s both arches
 * handled 4700-4900 of the signaller's and 13200-13300 of the timer's, and
 * 10500 of 12000 waits ended with EINTR (110 of 220 on arm64 with KASAN).
 * At least 50 a second of each must be handled, and at least 20 a second
 * of the waits must have been cut short: a count, not a share, because on
 * a debug kernel the /proc read after each wait dwarfs the wait (32-bit ARM
 * with KASAN: 134 of 1200 waits cut short in 45 s).
 */
#define MIN_SIGNALS_PER_S 50
#define MIN_EINTR_PER_S 20
/*
 * The counts above are work, not speed: a phase lasts its seconds and then
 * goes on until its counts are met, up to this many times as long. A debug
 * kernel (lockdep, KASAN) does the same work five to ten times slower.
 */
#define MAX_STRETCH 10
/*
 * The timer's period: a few signals per wait, every wait a target. But a
 * signal costs the task far more on a debug kernel (KASAN, lockdep): at
 * 0.4 ms an arm64 one spent the phase handling timer signals, 1159 waits
 * in 60 s. The period is at least SIGNAL_SHARE times what one signal costs
 * the task, measured before the phase, so it still has time to wait:
 * 12-35 us (0.4 ms kept) on arm64, 478 us (1.9 ms, 1200 waits in 10.7 s)
 * on its debug kernel.
 */
#define TIMER_PERIOD_NS (400 * 1000)
#define SIGNAL_SHARE 4
#define CALIBRATION_SIGNALS 200

enum phase { NSLEEP, TIMERFD, SIGNALS };
static const char *const phase_name[] = { "clock_nanosleep", "timerfd read",
					   "clock_nanosleep + signals" };

static unsigned int seed = 12345;
static volatile sig_atomic_t handled, timer_handled;
/* Signals the signaller sent, in memory shared with it. */
static volatile long *sent;
static pid_t main_pid, safety_pid, signaller_pid;

/* However the program ends, no helper outlives it. */
static void kill_helpers(void)
{
	if (getpid() != main_pid)
		return;
	if (signaller_pid > 0)
		kill(signaller_pid, SIGKILL);
	if (safety_pid > 0)
		kill(safety_pid, SIGKILL);
}

static long rnd(long n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 8) % n;
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		handled++;
	else
		timer_handled++;
}

/* An unmarked alarm sleeper: no suspend lasts longer than SAFETY_S. */
static pid_t start_safety_net(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct timespec ts = { .tv_sec = SAFETY_S };

		for (;;)
			clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &ts, NULL);
	}
	return pid;
}

/* Interrupts @target every 0-2 ms until killed. */
static pid_t start_signaller(pid_t target)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;) {
			struct timespec ts = { .tv_nsec = rnd(2000000) };

			nanosleep(&ts, NULL);
			if (!kill(target, SIGUSR1))
				(*sent)++;
		}
	}
	return pid;
}

/*
 * Most waits end at once, so the alarm fires while the task is still on its
 * way into the wait; some last long enough to let an attempt reach the
 * freezer, which then runs while the next waits begin and end.
 */
static long wait_ns(enum phase ph)
{
	if (ph == SIGNALS)
		return rnd(2000000);
	return rnd(4) ? rnd(30000) : 200000 + rnd(3000000);
}

/* One wait; true if a signal ended it early (EINTR). */
static bool short_wait(enum phase ph, int tfd, int i)
{
	int clk = i & 1 ? CLOCK_REALTIME_ALARM : CLOCK_BOOTTIME_ALARM;
	struct timespec ts = { .tv_nsec = wait_ns(ph) };
	struct itimerspec its = { .it_value = { .tv_nsec = 1 + wait_ns(ph) } };
	uint64_t ticks;

	if (ph != TIMERFD)
		return clock_nanosleep(clk, 0, &ts, NULL) == EINTR;
	timerfd_settime(tfd, 0, &its, NULL);
	if (read(tfd, &ticks, sizeof(ticks)) < 0) {
		if (errno != EINTR)
			tap_bail("timerfd read: %s", strerror(errno));
		return true;
	}
	return false;
}

/* What one SIGUSR2, sent and handled, costs the task, in ns. */
static int64_t signal_cost_ns(void)
{
	int64_t start = clock_ns(CLOCK_MONOTONIC);

	for (int i = 0; i < CALIBRATION_SIGNALS; i++)
		raise(SIGUSR2);
	timer_handled = 0;
	return (clock_ns(CLOCK_MONOTONIC) - start) / CALIBRATION_SIGNALS;
}

static long timer_period_ns(void)
{
	int64_t cost = signal_cost_ns();
	long period = TIMER_PERIOD_NS;

	if (SIGNAL_SHARE * cost > period)
		period = SIGNAL_SHARE * cost;
	tap_diag("a signal costs the task %lld us: the timer's period is %ld us",
		 (long long)cost / 1000, period / 1000);
	return period;
}

static void run_phase(enum phase ph, int secs)
{
	long period = ph == SIGNALS ? timer_period_ns() : 0;
	long attempts0 = read_long("/sys/power/suspend_stats/fail") +
			 suspend_success();
	int64_t start = clock_ns(CLOCK_MONOTONIC), now = start;
	int64_t end = start + secs * SEC_NS;
	int64_t cap = start + MAX_STRETCH * secs * SEC_NS;
	long min_waits = (long)secs * MIN_WAITS_PER_S;
	long min_signals = ph == SIGNALS ? (long)secs * MIN_SIGNALS_PER_S : 0;
	long min_eintr = ph == SIGNALS ? (long)secs * MIN_EINTR_PER_S : 0;
	int tfd = timerfd_create(CLOCK_BOOTTIME_ALARM, 0);
	long waits = 0, bad = 0, first_bad = -1, eintr = 0, attempts, freezes;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR2 };
	struct itimerspec its = { 0 };
	int status = 0, terr = 0;
	timer_t timer;
	char state[32];

	if (tfd < 0)
		tap_bail("timerfd_create: %s", strerror(errno));
	handled = 0;
	timer_handled = 0;
	*sent = 0;
	its.it_value.tv_nsec = period;
	its.it_interval = its.it_value;
	signaller_pid = ph == SIGNALS ? start_signaller(getpid()) : 0;
	if (ph == SIGNALS && (timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
			      timer_settime(timer, 0, &its, NULL)))
		terr = errno;
	trace_clear();
	while (now < end ||
	       (now < cap && (waits < min_waits || handled < min_signals ||
			      timer_handled < min_signals || eintr < min_eintr))) {
		eintr += short_wait(ph, tfd, waits);
		if (strcmp(proc_stayawake(getpid(), state, sizeof(state)),
			   "boosted")) {
			if (first_bad < 0)
				first_bad = waits;
			bad++;
		}
		waits++;
		now = clock_ns(CLOCK_MONOTONIC);
	}
	if (ph == SIGNALS && !terr)
		timer_delete(timer);
	if (signaller_pid > 0) {
		kill(signaller_pid, SIGKILL);
		waitpid(signaller_pid, &status, 0);
	}
	close(tfd);
	freezes = trace_count("freeze_processes[0] begin");
	attempts = read_long("/sys/power/suspend_stats/fail") +
		   suspend_success() - attempts0;

	tap_check(waits >= min_waits && freezes > 0,
		  tap_case(phase_name[ph], "raced by suspend attempts"),
		  "%ld waits (at least %ld) in %.1f s, %ld suspend attempts, "
		  "%ld froze tasks", waits, min_waits, (now - start) / 1e9,
		  attempts, freezes);
	if (ph == SIGNALS) {
		/* It ran the whole phase: alive until our SIGKILL. */
		bool ran = signaller_pid > 0 && WIFSIGNALED(status) &&
			   WTERMSIG(status) == SIGKILL;

		tap_check(ran && !terr &&
			  handled >= min_signals && timer_handled >= min_signals &&
			  eintr >= min_eintr,
			  tap_case(phase_name[ph], "the signals interrupted the waits"),
			  "signaller %s, %ld sent, %ld handled; timer %s, %ld "
			  "handled (each at least %ld); %ld of %ld waits ended "
			  "by EINTR (at least %ld)",
			  signaller_pid < 0 ? "not forked" :
			  ran ? "ran to the end" : "died early",
			  *sent, (long)handled, terr ? strerror(terr) : "armed",
			  (long)timer_handled, min_signals, eintr, waits,
			  min_eintr);
		signaller_pid = 0;
	}
	tap_check(!bad, tap_case(phase_name[ph], "boosted after every return"),
		  "%ld of %ld returns deboosted (first at %ld)",
		  bad, waits, first_bad);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };	/* no SA_RESTART */
	int secs = cmdline_int("sa.race_s=", 6);
	struct alarm_suspend as;
	int err;

	tap_init("wait_race");
	main_pid = getpid();
	atexit(kill_helpers);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sent = mmap(NULL, sizeof(*sent), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sent == MAP_FAILED)
		tap_bail("mmap: %s", strerror(errno));
	safety_pid = start_safety_net();
	if (safety_pid < 0 || stayawake_mark(0, true))
		tap_bail("setup: %s", strerror(errno));
	/* Witness: the freezer's own trace event, and nothing else. */
	write_str("/sys/kernel/tracing/events/power/suspend_resume/filter",
		  "action == \"freeze_processes\"");
	write_str("/sys/kernel/tracing/events/power/suspend_resume/enable", "1");
	write_str("/sys/kernel/tracing/tracing_on", "1");
	err = write_str("/sys/power/autosleep", "mem");
	if (err)
		tap_bail("autosleep: %s", strerror(-err));

	run_phase(NSLEEP, secs);
	run_phase(TIMERFD, secs);
	run_phase(SIGNALS, secs);

	/* Autosleep off while still marked, or it could suspend for good. */
	err = write_str("/sys/power/autosleep", "off");
	stayawake_mark(0, false);
	write_str("/sys/kernel/tracing/events/power/suspend_resume/enable", "0");
	write_str("/sys/kernel/tracing/events/power/suspend_resume/filter", "0");
	kill(safety_pid, SIGKILL);
	waitpid(safety_pid, NULL, 0);
	safety_pid = 0;
	tap_check(!err, "autosleep switched off", "%s",
		  err ? strerror(-err) : "ok");
	tap_check(!stayawake_source_active(), "stayawake source idle at the end",
		  "%s", stayawake_source_str());
	/* The aborted attempts left nothing behind (a sleeper's alarm that
	 * the freezer recorded, say) that refuses the next suspend. */
	wait_sources_idle();
	alarm_suspend(3, &as);
	tap_check(as.ok, "an alarm suspend works afterwards",
		  "write: %s, success %ld->%ld, active sources: %s",
		  as.err ? strerror(-as.err) : "ok", as.success_before,
		  as.success_after, active_sources());
	return tap_done();
}
