// SPDX-License-Identifier: GPL-2.0
/*
 * The HVGUEST lines: the counts of one round (result_of_round()), summed
 * over the rounds (result_add()), then printed (report()).  One round's
 * line and the final line have the same keys; the final line has all
 * rounds' totals:
 *
 *   HVGUEST-START [round=I] pid= vcpus= tids= [hop_tids=]
 *   HVGUEST round=I pid= vcpus= tids= ... spares= [shrinks=] destroy_checked=
 *   HVGUEST pid= vcpus= tids= ... [rounds=N spares= [shrinks=] destroy_checked=]
 *
 * Counts of exits are totals over the vCPUs (and rounds); iterations is
 * per vCPU, so pio = --pio count * iterations * vcpus.  tids (and hop_tids,
 * last_exit_tids) are the last round's, in vCPU order.
 *   kvm_*            KVM's vCPU stats, deltas summed over the vCPUs
 *   run_ns           per round the longest vCPU's time from its first
 *                    KVM_RUN to its last exit; summed over the rounds
 *   run_delay_ns     the vCPU threads' run_delay (schedstat), summed: with
 *                    --spin from each vCPU's first SPIN_PORT OUT, else from
 *                    before its first KVM_RUN, to after its last exit (run.c)
 *   spares           spare vCPUs created (--spare-vcpus)
 *   shrinks          kvm_vcpu cache shrinks before the round(s) (--shrink)
 *   destroy_checked  rounds whose VM's destruction was seen in debugfs
 *   vmm_ns, vmm_exits, vcpu_vmm_ns=A,B.., vcpu_vmm_exits=A,B..  (--hop or
 *                    --vmm-work) the VMM's own time between each return of
 *                    KVM_RUN and the next call, see run.c
 *   hops, vcpu_hops=A,B..   (--hop) handovers to the other thread
 *   vmm_work_usec, vmm_work=sleep|spin   (--vmm-work)
 *   cpuid_leaf, marks, rip_mark, mark_tsc=ID:TSC,..   (--cpuid N:0x48565400)
 *                    the guest marks made (the last round's), and the TSC
 *                    each passed, for the last MARK_LOG_SIZE ids
 *   mmio_read, mmio_read_gpa, mmio_read_data, rip_mmio_read   (--mmio-read)
 *                    VMM MMIO reads (KVM_EXIT_MMIO), the value answered
 *   lapic, lapic_gpa, lapic_version, rip_lapic   (--lapic) reads of the
 *                    in-kernel local APIC, emulated in KVM (no userspace
 *                    exit), and the value the guest read last
 *   touch, touch_pages, touch_gpa, rip_touch   (--touch) RAM faults: writes
 *                    to touch_pages pages a vCPU, vCPU i's from touch_gpa +
 *                    i * touch_pages * 4 KiB, dropped after each iteration
 *   ipi, ipi_usec, ipi_vector=236, ipi_handled, ipi_extra, ipi_late_max_ns,
 *   ipi_late_sum_ns, tsc_khz, rip_ipi, rip_ipi_eoi   (--ipi) IPIs vCPU 0
 *                    sent (N an iteration), those vCPU 1 handled (always
 *                    as many), the handler's runs with no IPI outstanding
 *                    (a second run for one), and of each IPI's lateness,
 *                    its handler's TSC minus its send TSC in ns at
 *                    tsc_khz, the maximum and the sum; the RIPs of the
 *                    ICR and EOI writes (APIC accesses KVM emulates).
 *                    vCPU 1's thread, which takes them: the second of tids
 *   ipi_via=icr|msi, ipi_msi   (--ipi) who raised them: vCPU 0 (its ICR
 *                    write) or the VMM (--ipi-via msi, KVM_SIGNAL_MSI at
 *                    vCPU 0's OUT to MSI_PORT), and the MSIs it sent (1
 *                    per IPI; 0 with icr)
 *   ipi_msi_port, ipi_msi_addr, ipi_msi_data, rip_ipi_msi   (--ipi-via
 *                    msi) that OUT's port and RIP, the MSI's address and
 *                    data
 *   timer, timer_usec, timer_vector=239, timer_vcpu=0, timer_tmict,
 *   timer_tdcr=0xb, timer_handled, timer_extra, timer_late_max_ns,
 *   timer_late_sum_ns, timer_early, timer_early_max_ns, tsc_khz,
 *   rip_timer, rip_timer_eoi   (--timer) the timers vCPU 0 armed (N an
 *                    iteration), the interrupts it handled (always as
 *                    many), the handler's runs with none outstanding
 *                    (QEMU's, hvguest.c; with any, timer_extra_eip and
 *                    timer_extra_esp: the last one's interrupted EIP and
 *                    its ESP, whose stack says the vCPU); the initial count
 *                    and divide configuration each was started with; of
 *                    each interrupt's lateness, its handler's TSC minus
 *                    its arm TSC in ns at tsc_khz minus USEC, the maximum
 *                    and the sum, those below 0 counted as 0 there and in
 *                    timer_early, the most ns early in timer_early_max_ns
 *                    (timer.c); the RIPs of the initial-count and EOI
 *                    writes.  vCPU 0's thread takes them: the first of tids
 *   last_exit=done last_exit_kvm=IO last_exit_port=0x3f0 last_exit_rip=RIP
 *   last_exits=N     the exit of each vCPU after which the VMM never calls
 *                    KVM_RUN again, one per vCPU and round (hvguest.c)
 *   last_exit_tids   (--hop) the thread that got each vCPU's last exit
 *   last_exit_ns, vcpu_last_exit_ns=A,B..   the time from right after each
 *                    last exit's KVM_RUN returned to destroy_vm(), summed
 *   destroy_ns       the time destroy_vm() took (its closes, KVM's
 *                    destruction of the VM), summed over the rounds: KVM
 *                    frees each vCPU within it
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hvguest.h"

/* What this round did; vcpus[] and halt_timer still hold it. */
void result_of_round(struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->rounds = 1;
	r->iterations = vcpus[0].iters;
	r->run_delay_ok = true;
	if (cfg.cpuid_leaf == MARK_LEAF)
		r->marks = marks_read(r->mark_tsc);
	for (int s = 0; s < NR_STATS; s++)
		r->kvm_have[s] = vcpus[0].stat_off[s] >= 0;
	for (unsigned int i = 0; i < cfg.vcpus; i++) {
		const struct vcpu *v = &vcpus[i];

		for (int s = 0; s < NR_STATS; s++)
			r->kvm[s] += stat_delta(v, s);
		if (v->run_ns > r->run_ns)
			r->run_ns = v->run_ns;
		for (int j = 0; j < (cfg.hop ? 2 : 1); j++) {
			const struct vcpu_thread *t = &v->th[j];

			if (!t->run_delay_ok && r->run_delay_ok)
				fprintf(stderr, "hvguest: no run_delay_ns: cannot read "
					"/proc/self/task/%d/schedstat\n", t->tid);
			r->run_delay_ok &= t->run_delay_ok;
			r->run_delay_ns += t->run_delay[1] - t->run_delay[0];
			r->tids[j][i] = t->tid;
		}
		r->vmm_ns[i] = v->vmm_ns;
		r->vmm_exits[i] = v->vmm_exits;
		r->hops[i] = v->hops;
		r->last_tids[i] = v->last_tid;
	}
	if (cfg.count[K_LAPIC])
		r->lapic_seen = lapic_seen();
	if (cfg.ipi_count) {
		r->ipi = ipi_stats;
		r->ipi_extra = guest_u32(IPI_EXTRA_GPA);
	}
	if (cfg.timer_count)
		r->timer = timer_stats;
	if (cfg.halt_usec) {
		r->halt_armed_ns = halt_timer.armed_ns;
		r->halt_late = halt_timer.late;
		r->halt_eoi = eoi_count();
		r->io_kernel = PIC_INIT_OUTS + r->halt_eoi;
	}
}

