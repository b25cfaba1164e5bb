// SPDX-License-Identifier: GPL-2.0
/*
 * hvguest - a tiny KVM guest whose VM exits are known exactly.
 *
 * The VMM below creates a VM with one 2 MiB memslot at GPA 0 and puts every
 * vCPU straight into 32-bit flat protected mode (no paging, IF=0).
 * The guest program is machine code emitted here at GPA 0x1000: one counted
 * loop per exit kind, in a fixed order, then an OUT to DONE_PORT that marks
 * the end of one program iteration, then a jump back to the start.  Every
 * loop is emitted even if its count is 0 (it is skipped at run time), so the
 * guest RIP of each exiting instruction does not depend on the counts.
 * An IDT routes every CPU exception to a stub that reports the vector, error
 * code and faulting EIP through an OUT to FAULT_PORT, so a broken guest is
 * diagnosed precisely instead of ending in an opaque triple fault.
 *
 * Each iteration begins with a prologue, emitted after the exception stubs
 * so that the RIPs of the loops above do not move: the --halt loop, then
 * the --spin busy loop, then a jump to 0x1000.
 *
 * --halt N:USEC gives exits whose time is spent blocked in KVM's
 * kvm_vcpu_halt().  Only then the VM gets KVM's in-kernel irqchip (a vCPU
 * with interrupts off would never leave a HLT, so --hlt is refused).
 * Once per run vCPU 0 initialises the in-kernel master 8259 (ICW1-4, then
 * OCW1 unmasking HALT_IRQ only): PIC_INIT_OUTS OUTs handled in the kernel.
 * Then N times per iteration: OUT to ARM_PORT (to userspace: the VMM starts
 * a USEC timer), "sti; hlt; cli".  At the deadline a helper thread raises
 * HALT_IRQ with KVM_IRQ_LINE; the handler sends the EOI (one more in-kernel
 * OUT), counts its run in guest memory and IRETs.  Only vCPU 0 halts: KVM resets only the BSP's LVT0 to
 * ExtINT (KVM_X86_QUIRK_LINT0_REENABLED), so the PIC reaches no other vCPU;
 * other vCPUs skip the prologue's halt part (EDI, the per-vCPU halt count,
 * is 0 for them).  The interrupt is never raised before vCPU 0 is blocked
 * in KVM (KVM's 'blocking' stat), so every halt blocks; a halt whose vCPU
 * thread needed more than USEC to get there is shorter and counted in
 * halt_late (under TCG on a busy host: about 1 in 500, even with 5 ms).
 *
 * --spin MS busy-loops on RDTSC (not intercepted) on every vCPU for MS ms of
 * wall-clock time per iteration, using KVM's guest TSC frequency; time the
 * vCPU thread spends preempted counts too.  It makes no exits of its own,
 * only the host's interrupts interrupt it, so it gives a vCPU thread that
 * another task can preempt.  The HVGUEST line reports run_delay_ns, the
 * time the vCPU threads waited runnable (the scheduler's run_delay from
 * /proc/self/task/TID/schedstat) while running the guest.
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
 * binary statistics afterwards.  It is the ground truth for tracer tests,
 * so any deviation is fatal (exit 1).
 *
 * KVM statistics and how exactly they can be checked (KVM 6.1 .. 6.12):
 *   io_exits   - counted by the vendor IO intercept for every IN/OUT, whether
 *                handled in the kernel or not: must equal pio+slow+done
 *                (+ halt arms + io_kernel, the PIC's OUTs, with --halt).
 *   mmio_exits - counted when emulation has to hand an MMIO access to
 *                userspace: must equal mmio.
 *   halt_exits - counted for every emulated HLT: must equal hlt (or halt);
 *                a HLT whose interrupt is already pending counts too.
 *   blocking   - with --halt, read by the timer at each deadline, which it
 *                holds back until vCPU 0 is inside kvm_vcpu_block().
 *                halt_wakeup (one per blocked halt, plus any spurious one,
 *                e.g. a TLB flush request to all vCPUs), halt_wait_ns,
 *                halt_poll_{success,fail}_ns, halt_{successful,attempted}_poll
 *                and halt_poll_invalid are reported only.
 *   exits      - every VM exit, including host interrupts, NPT/EPT faults on
 *                first touch of guest memory and the like, so it can only be
 *                checked as a lower bound: each of our instructions (CPUID,
 *                RDMSR and WRMSR included) causes at least one exit.
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
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "hvguest.h"

#define MEM_SIZE	(2UL << 20)
#define GDT_GPA		0x800
#define IDT_GPA		0x900
#define CODE_GPA	0x1000
#define CODE_MAX	0x1000
#define FAULT_PORT	0x3f1	/* exception stubs report here */
#define SPIN_GPA	0x700	/* --spin: 64-bit TSC ticks per spin */
#define EOI_COUNT_GPA	0x708	/* --halt: 32-bit count of handler runs */
#define NR_EXCEPTIONS	32

/*
 * --halt: IRQ 5 of the master 8259, remapped to vector 0x25.  No KVM device
 * raises it (KVM_CREATE_IRQCHIP makes no PIT), and the I/O APIC pin of the
 * same GSI stays masked as reset left it.
 */
#define PIC_VECTOR_BASE	0x20
#define HALT_VECTOR	(PIC_VECTOR_BASE + HALT_IRQ)
#define MIN_HALT_USEC	1000	/* arm exit to HLT: 0.2-0.5 ms under TCG */

/*
 * Default MSR: "HVG\0".  It lies outside every range covered by the VMX and
 * SVM MSR bitmaps, so hardware always intercepts it, and no KVM version
 * implements it, so a filter that failed to apply shows up as #GP (and thus
 * a triple fault) instead of silently being handled in the kernel.
 */
#define DEFAULT_MSR	0x48564700u

/* Data the guest writes, so the VMM can check the payload of each exit too. */
#define PIO_DATA	'P'
#define SLOW_DATA	'S'
#define DONE_DATA	'D'
#define ARM_DATA	'A'
#define MMIO_DATA	0x4f494d4du		/* "MMIO" */
#define WRMSR_LO	0x4d535257u		/* "WRSM" */
#define WRMSR_HI	0x48564700u
#define RDMSR_VALUE	0x1122334455667788ull

