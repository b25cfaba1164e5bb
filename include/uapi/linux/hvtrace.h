/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * hvtrace: hypervisor-level tracer for KVM hosts — generic netlink ABI.
 *
 * Family "hvtrace", version HVTRACE_GENL_VERSION. Every command requires
 * CAP_SYS_ADMIN and is served only in the initial network namespace.
 * Numbers are never reused: retired commands and attributes keep their slot.
 *
 * HVTRACE_CMD_GET_STATUS
 *   request:  (no attributes)
 *   reply:    HVTRACE_A_STATUS_VERSION        string, module version
 *             HVTRACE_A_STATUS_ABI            u32, HVTRACE_GENL_VERSION
 *             HVTRACE_A_STATUS_NR_CPUS        u32, possible CPUs
 *             HVTRACE_A_STATUS_EXITS_SEEN     u64, exits seen since load
 *             HVTRACE_A_STATUS_ENTRIES_SEEN   u64, entries seen since load
 */
#ifndef _UAPI_LINUX_HVTRACE_H
#define _UAPI_LINUX_HVTRACE_H

#define HVTRACE_GENL_NAME	"hvtrace"
#define HVTRACE_GENL_VERSION	1

enum hvtrace_cmd {
	HVTRACE_CMD_UNSPEC,
	HVTRACE_CMD_GET_STATUS,

	__HVTRACE_CMD_MAX
};

#define HVTRACE_CMD_MAX (__HVTRACE_CMD_MAX - 1)

enum hvtrace_status_attr {
	HVTRACE_A_STATUS_UNSPEC,
	HVTRACE_A_STATUS_PAD,
	HVTRACE_A_STATUS_VERSION,
	HVTRACE_A_STATUS_ABI,
	HVTRACE_A_STATUS_NR_CPUS,
	HVTRACE_A_STATUS_EXITS_SEEN,
	HVTRACE_A_STATUS_ENTRIES_SEEN,

	__HVTRACE_A_STATUS_MAX
};

#define HVTRACE_A_STATUS_MAX (__HVTRACE_A_STATUS_MAX - 1)

#endif /* _UAPI_LINUX_HVTRACE_H */
