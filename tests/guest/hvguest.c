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
 * The VMM checks every exit that reaches userspace against the exact
 * sequence the program must produce and cross-checks KVM's own per-vCPU
 * binary statistics afterwards.  It is the ground truth for tracer tests,
 * so any deviation is fatal (exit 1).
 *
 * KVM statistics and how exactly they can be checked (KVM 6.1 .. 6.12):
 *   io_exits   - counted by the vendor IO intercept for every IN/OUT, whether
 *                handled in the kernel or not: must equal pio+slow+done.
 *   mmio_exits - counted when emulation has to hand an MMIO access to
 *                userspace: must equal mmio.
 *   halt_exits - counted for every emulated HLT: must equal hlt.
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
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/kvm.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

#define EXIT_MISMATCH	1
#define EXIT_USAGE	2
#define EXIT_SKIP	4

#define MEM_SIZE	(2UL << 20)
#define GDT_GPA		0x800
#define IDT_GPA		0x900
#define CODE_GPA	0x1000
#define CODE_MAX	0x1000
#define DONE_PORT	0x3f0
#define FAULT_PORT	0x3f1	/* exception stubs report here */
#define NR_EXCEPTIONS	32
#define MAX_VCPUS	8

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
#define MMIO_DATA	0x4f494d4du		/* "MMIO" */
#define WRMSR_LO	0x4d535257u		/* "WRSM" */
#define WRMSR_HI	0x48564700u
#define RDMSR_VALUE	0x1122334455667788ull

/* Exit kinds, in program order; K_DONE is the end-of-iteration OUT. */
enum kind {
	K_PIO, K_MMIO, K_CPUID, K_RDMSR, K_WRMSR, K_HLT, K_SLOW,
	NR_KINDS, K_DONE = NR_KINDS,
};

static const char *const kind_name[NR_KINDS + 1] = {
	"pio", "mmio", "cpuid", "rdmsr", "wrmsr", "hlt", "slow", "done",
};

/* CPUID is the only kind handled entirely inside KVM. */
static bool kind_reaches_vmm(int k)
{
	return k != K_CPUID;
}

struct config {
	uint64_t count[NR_KINDS];	/* per vCPU and program iteration */
	uint64_t pio_port, slow_port, slow_usec, mmio_gpa, msr, vcpus;
	int cpus[MAX_VCPUS];
	int ncpus;
	double seconds;
	bool forever;
	bool hold;
};

enum stat_id {
	ST_EXITS, ST_IO, ST_MMIO, ST_HALT,	/* checked, must exist */
	ST_IRQ, ST_SIGNAL, ST_HALT_WAKEUP, ST_INSN_EMUL,
	NR_STATS,
};
#define NR_CHECKED_STATS	(ST_HALT + 1)

static const char *const stat_name[NR_STATS] = {
	"exits", "io_exits", "mmio_exits", "halt_exits",
	"irq_exits", "signal_exits", "halt_wakeup", "insn_emulation",
};

struct vcpu {
	int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	pid_t tid;
	int stats_fd;
	long stat_off[NR_STATS];	/* file offset, -1 if KVM lacks it */
	uint64_t before[NR_STATS];
	uint64_t after[NR_STATS];
	uint64_t seen[NR_KINDS + 1];	/* userspace exits by kind */
	uint64_t iters;
	/* position in the expected exit sequence of the current iteration */
	int pos;
	uint32_t left;
};

static struct config cfg = {
	.pio_port = 0x80,
	.slow_port = 0x81,
	.mmio_gpa = 0xd0000000u,
	.vcpus = 1,
};

static int kvm_fd, vm_fd;
static size_t run_size;
static uint8_t *guest_mem;
static uint32_t rip[NR_KINDS + 1];
static struct vcpu vcpus[MAX_VCPUS];

/* Stop protocol: see finish_iteration(). */
static atomic_int stop_requested;
static pthread_mutex_t target_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t target_iters;
static pthread_barrier_t stop_barrier, ready_barrier, go_barrier;
static pthread_mutex_t diag_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- errors */

