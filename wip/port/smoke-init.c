/* Minimal armhf smoke test for the 6.12 port: s2idle + PL031 + SCHED_STAYAWAKE. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched/types.h>
#include <linux/sched.h>

static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec + t.tv_nsec / 1e9; }
static int wr(const char *p, const char *s) {
	int fd = open(p, O_WRONLY), r = 0, e = 0;
	if (fd < 0) return -errno;
	if (write(fd, s, strlen(s)) < 0) { e = errno; r = -e; }
	close(fd); return r;
}
static void cat(const char *p, const char *grep) {
	char buf[8192]; int fd = open(p, O_RDONLY); if (fd < 0) { printf("SMOKE: open %s: %s\n", p, strerror(errno)); return; }
	int n = read(fd, buf, sizeof(buf) - 1); close(fd); if (n < 0) n = 0; buf[n] = 0;
	for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (!grep || strstr(l, grep)) printf("SMOKE: %s: %s\n", p, l);
}
static void alarm_in(int s) { char b[32]; wr("/sys/class/rtc/rtc0/wakealarm", "0"); snprintf(b, sizeof b, "+%d", s); int r = wr("/sys/class/rtc/rtc0/wakealarm", b); if (r) printf("SMOKE: wakealarm: %s\n", strerror(-r)); }
static void try_sleep(const char *what) {
	double m0 = now(CLOCK_MONOTONIC), b0 = now(CLOCK_BOOTTIME);
	int r = wr("/sys/power/state", "freeze");
	double m1 = now(CLOCK_MONOTONIC), b1 = now(CLOCK_BOOTTIME);
	printf("SMOKE: %s: write freeze -> %s, wall %.2fs, suspended %.2fs\n", what, r ? strerror(-r) : "0", b1 - b0, (b1 - b0) - (m1 - m0));
}
static int mark(int on) {
	struct sched_attr a = { .size = sizeof a, .sched_policy = SCHED_NORMAL, .sched_flags = on ? 0x80 : 0 };
	return syscall(SYS_sched_setattr, 0, &a, 0) ? -errno : 0;
}
int main(void) {
	mount("proc", "/proc", "proc", 0, 0); mount("sysfs", "/sys", "sysfs", 0, 0);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, 0);
	setvbuf(stdout, NULL, _IONBF, 0); printf("SMOKE: start\n");
	cat("/proc/version", NULL); cat("/sys/power/mem_sleep", NULL); cat("/sys/power/state", NULL);
	cat("/proc/interrupts", "pl031"); cat("/sys/devices/system/cpu/cpuidle/current_driver", NULL);
	cat("/sys/class/rtc/rtc0/name", NULL); cat("/proc/sys/kernel/sched_stayawake_loan_horizon_ms", NULL); cat("/sys/kernel/debug/wakeup_sources", "stayawake"); cat("/sys/kernel/debug/wakeup_sources", "pl031"); cat("/sys/class/rtc/rtc0/device/power/wakeup", NULL); { struct timespec r; printf("SMOKE: getres(BOOTTIME_ALARM) -> %d\n", clock_getres(CLOCK_BOOTTIME_ALARM, &r)); }
	/* 1: nothing marked: the RTC wakes s2idle */
	alarm_in(3); try_sleep("unmarked");
	/* 2: marked and running: refused */
	int r = mark(1); printf("SMOKE: mark -> %s\n", r ? strerror(-r) : "0");
	cat("/proc/self/status", "StayAwake");
	alarm_in(3); try_sleep("marked+running");
	r = mark(0); printf("SMOKE: unmark -> %s\n", r ? strerror(-r) : "0");
	/* 3: a marked child in an alarm sleep lets the system suspend */
	pid_t c = fork();
	if (!c) { int mr = mark(1); printf("SMOKE: child mark -> %s\n", mr ? strerror(-mr) : "0"); cat("/proc/self/status", "StayAwake"); fflush(stdout); struct timespec t = { 6, 0 }; int nr = clock_nanosleep(CLOCK_BOOTTIME_ALARM, 0, &t, NULL); printf("SMOKE: child nanosleep -> %s\n", nr ? strerror(nr) : "0"); printf("SMOKE: child woke\n"); cat("/proc/self/status", "StayAwake"); fflush(stdout); _exit(0); }
	char p[64]; snprintf(p, sizeof p, "/proc/%d/status", c);
	for (int i = 0; i < 6; i++) { usleep(500000); printf("SMOKE: t+%.1fs ", (i + 1) * 0.5); cat(p, "StayAwake"); }
	try_sleep("child marked in alarm sleep");
	waitpid(c, NULL, 0);
	printf("SMOKE: done\n");
	sync(); reboot(RB_POWER_OFF);
	return 0;
}