/* Adds round r to the totals in sum; tids become r's. */
void result_add(struct result *sum, const struct result *r)
{
	sum->run_delay_ok = (!sum->rounds || sum->run_delay_ok) && r->run_delay_ok;
	sum->rounds += r->rounds;
	sum->iterations += r->iterations;
	for (int s = 0; s < NR_STATS; s++) {
		sum->kvm[s] += r->kvm[s];
		sum->kvm_have[s] = r->kvm_have[s];
	}
	sum->halt_armed_ns += r->halt_armed_ns;
	sum->halt_late += r->halt_late;
	sum->halt_eoi += r->halt_eoi;
	sum->io_kernel += r->io_kernel;
	sum->run_ns += r->run_ns;
	sum->run_delay_ns += r->run_delay_ns;
	sum->spares += r->spares;
	sum->shrinks += r->shrinks;
	sum->destroy_checked += r->destroy_checked;
	sum->marks = r->marks;
	sum->lapic_seen = r->lapic_seen;
	sum->ipi.sent += r->ipi.sent;
	sum->ipi.handled += r->ipi.handled;
	sum->ipi.late_sum_ns += r->ipi.late_sum_ns;
	sum->ipi.msi += r->ipi.msi;
	if (r->ipi.late_max_ns > sum->ipi.late_max_ns)
		sum->ipi.late_max_ns = r->ipi.late_max_ns;
	sum->ipi_extra += r->ipi_extra;
	sum->timer.armed += r->timer.armed;
	sum->timer.handled += r->timer.handled;
	sum->timer.extra += r->timer.extra;
	if (r->timer.extra) {
		sum->timer.extra_eip = r->timer.extra_eip;
		sum->timer.extra_esp = r->timer.extra_esp;
	}
	sum->timer.late_sum_ns += r->timer.late_sum_ns;
	sum->timer.early += r->timer.early;
	if (r->timer.late_max_ns > sum->timer.late_max_ns)
		sum->timer.late_max_ns = r->timer.late_max_ns;
	if (r->timer.early_max_ns > sum->timer.early_max_ns)
		sum->timer.early_max_ns = r->timer.early_max_ns;
	memcpy(sum->mark_tsc, r->mark_tsc, sizeof(sum->mark_tsc));
	for (unsigned int i = 0; i < cfg.vcpus; i++) {
		sum->vmm_ns[i] += r->vmm_ns[i];
		sum->vmm_exits[i] += r->vmm_exits[i];
		sum->hops[i] += r->hops[i];
		sum->last_exit_ns[i] += r->last_exit_ns[i];
	}
	sum->destroy_ns += r->destroy_ns;
	memcpy(sum->tids, r->tids, sizeof(sum->tids));
	memcpy(sum->last_tids, r->last_tids, sizeof(sum->last_tids));
}

