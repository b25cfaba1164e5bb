/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvguest's guest program: 32-bit flat protected mode, no paging, IF=0,
 * loaded at CODE_GPA by program.c (guest.h draws guest memory).
 *
 *   .Lpic_setup:  vCPU 0 under --halt: set up the master 8259
 *   iteration:    --halt loop (vCPU 0), --spin: OUT to SPIN_PORT, busy loop
 *                 one counted loop per exit kind, in enum kind order:
 *                 pio, mmio, cpuid, rdmsr, wrmsr, hlt, slow, then at
 *                 .Llater (after the older code, so that none of its
 *                 RIPs moved): mmio_read, lapic, touch
 *   rip_done:     OUT to DONE_PORT, then to the next iteration
 *   guest_entry:  (at the end, as all that came later) where the VMM
 *                 starts each vCPU; with --ipi or --timer, it and every
 *                 iteration begin with that phase (.Lphases: .Lipi or
 *                 .Ltimer), before the above
 *
 * Every count, port, GPA and MSR is read from struct guest_params at
 * PARAMS_GPA, which the VMM fills before the first KVM_RUN; a loop whose
 * count is 0 is skipped.  The --halt count (only vCPU 0 halts) comes in
 * EDI, the GPA of the vCPU's own --touch pages in EBP; the guest never
 * writes either.  Each loop counts in ESI, which none of the exiting
 * instructions touches.  The rip_* labels are the RIPs of the exiting
 * instructions, printed under the same names in the HVGUEST line.
 * Exceptions go to stubs that report the vector, error code and faulting
 * EIP through an OUT to FAULT_PORT, so a broken guest is diagnosed
 * precisely instead of ending in an opaque triple fault.  A read that
 * got a wrong value (--mmio-read, --lapic) is reported on BAD_READ_PORT,
 * and so is an IPI that vCPU 1 did not handle in time (--ipi).
 *
 * --ipi N: vCPU 0 sends vCPU 1 N IPIs through the in-kernel local APIC,
 * one at a time; vCPU 1 takes them with interrupts on, busy-looping (no
 * HLT: halted vCPUs woken by local APIC interrupts froze the test VM's
 * nested emulation once).  Both log the TSC:
 *
 *   vCPU 0                               vCPU 1
 *   enable APIC, go++                    enable APIC, sent = handled = 0
 *   wait until ready == go               ready++, STI
 *   i = 0..N-1:                          loop until handled == N
 *     send_tsc[i] = TSC, sent = i + 1      ipi_handler: handler_tsc[i] =
 *     ICR = IPI_VECTOR -> APIC ID 1 ----->   TSC, handled = i + 1, EOI
 *     wait until handled > i (5 s at                 (i = handled)
 *     most, else BAD_READ_PORT)
 *     busy-wait USEC (not after the last)
 *   RET: the rest of the iteration       CLI, RET: the rest of it
 *
 * --ipi-via msi: the VMM, not vCPU 0, raises each one.  In place of the
 * ICR write vCPU 0 makes an OUT to MSI_PORT (rip_ipi_msi), an IOIO exit
 * to userspace: the VMM sends the same vector to APIC ID 1 as an MSI
 * (KVM_SIGNAL_MSI) from vCPU 0's thread, out of KVM_RUN, and resumes
 * vCPU 0, which waits for the handler as above.  The only other change
 * is the test of the parameter before the ICR write (9 bytes: rip_ipi
 * and the --ipi code after it moved by as much, nothing else did).
 *
 * --timer N:USEC: vCPU 0 takes N interrupts of its own local APIC timer,
 * one at a time, busy-looping with interrupts on (no HLT, as above);
 * other vCPUs skip the phase.  The TSC read comes before the write that
 * starts the timer, so the VMM's lateness (handler TSC - arm TSC - USEC)
 * holds all of KVM's time from the write to the handler:
 *
 *   vCPU 0
 *   enable APIC, armed = handled = 0,
 *   divide by 1, LVTT = one-shot TIMER_VECTOR, STI
 *   i = 0..N-1:
 *     arm_tsc[i] = TSC, armed = i + 1
 *     initial count = USEC * 1000 (1 ns each)  -- KVM's hrtimer, USEC
 *     wait until handled > i (USEC + 5 s at      later: apic_timer_fn
 *     most, else BAD_READ_PORT)                      |
 *                           timer_handler: <---------+  (KVM raises it
 *                           handler_tsc[i] = TSC,       when vCPU 0's
 *                           handled = i + 1, EOI        thread runs next)
 *   CLI, RET: the rest of the iteration
 *
 * guest_entry and .Lnext_iteration test GP_PHASES and call .Lphases,
 * which goes on to .Lipi or .Ltimer: the same instructions, as long, as
 * the test of GP_IPI_COUNT and the call of .Lipi they replaced, so no RIP
 * moved; the --timer code is after all the rest.
 *
 * Only local labels are jumped to and called, so the code has no
 * relocations and runs wherever it is copied.
 */
