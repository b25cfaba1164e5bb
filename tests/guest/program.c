// SPDX-License-Identifier: GPL-2.0
/*
 * guest.S's program in guest memory (guest.h draws it): the code copied to
 * CODE_GPA, the GDT and IDT around it, the parameter block the options
 * fill, the guest-physical RIPs of its labels, and what the guest leaves
 * in memory for the VMM.
 */
#include <stddef.h>
#include <string.h>

#include "hvguest.h"

const char *const kind_name[NR_KINDS + 1] = {
	"pio", "mmio", "cpuid", "rdmsr", "wrmsr", "hlt", "slow", "halt", "spin",
	"mmio_read", "lapic", "touch", "msi", "done",
};

/*
 * The exiting instruction of each kind; halt's is the ARM_PORT OUT, spin's
 * the SPIN_PORT OUT, lapic's and touch's the access whose exit KVM handles,
 * msi's the MSI_PORT OUT.
 */
static const char *const kind_label[NR_KINDS + 1] = {
	[K_PIO] = rip_pio, [K_MMIO] = rip_mmio, [K_CPUID] = rip_cpuid,
	[K_RDMSR] = rip_rdmsr, [K_WRMSR] = rip_wrmsr, [K_HLT] = rip_hlt,
	[K_SLOW] = rip_slow, [K_HALT] = rip_halt_arm, [K_SPIN] = rip_spin,
	[K_MMIO_READ] = rip_mmio_read, [K_LAPIC] = rip_lapic,
	[K_TOUCH] = rip_touch, [K_MSI] = rip_ipi_msi, [K_DONE] = rip_done,
};

/* guest.S reads the counts at GP_PIO_COUNT + 4 * kind. */
_Static_assert(offsetof(struct guest_params, count[K_PIO]) == GP_PIO_COUNT, "");
_Static_assert(offsetof(struct guest_params, count[K_MMIO]) == GP_MMIO_COUNT, "");
_Static_assert(offsetof(struct guest_params, count[K_CPUID]) == GP_CPUID_COUNT, "");
_Static_assert(offsetof(struct guest_params, count[K_RDMSR]) == GP_RDMSR_COUNT, "");
_Static_assert(offsetof(struct guest_params, count[K_WRMSR]) == GP_WRMSR_COUNT, "");
_Static_assert(offsetof(struct guest_params, count[K_HLT]) == GP_HLT_COUNT, "");
_Static_assert(offsetof(struct guest_params, count[K_SLOW]) == GP_SLOW_COUNT, "");
_Static_assert(offsetof(struct guest_params, cpuid_leaf) == GP_CPUID_LEAF, "");
_Static_assert(offsetof(struct guest_params, pio_port) == GP_PIO_PORT, "");
_Static_assert(offsetof(struct guest_params, slow_port) == GP_SLOW_PORT, "");
_Static_assert(offsetof(struct guest_params, mmio_gpa) == GP_MMIO_GPA, "");
_Static_assert(offsetof(struct guest_params, msr) == GP_MSR, "");
_Static_assert(offsetof(struct guest_params, spin_ticks) == GP_SPIN_TICKS, "");
_Static_assert(K_SLOW == 6 && K_HALT == 7, "the counts guest.S reads");
/* ... and the later kinds' at GP_MMIO_READ_COUNT + 4 * (kind - K_MMIO_READ) */
_Static_assert(offsetof(struct guest_params, later_count[K_MMIO_READ - K_MMIO_READ]) ==
	       GP_MMIO_READ_COUNT, "");
_Static_assert(offsetof(struct guest_params, later_count[K_LAPIC - K_MMIO_READ]) ==
	       GP_LAPIC_COUNT, "");
_Static_assert(offsetof(struct guest_params, later_count[K_TOUCH - K_MMIO_READ]) ==
	       GP_TOUCH_COUNT, "");
_Static_assert(K_TOUCH + 1 == K_MSI && K_MSI + 1 == NR_KINDS,
	       "later_count[] holds every later kind but msi (--ipi's count)");
