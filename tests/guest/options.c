// SPDX-License-Identifier: GPL-2.0
/*
 * hvguest's options: the usage text, parsing into cfg, and the checks
 * that reject combinations which would make exits ambiguous or impossible.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hvguest.h"

#define MIN_HALT_USEC	1000	/* arm exit to HLT: 0.2-0.5 ms under TCG */
#define DEFAULT_IPI_USEC 200	/* --ipi: from one IPI handled to the next */
#define DEFAULT_TIMER_USEC 2000	/* --timer: from each arm to its deadline (hvguest.c) */

/*
 * Default MSR: "HVG\0".  It lies outside every range covered by the VMX and
 * SVM MSR bitmaps, so hardware always intercepts it, and no KVM version
 * implements it, so a filter that failed to apply shows up as #GP (and thus
 * a triple fault) instead of silently being handled in the kernel.
 */
#define DEFAULT_MSR	0x48564700u

struct config cfg = {
	.pio_port = 0x80,
	.slow_port = 0x81,
	.mmio_gpa = 0xd0000000u,
	.mmio_read_gpa = 0xd0001000u,	/* --mmio's region, another page */
	.ipi_usec = DEFAULT_IPI_USEC,
	.timer_usec = DEFAULT_TIMER_USEC,
};

const char prog_name[] = "hvguest";
const char usage_line[] =
	"usage: hvguest [--vcpus N] [--cpu LIST] [--seconds S | --forever] "
	"[--pio N[:PORT]] [--mmio N[:GPA]] [--cpuid N[:LEAF]] [--rdmsr N[:MSR]] "
	"[--wrmsr N[:MSR]] [--hlt N] [--slow N:USEC[:PORT]] "
	"[--mmio-read N[:GPA]] [--lapic N] [--touch N] [--halt N:USEC] "
	"[--spin MS] [--ipi N[:USEC]] [--ipi-via icr|msi] [--ipi-log FILE] "
	"[--timer N[:USEC]] [--timer-log FILE] [--hold] [--rounds N] "
	"[--spare-vcpus K] [--shrink] [--hop] "
	"[--vmm-work USEC[:spin]] [--tsc-step TICKS] [--name NAME] [--uuid UUID]\n";

