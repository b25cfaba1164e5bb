// SPDX-License-Identifier: GPL-2.0
/*
 * hvguest's ground truth: every exit that reaches the VMM against the
 * exact sequence guest.S produces (classify_exit()), and afterwards KVM's
 * own per-vCPU statistics against what the program did (check_vcpu(); see
 * hvguest.c's header for how exactly each can be checked).  Any deviation
 * is fatal: vcpu_fail() dumps the exit, the registers and the program's
 * RIPs, and exits 1.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "hvguest.h"

/* The order of the userspace exits in one iteration (guest.S). */
static const int program_order[NR_KINDS] = {
	K_MSI, K_HALT, K_SPIN, K_PIO, K_MMIO, K_CPUID, K_RDMSR, K_WRMSR, K_HLT,
	K_SLOW, K_MMIO_READ, K_LAPIC, K_TOUCH,
};

/* The kinds handled entirely inside KVM: CPUID, LAPIC reads, RAM faults. */
static bool kind_reaches_vmm(int k)
{
	return k != K_CPUID && k != K_LAPIC && k != K_TOUCH;
}

static const char *exit_reason_name(uint32_t r)
{
	switch (r) {
	case KVM_EXIT_UNKNOWN:		return "UNKNOWN";
	case KVM_EXIT_EXCEPTION:	return "EXCEPTION";
	case KVM_EXIT_IO:		return "IO";
	case KVM_EXIT_HLT:		return "HLT";
	case KVM_EXIT_MMIO:		return "MMIO";
	case KVM_EXIT_SHUTDOWN:		return "SHUTDOWN";
	case KVM_EXIT_FAIL_ENTRY:	return "FAIL_ENTRY";
	case KVM_EXIT_INTR:		return "INTR";
	case KVM_EXIT_INTERNAL_ERROR:	return "INTERNAL_ERROR";
	case KVM_EXIT_X86_RDMSR:	return "X86_RDMSR";
	case KVM_EXIT_X86_WRMSR:	return "X86_WRMSR";
	default:			return "?";
	}
}