/* " KEY=A,B,..." over the vCPUs */
static void print_tids(const char *key, const pid_t *tids)
{
	printf(" %s=", key);
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		printf("%s%d", i ? "," : "", tids[i]);
}

static void print_list(const char *key, const uint64_t *val, uint64_t *sum)
{
	*sum = 0;
	printf(" %s=", key);
	for (unsigned int i = 0; i < cfg.vcpus; i++) {
		printf("%s%" PRIu64, i ? "," : "", val[i]);
		*sum += val[i];
	}
}

/* "TAG[ round=I] pid=P vcpus=N tids=T0,T1,..." (tids in vCPU order) */
static void print_head(const char *tag, int round, const pid_t *tids,
		       const pid_t *hop_tids)
{
	printf("%s", tag);
	if (round >= 0)
		printf(" round=%d", round);
	printf(" pid=%d vcpus=%" PRIu64, getpid(), cfg.vcpus);
	print_tids("tids", tids);
	if (cfg.hop)
		print_tids("hop_tids", hop_tids);
}

/* Once the round's threads exist, before they run. */
void report_start(int round)
{
	pid_t tids[2][MAX_VCPUS];

	for (unsigned int i = 0; i < cfg.vcpus; i++)
		for (int j = 0; j < 2; j++)
			tids[j][i] = vcpus[i].th[j].tid;
	print_head("HVGUEST-START", cfg.rounds ? round : -1, tids[0], tids[1]);
	printf("\n");
	fflush(stdout);
}

/*
 * halt: HLTs (and ARM_PORT exits); halt_eoi: interrupt handler runs, one
 * per halt unless an interrupt came twice (see guest.S's halt_irq_handler);
 * io_kernel: the IN/OUT exits KVM handled itself (PIC setup and EOIs);
 * halt_armed_ns: the sum of the times from each ARM_PORT exit to its
 * interrupt; halt_late: halts woken before their deadline and waited for
 * again (see halt_timer_thread()).
 */
static void report_halt(const struct result *r)
{
	printf(" halt=%" PRIu64 " halt_usec=%" PRIu64 " halt_port=0x%x"
	       " halt_irq=%d halt_armed_ns=%" PRIu64 " halt_late=%" PRIu64
	       " halt_eoi=%" PRIu64 " io_kernel=%" PRIu64 " rip_halt=0x%x"
	       " rip_halt_arm=0x%x rip_halt_eoi=0x%x",
	       cfg.count[K_HALT] * r->iterations, cfg.halt_usec, ARM_PORT,
	       HALT_IRQ, r->halt_armed_ns, r->halt_late, r->halt_eoi,
	       r->io_kernel, guest_rip(rip_halt), kind_rip(K_HALT),
	       guest_rip(rip_halt_eoi));
	for (int s = NR_PLAIN_STATS; s < NR_STATS; s++)
		if (r->kvm_have[s] && s != ST_BLOCKING)
			printf(" kvm_%s=%" PRIu64, stat_name[s], r->kvm[s]);
}

