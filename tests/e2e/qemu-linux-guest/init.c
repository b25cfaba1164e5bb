// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the small Linux guest that tests/e2e/72-qemu-linux-guest.t
 * boots with QEMU inside the test VM (a guest of the test VM's KVM: the
 * host's hvtrace sees its exits). Static, alone in its initramfs with
 * /hvmark. Mounts proc, sysfs and tracefs, runs
 *
 *   /hvmark -n N -i 20ms ID      (hvmark.n=N hvmark.id=ID on the command
 *                                 line; 5 and 100 without them)
 *
 * with the console as its output, says how it ended on one line
 * ("QLG-INIT: hvmark exit 0") and powers off. Whatever fails, it powers
 * off too: a PID 1 that returned would panic the guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARG_LEN 16

/* "hvmark.n=" and "hvmark.id=" of /proc/cmdline into N and ID. */
static void read_cmdline(char *n, char *id)
{
	char buf[4096], *w, *save;
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f || !fgets(buf, sizeof(buf), f)) {
		printf("QLG-INIT: cannot read /proc/cmdline: %s\n", strerror(errno));
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	for (w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(w, "hvmark.n=", 9))
			snprintf(n, ARG_LEN, "%s", w + 9);
		else if (!strncmp(w, "hvmark.id=", 10))
			snprintf(id, ARG_LEN, "%s", w + 10);
	}
}

static void mount_fs(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, NULL))
		printf("QLG-INIT: mount %s on %s: %s\n", type, dir, strerror(errno));
}

int main(void)
{
	char n[ARG_LEN] = "5", id[ARG_LEN] = "100";
	int status = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	/* Where hvmark looks first; a kernel without tracefs goes without. */
	if (access("/sys/kernel/tracing", F_OK) == 0 &&
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		printf("QLG-INIT: no tracefs: %s\n", strerror(errno));
	read_cmdline(n, id);

	printf("QLG-INIT: /hvmark -n %s -i 20ms %s\n", n, id);
	pid = fork();
	if (pid == 0) {
		execl("/hvmark", "hvmark", "-n", n, "-i", "20ms", id, (char *)NULL);
		printf("QLG-INIT: exec /hvmark: %s\n", strerror(errno));
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		printf("QLG-INIT: fork or wait: %s\n", strerror(errno));
	else if (WIFEXITED(status))
		printf("QLG-INIT: hvmark exit %d\n", WEXITSTATUS(status));
	else
		printf("QLG-INIT: hvmark killed by signal %d\n", WTERMSIG(status));
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	/* No ACPI power-off: a reset ends QEMU as well (-no-reboot). */
	reboot(RB_AUTOBOOT);
	return 1;
}