_Static_assert(offsetof(struct guest_params, mmio_read_gpa) == GP_MMIO_READ_GPA, "");
_Static_assert(offsetof(struct guest_params, ipi_count) == GP_IPI_COUNT, "");
_Static_assert(offsetof(struct guest_params, ipi_gap_ticks) ==
	       GP_IPI_GAP_TICKS, "");
_Static_assert(offsetof(struct guest_params, ipi_timeout_ticks) ==
	       GP_IPI_TIMEOUT_TICKS, "");
_Static_assert(offsetof(struct guest_params, ipi_via_msi) == GP_IPI_VIA_MSI, "");
_Static_assert(offsetof(struct guest_params, timer_count) ==
	       GP_TIMER_COUNT, "");
_Static_assert(offsetof(struct guest_params, timer_tmict) ==
	       GP_TIMER_TMICT, "");
_Static_assert(offsetof(struct guest_params, timer_timeout_ticks) ==
	       GP_TIMER_TIMEOUT_TICKS, "");
_Static_assert(offsetof(struct guest_params, phases) == GP_PHASES, "");
_Static_assert((uint64_t)TIMER_USEC_MAX * TIMER_COUNT_PER_USEC <= UINT32_MAX,
	       "--timer's initial count fits the 32-bit TMICT");
_Static_assert(TIMER_VECTOR != IPI_VECTOR && TIMER_VECTOR > HALT_VECTOR &&
	       TIMER_VECTOR != LAPIC_SPURIOUS, "--timer's vector is its own");
_Static_assert(PARAMS_GPA + sizeof(struct guest_params) <= EOI_COUNT_GPA,
	       "the parameters end before the --halt handler's count");
_Static_assert(IDT_GPA + (HALT_VECTOR + 1) * 8 <= CODE_GPA &&
	       CODE_GPA + CODE_MAX <= IDT_IPI_GPA &&
	       IDT_IPI_GPA + 256 * 8 <= IPI_SEND_LOG_GPA &&
	       IPI_SEND_LOG_GPA + IPI_MAX * 8 <= IPI_HANDLER_LOG_GPA &&
	       IPI_HANDLER_LOG_GPA + IPI_MAX * 8 <=
	       MEM_SIZE - MAX_VCPUS * VCPU_STACK_SIZE,
	       "guest.h's drawing: IDTs, code, --ipi's logs and stacks apart");

/* Where a label of guest.S is once the program is at CODE_GPA. */
uint32_t guest_rip(const char *label)
{
	/* Addresses, not pointers: the labels are not one C object. */
	return CODE_GPA + (uint32_t)((uintptr_t)label - (uintptr_t)guest_code_start);
}

uint32_t kind_rip(int k)
{
	return guest_rip(kind_label[k]);
}

static struct guest_params *params(void)
{
	return (struct guest_params *)(guest_mem + PARAMS_GPA);
}

/* Flat 4 GiB ring-0 code (0x08) and data (0x10) descriptors. */
static void write_gdt(uint8_t *mem)
{
	static const uint64_t gdt[3] = {
		0, 0x00cf9b000000ffffull, 0x00cf93000000ffffull,
	};

	memcpy(mem + GDT_GPA, gdt, sizeof(gdt));
}

/*
 * The IDT: at IDT_GPA, up to the vector the options need; --ipi's and
 * --timer's vectors would reach into the code from there, so with them
 * the IDT is at IDT_IPI_GPA (only interrupts read it: the old options'
 * pages stay put).
 */
uint32_t idt_gpa(void)
{
	return cfg.ipi_count || cfg.timer_count ? IDT_IPI_GPA : IDT_GPA;
}

uint16_t idt_limit(void)
{
	int vectors = cfg.timer_count ? TIMER_VECTOR + 1 :
		      cfg.ipi_count ? IPI_VECTOR + 1 :
		      cfg.halt_usec ? HALT_VECTOR + 1 : NR_EXCEPTIONS;

	return vectors * 8 - 1;
}