#include "guest.h"

#define PARAM(off)	(PARAMS_GPA + (off))

	.section .rodata.guest_code, "a"
	.code32

	.globl guest_code_start, guest_code_end, guest_entry
	.globl exception_stubs, halt_irq_handler, ipi_handler
	.globl rip_pio, rip_mmio, rip_cpuid, rip_rdmsr, rip_wrmsr, rip_hlt
	.globl rip_slow, rip_done, rip_halt_arm, rip_halt, rip_halt_eoi, rip_mark
	.globl rip_spin, rip_mmio_read, rip_lapic, rip_touch
	.globl rip_ipi, rip_ipi_eoi, rip_ipi_msi
	.globl timer_handler, rip_timer, rip_timer_eoi

/*
 * The head of a counted loop: ESI = the count at offset 'count' in the
 * parameters; a count of 0 skips the loop, on to 'next'.  Each loop ends
 * with "dec %esi; jnz 1b".
 */
.macro	loop_head count, next
	mov	PARAM(\count), %esi
	test	%esi, %esi
	jz	\next
.endm

guest_code_start:

/*
 * vCPU 0 under --halt (EDI != 0) sets up the master 8259 in PIC_INIT_OUTS
 * OUTs: edge triggered, cascaded, vectors from PIC_VECTOR_BASE, 8086 mode,
 * all lines but HALT_IRQ masked.  This was the entry; guest_entry comes
 * here.
 */
.Lpic_setup:
	test	%edi, %edi
	jz	.Literation
	mov	$0x11, %al
	out	%al, $0x20
	mov	$PIC_VECTOR_BASE, %al
	out	%al, $0x21
	mov	$0x04, %al
	out	%al, $0x21
	mov	$0x01, %al
	out	%al, $0x21
	mov	$~(1 << HALT_IRQ) & 0xff, %al
	out	%al, $0x21

/*
 * --halt: EDI times an OUT to ARM_PORT (the VMM arms its timer), then
 * "sti; hlt; cli"; the interrupt that ends the HLT returns to the CLI.
 */
.Literation:
	mov	%edi, %esi
	test	%esi, %esi
	jz	.Lspin
	mov	$ARM_PORT, %edx
	mov	$ARM_DATA, %eax
rip_halt_arm:
1:	out	%al, (%dx)
	sti
rip_halt:
	hlt
	cli
	dec	%esi
	jnz	1b

/*
 * --spin: if spin_ticks is not 0, an OUT to SPIN_PORT (to userspace: the
 * VMM notes that the vCPU runs), then busy-loop on RDTSC (not intercepted)
 * for spin_ticks from there: EBX:ECX = the deadline, wait while
 * EDX:EAX - deadline borrows.
 */
.Lspin:
	mov	PARAM(GP_SPIN_TICKS), %ecx
	mov	PARAM(GP_SPIN_TICKS + 4), %ebx
	mov	%ecx, %eax
	or	%ebx, %eax
	jz	.Lpio
	mov	$SPIN_PORT, %edx
	mov	$SPIN_DATA, %eax
rip_spin:
	out	%al, (%dx)
	rdtsc
	add	%eax, %ecx
	adc	%edx, %ebx
1:	rdtsc
	sub	%ecx, %eax
	sbb	%ebx, %edx
	jb	1b

.Lpio:
	loop_head GP_PIO_COUNT, .Lmmio
	mov	PARAM(GP_PIO_PORT), %edx
	mov	$PIO_DATA, %eax