const char *const kind_name[NR_KINDS + 1] = {
	"pio", "mmio", "cpuid", "rdmsr", "wrmsr", "hlt", "slow", "halt", "done",
};

/* The order of the userspace exits in one iteration (prologue first). */
static const int program_order[NR_KINDS] = {
	K_HALT, K_PIO, K_MMIO, K_CPUID, K_RDMSR, K_WRMSR, K_HLT, K_SLOW,
};

/* CPUID is the only kind handled entirely inside KVM. */
static bool kind_reaches_vmm(int k)
{
	return k != K_CPUID;
}

const char *const stat_name[NR_STATS] = {
	"exits", "io_exits", "mmio_exits", "halt_exits",
	"irq_exits", "signal_exits", "halt_wakeup", "insn_emulation",
	"halt_wait_ns", "halt_poll_success_ns", "halt_poll_fail_ns",
	"halt_successful_poll", "halt_attempted_poll", "halt_poll_invalid",
	"blocking",
};

struct config cfg = {
	.pio_port = 0x80,
	.slow_port = 0x81,
	.mmio_gpa = 0xd0000000u,
	.vcpus = 1,
};


int kvm_fd, vm_fd;
size_t run_size;
uint8_t *guest_mem;
uint32_t rip[NR_KINDS + 1];
uint32_t rip_halt, rip_eoi;
static uint32_t entry_rip;
uint64_t spin_tsc_khz;
struct vcpu vcpus[MAX_VCPUS];

/*
 * --halt timer: vCPU 0 posts 'armed' at each ARM_PORT exit; the thread
 * raises HALT_IRQ at 'due' and posts 'idle' once the line is low again.
 */
struct halt_timer halt_timer;

static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- errors */

const char prog_name[] = "hvguest";
const char usage_line[] =
	"usage: hvguest [--vcpus N] [--cpu LIST] [--seconds S | --forever] "
	"[--pio N[:PORT]] [--mmio N[:GPA]] [--cpuid N] [--rdmsr N[:MSR]] "
	"[--wrmsr N[:MSR]] [--hlt N] [--slow N:USEC[:PORT]] [--halt N:USEC] "
	"[--spin MS] [--hold] [--rounds N] [--spare-vcpus K] [--shrink] [--hop] "
	"[--vmm-work USEC[:spin]]\n";

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

static void __noreturn usage(void)
{
	fputs(usage_line, stdout);
	printf("\n"
	       "Runs a KVM guest that causes exactly the requested exits.  Per vCPU\n"
	       "and program iteration, in this order:\n"
	       "  --pio N[:PORT]         N 'out dx,al' to PORT (default 0x80)\n"
	       "  --mmio N[:GPA]         N 32-bit writes to unbacked GPA (default 0xd0000000)\n"
	       "  --cpuid N              N CPUID leaf 0 (handled inside KVM)\n"
	       "  --rdmsr N[:MSR]        N RDMSR, sent to userspace by an MSR filter\n"
	       "  --wrmsr N[:MSR]        N WRMSR (one MSR for both; default 0x%x)\n"
	       "  --hlt N                N HLT (no in-kernel irqchip: KVM_EXIT_HLT)\n"
	       "  --slow N:USEC[:PORT]   N 'out' to PORT (default 0x81), VMM sleeps USEC\n"
	       "then one 'out' to port 0x%x ends the iteration (0x%x reports faults).\n"
	       "Before all of these, each iteration starts with:\n"
	       "  --halt N:USEC          vCPU 0 only: N times 'out' to port 0x%x, then\n"
	       "                         'sti; hlt' until the VMM raises IRQ %d USEC\n"
	       "                         (>= %d) later; uses KVM's in-kernel irqchip, so\n"
	       "                         excludes --hlt; the PIC setup and each EOI are\n"
	       "                         IN/OUT exits handled in the kernel (io_kernel)\n"
	       "  --spin MS              every vCPU busy-loops on RDTSC for MS ms of\n"
	       "                         wall-clock time (no exits of its own)\n"
	       "  --vcpus N              vCPUs (1..%d, default 1), one thread each\n"
	       "  --cpu LIST             pin vCPU i to the i-th CPU of comma LIST (cycling),\n"
	       "                         its --hop thread to the (N+i)-th\n"
	       "  --seconds S            repeat the program until S seconds have passed\n"
	       "  --forever              repeat the program until SIGINT/SIGTERM\n"
	       "  --hold                 create the VM and vCPUs, run nothing, wait for\n"
	       "                         SIGINT/SIGTERM (keeps KVM's static keys steady;\n"
	       "                         with --halt, those of in-kernel LAPICs too)\n"
	       "  --rounds N             N rounds in one process, each: create the VM,\n"
	       "                         run the program, destroy the VM (checked)\n"
	       "  --spare-vcpus K        before each round's vCPUs create K (1..%d) that\n"
	       "                         never run and live to the end, in a VM of their\n"
	       "                         own, to move the real ones elsewhere\n"
	       "  --shrink               shrink the kvm_vcpu slab cache between rounds\n"
	       "  --hop                  run each vCPU from two threads in turn, handing\n"
	       "                         it over after every exit\n"
	       "  --vmm-work USEC[:spin] the VMM handles each exit for USEC more, asleep\n"
	       "                         (or busy, with :spin)\n"
	       "Prints 'HVGUEST-START ...' once the threads exist, with --rounds\n"
	       "'HVGUEST round=I ...' after each round, and 'HVGUEST ...' on success.\n"
	       "Exit: 0 ok, 1 mismatch/failure, 2 bad arguments, 4 no KVM.\n",
	       DEFAULT_MSR, DONE_PORT, FAULT_PORT, ARM_PORT, HALT_IRQ,
	       MIN_HALT_USEC, MAX_VCPUS, MAX_SPARES);
	exit(0);
}

/* ------------------------------------------------------------ arguments */

/* One numeric field of an option argument such as "N:USEC:PORT". */
struct field {
	const char *what;
	uint64_t min, max;
	uint64_t *val;
};

#define NO_MSR		UINT64_MAX
static uint64_t msr_arg[2] = { NO_MSR, NO_MSR };	/* --rdmsr, --wrmsr */

#define F_COUNT(k)	{ "count", 0, UINT32_MAX, &cfg.count[k] }
#define F_PORT(p)	{ "port", 0, 0xffff, p }
#define F_MSR(p)	{ "MSR", 0, UINT32_MAX, p }

