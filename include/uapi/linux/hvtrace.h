/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * hvtrace: hypervisor-level tracer for KVM hosts — generic netlink ABI.
 *
 * Family "hvtrace", version HVTRACE_GENL_VERSION, multicast group "events".
 * Served only in the initial network namespace (elsewhere the family does
 * not exist). Privileges, tested on the task that sends the request (for
 * the group: that joins it) in the initial user namespace:
 *   observing  GET_STATUS, GET_CONFIG, GET_STATS: CAP_PERFMON or
 *              CAP_SYS_ADMIN (as perf allows)
 *   changing   SET_CONFIG, START, STOP, CLEAR, READ_EVENTS (a drain
 *              consumes the events) and the "events" group: CAP_SYS_ADMIN
 * A refused request gets -EPERM with an extended-ACK message naming the
 * capability. Numbers are never reused: retired commands and attributes
 * keep their slot. All attributes live in one space (enum hvtrace_attr)
 * except the nests drawn below. Whatever can grow with the host (CPUs,
 * vCPUs, histograms, per-reason settings) comes as a dump of messages of
 * at most a page; only GET_CONFIG's doit reply is sized from what it
 * holds, for readers that want the configuration in one message.
 *
 * HVTRACE_CMD_GET_STATUS            (doit, and dumpit for the CPUs)
 *   doit reply: VERSION string, ABI u32, NR_CPUS u32 (possible CPUs),
 *          CPUS_TRACED u32 (CPUs with hvtrace state: those online since
 *          load), VENDOR string ("kvm_amd", "kvm_intel", or "" while exit
 *          reasons cannot be read), RECORDING u8, READER u8 (a reader
 *          owns the buffers),
 *          ACCT nest: the totals of every CPU:
 *            ACCT_SEEN, ACCT_FILTERED, ACCT_BELOW, ACCT_RECORDED,
 *            ACCT_LOST, ACCT_OVERWRITTEN, ACCT_DRAINED, ACCT_UNPAIRED u64,
 *            ACCT_PREEMPT_SEEN, _FILTERED, _BELOW, _RECORDED, _LOST u64:
 *            the same for preemption records (seen = filtered + below +
 *            recorded + lost holds for each set; drained and overwritten
 *            count records of both kinds),
 *            ACCT_NO_ENTRY u64: exits ended by their vCPU's destruction
 *            (counted like the others, HVTRACE_EVF_NO_ENTRY),
 *          EXITS_SEEN u64, ENTRIES_SEEN u64 (since load, never cleared),
 *          EXITS_UNTRACED u64 (on CPUs without hvtrace state: a CPU that
 *          came online when its state could not be allocated; since load),
 *          STATS_AGE_NS u64 (time since load or the last clear),
 *          VCPUS_LIVE u32, VCPUS_MAX u32 (the max_vcpus parameter),
 *          VMS_LIVE u32, VCPUS_CREATED u64, VCPUS_RECLAIMED u64 (since
 *          load), VCPUS_REFUSED u64 (new vCPUs not traced because
 *          max_vcpus were alive; since load, never cleared),
 *          RECLAIM u8 (1: vCPU and VM destruction is followed, entries
 *          are reclaimed; 0: it cannot be, entries of vCPUs at a reused
 *          address are recognised by identity only),
 *          MEM_BYTES u64 (all memory hvtrace holds), MEM_CPU_BYTES u64
 *          (of it, per traced CPU: aggregates and ring), MEM_VCPU_BYTES
 *          u64 (per vCPU the table can hold)
 *   dumpit: one message per traced CPU: ACCT nest with ACCT_CPU u32 and
 *          the counters above, for that CPU
 *
 * HVTRACE_CMD_GET_CONFIG            (doit, and dumpit)
 *   doit reply: CONFIG nest, as for SET_CONFIG, every setting present
 *   (sized from what it holds: with hundreds of per-reason settings it
 *   can exceed a page). dumpit: the same in several messages of a CONFIG
 *   nest each: the first holds every single setting and the bitmaps, the
 *   next ones the REASON_THRESHOLD nests and then the FILTER_REASONS
 *   entries, in order; a reader concatenates them.
 *
 * HVTRACE_CMD_SET_CONFIG            (doit)
 *   request: CONFIG nest; absent settings keep their value. The whole
 *   request is validated first: a rejected request changes nothing.
 *     CFG_THRESHOLD_NS u64          global duration threshold
 *     CFG_REASON_THRESHOLD nest     (repeatable) per-reason override:
 *       RSN_ISA u8, RSN_CODE u32, RSN_THRESHOLD_NS u64
 *     CFG_REASON_THRESHOLDS_CLEAR flag   drop every override first
 *     CFG_FILTER_PID u32            VMM (VM owner) pid, 0 = any
 *     CFG_FILTER_VCPUS binary       bitmap of vCPU ids (u64 words), empty
 *                                   = any
 *     CFG_FILTER_REASONS nest       list of RSN_ISA+RSN_CODE pairs inside
 *                                   REASON nests; empty nest = any
 *     CFG_FILTER_RIP_MIN u64, CFG_FILTER_RIP_MAX u64   inclusive range;
 *                                   min > max rejected; 0..U64_MAX = any
 *     CFG_FILTER_CPUS binary        bitmap of host CPUs (u64 words), empty
 *                                   = any
 *     CFG_FILTERS_CLEAR flag        reset every filter first
 *     CFG_BUFFER_KB u32             ring size per CPU (only while stopped
 *                                   and no reader owns the buffers;
 *                                   refused when it exceeds half of the
 *                                   memory available)
 *     CFG_MODE u8                   HVTRACE_MODE_* (same rule)
 *     CFG_THRESHOLD_ON u8           enum hvtrace_threshold_on: the part of
 *                                   an exit every threshold compares with
 *     CFG_HALT_TRIGGERS u8          1: with THRESHOLD_ON total, halt time
 *                                   counts toward the threshold (default
 *                                   0: idle guests halt long, normally)
 *     CFG_PREEMPT_THRESHOLD_NS u64  preemption records: off-CPU time
 *   Thresholds and filters can change at any time, also while a reader
 *   drains.
 *
 * HVTRACE_CMD_START, HVTRACE_CMD_STOP   (doit) recording on / off.
 * HVTRACE_CMD_CLEAR                     (doit) zero aggregates, accounting
 *   and buffered events. Refused (-EBUSY) while a reader owns the
 *   buffers: it would discard events the reader has not read.
 *
 * HVTRACE_CMD_GET_STATS             (dumpit) one message per exit reason
 *   seen, then one per live vCPU with exits or preemptions since the last
 *   clear or in an exit now, and one per recently destroyed vCPU
 *   (the last HVTRACE_VCPUS_DEPARTED, if destroyed since the last clear),
 *   then the preemptors:
 *   REASON nest: RSN_ISA u8, RSN_CODE u32 (absent for the catch-alls
 *          "other VMX", "other SVM", and ISA 0 "reason unknown"),
 *          RSN_COUNT u64, RSN_TOTAL_NS, RSN_MIN_NS, RSN_MAX_NS u64,
 *          RSN_HIST binary: array of struct hvtrace_hist_bucket (non-empty
 *          buckets only; absent when the reason shares the overflow
 *          histogram, see the hist_reasons module parameter); a histogram
 *          that does not fit one message goes on in the next ones, REASON
 *          nests of RSN_ISA, RSN_CODE and RSN_HIST only (no RSN_COUNT),
 *          RSN_VMM_NS, RSN_HALT_NS, RSN_RUNNABLE_NS, RSN_OTHER_NS u64:
 *          the parts of TOTAL_NS (handling = total - their sum),
 *          RSN_NO_ENTRY u64: of COUNT, exits ended by vCPU destruction
 *   VCPU nest: VCPU_VM_ID u32, VCPU_VM_PID u32, VCPU_ID u32, VCPU_TID u32,
 *          VCPU_COUNT, VCPU_TOTAL_NS, VCPU_MIN_NS, VCPU_MAX_NS u64,
 *          VCPU_VMM_NS, _HALT_NS, _RUNNABLE_NS, _OTHER_NS u64 (parts of
 *          TOTAL_NS), VCPU_GUEST_NS u64 (in the guest: entry to exit),
 *          VCPU_PREEMPTIONS, VCPU_PREEMPTED_NS u64 (switched out runnable
 *          inside KVM, and for how long); while the vCPU is out of the
 *          guest now: VCPU_EXIT_ISA u8, VCPU_EXIT_REASON u32 (the exit in
 *          progress), VCPU_EXIT_NS u64 (out of the guest for so long),
 *          VCPU_EXIT_STATE u8 (enum hvtrace_vcpu_state); for a destroyed
 *          vCPU: VCPU_GONE u8 (1), its aggregates as they ended
 *   then one per task that ran while a vCPU thread waited runnable
 *   (the heaviest few per CPU, merged):
 *   PREEMPTOR nest: PRE_PID u32, PRE_COMM string, PRE_VCPU u8 (it is a
 *          vCPU thread), PRE_COUNT u64 (runnable stretches), PRE_NS u64
 *
 * HVTRACE_CMD_READ_EVENTS           (dumpit) drains the rings: messages of
 *   EVENTS_CPU u32, EVENTS binary (array of struct hvtrace_event), and
 *   EVENTS_LOST / EVENTS_OVERWRITTEN u64 of that CPU so far (since the
 *   last clear; a recorder subtracts what they were when it started).
 *   One reader at a time: the first socket that drains owns the buffers
 *   until it closes; another gets -EBUSY. Ends when every ring was empty
 *   once.
 *
 * HVTRACE_CMD_WATERMARK             (multicast "events", no attributes) a
 *   ring passed half full: time to drain.
 */
