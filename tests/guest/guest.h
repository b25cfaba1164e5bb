/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What guest.S (the guest program) and the VMM agree on: guest memory,
 * the I/O ports, the data each exit carries and the parameter block.
 * Included by guest.S (__ASSEMBLER__) and by the C files.
 *
 * Guest-physical memory, one 2 MiB memslot at GPA 0 (and with --touch a
 * second, below):
 *
 *   0x000000  +------------------------------+
 *             |  (unused)                    |
 *   0x000100  |  mark log: MARK_LOG_SIZE x   |  guest -> VMM: --cpuid
 *             |  { id, TSC lo, TSC hi, 0 }   |  N:MARK_LEAF, entry id % size
 *   0x000600  |  struct guest_params         |  VMM -> guest: counts, ports,
 *             |                              |  MMIO GPA, MSR, TSC ticks
 *   0x000700  |  eoi_count (u32)             |  guest -> VMM: --halt IRQ
 *             |                              |  handler runs
 *   0x000704  |  mark_next (u32)             |  the next mark's id (from 1)
 *   0x000708  |  lapic_seen (u32)            |  guest -> VMM: what --lapic
 *             |                              |  read last
 *   0x000710  |  --ipi: go, ready, sent,     |  the vCPUs' handshake; the
 *             |  handled, extra (u32 each)   |  VMM reads them after each
 *             |                              |  iteration (see below)
 *   0x000724  |  --timer: armed, handled,    |  vCPU 0 and its handler;
 *             |  extra, extra_eip, extra_esp |  the same (see below)
 *             |  (u32 each)                  |
 *   0x000800  |  GDT: null, code 0x08,       |
 *             |       data 0x10 (flat 4 GiB) |
 *   0x000900  |  IDT: vectors 0..31 -> the   |  (not with --ipi, --timer)
 *             |  exception stubs, 0x25 -> the|
 *             |  --halt IRQ handler          |
 *   0x001000  +------------------------------+
 *             |  guest.S, copied here from   |  entry, the iteration,
 *             |  guest_code_start[]          |  exception stubs, IRQ
 *             |                              |  handlers
 *   0x002000  +------------------------------+
 *             |  --ipi's IDT: the same gates |  0xec (--timer: 0xef) would
 *             |  and 0xec -> ipi_handler     |  reach into the code from
 *             |  (--timer: 0xef ->           |  0x900
 *             |  timer_handler)              |
 *   0x002800  +------------------------------+
 *             |  (unused)                    |
 *   0x100000  |  --ipi: send_tsc[IPI_MAX]    |  vCPU 0: TSC before each
 *             |                              |  ICR write (or MSI_PORT
 *             |                              |  OUT), by index; --timer:
 *             |                              |  arm_tsc[], before each
 *             |                              |  initial-count write
 *   0x140000  |  --ipi: handler_tsc[IPI_MAX] |  vCPU 1: TSC in the handler
 *             |                              |  (--timer: vCPU 0's)
 *   0x180000  |  (unused)                    |
 *             |                 stacks ^     |  vCPU i's ESP starts at
 *   0x200000  +------------------------------+  MEM_SIZE - i * 4 KiB
 *
 *   --touch N, memslot 1: N 4 KiB pages per vCPU, vCPU i's from
 *   TOUCH_GPA + i * N * 4 KiB (EBP); the VMM drops them after each
 *   iteration (MADV_DONTNEED), so every touch faults again.
 *
 * The program reads page 0 in every iteration (the parameters), so it
 * touches the same pages in the same order whatever the options.  Only
 * interrupts, exceptions and --ipi's CALL use the stacks.
 *
 * --ipi's words at 0x710, in the order of one iteration (guest.S):
 *   go       vCPU 0: the iterations whose IPI phase it started
 *   ready    vCPU 1: the same, once it zeroed sent and handled (after it
 *            did, vCPU 0 sends; it waits for ready == go)
 *   sent     vCPU 0: this iteration's IPIs so far, each counted before
 *            its ICR write (--ipi-via msi: its OUT to MSI_PORT)
 *   handled  vCPU 1's handler: this iteration's IPIs handled, each after
 *            its handler_tsc[]; a run with handled == sent (no IPI
 *            outstanding: the handler ran twice for one) counts in
 *   extra    instead, over the whole run of the VM
 * The VMM reads them and both logs after each iteration, while both vCPUs
 * are out of the guest (run.c's end_together()).
 *
 * --timer's words at 0x724 (--ipi and --timer are exclusive, so their logs
 * share the pages), vCPU 0's alone:
 *   armed    this iteration's timers so far, each counted before the
 *            initial-count write that starts it (zeroed with handled at
 *            the start of the phase)
 *   handled  the handler: this iteration's interrupts handled, each after
 *            its handler_tsc[]; a run with handled == armed (none
 *            outstanding) counts in
 *   extra    instead, over the whole run of the VM (hvguest.c: QEMU's)
 *   extra_eip, extra_esp   the last such run's: the EIP it interrupted
 *            (in its frame) and its ESP (whose stack: vCPU i's is below
 *            MEM_SIZE - i * 4 KiB)
 * The VMM reads them and both logs at vCPU 0's DONE exit, which ends the
 * iteration: vCPU 0 is out of the guest, and no other vCPU writes them.
 */
#ifndef _HVT_GUEST_H
#define _HVT_GUEST_H

#define MEM_SIZE	0x200000
#define PARAMS_GPA	0x600
#define EOI_COUNT_GPA	0x700	/* --halt: 32-bit count of handler runs */
#define MARK_NEXT_GPA	0x704	/* --cpuid N:MARK_LEAF: the next mark's id */
#define MARK_LOG_GPA	0x100	/* and the marks, id % MARK_LOG_SIZE */
#define MARK_LOG_SIZE	64	/* 16-byte entries */
#define MARK_LEAF	0x48565400	/* HVTRACE_MARK_LEAF: a guest mark */
#define LAPIC_SEEN_GPA	0x708	/* --lapic: the last version register read */
#define IPI_GO_GPA	0x710	/* --ipi: the handshake, drawn above */
#define IPI_READY_GPA	0x714
#define IPI_SENT_GPA	0x718
#define IPI_HANDLED_GPA	0x71c
#define IPI_EXTRA_GPA	0x720
#define TIMER_ARMED_GPA	0x724	/* --timer: drawn above */
#define TIMER_HANDLED_GPA 0x728
#define TIMER_EXTRA_GPA	0x72c
#define TIMER_EXTRA_EIP_GPA 0x730
#define TIMER_EXTRA_ESP_GPA 0x734
#define GDT_GPA		0x800
#define IDT_GPA		0x900
#define CODE_GPA	0x1000
#define CODE_MAX	0x1000
#define IDT_IPI_GPA	0x2000	/* --ipi's IDT, all 256 vectors' room */
#define IPI_SEND_LOG_GPA 0x100000
#define IPI_HANDLER_LOG_GPA 0x140000
#define IPI_MAX		0x8000	/* IPIs an iteration: 8-byte log entries */
#define TIMER_ARM_LOG_GPA IPI_SEND_LOG_GPA	/* --timer: --ipi's log pages */
#define TIMER_HANDLER_LOG_GPA IPI_HANDLER_LOG_GPA
#define TIMER_MAX	IPI_MAX
#define VCPU_STACK_SIZE	0x1000	/* vCPU i's stack ends at MEM_SIZE - i * this */

/* --touch: memslot 1, far from the main slot; at most TOUCH_MAX pages a vCPU */
#define TOUCH_SLOT	1
#define TOUCH_GPA	0x10000000
#define TOUCH_MAX	512
#define TOUCH_STRIDE	0x1000	/* one write per 4 KiB page */

/* --lapic: the in-kernel local APIC's version register, at its default base */
#define LAPIC_VERSION_GPA 0xfee00030
/* Its reserved bits, 8-15 and 25-31 (24: directed EOI, KVM's split irqchip) */
#define LAPIC_VERSION_RSVD 0xfe00ff00
/* --ipi: more of its registers (xAPIC, through MMIO: no paging, flat DS) */
#define LAPIC_ID_GPA	0xfee00020	/* APIC ID in bits 24-31: the vCPU id */
#define LAPIC_EOI_GPA	0xfee000b0
#define LAPIC_SVR_GPA	0xfee000f0
#define LAPIC_SVR_ENABLE 0x100		/* APIC software enabled */
#define LAPIC_SPURIOUS	0xff		/* the spurious vector, in the SVR */
#define LAPIC_ICR_LO_GPA 0xfee00300	/* writing it sends the IPI */
#define LAPIC_ICR_HI_GPA 0xfee00310	/* destination APIC ID in bits 24-31 */
/* --timer: the timer's */
#define LAPIC_LVTT_GPA	0xfee00320	/* LVT timer: vector, mask, mode */
#define LAPIC_TMICT_GPA	0xfee00380	/* initial count: writing it starts it */
#define LAPIC_TDCR_GPA	0xfee003e0	/* divide configuration */

#define DONE_PORT	0x3f0	/* the end of a program iteration */
#define FAULT_PORT	0x3f1	/* exception stubs report here */
#define ARM_PORT	0x3f2	/* --halt: "start my timer" */
#define SPIN_PORT	0x3f3	/* --spin: "my spin starts" */
#define BAD_READ_PORT	0x3f4	/* --mmio-read, --lapic: a wrong value read */
#define MSI_PORT	0x3f5	/* --ipi-via msi: "send vCPU 1 the MSI now" */

/* Data the guest writes, so the VMM can check the payload of each exit too. */
#define PIO_DATA	0x50		/* 'P' */
#define SLOW_DATA	0x53		/* 'S' */
#define DONE_DATA	0x44		/* 'D' */
#define ARM_DATA	0x41		/* 'A' */
#define SPIN_DATA	0x47		/* 'G' */
#define MSI_DATA	0x4d		/* 'M' */
#define MMIO_DATA	0x4f494d4d	/* "MMIO" */
#define MMIO_READ_DATA	0x4f494452	/* "RDIO": what the VMM answers */
#define TOUCH_DATA	0x54		/* 'T' */
#define WRMSR_LO	0x4d535257	/* "WRSM" */
#define WRMSR_HI	0x48564700

#define NR_EXCEPTIONS	32
/* Vectors for which the CPU pushes an error code: 8, 10-14, 17, 21, 29, 30. */
#define ERROR_CODE_VECTORS 0x60227d00
#define EXC_STUB_SIZE	16	/* stub v is at exception_stubs + v * 16 */

/*
 * --halt: IRQ 5 of the master 8259, remapped to vector 0x25.  No KVM device
 * raises it (KVM_CREATE_IRQCHIP makes no PIT), and the I/O APIC pin of the
 * same GSI stays masked as reset left it.
 */
#define HALT_IRQ	5
#define PIC_VECTOR_BASE	0x20
#define HALT_VECTOR	(PIC_VECTOR_BASE + HALT_IRQ)
#define PIC_INIT_OUTS	5	/* ICW1-4 and OCW1 */

/*
 * --ipi: vCPU 0 sends this fixed interrupt to vCPU 1 (APIC ID 1): ICR
 * low = vector, fixed delivery, physical destination, assert, edge.
 */
#define IPI_VECTOR	0xec
#define IPI_DEST	1
#define IPI_ICR		(0x4000 | IPI_VECTOR)
#define IPI_TIMEOUT_SEC	5	/* vCPU 0 gives up on an IPI after this */

/*
 * --ipi-via msi: at each OUT to MSI_PORT the VMM sends the same interrupt
 * as an MSI (KVM_SIGNAL_MSI): address = the local APICs' base with the
 * destination APIC ID in bits 12-19, physical (bit 2 clear), no
 * redirection hint; data = vector, fixed delivery (bits 8-10 clear),
 * edge (bit 15 clear).
 */
#define IPI_MSI_ADDR	(0xfee00000 | IPI_DEST << 12)
#define IPI_MSI_DATA	IPI_VECTOR

/*
 * --timer: vCPU 0's local APIC timer, one-shot (LVTT bits 17-18 clear),
 * unmasked (bit 16 clear), fixed vector TIMER_VECTOR; divide by 1 (TDCR
 * 0xb: bits 0, 1 and 3 set).  KVM's APIC bus runs at 1 GHz
 * (APIC_BUS_CYCLE_NS 1 in 6.1's arch/x86/kvm/lapic.h; 6.12's default
 * apic_bus_cycle_ns, APIC_BUS_CYCLE_NS_DEFAULT 1, which only
 * KVM_CAP_X86_APIC_BUS_CYCLES_NS changes): tmict_to_ns() is the initial
 * count times 1 ns times the divisor, so USEC is an initial count of
 * USEC * 1000.
 */
#define TIMER_VECTOR	0xef
#define TIMER_LVTT	TIMER_VECTOR
#define TIMER_TDCR_DIV1	0xb
#define TIMER_COUNT_PER_USEC 1000
#define TIMER_USEC_MAX	1000000	/* 1 s: the count fits in 32 bits */
#define TIMER_TIMEOUT_SEC 5	/* vCPU 0 gives up USEC + this after arming */

/* struct guest_params: offsets, for guest.S */
#define GP_PIO_COUNT	0x00	/* one count per loop, in enum kind order */
#define GP_MMIO_COUNT	0x04
#define GP_CPUID_COUNT	0x08
#define GP_RDMSR_COUNT	0x0c
#define GP_WRMSR_COUNT	0x10
#define GP_HLT_COUNT	0x14
#define GP_SLOW_COUNT	0x18
#define GP_PIO_PORT	0x1c
#define GP_SLOW_PORT	0x20
#define GP_MMIO_GPA	0x24
#define GP_MSR		0x28
#define GP_CPUID_LEAF	0x2c
#define GP_SPIN_TICKS	0x30	/* 64 bits */
#define GP_MMIO_READ_COUNT 0x38	/* the later kinds' counts, in enum kind order */
#define GP_LAPIC_COUNT	0x3c
#define GP_TOUCH_COUNT	0x40
#define GP_MMIO_READ_GPA 0x44
#define GP_IPI_COUNT	0x48	/* --ipi N, 0: none */
#define GP_IPI_GAP_TICKS 0x50	/* 64 bits: USEC in TSC ticks */
#define GP_IPI_TIMEOUT_TICKS 0x58	/* 64 bits: IPI_TIMEOUT_SEC in ticks */
#define GP_IPI_VIA_MSI	0x60	/* --ipi-via msi: non-zero */
#define GP_TIMER_COUNT	0x64	/* --timer N, 0: none */
#define GP_TIMER_TMICT	0x68	/* USEC * TIMER_COUNT_PER_USEC */
#define GP_TIMER_TIMEOUT_TICKS 0x70	/* 64 bits: USEC + TIMER_TIMEOUT_SEC */
#define GP_PHASES	0x78	/* non-zero: --ipi or --timer, a phase first */

#ifndef __ASSEMBLER__
#include <stdint.h>

/*
 * Written by the VMM before the first KVM_RUN (the TSC ticks once vCPU 0
 * exists), never by the guest.  The --halt count is per vCPU: it comes in
 * EDI (KVM_SET_REGS) instead, as the GPA of the vCPU's --touch pages does
 * in EBP.
 */
struct guest_params {
	uint32_t count[7];	/* K_PIO .. K_SLOW */
	uint32_t pio_port, slow_port, mmio_gpa, msr;
	uint32_t cpuid_leaf;
	uint64_t spin_ticks;	/* --spin: TSC ticks per spin, 0: none */
	uint32_t later_count[3];	/* K_MMIO_READ .. K_TOUCH */
	uint32_t mmio_read_gpa;
	uint32_t ipi_count;	/* --ipi */
	uint64_t ipi_gap_ticks, ipi_timeout_ticks;
	uint32_t ipi_via_msi;	/* --ipi-via msi: OUT to MSI_PORT, no ICR */
	uint32_t timer_count;	/* --timer */
	uint32_t timer_tmict;
	uint64_t timer_timeout_ticks;
	uint32_t phases;	/* --ipi or --timer: guest_entry calls .Lphases */
};

/* guest.S's labels: only their place in guest_code_start[] means anything */
extern const char guest_code_start[], guest_code_end[], guest_entry[];
extern const char exception_stubs[], halt_irq_handler[], ipi_handler[];
extern const char timer_handler[];
extern const char rip_pio[], rip_mmio[], rip_cpuid[], rip_rdmsr[];
extern const char rip_wrmsr[], rip_hlt[], rip_slow[], rip_done[];
extern const char rip_halt_arm[], rip_halt[], rip_halt_eoi[], rip_spin[];
extern const char rip_mark[], rip_mmio_read[], rip_lapic[], rip_touch[];
extern const char rip_ipi[], rip_ipi_eoi[], rip_ipi_msi[];
extern const char rip_timer[], rip_timer_eoi[];
#endif

#endif /* _HVT_GUEST_H */