/* Options taking "F0[:F1[:F2]]"; the first 'need' fields are mandatory. */
static const struct field_opt {
	const char *name;
	int nr, need;
	struct field f[3];
} field_opts[] = {
	{ "pio",   2, 1, { F_COUNT(K_PIO), F_PORT(&cfg.pio_port) } },
	{ "mmio",  2, 1, { F_COUNT(K_MMIO), { "GPA", 0, 0xfffffffc, &cfg.mmio_gpa } } },
	{ "cpuid", 1, 1, { F_COUNT(K_CPUID) } },
	{ "rdmsr", 2, 1, { F_COUNT(K_RDMSR), F_MSR(&msr_arg[0]) } },
	{ "wrmsr", 2, 1, { F_COUNT(K_WRMSR), F_MSR(&msr_arg[1]) } },
	{ "hlt",   1, 1, { F_COUNT(K_HLT) } },
	{ "slow",  3, 2, { F_COUNT(K_SLOW), { "USEC", 1, 10000000, &cfg.slow_usec },
			   F_PORT(&cfg.slow_port) } },
	{ "halt",  2, 2, { { "count", 1, UINT32_MAX, &cfg.count[K_HALT] },
			   { "USEC", MIN_HALT_USEC, 10000000, &cfg.halt_usec } } },
	{ "spin",  1, 1, { { "MS", 1, 3600000, &cfg.spin_ms } } },
	{ "vcpus", 1, 1, { { "count", 1, MAX_VCPUS, &cfg.vcpus } } },
	{ "rounds", 1, 1, { { "count", 1, 1000000, &cfg.rounds } } },
	{ "spare-vcpus", 1, 1, { { "count", 1, MAX_SPARES, &cfg.spares } } },
};
#define NR_FIELD_OPTS	((int)ARRAY_SIZE(field_opts))

static void parse_fields(const struct field_opt *o, const char *s)
{
	for (int i = 0; i < o->nr; i++) {
		if (i > 0 && *s == '\0') {
			if (i < o->need)
				usage_error("--%s: %s is required", o->name,
					    o->f[i].what);
			return;
		}
		if (i > 0 && *s++ != ':')
			usage_error("--%s: malformed argument", o->name);
		*o->f[i].val = parse_num(&s, o->name, o->f[i].what,
					 o->f[i].min, o->f[i].max);
	}
	if (*s)
		usage_error("--%s: trailing garbage '%s'", o->name, s);
}

static void parse_cpus(const char *s)
{
	for (cfg.ncpus = 0; ; s++) {
		if (cfg.ncpus == MAX_VCPUS)
			usage_error("--cpu: more than %d CPUs", MAX_VCPUS);
		cfg.cpus[cfg.ncpus++] = parse_num(&s, "cpu", "CPU", 0,
						  CPU_SETSIZE - 1);
		if (*s == '\0')
			return;
		if (*s != ',')
			usage_error("--cpu: malformed list");
	}
}

static void parse_seconds(const char *s)
{
	char *end;

	errno = 0;
	cfg.seconds = strtod(s, &end);
	if (errno || *end || !isdigit((unsigned char)s[0]) ||
	    !isfinite(cfg.seconds))
		usage_error("--seconds: '%s' is not a number", s);
	if (cfg.seconds <= 0 || cfg.seconds > 1e7)
		usage_error("--seconds: %s out of range", s);
}

/* "USEC", "USEC:sleep" or "USEC:spin" */
static void parse_vmm_work(const char *s)
{
	cfg.vmm_work_usec = parse_num(&s, "vmm-work", "USEC", 1, 10000000);
	if (!strcmp(s, ":spin"))
		cfg.vmm_work_spin = true;
	else if (*s && strcmp(s, ":sleep"))
		usage_error("--vmm-work: '%s' is neither ':spin' nor ':sleep'", s);
}

/* I/O ports the in-kernel irqchip handles: both 8259s and their ELCRs. */
static bool kernel_port(uint64_t port)
{
	return (port & ~1ull) == 0x20 || (port & ~1ull) == 0xa0 ||
	       (port & ~1ull) == 0x4d0;
}

/* What --halt's in-kernel irqchip would take over or never finish. */
static void check_halt_config(void)
{
	uint64_t page = cfg.mmio_gpa & ~0xfffull;

	if (cfg.count[K_HLT])
		usage_error("--hlt and --halt are exclusive: with --halt's in-kernel "
			    "irqchip a HLT with interrupts off never ends");
	if (cfg.pio_port == ARM_PORT || kernel_port(cfg.pio_port))
		usage_error("--pio: port 0x%" PRIx64 " is taken by --halt", cfg.pio_port);
	if (cfg.slow_port == ARM_PORT || kernel_port(cfg.slow_port))
		usage_error("--slow: port 0x%" PRIx64 " is taken by --halt", cfg.slow_port);
	if (page == 0xfec00000 || page == 0xfee00000)
		usage_error("--mmio: GPA 0x%" PRIx64 " is the I/O APIC or local APIC "
			    "page, which --halt's irqchip handles in KVM", cfg.mmio_gpa);
}

