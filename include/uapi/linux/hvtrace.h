/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * hvtrace: hypervisor-level tracer for KVM hosts — generic netlink ABI.
 *
 * Family HVTRACE_GENL_NAME ("hvtrace"), version HVTRACE_GENL_VERSION,
 * multicast group HVTRACE_MCGRP_EVENTS ("events"). docs/hvtrace.yaml
 * describes the same family for the kernel's YNL tools; scripts/check-spec
 * (make check) fails when the two disagree, this comment included.
 *
 * Served only in the initial network namespace (elsewhere the family does
 * not exist). Privileges, tested on the task that sends the request (for
 * the group: that joins it) in the initial user namespace:
 *   observing  GET_STATUS, GET_CONFIG, GET_STATS: CAP_PERFMON or
 *              CAP_SYS_ADMIN (as perf allows)
 *   changing   SET_CONFIG, START, STOP, CLEAR, READ_EVENTS (a drain
 *              consumes the events), WATCH_START, WATCH_STOP,
 *              READ_CAPTURES (the same) and the "events" group:
 *              CAP_SYS_ADMIN
 * A refused request gets -EPERM with an extended-ACK message naming the
 * capability. Numbers are never reused: retired commands and attributes
 * keep their slot. All top-level attributes live in one space (enum
 * hvtrace_attr); each nest has its own enum. Whatever can grow with the
 * host (CPUs, vCPUs, histograms, per-reason settings) comes as a dump of
 * messages of at most a page; only GET_CONFIG's doit reply is sized from
 * what it holds, for readers that want the configuration in one message.
 *
 * Each command below draws the attributes of its messages, one a line with
 * its full name and type; nests hold the lines indented under them.
 *
 * Counters are never zeroed: CLEAR records a baseline that replies
 * subtract, so they count since the last CLEAR. A GET_STATUS or
 * GET_STATS request with HVTRACE_A_SINCE_LOAD asks for the counters since
 * load instead (an exporter's, which never go backwards); minima and
 * maxima are since the last CLEAR either way.
 *
 *    HVTRACE_A_SINCE_LOAD: NLA_FLAG, in the request
 *
 * HVTRACE_CMD_GET_STATUS (doit, and dumpit for the CPUs)
 * ----------------------
 * The doit reply:
 *
 *    HVTRACE_A_VERSION: NLA_NUL_STRING, the module's version
 *    HVTRACE_A_ABI: NLA_U32, HVTRACE_GENL_VERSION
 *    HVTRACE_A_NR_CPUS: NLA_U32, possible CPUs
 *    HVTRACE_A_CPUS_TRACED: NLA_U32, CPUs with hvtrace state (those online
 *        since load)
 *    HVTRACE_A_VENDOR: NLA_NUL_STRING, "kvm_amd", "kvm_intel", or "" while
 *        exit reasons cannot be read
 *    HVTRACE_A_RECORDING: NLA_U8, 1 between START and STOP
 *    HVTRACE_A_READER: NLA_U8, 1 while a reader owns the buffers
 *    HVTRACE_A_ACCT: NLA_NESTED, the totals of every CPU:
 *        HVTRACE_ACCT_SEEN: NLA_U64, exits completed while recording
 *        HVTRACE_ACCT_FILTERED: NLA_U64, of them rejected by a filter
 *        HVTRACE_ACCT_BELOW: NLA_U64, shorter than their threshold
 *        HVTRACE_ACCT_RECORDED: NLA_U64, written to a ring
 *        HVTRACE_ACCT_LOST: NLA_U64, dropped: the ring was full
 *        HVTRACE_ACCT_OVERWRITTEN: NLA_U64, overwritten before drained
 *        HVTRACE_ACCT_DRAINED: NLA_U64, taken out of the rings
 *        HVTRACE_ACCT_UNPAIRED: NLA_U64, exits that could not be timed
 *        the same for preemption records:
 *        HVTRACE_ACCT_PREEMPT_SEEN: NLA_U64
 *        HVTRACE_ACCT_PREEMPT_FILTERED: NLA_U64
 *        HVTRACE_ACCT_PREEMPT_BELOW: NLA_U64
 *        HVTRACE_ACCT_PREEMPT_RECORDED: NLA_U64
 *        HVTRACE_ACCT_PREEMPT_LOST: NLA_U64
 *        HVTRACE_ACCT_NO_ENTRY: NLA_U64, of SEEN, exits ended by their
 *            vCPU's destruction (HVTRACE_EVF_NO_ENTRY)
 *        guest marks while recording (no threshold; the VM, vCPU and
 *        CPU filters apply; at most HVTRACE_MARK_RATE a second per vCPU):
 *        HVTRACE_ACCT_MARK_SEEN: NLA_U64, = filtered + limited + recorded
 *            + lost
 *        HVTRACE_ACCT_MARK_FILTERED: NLA_U64
 *        HVTRACE_ACCT_MARK_LIMITED: NLA_U64, over HVTRACE_MARK_RATE
 *        HVTRACE_ACCT_MARK_RECORDED: NLA_U64
 *        HVTRACE_ACCT_MARK_LOST: NLA_U64
 *        late interrupts while recording (HVTRACE_EV_IRQ: the VM, vCPU
 *        and CPU filters apply): each injection of a timed delivery not
 *        recorded yet is decided (a reinjection again: it may have
 *        crossed the threshold since), seen = filtered + below +
 *        recorded + lost:
 *        HVTRACE_ACCT_IRQ_SEEN: NLA_U64
 *        HVTRACE_ACCT_IRQ_FILTERED: NLA_U64
 *        HVTRACE_ACCT_IRQ_BELOW: NLA_U64
 *        HVTRACE_ACCT_IRQ_RECORDED: NLA_U64
 *        HVTRACE_ACCT_IRQ_LOST: NLA_U64
 *    HVTRACE_A_EXITS_SEEN: NLA_U64, since load, never cleared
 *    HVTRACE_A_ENTRIES_SEEN: NLA_U64, since load, never cleared
 *    HVTRACE_A_EXITS_UNTRACED: NLA_U64, on CPUs without hvtrace state (one
 *        that came online when its state could not be allocated); since
 *        load
 *    HVTRACE_A_STATS_AGE_NS: NLA_U64, time since load or the last CLEAR
 *        (with SINCE_LOAD: since load)
 *    HVTRACE_A_VCPUS_LIVE: NLA_U32, vCPUs traced now
 *    HVTRACE_A_VCPUS_MAX: NLA_U32, the max_vcpus parameter
 *    HVTRACE_A_VMS_LIVE: NLA_U32, VMs traced now
 *    HVTRACE_A_VCPUS_CREATED: NLA_U64, vCPUs traced since load
 *    HVTRACE_A_VCPUS_RECLAIMED: NLA_U64, slots given back since load
 *    HVTRACE_A_VCPUS_REFUSED: NLA_U64, new vCPUs not traced because
 *        max_vcpus were alive; since load, never cleared
 *    HVTRACE_A_RECLAIM: NLA_U8, 1: vCPU and VM destruction is followed,
 *        entries are reclaimed; 0: it cannot be, entries of vCPUs at a
 *        reused address are recognised by identity only
 *    HVTRACE_A_MEM_BYTES: NLA_U64, all memory hvtrace holds
 *    HVTRACE_A_MEM_CPU_BYTES: NLA_U64, of it, per traced CPU (aggregates
 *        and ring)
 *    HVTRACE_A_MEM_VCPU_BYTES: NLA_U64, of it, per vCPU the table can hold
 *    HVTRACE_A_CLOCK: NLA_NUL_STRING, what hvtrace's times are read from:
 *        "tsc" (the TSC scaled as local_clock() scales it, with local_clock()'s
 *        offset measured at load) or "local_clock"; absent from older modules
 *    HVTRACE_A_CLOCK_SKEW_NS: NLA_U32, with "tsc": how far from
 *        local_clock() its times may be (the offset's uncertainty)
 *    HVTRACE_A_IRQ_PROBES: NLA_U8, HVTRACE_IRQ_PROBE_*: KVM's interrupt
 *        probes hvtrace is attached to (interrupt delivery is timed with
 *        RAISE and INJECT both; every raiser's with EVERY too, vCPUs'
 *        only without; LAPIC timers from their expiry with TIMER);
 *        absent from older modules
 *
 * SEEN = FILTERED + BELOW + RECORDED + LOST holds for each set, per CPU
 * and in total; DRAINED and OVERWRITTEN count records of both kinds. The
 * dumpit sends one message per traced CPU:
 *
 *    HVTRACE_A_ACCT: NLA_NESTED
 *        HVTRACE_ACCT_CPU: NLA_U32, the CPU
 *        the counters above, for that CPU
 *
 * HVTRACE_CMD_GET_CONFIG (doit, and dumpit)
 * ----------------------
 * The doit reply is one HVTRACE_A_CONFIG nest as for SET_CONFIG, every
 * setting present (sized from what it holds: with hundreds of per-reason
 * settings it can exceed a page). The dumpit sends the same in several
 * messages of a CONFIG nest each: the first holds every single setting and
 * the bitmaps, the next ones the REASON_THRESHOLD nests and then the
 * FILTER_REASONS entries, in order; a reader concatenates them.
 *
 * HVTRACE_CMD_SET_CONFIG (doit)
 * ----------------------
 * Absent settings keep their value; the CLEAR flags act first. The whole
 * request is validated first: a rejected request changes nothing.
 *
 *    HVTRACE_A_CONFIG: NLA_NESTED
 *        HVTRACE_CFG_THRESHOLD_NS: NLA_U64, the global duration threshold,
 *            at most HVTRACE_THRESHOLD_NS_MAX
 *        HVTRACE_CFG_REASON_THRESHOLD: NLA_NESTED, repeatable, one
 *            per-reason override, all three required:
 *            HVTRACE_RSN_ISA: NLA_U8, enum hvtrace_isa (VMX or SVM)
 *            HVTRACE_RSN_CODE: NLA_U32, the exit reason or code
 *            HVTRACE_RSN_THRESHOLD_NS: NLA_U64, its threshold
 *        HVTRACE_CFG_REASON_THRESHOLDS_CLEAR: NLA_FLAG, drop every
 *            override first
 *        HVTRACE_CFG_FILTER_PID: NLA_U32, VMM (VM owner) pid, 0 = any
 *        HVTRACE_CFG_FILTER_VCPUS: NLA_BINARY, bitmap of vCPU ids in u64
 *            words (up to HVTRACE_MAX_VCPU_ID), empty = any
 *        HVTRACE_CFG_FILTER_REASONS: NLA_NESTED, the reasons to record,
 *            an empty nest = any:
 *            HVTRACE_A_REASON: NLA_NESTED, repeated, one reason:
 *                HVTRACE_RSN_ISA: NLA_U8
 *                HVTRACE_RSN_CODE: NLA_U32
 *        the guest RIPs to record, an inclusive range (min > max is
 *        rejected; 0 to U64_MAX = any):
 *        HVTRACE_CFG_FILTER_RIP_MIN: NLA_U64
 *        HVTRACE_CFG_FILTER_RIP_MAX: NLA_U64
 *        HVTRACE_CFG_FILTER_CPUS: NLA_BINARY, bitmap of host CPUs in u64
 *            words, empty = any
 *        HVTRACE_CFG_FILTERS_CLEAR: NLA_FLAG, reset every filter first
 *        HVTRACE_CFG_BUFFER_KB: NLA_U32, ring size per CPU (only while
 *            stopped and no reader owns the buffers; refused when it
 *            exceeds half of the memory available)
 *        HVTRACE_CFG_MODE: NLA_U8, enum hvtrace_mode (same rule)
 *        HVTRACE_CFG_THRESHOLD_ON: NLA_U8, enum hvtrace_threshold_on: the
 *            part of an exit every threshold compares with
 *        HVTRACE_CFG_HALT_TRIGGERS: NLA_U8, 1: with THRESHOLD_ON total,
 *            halt time counts toward the threshold (default 0: idle
 *            guests halt long, normally)
 *        HVTRACE_CFG_PREEMPT_THRESHOLD_NS: NLA_U64, for preemption
 *            records: time off CPU
 *        HVTRACE_CFG_IRQ_THRESHOLD_NS: NLA_U64, for late interrupt
 *            records (HVTRACE_EV_IRQ): raise to injection;
 *            HVTRACE_IRQ_THRESHOLD_OFF (the default): none
 *
 * Thresholds and filters can change at any time, also while a reader
 * drains.
 *
 * HVTRACE_CMD_START (doit)
 * HVTRACE_CMD_STOP (doit)
 * -----------------
 * Recording on, off. No attributes.
 *
 * HVTRACE_CMD_CLEAR (doit)
 * -----------------
 * Start the aggregates and the accounting again (a baseline: see
 * SINCE_LOAD above) and drop the buffered events. No attributes.
 * Refused (-EBUSY) while a reader owns the buffers: it would discard
 * events the reader has not read.
 *
 * HVTRACE_CMD_GET_STATS (dumpit)
 * ---------------------
 * One message per exit reason seen, then one per live vCPU with exits or
 * preemptions since the last clear or in an exit now, and one per
 * recently destroyed vCPU (the last HVTRACE_VCPUS_DEPARTED, if destroyed
 * since the last clear), then one per task that ran while a vCPU thread
 * waited runnable (the heaviest few per CPU, merged):
 *
 *    HVTRACE_A_REASON: NLA_NESTED
 *        HVTRACE_RSN_ISA: NLA_U8, enum hvtrace_isa
 *        HVTRACE_RSN_CODE: NLA_U32, absent for the catch-alls "other VMX",
 *            "other SVM", and ISA 0 "reason unknown"
 *        HVTRACE_RSN_COUNT: NLA_U64, exits
 *        HVTRACE_RSN_TOTAL_NS: NLA_U64
 *        HVTRACE_RSN_MIN_NS: NLA_U64
 *        HVTRACE_RSN_MAX_NS: NLA_U64
 *        HVTRACE_RSN_HIST: NLA_BINARY, array of struct hvtrace_hist_bucket
 *            (non-empty buckets only; absent when the reason shares the
 *            overflow histogram, see the hist_reasons module parameter)
 *        the parts of TOTAL_NS (enum hvtrace_part; handling is TOTAL_NS
 *        less their sum):
 *        HVTRACE_RSN_VMM_NS: NLA_U64
 *        HVTRACE_RSN_HALT_NS: NLA_U64
 *        HVTRACE_RSN_RUNNABLE_NS: NLA_U64
 *        HVTRACE_RSN_OTHER_NS: NLA_U64
 *        HVTRACE_RSN_NO_ENTRY: NLA_U64, of COUNT, exits ended by vCPU
 *            destruction
 *    (a histogram that does not fit one message goes on in the next ones:
 *    REASON nests of RSN_ISA, RSN_CODE and RSN_HIST only, no RSN_COUNT)
 *
 *    HVTRACE_A_VCPU: NLA_NESTED
 *        HVTRACE_VCPU_VM_ID: NLA_U32, hvtrace's number for the VM, from 1
 *        HVTRACE_VCPU_VM_PID: NLA_U32, the VMM
 *        HVTRACE_VCPU_ID: NLA_U32
 *        HVTRACE_VCPU_TID: NLA_U32, the vCPU thread
 *        HVTRACE_VCPU_COUNT: NLA_U64, exits
 *        HVTRACE_VCPU_TOTAL_NS: NLA_U64
 *        HVTRACE_VCPU_MIN_NS: NLA_U64
 *        HVTRACE_VCPU_MAX_NS: NLA_U64
 *        the parts of TOTAL_NS, as for reasons:
 *        HVTRACE_VCPU_VMM_NS: NLA_U64
 *        HVTRACE_VCPU_HALT_NS: NLA_U64
 *        HVTRACE_VCPU_RUNNABLE_NS: NLA_U64
 *        HVTRACE_VCPU_OTHER_NS: NLA_U64
 *        HVTRACE_VCPU_GUEST_NS: NLA_U64, in the guest: entry to exit
 *        HVTRACE_VCPU_PREEMPTIONS: NLA_U64, times switched out runnable
 *            inside KVM
 *        HVTRACE_VCPU_PREEMPTED_NS: NLA_U64, time off CPU after those
 *        while the vCPU is out of the guest now:
 *        HVTRACE_VCPU_EXIT_ISA: NLA_U8, the exit in progress
 *        HVTRACE_VCPU_EXIT_REASON: NLA_U32
 *        HVTRACE_VCPU_EXIT_NS: NLA_U64, out of the guest for so long
 *        HVTRACE_VCPU_EXIT_STATE: NLA_U8, enum hvtrace_vcpu_state
 *        for a destroyed vCPU, its aggregates as they ended, and:
 *        HVTRACE_VCPU_GONE: NLA_U8, 1
 *        with SINCE_LOAD, its exits per reason since its first exit:
 *        HVTRACE_VCPU_REASONS: NLA_BINARY, array of struct
 *            hvtrace_vcpu_reason (reasons with exits only)
 *        interrupts delivered to it (injected at an entry) since the last
 *        clear (with SINCE_LOAD since load, but for a row's max and
 *        sources: since the last clear either way), timed from the raise
 *        (see struct hvtrace_vcpu_irq):
 *        HVTRACE_VCPU_IRQS: NLA_BINARY, array of struct hvtrace_vcpu_irq
 *            (rows with deliveries only)
 *        HVTRACE_VCPU_IRQ_UNMATCHED: NLA_U64, injections of no timed raise
 *            (PIC interrupts; without IRQ_PROBE_EVERY, the raises of no
 *            vCPU of its VM)
 *        HVTRACE_VCPU_IRQ_REINJECTED: NLA_U64, injections again of one
 *            that an exit interrupted (not counted in IRQS)
 *        HVTRACE_VCPU_IRQ_POSTED: NLA_U64, timed raises that the CPU
 *            delivered (APICv, AVIC): never injected, not timed
 *            (interrupts the hardware posts alone, as IPIs with IPI
 *            virtualization and VFIO's through the IOMMU, are not even
 *            seen)
 *        HVTRACE_VCPU_IRQ_SPLIT: NLA_BINARY, array of struct
 *            hvtrace_vcpu_irq_split: where those rows' time went, one
 *            per row of IRQS, in its order
 *        HVTRACE_VCPU_IRQ_PCT: NLA_BINARY, array of struct
 *            hvtrace_vcpu_irq_pct: those rows' percentiles, one per row
 *            of IRQS, in its order (without SINCE_LOAD)
 *    (reasons that do not fit one message go on in the next ones: VCPU
 *    nests of VM_ID, VM_PID, ID and REASONS only, no COUNT)
 *
 *    HVTRACE_A_PREEMPTOR: NLA_NESTED
 *        HVTRACE_PRE_PID: NLA_U32
 *        HVTRACE_PRE_COMM: NLA_NUL_STRING
 *        HVTRACE_PRE_VCPU: NLA_U8, 1: it is a vCPU thread
 *        HVTRACE_PRE_COUNT: NLA_U64, runnable stretches
 *        HVTRACE_PRE_NS: NLA_U64, their time
 *
 * HVTRACE_CMD_READ_EVENTS (dumpit)
 * -----------------------
 * Drains the rings, one CPU's batch a message:
 *
 *    HVTRACE_A_EVENTS_CPU: NLA_U32
 *    HVTRACE_A_EVENTS: NLA_BINARY, array of struct hvtrace_event
 *    that CPU's losses so far (since the last CLEAR; a recorder
 *    subtracts what they were when it started):
 *    HVTRACE_A_EVENTS_LOST: NLA_U64, ring full in discard mode
 *    HVTRACE_A_EVENTS_OVERWRITTEN: NLA_U64, in overwrite mode
 *
 * One reader at a time: the first socket that drains owns the buffers
 * until it closes; another gets -EBUSY. Ends when every ring was empty
 * once.
 *
 * HVTRACE_CMD_WATERMARK (multicast "events")
 * ---------------------
 * No attributes: a ring passed half full, time to drain.
 *
 * HVTRACE_CMD_WATCH_START (doit)
 * -----------------------
 * Arm the watch, or change an armed one's settings (absent ones take
 * their default, not their old value: a request is the whole watch). It
 * belongs to the socket that armed it: when that socket closes, the watch
 * disarms and its captures not yet read go. Another socket gets -EBUSY.
 * At least one trigger is required; the whole request is validated
 * first.
 *
 *    HVTRACE_A_WATCH: NLA_NESTED
 *        HVTRACE_WATCH_EXIT_NS: NLA_U64, an exit whose EXIT_ON part
 *            reaches it triggers (0 or absent: no such trigger)
 *        HVTRACE_WATCH_EXIT_ON: NLA_U8, enum hvtrace_threshold_on
 *        HVTRACE_WATCH_HALT_TRIGGERS: NLA_U8, 1: halt time counts, with
 *            EXIT_ON total and in the stall window (by default a halted
 *            vCPU is idle, not stalled)
 *        HVTRACE_WATCH_STALL_NS: NLA_U64, a vCPU out of the guest at least
 *            so long within the last STALL_WINDOW_NS triggers (both or
 *            neither; STALL_NS <= STALL_WINDOW_NS). Counted exactly but
 *            where the window's start cuts an exit: then only what surely
 *            lies inside, at most WINDOW / 128 less. A stall counts once:
 *            the next needs time of its own.
 *        HVTRACE_WATCH_STALL_WINDOW_NS: NLA_U64
 *        HVTRACE_WATCH_PREEMPT_NS: NLA_U64, a vCPU thread preempted inside
 *            KVM at least so long triggers
 *        HVTRACE_WATCH_HISTORY: NLA_U32, records kept before a trigger
 *            (default HVTRACE_WATCH_HISTORY_DEFAULT, at most
 *            HVTRACE_WATCH_HISTORY_MAX; refused when max_vcpus histories
 *            would exceed half of the memory available)
 *        HVTRACE_WATCH_POST_NS: NLA_U64, recording goes on after a
 *            trigger so long (at most HISTORY records more)
 *        HVTRACE_WATCH_RATE: NLA_U32, captures a minute per vCPU at most
 *            (1 to HVTRACE_WATCH_RATE_MAX)
 *        HVTRACE_WATCH_RATE_TOTAL: NLA_U32, captures a minute in all (the
 *            same range)
 *        HVTRACE_WATCH_FILTER_PID: NLA_U32, watch the VMs of this VMM
 *            only, 0 = any
 *        HVTRACE_WATCH_FILTER_VCPUS: NLA_BINARY, bitmap of vCPU ids as
 *            for HVTRACE_CFG_FILTER_VCPUS, empty = any
 *        HVTRACE_WATCH_MARK_TRIGGERS: NLA_U8, 1: a guest mark (see
 *            HVTRACE_MARK_LEAF) of a watched vCPU triggers
 *        HVTRACE_WATCH_MARK_PID: NLA_U32, with MARK_TRIGGERS: only the marks
 *            of this VMM's VMs trigger, 0 = any (the others are still
 *            recorded: a guest must not trigger where it is not trusted)
 *        HVTRACE_WATCH_IRQ_NS: NLA_U64, an interrupt delivered at least so
 *            long after its raise (the delivery time of HVTRACE_VCPU_IRQS)
 *            triggers at the end of the exit it was injected at; that
 *            exit is the trigger record. -EOPNOTSUPP where delivery is not
 *            timed (GET_STATUS' HVTRACE_A_IRQ_PROBES lacks RAISE or INJECT)
 *
 * HVTRACE_CMD_WATCH_STOP (doit)
 * ----------------------
 * Disarm the watch (any socket may); its captures not yet read go (so
 * they do when its owner arms it anew). No attributes.
 *
 * GET_STATUS' doit reply carries the watch too:
 *
 *    HVTRACE_A_WATCH: NLA_NESTED, the settings above while armed, and:
 *        HVTRACE_WATCH_ARMED: NLA_U8
 *        HVTRACE_WATCH_VCPUS: NLA_U32, vCPUs with a history now (one
 *            being given or taken back may count)
 *        HVTRACE_WATCH_MEM_BYTES: NLA_U64, what histories and captures hold
 *            (HVTRACE_WATCH_POOL histories wait ready for new vCPUs)
 *        HVTRACE_WATCH_CAPTURES: NLA_U64, captures closed since armed
 *        HVTRACE_WATCH_PENDING: NLA_U32, of them, not read yet
 *        HVTRACE_WATCH_DROPPED: NLA_U64, captures lost: more than
 *            HVTRACE_WATCH_PENDING_MAX were waiting, no memory to copy
 *            one, or its reader went before it had it all
 *        triggers that made no capture, since armed:
 *        HVTRACE_WATCH_SUPPRESSED_BUSY: NLA_U64, the vCPU's previous
 *            capture was still recording its post window, or closing
 *        HVTRACE_WATCH_SUPPRESSED_RATE: NLA_U64, its vCPU had RATE
 *            captures this minute
 *        HVTRACE_WATCH_SUPPRESSED_TOTAL: NLA_U64, RATE_TOTAL captures were
 *            made this minute
 *        HVTRACE_WATCH_NO_HISTORY: NLA_U64, vCPUs refused a history: no
 *            memory
 *        HVTRACE_WATCH_VCPU_BYTES: NLA_U64, what one vCPU's history takes
 *
 * A minute is a window of the kernel's clock starting at a multiple of
 * 60 s since boot.
 *
 * HVTRACE_CMD_READ_CAPTURES (dumpit)
 * -------------------------
 * Only on the socket that armed the watch (-EPERM on another). Hands over
 * the closed captures, oldest first, each once: a message of
 *
 *    HVTRACE_A_CAPTURE: NLA_NESTED
 *        HVTRACE_CAPTURE_ID: NLA_U64, from 1 since load
 *        HVTRACE_CAPTURE_VM_ID: NLA_U32
 *        HVTRACE_CAPTURE_VM_PID: NLA_U32
 *        HVTRACE_CAPTURE_VCPU_ID: NLA_U32
 *        HVTRACE_CAPTURE_TID: NLA_U32
 *        HVTRACE_CAPTURE_TRIGGER: NLA_U8, enum hvtrace_trigger
 *        HVTRACE_CAPTURE_TRIGGER_TS: NLA_U64, when (local_clock(), the
 *            end of the trigger record)
 *        HVTRACE_CAPTURE_VALUE_NS: NLA_U64, what crossed the limit: the
 *            exit's part, the time out of the guest in the window, the
 *            time preempted, the interrupt's delivery time
 *        HVTRACE_CAPTURE_LIMIT_NS: NLA_U64, the limit it crossed
 *        HVTRACE_CAPTURE_WINDOW_NS: NLA_U64, STALL: the window
 *        HVTRACE_CAPTURE_ON: NLA_U8, EXIT: enum hvtrace_threshold_on
 *        HVTRACE_CAPTURE_IRQ_VECTOR: NLA_U8, IRQ: the interrupt's vector
 *        HVTRACE_CAPTURE_FIRST_SEQ: NLA_U64, the records are FIRST_SEQ up
 *            to END_SEQ (excluded), in the vCPU's order
 *        HVTRACE_CAPTURE_TRIGGER_SEQ: NLA_U64, the trigger record's
 *        HVTRACE_CAPTURE_END_SEQ: NLA_U64
 *        HVTRACE_CAPTURE_SUPPRESSED: NLA_U64, this vCPU's triggers that
 *            made no capture since its previous one
 *        HVTRACE_CAPTURE_CLOCK_NS: NLA_U64, local_clock() when the capture
 *            was copied, and, read with it:
 *        HVTRACE_CAPTURE_REALTIME_NS: NLA_U64, the realtime clock (UTC):
 *            their difference dates the capture's times, however long
 *            the watch has run
 *
 * then the records in messages of
 *
 *    HVTRACE_A_CAPTURE_ID: NLA_U64
 *    HVTRACE_A_EVENTS: NLA_BINARY, array of struct hvtrace_event (seq:
 *        the vCPU's record number)
 *
 * A capture holds the vCPU's exits and preemptions before its trigger
 * record (the last HISTORY of them since the vCPU got its history, at its
 * first exit while armed, and not before its previous trigger: those are
 * in the previous capture), the trigger's, and those of the post window
 * (at most HISTORY). A vCPU whose capture is still being closed
 * makes no other (SUPPRESSED_BUSY).
 *
 * HVTRACE_CMD_CAPTURE (multicast "events")
 * -------------------
 * No attributes: a capture closed, time to read it.
 */
#ifndef _UAPI_LINUX_HVTRACE_H
#define _UAPI_LINUX_HVTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define HVTRACE_GENL_NAME	"hvtrace"
#define HVTRACE_GENL_VERSION	4
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
	HVTRACE_CMD_WATCH_START,
	HVTRACE_CMD_WATCH_STOP,
	HVTRACE_CMD_READ_CAPTURES,
	HVTRACE_CMD_CAPTURE,

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
	HVTRACE_A_WATCH,
	HVTRACE_A_CAPTURE,
	HVTRACE_A_CAPTURE_ID,
	HVTRACE_A_SINCE_LOAD,
	HVTRACE_A_CLOCK,
	HVTRACE_A_CLOCK_SKEW_NS,
	HVTRACE_A_IRQ_PROBES,

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
	HVTRACE_ACCT_MARK_FILTERED,
	HVTRACE_ACCT_MARK_RECORDED,
	HVTRACE_ACCT_MARK_LOST,
	HVTRACE_ACCT_MARK_SEEN,
	HVTRACE_ACCT_MARK_LIMITED,
	HVTRACE_ACCT_IRQ_SEEN,
	HVTRACE_ACCT_IRQ_FILTERED,
	HVTRACE_ACCT_IRQ_BELOW,
	HVTRACE_ACCT_IRQ_RECORDED,
	HVTRACE_ACCT_IRQ_LOST,

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
	HVTRACE_CFG_IRQ_THRESHOLD_NS,

	__HVTRACE_CFG_MAX
};

#define HVTRACE_CFG_MAX (__HVTRACE_CFG_MAX - 1)

/* HVTRACE_CFG_IRQ_THRESHOLD_NS: no late interrupt is recorded. */
#define HVTRACE_IRQ_THRESHOLD_OFF	(~0ULL)

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
	HVTRACE_VCPU_REASONS,
	HVTRACE_VCPU_IRQS,
	HVTRACE_VCPU_IRQ_UNMATCHED,
	HVTRACE_VCPU_IRQ_REINJECTED,
	HVTRACE_VCPU_IRQ_POSTED,
	HVTRACE_VCPU_IRQ_SPLIT,
	HVTRACE_VCPU_IRQ_PCT,

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

/* Inside HVTRACE_A_WATCH. */
enum hvtrace_watch_attr {
	HVTRACE_WATCH_UNSPEC,
	HVTRACE_WATCH_PAD,
	HVTRACE_WATCH_EXIT_NS,
	HVTRACE_WATCH_EXIT_ON,
	HVTRACE_WATCH_HALT_TRIGGERS,
	HVTRACE_WATCH_STALL_NS,
	HVTRACE_WATCH_STALL_WINDOW_NS,
	HVTRACE_WATCH_PREEMPT_NS,
	HVTRACE_WATCH_HISTORY,
	HVTRACE_WATCH_POST_NS,
	HVTRACE_WATCH_RATE,
	HVTRACE_WATCH_RATE_TOTAL,
	HVTRACE_WATCH_FILTER_PID,
	HVTRACE_WATCH_FILTER_VCPUS,
	HVTRACE_WATCH_ARMED,
	HVTRACE_WATCH_VCPUS,
	HVTRACE_WATCH_MEM_BYTES,
	HVTRACE_WATCH_CAPTURES,
	HVTRACE_WATCH_PENDING,
	HVTRACE_WATCH_DROPPED,
	HVTRACE_WATCH_SUPPRESSED_BUSY,
	HVTRACE_WATCH_SUPPRESSED_RATE,
	HVTRACE_WATCH_SUPPRESSED_TOTAL,
	HVTRACE_WATCH_NO_HISTORY,
	HVTRACE_WATCH_VCPU_BYTES,
	HVTRACE_WATCH_MARK_TRIGGERS,
	HVTRACE_WATCH_MARK_PID,
	HVTRACE_WATCH_IRQ_NS,

	__HVTRACE_WATCH_MAX
};

#define HVTRACE_WATCH_MAX (__HVTRACE_WATCH_MAX - 1)

/* Inside HVTRACE_A_CAPTURE. */
enum hvtrace_capture_attr {
	HVTRACE_CAPTURE_UNSPEC,
	HVTRACE_CAPTURE_PAD,
	HVTRACE_CAPTURE_ID,
	HVTRACE_CAPTURE_VM_ID,
	HVTRACE_CAPTURE_VM_PID,
	HVTRACE_CAPTURE_VCPU_ID,
	HVTRACE_CAPTURE_TID,
	HVTRACE_CAPTURE_TRIGGER,
	HVTRACE_CAPTURE_TRIGGER_TS,
	HVTRACE_CAPTURE_VALUE_NS,
	HVTRACE_CAPTURE_LIMIT_NS,
	HVTRACE_CAPTURE_WINDOW_NS,
	HVTRACE_CAPTURE_ON,
	HVTRACE_CAPTURE_FIRST_SEQ,
	HVTRACE_CAPTURE_TRIGGER_SEQ,
	HVTRACE_CAPTURE_END_SEQ,
	HVTRACE_CAPTURE_SUPPRESSED,
	HVTRACE_CAPTURE_CLOCK_NS,
	HVTRACE_CAPTURE_REALTIME_NS,
	HVTRACE_CAPTURE_IRQ_VECTOR,

	__HVTRACE_CAPTURE_MAX
};

#define HVTRACE_CAPTURE_MAX (__HVTRACE_CAPTURE_MAX - 1)

/* HVTRACE_CAPTURE_TRIGGER: what made a capture. */
enum hvtrace_trigger {
	HVTRACE_TRIGGER_EXIT,		/* one exit's part crossed EXIT_NS */
	HVTRACE_TRIGGER_STALL,		/* out of the guest STALL_NS in WINDOW */
	HVTRACE_TRIGGER_PREEMPT,	/* preempted PREEMPT_NS inside KVM */
	HVTRACE_TRIGGER_MARK,		/* a guest mark, where allowed */
	HVTRACE_TRIGGER_IRQ,		/* an interrupt delivered IRQ_NS late */

	__HVTRACE_TRIGGER_MAX
};

#define HVTRACE_TRIGGER_MAX (__HVTRACE_TRIGGER_MAX - 1)

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

/*
 * HVTRACE_VCPU_REASONS: a vCPU's exits of one reason since its first
 * exit (never cleared). A catch-all ("other VMX", "other SVM", ISA 0
 * "reason unknown") has no single code: HVTRACE_VCPU_RSN_CATCH_ALL.
 */
#define HVTRACE_VCPU_RSN_CATCH_ALL	(1U << 0)
#define __HVTRACE_VCPU_RSN_ALL		((1U << 1) - 1)

struct hvtrace_vcpu_reason {
	__u32 code;
	__u8 isa;		/* enum hvtrace_isa */
	__u8 flags;		/* HVTRACE_VCPU_RSN_* */
	__u16 pad;
	__u64 count;
	__u64 total_ns;
};

/*
 * HVTRACE_VCPU_IRQS: interrupts delivered to a vCPU, a row per vector.
 * An interrupt is timed from KVM accepting it into the vCPU's local APIC
 * (raised) to the entry that injects it. Who raised it: the vCPU's own
 * thread (its LAPIC timer where its expiry is not probed, LVTs,
 * self-IPIs: LOCAL), another vCPU of its
 * VM (an IPI: IPI), or anything else (DEVICE: the VMM's ioctls, irqfds
 * such as virtio's and VFIO's, the in-kernel PIT and IOAPIC). DEVICE
 * raises are seen only where HVTRACE_A_IRQ_PROBES has EVERY (a kprobe
 * on KVM's __apic_accept_irq, which names the target vCPU itself); with
 * RAISE alone (the kvm_apic_accept_irq tracepoint, which names it by id)
 * only vCPUs' raises are timed, and the injections of the others are
 * HVTRACE_VCPU_IRQ_UNMATCHED. With TIMER too (a kprobe on KVM's
 * apic_timer_fn), an interrupt of the vCPU's LAPIC timer is timed from
 * the timer's expiry, not from KVM's raise when the vCPU's thread next
 * runs (a halt or a preemption between the two is in its time): source
 * TIMER, in place of LOCAL, for a raise of LVTT's vector with an expiry
 * pending in KVM since the vCPU's last entry (only KVM's hrtimer is
 * probed: on Intel with the VMX preemption timer, a halted vCPU's).
 * With EVERY a raise counts when KVM accepts it: an enabled local APIC,
 * fixed or lowest-priority, edge or a level assertion, vector 16 to 255
 * (with RAISE alone: edge only, whatever the APIC's state); either way
 * one merged into a pending raise of its vector (one IRR bit) adds
 * nothing.
 *
 *   raise (accept)        entry injecting it
 *   |--- in the guest, kicked / in an exit / VMM / halted / preempted ---|
 *
 * The time ends at the delivery's last injection: KVM injects again when
 * it cancelled the entry (a preemption, a signal, a new request) or an
 * exit cut the delivery short. It holds whatever kept the interrupt from
 * the guest: the host, and the guest itself (interrupts off, its task
 * priority, the same vector still in service).
 *
 * The first HVTRACE_VCPU_IRQ_VECTORS vectors a vCPU gets since its first
 * exit have a row each; later ones share one row (HVTRACE_VCPU_IRQ_OTHER,
 * vector 0).
 */
/* HVTRACE_A_IRQ_PROBES: which of KVM's interrupt probes are attached. */
#define HVTRACE_IRQ_PROBE_RAISE		(1U << 0)	/* a raise: either */
#define HVTRACE_IRQ_PROBE_INJECT	(1U << 1)	/* kvm_inj_virq */
#define HVTRACE_IRQ_PROBE_POSTED	(1U << 2)	/* kvm_apicv_accept_irq */
#define HVTRACE_IRQ_PROBE_EVERY		(1U << 3)	/* __apic_accept_irq */
#define HVTRACE_IRQ_PROBE_TIMER		(1U << 4)	/* apic_timer_fn */
#define __HVTRACE_IRQ_PROBE_ALL		((1U << 5) - 1)

#define HVTRACE_VCPU_IRQ_LOCAL		(1U << 0)	/* raised by itself */
#define HVTRACE_VCPU_IRQ_IPI		(1U << 1)	/* by another vCPU */
#define HVTRACE_VCPU_IRQ_OTHER		(1U << 2)	/* the other vectors */
#define HVTRACE_VCPU_IRQ_DEVICE		(1U << 3)	/* by no vCPU of its VM */
#define HVTRACE_VCPU_IRQ_TIMER		(1U << 4)	/* its LAPIC timer */
#define __HVTRACE_VCPU_IRQ_ALL		((1U << 5) - 1)
#define HVTRACE_VCPU_IRQ_VECTORS	7

struct hvtrace_vcpu_irq {
	__u8 vector;
	__u8 flags;		/* HVTRACE_VCPU_IRQ_*: who raised them */
	__u16 pad;
	__u32 pad2;
	__u64 count;
	__u64 total_ns;
	__u64 max_ns;
};

/*
 * HVTRACE_VCPU_IRQ_SPLIT: where a row's time (total_ns) went, by where
 * the vCPU's thread was while the interrupt waited. In the guest
 * (guest_ns): from the raise to the exit whose entry injected it: the
 * kick out of the guest, or entries that could not inject it (the
 * guest's interrupts off, its priority; their exits are in guest_ns
 * too). Then that exit's parts after the raise, as enum hvtrace_part
 * splits an exit: part_ns; handling is the rest (total_ns - guest_ns -
 * the parts). pre_ns: the longest runnable time of one delivery since
 * the clear, and who ran instead of the vCPU during most of it, as an
 * exit names its preemptor (pre_pid 0: nobody known). A raise inside an
 * exit's older stretches (past the last 8 it logs: one preempted again
 * and again) is split from their sums per part.
 */
struct hvtrace_vcpu_irq_split {
	__u64 guest_ns;
	__u64 part_ns[HVTRACE_NR_PARTS];
	__u64 pre_ns;
	__u32 pre_pid;
	__u16 pre_flags;	/* HVTRACE_EVF_PREEMPT_VCPU */
	__u16 pad;
	char pre_comm[16];
};

/*
 * HVTRACE_VCPU_IRQ_PCT: a row's deliveries' median, 99th and 99.9th
 * percentiles since the clear, from a log-linear histogram of their
 * times: 4 buckets an octave from 1024 ns, 256 ns wide below, 15 s and
 * more in the last. Each is the middle of the bucket that holds it
 * (within 12.5% from 1 us to 15 s, 128 ns below), at most the row's
 * max_ns (all three max_ns for a copy that raced a clear). A
 * reinjection moves its delivery to its longer time's bucket; a full
 * bucket (2^32 - 1) halves the row's.
 */
struct hvtrace_vcpu_irq_pct {
	__u64 p50_ns;
	__u64 p99_ns;
	__u64 p999_ns;
};

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

/*
 * Largest duration threshold, ns (an hour): global, per reason and for
 * preemption records. Longer is refused, not clamped.
 */
#define HVTRACE_THRESHOLD_NS_MAX	(3600ULL * 1000000000ULL)

/* The watch's history per vCPU, records before a trigger. */
#define HVTRACE_WATCH_HISTORY_DEFAULT	256
#define HVTRACE_WATCH_HISTORY_MAX	65536
/* Post-trigger window: default and largest, ns. */
#define HVTRACE_WATCH_POST_NS_DEFAULT	(10ULL * 1000000ULL)
#define HVTRACE_WATCH_POST_NS_MAX	(10ULL * 1000000000ULL)
/* Captures a minute: per vCPU and in all, by default. */
#define HVTRACE_WATCH_RATE_DEFAULT	6
#define HVTRACE_WATCH_RATE_TOTAL_DEFAULT	60
#define HVTRACE_WATCH_RATE_MAX		3600
/* Histories kept ready for new vCPUs while armed. */
#define HVTRACE_WATCH_POOL		8
/* Closed captures waiting to be read, at most (older ones are dropped). */
#define HVTRACE_WATCH_PENDING_MAX	16

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
	HVTRACE_EV_MARK = 3,	/* a guest mark: CPUID HVTRACE_MARK_LEAF */
	HVTRACE_EV_IRQ = 4,	/* an interrupt delivered late */
};