static const char usage_line[] =
	"usage: hvguest [--vcpus N] [--cpu LIST] [--seconds S | --forever] "
	"[--pio N[:PORT]] [--mmio N[:GPA]] [--cpuid N] [--rdmsr N[:MSR]] "
	"[--wrmsr N[:MSR]] [--hlt N] [--slow N:USEC[:PORT]]\n";

static void __noreturn __printf(1, 2)
usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hvguest: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fputs(usage_line, stderr);
	exit(EXIT_USAGE);
}

static void __noreturn __printf(2, 3)
die(int code, const char *fmt, ...)
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
	       "  --vcpus N              vCPUs (1..%d, default 1), one thread each\n"
	       "  --cpu LIST             pin vCPU i to the i-th CPU of comma LIST (cycling)\n"
	       "  --seconds S            repeat the program until S seconds have passed\n"
	       "  --forever              repeat the program until SIGINT/SIGTERM\n"
	       "  --hold                 create the VM and vCPUs, run nothing, wait for\n"
	       "                         SIGINT/SIGTERM (keeps KVM's static keys steady)\n"
	       "Prints 'HVGUEST-START ...' once the threads exist and 'HVGUEST ...' on\n"
	       "success.  Exit: 0 ok, 1 mismatch/failure, 2 bad arguments, 4 no KVM.\n",
	       DEFAULT_MSR, DONE_PORT, FAULT_PORT, MAX_VCPUS);
	exit(0);
}

/* ------------------------------------------------------------ arguments */

/*
 * Parses a decimal or 0x-hex number at *sp that ends at '\0', ':' or ',',
 * and advances *sp past it.  Leading zeros do not mean octal: "010" is ten.
 */
static uint64_t parse_num(const char **sp, const char *opt, const char *what,
			  uint64_t min, uint64_t max)
{
	const char *s = *sp;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]) || (hex && !isxdigit((unsigned char)s[2])))
		usage_error("--%s: %s '%s' is not a number", opt, what, s);
	errno = 0;
	v = strtoull(s, &end, hex ? 16 : 10);
	if (errno || (*end && *end != ':' && *end != ','))
		usage_error("--%s: %s '%s' is not a number", opt, what, s);
	if ((v < min || v > max) && hex)
		usage_error("--%s: %s 0x%llx out of range 0x%" PRIx64 "..0x%" PRIx64,
			    opt, what, v, min, max);
	if (v < min || v > max)
		usage_error("--%s: %s %llu out of range %" PRIu64 "..%" PRIu64,
			    opt, what, v, min, max);
	*sp = end;
	return v;
}

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
	{ "vcpus", 1, 1, { { "count", 1, MAX_VCPUS, &cfg.vcpus } } },
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