/* Rejects combinations that would make exits ambiguous or impossible. */
static void check_config(void)
{
	uint64_t gpa = cfg.mmio_gpa;

	if (cfg.seconds > 0 && cfg.forever)
		usage_error("--seconds and --forever are exclusive");
	if (cfg.rounds && cfg.forever)
		usage_error("--rounds and --forever are exclusive: a round must end");
	if (cfg.shrink && !cfg.rounds)
		usage_error("--shrink works between rounds: it needs --rounds");
	if (cfg.spares * (cfg.rounds ? cfg.rounds : 1) > MAX_SPARES_TOTAL)
		usage_error("--spare-vcpus: %" PRIu64 " a round for %" PRIu64
			    " rounds is more than %d spare vCPUs", cfg.spares,
			    cfg.rounds, MAX_SPARES_TOTAL);
	if (cfg.hold && (cfg.rounds || cfg.spares || cfg.hop || cfg.vmm_work_usec))
		usage_error("--hold runs nothing: it takes no --rounds, "
			    "--spare-vcpus, --hop or --vmm-work");
	if (cfg.pio_port == DONE_PORT || cfg.pio_port == FAULT_PORT)
		usage_error("--pio: port 0x%" PRIx64 " is reserved", cfg.pio_port);
	if (cfg.slow_port == DONE_PORT || cfg.slow_port == FAULT_PORT)
		usage_error("--slow: port 0x%" PRIx64 " is reserved", cfg.slow_port);
	if (cfg.pio_port == cfg.slow_port)
		usage_error("--pio and --slow must use different ports");
	if (cfg.halt_usec)
		check_halt_config();
	if (gpa < MEM_SIZE)
		usage_error("--mmio: GPA 0x%" PRIx64 " is inside the memslot", gpa);
	/* A misaligned write could span two pages and exit twice. */
	if (gpa & 3)
		usage_error("--mmio: GPA 0x%" PRIx64 " is not 4-byte aligned", gpa);
	if (msr_arg[0] != NO_MSR && msr_arg[1] != NO_MSR && msr_arg[0] != msr_arg[1])
		usage_error("--rdmsr and --wrmsr must use the same MSR");
	cfg.msr = msr_arg[0] != NO_MSR ? msr_arg[0] :
		  msr_arg[1] != NO_MSR ? msr_arg[1] : DEFAULT_MSR;
	/* KVM never filters x2APIC MSRs, so they cannot be forced out. */
	if (cfg.msr >= 0x800 && cfg.msr <= 0x8ff)
		usage_error("MSR 0x%" PRIx64 " is an x2APIC MSR, KVM cannot filter it",
			    cfg.msr);
}

static void parse_args(int argc, char **argv)
{
	static struct option opts[NR_FIELD_OPTS + 9] = {
		[NR_FIELD_OPTS] = { "cpu", required_argument, NULL, 'C' },
		{ "seconds",	required_argument, NULL, 'S' },
		{ "forever",	no_argument,	   NULL, 'F' },
		{ "hold",	no_argument,	   NULL, 'H' },
		{ "shrink",	no_argument,	   NULL, 'K' },
		{ "hop",	no_argument,	   NULL, 'P' },
		{ "vmm-work",	required_argument, NULL, 'W' },
		{ "help",	no_argument,	   NULL, 'h' },
	};
	int c;

	/* getopt_long returns the table index for the field options */
	for (c = 0; c < NR_FIELD_OPTS; c++)
		opts[c] = (struct option){ field_opts[c].name, required_argument, NULL, c };
	opterr = 0;	/* we print our own messages */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c >= 0 && c < NR_FIELD_OPTS) {
			parse_fields(&field_opts[c], optarg);
			continue;
		}
		switch (c) {
		case 'C':
			parse_cpus(optarg);
			break;
		case 'S':
			parse_seconds(optarg);
			break;
		case 'F':
			cfg.forever = true;
			break;
		case 'H':
			cfg.hold = true;
			break;
		case 'K':
			cfg.shrink = true;
			break;
		case 'P':
			cfg.hop = true;
			break;
		case 'W':
			parse_vmm_work(optarg);
			break;
		case 'h':
			usage();
		case ':':
			usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	check_config();
}

/* -------------------------------------------------------- code emission */

struct code {
	uint8_t *buf;
	uint32_t len;
};

static void emit8(struct code *c, uint8_t b)
{
	if (c->len >= CODE_MAX)
		die(EXIT_MISMATCH, "guest program too large");
	c->buf[c->len++] = b;
}

static void emit32(struct code *c, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		emit8(c, v >> (8 * i));
}

static void emit_bytes(struct code *c, const uint8_t *b, size_t n)
{
	while (n--)
		emit8(c, *b++);
}

#define EMIT(c, ...)	emit_bytes(c, (const uint8_t[]){ __VA_ARGS__ }, \
				   sizeof((const uint8_t[]){ __VA_ARGS__ }))

static uint32_t here(const struct code *c)
{
	return CODE_GPA + c->len;
}

/* mov r32, imm32 (B8+r); register numbers: eax 0, ecx 1, edx 2, esi 6. */
static void emit_mov(struct code *c, int reg, uint32_t imm)
{
	emit8(c, 0xb8 + reg);
	emit32(c, imm);
}

/* Stores rel32 at offset 'at' so that it jumps to GPA 'to'. */
static void patch_rel32(struct code *c, uint32_t at, uint32_t to)
{
	uint32_t rel = to - (CODE_GPA + at + 4);

	memcpy(c->buf + at, &rel, 4);
}

/* "mov esi, n; test esi, esi; jz <end>": returns where <end> goes. */
static uint32_t emit_loop_head(struct code *c, uint32_t n)
{
	uint32_t at;

	emit_mov(c, 6, n);
	EMIT(c, 0x85, 0xf6);		/* test esi, esi */
	EMIT(c, 0x0f, 0x84);		/* jz rel32 */
	at = c->len;
	emit32(c, 0);
	return at;
}

/* "dec esi; jnz top", then resolves the jz of emit_loop_head(). */
static void emit_loop_tail(struct code *c, uint32_t top, uint32_t skip_at)
{
	EMIT(c, 0x4e);			/* dec esi */
	EMIT(c, 0x0f, 0x85);		/* jnz rel32 */
	emit32(c, top - (here(c) + 4));
	patch_rel32(c, skip_at, here(c));
}

/* Register setup done once before the loop of kind k. */
static void emit_setup(struct code *c, int k)
{
	switch (k) {
	case K_PIO:
		emit_mov(c, 2, cfg.pio_port);
		emit_mov(c, 0, PIO_DATA);
		break;
	case K_SLOW:
		emit_mov(c, 2, cfg.slow_port);
		emit_mov(c, 0, SLOW_DATA);
		break;
	case K_MMIO:
		emit_mov(c, 0, MMIO_DATA);
		break;
	case K_RDMSR:
		emit_mov(c, 1, cfg.msr);
		break;
	case K_WRMSR:
		emit_mov(c, 1, cfg.msr);
		emit_mov(c, 0, WRMSR_LO);
		emit_mov(c, 2, WRMSR_HI);
		break;
	}
}