/*
 * A guest marks its own timeline, without a driver: it reads its TSC and
 * executes CPUID with EAX = HVTRACE_MARK_LEAF ("HVT\0": in the range
 * reserved for hypervisors, past what KVM answers, 0x40000000-0x400001ff,
 * and what guests probe, up to 0x4000ff00), ECX = a mark id of its
 * choosing, EDX:EBX = the TSC it read. KVM answers as for any leaf it
 * does not know; hvtrace, while recording or watching, writes an
 * HVTRACE_EV_MARK record (hvmark(1) issues marks).
 */
#define HVTRACE_MARK_LEAF	0x48565400U
/*
 * Marks recorded a second (of the host clock) per vCPU, at most: a guest
 * issues them at will, and must not fill the rings that hold the exits
 * above the threshold. The watch's histories take every mark; its
 * triggers have their rate limits.
 */
#define HVTRACE_MARK_RATE	100

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
/*
 * Device accesses during the exit (KVM's kvm_mmio and kvm_fast_mmio),
 * valid with HVTRACE_EVF_GPA_CLASS: the guest read or wrote
 * guest-physical memory that no memslot backs (or a read-only one),
 * emulated in the kernel (the local APIC, an ioeventfd, ...) or, with
 * HVTRACE_EVF_MMIO_VMM, by the VMM (KVM_RUN returned KVM_EXIT_MMIO
 * during the exit). A GPA fault (ADDR_GPA) with GPA_CLASS and neither
 * READ nor WRITE made no device access: it hit RAM (a memslot; a page
 * faulted in, write-protected, or moved), or KVM retried it (the page
 * changed under the fault) and the guest faults again.
 */