static void report_vmm(const struct result *r)
{
	uint64_t sum;

	print_list("vcpu_vmm_ns", r->vmm_ns, &sum);
	printf(" vmm_ns=%" PRIu64, sum);
	print_list("vcpu_vmm_exits", r->vmm_exits, &sum);
	printf(" vmm_exits=%" PRIu64, sum);
	if (cfg.hop) {
		print_list("vcpu_hops", r->hops, &sum);
		printf(" hops=%" PRIu64, sum);
	}
	if (cfg.vmm_work_usec)
		printf(" vmm_work_usec=%" PRIu64 " vmm_work=%s", cfg.vmm_work_usec,
		       cfg.vmm_work_spin ? "spin" : "sleep");
}

static void report_marks(const struct result *r)
{
	uint64_t first = r->marks > MARK_LOG_SIZE ? r->marks - MARK_LOG_SIZE + 1 : 1;

	printf(" cpuid_leaf=0x%" PRIx64 " marks=%" PRIu64 " rip_mark=0x%x mark_tsc=",
	       cfg.cpuid_leaf, r->marks, guest_rip(rip_mark));
	for (uint64_t id = first; id <= r->marks; id++)
		printf("%s%" PRIu64 ":%" PRIu64, id == first ? "" : ",", id,
		       r->mark_tsc[id % MARK_LOG_SIZE]);
}

/* --mmio-read, --lapic, --touch: tot exits (or faults) of each */
static void report_later(const struct result *r, uint64_t tot)
{
	const uint64_t *c = cfg.count;

	if (c[K_MMIO_READ])
		printf(" mmio_read=%" PRIu64 " mmio_read_gpa=0x%" PRIx64
		       " mmio_read_data=0x%x rip_mmio_read=0x%x",
		       c[K_MMIO_READ] * tot, cfg.mmio_read_gpa, MMIO_READ_DATA,
		       kind_rip(K_MMIO_READ));
	if (c[K_LAPIC])
		printf(" lapic=%" PRIu64 " lapic_gpa=0x%x lapic_version=0x%x"
		       " rip_lapic=0x%x", c[K_LAPIC] * tot, LAPIC_VERSION_GPA,
		       r->lapic_seen, kind_rip(K_LAPIC));
	if (c[K_TOUCH])
		printf(" touch=%" PRIu64 " touch_pages=%" PRIu64 " touch_gpa=0x%x"
		       " rip_touch=0x%x", c[K_TOUCH] * tot, c[K_TOUCH], TOUCH_GPA,
		       kind_rip(K_TOUCH));
}

static void report_ipi(const struct result *r)
{
	printf(" ipi=%" PRIu64 " ipi_usec=%" PRIu64 " ipi_vector=%d"
	       " ipi_handled=%" PRIu64 " ipi_extra=%" PRIu64
	       " ipi_late_max_ns=%" PRIu64 " ipi_late_sum_ns=%" PRIu64
	       " tsc_khz=%" PRIu64 " rip_ipi=0x%x rip_ipi_eoi=0x%x",
	       r->ipi.sent, cfg.ipi_usec, IPI_VECTOR, r->ipi.handled,
	       r->ipi_extra, r->ipi.late_max_ns, r->ipi.late_sum_ns, tsc_khz,
	       guest_rip(rip_ipi), guest_rip(rip_ipi_eoi));
	printf(" ipi_via=%s ipi_msi=%" PRIu64, cfg.ipi_via_msi ? "msi" : "icr",
	       r->ipi.msi);
	if (cfg.ipi_via_msi)
		printf(" ipi_msi_port=0x%x ipi_msi_addr=0x%x ipi_msi_data=0x%x"
		       " rip_ipi_msi=0x%x", MSI_PORT, IPI_MSI_ADDR, IPI_MSI_DATA,
		       kind_rip(K_MSI));
}