/* Rejects combinations that would make exits ambiguous or impossible. */
static void check_config(void)
{
	uint64_t gpa = cfg.mmio_gpa;

	if (cfg.seconds > 0 && cfg.forever)
		usage_error("--seconds and --forever are exclusive");
	if (cfg.pio_port == DONE_PORT || cfg.pio_port == FAULT_PORT)
		usage_error("--pio: port 0x%" PRIx64 " is reserved", cfg.pio_port);
	if (cfg.slow_port == DONE_PORT || cfg.slow_port == FAULT_PORT)
		usage_error("--slow: port 0x%" PRIx64 " is reserved", cfg.slow_port);
	if (cfg.pio_port == cfg.slow_port)
		usage_error("--pio and --slow must use different ports");
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
	static struct option opts[NR_FIELD_OPTS + 6] = {
		[NR_FIELD_OPTS] = { "cpu", required_argument, NULL, 'C' },
		{ "seconds",	required_argument, NULL, 'S' },
		{ "forever",	no_argument,	   NULL, 'F' },
		{ "hold",	no_argument,	   NULL, 'H' },
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
	uint32_t common_at[NR_EXCEPTIONS], stub;
	uint64_t gate;

	for (int v = 0; v < NR_EXCEPTIONS; v++) {
		stub = here(c);
		gate = (stub & 0xffff) | 0x08u << 16 | 0x8e00ull << 32 |
		       (uint64_t)(stub >> 16) << 48;
		memcpy(mem + IDT_GPA + 8 * v, &gate, 8);
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

/*
 * The whole program; every loop counts in ESI, which none of the exiting
 * instructions touches:
 *   start: for each kind: mov esi, N; test esi, esi; jz next; <setup>
 *          top: <insn>; dec esi; jnz top
 *   next:  ...
 *          mov edx, DONE_PORT; mov eax, 'D'; out dx, al; jmp start
 */
static void emit_program(uint8_t *mem)
{
	struct code c = { .buf = mem + CODE_GPA };
	uint32_t start = here(&c), top, skip_at;

	for (int k = 0; k < NR_KINDS; k++) {
		skip_at = emit_loop_head(&c, cfg.count[k]);
		emit_setup(&c, k);
		top = here(&c);
		emit_insn(&c, k);
		emit_loop_tail(&c, top, skip_at);
	}
	emit_mov(&c, 2, DONE_PORT);
	emit_mov(&c, 0, DONE_DATA);
	rip[K_DONE] = here(&c);
	EMIT(&c, 0xee, 0xe9);			/* out dx, al; jmp rel32 start */
	emit32(&c, start - (here(&c) + 4));
	emit_exception_stubs(&c, mem);
}

/* ------------------------------------------------------------- VM setup */

static void check_cap(int cap, const char *name)
{
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, cap) <= 0)
		die(EXIT_SKIP, "KVM lacks %s", name);
}

static void open_kvm(void)
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

static void create_vm(void)
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

/* 32-bit flat protected mode, paging off, interrupts off, RIP at start. */
static void init_vcpu_state(struct vcpu *v)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = {
		.rip = CODE_GPA,
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
	sregs.idt.limit = NR_EXCEPTIONS * 8 - 1;
	sregs.cr0 = 0x11;		/* PE | ET */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_MISMATCH, "KVM_SET_SREGS: %s", strerror(errno));
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_MISMATCH, "KVM_SET_REGS: %s", strerror(errno));
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
		v->stat_off[s] = -1;
		for (uint32_t i = 0; i < h.num_desc; i++) {
			d = (struct kvm_stats_desc *)(descs + i * dsize);
			if ((d->flags & KVM_STATS_TYPE_MASK) != KVM_STATS_TYPE_CUMULATIVE ||
			    strncmp(d->name, stat_name[s], h.name_size))
				continue;
			v->stat_off[s] = h.data_offset + d->offset;
			break;
		}
		if (s < NR_CHECKED_STATS && v->stat_off[s] < 0)
			die(EXIT_SKIP, "KVM has no '%s' vCPU statistic", stat_name[s]);
	}
	free(descs);
}

static void stats_read(struct vcpu *v, uint64_t *val)
{
	for (int s = 0; s < NR_STATS; s++) {
		val[s] = 0;
		if (v->stat_off[s] >= 0 &&
		    pread(v->stats_fd, &val[s], 8, v->stat_off[s]) != 8)
			die(EXIT_MISMATCH, "reading stat %s: %s", stat_name[s],
			    strerror(errno));
	}
}

static uint64_t stat_delta(const struct vcpu *v, int s)
{
	return v->after[s] - v->before[s];
}

/* ---------------------------------------------------------- vCPU thread */

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
		"cpuid@0x%x rdmsr@0x%x wrmsr@0x%x hlt@0x%x slow@0x%x done@0x%x\n",
		v->iters, rip[K_PIO], rip[K_MMIO], rip[K_CPUID], rip[K_RDMSR],
		rip[K_WRMSR], rip[K_HLT], rip[K_SLOW], rip[K_DONE]);
}

static void __noreturn __printf(2, 3)
vcpu_fail(const struct vcpu *v, const char *fmt, ...)
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
static void reset_sequence(struct vcpu *v)
{
	v->pos = -1;
	v->left = 0;
}

