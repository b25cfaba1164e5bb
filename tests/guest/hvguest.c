// SPDX-License-Identifier: GPL-2.0
/*
 * hvguest - a tiny KVM guest whose VM exits are known exactly.
 *
 * The VMM (vm.c) creates a VM with one 2 MiB memslot at GPA 0 (and a
 * second with --touch) and puts every vCPU straight into 32-bit flat
 * protected mode (no paging, IF=0).
 * The guest program is guest.S, assembled into hvguest and copied to GPA
 * 0x1000 before the first KVM_RUN (program.c; guest.h draws guest memory).
 * Each iteration starts with the --ipi or --timer phase, the --halt loop
 * and the --spin busy loop, then runs one counted loop per exit kind, in
 * a fixed order, then an OUT to DONE_PORT that marks the end of one
 * program iteration, then jumps back to its start.  The counts, ports,
 * MMIO GPA and MSR are data: the VMM writes them into a parameter block
 * in guest memory, and a loop whose count is 0 is skipped at run time.
 * The code is the same whatever the options, so the guest RIP of each
 * exiting instruction is too: guest.S's rip_* labels, printed under the
 * same names in the HVGUEST line.
 * An IDT routes every CPU exception to a stub that reports the vector, error
 * code and faulting EIP through an OUT to FAULT_PORT, so a broken guest is
 * diagnosed precisely instead of ending in an opaque triple fault.
 *
 * --halt N:USEC gives exits whose time is spent blocked in KVM's
 * kvm_vcpu_halt().  Only then the VM gets KVM's in-kernel irqchip (a vCPU
 * with interrupts off would never leave a HLT, so --hlt is refused).
 * Once per run vCPU 0 initialises the in-kernel master 8259 (ICW1-4, then
 * OCW1 unmasking HALT_IRQ only): PIC_INIT_OUTS OUTs handled in the kernel.
 * Then N times per iteration: OUT to ARM_PORT (to userspace: the VMM arms
 * a helper thread), "sti; hlt; cli".  USEC after vCPU 0 blocked in KVM
 * (KVM's 'blocking' stat) the helper raises HALT_IRQ with KVM_IRQ_LINE, so
 * every halt blocks, for at least USEC; the handler sends the EOI (one more
 * in-kernel OUT), counts its run in guest memory and IRETs.  A halt woken
 * before its deadline (a signal, a request to all vCPUs) is waited for
 * again and counted in halt_late.  Only vCPU 0 halts: KVM resets only the
 * BSP's LVT0 to ExtINT (KVM_X86_QUIRK_LINT0_REENABLED), so the PIC reaches
 * no other vCPU; other vCPUs skip the --halt loop (EDI, the per-vCPU
 * halt count, is 0 for them).
 *
 * Three kinds tell guest-physical faults apart, after --slow's loop (at
 * the end of guest.S, so the older RIPs stayed put):
 * --mmio-read N[:GPA] reads an unbacked GPA (default 0xd0001000, the page
 * after --mmio's): each one KVM_EXIT_MMIO, a 4-byte read, which the VMM
 * answers with MMIO_READ_DATA; the guest checks the value it got and
 * reports a wrong one on BAD_READ_PORT (exit 1).
 * --lapic N reads the version register of the in-kernel local APIC (GPA
 * 0xfee00030): KVM's irqchip, as --halt's (so no --hlt), and KVM emulates
 * each read itself, no userspace exit; the guest checks that it looks
 * like a version register (lapic_version=, 0x50014 on 6.1 and 6.12).
 * --touch N writes one byte to each of N 4 KiB pages of a second memslot
 * at TOUCH_GPA, each vCPU its own N (EBP holds their GPA).  At each DONE
 * exit the VMM checks the writes and drops the pages (MADV_DONTNEED; the
 * mapping is MADV_NOHUGEPAGE), so each write is one NPF that KVM handles
 * as RAM, no userspace exit.  KVM retries a fault that overlapped an MMU
 * notifier invalidation anywhere in the VM, which would fault twice for
 * one write, so with --touch all vCPUs end every iteration together and
 * drop their pages while none is in the guest (run.c).  Measured on 6.1
 * and 6.12 (TCG): kvm_exits is exactly io + mmio + mmio_read + lapic +
 * touch + irq exits + the first touches of guest memory, for one vCPU as
 * for two.
 *
 * --ipi N[:USEC] measures how late a vCPU takes an interrupt that another
 * vCPU sent it.  It needs two vCPUs and KVM's in-kernel irqchip (so no
 * --hlt).  At the start of every iteration, before all the above, both
 * software-enable their local APIC (SVR, spurious vector 0xff), then vCPU
 * 1 zeroes the iteration's counts, says it is ready, enables interrupts
 * and busy-loops (never HLT) until it handled N; vCPU 0 waits for that,
 * then N times: reads the TSC into the IPI's log slot, writes the ICR
 * (fixed IPI_VECTOR 0xec to APIC ID 1), waits until vCPU 1's handler
 * counted it (at most 5 s of guest TSC, else it reports on BAD_READ_PORT
 * and the VMM fails), then waits USEC (default 200) on the TSC.  The
 * handler logs its TSC at the same index of its own log, counts, EOIs;
 * should it run with no IPI outstanding (a second run for one, which
 * QEMU's TCG emulation of nested SVM now and then makes), it counts in
 * ipi_extra instead.  None of it exits to userspace: KVM emulates the APIC
 * accesses (SVR, ID, ICR, EOI) and delivers the IPI.  The vCPUs end every
 * iteration together (run.c); then the VMM checks that vCPU 0 sent and
 * vCPU 1 handled exactly N, and turns each IPI's two TSCs into ns
 * (KVM_GET_TSC_KHZ): ipi_late_max_ns=, ipi_late_sum_ns=, and with
 * --ipi-log FILE one line per IPI.  The IDT moves to make room for vector
 * 0xec (guest.h), and each vCPU has its own stack.  A task that keeps vCPU
 * 1's thread (tids=, the second; --cpu pins it) off its CPU makes the IPIs
 * late by as much.
 * --ipi-via msi has the VMM raise them instead of vCPU 0, as a device's
 * interrupt: where vCPU 0 would write the ICR, it makes an OUT to
 * MSI_PORT (0x3f5), an IOIO exit to userspace (the 'msi' exits, N per
 * iteration, the first of each, vCPU 0's only; rip_ipi_msi=).  The VMM
 * handles it in vCPU 0's thread, between two KVM_RUNs, so that KVM sees
 * no vCPU of the VM running there: KVM_SIGNAL_MSI on the VM, address
 * 0xfee01000 (APIC ID 1, physical), data 0xec (the same vector, fixed,
 * edge), which must return 1 (one local APIC accepted it; 0, blocked, or
 * an error is fatal); then it resumes vCPU 0, which waits for the handler
 * as before.  Everything else holds as with the ICR (the default,
 * ipi_via=icr): the counts, ipi_extra, the log, whose send TSC is now
 * read before the OUT, so the lateness holds the exit to the VMM too.
 * The HVGUEST line says ipi_via=msi and counts the MSIs sent, ipi_msi=.
 *
 * --timer N[:USEC] measures how late a vCPU takes an interrupt of its own
 * local APIC timer: KVM runs that timer as an hrtimer whose function
 * (apic_timer_fn) only marks it pending and kicks the vCPU; the interrupt
 * is raised when the vCPU's thread next runs, so a preemption of that
 * thread in between makes it late by as much.  vCPU 0 takes them (it needs
 * no other vCPU; with --vcpus N the others skip the phase), on KVM's
 * in-kernel irqchip (so no --hlt), exclusive with --ipi (one interrupt
 * test at a time; they share the IDT and log pages).  At the start of
 * every iteration, before all the above, vCPU 0 software-enables its local
 * APIC (SVR, spurious vector 0xff), zeroes the iteration's counts, sets
 * the divisor to 1 (TDCR 0xb) and LVTT to one-shot, unmasked, vector
 * TIMER_VECTOR 0xef, enables interrupts, then N times: reads the TSC into
 * the timer's log slot, counts it, writes the initial count USEC * 1000
 * (KVM's APIC bus cycle is 1 ns on 6.1 and 6.12: guest.h), which starts
 * the timer, and busy-waits (never HLT) until the handler counted it (at
 * most USEC + 5 s of guest TSC, else it reports on BAD_READ_PORT and the
 * VMM fails); the next one at once.  The handler logs its TSC at the same
 * index, counts, EOIs; should it run with no timer outstanding it counts
 * in timer_extra instead (with the EIP it interrupted).  QEMU's TCG
 * emulation of nested SVM makes such runs, as for --ipi: on 6.12 with
 * --vcpus 3 each 2 s run had one (of 5,000 to 40,000 interrupts), each
 * interrupting the instruction after the initial-count write, as the
 * interrupt it repeated had (the timer expired within that write's exit
 * and came at the entry that ended it), and ftrace's kvm_inj_virq saw no
 * injection for it, reinjections included; with one vCPU none in 12,000
 * (6.12-rt: one in a run of 200, USEC 1000, at the same place).  So they
 * are counted, not fatal: a KVM that fired a one-shot twice would
 * inject it twice, which a tracer's test sees in ftrace.
 * None of it exits to userspace: KVM emulates the APIC accesses (SVR, ID,
 * TDCR, LVTT, TMICT, EOI) and delivers the interrupts.  At vCPU 0's DONE
 * exit the VMM checks that exactly N were armed and handled, and turns
 * each one's TSCs into its lateness, handler TSC - arm TSC in ns
 * (KVM_GET_TSC_KHZ) - USEC: the time from the deadline the guest asked
 * for to its handler.  KVM starts the hrtimer in its handling of the
 * initial-count write, after the TSC read, and an hrtimer never fires
 * early, so a lateness below 0 comes only from the guest TSC and the
 * host's clock disagreeing (or the ns rounding): such a timer counts in
 * timer_early (and timer_early_max_ns, the most) and as 0 ns in
 * timer_late_max_ns= and timer_late_sum_ns=; --timer-log FILE has one
 * line per interrupt, its lateness signed.  A USEC that passed before
 * KVM, handling the write, started its hrtimer makes KVM raise the
 * interrupt there, from the vCPU's thread, with no apic_timer_fn
 * (start_sw_period()); with 2000 and more, ftrace saw apic_timer_fn run
 * once per interrupt (6.12 and the debug kernel under emulation, a
 * FIFO hog on the vCPU's CPU too).  A task that keeps vCPU 0's thread
 * (tids=, the first; --cpu pins it) off its CPU makes the interrupts
 * late by as much.
 *
 * --spin MS busy-loops on RDTSC (not intercepted) on every vCPU for MS ms of
 * wall-clock time per iteration, using KVM's guest TSC frequency; time the
 * vCPU thread spends preempted counts too.  It makes no exits of its own,
 * only the host's interrupts interrupt it, so it gives a vCPU thread that
 * another task can preempt.  Before it the guest makes one OUT to
 * SPIN_PORT (0x3f3), an IOIO exit to userspace (spin=, rip_spin=): at a
 * vCPU's first, the VMM prints 'HVGUEST-SPIN vcpu=N' and starts to count
 * the vCPU threads' run_delay there.  The HVGUEST line reports it as
 * run_delay_ns: the time the vCPU threads waited runnable (the
 * scheduler's run_delay from /proc/self/task/TID/schedstat) from right
 * after that OUT's KVM_RUN returned to right after the last exit's.  So it
 * leaves out the first KVM_RUN's way to the first VM entry (vCPU setup,
 * MMU roots), which belongs to no exit; it still holds what the vCPU
 * threads waited in these two exits' userspace part.
 *
 * The last exit.  Each vCPU's last exit of a run (of a round, with
 * --rounds) is the IOIO exit of the OUT to DONE_PORT (0x3f0) at rip_done
 * that ends its last iteration: SVM exit code 0x7b (IOIO), VMX basic
 * reason 30 (IO_INSTRUCTION), which KVM hands to userspace as KVM_EXIT_IO.
 * After it the VMM never calls KVM_RUN on that vCPU again, so no VM entry
 * follows it; every earlier exit was followed by one.  The vCPU is then
 * destroyed with its VM, which hvguest closes right after the run, once
 * it has the counts (before it prints them), with or without --rounds.
 * It is one of the 'done' exits: done counts every iteration's OUT, the
 * last included, so a tracer that counts only exits whose vCPU re-entered
 * sees one IOIO exit per vCPU and round fewer than pio + slow + done
 * (+ halt arms and io_kernel with --halt).  The HVGUEST lines say so:
 * last_exit=done last_exit_kvm=IO last_exit_port=0x3f0 last_exit_rip=RIP
 * last_exits=N (one per vCPU and round), and with --hop last_exit_tids=,
 * the thread that got each vCPU's.  How long they last: vcpu_last_exit_ns=
 * (and last_exit_ns=, the sum) is the time from right after each one's
 * KVM_RUN returned until hvguest starts to close the VM, destroy_ns= the
 * time that takes (KVM frees the vCPUs in its last close()).  Under TCG
 * they were 6..45 ms (a few past 100 ms) and 20..85 ms on 6.12, 6..120
 * ms and 30..250 ms on 6.1: a last exit that a tracer closes when KVM
 * frees its vCPU is long.  Spare vCPUs never run: they have no exits.
 *
 * --rounds N runs all of the above N times in one process, one VM after
 * the other (rounds.c): create the VM and its vCPUs, run the program (once,
 * or for --seconds), then destroy the VM completely (unmap every kvm_run,
 * close every stats fd, every vCPU fd and the VM fd, unmap guest memory),
 * check the round and print its 'HVGUEST round=I' line (I from 0), and
 * only then create the next round's VM.  KVM frees a VM and every vCPU in
 * it in the close() that drops its last reference, before that close()
 * returns; hvguest checks it: the VM's debugfs directory kvm/PID-FD is gone
 * afterwards (destroy_checked counts the rounds so checked; a round cannot
 * be checked without debugfs and root).  The final 'HVGUEST' line has
 * every round's totals, with rounds=N.  A SIGINT or SIGTERM under
 * --seconds ends the current round early and the run after it.  Every
 * round has the same pid, the same vCPU ids 0..N-1, the same program at the
 * same RIPs, and new vCPU threads.  KVM allocates each struct kvm_vcpu
 * (inside vcpu_svm or vcpu_vmx) from the slab cache "kvm_vcpu": its own
 * cache, never merged with another, since it has a usercopy region and
 * Debian's kernels have HARDENED_USERCOPY (on 6.1 and 6.12 with kvm_amd:
 * 7248-byte objects, 4 per order-3 slab).  SLUB hands out the objects
 * freed last first, so a new round's vCPUs mostly land where earlier
 * rounds' were.  Measured under TCG, 20 rounds: one vCPU had its
 * predecessor's address in 11 to 17 of 19 rounds on 6.12, 7 on 6.1; of
 * two vCPUs' 38, 20 to 22 had the other vCPU's previous address on 6.12,
 * and on 6.1 8 their own, 24 an older round's.  struct kvm is vmalloc()ed
 * and lazily freed: it had a new address in every round.
 *
 * --spare-vcpus K moves the real vCPUs elsewhere: before each round's real
 * vCPUs, K vCPUs are created in a spare VM that is never run and lives
 * until the end of the run (a VM frees its vCPUs only when it goes), so
 * they keep the objects they take, typically those the previous round
 * freed.  With K = 2 x vcpus, none of the 38 (2 vCPUs) or 152 (8 vCPUs)
 * real vCPUs of rounds 1..19 landed where an earlier round's real vCPU
 * had been on 6.12, and 0 and 2 did on 6.1; with K = vcpus 2 to 11 of
 * 38 and 26 to 48 of 152 still did.  --shrink writes 1 to
 * /sys/kernel/slab/kvm_vcpu/shrink before every round but the first:
 * SLUB flushes its per-CPU slabs and frees empty ones.  It seldom helps,
 * since other vCPUs in the system (e.g. tests/vm's held VMs) keep their
 * slabs alive; on 6.12 two vCPUs then traded addresses in 36 of 38.
 * Nothing can guarantee fresh addresses (or the same ones): the allocator
 * is free to hand out any free object, and every other VM and vCPU in the
 * system allocates and frees too.
 *
 * --hop runs every vCPU from two threads in turn (run.c): after each
 * return from KVM_RUN the thread that got it handles the exit and hands
 * the vCPU to the other thread, which makes the next KVM_RUN call.  KVM
 * allows that (one KVM_RUN at a time, under vcpu->mutex), but each
 * KVM_RUN from a thread other than the last one pays a synchronize_rcu()
 * before it enters the guest (vcpu->pid changes): milliseconds under
 * TCG, in the kernel, between the VMM's next KVM_RUN call and the VM
 * entry.  --vmm-work USEC[:spin] makes the VMM's handling of every exit
 * that reaches it take USEC more: a clock_nanosleep(), or a busy loop on
 * CLOCK_MONOTONIC with :spin (after --slow's own sleep).  With either
 * option the HVGUEST line gives the VMM's own account of its time,
 * vmm_ns: the sum, over every return of KVM_RUN but each vCPU's last, of
 * the time from right after the ioctl returned to right before the next
 * KVM_RUN call (CLOCK_MONOTONIC), vmm_exits their number, hops the
 * handovers, per vCPU too.  Every other check holds with --hop.
 *
 * The VMM checks every exit that reaches userspace against the exact
 * sequence the program must produce and cross-checks KVM's own per-vCPU
 * binary statistics afterwards (check.c).  It is the ground truth for
 * tracer tests, so any deviation is fatal (exit 1).
 *
 * KVM statistics and how exactly they can be checked (KVM 6.1 .. 6.12):
 *   io_exits   - counted by the vendor IO intercept for every IN/OUT, whether
 *                handled in the kernel or not: must equal pio+slow+done
 *                (+ halt arms + io_kernel, the PIC's OUTs, with --halt;
 *                + spin, with --spin; + vCPU 0's MSI_PORT OUTs, with
 *                --ipi-via msi).
 *   mmio_exits - counted when emulation has to hand an MMIO access to
 *                userspace: must equal mmio + mmio_read (not lapic).
 *   halt_exits - counted for every emulated HLT: must equal hlt (or halt);
 *                a HLT whose interrupt is already pending counts too.
 *   blocking   - with --halt, polled by the timer, whose deadline is USEC
 *                after vCPU 0 is seen inside kvm_vcpu_block().
 *                halt_wakeup (one per blocked halt, plus any spurious one,
 *                e.g. a TLB flush request to all vCPUs), halt_wait_ns,
 *                halt_poll_{success,fail}_ns, halt_{successful,attempted}_poll
 *                and halt_poll_invalid are reported only.
 *   exits      - every VM exit, including host interrupts, NPT/EPT faults on
 *                first touch of guest memory and the like, so it can only be
 *                checked as a lower bound: each of our instructions (CPUID,
 *                RDMSR and WRMSR, --lapic reads and --touch writes
 *                included) causes at least one exit.
 *   irq_exits, signal_exits, halt_wakeup, insn_emulation - reported only; they
 *                depend on host activity (interrupts, signals to the thread).
 * Verified on Debian 6.1 and 6.12 with kvm_amd (nested, NPT).  Vendor modules
 * outside mainline may count differently: kvm-pvm counts no io_exits at all,
 * so the checks fail there, as they should for a tracer's ground truth.
 *
 * Exit codes: 0 success, 1 mismatch or KVM failure, 2 bad arguments,
 * 4 KVM or a needed capability is unavailable (kselftest "skip").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hvguest.h"

/* One diagnostic at a time: die() and vcpu_fail() end the process. */
pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;

void __noreturn die(int code, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&diag_lock);
	fputs("hvguest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void sleep_usec(uint32_t usec)
{
	struct timespec ts = {
		.tv_sec = usec / 1000000,
		.tv_nsec = (usec % 1000000) * 1000L,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

uint64_t ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ull + ts->tv_nsec;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

/* Guest TSC ticks in ns (tsc_khz); never overflows, whatever the ticks. */
uint64_t ticks_ns(uint64_t ticks)
{
	return ticks / tsc_khz * 1000000 + ticks % tsc_khz * 1000000 / tsc_khz;
}

/*
 * --ipi-log, --timer-log (opt): a new file only, so that a run never
 * clobbers another's log; opened before the first VM, so a bad path
 * fails at once.
 */
FILE *new_log(const char *opt, const char *path)
{
	FILE *f;
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST)
		usage_error("%s: %s exists; it is never overwritten", opt, path);
	if (fd < 0)
		usage_error("%s: %s: %s", opt, path, strerror(errno));
	f = fdopen(fd, "w");
	if (!f)
		die(EXIT_MISMATCH, "%s: %s", opt, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	open_kvm();
	if (cfg.hold)
		hold();
	ipi_open_log();
	timer_open_log();
	run_rounds();
	return 0;
}