rip_pio:
1:	out	%al, (%dx)
	dec	%esi
	jnz	1b

/* A 32-bit write to an unbacked, 4-byte aligned GPA: one MMIO exit. */
.Lmmio:
	loop_head GP_MMIO_COUNT, .Lcpuid
	mov	PARAM(GP_MMIO_GPA), %ebx
	mov	$MMIO_DATA, %eax
rip_mmio:
1:	mov	%eax, (%ebx)
	dec	%esi
	jnz	1b

/* CPUID clobbers EAX..EDX, so reload leaf and subleaf (0) each time. */
.Lcpuid:
	loop_head GP_CPUID_COUNT, .Lrdmsr
	cmpl	$MARK_LEAF, PARAM(GP_CPUID_LEAF)
	je	.Lmark
1:	mov	PARAM(GP_CPUID_LEAF), %eax
	xor	%ecx, %ecx
rip_cpuid:
	cpuid
	dec	%esi
	jnz	1b
	jmp	.Lrdmsr

/*
 * Guest marks: take an id, log it, then read the TSC, log it and pass it
 * in EDX:EBX with the id in ECX, as hvmark does. The log's page (0) is
 * the parameters': no fault between the TSC read and the CPUID.
 */
.Lmark:
	push	%edi
1:	mov	$1, %ecx
	lock xadd %ecx, MARK_NEXT_GPA
	mov	%ecx, %edi
	and	$(MARK_LOG_SIZE - 1), %edi
	shl	$4, %edi
	mov	%ecx, MARK_LOG_GPA(%edi)
	rdtsc
	mov	%eax, %ebx
	mov	%ebx, MARK_LOG_GPA + 4(%edi)
	mov	%edx, MARK_LOG_GPA + 8(%edi)
	mov	$MARK_LEAF, %eax
rip_mark:
	cpuid
	dec	%esi
	jnz	1b
	pop	%edi

.Lrdmsr:
	loop_head GP_RDMSR_COUNT, .Lwrmsr
	mov	PARAM(GP_MSR), %ecx
rip_rdmsr:
1:	rdmsr
	dec	%esi
	jnz	1b

.Lwrmsr:
	loop_head GP_WRMSR_COUNT, .Lhlt
	mov	PARAM(GP_MSR), %ecx
	mov	$WRMSR_LO, %eax
	mov	$WRMSR_HI, %edx
rip_wrmsr:
1:	wrmsr
	dec	%esi
	jnz	1b

/* Without an in-kernel irqchip each HLT is a KVM_EXIT_HLT. */
.Lhlt:
	loop_head GP_HLT_COUNT, .Lslow
rip_hlt:
1:	hlt
	dec	%esi
	jnz	1b

/* The same OUT as --pio's; the VMM sleeps on each. */
.Lslow:
	loop_head GP_SLOW_COUNT, .Ldone
	mov	PARAM(GP_SLOW_PORT), %edx
	mov	$SLOW_DATA, %eax
rip_slow:
1:	out	%al, (%dx)
	dec	%esi
	jnz	1b

/*
 * The iteration ends through the later kinds' loops at .Llater.  Their
 * JMP has the size of the MOV to EAX it replaced (.Llater does that MOV),
 * so rip_done stayed where it was; the .org fails the build if it moved.
 */
.Ldone:
	mov	$DONE_PORT, %edx
	{disp32} jmp .Llater
	.org	.Ldone + 10
rip_done:
	out	%al, (%dx)
	{disp32} jmp .Lnext_iteration	/* as long as the old JMP */
	.org	rip_done + 6

/*
 * One EXC_STUB_SIZE stub per exception vector: pad the frame to a common
 * layout with a dummy error code where the CPU pushes none, push the
 * vector, then "out dx, al" to FAULT_PORT.  The VMM finds vector, error
 * code, EIP, CS and EFLAGS at ESP.  program.c points the IDT's 32-bit
 * interrupt gates here.
 */
exception_stubs:
	vector = 0
	.rept NR_EXCEPTIONS
	.if ((ERROR_CODE_VECTORS >> vector) & 1) == 0
	push	$0
	.endif
	push	$vector
	jmp	.Lexception_common
	vector = vector + 1
	.org	exception_stubs + vector * EXC_STUB_SIZE, 0xcc
	.endr
