// SPDX-License-Identifier: GPL-2.0
/*
 * The stayawake command on a kernel without SCHED_STAYAWAKE (make
 * VARIANT=vanilla test-variant): every way in says so, with exit status 3.
 * On a kernel with the feature there is nothing to check: SKIP.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib.h"

static int run(char *out, size_t len, const char *a1, const char *a2,
	       const char *a3)
{
	const char *const argv[] = { "/bin/stayawake", a1, a2, a3, NULL };

	return run_capture(argv, out, len, NULL, 0);
}

int main(void)
{
	char out[1024], pid[16], buf[16];
	int rc;

	tap_init("nofeature");
	if (proc_stayawake(getpid(), buf, sizeof(buf))[0]) {
		tap_skip("stayawake CMD says the kernel lacks the feature",
			 "this kernel has SCHED_STAYAWAKE");
		return tap_done();
	}
	rc = run(out, sizeof(out), "/bin/true", NULL, NULL);
	tap_check(rc == 3 && strstr(out, "this kernel lacks SCHED_STAYAWAKE"),
		  "stayawake CMD says the kernel lacks the feature",
		  "exit %d: %s", rc, strtok(out, "\n"));
	snprintf(pid, sizeof(pid), "%d", getpid());
	rc = run(out, sizeof(out), "-p", pid, "on");
	tap_check(rc == 3 && strstr(out, "this kernel lacks SCHED_STAYAWAKE"),
		  "stayawake -p PID on says so too", "exit %d: %s", rc,
		  strtok(out, "\n"));
	rc = run(out, sizeof(out), "list", NULL, NULL);
	tap_check(rc == 3 && strstr(out, "this kernel lacks SCHED_STAYAWAKE"),
		  "stayawake list says so too", "exit %d: %s", rc,
		  strtok(out, "\n"));
	return tap_done();
}