/* The exiting instruction of kind k (plus per-iteration input for CPUID). */
static void emit_insn(struct code *c, int k)
{
	if (k == K_CPUID) {
		/* CPUID clobbers EAX..EDX, so reload leaf/subleaf each time. */
		EMIT(c, 0x31, 0xc0, 0x31, 0xc9);	/* xor eax,eax; xor ecx,ecx */
	}
	rip[k] = here(c);
	switch (k) {
	case K_PIO:
	case K_SLOW:
		EMIT(c, 0xee);			/* out dx, al */
		break;
	case K_MMIO:
		EMIT(c, 0xa3);			/* mov [moffs32], eax */
		emit32(c, cfg.mmio_gpa);
		break;
	case K_CPUID:
		EMIT(c, 0x0f, 0xa2);
		break;
	case K_RDMSR:
		EMIT(c, 0x0f, 0x32);
		break;
	case K_WRMSR:
		EMIT(c, 0x0f, 0x30);
		break;
	case K_HLT:
		EMIT(c, 0xf4);
		break;
	}
}

/* Points IDT entry 'vec' at 'handler' with a 32-bit interrupt gate. */
static void set_gate(uint8_t *mem, int vec, uint32_t handler)
{
	uint64_t gate = (handler & 0xffff) | 0x08u << 16 | 0x8e00ull << 32 |
			(uint64_t)(handler >> 16) << 48;

	memcpy(mem + IDT_GPA + 8 * vec, &gate, 8);
}

/* Vectors for which the CPU pushes an error code. */
static bool has_error_code(int vec)
{
	return (1u << vec) & 0x60227d00u;	/* 8, 10-14, 17, 21, 29, 30 */
}

/*
 * One stub per exception vector: pad the frame to a common layout with a
 * dummy error code where the CPU pushes none, push the vector, then
 * "mov edx, FAULT_PORT; out dx, al".  The VMM finds vector, error code,
 * EIP, CS and EFLAGS at ESP.  The 32-bit interrupt gates go to IDT_GPA.
 */
static void emit_exception_stubs(struct code *c, uint8_t *mem)
{
	uint32_t common_at[NR_EXCEPTIONS];

	for (int v = 0; v < NR_EXCEPTIONS; v++) {
		set_gate(mem, v, here(c));
		if (!has_error_code(v))
			EMIT(c, 0x6a, 0);		/* push 0 */
		EMIT(c, 0x6a, v);			/* push vector */
		EMIT(c, 0xe9);				/* jmp rel32 common */
		common_at[v] = c->len;
		emit32(c, 0);
	}
	for (int v = 0; v < NR_EXCEPTIONS; v++)
		patch_rel32(c, common_at[v], here(c));
	emit_mov(c, 2, FAULT_PORT);
	EMIT(c, 0xee, 0xf4);		/* out dx, al; hlt (never resumed) */
}

/* "jz rel32" to be resolved by patch_rel32(); returns the rel32 offset. */
static uint32_t emit_jz(struct code *c)
{
	EMIT(c, 0x0f, 0x84);
	c->len += 4;
	if (c->len > CODE_MAX)
		die(EXIT_MISMATCH, "guest program too large");
	return c->len - 4;
}

/*
 * HALT_VECTOR's handler: "push eax; mov al, 0x20; out 0x20, al;
 * inc dword [EOI_COUNT_GPA]; pop eax; iret", a non-specific EOI to the
 * master PIC.  io_kernel counts the runs the guest saw, not the interrupts
 * the VMM raised: should one interrupt ever be delivered twice (the handler
 * would run twice over, harmlessly), its second EOI is a real IOIO exit too.
 */
static void emit_irq_handler(struct code *c, uint8_t *mem)
{
	set_gate(mem, HALT_VECTOR, here(c));
	EMIT(c, 0x50, 0xb0, 0x20);
	rip_eoi = here(c);
	EMIT(c, 0xe6, 0x20, 0xff, 0x05);
	emit32(c, EOI_COUNT_GPA);
	EMIT(c, 0x58, 0xcf);
}

/*
 * Entry point: vCPU 0 under --halt (EDI != 0) sets up the master 8259 in
 * PIC_INIT_OUTS OUTs: edge triggered, cascaded, vectors from
 * PIC_VECTOR_BASE, 8086 mode, all lines but HALT_IRQ masked.
 */
static void emit_entry(struct code *c)
{
	static const uint8_t init[PIC_INIT_OUTS][2] = {
		{ 0x20, 0x11 }, { 0x21, PIC_VECTOR_BASE }, { 0x21, 0x04 },
		{ 0x21, 0x01 }, { 0x21, (uint8_t)~(1u << HALT_IRQ) },
	};
	uint32_t skip_at;

	entry_rip = here(c);
	EMIT(c, 0x85, 0xff);			/* test edi, edi */
	skip_at = emit_jz(c);
	for (int i = 0; i < PIC_INIT_OUTS; i++)	/* mov al, v; out port, al */
		EMIT(c, 0xb0, init[i][1], 0xe6, init[i][0]);
	patch_rel32(c, skip_at, here(c));
}

/*
 * The prologue of each iteration, then a jump to 'start':
 *   mov esi, edi; test esi, esi; jz spin; mov edx, ARM_PORT; mov eax, 'A'
 *   top: out dx, al; sti; hlt; cli; dec esi; jnz top
 *   spin: mov ecx, [SPIN_GPA]; mov ebx, [SPIN_GPA + 4]; mov eax, ecx;
 *         or eax, ebx; jz end; rdtsc; add ecx, eax; adc ebx, edx
 *   wait: rdtsc; sub eax, ecx; sbb edx, ebx; jb wait
 *   end:  jmp start
 * The interrupt that ends the HLT returns to the CLI.  EDI (the halt count)
 * is set per vCPU at reset and never written by the guest.
 */
static void emit_prologue(struct code *c, uint32_t start)
{
	uint32_t skip_at, top;

	EMIT(c, 0x89, 0xfe, 0x85, 0xf6);	/* mov esi, edi; test esi, esi */
	skip_at = emit_jz(c);
	emit_mov(c, 2, ARM_PORT);
	emit_mov(c, 0, ARM_DATA);
	top = here(c);
	rip[K_HALT] = here(c);
	EMIT(c, 0xee, 0xfb);			/* out dx, al; sti */
	rip_halt = here(c);
	EMIT(c, 0xf4, 0xfa);			/* hlt; cli */
	emit_loop_tail(c, top, skip_at);

	EMIT(c, 0x8b, 0x0d);			/* mov ecx, [SPIN_GPA] */
	emit32(c, SPIN_GPA);
	EMIT(c, 0x8b, 0x1d);			/* mov ebx, [SPIN_GPA + 4] */
	emit32(c, SPIN_GPA + 4);
	EMIT(c, 0x89, 0xc8, 0x09, 0xd8);	/* mov eax, ecx; or eax, ebx */
	skip_at = emit_jz(c);
	EMIT(c, 0x0f, 0x31, 0x01, 0xc1, 0x11, 0xd3);
	EMIT(c, 0x0f, 0x31, 0x29, 0xc8, 0x19, 0xda, 0x72, (uint8_t)-8);
	patch_rel32(c, skip_at, here(c));
	EMIT(c, 0xe9);				/* jmp rel32 start */
	emit32(c, start - (here(c) + 4));
}