.Lexception_common:
	mov	$FAULT_PORT, %edx
	out	%al, (%dx)
	hlt			/* never resumed */

/*
 * HALT_VECTOR: a non-specific EOI to the master PIC (an OUT that KVM
 * handles), count the run in guest memory, IRET.  eoi_count counts the
 * runs the guest saw, not the interrupts the VMM raised: should one
 * interrupt ever be delivered twice (the handler would run twice over,
 * harmlessly), its second EOI is a real IOIO exit too.
 */
halt_irq_handler:
	push	%eax
	mov	$0x20, %al
rip_halt_eoi:
	out	%al, $0x20
	incl	EOI_COUNT_GPA
	pop	%eax
	iret

/*
 * The kinds added after the others, in enum kind order; they leave EDX
 * (DONE_PORT) alone and end at rip_done.
 *
 * --mmio-read: a 32-bit read of an unbacked, 4-byte aligned GPA, one MMIO
 * exit; the VMM answers MMIO_READ_DATA.
 */
.Llater:
	loop_head GP_MMIO_READ_COUNT, .Llapic
	mov	PARAM(GP_MMIO_READ_GPA), %ebx
rip_mmio_read:
1:	mov	(%ebx), %eax
	cmp	$MMIO_READ_DATA, %eax
	jne	.Lbad_read
	dec	%esi
	jnz	1b

/*
 * --lapic: a read of the in-kernel local APIC's version register, which
 * KVM emulates itself (an NPF exit, no userspace exit).  The version
 * (bits 0-7) and the highest LVT entry (16-23) must be non-zero, the
 * reserved bits zero: anything else (all ones, 0) was not the local APIC.
 */
.Llapic:
	loop_head GP_LAPIC_COUNT, .Ltouch
	mov	$LAPIC_VERSION_GPA, %ebx
rip_lapic:
1:	mov	(%ebx), %eax
	test	$LAPIC_VERSION_RSVD, %eax
	jnz	.Lbad_read
	test	%al, %al
	jz	.Lbad_read
	test	$0xff0000, %eax
	jz	.Lbad_read
	mov	%eax, LAPIC_SEEN_GPA
	dec	%esi
	jnz	1b

/*
 * --touch: one byte to each of this vCPU's pages, from EBP on.  The VMM
 * dropped them at the last DONE_PORT exit, so each write is one nested
 * page fault that KVM handles as RAM.
 */
.Ltouch:
	loop_head GP_TOUCH_COUNT, .Llater_end
	mov	%ebp, %ebx
	mov	$TOUCH_DATA, %eax
rip_touch:
1:	movb	%al, (%ebx)
	add	$TOUCH_STRIDE, %ebx
	dec	%esi
	jnz	1b

.Llater_end:
	mov	$DONE_DATA, %eax
	jmp	rip_done

/*
 * A read got a wrong value: report it (EAX) to the VMM, its GPA in EBX.
 * --ipi: the handled count that stayed at ESI, IPI_HANDLED_GPA in EBX;
 * --timer: the same, TIMER_HANDLED_GPA in EBX.
 */
.Lbad_read:
	mov	$BAD_READ_PORT, %edx
	out	%eax, (%dx)
	hlt			/* never resumed */

/*
 * The VMM starts every vCPU here; then --halt's PIC setup and the first
 * iteration.  rip_done comes to .Lnext_iteration.  With --ipi or --timer,
 * its phase first; without, no CALL: the stack stays untouched.
 */
guest_entry:
	cmpl	$0, PARAM(GP_PHASES)
	je	.Lpic_setup
	call	.Lphases
	jmp	.Lpic_setup

.Lnext_iteration:
	cmpl	$0, PARAM(GP_PHASES)
	je	.Literation
	call	.Lphases
	jmp	.Literation

/*
 * --ipi's phase of an iteration (the head comment draws it).  Each vCPU
 * software-enables its local APIC first (once: the SVR keeps it), and
 * tells from the APIC ID register which one it is.  Clobbers EAX..EDX
 * and ESI, as every iteration's loops do.
 */
.Lipi:
	mov	LAPIC_SVR_GPA, %eax
	test	$LAPIC_SVR_ENABLE, %eax
	jnz	1f
	movl	$(LAPIC_SVR_ENABLE | LAPIC_SPURIOUS), LAPIC_SVR_GPA
