// SPDX-License-Identifier: GPL-2.0
/*
 * --ipi's VMM side.  The IPIs themselves never reach the VMM (KVM's
 * in-kernel local APICs deliver them; guest.S draws the handshake), so
 * after each iteration, while both vCPUs wait out of the guest (run.c's
 * end_together()), vCPU 0's thread reads what the guest logged: the
 * iteration's counts, checked exactly, and each IPI's two TSCs, from
 * vCPU 0's read before its ICR write to vCPU 1's in the handler.  Their
 * difference in ns (the guest TSC frequency) is how late the interrupt
 * was handled; the round's maximum and sum go into the HVGUEST line, each
 * IPI into the --ipi-log file.
 *
 * --ipi-via msi: the VMM sends each one itself, an MSI, at vCPU 0's OUT
 * to MSI_PORT (ipi_send_msi()), in vCPU 0's thread between two KVM_RUNs,
 * so that no vCPU of the VM is running in that thread: to KVM the raise
 * comes from a device, not from a vCPU.  vCPU 0 read its send TSC before
 * the OUT, so the lateness also holds the exit to the VMM and the ioctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hvguest.h"

struct ipi_stats ipi_stats;
static FILE *ipi_log;
static uint64_t log_iteration;	/* the run's, over all rounds, from 0 */
static uint32_t iteration_msis;	/* --ipi-via msi: sent in this iteration */

/* --ipi-log: a new file (new_log()) */
void ipi_open_log(void)
{
	if (cfg.ipi_log)
		ipi_log = new_log("--ipi-log", cfg.ipi_log);
}

/* Before the final HVGUEST line: a log that could not be written fails. */
void ipi_close_log(void)
{
	if (ipi_log && fclose(ipi_log))
		die(EXIT_MISMATCH, "--ipi-log: writing %s: %s", cfg.ipi_log,
		    strerror(errno));
	ipi_log = NULL;
}

/* A new round: a new VM, whose guest counts from 0 again. */
void ipi_start(void)
{
	memset(&ipi_stats, 0, sizeof(ipi_stats));
	iteration_msis = 0;
}

/*
 * --ipi-via msi, at vCPU 0's OUT to MSI_PORT: IPI_VECTOR to APIC ID 1 as
 * an MSI, which exactly one local APIC must accept (KVM_SIGNAL_MSI's
 * return: 1).  The guest counted it in sent before the OUT.
 */
void ipi_send_msi(const struct vcpu *v)
{
	uint32_t sent = guest_u32(IPI_SENT_GPA);
	int r = signal_msi(IPI_MSI_ADDR, IPI_MSI_DATA);

	if (r < 0)
		vcpu_fail(v, "--ipi-via msi: iteration %" PRIu64 ": IPI %u "
			  "(from 0): KVM_SIGNAL_MSI (address 0x%x, data 0x%x): %s",
			  v->iters, sent - 1, IPI_MSI_ADDR, IPI_MSI_DATA,
			  strerror(errno));
	if (r != 1)
		vcpu_fail(v, "--ipi-via msi: iteration %" PRIu64 ": IPI %u "
			  "(from 0): KVM_SIGNAL_MSI (address 0x%x, data 0x%x) "
			  "returned %d: %s", v->iters, sent - 1, IPI_MSI_ADDR,
			  IPI_MSI_DATA, r, r ? "more than one local APIC took it" :
			  "the guest blocked it (vCPU 1's APIC not enabled?)");
	iteration_msis++;
	ipi_stats.msi++;
}

/*
 * At vCPU 0's DONE exit, vCPU 1 out of the guest too: vCPU 0 sent N IPIs
 * and vCPU 1 handled N, or the guest is broken.  A handler TSC below its
 * send TSC (the vCPUs' TSCs disagree) counts as 0 ns late.
 */
void ipi_collect(const struct vcpu *v)
{
	uint32_t sent = guest_u32(IPI_SENT_GPA);
	uint32_t handled = guest_u32(IPI_HANDLED_GPA);
	uint64_t send_tsc, handler_tsc, ns;

	if (sent != cfg.ipi_count || handled != cfg.ipi_count)
		vcpu_fail(v, "--ipi: iteration %" PRIu64 ": vCPU 1 handled %u "
			  "IPIs, vCPU 0 sent %u, want %" PRIu64 " each",
			  v->iters - 1, handled, sent, cfg.ipi_count);
	if (iteration_msis != (cfg.ipi_via_msi ? sent : 0))
		vcpu_fail(v, "--ipi: iteration %" PRIu64 ": the VMM sent %u "
			  "MSIs for %u IPIs (via %s)", v->iters - 1,
			  iteration_msis, sent, cfg.ipi_via_msi ? "msi" : "icr");
	iteration_msis = 0;
	for (uint32_t i = 0; i < sent; i++) {
		send_tsc = guest_u64(IPI_SEND_LOG_GPA + 8 * i);
		handler_tsc = guest_u64(IPI_HANDLER_LOG_GPA + 8 * i);
		ns = handler_tsc > send_tsc ?
		     ticks_ns(handler_tsc - send_tsc) : 0;
		if (ns > ipi_stats.late_max_ns)
			ipi_stats.late_max_ns = ns;
		ipi_stats.late_sum_ns += ns;
		if (ipi_log)
			fprintf(ipi_log, "%" PRIu64 " %u %" PRIu64 " %" PRIu64
				" %" PRIu64 "\n", log_iteration, i, send_tsc,
				handler_tsc, ns);
	}
	ipi_stats.sent += sent;
	ipi_stats.handled += handled;
	log_iteration++;
}