/* The kind of the next userspace exit the program must produce. */
static int expected_kind(struct vcpu *v)
{
	while (v->left == 0) {
		if (++v->pos >= NR_KINDS)
			return K_DONE;
		if (kind_reaches_vmm(v->pos))
			v->left = cfg.count[v->pos];
	}
	return v->pos;
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
static int classify_exit(struct vcpu *v)
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

static void sleep_usec(uint32_t usec)
{
	struct timespec ts = {
		.tv_sec = usec / 1000000,
		.tv_nsec = (usec % 1000000) * 1000L,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/*
 * Called at the done port; returns true when this vCPU should stop.  Once a
 * stop is requested each vCPU finishes its current iteration and publishes
 * its count; after all have done so (barrier) every vCPU runs on up to the
 * highest count, so all of them complete the same number of iterations.
 */
static bool finish_iteration(struct vcpu *v, bool *target_known)
{
	v->iters++;
	reset_sequence(v);
	if (*target_known)
		return v->iters >= target_iters;
	if (!atomic_load(&stop_requested))
		return false;
	pthread_mutex_lock(&target_lock);
	if (v->iters > target_iters)
		target_iters = v->iters;
	pthread_mutex_unlock(&target_lock);
	pthread_barrier_wait(&stop_barrier);
	*target_known = true;
	return v->iters >= target_iters;
}

static void run_vcpu(struct vcpu *v)
{
	bool target_known = false;
	int kind;

	reset_sequence(v);
	for (;;) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			/* A signal (e.g. SIGSTOP from a test driver); retry. */
			if (errno == EINTR)
				continue;
			vcpu_fail(v, "KVM_RUN: %s", strerror(errno));
		}
		kind = classify_exit(v);
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
		case K_DONE:
			if (finish_iteration(v, &target_known))
				return;
			break;
		}
	}
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;

	v->tid = gettid();
	stats_read(v, v->before);
	pthread_barrier_wait(&ready_barrier);	/* tid is published */
	pthread_barrier_wait(&go_barrier);	/* HVGUEST-START is out */
	run_vcpu(v);
	stats_read(v, v->after);
	return NULL;
}