1:	mov	LAPIC_ID_GPA, %eax
	shr	$24, %eax
	jnz	.Lipi_take

	/* vCPU 0: once vCPU 1 is in this iteration's phase too ... */
	incl	IPI_GO_GPA
	mov	IPI_GO_GPA, %eax
2:	cmp	IPI_READY_GPA, %eax
	jne	2b
	xor	%esi, %esi
	/*
	 * ... IPI ESI: its TSC, counted, then the ICR (or MSI_PORT); EBX:ECX
	 * the deadline
	 */
.Lipi_send:
	rdtsc
	mov	%eax, IPI_SEND_LOG_GPA(, %esi, 8)
	mov	%edx, IPI_SEND_LOG_GPA + 4(, %esi, 8)
	mov	%eax, %ecx
	mov	%edx, %ebx
	add	PARAM(GP_IPI_TIMEOUT_TICKS), %ecx
	adc	PARAM(GP_IPI_TIMEOUT_TICKS + 4), %ebx
	lea	1(%esi), %eax
	mov	%eax, IPI_SENT_GPA
	cmpl	$0, PARAM(GP_IPI_VIA_MSI)
	jne	.Lipi_msi
	movl	$(IPI_DEST << 24), LAPIC_ICR_HI_GPA
rip_ipi:
	movl	$IPI_ICR, LAPIC_ICR_LO_GPA
.Lipi_wait:
3:	cmp	IPI_HANDLED_GPA, %esi
	jb	4f
	rdtsc
	sub	%ecx, %eax
	sbb	%ebx, %edx
	jb	3b
	mov	IPI_HANDLED_GPA, %eax
	mov	$IPI_HANDLED_GPA, %ebx
	jmp	.Lbad_read
	/* handled: USEC before the next, on the TSC as --spin */
4:	inc	%esi
	cmp	PARAM(GP_IPI_COUNT), %esi
	jae	6f
	rdtsc
	mov	%eax, %ecx
	mov	%edx, %ebx
	add	PARAM(GP_IPI_GAP_TICKS), %ecx
	adc	PARAM(GP_IPI_GAP_TICKS + 4), %ebx
5:	rdtsc
	sub	%ecx, %eax
	sbb	%ebx, %edx
	jb	5b
	jmp	.Lipi_send
6:	ret

/*
 * --ipi-via msi: the OUT that has the VMM send the IPI as an MSI, then
 * back to the wait (EDX is free: the TSC's high half went to EBX).
 */
.Lipi_msi:
	mov	$MSI_PORT, %edx
	mov	$MSI_DATA, %eax
rip_ipi_msi:
	out	%al, (%dx)
	jmp	.Lipi_wait

/*
 * vCPU 1: zero this iteration's counts, then say so (vCPU 0 sends nothing
 * before), then take interrupts until all N came.  No HLT.
 */
.Lipi_take:
	movl	$0, IPI_SENT_GPA
	movl	$0, IPI_HANDLED_GPA
	incl	IPI_READY_GPA
	mov	PARAM(GP_IPI_COUNT), %eax
	sti
1:	cmp	IPI_HANDLED_GPA, %eax
	ja	1b
	cli
	ret

/*
 * IPI_VECTOR on vCPU 1: log the TSC as handler_tsc[handled] and count it,
 * unless no IPI is outstanding (handled == sent: the handler ran twice
 * for one, as QEMU's TCG emulation of nested SVM sometimes makes it),
 * which counts in extra instead; EOI, IRET.  Every register is kept.
 */
ipi_handler:
	push	%eax
	push	%ecx
	push	%edx
	rdtsc
	mov	IPI_HANDLED_GPA, %ecx
	cmp	IPI_SENT_GPA, %ecx
	jae	1f
	mov	%eax, IPI_HANDLER_LOG_GPA(, %ecx, 8)
	mov	%edx, IPI_HANDLER_LOG_GPA + 4(, %ecx, 8)
	inc	%ecx
	mov	%ecx, IPI_HANDLED_GPA
	jmp	2f
