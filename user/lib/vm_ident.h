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

#define VM_NAME_MAX	64		/* with the NUL; longer is cut */
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
 * A VM as --vm/--pid take it live: a VMM's pid, or the name or UUID of
 * exactly one running VMM. 0 with *PID, or -ESRCH (none) / -EEXIST (more
 * than one) said to the sink, naming S and OPT.
 */
int vm_ident_find(const char *opt, const char *s, pid_t *pid);

#endif /* HVCTL_VM_IDENT_H */
