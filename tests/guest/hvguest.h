/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvguest's parts; hvguest.c's header says what the program does and what
 * it guarantees.
 *   hvguest.c  main(), errors and clocks
 *   options.c  the options (cfg), their parsing and checks
 *   guest.S    the guest program; guest.h, what it and the VMM share
 *   program.c  the program in guest memory: code, GDT, IDT, parameters, RIPs
 *   vm.c       the KVM calls: one VM, its vCPUs, KVM's statistics
 *   halt.c     --halt's timer thread
 *   ipi.c      --ipi's logs: checked and measured after each iteration;
 *              --ipi-via msi's MSIs
 *   timer.c    --timer's logs: the same, for vCPU 0's LAPIC timer
 *   run.c      the threads that run a VM's vCPUs (one each, or --hop's two)
 *   check.c    exits against the expected sequence, KVM's statistics
 *   rounds.c   VMs one after another (--rounds), their teardown, --shrink
 *   report.c   the HVGUEST lines: one round's or all rounds' counts
 */
#ifndef _HVT_HVGUEST_H
#define _HVT_HVGUEST_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <linux/kvm.h>

#include "args.h"
#include "guest.h"

#define EXIT_MISMATCH	1
#define EXIT_SKIP	4

#define MAX_VCPUS	8
#define MAX_SPARES	64	/* --spare-vcpus, per round */
#define MAX_SPARES_TOTAL 4096	/* ... and all rounds together */

/*
 * Exit kinds; K_DONE is the end-of-iteration OUT.  K_HALT is the ARM_PORT
 * OUT of a --halt, K_SPIN the SPIN_PORT OUT before a --spin; they come
 * last so that the older kinds' output stays put, and so do K_MMIO_READ,
 * K_LAPIC (reads KVM emulates itself) and K_TOUCH (RAM faults KVM
 * handles), which run after K_SLOW.  K_MSI, the MSI_PORT OUT of
 * --ipi-via msi, is vCPU 0's and the first of an iteration (its IPI
 * phase comes before all the others).
 */
enum kind {
	K_PIO, K_MMIO, K_CPUID, K_RDMSR, K_WRMSR, K_HLT, K_SLOW, K_HALT,
	K_SPIN, K_MMIO_READ, K_LAPIC, K_TOUCH, K_MSI, NR_KINDS,
	K_DONE = NR_KINDS,
};

extern const char *const kind_name[NR_KINDS + 1];

enum stat_id {
	ST_EXITS, ST_IO, ST_MMIO, ST_HALT,	/* checked, must exist */
	ST_IRQ, ST_SIGNAL, ST_HALT_WAKEUP, ST_INSN_EMUL,
	/* reported with --halt only */
	ST_HALT_WAIT_NS, ST_POLL_SUCCESS_NS, ST_POLL_FAIL_NS,
	ST_POLL_SUCCESS, ST_POLL_ATTEMPT, ST_POLL_INVALID,
	ST_BLOCKING,				/* instant, not a counter */
	NR_STATS,
};
#define NR_CHECKED_STATS	(ST_HALT + 1)
#define NR_PLAIN_STATS		(ST_INSN_EMUL + 1)

extern const char *const stat_name[NR_STATS];

struct config {
	uint64_t count[NR_KINDS];	/* per vCPU and program iteration */
	uint64_t pio_port, slow_port, slow_usec, mmio_gpa, msr, vcpus;
	uint64_t mmio_read_gpa;		/* --mmio-read N:GPA */
	uint64_t cpuid_leaf;		/* MARK_LEAF: guest marks */
	uint64_t halt_usec;		/* non-zero: --halt given */
	uint64_t spin_ms;		/* non-zero: --spin given */
	uint64_t rounds;		/* non-zero: --rounds given */
	uint64_t spares;		/* --spare-vcpus K */
	uint64_t vmm_work_usec;		/* --vmm-work USEC */
	uint64_t tsc_step;		/* --tsc-step TICKS */
	uint64_t ipi_count, ipi_usec;	/* --ipi N[:USEC]; N 0: none */
	const char *ipi_log;		/* --ipi-log FILE */
	bool ipi_via_msi;		/* --ipi-via msi: the VMM sends them */
	uint64_t timer_count, timer_usec;	/* --timer N[:USEC]; N 0: none */
	const char *timer_log;		/* --timer-log FILE */
	bool vmm_work_spin;		/* ... :spin */
	bool shrink;
	bool hop;
	int cpus[MAX_VCPUS];
	int ncpus;
	double seconds;
	bool forever;
	bool hold;
	bool irqchip;	/* --halt, --lapic, --ipi, --timer: KVM_CREATE_IRQCHIP */
};

/*
 * A thread that runs a vCPU: th[0], and th[1] too with --hop.  'go' is
 * its turn (--hop only).
 */
struct vcpu_thread {
	struct vcpu *v;
	int idx;
	pthread_t thread;
	pid_t tid;
	sem_t go;
	uint64_t run_delay[2];		/* schedstat run_delay, start/end (run.c) */
	bool run_delay_ok;
};

struct vcpu {
	int id;
	int fd;
	struct kvm_run *run;
	struct vcpu_thread th[2];
	int stats_fd;
	long stat_off[NR_STATS];	/* file offset, -1 if KVM lacks it */
	uint64_t before[NR_STATS];
	uint64_t after[NR_STATS];
	uint64_t seen[NR_KINDS + 1];	/* userspace exits by kind */
	uint64_t iters;
	uint64_t halts;			/* --halt count per iteration */
	uint64_t run_ns;	/* first KVM_RUN to the last exit */
	/* position in the expected exit sequence of the current iteration */
	int pos;
	uint32_t left;
	bool target_known;		/* the stop protocol's, see run.c */
	/* VMM time: from each KVM_RUN's return to the next KVM_RUN call */
	uint64_t ret_ns;		/* CLOCK_MONOTONIC at the last return */
	uint64_t vmm_ns, vmm_exits;	/* their sum and number */
	uint64_t hops;			/* --hop: handovers to the other thread */
	pid_t last_tid;			/* the thread that got the last exit */
	bool spinning;			/* its first --spin OUT is in */
	bool done;			/* the last exit is in: --hop's other thread quits */
};