1:	incl	IPI_EXTRA_GPA
rip_ipi_eoi:
2:	movl	$0, LAPIC_EOI_GPA
	pop	%edx
	pop	%ecx
	pop	%eax
	iret

/*
 * The phase an iteration begins with (GP_PHASES): --ipi's or --timer's,
 * which are exclusive.  Each returns to the caller.
 */
.Lphases:
	cmpl	$0, PARAM(GP_IPI_COUNT)
	jne	.Lipi

/*
 * --timer's phase of an iteration (the head comment draws it): vCPU 0
 * only, the others go on at once.  The software-enabled APIC, the divisor
 * and the LVT entry stay from one iteration to the next (one-shot: the
 * count reaching 0 leaves LVTT as it is); writing them again costs an
 * APIC access each, not a change.  Clobbers EAX..EDX and ESI.
 */
.Ltimer:
	mov	LAPIC_SVR_GPA, %eax
	test	$LAPIC_SVR_ENABLE, %eax
	jnz	1f
	movl	$(LAPIC_SVR_ENABLE | LAPIC_SPURIOUS), LAPIC_SVR_GPA
1:	mov	LAPIC_ID_GPA, %eax
	shr	$24, %eax
	jnz	6f
	movl	$0, TIMER_ARMED_GPA
	movl	$0, TIMER_HANDLED_GPA
	movl	$TIMER_TDCR_DIV1, LAPIC_TDCR_GPA
	movl	$TIMER_LVTT, LAPIC_LVTT_GPA
	xor	%esi, %esi
	sti
	/*
	 * Timer ESI: its TSC, counted, then the initial count, which starts
	 * it (the write is a VM exit, taken once every instruction before
	 * it retired, the RDTSC too: the TSC read is never after KVM starts
	 * the timer); EBX:ECX the deadline
	 */
.Ltimer_arm:
	rdtsc
	mov	%eax, TIMER_ARM_LOG_GPA(, %esi, 8)
	mov	%edx, TIMER_ARM_LOG_GPA + 4(, %esi, 8)
	mov	%eax, %ecx
	mov	%edx, %ebx
	add	PARAM(GP_TIMER_TIMEOUT_TICKS), %ecx
	adc	PARAM(GP_TIMER_TIMEOUT_TICKS + 4), %ebx
	lea	1(%esi), %eax
	mov	%eax, TIMER_ARMED_GPA
	mov	PARAM(GP_TIMER_TMICT), %eax
rip_timer:
	mov	%eax, LAPIC_TMICT_GPA
3:	cmp	TIMER_HANDLED_GPA, %esi
	jb	4f
	rdtsc
	sub	%ecx, %eax
	sbb	%ebx, %edx
	jb	3b
	mov	TIMER_HANDLED_GPA, %eax
	mov	$TIMER_HANDLED_GPA, %ebx
	jmp	.Lbad_read
	/* handled: the next one at once */
4:	inc	%esi
	cmp	PARAM(GP_TIMER_COUNT), %esi
	jb	.Ltimer_arm
	cli
6:	ret

/*
 * TIMER_VECTOR on vCPU 0: log the TSC as handler_tsc[handled] and count
 * it, unless no timer is outstanding (handled == armed: a second run for
 * one), which counts in extra instead, with the EIP it interrupted and
 * its ESP; EOI, IRET.  Every register is kept.
 */
timer_handler:
	push	%eax
	push	%ecx
	push	%edx
	rdtsc
	mov	TIMER_HANDLED_GPA, %ecx
	cmp	TIMER_ARMED_GPA, %ecx
	jae	1f
	mov	%eax, TIMER_HANDLER_LOG_GPA(, %ecx, 8)
	mov	%edx, TIMER_HANDLER_LOG_GPA + 4(, %ecx, 8)
	inc	%ecx
	mov	%ecx, TIMER_HANDLED_GPA
	jmp	2f
1:	incl	TIMER_EXTRA_GPA
	mov	12(%esp), %eax
	mov	%eax, TIMER_EXTRA_EIP_GPA
	mov	%esp, TIMER_EXTRA_ESP_GPA
rip_timer_eoi:
2:	movl	$0, LAPIC_EOI_GPA
	pop	%edx
	pop	%ecx
	pop	%eax
	iret

guest_code_end:

	.section .note.GNU-stack, "", @progbits