/* Points IDT entry 'vec' at 'handler' with a 32-bit interrupt gate. */
static void set_gate(uint8_t *mem, int vec, uint32_t handler)
{
	uint64_t gate = (handler & 0xffff) | 0x08u << 16 | 0x8e00ull << 32 |
			(uint64_t)(handler >> 16) << 48;

	memcpy(mem + idt_gpa() + 8 * vec, &gate, 8);
}

/* Fills the new VM's memory (zeroed) before its first KVM_RUN. */
void load_program(void)
{
	size_t len = guest_code_end - guest_code_start;
	struct guest_params *p = params();

	if (len > CODE_MAX)
		die(EXIT_MISMATCH, "guest program too large");
	memcpy(guest_mem + CODE_GPA, guest_code_start, len);
	write_gdt(guest_mem);
	for (int v = 0; v < NR_EXCEPTIONS; v++)
		set_gate(guest_mem, v, guest_rip(exception_stubs) + v * EXC_STUB_SIZE);
	set_gate(guest_mem, HALT_VECTOR, guest_rip(halt_irq_handler));
	if (cfg.ipi_count)
		set_gate(guest_mem, IPI_VECTOR, guest_rip(ipi_handler));
	if (cfg.timer_count)
		set_gate(guest_mem, TIMER_VECTOR, guest_rip(timer_handler));
	for (int k = K_PIO; k <= K_SLOW; k++)
		p->count[k] = cfg.count[k];
	for (int k = K_MMIO_READ; k <= K_TOUCH; k++)
		p->later_count[k - K_MMIO_READ] = cfg.count[k];
	p->mmio_read_gpa = cfg.mmio_read_gpa;
	p->pio_port = cfg.pio_port;
	p->slow_port = cfg.slow_port;
	p->mmio_gpa = cfg.mmio_gpa;
	p->msr = cfg.msr;
	p->cpuid_leaf = cfg.cpuid_leaf;
	p->ipi_count = cfg.ipi_count;
	p->ipi_via_msi = cfg.ipi_via_msi;
	p->timer_count = cfg.timer_count;
	p->timer_tmict = cfg.timer_usec * TIMER_COUNT_PER_USEC;
	p->phases = cfg.ipi_count || cfg.timer_count;
	*(uint32_t *)(guest_mem + MARK_NEXT_GPA) = 1;
}

/* Guest marks made so far, and the TSC each passed (the last ones). */
uint64_t marks_read(uint64_t tsc[MARK_LOG_SIZE])
{
	uint32_t next, e[4];

	memcpy(&next, guest_mem + MARK_NEXT_GPA, 4);
	for (int i = 0; i < MARK_LOG_SIZE; i++) {
		memcpy(e, guest_mem + MARK_LOG_GPA + 16 * i, sizeof(e));
		tsc[i] = (uint64_t)e[2] << 32 | e[1];
	}
	return next - 1;
}

/* The guest's TSC frequency: --spin's, --ipi's and --timer's times in ticks */
void set_tsc_khz(uint64_t khz)
{
	struct guest_params *p = params();

	p->spin_ticks = cfg.spin_ms * khz;
	p->ipi_gap_ticks = cfg.ipi_usec * khz / 1000;
	p->ipi_timeout_ticks = IPI_TIMEOUT_SEC * khz * 1000;
	p->timer_timeout_ticks = (cfg.timer_usec + TIMER_TIMEOUT_SEC * 1000000ull) *
				 khz / 1000;
}

/* What the guest wrote at gpa (in the main memslot). */
uint32_t guest_u32(uint32_t gpa)
{
	uint32_t v;

	memcpy(&v, guest_mem + gpa, 4);
	return v;
}

uint64_t guest_u64(uint32_t gpa)
{
	uint64_t v;

	memcpy(&v, guest_mem + gpa, 8);
	return v;
}

/* Runs of the --halt interrupt handler, as counted by the guest. */
uint64_t eoi_count(void)
{
	uint32_t n;

	memcpy(&n, guest_mem + EOI_COUNT_GPA, 4);
	return n;
}

/* --lapic: the version register as the guest read it last. */
uint32_t lapic_seen(void)
{
	uint32_t v;

	memcpy(&v, guest_mem + LAPIC_SEEN_GPA, 4);
	return v;
}