static void dump_exit(const struct kvm_run *run)
{
	fprintf(stderr, "  exit_reason %u (%s)", run->exit_reason,
		exit_reason_name(run->exit_reason));
	/* e.g. a fault while delivering an exception (broken stack) */
	if (run->exit_reason == KVM_EXIT_SHUTDOWN)
		fprintf(stderr, " triple fault; on AMD KVM has already reset"
			" the vCPU, so the registers are not the fault's");
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		fprintf(stderr, " dir %s size %u port 0x%x count %u",
			run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in",
			run->io.size, run->io.port, run->io.count);
		break;
	case KVM_EXIT_MMIO:
		fprintf(stderr, " gpa 0x%llx len %u %s",
			(unsigned long long)run->mmio.phys_addr, run->mmio.len,
			run->mmio.is_write ? "write" : "read");
		break;
	case KVM_EXIT_X86_RDMSR:
	case KVM_EXIT_X86_WRMSR:
		fprintf(stderr, " msr 0x%x reason 0x%x data 0x%llx",
			run->msr.index, run->msr.reason,
			(unsigned long long)run->msr.data);
		break;
	case KVM_EXIT_FAIL_ENTRY:
		fprintf(stderr, " hw reason 0x%llx",
			(unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		fprintf(stderr, " suberror %u", run->internal.suberror);
		for (uint32_t i = 0; i < run->internal.ndata && i < 16; i++)
			fprintf(stderr, " 0x%llx",
				(unsigned long long)run->internal.data[i]);
		break;
	}
	fputc('\n', stderr);
}

static void dump_regs(const struct vcpu *v)
{
	struct kvm_regs r;
	struct kvm_sregs s;

	if (ioctl(v->fd, KVM_GET_REGS, &r) == 0)
		fprintf(stderr,
			"  rip 0x%llx rflags 0x%llx rax 0x%llx rbx 0x%llx rcx 0x%llx\n"
			"  rdx 0x%llx rsi 0x%llx rdi 0x%llx rsp 0x%llx rbp 0x%llx\n",
			r.rip, r.rflags, r.rax, r.rbx, r.rcx,
			r.rdx, r.rsi, r.rdi, r.rsp, r.rbp);
	if (ioctl(v->fd, KVM_GET_SREGS, &s) == 0)
		fprintf(stderr,
			"  cr0 0x%llx cr2 0x%llx cr3 0x%llx cr4 0x%llx efer 0x%llx "
			"cs 0x%x/base 0x%llx/db %u\n",
			s.cr0, s.cr2, s.cr3, s.cr4, s.efer,
			s.cs.selector, s.cs.base, s.cs.db);
	fprintf(stderr, "  iteration %" PRIu64 ", program: pio@0x%x mmio@0x%x "
		"cpuid@0x%x rdmsr@0x%x wrmsr@0x%x hlt@0x%x slow@0x%x done@0x%x "
		"entry@0x%x halt: arm@0x%x hlt@0x%x eoi@0x%x\n",
		v->iters, kind_rip(K_PIO), kind_rip(K_MMIO), kind_rip(K_CPUID),
		kind_rip(K_RDMSR), kind_rip(K_WRMSR), kind_rip(K_HLT),
		kind_rip(K_SLOW), kind_rip(K_DONE), guest_rip(guest_entry),
		kind_rip(K_HALT), guest_rip(rip_halt), guest_rip(rip_halt_eoi));
	if (cfg.count[K_MMIO_READ] || cfg.count[K_LAPIC] || cfg.count[K_TOUCH])
		fprintf(stderr, "  later: mmio_read@0x%x lapic@0x%x touch@0x%x\n",
			kind_rip(K_MMIO_READ), kind_rip(K_LAPIC), kind_rip(K_TOUCH));
	if (cfg.ipi_count)
		fprintf(stderr, "  ipi (via %s): icr@0x%x msi@0x%x handler@0x%x "
			"eoi@0x%x, sent %u handled %u extra %u\n",
			cfg.ipi_via_msi ? "msi" : "icr", guest_rip(rip_ipi),
			kind_rip(K_MSI), guest_rip(ipi_handler), guest_rip(rip_ipi_eoi),
			guest_u32(IPI_SENT_GPA), guest_u32(IPI_HANDLED_GPA),
			guest_u32(IPI_EXTRA_GPA));
	if (cfg.timer_count)
		fprintf(stderr, "  timer: tmict@0x%x handler@0x%x eoi@0x%x, "
			"armed %u handled %u extra %u\n", guest_rip(rip_timer),
			guest_rip(timer_handler), guest_rip(rip_timer_eoi),
			guest_u32(TIMER_ARMED_GPA), guest_u32(TIMER_HANDLED_GPA),
			guest_u32(TIMER_EXTRA_GPA));
}

void __noreturn vcpu_fail(const struct vcpu *v, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&diag_lock);
	fprintf(stderr, "hvguest: vcpu %d: ", v->id);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	dump_exit(v->run);
	dump_regs(v);
	exit(EXIT_MISMATCH);
}

/* Starts the expected exit sequence of a new program iteration. */
void reset_sequence(struct vcpu *v)
{
	v->pos = -1;
	v->left = 0;
}

/*
 * Exits of kind k per iteration on this vCPU: only vCPU 0 halts, and
 * only vCPU 0 has the VMM send MSIs (--ipi-via msi).
 */
uint64_t vcpu_count(const struct vcpu *v, int k)
{
	if (k == K_HALT)
		return v->halts;
	if (k == K_MSI)
		return v->id == 0 ? cfg.count[K_MSI] : 0;
	return cfg.count[k];
}

/* The kind of the next userspace exit the program must produce. */
static int expected_kind(struct vcpu *v)
{
	while (v->left == 0) {
		if (++v->pos >= NR_KINDS)
			return K_DONE;
		if (kind_reaches_vmm(program_order[v->pos]))
			v->left = vcpu_count(v, program_order[v->pos]);
	}
	return program_order[v->pos];
}

