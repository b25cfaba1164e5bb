/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What operators call a VM: the name and UUID its VMM was started with,
 * read from the VMM's command line (/proc/PID/cmdline), never from the
 * kernel. QEMU's forms, libvirt's among them:
 *
 *   -name NAME                  -name guest=NAME,debug-threads=on
 *   -uuid 6f0c2a4e-...          (and --name, --uuid)
 *
 * In QEMU's option syntax a doubled comma is a comma of the value
 * ("-name a,,b" is the VM "a,b"). A VM started otherwise has neither:
 * hvctl keeps calling it vm<id> and its VMM's pid.
 */
#ifndef HVCTL_VM_IDENT_H
#define HVCTL_VM_IDENT_H

#include <stddef.h>
#include <sys/types.h>

/*
 * A longer name is cut to fit, at a character's boundary, and ends with
 * VM_NAME_CUT ("...", one UTF-8 character) so that the cut shows
 * wherever the name does: a cut name is no VM's whole name.
 */
#define VM_NAME_MAX	64		/* with the NUL */
#define VM_NAME_CUT	"\xe2\x80\xa6"	/* U+2026 */
#define VM_UUID_LEN	36		/* 8-4-4-4-12 hex digits */

struct vm_ident {
	char name[VM_NAME_MAX];		/* "": none; no control characters */
	char uuid[VM_UUID_LEN + 1];	/* "": none, or not a UUID */
};

/* From ARGS, LEN bytes of NUL-terminated arguments (as /proc gives). */
void vm_ident_parse(const char *args, size_t len, struct vm_ident *id);

/* PID's: 0, or a negative errno (no such process) with *ID empty. */
int vm_ident_read(pid_t pid, struct vm_ident *id);

/*
 * What S, typed for OPT (--vm, --pid, filter.pid), stands for, by one
 * rule that never guesses: decimal digits alone are a pid, 1 to
 * 2147483647, into *PID; anything else ("0x10", "+5", "web01") is a VM's
 * name or UUID, *PID then 0. So a VM whose name is all digits is given
 * by its UUID or pid. 0, or -EINVAL said to the sink: S empty, a pid out
 * of range, a name too long to be one (VM_NAME_MAX - 1 bytes at most).
 */
int vm_ident_check(const char *opt, const char *s, pid_t *pid);

/*
 * The VMM S stands for among the NR pids of VMMS: a pid as it is, a name
 * or UUID that of exactly one of them. 0 with *PID, or -EINVAL (as
 * vm_ident_check()), -ESRCH (none) or -EEXIST (more than one) said to
 * the sink, naming OPT and S.
 */
int vm_ident_match(const char *opt, const char *s, const pid_t *vmms,
		   unsigned int nr, pid_t *pid);

/*
 * The same among the VMMs whose live vCPUs the module reports (GET_STATS,
 * a session of its own): only a process that runs a VM can answer to a
 * name, whatever another writes on its command line.
 */
int vm_ident_find(const char *opt, const char *s, pid_t *pid);

#endif /* HVCTL_VM_IDENT_H */