#ifndef _UAPI_LINUX_HVTRACE_H
#define _UAPI_LINUX_HVTRACE_H

#include <linux/types.h>

#define HVTRACE_GENL_NAME	"hvtrace"
#define HVTRACE_GENL_VERSION	3
#define HVTRACE_MCGRP_EVENTS	"events"

enum hvtrace_cmd {
	HVTRACE_CMD_UNSPEC,
	HVTRACE_CMD_GET_STATUS,
	HVTRACE_CMD_GET_CONFIG,
	HVTRACE_CMD_SET_CONFIG,
	HVTRACE_CMD_START,
	HVTRACE_CMD_STOP,
	HVTRACE_CMD_CLEAR,
	HVTRACE_CMD_GET_STATS,
	HVTRACE_CMD_READ_EVENTS,
	HVTRACE_CMD_WATERMARK,

	__HVTRACE_CMD_MAX
};

#define HVTRACE_CMD_MAX (__HVTRACE_CMD_MAX - 1)

enum hvtrace_attr {
	HVTRACE_A_UNSPEC,
	HVTRACE_A_PAD,
	HVTRACE_A_VERSION,
	HVTRACE_A_ABI,
	HVTRACE_A_NR_CPUS,
	HVTRACE_A_VENDOR,
	HVTRACE_A_RECORDING,
	HVTRACE_A_READER,
	HVTRACE_A_ACCT,
	HVTRACE_A_EXITS_SEEN,
	HVTRACE_A_ENTRIES_SEEN,
	HVTRACE_A_CONFIG,
	HVTRACE_A_REASON,
	HVTRACE_A_VCPU,
	HVTRACE_A_EVENTS_CPU,
	HVTRACE_A_EVENTS,
	HVTRACE_A_STATS_AGE_NS,
	HVTRACE_A_EVENTS_LOST,
	HVTRACE_A_EVENTS_OVERWRITTEN,
	HVTRACE_A_PREEMPTOR,
	HVTRACE_A_CPUS_TRACED,
	HVTRACE_A_EXITS_UNTRACED,
	HVTRACE_A_VCPUS_LIVE,
	HVTRACE_A_VCPUS_MAX,
	HVTRACE_A_VMS_LIVE,
	HVTRACE_A_VCPUS_CREATED,
	HVTRACE_A_VCPUS_RECLAIMED,
	HVTRACE_A_VCPUS_REFUSED,
	HVTRACE_A_RECLAIM,
	HVTRACE_A_MEM_BYTES,
	HVTRACE_A_MEM_CPU_BYTES,
	HVTRACE_A_MEM_VCPU_BYTES,