#define HVTRACE_EVF_MMIO_READ	(1U << 6)
#define HVTRACE_EVF_MMIO_WRITE	(1U << 7)
#define HVTRACE_EVF_MMIO_VMM	(1U << 8)
/*
 * The first access's length in bytes, 1 to 15, in binary: the sum of
 * the LEN_N bits set; 0 with READ or WRITE: 16 or more, or not told (a
 * VMX fast MMIO write: an ioeventfd).
 */
#define HVTRACE_EVF_MMIO_LEN_1	(1U << 9)
#define HVTRACE_EVF_MMIO_LEN_2	(1U << 10)
#define HVTRACE_EVF_MMIO_LEN_4	(1U << 11)
#define HVTRACE_EVF_MMIO_LEN_8	(1U << 12)
#define HVTRACE_EVF_MMIO_LEN_SHIFT 9
#define HVTRACE_EVF_MMIO_LEN_MAX 15
#define HVTRACE_EVF_MMIO_LEN	(15U << HVTRACE_EVF_MMIO_LEN_SHIFT)
/*
 * The module followed this exit's device accesses (it could attach to
 * kvm_mmio, kvm_fast_mmio and kvm_userspace_exit): set on GPA faults and
 * exits with an access. Without it (older modules, or a kvm.ko without
 * those tracepoints) the bits above say nothing.
 */
