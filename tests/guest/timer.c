// SPDX-License-Identifier: GPL-2.0
/*
 * --timer's VMM side.  The timer interrupts never reach the VMM (KVM's
 * in-kernel local APIC runs the timer and delivers them; guest.S draws
 * the phase), so at vCPU 0's DONE exit, which ends each iteration with
 * vCPU 0 out of the guest, vCPU 0's thread reads what the guest logged:
 * the iteration's counts, checked exactly, and each timer's two TSCs,
 * read before the initial-count write that started it and in its handler.
 * Their difference in ns (the guest TSC frequency) less USEC is how late
 * the interrupt was handled after the deadline the guest asked for; the
 * round's maximum and sum go into the HVGUEST line, each interrupt into
 * the --timer-log file.
 *
 * Below 0 (an interrupt handled before arm TSC + USEC) only by the guest
 * TSC and the host clock KVM's hrtimer runs on disagreeing, or by the
 * rounding to ns: KVM reads that clock after the TSC read, in the write's
 * VM exit, and an hrtimer never fires early.  Such a timer counts in
 * early (and early_max_ns, the most ns early) and as 0 ns late in the
 * maximum and sum; the log has its signed lateness.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hvguest.h"

struct timer_stats timer_stats;
static FILE *timer_log;
static uint64_t log_iteration;	/* the run's, over all rounds, from 0 */

/* --timer-log: a new file (new_log()) */
void timer_open_log(void)
{
	if (cfg.timer_log)
		timer_log = new_log("--timer-log", cfg.timer_log);
}

/* Before the final HVGUEST line: a log that could not be written fails. */
void timer_close_log(void)
{
	if (timer_log && fclose(timer_log))
		die(EXIT_MISMATCH, "--timer-log: writing %s: %s", cfg.timer_log,
		    strerror(errno));
	timer_log = NULL;
}

/* A new round: a new VM, whose guest counts from 0 again. */
void timer_start(void)
{
	memset(&timer_stats, 0, sizeof(timer_stats));
}

/* One interrupt: its lateness in ns, signed, into the round's stats. */
static int64_t timer_account(uint64_t arm_tsc, uint64_t handler_tsc)
{
	uint64_t usec_ns = cfg.timer_usec * 1000;
	uint64_t ns = handler_tsc > arm_tsc ? ticks_ns(handler_tsc - arm_tsc) : 0;

	if (ns >= usec_ns) {
		ns -= usec_ns;
		if (ns > timer_stats.late_max_ns)
			timer_stats.late_max_ns = ns;
		timer_stats.late_sum_ns += ns;
		return ns;
	}
	ns = usec_ns - ns;
	timer_stats.early++;
	if (ns > timer_stats.early_max_ns)
		timer_stats.early_max_ns = ns;
	return -(int64_t)ns;
}

/*
 * At vCPU 0's DONE exit (v): it armed N timers and handled N interrupts,
 * or the guest (or KVM) is broken.  The handler's runs with none
 * outstanding are counted, not fatal (hvguest.c: QEMU makes them).
 */
void timer_collect(const struct vcpu *v)
{
	uint32_t armed = guest_u32(TIMER_ARMED_GPA);
	uint32_t handled = guest_u32(TIMER_HANDLED_GPA);
	uint32_t extra = guest_u32(TIMER_EXTRA_GPA);
	uint64_t arm_tsc, handler_tsc;
	int64_t late;

	if (armed != cfg.timer_count || handled != cfg.timer_count)
		vcpu_fail(v, "--timer: iteration %" PRIu64 ": vCPU 0 handled %u "
			  "timer interrupts, armed %u, want %" PRIu64 " each",
			  v->iters - 1, handled, armed, cfg.timer_count);
	for (uint32_t i = 0; i < armed; i++) {
		arm_tsc = guest_u64(TIMER_ARM_LOG_GPA + 8 * i);
		handler_tsc = guest_u64(TIMER_HANDLER_LOG_GPA + 8 * i);
		late = timer_account(arm_tsc, handler_tsc);
		if (timer_log)
			fprintf(timer_log, "%" PRIu64 " %u %" PRIu64 " %" PRIu64
				" %" PRId64 "\n", log_iteration, i, arm_tsc,
				handler_tsc, late);
	}
	timer_stats.armed += armed;
	timer_stats.handled += handled;
	timer_stats.extra = extra;	/* the VM's so far */
	if (extra) {
		timer_stats.extra_eip = guest_u32(TIMER_EXTRA_EIP_GPA);
		timer_stats.extra_esp = guest_u32(TIMER_EXTRA_ESP_GPA);
	}
	log_iteration++;
}