	__HVTRACE_A_MAX
};

#define HVTRACE_A_MAX (__HVTRACE_A_MAX - 1)

/* Inside HVTRACE_A_ACCT. */
enum hvtrace_acct_attr {
	HVTRACE_ACCT_UNSPEC,
	HVTRACE_ACCT_PAD,
	HVTRACE_ACCT_CPU_NEST,		/* retired in ABI 3: per-CPU is a dump */
	HVTRACE_ACCT_CPU,
	HVTRACE_ACCT_SEEN,
	HVTRACE_ACCT_FILTERED,
	HVTRACE_ACCT_BELOW,
	HVTRACE_ACCT_RECORDED,
	HVTRACE_ACCT_LOST,
	HVTRACE_ACCT_OVERWRITTEN,
	HVTRACE_ACCT_DRAINED,
	HVTRACE_ACCT_UNPAIRED,
	HVTRACE_ACCT_PREEMPT_SEEN,
	HVTRACE_ACCT_PREEMPT_FILTERED,
	HVTRACE_ACCT_PREEMPT_BELOW,
	HVTRACE_ACCT_PREEMPT_RECORDED,
	HVTRACE_ACCT_PREEMPT_LOST,
	HVTRACE_ACCT_NO_ENTRY,

	__HVTRACE_ACCT_MAX
};