static void report_timer(const struct result *r)
{
	printf(" timer=%" PRIu64 " timer_usec=%" PRIu64 " timer_vector=%d"
	       " timer_vcpu=0 timer_tmict=%" PRIu64 " timer_tdcr=0x%x"
	       " timer_handled=%" PRIu64 " timer_extra=%" PRIu64
	       " timer_late_max_ns=%" PRIu64 " timer_late_sum_ns=%" PRIu64
	       " timer_early=%" PRIu64 " timer_early_max_ns=%" PRIu64
	       " tsc_khz=%" PRIu64 " rip_timer=0x%x rip_timer_eoi=0x%x",
	       r->timer.armed, cfg.timer_usec, TIMER_VECTOR,
	       cfg.timer_usec * TIMER_COUNT_PER_USEC, TIMER_TDCR_DIV1,
	       r->timer.handled, r->timer.extra, r->timer.late_max_ns,
	       r->timer.late_sum_ns,
	       r->timer.early, r->timer.early_max_ns, tsc_khz,
	       guest_rip(rip_timer), guest_rip(rip_timer_eoi));
	if (r->timer.extra)
		printf(" timer_extra_eip=0x%x timer_extra_esp=0x%x",
		       r->timer.extra_eip, r->timer.extra_esp);
}

/* One round's line (round >= 0) or the final one (round < 0). */
void report(const struct result *r, int round)
{
	uint64_t n = r->iterations, tot = n * cfg.vcpus, sum;

	print_head("HVGUEST", round, r->tids[0], r->tids[1]);
	printf(" iterations=%" PRIu64 " pio=%" PRIu64 " pio_port=0x%" PRIx64
	       " mmio=%" PRIu64 " mmio_gpa=0x%" PRIx64 " cpuid=%" PRIu64
	       " rdmsr=%" PRIu64 " wrmsr=%" PRIu64 " msr=0x%" PRIx64
	       " hlt=%" PRIu64 " slow=%" PRIu64 " slow_usec=%" PRIu64
	       " slow_port=0x%" PRIx64 " done=%" PRIu64 " done_port=0x%x",
	       n, cfg.count[K_PIO] * tot, cfg.pio_port,
	       cfg.count[K_MMIO] * tot, cfg.mmio_gpa, cfg.count[K_CPUID] * tot,
	       cfg.count[K_RDMSR] * tot, cfg.count[K_WRMSR] * tot, cfg.msr,
	       cfg.count[K_HLT] * tot, cfg.count[K_SLOW] * tot, cfg.slow_usec,
	       cfg.slow_port, tot, DONE_PORT);
	for (int k = 0; k <= NR_KINDS; k++)
		if (k <= K_SLOW || k == K_DONE)
			printf(" rip_%s=0x%x", kind_name[k], kind_rip(k));
	for (int s = 0; s < NR_PLAIN_STATS; s++)
		if (r->kvm_have[s])
			printf(" kvm_%s=%" PRIu64, stat_name[s], r->kvm[s]);
	/* newer fields only with their options, so the old line stays put */
	if (cfg.halt_usec)
		report_halt(r);
	if (cfg.spin_ms)
		printf(" spin_ms=%" PRIu64 " spin_tsc_khz=%" PRIu64
		       " spin=%" PRIu64 " spin_port=0x%x rip_spin=0x%x",
		       cfg.spin_ms, tsc_khz, tot, SPIN_PORT, kind_rip(K_SPIN));
	if (cfg.cpuid_leaf == MARK_LEAF)
		report_marks(r);
	report_later(r, tot);
	if (cfg.ipi_count)
		report_ipi(r);
	if (cfg.timer_count)
		report_timer(r);
	printf(" run_ns=%" PRIu64, r->run_ns);
	if (r->run_delay_ok)
		printf(" run_delay_ns=%" PRIu64, r->run_delay_ns);
	if (cfg.rounds) {
		if (round < 0)
			printf(" rounds=%" PRIu64, r->rounds);
		printf(" spares=%" PRIu64, r->spares);
		if (cfg.shrink)
			printf(" shrinks=%" PRIu64, r->shrinks);
		printf(" destroy_checked=%" PRIu64, r->destroy_checked);
	}
	if (cfg.hop || cfg.vmm_work_usec)
		report_vmm(r);
	printf(" last_exit=done last_exit_kvm=IO last_exit_port=0x%x"
	       " last_exit_rip=0x%x last_exits=%" PRIu64,
	       DONE_PORT, kind_rip(K_DONE), r->rounds * cfg.vcpus);
	print_list("vcpu_last_exit_ns", r->last_exit_ns, &sum);
	printf(" last_exit_ns=%" PRIu64 " destroy_ns=%" PRIu64, sum, r->destroy_ns);
	if (cfg.hop)
		print_tids("last_exit_tids", r->last_tids);
	printf("\n");
	fflush(stdout);
}