static void __noreturn usage(void)
{
	fputs(usage_line, stdout);
	printf("\n"
	       "Runs a KVM guest that causes exactly the requested exits.  Per vCPU\n"
	       "and program iteration, in this order:\n"
	       "  --pio N[:PORT]         N 'out dx,al' to PORT (default 0x80)\n"
	       "  --mmio N[:GPA]         N 32-bit writes to unbacked GPA (default 0xd0000000)\n"
	       "  --cpuid N[:LEAF]       N CPUID of LEAF (default 0; handled inside KVM);\n"
	       "                         LEAF 0x48565400: guest marks, as hvmark's\n"
	       "  --rdmsr N[:MSR]        N RDMSR, sent to userspace by an MSR filter\n"
	       "  --wrmsr N[:MSR]        N WRMSR (one MSR for both; default 0x%x)\n"
	       "  --hlt N                N HLT (no in-kernel irqchip: KVM_EXIT_HLT)\n"
	       "  --slow N:USEC[:PORT]   N 'out' to PORT (default 0x81), VMM sleeps USEC\n"
	       "  --mmio-read N[:GPA]    N 32-bit reads of unbacked GPA (default 0xd0001000);\n"
	       "                         the VMM answers 0x%x, which the guest checks\n"
	       "  --lapic N              N 32-bit reads of the local APIC's version register\n"
	       "                         (GPA 0x%x; handled inside KVM); uses KVM's\n"
	       "                         in-kernel irqchip, so excludes --hlt\n"
	       "  --touch N              one byte written to each of N (<= %d) 4 KiB pages\n"
	       "                         of a second memslot, each vCPU its own, from GPA\n"
	       "                         0x%x + vCPU * N * 4 KiB; the VMM drops them\n"
	       "                         after each iteration: N RAM faults, in KVM\n"
	       "then one 'out' to port 0x%x ends the iteration (0x%x reports faults).\n"
	       "Before all of these, each iteration starts with:\n"
	       "  --halt N:USEC          vCPU 0 only: N times 'out' to port 0x%x, then\n"
	       "                         'sti; hlt' until the VMM raises IRQ %d USEC\n"
	       "                         (>= %d) after the vCPU blocked; uses KVM's\n"
	       "                         in-kernel irqchip, so excludes --hlt; the PIC\n"
	       "                         setup and each EOI are IN/OUT exits handled in\n"
	       "                         the kernel (io_kernel)\n"
	       "  --spin MS              every vCPU: one 'out' to port 0x%x, then a busy\n"
	       "                         loop on RDTSC for MS ms of wall-clock time (no\n"
	       "                         exits of its own)\n"
	       "and first of all:\n"
	       "  --ipi N[:USEC]         vCPU 0 sends vCPU 1 N (1..%d) fixed IPIs, vector\n"
	       "                         0x%x, through the local APIC's ICR, each once the\n"
	       "                         last was handled and USEC (default %d) passed;\n"
	       "                         vCPU 1 takes them busy-looping with interrupts\n"
	       "                         on (no HLT); both log the TSC, the VMM checks\n"
	       "                         and measures after each iteration (ipi_*=); no\n"
	       "                         exits to userspace.  Needs 2 vCPUs (the default\n"
	       "                         with it); KVM's in-kernel irqchip, so no --hlt\n"
	       "  --ipi-via icr|msi      --ipi: who raises them: vCPU 0 through its ICR\n"
	       "                         (icr, the default), or the VMM (msi): vCPU 0\n"
	       "                         makes an 'out' to port 0x%x instead, at which\n"
	       "                         the VMM, in vCPU 0's thread out of KVM_RUN,\n"
	       "                         sends the vector to APIC ID 1 as an MSI\n"
	       "                         (KVM_SIGNAL_MSI); ipi_msi= counts them\n"
	       "  --ipi-log FILE         --ipi: one line per IPI to FILE, a new file:\n"
	       "                         ITERATION INDEX SEND_TSC HANDLER_TSC LATE_NS\n"
	       "                         (the run's iteration and the IPI in it from 0,\n"
	       "                         vCPU 0's TSC before the ICR write, vCPU 1's in\n"
	       "                         the handler, their difference in ns)\n"
	       "  --timer N[:USEC]       (instead of --ipi) vCPU 0 takes N (1..%d)\n"
	       "                         interrupts of its local APIC timer, vector\n"
	       "                         0x%x: one-shot, each started once the last\n"
	       "                         was handled, to fire USEC (1..%d, default\n"
	       "                         %d) later; it busy-loops with interrupts on\n"
	       "                         (no HLT); the VMM checks and measures after\n"
	       "                         each iteration (timer_*=); no exits to\n"
	       "                         userspace.  KVM's in-kernel irqchip, so no\n"
	       "                         --hlt\n"
	       "  --timer-log FILE       --timer: one line per interrupt to FILE, a new\n"
	       "                         file: ITERATION INDEX ARM_TSC HANDLER_TSC\n"
	       "                         LATE_NS (the TSC before the write that\n"
	       "                         started the timer, the TSC in the handler,\n"
	       "                         their difference in ns less USEC, signed)\n"
	       "  --vcpus N              vCPUs (1..%d, default 1, 2 with --ipi), one\n"
	       "                         thread each\n"
	       "  --cpu LIST             pin vCPU i to the i-th CPU of comma LIST (cycling),\n"
	       "                         its --hop thread to the (N+i)-th\n"
	       "  --seconds S            repeat the program until S seconds have passed\n"
	       "  --forever              repeat the program until SIGINT/SIGTERM\n"
	       "  --hold                 create the VM and vCPUs, run nothing, wait for\n"
	       "                         SIGINT/SIGTERM (keeps KVM's static keys steady;\n"
	       "                         with --halt, --lapic, --ipi or --timer,\n"
	       "                         those of in-kernel LAPICs too)\n"
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
	       "  --tsc-step TICKS       after each iteration the VMM moves the vCPU's\n"
	       "                         TSC offset on by TICKS (KVM_VCPU_TSC_OFFSET, as\n"
	       "                         a VMM restoring a guest does)\n"
	       "  --name NAME, --uuid UUID  taken and ignored: as QEMU's, they name\n"
	       "                         the VM on this process's command line, where\n"
	       "                         hvctl looks\n"
	       "Prints 'HVGUEST-START ... tids=T0,T1,..' (Ti: vCPU i's thread) once the\n"
	       "threads exist, with --rounds 'HVGUEST round=I ...' after each round,\n"
	       "and 'HVGUEST ...' on success.\n"
	       "Runs guests only inside the test VM (HVT_IN_TEST_VM, set there by\n"
	       "tests/vm/guest-setup) or with HVT_I_OWN_THIS_HOST=yes, never on a\n"
	       "development machine's own /dev/kvm.\n"
	       "Exit: 0 ok, 1 mismatch/failure, 2 bad arguments or not in the\n"
	       "test VM, 4 no KVM.\n",
	       DEFAULT_MSR, MMIO_READ_DATA, LAPIC_VERSION_GPA, TOUCH_MAX, TOUCH_GPA,
	       DONE_PORT, FAULT_PORT, ARM_PORT, HALT_IRQ, MIN_HALT_USEC, SPIN_PORT,
	       IPI_MAX, IPI_VECTOR, DEFAULT_IPI_USEC, MSI_PORT, TIMER_MAX,
	       TIMER_VECTOR, TIMER_USEC_MAX, DEFAULT_TIMER_USEC, MAX_VCPUS,
	       MAX_SPARES);
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
static const char *ipi_via_arg;				/* --ipi-via */

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
	{ "cpuid", 2, 1, { F_COUNT(K_CPUID), { "LEAF", 0, UINT32_MAX, &cfg.cpuid_leaf } } },
	{ "rdmsr", 2, 1, { F_COUNT(K_RDMSR), F_MSR(&msr_arg[0]) } },
	{ "wrmsr", 2, 1, { F_COUNT(K_WRMSR), F_MSR(&msr_arg[1]) } },
	{ "hlt",   1, 1, { F_COUNT(K_HLT) } },
	{ "slow",  3, 2, { F_COUNT(K_SLOW), { "USEC", 1, 10000000, &cfg.slow_usec },
			   F_PORT(&cfg.slow_port) } },
	{ "mmio-read", 2, 1, { F_COUNT(K_MMIO_READ),
			       { "GPA", 0, 0xfffffffc, &cfg.mmio_read_gpa } } },
	{ "lapic", 1, 1, { F_COUNT(K_LAPIC) } },
	{ "touch", 1, 1, { { "count", 0, TOUCH_MAX, &cfg.count[K_TOUCH] } } },
	{ "halt",  2, 2, { { "count", 1, UINT32_MAX, &cfg.count[K_HALT] },
			   { "USEC", MIN_HALT_USEC, 10000000, &cfg.halt_usec } } },
	{ "spin",  1, 1, { { "MS", 1, 3600000, &cfg.spin_ms } } },
	{ "ipi",   2, 1, { { "count", 1, IPI_MAX, &cfg.ipi_count },
			   { "USEC", 0, 10000000, &cfg.ipi_usec } } },
	{ "timer", 2, 1, { { "count", 1, TIMER_MAX, &cfg.timer_count },
			   { "USEC", 1, TIMER_USEC_MAX, &cfg.timer_usec } } },
	{ "vcpus", 1, 1, { { "count", 1, MAX_VCPUS, &cfg.vcpus } } },
	{ "rounds", 1, 1, { { "count", 1, 1000000, &cfg.rounds } } },
	{ "spare-vcpus", 1, 1, { { "count", 1, MAX_SPARES, &cfg.spares } } },
	{ "tsc-step", 1, 1, { { "TICKS", 1, UINT32_MAX * 1000ull, &cfg.tsc_step } } },
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

/* "icr" or "msi" */
static void parse_ipi_via(const char *s)
{
	if (strcmp(s, "icr") && strcmp(s, "msi"))
		usage_error("--ipi-via: '%s' is neither 'icr' nor 'msi'", s);
	ipi_via_arg = s;
	cfg.ipi_via_msi = !strcmp(s, "msi");
}

/* I/O ports the in-kernel irqchip handles: both 8259s and their ELCRs. */
static bool kernel_port(uint64_t port)
{
	return (port & ~1ull) == 0x20 || (port & ~1ull) == 0xa0 ||
	       (port & ~1ull) == 0x4d0;
}

/* The I/O APIC's and the local APIC's pages: an in-kernel irqchip's MMIO. */
static bool kernel_mmio(uint64_t gpa)
{
	uint64_t page = gpa & ~0xfffull;

	return page == 0xfec00000 || page == 0xfee00000;
}

/*
 * What the in-kernel irqchip of --halt (or else --lapic, --ipi: named
 * 'opt') would take over or never finish.
 */
static void check_irqchip_config(const char *opt)
{
	bool halt = cfg.halt_usec;

	if (cfg.count[K_HLT])
		usage_error("--hlt and %s are exclusive: with %s's in-kernel "
			    "irqchip a HLT with interrupts off never ends", opt, opt);
	if ((halt && cfg.pio_port == ARM_PORT) || kernel_port(cfg.pio_port))
		usage_error("--pio: port 0x%" PRIx64 " is taken by %s", cfg.pio_port,
			    opt);
	if ((halt && cfg.slow_port == ARM_PORT) || kernel_port(cfg.slow_port))
		usage_error("--slow: port 0x%" PRIx64 " is taken by %s",
			    cfg.slow_port, opt);
	if (kernel_mmio(cfg.mmio_gpa))
		usage_error("--mmio: GPA 0x%" PRIx64 " is the I/O APIC or local APIC "
			    "page, which %s's irqchip handles in KVM", cfg.mmio_gpa,
			    opt);
	if (cfg.count[K_MMIO_READ] && kernel_mmio(cfg.mmio_read_gpa))
		usage_error("--mmio-read: GPA 0x%" PRIx64 " is the I/O APIC or local "
			    "APIC page, which %s's irqchip handles in KVM",
			    cfg.mmio_read_gpa, opt);
}

/* An MMIO GPA must be unbacked: outside both memslots, 4-byte aligned. */
static void check_mmio_gpa(const char *opt, uint64_t gpa)
{
	uint64_t touch_end = TOUCH_GPA + cfg.vcpus * cfg.count[K_TOUCH] * TOUCH_STRIDE;

	if (gpa < MEM_SIZE)
		usage_error("%s: GPA 0x%" PRIx64 " is inside the memslot", opt, gpa);
	if (gpa >= TOUCH_GPA && gpa < touch_end)
		usage_error("%s: GPA 0x%" PRIx64 " is inside --touch's memslot", opt,
			    gpa);
	/* A misaligned access could span two pages and exit twice. */
	if (gpa & 3)
		usage_error("%s: GPA 0x%" PRIx64 " is not 4-byte aligned", opt, gpa);
}

/* --ipi: vCPU 0 sends, vCPU 1 takes; any other vCPU would idle in it. */
static void check_ipi_config(void)
{
	if (!cfg.ipi_count) {
		if (cfg.ipi_log)
			usage_error("--ipi-log logs --ipi's IPIs: no --ipi");
		if (ipi_via_arg)
			usage_error("--ipi-via says who raises --ipi's IPIs: "
				    "no --ipi");
		return;
	}
	if (cfg.vcpus && cfg.vcpus != 2)
		usage_error("--ipi needs exactly 2 vCPUs (vCPU 0 sends, vCPU 1 "
			    "takes the IPIs), not --vcpus %" PRIu64, cfg.vcpus);
	cfg.vcpus = 2;
	if (cfg.hold && cfg.ipi_log)
		usage_error("--hold runs nothing: it takes no --ipi-log");
}

/* --timer: vCPU 0's own timer; one interrupt test at a time. */
static void check_timer_config(void)
{
	if (!cfg.timer_count) {
		if (cfg.timer_log)
			usage_error("--timer-log logs --timer's interrupts: no "
				    "--timer");
		return;
	}
	if (cfg.ipi_count)
		usage_error("--timer and --ipi are exclusive: one interrupt test "
			    "at a time");
	if (cfg.hold && cfg.timer_log)
		usage_error("--hold runs nothing: it takes no --timer-log");
}

/* The program's own ports, whatever the options (not --halt's ARM_PORT). */
static bool reserved_port(uint64_t port)
{
	return port == DONE_PORT || port == FAULT_PORT || port == SPIN_PORT ||
	       port == BAD_READ_PORT || port == MSI_PORT;
}

/* Rejects combinations that would make exits ambiguous or impossible. */
static void check_config(void)
{
	check_ipi_config();
	check_timer_config();
	if (!cfg.vcpus)
		cfg.vcpus = 1;
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
	if (reserved_port(cfg.pio_port))
		usage_error("--pio: port 0x%" PRIx64 " is reserved", cfg.pio_port);
	if (reserved_port(cfg.slow_port))
		usage_error("--slow: port 0x%" PRIx64 " is reserved", cfg.slow_port);
	if (cfg.pio_port == cfg.slow_port)
		usage_error("--pio and --slow must use different ports");
	/* --lapic, --ipi, --timer use the in-kernel irqchip's local APICs */
	cfg.irqchip = cfg.halt_usec || cfg.count[K_LAPIC] || cfg.ipi_count ||
		      cfg.timer_count;
	if (cfg.irqchip)
		check_irqchip_config(cfg.halt_usec ? "--halt" :
				     cfg.count[K_LAPIC] ? "--lapic" :
				     cfg.ipi_count ? "--ipi" : "--timer");
	check_mmio_gpa("--mmio", cfg.mmio_gpa);
	if (cfg.count[K_MMIO_READ])
		check_mmio_gpa("--mmio-read", cfg.mmio_read_gpa);
	if (msr_arg[0] != NO_MSR && msr_arg[1] != NO_MSR && msr_arg[0] != msr_arg[1])
		usage_error("--rdmsr and --wrmsr must use the same MSR");
	cfg.msr = msr_arg[0] != NO_MSR ? msr_arg[0] :
		  msr_arg[1] != NO_MSR ? msr_arg[1] : DEFAULT_MSR;
	/* KVM never filters x2APIC MSRs, so they cannot be forced out. */
	if (cfg.msr >= 0x800 && cfg.msr <= 0x8ff)
		usage_error("MSR 0x%" PRIx64 " is an x2APIC MSR, KVM cannot filter it",
			    cfg.msr);
}

void parse_args(int argc, char **argv)
{
	static struct option opts[NR_FIELD_OPTS + 14] = {
		[NR_FIELD_OPTS] = { "cpu", required_argument, NULL, 'C' },
		{ "seconds",	required_argument, NULL, 'S' },
		{ "forever",	no_argument,	   NULL, 'F' },
		{ "hold",	no_argument,	   NULL, 'H' },
		{ "shrink",	no_argument,	   NULL, 'K' },
		{ "hop",	no_argument,	   NULL, 'P' },
		{ "vmm-work",	required_argument, NULL, 'W' },
		{ "ipi-log",	required_argument, NULL, 'L' },
		{ "ipi-via",	required_argument, NULL, 'V' },
		{ "timer-log",	required_argument, NULL, 'T' },
		{ "name",	required_argument, NULL, 'N' },
		{ "uuid",	required_argument, NULL, 'U' },
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
		case 'L':
			cfg.ipi_log = optarg;
			break;
		case 'V':
			parse_ipi_via(optarg);
			break;
		case 'T':
			cfg.timer_log = optarg;
			break;
		case 'N':
		case 'U':
			break;	/* for hvctl, in /proc/PID/cmdline */
		case 'h':
			usage();
		default:
			bad_option(c, argv);
		}
	}
	no_operands(argc, argv);
	check_config();
	/* one SPIN_PORT OUT per iteration, before the spin */
	cfg.count[K_SPIN] = cfg.spin_ms ? 1 : 0;
	/* --ipi-via msi: vCPU 0's MSI_PORT OUT per IPI (check.c's vcpu_count()) */
	cfg.count[K_MSI] = cfg.ipi_via_msi ? cfg.ipi_count : 0;
}