#define HVTRACE_ACCT_MAX (__HVTRACE_ACCT_MAX - 1)

/* Inside HVTRACE_A_CONFIG. */
enum hvtrace_cfg_attr {
	HVTRACE_CFG_UNSPEC,
	HVTRACE_CFG_PAD,
	HVTRACE_CFG_THRESHOLD_NS,
	HVTRACE_CFG_REASON_THRESHOLD,
	HVTRACE_CFG_REASON_THRESHOLDS_CLEAR,
	HVTRACE_CFG_FILTER_PID,
	HVTRACE_CFG_FILTER_VCPUS,
	HVTRACE_CFG_FILTER_REASONS,
	HVTRACE_CFG_FILTER_RIP_MIN,
	HVTRACE_CFG_FILTER_RIP_MAX,
	HVTRACE_CFG_FILTER_CPUS,
	HVTRACE_CFG_FILTERS_CLEAR,
	HVTRACE_CFG_BUFFER_KB,
	HVTRACE_CFG_MODE,
	HVTRACE_CFG_THRESHOLD_ON,
	HVTRACE_CFG_HALT_TRIGGERS,
	HVTRACE_CFG_PREEMPT_THRESHOLD_NS,

	__HVTRACE_CFG_MAX
};

#define HVTRACE_CFG_MAX (__HVTRACE_CFG_MAX - 1)

/* Inside HVTRACE_A_REASON, HVTRACE_CFG_REASON_THRESHOLD and the REASON
 * nests of HVTRACE_CFG_FILTER_REASONS.
 */
enum hvtrace_rsn_attr {
	HVTRACE_RSN_UNSPEC,
	HVTRACE_RSN_PAD,
	HVTRACE_RSN_ISA,
	HVTRACE_RSN_CODE,
	HVTRACE_RSN_THRESHOLD_NS,
	HVTRACE_RSN_COUNT,
	HVTRACE_RSN_TOTAL_NS,
	HVTRACE_RSN_MIN_NS,
	HVTRACE_RSN_MAX_NS,
	HVTRACE_RSN_HIST,
	HVTRACE_RSN_VMM_NS,
	HVTRACE_RSN_HALT_NS,
	HVTRACE_RSN_RUNNABLE_NS,
	HVTRACE_RSN_OTHER_NS,
	HVTRACE_RSN_NO_ENTRY,

	__HVTRACE_RSN_MAX
};

#define HVTRACE_RSN_MAX (__HVTRACE_RSN_MAX - 1)

/* Inside HVTRACE_A_VCPU. */
enum hvtrace_vcpu_attr {
	HVTRACE_VCPU_UNSPEC,
	HVTRACE_VCPU_PAD,
	HVTRACE_VCPU_VM_ID,
	HVTRACE_VCPU_VM_PID,
	HVTRACE_VCPU_ID,
	HVTRACE_VCPU_TID,
	HVTRACE_VCPU_COUNT,
	HVTRACE_VCPU_TOTAL_NS,
	HVTRACE_VCPU_MIN_NS,
	HVTRACE_VCPU_MAX_NS,
	HVTRACE_VCPU_GUEST_NS,
	HVTRACE_VCPU_VMM_NS,
	HVTRACE_VCPU_HALT_NS,
	HVTRACE_VCPU_RUNNABLE_NS,
	HVTRACE_VCPU_OTHER_NS,
	HVTRACE_VCPU_PREEMPTIONS,
	HVTRACE_VCPU_PREEMPTED_NS,
	HVTRACE_VCPU_EXIT_ISA,
	HVTRACE_VCPU_EXIT_REASON,
	HVTRACE_VCPU_EXIT_NS,
	HVTRACE_VCPU_EXIT_STATE,
	HVTRACE_VCPU_GONE,

