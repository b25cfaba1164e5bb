// SPDX-License-Identifier: GPL-2.0
/*
 * VMs one after another in one process: --rounds N, --spare-vcpus K and
 * --shrink (what they do and guarantee: hvguest.c's header).  Without
 * --rounds this is one round, reported on the one HVGUEST line.
 *
 * One round:
 *   [--shrink: shrink the kvm_vcpu cache]   (not before the first round)
 *   create the VM, the spare vCPUs (in the spare VM), the VM's vCPUs;
 *     find the VM's debugfs directory
 *   run the program on every vCPU (run.c)
 *   collect the round's counts; check them against KVM's stats
 *   destroy_vm(); the debugfs directory must be gone
 *   print 'HVGUEST round=I ...'
 * and the next round's VM is created only after that.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hvguest.h"

#define VCPU_CACHE_SHRINK	"/sys/kernel/slab/kvm_vcpu/shrink"

/*
 * The spare vCPUs live in VMs of their own that last until the end of the
 * run: KVM frees a vCPU only with its VM, so they keep the objects they
 * took.  Their fds are closed at once (the VM holds the vCPUs); each
 * spare VM takes up to max_spares_per_vm of them.
 */
static int spare_vm_fd = -1;
static int spare_vm_vcpus, max_spares_per_vm;

/* Round i's spares: created before its real vCPUs. */
static void create_spares(void)
{
	int fd;

	for (uint64_t j = 0; j < cfg.spares; j++) {
		if (spare_vm_fd < 0 || spare_vm_vcpus == max_spares_per_vm) {
			/* a full one stays open, with its vCPUs, to the end */
			spare_vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
			if (spare_vm_fd < 0)
				die(EXIT_MISMATCH, "KVM_CREATE_VM (spares): %s",
				    strerror(errno));
			spare_vm_vcpus = 0;
		}
		fd = ioctl(spare_vm_fd, KVM_CREATE_VCPU, spare_vm_vcpus);
		if (fd < 0)
			die(EXIT_MISMATCH, "KVM_CREATE_VCPU %d (spare): %s",
			    spare_vm_vcpus, strerror(errno));
		close(fd);
		spare_vm_vcpus++;
	}
}

/*
 * KVM gives each VM a debugfs directory named PID-FD (the VM fd's number)
 * when it is created, and removes it in kvm_destroy_vm(), which runs when
 * the last reference to the VM goes: the VM fd, a vCPU fd (its kvm_run
 * mapping holds the fd), a stats fd.  The final fput() of a close() runs
 * before the close() returns to userspace, so once destroy_vm() is back
 * the directory is gone if and only if KVM destroyed the VM and so every
 * vCPU in it (kvm_destroy_vcpus()).  Returns false if the directory
 * cannot be seen (debugfs not mounted, not root): then nothing is checked.
 */
static bool vm_debugfs(char *path, size_t size)
{
	snprintf(path, size, "/sys/kernel/debug/kvm/%d-%d", getpid(), vm_fd);
	return access(path, F_OK) == 0;
}

static void check_destroyed(const char *path, uint64_t round)
{
	if (access(path, F_OK) == 0)
		die(EXIT_MISMATCH, "round %" PRIu64 ": %s is still there after the "
		    "VM's last fd was closed: KVM did not destroy the VM", round, path);
	if (errno != ENOENT)
		die(EXIT_MISMATCH, "round %" PRIu64 ": %s: %s", round, path,
		    strerror(errno));
}

/*
 * Writing to the cache's 'shrink' attribute makes SLUB flush its per-CPU
 * slabs and give the empty slabs back to the page allocator.
 */
static void shrink_vcpu_cache(void)
{
	int fd = open(VCPU_CACHE_SHRINK, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		die(EXIT_SKIP, "--shrink: %s: %s", VCPU_CACHE_SHRINK, strerror(errno));
	if (write(fd, "1", 1) != 1)
		die(EXIT_MISMATCH, "--shrink: writing %s: %s", VCPU_CACHE_SHRINK,
		    strerror(errno));
	close(fd);
}

/* Fails early, before the first round, if --shrink cannot work. */
static void check_shrink(void)
{
	if (access(VCPU_CACHE_SHRINK, W_OK))
		die(EXIT_SKIP, "--shrink: %s: %s", VCPU_CACHE_SHRINK, strerror(errno));
}

/* Creates a round's VM, its spares (elsewhere), then its vCPUs. */
static void create_round(void)
{
	memset(vcpus, 0, sizeof(vcpus));
	create_vm();
	create_spares();
	for (unsigned int v = 0; v < cfg.vcpus; v++)
		create_vcpu(&vcpus[v], v);
}

void run_rounds(void)
{
	uint64_t n = cfg.rounds ? cfg.rounds : 1;
	struct result total = { 0 }, r;
	sigset_t set = stop_signals();
	char path[64];
	uint64_t closing;
	bool checked, signalled, shrunk;
	int errors;

	if (cfg.shrink)
		check_shrink();
	if (cfg.spares)
		max_spares_per_vm = ioctl(kvm_fd, KVM_CHECK_EXTENSION,
					  KVM_CAP_MAX_VCPUS);
	/* Without --seconds/--forever the program runs once a round. */
	if (cfg.seconds > 0 || cfg.forever)
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	for (uint64_t i = 0; i < n; i++) {
		shrunk = cfg.shrink && i > 0;
		if (shrunk)
			shrink_vcpu_cache();
		create_round();
		checked = vm_debugfs(path, sizeof(path));
		signalled = run_vcpus(i);

		result_of_round(&r);
		errors = 0;
		for (unsigned int v = 0; v < cfg.vcpus; v++)
			errors += check_vcpu(&vcpus[v]);
		closing = now_ns();
		destroy_vm();
		r.destroy_ns = now_ns() - closing;
		for (unsigned int v = 0; v < cfg.vcpus; v++)
			r.last_exit_ns[v] = closing - vcpus[v].ret_ns;
		if (checked)
			check_destroyed(path, i);
		if (errors)
			exit(EXIT_MISMATCH);

		r.spares = cfg.spares;
		r.shrinks = shrunk;
		r.destroy_checked = checked;
		if (cfg.rounds)
			report(&r, i);
		result_add(&total, &r);
		/* a signal ends the run after a complete round */
		if (signalled)
			break;
	}
	ipi_close_log();
	timer_close_log();
	report(&total, -1);
}

/*
 * --hold: keep the VM and its vCPUs, never run them, until SIGINT/SIGTERM.
 * KVM flips static keys (code patching) when the first VM and the first
 * vCPU without an in-kernel APIC appear and when the last go away; under
 * QEMU's multi-threaded emulation a patch racing with execution can
 * crash the test VM's kernel. One held VM keeps those keys steady.
 */
void hold(void)
{
	sigset_t set = stop_signals();
	int sig;

	create_vm();
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		create_vcpu(&vcpus[i], i);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("HVGUEST-HOLD pid=%d\n", getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	exit(0);
}