#define HVTRACE_EVF_GPA_CLASS	(1U << 13)
#define HVTRACE_EVF_MMIO	(3U << 6)	/* READ or WRITE */
#define __HVTRACE_EVF_ALL	((1U << 14) - 1)

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
 *
 * HVTRACE_EV_MARK: a guest mark, at the CPUID exit: ts_ns (on cpu_exit =
 * cpu_entry) and mark.host_tsc were read together in the exit's probe,
 * duration_ns is 0, info1 is the mark id (ECX), info2 the guest's TSC
 * (EDX:EBX), rip the CPUID's, reason the exit's; mark.* give the vCPU's
 * TSC as KVM sets it (L1: the guest's own, not a nested guest's):
 *   guest TSC = (host_tsc * tsc_ratio >> tsc_frac_bits) + tsc_offset
 * (mod 2^64) at the probe; info2 is a little less (the exit's cost).
 *
 * HVTRACE_EV_IRQ: an interrupt injected HVTRACE_CFG_IRQ_THRESHOLD_NS or
 * more after its raise, at the injection that made it so (once: a
 * reinjection extends a delivery). ts_ns is the raise (a LAPIC timer's
 * expiry), duration_ns the time to the injection, on cpu_exit =
 * cpu_entry, the injecting CPU (KVM injects before it disables
 * preemption: the entry may come later, elsewhere, and that time is
 * not in duration_ns); reason is the vector, info1 who
 * raised it (one HVTRACE_VCPU_IRQ_* bit), info2 the vendor reason of the
 * vCPU's last exit, the one the injecting entry ends (see isa); addr and
 * rip 0. The wait is split as an exit's: guest_ns in the guest (it had
 * to be kicked out), part_ns, handling the rest; preempt_* name the task
 * that ran most of its longest runnable stretch (preempt_ns is that
 * stretch's runnable time in the wait).
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
	union {
		__u64 part_ns[HVTRACE_NR_PARTS];	/* EXIT, PREEMPT */
		struct {
			__u64 host_tsc;
			__u64 tsc_offset;
			__u64 tsc_ratio;
			__u64 tsc_frac_bits;
		} mark;					/* MARK */
	};
	__u64 preempt_ns;	/* how long preempt_pid ran instead */
	__u64 guest_ns;		/* EXIT: in the guest before it (0: first) */
	char preempt_comm[HVTRACE_COMM_LEN];
};