static bool pio_ok(const struct kvm_run *run, uint16_t port, uint8_t data)
{
	const uint8_t *p = (const uint8_t *)run + run->io.data_offset;

	return run->io.direction == KVM_EXIT_IO_OUT && run->io.size == 1 &&
	       run->io.count == 1 && run->io.port == port && *p == data;
}

/* Reads the frame that an exception stub left on the guest stack. */
static void __noreturn guest_exception(const struct vcpu *v)
{
	struct kvm_regs r;
	uint32_t f[5] = { 0 };	/* vector, error code, EIP, CS, EFLAGS */

	if (ioctl(v->fd, KVM_GET_REGS, &r) == 0 && r.rsp >= CODE_GPA &&
	    r.rsp <= MEM_SIZE - sizeof(f))
		memcpy(f, guest_mem + r.rsp, sizeof(f));
	vcpu_fail(v, "guest exception %u at eip 0x%x (error code 0x%x, cs 0x%x, "
		  "eflags 0x%x)", f[0], f[2], f[1], f[3], f[4]);
}

/*
 * guest.S's .Lbad_read: the value a read got in the OUT, its GPA in EBX;
 * --ipi, --timer: the handled count, ESI the interrupt that was not.
 */
static void __noreturn guest_bad_read(const struct vcpu *v)
{
	const struct kvm_run *run = v->run;
	struct kvm_regs r = { 0 };
	uint32_t val = 0;

	if (run->io.size == 4)
		memcpy(&val, (const uint8_t *)run + run->io.data_offset, 4);
	ioctl(v->fd, KVM_GET_REGS, &r);
	if (r.rbx == IPI_HANDLED_GPA)
		vcpu_fail(v, "--ipi: iteration %" PRIu64 ": vCPU 1 did not "
			  "handle IPI %llu (from 0) of %" PRIu64 " within %d s "
			  "(handled %u)", v->iters, r.rsi, cfg.ipi_count,
			  IPI_TIMEOUT_SEC, val);
	if (r.rbx == TIMER_HANDLED_GPA)
		vcpu_fail(v, "--timer: iteration %" PRIu64 ": vCPU 0 did not "
			  "handle timer interrupt %llu of %" PRIu64 " within %"
			  PRIu64 " us + %d s (handled %u)", v->iters, r.rsi,
			  cfg.timer_count, cfg.timer_usec, TIMER_TIMEOUT_SEC, val);
	if (r.rbx == LAPIC_VERSION_GPA)
		vcpu_fail(v, "--lapic: guest read 0x%x from GPA 0x%llx, not a local "
			  "APIC version register", val, r.rbx);
	vcpu_fail(v, "--mmio-read: guest read 0x%x from GPA 0x%llx, the VMM "
		  "answered 0x%x", val, r.rbx, MMIO_READ_DATA);
}