/*
 * The whole program; every loop counts in ESI, which none of the exiting
 * instructions touches:
 *   start: for each kind: mov esi, N; test esi, esi; jz next; <setup>
 *          top: <insn>; dec esi; jnz top
 *   next:  ...
 *          mov edx, DONE_PORT; mov eax, 'D'; out dx, al; jmp prologue
 * followed by the exception stubs, the IRQ handler, the entry point and
 * the prologue.
 */
static void emit_program(uint8_t *mem)
{
	struct code c = { .buf = mem + CODE_GPA };
	uint32_t start = here(&c), top, skip_at, loop_at;

	for (int k = 0; k < NR_KINDS; k++) {
		if (k == K_HALT)		/* in the prologue */
			continue;
		skip_at = emit_loop_head(&c, cfg.count[k]);
		emit_setup(&c, k);
		top = here(&c);
		emit_insn(&c, k);
		emit_loop_tail(&c, top, skip_at);
	}
	emit_mov(&c, 2, DONE_PORT);
	emit_mov(&c, 0, DONE_DATA);
	rip[K_DONE] = here(&c);
	EMIT(&c, 0xee, 0xe9);			/* out dx, al; jmp rel32 prologue */
	loop_at = c.len;
	emit32(&c, 0);
	emit_exception_stubs(&c, mem);
	emit_irq_handler(&c, mem);
	emit_entry(&c);
	patch_rel32(&c, loop_at, here(&c));
	emit_prologue(&c, start);
}

/* ------------------------------------------------------------- VM setup */

static void check_cap(int cap, const char *name)
{
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, cap) <= 0)
		die(EXIT_SKIP, "KVM lacks %s", name);
}

void open_kvm(void)
{
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die(EXIT_SKIP, "cannot open /dev/kvm: %s", strerror(errno));
	if (ioctl(kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		die(EXIT_SKIP, "unexpected KVM API version");
	check_cap(KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY");
	check_cap(KVM_CAP_BINARY_STATS_FD, "KVM_CAP_BINARY_STATS_FD");
	if (cfg.count[K_RDMSR] || cfg.count[K_WRMSR]) {
		check_cap(KVM_CAP_X86_USER_SPACE_MSR, "KVM_CAP_X86_USER_SPACE_MSR");
		check_cap(KVM_CAP_X86_MSR_FILTER, "KVM_CAP_X86_MSR_FILTER");
	}
	if (cfg.halt_usec)
		check_cap(KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP");
	if (cfg.spin_ms)
		check_cap(KVM_CAP_GET_TSC_KHZ, "KVM_CAP_GET_TSC_KHZ");
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS) < (int)cfg.vcpus)
		die(EXIT_SKIP, "KVM supports fewer than %" PRIu64 " vCPUs", cfg.vcpus);
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if ((long)run_size < (long)sizeof(struct kvm_run))
		die(EXIT_MISMATCH, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
}

/*
 * Denies exactly one MSR for reads and writes and asks KVM to report
 * filter denials to userspace, so each access becomes one
 * KVM_EXIT_X86_RDMSR/WRMSR.  All other MSRs stay allowed.
 */
static void setup_msr_filter(void)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	/* KVM copies whole longs of bitmap, even for a single MSR. */
	static uint64_t deny_bitmap;
	struct kvm_msr_filter filter = {
		.flags = KVM_MSR_FILTER_DEFAULT_ALLOW,
		.ranges[0] = {
			.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
			.nmsrs = 1,
			.base = cfg.msr,
			.bitmap = (uint8_t *)&deny_bitmap,
		},
	};

	if (ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0)
		die(EXIT_SKIP, "KVM_CAP_X86_USER_SPACE_MSR: %s", strerror(errno));
	if (ioctl(vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0)
		die(EXIT_MISMATCH, "KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
}

/* Flat 4 GiB ring-0 code (0x08) and data (0x10) descriptors. */
static void write_gdt(uint8_t *mem)
{
	static const uint64_t gdt[3] = {
		0, 0x00cf9b000000ffffull, 0x00cf93000000ffffull,
	};

	memcpy(mem + GDT_GPA, gdt, sizeof(gdt));
}

void create_vm(void)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = MEM_SIZE,
	};
	uint8_t *mem;

	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_VM: %s", strerror(errno));
	/* Only --halt: it changes how HLT ends, and adds LAPIC state. */
	if (cfg.halt_usec && ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		die(EXIT_MISMATCH, "mmap guest memory: %s", strerror(errno));
	write_gdt(mem);
	emit_program(mem);
	guest_mem = mem;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die(EXIT_MISMATCH, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	if (cfg.count[K_RDMSR] || cfg.count[K_WRMSR])
		setup_msr_filter();
}

static void flat_segment(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	*s = (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
		.present = 1, .dpl = 0, .db = 1, .s = 1, .l = 0, .g = 1,
	};
}

/*
 * 32-bit flat protected mode, paging off, interrupts off, RIP at the entry
 * point, EDI = this vCPU's --halt count.
 */
static void init_vcpu_state(struct vcpu *v)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = {
		.rip = entry_rip,
		.rdi = v->halts,
		.rflags = 0x2,
		.rsp = MEM_SIZE,
	};

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die(EXIT_MISMATCH, "KVM_GET_SREGS: %s", strerror(errno));
	flat_segment(&sregs.cs, 0x08, 0xb);
	flat_segment(&sregs.ds, 0x10, 0x3);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.gdt.base = GDT_GPA;
	sregs.gdt.limit = 3 * 8 - 1;
	sregs.idt.base = IDT_GPA;
	sregs.idt.limit = (cfg.halt_usec ? HALT_VECTOR + 1 : NR_EXCEPTIONS) * 8 - 1;
	sregs.cr0 = 0x11;		/* PE | ET */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_MISMATCH, "KVM_SET_SREGS: %s", strerror(errno));
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_MISMATCH, "KVM_SET_REGS: %s", strerror(errno));
}

/*
 * With an in-kernel irqchip only the BSP starts runnable; the others wait
 * for INIT/SIPI, which this guest never sends, so start them directly.
 * The PIC interrupt reaches vCPU 0 only through its LVT0, which KVM resets
 * to ExtINT, unmasked (KVM_X86_QUIRK_LINT0_REENABLED): check that.
 */
static void init_vcpu_irqchip(struct vcpu *v)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_lapic_state lapic;
	uint32_t lvt0;

	if (v->id != 0) {
		if (ioctl(v->fd, KVM_SET_MP_STATE, &mp) < 0)
			die(EXIT_MISMATCH, "vcpu %d: KVM_SET_MP_STATE: %s", v->id,
			    strerror(errno));
		return;
	}
	if (ioctl(v->fd, KVM_GET_LAPIC, &lapic) < 0)
		die(EXIT_MISMATCH, "KVM_GET_LAPIC: %s", strerror(errno));
	memcpy(&lvt0, lapic.regs + 0x350, 4);
	if ((lvt0 & 0x10700) != 0x700)		/* masked bit, delivery mode */
		die(EXIT_SKIP, "vcpu 0: LVT0 0x%x is not unmasked ExtINT, PIC "
		    "interrupts cannot reach it", lvt0);
}

