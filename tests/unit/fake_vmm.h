/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VM names against canned module replies (fake_nl.h): a process of ours
 * that calls itself a VM on its command line (as anyone can), and the
 * vCPU row by which the module says that a pid runs a VM. A name may
 * only be found where both are.
 *
 * Header-only, like unit.h: each test is a single translation unit.
 */
#ifndef HVTRACE_FAKE_VMM_H
#define HVTRACE_FAKE_VMM_H

#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_nl.h"
#include "vm_ident.h"

/* A spawned process: its pid, and the pipe that keeps it alive. */
struct fake_vmm {
	pid_t pid;
	int keep;
};

/*
 * "sh -c 'read x' sh ARGS...": a shell that waits on a pipe of ours, its
 * command line ARGS (NULL-terminated) as /proc shows them once it runs.
 * True when its name is NAME.
 */
__attribute__((unused))
static bool fake_vmm_spawn(struct fake_vmm *p, const char *name,
			   const char *const *args)
{
	const char *argv[16] = { "sh", "-c", "read x", "sh" };
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct vm_ident id = { .name = "" };
	int in[2];

	for (int i = 0; args[i] && i < 11; i++)
		argv[4 + i] = args[i];
	p->pid = -1;
	if (pipe2(in, O_CLOEXEC))
		return false;
	p->pid = fork();
	if (p->pid == 0) {
		dup2(in[0], STDIN_FILENO);
		execv("/bin/sh", (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	p->keep = in[1];
	/* Its command line is ours until the exec is through. */
	for (int i = 0; p->pid > 0 && i < 300 && strcmp(id.name, name); i++) {
		vm_ident_read(p->pid, &id);
		if (strcmp(id.name, name))
			nanosleep(&tick, NULL);
	}
	return p->pid > 0 && !strcmp(id.name, name);
}

/* It ends its read, and is waited for. */
__attribute__((unused))
static void fake_vmm_end(struct fake_vmm *p)
{
	if (p->pid <= 0)
		return;
	close(p->keep);
	waitpid(p->pid, NULL, 0);
	p->pid = -1;
}

/* The module's stats hold a vCPU of the VMM PID; GONE: destroyed. */
__attribute__((unused))
static void fake_vmm_row(pid_t pid, uint32_t vm_id, bool gone)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_VCPU);

	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_ID, vm_id);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_PID, pid);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_ID, 0);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_TID, pid + 1);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_COUNT, 1);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_TOTAL_NS, 1000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_MIN_NS, 1000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_MAX_NS, 1000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_GUEST_NS, 1000);
	if (gone)
		mnl_attr_put_u8(nlh, HVTRACE_VCPU_GONE, 1);
	mnl_attr_nest_end(nlh, n);
}

#endif /* HVTRACE_FAKE_VMM_H */