/* --halt's timer thread (halt.c); per round, reset by halt_timer_start() */
struct halt_timer {
	sem_t armed, idle;
	struct timespec armed_at, due;
	uint64_t late;			/* vCPU 0 woken before the deadline */
	uint64_t armed_ns;		/* sum of arm exit -> IRQ raised */
	pthread_t thread;
	bool quit;
};

extern struct config cfg;
extern struct vcpu vcpus[MAX_VCPUS];
extern int kvm_fd, vm_fd;
extern size_t run_size;
extern uint8_t *guest_mem;
extern uint64_t tsc_khz;	/* the guest's, with --spin, --ipi or --timer */
extern struct halt_timer halt_timer;

/* hvguest.c */
extern pthread_mutex_t diag_lock;
void __noreturn __printf(2, 3) die(int code, const char *fmt, ...);
void sleep_usec(uint32_t usec);
uint64_t ts_ns(const struct timespec *ts);
uint64_t now_ns(void);
FILE *new_log(const char *opt, const char *path);
uint64_t ticks_ns(uint64_t ticks);

/* options.c */
void parse_args(int argc, char **argv);

/* program.c: guest.S in guest memory */
void load_program(void);
uint32_t idt_gpa(void);
uint16_t idt_limit(void);
void set_tsc_khz(uint64_t khz);
uint32_t guest_u32(uint32_t gpa);
uint64_t guest_u64(uint32_t gpa);
uint32_t guest_rip(const char *label);
uint32_t kind_rip(int k);
uint64_t eoi_count(void);
uint32_t lapic_seen(void);
uint64_t marks_read(uint64_t tsc[MARK_LOG_SIZE]);

/* vm.c: one VM and its vCPUs */
void open_kvm(void);
void create_vm(void);
void create_vcpu(struct vcpu *v, int id);
void destroy_vm(void);
void irq_line(int level);
int signal_msi(uint32_t address, uint32_t data);
void touch_drop(const struct vcpu *v);
uint64_t stat_read(const struct vcpu *v, int s);
void stats_read(struct vcpu *v, uint64_t *val);
uint64_t stat_delta(const struct vcpu *v, int s);

/* halt.c */
void halt_timer_start(void);
void halt_timer_arm(void);
void halt_timer_stop(void);

/* ipi.c: the round's IPIs so far (see report.c for the keys) */
struct ipi_stats {
	uint64_t sent, handled, late_max_ns, late_sum_ns;
	uint64_t msi;			/* --ipi-via msi: MSIs the VMM sent */
};

extern struct ipi_stats ipi_stats;

void ipi_open_log(void);
void ipi_close_log(void);
void ipi_start(void);
void ipi_send_msi(const struct vcpu *v);
void ipi_collect(const struct vcpu *v);

/* timer.c: the round's timer interrupts so far (see report.c for the keys) */
struct timer_stats {
	uint64_t armed, handled, late_max_ns, late_sum_ns;
	uint64_t early, early_max_ns;	/* handled before arm TSC + USEC */
	uint64_t extra;			/* the handler's runs with none due */
	uint32_t extra_eip, extra_esp;	/* the last one's */
};

extern struct timer_stats timer_stats;

void timer_open_log(void);
void timer_close_log(void);
void timer_start(void);
void timer_collect(const struct vcpu *v);

/* check.c */
void __noreturn __printf(2, 3) vcpu_fail(const struct vcpu *v, const char *fmt, ...);
void reset_sequence(struct vcpu *v);
int classify_exit(struct vcpu *v);
uint64_t vcpu_count(const struct vcpu *v, int k);
int check_vcpu(const struct vcpu *v);

/* run.c: one round's vCPU threads */
sigset_t stop_signals(void);
bool run_vcpus(int round);

/* rounds.c */
void __noreturn hold(void);
void run_rounds(void);

/* report.c: what one round did, or all rounds together */
struct result {
	uint64_t rounds, iterations;	/* iterations: per vCPU */
	uint64_t kvm[NR_STATS];		/* deltas, summed over the vCPUs */
	bool kvm_have[NR_STATS];	/* KVM has this stat */
	uint64_t halt_armed_ns, halt_late, halt_eoi, io_kernel;
	uint64_t run_ns;
	uint64_t run_delay_ns;
	bool run_delay_ok;
	uint64_t spares, shrinks, destroy_checked;
	uint64_t vmm_ns[MAX_VCPUS], vmm_exits[MAX_VCPUS], hops[MAX_VCPUS];
	uint64_t last_exit_ns[MAX_VCPUS];	/* last exit to destroy_vm() */
	uint64_t destroy_ns;		/* destroy_vm() */
	pid_t tids[2][MAX_VCPUS], last_tids[MAX_VCPUS];
	uint32_t lapic_seen;		/* the last round's last --lapic read */
	uint64_t marks;			/* the last round's guest marks */
	struct ipi_stats ipi;
	uint64_t ipi_extra;
	struct timer_stats timer;
	uint64_t mark_tsc[MARK_LOG_SIZE];	/* by id % MARK_LOG_SIZE */
};

void result_of_round(struct result *r);
void result_add(struct result *sum, const struct result *r);
void report_start(int round);
void report(const struct result *r, int round);

#endif /* _HVT_HVGUEST_H */