/*
 * The rings in place: the device HVTRACE_DEVICE_NAME ("/dev/hvtrace")
 * maps each CPU's ring read-only into the reader, so a drain copies
 * nothing through netlink. Opening it, and each ioctl and mmap, needs
 * CAP_SYS_ADMIN of the calling task (as a drain does; else -EPERM).
 * Opening takes the rings as READ_EVENTS's first drain does (the lease)
 * until the file is closed and unmapped: one reader at a time (-EBUSY,
 * also while a CLEAR or a resize is under way).
 *
 * HVTRACE_IOC_RING with cpu set and consumed = taken = 0 says where the
 * CPU's ring is (-ENODEV: that CPU has none, e.g. never online since
 * load; -EINVAL: no such CPU): mmap(bytes, PROT_READ, MAP_SHARED or
 * MAP_PRIVATE, offset) maps its slots, an array of `slots` records (a
 * power of two); a mapping that is not one whole ring is refused
 * (-EINVAL), one that could be written or executed too (-EPERM). The
 * record at position P (from 0; the ring's record count, which only
 * grows) lies in slot P & (slots - 1) and is committed when its seq reads
 * P + 1 (load it with acquire semantics, then the record). A smaller
 * seq: not yet written; a larger one: overwrite mode only, the writer
 * lapped the reader (P was lost), and in overwrite mode a committed
 * record may be overwritten while read: copy it, then read seq again.
 * Read from `tail` on, then give the slots back with consumed (positions
 * passed, up to the first not committed: the count cannot exceed what
 * writers reserved, but a slot given back while being written is lost)
 * and taken (of them, read whole; discard mode: all of them). -EINVAL
 * for counts that cannot be right, and nothing changes. The reply's
 * tail is the next position; lost (exit records a full ring dropped,
 * as READ_EVENTS' HVTRACE_A_EVENTS_LOST) and overwritten count since the
 * last CLEAR; cpus_traced, the CPUs with hvtrace state: when it grows a
 * CPU came up, its ring to map. Writers wait for nothing: in discard
 * mode a full ring loses new records, in overwrite mode old ones.
 */
#define HVTRACE_DEVICE_NAME	"hvtrace"

struct hvtrace_ring {
	__u32 cpu;		/* in */
	__u32 mode;		/* out: enum hvtrace_mode */
	__u64 consumed;		/* in: positions read past tail */
	__u64 taken;		/* in: of them, records read whole */
	__u64 tail;		/* out: the next position to read */
	__u64 slots;		/* out */
	__u64 bytes;		/* out: the length to map */
	__u64 offset;		/* out: the offset to map at */
	__u64 lost;		/* out: ring full, since the last CLEAR */
	__u64 overwritten;	/* out: since the last CLEAR */
	__u32 cpus_traced;	/* out */
	__u32 pad;		/* out: 0 */
};

#define HVTRACE_IOC_MAGIC	0xb7
#define HVTRACE_IOC_RING	_IOWR(HVTRACE_IOC_MAGIC, 1, struct hvtrace_ring)

#endif /* _UAPI_LINUX_HVTRACE_H */