/* --spin: the guest's TSC ticks per spin, for the prologue to read. */
static void set_spin_ticks(struct vcpu *v)
{
	int khz = ioctl(v->fd, KVM_GET_TSC_KHZ, 0);
	uint64_t ticks;

	if (khz <= 0)
		die(EXIT_SKIP, "KVM_GET_TSC_KHZ: %s", khz ? strerror(errno) :
		    "guest TSC frequency unknown");
	spin_tsc_khz = khz;
	ticks = cfg.spin_ms * khz;
	memcpy(guest_mem + SPIN_GPA, &ticks, 8);
}

/* ---------------------------------------------------------------- stats */

/* Maps the stat names we want to file offsets of their values. */
static void stats_open(struct vcpu *v)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t dsize;
	char *descs;

	v->stats_fd = ioctl(v->fd, KVM_GET_STATS_FD, NULL);
	if (v->stats_fd < 0)
		die(EXIT_SKIP, "KVM_GET_STATS_FD: %s", strerror(errno));
	if (pread(v->stats_fd, &h, sizeof(h), 0) != sizeof(h))
		die(EXIT_MISMATCH, "reading stats header: %s", strerror(errno));
	dsize = sizeof(*d) + h.name_size;
	descs = calloc(h.num_desc, dsize);
	if (!descs)
		die(EXIT_MISMATCH, "out of memory");
	if (pread(v->stats_fd, descs, h.num_desc * dsize, h.desc_offset) !=
	    (ssize_t)(h.num_desc * dsize))
		die(EXIT_MISMATCH, "reading stats descriptors: %s", strerror(errno));
	for (int s = 0; s < NR_STATS; s++) {
		uint32_t type = s == ST_BLOCKING ? KVM_STATS_TYPE_INSTANT :
				KVM_STATS_TYPE_CUMULATIVE;

		v->stat_off[s] = -1;
		for (uint32_t i = 0; i < h.num_desc; i++) {
			d = (struct kvm_stats_desc *)(descs + i * dsize);
			if ((d->flags & KVM_STATS_TYPE_MASK) != type ||
			    strncmp(d->name, stat_name[s], h.name_size))
				continue;
			v->stat_off[s] = h.data_offset + d->offset;
			break;
		}
		if (s < NR_CHECKED_STATS && v->stat_off[s] < 0)
			die(EXIT_SKIP, "KVM has no '%s' vCPU statistic", stat_name[s]);
	}
	/* The --halt timer needs it to tell a halt that began too late. */
	if (cfg.halt_usec && v->stat_off[ST_BLOCKING] < 0)
		die(EXIT_SKIP, "KVM has no 'blocking' vCPU statistic");
	free(descs);
}

static uint64_t stat_read(const struct vcpu *v, int s)
{
	uint64_t val = 0;

	if (v->stat_off[s] >= 0 &&
	    pread(v->stats_fd, &val, 8, v->stat_off[s]) != 8)
		die(EXIT_MISMATCH, "reading stat %s: %s", stat_name[s],
		    strerror(errno));
	return val;
}

void stats_read(struct vcpu *v, uint64_t *val)
{
	for (int s = 0; s < NR_STATS; s++)
		val[s] = stat_read(v, s);
}

uint64_t stat_delta(const struct vcpu *v, int s)
{
	return v->after[s] - v->before[s];
}

/* ---------------------------------------------------------------- exits */

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
		v->iters, rip[K_PIO], rip[K_MMIO], rip[K_CPUID], rip[K_RDMSR],
		rip[K_WRMSR], rip[K_HLT], rip[K_SLOW], rip[K_DONE], entry_rip,
		rip[K_HALT], rip_halt, rip_eoi);
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