static void create_vcpu(struct vcpu *v, int id)
{
	v->id = id;
	v->fd = ioctl(vm_fd, KVM_CREATE_VCPU, id);
	if (v->fd < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_VCPU %d: %s", id, strerror(errno));
	v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die(EXIT_MISMATCH, "mmap kvm_run: %s", strerror(errno));
	init_vcpu_state(v);
	stats_open(v);
}

static void start_vcpu(struct vcpu *v)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	pthread_attr_init(&attr);
	if (cfg.ncpus) {
		CPU_ZERO(&set);
		CPU_SET(cfg.cpus[v->id % cfg.ncpus], &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(&v->thread, &attr, vcpu_thread, v);
	if (err == EINVAL && cfg.ncpus)
		usage_error("--cpu: cannot run on CPU %d",
			    cfg.cpus[v->id % cfg.ncpus]);
	if (err)
		die(EXIT_MISMATCH, "pthread_create: %s", strerror(err));
	pthread_attr_destroy(&attr);
}

/* -------------------------------------------------------------- control */

/*
 * With --seconds/--forever, SIGINT and SIGTERM are blocked in every thread
 * (the vCPU threads inherit the mask, so KVM_RUN is never interrupted by
 * them) and collected here instead.
 */
static sigset_t stop_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	return set;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void wait_for_stop(void)
{
	sigset_t set = stop_signals();
	double left, deadline = now() + cfg.seconds;
	struct timespec ts;
	int sig;

	if (cfg.forever) {
		sigwait(&set, &sig);
	} else if (cfg.seconds > 0) {
		while ((left = deadline - now()) > 0) {
			ts.tv_sec = left;
			ts.tv_nsec = (left - ts.tv_sec) * 1e9;
			if (sigtimedwait(&set, NULL, &ts) > 0)
				break;
		}
	}
	atomic_store(&stop_requested, 1);
}

/* "TAG pid=P vcpus=N tids=T0,T1,..." (tids in vCPU order) */
static void print_head(const char *tag)
{
	printf("%s pid=%d vcpus=%" PRIu64 " tids=", tag, getpid(), cfg.vcpus);
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		printf("%s%d", i ? "," : "", vcpus[i].tid);
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
static int check_vcpu(const struct vcpu *v)
{
	const uint64_t *c = cfg.count;
	uint64_t n = v->iters, want, all = 1;	/* 1: the done OUT */
	int errors = 0;

	for (int k = 0; k < NR_KINDS; k++) {
		all += c[k];
		want = kind_reaches_vmm(k) ? c[k] * n : 0;
		if (v->seen[k] != want) {
			fprintf(stderr, "hvguest: vcpu %d: saw %" PRIu64 " %s exits, "
				"expected %" PRIu64 "\n", v->id, v->seen[k],
				kind_name[k], want);
			errors++;
		}
	}
	errors += check_stat(v, ST_IO, (c[K_PIO] + c[K_SLOW] + 1) * n, true);
	errors += check_stat(v, ST_MMIO, c[K_MMIO] * n, true);
	errors += check_stat(v, ST_HALT, c[K_HLT] * n, true);
	errors += check_stat(v, ST_EXITS, all * n, false);
	if (errors) {
		fprintf(stderr, "hvguest: vcpu %d: iterations %" PRIu64 ", kvm deltas:",
			v->id, n);
		for (int s = 0; s < NR_STATS; s++)
			if (v->stat_off[s] >= 0)
				fprintf(stderr, " %s=%" PRIu64, stat_name[s],
					stat_delta(v, s));
		fputc('\n', stderr);
	}
	return errors;
}

static void report(void)
{
	uint64_t n = vcpus[0].iters, total[NR_STATS] = { 0 };
	uint64_t tot = n * cfg.vcpus;

	for (unsigned int i = 0; i < cfg.vcpus; i++)
		for (int s = 0; s < NR_STATS; s++)
			total[s] += stat_delta(&vcpus[i], s);
	print_head("HVGUEST");
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
		printf(" rip_%s=0x%x", kind_name[k], rip[k]);
	for (int s = 0; s < NR_STATS; s++)
		if (vcpus[0].stat_off[s] >= 0)
			printf(" kvm_%s=%" PRIu64, stat_name[s], total[s]);
	printf("\n");
	fflush(stdout);
}

/*
 * --hold: keep the VM and its vCPUs, never run them, until SIGINT/SIGTERM.
 * KVM flips static keys (code patching) when the first VM and the first
 * vCPU without an in-kernel APIC appear and when the last go away; under
 * QEMU's multi-threaded emulation a patch racing with execution can
 * crash the test VM's kernel. One held VM keeps those keys steady.
 */
static void hold(void)
{
	sigset_t set = stop_signals();
	int sig;

	pthread_sigmask(SIG_BLOCK, &set, NULL);
	printf("HVGUEST-HOLD pid=%d\n", getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	exit(0);
}

int main(int argc, char **argv)
{
	sigset_t set = stop_signals();
	int errors = 0;

	parse_args(argc, argv);
	open_kvm();
	create_vm();
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		create_vcpu(&vcpus[i], i);
	if (cfg.hold)
		hold();

	/* Without --seconds/--forever the program runs once. */
	if (cfg.seconds > 0 || cfg.forever)
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	else
		atomic_store(&stop_requested, 1);
	pthread_barrier_init(&ready_barrier, NULL, cfg.vcpus + 1);
	pthread_barrier_init(&go_barrier, NULL, cfg.vcpus + 1);
	pthread_barrier_init(&stop_barrier, NULL, cfg.vcpus);
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		start_vcpu(&vcpus[i]);

	pthread_barrier_wait(&ready_barrier);
	print_head("HVGUEST-START");
	printf("\n");
	fflush(stdout);
	pthread_barrier_wait(&go_barrier);

	wait_for_stop();
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		pthread_join(vcpus[i].thread, NULL);
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		errors += check_vcpu(&vcpus[i]);
	if (errors)
		return EXIT_MISMATCH;
	report();
	return 0;
}
