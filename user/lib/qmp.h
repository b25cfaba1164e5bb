/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A QMP client for one question: QEMU's memory map (vmm_map.h).
 * Connects to PATH, a unix socket QEMU serves its monitor on (-qmp
 * unix:PATH,server=on,wait=off, or a -chardev socket with -mon
 * mode=control), takes the VMM's pid from the socket's peer credentials
 * (so the map is that process's, whatever the socket's name), negotiates
 * (qmp_capabilities), and asks `info mtree -f` through
 * human-monitor-command. QEMU serves one monitor client at a time: a
 * socket libvirt holds cannot be asked (EBUSY at once, when another
 * client holds it and QEMU's backlog is full). The whole exchange takes
 * TIMEOUT_MS at most, whatever QEMU sends meanwhile (events are skipped),
 * and never blocks longer (ETIMEDOUT).
 */
#ifndef HVCTL_QMP_H
#define HVCTL_QMP_H

#include <stdint.h>

#define QMP_REPLY_MAX	(16U << 20)	/* a reply's bytes, at most */

/*
 * *TEXT: the map's text (malloc'ed), *PID: the process that made the
 * socket (SO_PEERCRED: QEMU, unless another process made it and passed
 * it on). Returns 0, or a negative errno with the message in the error
 * sink (err.h), naming PATH.
 */
int qmp_memory_tree(const char *path, unsigned int timeout_ms, uint32_t *pid,
		    char **text);

#endif /* HVCTL_QMP_H */
