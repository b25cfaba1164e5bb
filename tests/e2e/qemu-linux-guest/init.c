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
 *
 * With qlg.edu=R on the command line it first reads the identification
 * register of QEMU's edu device (PCI 1234:11e8, BAR 0 at offset 0) R
 * times through sysfs's mapping of the BAR, each read a KVM_EXIT_MMIO
 * QEMU answers, and says "QLG-EDU: bar 0xADDR id 0xID reads R"
 * (tests/e2e/79-qemu-mmio-device.t).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARG_LEN 16

/* "hvmark.n=", "hvmark.id=", "qlg.edu=" of /proc/cmdline. */
static void read_cmdline(char *n, char *id, char *edu)
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
		else if (!strncmp(w, "qlg.edu=", 8))
			snprintf(edu, ARG_LEN, "%s", w + 8);
	}
}

static void mount_fs(const char *type, const char *dir)
{
	mkdir(dir, 0755);
	if (mount(type, dir, type, 0, NULL))
		printf("QLG-INIT: mount %s on %s: %s\n", type, dir, strerror(errno));
}

/* A sysfs attribute of PCI device DEV as a number (vendor, device). */
static unsigned long pci_attr(const char *dev, const char *attr)
{
	char path[300], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", dev, attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoul(buf, NULL, 0);
}

/* qlg.edu=R: R reads of edu's identification register (above). */
static void edu_reads(const char *arg)
{
	unsigned long long bar = 0;
	long reads = strtol(arg, NULL, 10);
	char path[300], dev[256] = "";
	volatile unsigned int *reg;
	unsigned int idv = 0;
	struct dirent *d;
	DIR *dir;
	FILE *f;
	int fd;

	dir = opendir("/sys/bus/pci/devices");
	while (dir && (d = readdir(dir)))
		if (pci_attr(d->d_name, "vendor") == 0x1234 &&
		    pci_attr(d->d_name, "device") == 0x11e8)
			snprintf(dev, sizeof(dev), "%s", d->d_name);
	if (dir)
		closedir(dir);
	if (!dev[0]) {
		printf("QLG-EDU: no edu device\n");
		return;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", dev);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llx", &bar) != 1)
		printf("QLG-EDU: %s: no BAR 0\n", path);
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", dev);
	fd = open(path, O_RDWR | O_SYNC);
	reg = fd < 0 ? MAP_FAILED :
	      mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (reg == MAP_FAILED) {
		printf("QLG-EDU: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	for (long i = 0; i < reads; i++)
		idv = reg[0];
	munmap((void *)reg, 4096);
	close(fd);
	printf("QLG-EDU: bar 0x%llx id 0x%08x reads %ld\n", bar, idv, reads);
}

int main(void)
{
	char n[ARG_LEN] = "5", id[ARG_LEN] = "100", edu[ARG_LEN] = "";
	int status = 0;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mount_fs("proc", "/proc");
	mount_fs("sysfs", "/sys");
	/* Where hvmark looks first; a kernel without tracefs goes without. */
	if (access("/sys/kernel/tracing", F_OK) == 0 &&
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL))
		printf("QLG-INIT: no tracefs: %s\n", strerror(errno));
	read_cmdline(n, id, edu);
	if (edu[0])
		edu_reads(edu);

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