/* Exits of kind k per iteration on this vCPU: only vCPU 0 halts. */
uint64_t vcpu_count(const struct vcpu *v, int k)
{
	return k == K_HALT ? v->halts : cfg.count[k];
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

/* Checks one userspace exit against the program; returns its kind. */
int classify_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;
	int want = expected_kind(v);
	bool ok = false;

	if (run->exit_reason == KVM_EXIT_IO && run->io.port == FAULT_PORT)
		guest_exception(v);

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
	case K_DONE:
		ok = run->exit_reason == KVM_EXIT_IO &&
		     pio_ok(run, DONE_PORT, DONE_DATA);
		break;
	case K_MMIO:
		ok = run->exit_reason == KVM_EXIT_MMIO && run->mmio.is_write &&
		     run->mmio.phys_addr == cfg.mmio_gpa && run->mmio.len == 4 &&
		     !memcmp(run->mmio.data, &(uint32_t){ MMIO_DATA }, 4);
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

void sleep_usec(uint32_t usec)
{
	struct timespec ts = {
		.tv_sec = usec / 1000000,
		.tv_nsec = (usec % 1000000) * 1000L,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * 1000000000ull + ts->tv_nsec;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

/*
 * At vCPU 0's ARM_PORT exit: waits until the previous interrupt's line is
 * low again (so that its KVM_IRQ_LINE cannot kick the coming halt), then
 * sets the deadline.  The guest executes "sti; hlt" once this returns.
 */
static void halt_timer_arm(void)
{
	uint64_t due;

	while (sem_wait(&halt_timer.idle) && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &halt_timer.armed_at);
	due = ts_ns(&halt_timer.armed_at) + cfg.halt_usec * 1000;
	halt_timer.due.tv_sec = due / 1000000000;
	halt_timer.due.tv_nsec = due % 1000000000;
	sem_post(&halt_timer.armed);
}

static void irq_line(int level)
{
	struct kvm_irq_level irq = { .irq = HALT_IRQ, .level = level };

	if (ioctl(vm_fd, KVM_IRQ_LINE, &irq) < 0)
		die(EXIT_MISMATCH, "KVM_IRQ_LINE %d: %s", level, strerror(errno));
}

static void wait_blocking(void)
{
	for (uint32_t waited = 0; !stat_read(&vcpus[0], ST_BLOCKING); waited += 50) {
		if (waited > 10000000)
			die(EXIT_MISMATCH, "vcpu 0 did not block in HLT within "
			    "10 s of its --halt deadline");
		sleep_usec(50);
	}
}

/*
 * Raises an edge on HALT_IRQ at each deadline, once KVM's 'blocking' stat
 * says that vCPU 0 sleeps in kvm_vcpu_block().  Were the interrupt pending
 * before that, HLT would still count as a halt exit but not block, or end
 * a halt-poll.  Under a loaded host the vCPU thread sometimes needs more
 * than USEC from the ARM_PORT exit to HLT: the interrupt then waits for
 * the block, that halt is shorter than USEC, and it counts as 'late'.
 */
static void *halt_timer_thread(void *arg)
{
	struct timespec now;

	(void)arg;
	for (;;) {
		while (sem_wait(&halt_timer.armed) && errno == EINTR)
			;
		if (halt_timer.quit)
			return NULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				       &halt_timer.due, NULL) == EINTR)
			;
		if (!stat_read(&vcpus[0], ST_BLOCKING)) {
			halt_timer.late++;
			wait_blocking();
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		halt_timer.armed_ns += ts_ns(&now) - ts_ns(&halt_timer.armed_at);
		irq_line(1);
		irq_line(0);
		sem_post(&halt_timer.idle);
	}
}

/* A fresh timer for the round's VM. */
void halt_timer_start(void)
{
	int err;

	memset(&halt_timer, 0, sizeof(halt_timer));
	sem_init(&halt_timer.armed, 0, 0);
	sem_init(&halt_timer.idle, 0, 1);
	err = pthread_create(&halt_timer.thread, NULL, halt_timer_thread, NULL);
	if (err)
		die(EXIT_MISMATCH, "pthread_create: %s", strerror(err));
}

/*
 * Once the vCPU threads are gone: waits for the last interrupt's
 * bookkeeping, then ends the thread, which uses the VM fd.
 */
void halt_timer_stop(void)
{
	while (sem_wait(&halt_timer.idle) && errno == EINTR)
		;
	halt_timer.quit = true;
	sem_post(&halt_timer.armed);
	pthread_join(halt_timer.thread, NULL);
	sem_destroy(&halt_timer.armed);
	sem_destroy(&halt_timer.idle);
}

/* What the VMM does for an exit of kind k before the next KVM_RUN. */
void handle_exit(struct vcpu *v, int kind)
{
	switch (kind) {
	case K_RDMSR:
		v->run->msr.data = RDMSR_VALUE;
		v->run->msr.error = 0;
		break;
	case K_WRMSR:
		v->run->msr.error = 0;
		break;
	case K_SLOW:
		sleep_usec(cfg.slow_usec);
		break;
	case K_HALT:
		halt_timer_arm();
		break;
	}
}

void create_vcpu(struct vcpu *v, int id)
{
	v->id = id;
	v->fd = ioctl(vm_fd, KVM_CREATE_VCPU, id);
	if (v->fd < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_VCPU %d: %s", id, strerror(errno));
	v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die(EXIT_MISMATCH, "mmap kvm_run: %s", strerror(errno));
	if (cfg.halt_usec && id == 0)
		v->halts = cfg.count[K_HALT];
	init_vcpu_state(v);
	if (cfg.halt_usec)
		init_vcpu_irqchip(v);
	if (cfg.spin_ms && id == 0)
		set_spin_ticks(v);
	stats_open(v);
}

/*
 * Drops every reference to the VM that the vCPUs and the VM fd hold: the
 * kvm_run mappings, the stats fds and fds of the vCPUs, then the VM fd
 * (rounds.c closes the spare vCPUs first), and unmaps guest memory.  KVM
 * destroys the VM and every vCPU in it in the last of these close()s,
 * before it returns to us (rounds.c checks that).
 */
void destroy_vm(void)
{
	for (unsigned int i = 0; i < cfg.vcpus; i++) {
		struct vcpu *v = &vcpus[i];

		if (close(v->stats_fd) || munmap(v->run, run_size) || close(v->fd))
			die(EXIT_MISMATCH, "vcpu %d: closing: %s", v->id,
			    strerror(errno));
	}
	if (close(vm_fd) || munmap(guest_mem, MEM_SIZE))
		die(EXIT_MISMATCH, "closing the VM: %s", strerror(errno));
	vm_fd = -1;
	guest_mem = NULL;
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

/* Runs of the --halt interrupt handler, as counted by the guest. */
uint64_t eoi_count(void)
{
	uint32_t n;

	memcpy(&n, guest_mem + EOI_COUNT_GPA, 4);
	return n;
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
	errors += check_stat(v, ST_IO, (c[K_PIO] + c[K_SLOW] + 1) * n + h + eoi + init,
			     true);
	errors += check_stat(v, ST_MMIO, c[K_MMIO] * n, true);
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

int main(int argc, char **argv)
{
	parse_args(argc, argv);
	open_kvm();
	if (cfg.hold)
		hold();
	run_rounds();
	return 0;
}