	__HVTRACE_VCPU_MAX
};

#define HVTRACE_VCPU_MAX (__HVTRACE_VCPU_MAX - 1)

/* Inside HVTRACE_A_PREEMPTOR. */
enum hvtrace_pre_attr {
	HVTRACE_PRE_UNSPEC,
	HVTRACE_PRE_PAD,
	HVTRACE_PRE_PID,
	HVTRACE_PRE_COMM,
	HVTRACE_PRE_VCPU,
	HVTRACE_PRE_COUNT,
	HVTRACE_PRE_NS,

	__HVTRACE_PRE_MAX
};

#define HVTRACE_PRE_MAX (__HVTRACE_PRE_MAX - 1)

/*
 * Where an exit's time went, exit to re-entry. Off CPU, runnable time
 * (preempted, or woken and waiting for a CPU) is RUNNABLE wherever the
 * thread was; blocked time is VMM when the thread was in userspace, HALT
 * inside KVM's halt (halt polling included), OTHER elsewhere in the
 * kernel. On CPU, userspace is VMM and the kernel is handling. Handling
 * is what remains: duration - the sum of the parts, so they add up.
 */
enum hvtrace_part {
	HVTRACE_PART_VMM,
	HVTRACE_PART_HALT,
	HVTRACE_PART_RUNNABLE,
	HVTRACE_PART_OTHER,

	HVTRACE_NR_PARTS
};

/* HVTRACE_VCPU_EXIT_STATE: where a vCPU out of the guest is now. */
enum hvtrace_vcpu_state {
	HVTRACE_VCPU_IN_KERNEL,		/* on CPU in KVM: handling */
	HVTRACE_VCPU_IN_VMM,		/* KVM_RUN returned: the VMM has it */
	HVTRACE_VCPU_RUNNABLE,		/* off CPU, waiting for one */
	HVTRACE_VCPU_BLOCKED,		/* off CPU in KVM: halted or asleep */

	__HVTRACE_VCPU_STATE_MAX
};

#define HVTRACE_VCPU_STATE_MAX (__HVTRACE_VCPU_STATE_MAX - 1)

/* HVTRACE_CFG_THRESHOLD_ON: what thresholds compare with. */
enum hvtrace_threshold_on {
	HVTRACE_ON_TOTAL,	/* duration, less halt but with HALT_TRIGGERS */
	HVTRACE_ON_HANDLING,
	HVTRACE_ON_VMM,
	HVTRACE_ON_HALT,
	HVTRACE_ON_RUNNABLE,
	HVTRACE_ON_OTHER,

	__HVTRACE_ON_MAX
};

#define HVTRACE_ON_MAX (__HVTRACE_ON_MAX - 1)

/* The ISA of an exit, as KVM's kvm_exit tracepoint passes it. */
enum hvtrace_isa {
	HVTRACE_ISA_UNKNOWN = 0,
	HVTRACE_ISA_VMX = 1,
	HVTRACE_ISA_SVM = 2,
};

enum hvtrace_mode {
	HVTRACE_MODE_DISCARD,	/* full ring: new events dropped, counted */
	HVTRACE_MODE_OVERWRITE,	/* flight recorder: oldest overwritten */

	__HVTRACE_MODE_MAX
};

#define HVTRACE_MODE_MAX (__HVTRACE_MODE_MAX - 1)

/*
 * Ring size per CPU, KiB: the ring holds the largest power of two of
 * records that fits.
 */
#define HVTRACE_BUFFER_KB_MIN		4
#define HVTRACE_BUFFER_KB_MAX		(256 * 1024)
#define HVTRACE_BUFFER_KB_DEFAULT	2560	/* 16384 records */

/* Destroyed vCPUs whose aggregates GET_STATS still shows, at most. */
#define HVTRACE_VCPUS_DEPARTED		64

/* Largest vCPU id the vCPU filter can name (KVM_MAX_VCPU_IDS on x86). */
#define HVTRACE_MAX_VCPU_ID		4095