/* Checks one userspace exit against the program; returns its kind. */
int classify_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	int want = expected_kind(v);
	bool ok = false;

	if (run->exit_reason == KVM_EXIT_IO && run->io.port == FAULT_PORT)
		guest_exception(v);
	if (run->exit_reason == KVM_EXIT_IO && run->io.port == BAD_READ_PORT)
		guest_bad_read(v);

	switch (want) {
	case K_PIO:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, cfg.pio_port, PIO_DATA);
		break;
	case K_SLOW:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, cfg.slow_port, SLOW_DATA);
		break;
	case K_HALT:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, ARM_PORT, ARM_DATA);
		break;
	case K_SPIN:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, SPIN_PORT, SPIN_DATA);
		break;
	case K_MSI:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, MSI_PORT, MSI_DATA);
		break;
	case K_DONE:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, DONE_PORT, DONE_DATA);
		break;
	case K_MMIO:
		ok = run->exit_reason == KVM_EXIT_MMIO && run->mmio.is_write &&
		     run->mmio.phys_addr == cfg.mmio_gpa && run->mmio.len == 4 &&
		     !memcmp(run->mmio.data, &(uint32_t){ MMIO_DATA }, 4);
		break;
	case K_MMIO_READ:
		ok = run->exit_reason == KVM_EXIT_MMIO && !run->mmio.is_write &&
		     run->mmio.phys_addr == cfg.mmio_read_gpa && run->mmio.len == 4;
		break;
	case K_RDMSR:
	case K_WRMSR:
		ok = run->exit_reason == (want == K_RDMSR ? KVM_EXIT_X86_RDMSR :
					  KVM_EXIT_X86_WRMSR) &&
		     run->msr.reason == KVM_MSR_EXIT_REASON_FILTER &&
		     run->msr.index == cfg.msr &&
		     (want == K_RDMSR ||
		      run->msr.data == ((uint64_t)WRMSR_HI << 32 | WRMSR_LO));
		break;
	case K_HLT:
		ok = run->exit_reason == KVM_EXIT_HLT;
		break;
	}
	if (!ok)
		vcpu_fail(v, "unexpected exit, expected %s exit #%" PRIu64,
			  kind_name[want], v->seen[want] + 1);
	v->left--;
	v->seen[want]++;
	return want;
}

/* One KVM statistic against its expected delta (or lower bound). */
static int check_stat(const struct vcpu *v, int s, uint64_t want, bool exact)
{
	uint64_t got = stat_delta(v, s);

	if (exact ? got == want : got >= want)
		return 0;
	fprintf(stderr, "hvguest: vcpu %d: kvm %s delta %" PRIu64 ", expected %s%" PRIu64 "\n",
		v->id, stat_name[s], got, exact ? "" : ">= ", want);
	return 1;
}

/* Compares KVM's view and ours for one vCPU; returns the number of errors. */
int check_vcpu(const struct vcpu *v)
{
	const uint64_t *c = cfg.count;
	uint64_t n = v->iters, want, all = 1;	/* 1: the done OUT */
	/* halts: each adds an OUT (counted in all), a HLT and an EOI OUT */
	uint64_t h = v->halts * n, init = v->halts ? PIC_INIT_OUTS : 0;
	uint64_t eoi = v->halts ? eoi_count() : 0;
	int errors = 0;

	for (int k = 0; k < NR_KINDS; k++) {
		all += vcpu_count(v, k);
		want = kind_reaches_vmm(k) ? vcpu_count(v, k) * n : 0;
		if (v->seen[k] != want) {
			fprintf(stderr, "hvguest: vcpu %d: saw %" PRIu64 " %s exits, "
				"expected %" PRIu64 "\n", v->id, v->seen[k],
				kind_name[k], want);
			errors++;
		}
	}
	if (eoi < h) {
		fprintf(stderr, "hvguest: vcpu %d: interrupt handler ran %" PRIu64
			" times for %" PRIu64 " halts\n", v->id, eoi, h);
		errors++;
	}
	errors += check_stat(v, ST_IO, (c[K_PIO] + c[K_SLOW] + c[K_SPIN] +
				       vcpu_count(v, K_MSI) + 1) * n + h + eoi + init,
			     true);
	errors += check_stat(v, ST_MMIO, (c[K_MMIO] + c[K_MMIO_READ]) * n, true);
	errors += check_stat(v, ST_HALT, c[K_HLT] * n + h, true);
	errors += check_stat(v, ST_EXITS, all * n + h + eoi + init, false);
	if (errors) {
		fprintf(stderr, "hvguest: vcpu %d: iterations %" PRIu64 ", kvm deltas:",
			v->id, n);
		for (int s = 0; s < NR_STATS; s++)
			if (v->stat_off[s] >= 0 && s != ST_BLOCKING)
				fprintf(stderr, " %s=%" PRIu64, stat_name[s],
					stat_delta(v, s));
		fputc('\n', stderr);
	}
	return errors;
}