/*
 * Latency histograms are HDR-style log-linear over nanoseconds: values
 * below 2^HVTRACE_HIST_SUB_BITS are exact; above, each power of two is
 * split into 2^HVTRACE_HIST_SUB_BITS equal buckets, so a bucket's width
 * is at most 1/32 (3.1%) of its lower bound, and its midpoint is within
 * 1.6% of any value in it. Values of 2^36 ns (68.7 s) and more land in the
 * last bucket (the exact maximum is reported separately).
 */
#define HVTRACE_HIST_SUB_BITS		5
#define HVTRACE_HIST_MAX_SHIFT		36
#define HVTRACE_HIST_BUCKETS \
	((HVTRACE_HIST_MAX_SHIFT - HVTRACE_HIST_SUB_BITS + 1) << \
	 HVTRACE_HIST_SUB_BITS)

struct hvtrace_hist_bucket {
	__u32 index;
	__u32 pad;
	__u64 count;
};

enum hvtrace_event_type {
	HVTRACE_EV_EXIT = 1,	/* one VM exit, exit to next entry */
	HVTRACE_EV_PREEMPT = 2,	/* a vCPU thread preempted inside KVM */
};

/* hvtrace_event.flags */
#define HVTRACE_EVF_RIP_VALID	(1U << 0)	/* rip holds the guest RIP */
#define HVTRACE_EVF_ADDR_GPA	(1U << 1)	/* addr is a faulting GPA */
#define HVTRACE_EVF_ADDR_MSR	(1U << 2)	/* addr is an MSR index */
#define HVTRACE_EVF_REASON_UNKNOWN (1U << 3)	/* vendor module not ready */
#define HVTRACE_EVF_PREEMPT_VCPU (1U << 4)	/* the preemptor is a vCPU */
#define HVTRACE_EVF_NO_ENTRY	(1U << 5)	/* never re-entered: the
						 * vCPU was destroyed first;
						 * the duration runs to that
						 */
#define __HVTRACE_EVF_ALL	((1U << 6) - 1)

#define HVTRACE_COMM_LEN	16

/*
 * One record in a per-CPU ring, 160 bytes. seq numbers the records of one
 * CPU from 1 upwards: a gap is events lost or overwritten there.
 *
 * HVTRACE_EV_EXIT: ts_ns is the exit, duration_ns runs to the vCPU's next
 * entry (on cpu_entry, the ring's CPU), or with HVTRACE_EVF_NO_ENTRY to
 * the vCPU's destruction (on cpu_entry); part_ns splits it (enum
 * hvtrace_part); preempt_* name the task that ran instead during the
 * exit's longest runnable stretch (preempt_ns long; pid 0: none).
 *
 * HVTRACE_EV_PREEMPT: the vCPU thread was switched out runnable while in
 * the kernel for an exit (KVM_RUN, vCPU loaded). ts_ns is the switch-out
 * on cpu_exit, duration_ns the time off CPU until the switch-in on
 * cpu_entry; reason to rip describe the exit in flight; preempt_* the
 * task that took the CPU; part_ns[HVTRACE_PART_RUNNABLE] = duration_ns.
 */
struct hvtrace_event {
	__u64 seq;
	__u64 ts_ns;		/* exit time, kernel local_clock() */
	__u64 duration_ns;	/* exit to the vCPU's next entry */
	__u64 info1;		/* vendor exit information */
	__u64 info2;
	__u64 addr;		/* see HVTRACE_EVF_ADDR_* */
	__u64 rip;
	__u32 reason;		/* raw exit reason / exit code */
	__u32 intr_info;
	__u32 error_code;
	__u32 vcpu_id;
	__u32 vm_id;		/* hvtrace's number for the VM, from 1 */
	__u32 vm_pid;		/* the VMM process that owns the VM */
	__u32 tid;		/* the vCPU thread */
	__u16 cpu_exit;		/* host CPU at exit */
	__u16 cpu_entry;	/* host CPU at entry (the ring's CPU) */
	__u8 isa;		/* enum hvtrace_isa */
	__u8 type;		/* enum hvtrace_event_type */
	__u16 flags;		/* HVTRACE_EVF_* */
	__u32 preempt_pid;	/* who ran instead, 0: nobody noted */
	__u64 part_ns[HVTRACE_NR_PARTS];
	__u64 preempt_ns;	/* how long preempt_pid ran instead */
	__u64 guest_ns;		/* EXIT: in the guest before it (0: first) */
	char preempt_comm[HVTRACE_COMM_LEN];
};

#endif /* _UAPI_LINUX_HVTRACE_H */
