// SPDX-License-Identifier: GPL-2.0
/*
 * gen-trace: a synthetic trace written through hvctl's own trace writer,
 * so the reader, `hvctl dump/export/report` and babeltrace2 can be tested
 * without a KVM host.
 *
 *   gen-trace DIR --events N [--cpus C] [--vms V] [--vcpus P] [--seed S]
 *             [--lose K] [--isa svm|vmx] [--hostname NAME]
 *             [--vm-name NAME] [--comm NAME]
 *
 * V VMs of P vCPUs each run on C host CPUs. Every vCPU alternates guest
 * time and exits (mostly NPF on a few GPA pages, port I/O, MSRs, CPUID,
 * long HLTs); exits come out in entry order, as the module records them,
 * so each CPU's stream only goes forward in time. Each exit's duration is
 * split into handling, VMM, halt, runnable and other time that add up
 * exactly; some exits are preempted inside KVM by another task, and each
 * such stretch is also a preemption record (HVTRACE_EV_PREEMPT), written
 * at its switch-in, before its exit. One hot spot shows what the report
 * must find: NPF on the MMIO page HOT_PAGE from guest RIP HOT_RIP, which
 * HOT_COMM (pid HOT_PID) preempts half of the time.
 *
 * Some exits end a late interrupt (HVTRACE_EV_IRQ), written at its
 * injection, before the exit: raised in the guest time before the exit
 * (every exit of no known vendor's, one in 16 of the others'), it waits
 * through the exit, and the split is the guest time since the raise and
 * the exit's. One in four of them has another raised during its wait,
 * injected at the vCPU's next exit: its wait holds the guest time and
 * both exits, and crosses the first's (irq_overlapping). Their own random
 * sequence: the exits are those of a trace without them.
 *
 * The output is a pure function of the arguments, and the last line
 * printed is the ground truth the tests compare against (N counts records
 * of every kind; r.*, total_ns and the parts are the exits', irq_* the
 * late interrupts', irq.VECTOR their count by vector):
 *
 *   GEN-TRACE events=N exits=X preempts=P lost=K ... r.NPF=... vm.1=...
 *
 * --lose K drops K events in up to three bursts, each on one CPU (its
 * seq numbers skip them and trace_set_discarded() counts them); the last
 * burst comes after the final flush, so its news travels in a packet of
 * its own with no events.
 *
 * --hostname NAME goes into host.json (default "gen-trace"), written by
 * the writer as `hvctl record` does, so any bytes can be tried there.
 * --vm-name NAME names the first VM in vms.tsv (default "guest1"; no tab
 * or line break), --comm NAME the hot spot's preemptor (default
 * HOT_COMM, cut to 15 bytes): names with quotes and backslashes for the
 * JSON writers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "exit_reasons.h"
#include "err.h"
#include "trace_format.h"
#include "trace_write.h"

enum kind { K_NPF, K_IO, K_MSR, K_CPUID, K_HLT, K_INTR, K_UNKNOWN, NR_KINDS };

/* Out of 1000 exits; a rare exit with no known vendor, like at start-up. */
static const unsigned int kind_weight[NR_KINDS] = {
	[K_NPF] = 400, [K_IO] = 200, [K_MSR] = 150, [K_CPUID] = 80,
	[K_HLT] = 100, [K_INTR] = 69, [K_UNKNOWN] = 1,
};

/* The few pages a guest keeps faulting on: APIC, IOAPIC, an MMIO BAR. */
static const uint64_t gpa_pages[] = {
	0xfee00000, 0xfec00000, 0x7ff82000, 0xfebf0000, 0xfebf1000,
	0x100000000, 0x12345000, 0xc0000,
};
static const uint16_t ports[] = { 0x70, 0x71, 0x80, 0x3f8, 0xcf8, 0xcfc };
static const uint32_t msrs[] = {
	0x6e0, 0x830, 0x1b, 0xc0000080, 0x10, 0x48, 0x3b,
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_REASONS 16

/* The hot spot: an MMIO BAR page, the driver code touching it. */
#define HOT_PAGE	0xfebf0000ULL
#define HOT_RIP		0xffffffff81603000ULL
#define HOT_PID		31337
#define HOT_COMM	"noisy-batch"
/* Pages emulated in the VMM (userspace): the rest are handled in KVM. */
#define VMM_PAGE(p)	((p) == 0x7ff82000 || (p) == HOT_PAGE || \
			 (p) == 0xfebf1000)

struct preemptor {
	uint32_t pid;
	const char *comm;		/* NULL: another VM's vCPU thread */
};

/* Late interrupts: Linux's vectors, who raises them. */
static const struct {
	uint8_t vector;
	uint32_t source;
} late_irqs[] = {
	{ 0xec, HVTRACE_VCPU_IRQ_TIMER },	/* LOCAL_TIMER_VECTOR */
	{ 0xfd, HVTRACE_VCPU_IRQ_IPI },		/* RESCHEDULE_VECTOR */
	{ 0xfb, HVTRACE_VCPU_IRQ_IPI },		/* CALL_FUNCTION_SINGLE */
	{ 0xf6, HVTRACE_VCPU_IRQ_LOCAL },	/* IRQ_WORK_VECTOR, a self-IPI */
	{ 0x22, HVTRACE_VCPU_IRQ_DEVICE },	/* a virtio queue's MSI */
};

/* Who else runs on the host; the hot spot's villain first (--comm). */
static struct preemptor preemptors[] = {
	{ HOT_PID, HOT_COMM }, { 211, "kworker/u16:3" }, { 27, "ksoftirqd/2" },
	{ 0, NULL },
};

struct opts {
	const char *dir;
	const char *hostname, *vm_name, *comm;
	uint64_t events, lose, seed;
	unsigned int cpus, vms, vcpus;
	unsigned int isa;
};

/*
 * A vCPU's coming records in time order: the preemptions inside its
 * next exit, a late interrupt its entry injects, then the exit; a late
 * interrupt still waiting (PENDING) for the exit after.
 */
#define MAX_STRETCHES 2

struct vcpu {
	uint32_t vm, id, pid, tid;
	unsigned int cpu;
	struct hvtrace_event q[MAX_STRETCHES + 2];
	unsigned int head, nr;
	struct hvtrace_event pend;
	bool pending;
};

struct truth {
	uint64_t events, exits, preempts, lost, total_ns, first_exit;
	uint64_t last_entry, rip, gpa, msr, migrated;
	uint64_t handling_ns, part_ns[HVTRACE_NR_PARTS], guest_ns;
	uint64_t noted, noted_ns;	/* exits naming a preemptor */
	uint64_t preempt_ns;		/* of the records */
	uint64_t hot_exits;
	uint64_t irqs, irq_ns, irq_guest_ns, irq_handling_ns;
	uint64_t irq_part_ns[HVTRACE_NR_PARTS], irq_noted, irq_overlapping;
	uint64_t by_vector[N(late_irqs)];
	const char *reason[MAX_REASONS];
	uint64_t by_reason[MAX_REASONS];
	uint64_t *by_vm, *by_cpu;
	uint64_t *irq_end;		/* per vCPU: its last one's injection */
};

/* The exits' sequence, and the late interrupts' (never the exits'). */
static uint64_t rng, irq_rng;

/* splitmix64: tiny, fast and the same everywhere. */
static uint64_t rnd_of(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(void)
{
	return rnd_of(&rng);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static uint64_t irq_below(uint64_t n)
{
	return n ? rnd_of(&irq_rng) % n : 0;
}

static enum kind pick_kind(void)
{
	unsigned int x = below(1000);

	for (int k = 0; k < NR_KINDS; k++) {
		if (x < kind_weight[k])
			return k;
		x -= kind_weight[k];
	}
	return K_NPF;
}

static void npf(struct hvtrace_event *e, bool vmx)
{
	unsigned int page = below(N(gpa_pages));
	uint64_t gpa = gpa_pages[page] + below(512) * 8;
	bool write = below(3) == 0;

	/* Each page is driven from a few places in the guest kernel. */
	if (e->rip)
		e->rip = 0xffffffff81600000ULL + page * 0x1000 + below(3) * 0x40;
	if (vmx) {
		/* EPT qualification: access bits, then what the entry allowed */
		e->reason = 48;
		e->info1 = (write ? 2 : 1) | (below(4) ? 0x38 : 0) | 0x180;
	} else {
		/* #PF error code: present, write; RSVD marks KVM's MMIO */
		e->reason = 0x400;
		e->info1 = 1 | (write ? 2 : 0) | (below(2) ? 8 : 0);
		e->info2 = gpa;
	}
	e->addr = gpa;
	e->flags |= HVTRACE_EVF_ADDR_GPA | HVTRACE_EVF_GPA_CLASS;
	/*
	 * What each page is: RAM, a device KVM emulates or one the VMM
	 * does; accesses of 1 to 8 bytes (from the GPA's bits: the random
	 * sequence, and so every other figure, stays as it was).
	 */
	if (page % 3)
		e->flags |= (write ? HVTRACE_EVF_MMIO_WRITE :
				     HVTRACE_EVF_MMIO_READ) |
			    (page % 3 == 2 ? HVTRACE_EVF_MMIO_VMM : 0) |
			    (1U << (gpa >> 3 & 3)) << HVTRACE_EVF_MMIO_LEN_SHIFT;
	e->duration_ns = below(50) ? 800 + below(5000) : 20000 + below(180000);
}

static void io(struct hvtrace_event *e, bool vmx)
{
	uint64_t port = ports[below(N(ports))];
	unsigned int size = 1U << below(3);	/* 1, 2, 4 bytes */
	bool in = below(2);

	if (vmx) {
		e->reason = 30;
		e->info1 = (size - 1) | (in ? 8 : 0) | port << 16;
	} else {
		e->reason = 0x7b;
		e->info1 = (in ? 1 : 0) | (uint64_t)size << 4 | port << 16;
	}
	e->duration_ns = 3000 + below(40000);
}

static void msr(struct hvtrace_event *e, bool vmx)
{
	bool write = below(3) != 0;

	e->reason = vmx ? (write ? 32 : 31) : 0x7c;
	e->info1 = vmx ? 0 : write;
	e->addr = msrs[below(N(msrs))];
	e->flags |= HVTRACE_EVF_ADDR_MSR;
	e->duration_ns = 500 + below(3000);
}

static struct vcpu *all_vcpus;
static unsigned int nr_vcpus, nr_per_vm;

/* Preemptor I as the records name it: pid, comm, PREEMPT_VCPU. */
static void preemptor_of(unsigned int i, const struct vcpu *v, uint32_t *pid,
			 char *comm, uint16_t *flags)
{
	const struct preemptor *p = &preemptors[i];
	const struct vcpu *o;

	memset(comm, 0, HVTRACE_COMM_LEN);
	*flags = 0;
	if (p->comm || nr_vcpus < 2) {
		*pid = p->comm ? p->pid : 211;
		snprintf(comm, HVTRACE_COMM_LEN, "%s",
			 p->comm ? p->comm : "kworker/u16:3");
		return;
	}
	/* The same vCPU of the next VM (or the next vCPU): QEMU's name. */
	o = &all_vcpus[(v - all_vcpus + nr_per_vm) % nr_vcpus];
	if (o == v)
		o = &all_vcpus[(v - all_vcpus + 1) % nr_vcpus];
	*pid = o->tid;
	snprintf(comm, HVTRACE_COMM_LEN, "CPU %u/KVM", o->id);
	*flags = HVTRACE_EVF_PREEMPT_VCPU;
}

/*
 * Where D0, the exit's time without preemptions, went: the VMM emulates
 * MMIO pages and port I/O, HLT halts, the rest is handled in KVM, and now
 * and then the thread blocks in the kernel (other).
 */
static void split(struct hvtrace_event *e, enum kind k, uint64_t d0)
{
	uint64_t vmm = 0, halt = 0, other = 0, left;

	if (k == K_NPF && VMM_PAGE(e->addr & ~0xfffULL))
		vmm = d0 * (50 + below(41)) / 100;
	else if (k == K_IO)
		vmm = d0 * (70 + below(26)) / 100;
	else if (k == K_HLT)
		halt = d0 - (d0 < 2300 ? d0 : 300 + below(2000));
	left = d0 - vmm - halt;
	if (!below(30))
		other = below(left / 3 + 1);
	e->part_ns[HVTRACE_PART_VMM] = vmm;
	e->part_ns[HVTRACE_PART_HALT] = halt;
	e->part_ns[HVTRACE_PART_OTHER] = other;
}

/*
 * Runnable stretches inside exit E (its time without them D0): the hot
 * spot is preempted half of the time by HOT_COMM, any exit rarely by
 * anyone; one in eight preempted exits twice. Each stretch becomes a
 * preemption record in V's queue; a woken HLT may also wait for its CPU
 * (runnable, no record). The exit notes the longest stretch's task.
 */
static void preempt(struct vcpu *v, struct hvtrace_event *e, enum kind k,
		    uint64_t d0)
{
	bool hot = k == K_NPF && (e->addr & ~0xfffULL) == HOT_PAGE &&
		   e->rip == HOT_RIP;
	uint64_t len[MAX_STRETCHES + 1], run = 0, at = 0, longest = 0;
	unsigned int who[MAX_STRETCHES + 1], n = 0;

	if (hot && below(2)) {
		who[n] = 0;
		len[n++] = 50000 + below(350000);
	} else if (!below(40)) {
		who[n] = below(N(preemptors));
		len[n++] = 2000 + below(100000);
	}
	if (n && !below(8)) {
		who[n] = below(N(preemptors));
		len[n++] = 2000 + below(60000);
	}
	for (unsigned int i = 0; i < n; i++) {
		struct hvtrace_event *r = &v->q[v->nr++];

		at += below(d0 / 2 + 1);
		*r = *e;
		r->type = HVTRACE_EV_PREEMPT;
		r->ts_ns = e->ts_ns + at;
		r->duration_ns = r->preempt_ns = len[i];
		r->cpu_entry = e->cpu_exit;
		r->guest_ns = 0;
		memset(r->part_ns, 0, sizeof(r->part_ns));
		r->part_ns[HVTRACE_PART_RUNNABLE] = len[i];
		preemptor_of(who[i], v, &r->preempt_pid, r->preempt_comm,
			     &r->flags);
		r->flags |= e->flags;
		at += len[i];
		run += len[i];
	}
	if (k == K_HLT && !below(4)) {
		who[n] = 1 + below(N(preemptors) - 1);
		len[n++] = 1000 + below(30000);
		run += len[n - 1];
	}
	for (unsigned int i = 0; i < n; i++) {
		if (len[i] <= longest)
			continue;
		longest = len[i];
		/* The caller adds the exit's own flags back. */
		preemptor_of(who[i], v, &e->preempt_pid, e->preempt_comm,
			     &e->flags);
		e->preempt_ns = len[i];
	}
	e->part_ns[HVTRACE_PART_RUNNABLE] = run;
	e->duration_ns = d0 + run;
}

/* Late interrupt K, raised G before exit E, into R: no wait yet. */
static void irq_raise(struct hvtrace_event *r, const struct hvtrace_event *e,
		      uint64_t g, unsigned int k)
{
	*r = (struct hvtrace_event){
		.ts_ns = e->ts_ns - g, .reason = late_irqs[k].vector,
		.info1 = late_irqs[k].source, .vcpu_id = e->vcpu_id,
		.vm_id = e->vm_id, .vm_pid = e->vm_pid, .tid = e->tid,
		.type = HVTRACE_EV_IRQ,
	};
}

/*
 * Late interrupt R waits on through guest time G and then exit E, whose
 * entry injects it (if nothing else does first): the exit's split adds
 * to its wait, the longer runnable stretch's task is its preemptor, the
 * exit is its last.
 */
static void irq_wait(struct hvtrace_event *r, const struct hvtrace_event *e,
		     uint64_t g)
{
	r->duration_ns += g + e->duration_ns;
	r->guest_ns += g;
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		r->part_ns[i] += e->part_ns[i];
	if (e->preempt_pid && e->preempt_ns > r->preempt_ns) {
		r->preempt_pid = e->preempt_pid;
		r->preempt_ns = e->preempt_ns;
		r->flags = e->flags & HVTRACE_EVF_PREEMPT_VCPU;
		memcpy(r->preempt_comm, e->preempt_comm, HVTRACE_COMM_LEN);
	}
	r->info2 = e->reason;
	r->isa = e->isa;
	r->cpu_exit = r->cpu_entry = e->cpu_entry;
}

/*
 * Queue the late interrupt exit E of V ends, if any: the one pending
 * since V's last exit, or now and then one raised in the guest time
 * before E (after its FIRST exit), with maybe another raised later in
 * that time and pending until V's next exit.
 */
static void queue_irqs(struct vcpu *v, const struct hvtrace_event *e,
		       bool first)
{
	uint64_t g;
	unsigned int k;

	if (v->pending) {
		irq_wait(&v->pend, e, e->guest_ns);
		v->q[v->nr++] = v->pend;
		v->pending = false;
		return;
	}
	if (first || (e->isa != HVTRACE_ISA_UNKNOWN && irq_below(16)))
		return;
	g = 1 + irq_below(e->guest_ns);
	k = irq_below(N(late_irqs));
	irq_raise(&v->q[v->nr], e, g, k);
	irq_wait(&v->q[v->nr++], e, g);
	if (g < 2 || irq_below(4))
		return;
	k = (k + 1 + irq_below(N(late_irqs) - 1)) % N(late_irqs);
	g = 1 + irq_below(g - 1);
	irq_raise(&v->pend, e, g, k);
	irq_wait(&v->pend, e, g);
	v->pending = true;
}

/*
 * Queue the exit V takes after guest time from AFTER (its last entry),
 * the preemption records inside it and the late interrupt it ends.
 */
static void make_exit(const struct opts *o, struct vcpu *v, uint64_t after,
		      bool first)
{
	struct hvtrace_event x, *e = &x;
	bool vmx = o->isa == HVTRACE_ISA_VMX;
	enum kind k = pick_kind();
	uint16_t keep;

	*e = (struct hvtrace_event){
		.ts_ns = after + 200 + below(20000),
		.vcpu_id = v->id, .vm_id = v->vm, .vm_pid = v->pid,
		.tid = v->tid, .cpu_exit = v->cpu, .cpu_entry = v->cpu,
		.isa = o->isa, .type = HVTRACE_EV_EXIT,
	};
	e->guest_ns = first ? 0 : e->ts_ns - after;
	if (below(20))
		e->rip = 0xffffffff81000000ULL + below(0x800000);
	if (e->rip)
		e->flags |= HVTRACE_EVF_RIP_VALID;
	switch (k) {
	case K_NPF:
		npf(e, vmx);
		break;
	case K_IO:
		io(e, vmx);
		break;
	case K_MSR:
		msr(e, vmx);
		break;
	case K_CPUID:
		e->reason = vmx ? 10 : 0x72;
		e->duration_ns = 300 + below(1500);
		break;
	case K_HLT:
		e->reason = vmx ? 12 : 0x78;
		e->duration_ns = 50000 + below(5000000);
		/* Woken up elsewhere now and then. */
		if (o->cpus > 1 && !below(4))
			v->cpu = e->cpu_entry = below(o->cpus);
		break;
	case K_INTR:
		e->reason = vmx ? 1 : 0x60;
		e->duration_ns = 400 + below(2000);
		break;
	default:
		/* The vendor module was not loaded yet: nothing decoded. */
		e->isa = HVTRACE_ISA_UNKNOWN;
		e->flags = HVTRACE_EVF_REASON_UNKNOWN;
		e->rip = 0;
		e->duration_ns = 1000 + below(1000);
		break;
	}
	v->head = v->nr = 0;
	split(e, k, e->duration_ns);
	keep = e->flags;
	preempt(v, e, k, e->duration_ns);
	e->flags |= keep;
	queue_irqs(v, e, first);
	v->q[v->nr++] = x;
}

/* The end of V's next record: an entry, a switch-in or an injection. */
static uint64_t entry_of(const struct vcpu *v)
{
	const struct hvtrace_event *e = &v->q[v->head];

	return e->ts_ns + e->duration_ns;
}

/* A min-heap of vCPUs by the end time of their coming record. */
static void sift_down(struct vcpu **h, unsigned int n, unsigned int i)
{
	struct vcpu *v = h[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && entry_of(h[c + 1]) < entry_of(h[c]))
			c++;
		if (entry_of(h[c]) >= entry_of(v))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = v;
}

static const char *reason_key(const struct hvtrace_event *e)
{
	const char *name;

	if (e->isa == HVTRACE_ISA_UNKNOWN)
		return "unknown";
	name = exit_reason_name(e->isa, e->reason);
	return name ? name : "other";
}

/*
 * A late interrupt: its wait and split, by vector; whether it crosses
 * its vCPU's previous one (raised before that one's injection).
 */
static void count_irq(struct truth *t, const struct hvtrace_event *e)
{
	uint64_t *end = &t->irq_end[(e->vm_id - 1) * nr_per_vm + e->vcpu_id];

	t->irqs++;
	t->irq_ns += e->duration_ns;
	t->irq_guest_ns += e->guest_ns;
	t->irq_handling_ns += e->duration_ns - e->guest_ns;
	for (int i = 0; i < HVTRACE_NR_PARTS; i++) {
		t->irq_part_ns[i] += e->part_ns[i];
		t->irq_handling_ns -= e->part_ns[i];
	}
	t->irq_noted += !!e->preempt_pid;
	t->irq_overlapping += e->ts_ns < *end;
	*end = e->ts_ns + e->duration_ns;
	for (unsigned int k = 0; k < N(late_irqs); k++)
		t->by_vector[k] += e->reason == late_irqs[k].vector;
}

static void count(struct truth *t, const struct hvtrace_event *e)
{
	const char *key = reason_key(e);
	uint64_t entry = e->ts_ns + e->duration_ns;
	int i;

	t->events++;
	t->by_cpu[e->cpu_entry]++;
	if (entry > t->last_entry)
		t->last_entry = entry;
	if (e->type == HVTRACE_EV_IRQ) {
		count_irq(t, e);
		return;
	}
	if (e->type == HVTRACE_EV_PREEMPT) {
		t->preempts++;
		t->preempt_ns += e->duration_ns;
		return;
	}
	for (i = 0; i < MAX_REASONS - 1 && t->reason[i]; i++)
		if (!strcmp(t->reason[i], key))
			break;
	t->reason[i] = key;
	t->by_reason[i]++;
	t->exits++;
	t->total_ns += e->duration_ns;
	if (!t->first_exit || e->ts_ns < t->first_exit)
		t->first_exit = e->ts_ns;
	t->rip += !!(e->flags & HVTRACE_EVF_RIP_VALID);
	t->gpa += !!(e->flags & HVTRACE_EVF_ADDR_GPA);
	t->msr += !!(e->flags & HVTRACE_EVF_ADDR_MSR);
	t->migrated += e->cpu_exit != e->cpu_entry;
	t->by_vm[e->vm_id - 1]++;
	t->handling_ns += e->duration_ns;
	for (i = 0; i < HVTRACE_NR_PARTS; i++) {
		t->part_ns[i] += e->part_ns[i];
		t->handling_ns -= e->part_ns[i];
	}
	t->guest_ns += e->guest_ns;
	t->noted += !!e->preempt_pid;
	t->noted_ns += e->preempt_ns;
	t->hot_exits += (e->flags & HVTRACE_EVF_ADDR_GPA) &&
			(e->addr & ~0xfffULL) == HOT_PAGE &&
			(e->flags & HVTRACE_EVF_RIP_VALID) && e->rip == HOT_RIP;
}

static void print_truth(const struct opts *o, const struct truth *t)
{
	printf("GEN-TRACE events=%" PRIu64 " exits=%" PRIu64 " preempts=%"
	       PRIu64 " lost=%" PRIu64 " cpus=%u vms=%u"
	       " vcpus=%u total_ns=%" PRIu64 " first_exit_ns=%" PRIu64
	       " last_entry_ns=%" PRIu64 " rip=%" PRIu64 " gpa=%" PRIu64
	       " msr=%" PRIu64 " migrated=%" PRIu64, t->events, t->exits,
	       t->preempts, t->lost, o->cpus, o->vms, o->vms * o->vcpus,
	       t->total_ns, t->first_exit, t->last_entry, t->rip, t->gpa,
	       t->msr, t->migrated);
	printf(" handling_ns=%" PRIu64 " vmm_ns=%" PRIu64 " halt_ns=%" PRIu64
	       " runnable_ns=%" PRIu64 " other_ns=%" PRIu64 " guest_ns=%"
	       PRIu64 " noted=%" PRIu64 " noted_ns=%" PRIu64 " preempt_ns=%"
	       PRIu64, t->handling_ns, t->part_ns[HVTRACE_PART_VMM],
	       t->part_ns[HVTRACE_PART_HALT], t->part_ns[HVTRACE_PART_RUNNABLE],
	       t->part_ns[HVTRACE_PART_OTHER], t->guest_ns, t->noted,
	       t->noted_ns, t->preempt_ns);
	printf(" hot_page=0x%llx hot_rip=0x%llx hot_pid=%u hot_comm=%s"
	       " hot_exits=%" PRIu64, HOT_PAGE, HOT_RIP, HOT_PID,
	       preemptors[0].comm, t->hot_exits);
	printf(" irqs=%" PRIu64 " irq_ns=%" PRIu64 " irq_guest_ns=%" PRIu64
	       " irq_handling_ns=%" PRIu64 " irq_vmm_ns=%" PRIu64
	       " irq_halt_ns=%" PRIu64 " irq_runnable_ns=%" PRIu64
	       " irq_other_ns=%" PRIu64 " irq_noted=%" PRIu64
	       " irq_overlapping=%" PRIu64, t->irqs, t->irq_ns,
	       t->irq_guest_ns, t->irq_handling_ns,
	       t->irq_part_ns[HVTRACE_PART_VMM],
	       t->irq_part_ns[HVTRACE_PART_HALT],
	       t->irq_part_ns[HVTRACE_PART_RUNNABLE],
	       t->irq_part_ns[HVTRACE_PART_OTHER], t->irq_noted,
	       t->irq_overlapping);
	for (unsigned int k = 0; k < N(late_irqs); k++)
		printf(" irq.0x%x=%" PRIu64, late_irqs[k].vector,
		       t->by_vector[k]);
	for (int i = 0; i < MAX_REASONS && t->reason[i]; i++)
		printf(" r.%s=%" PRIu64, t->reason[i], t->by_reason[i]);
	for (unsigned int i = 0; i < o->vms; i++)
		printf(" vm.%u=%" PRIu64, i + 1, t->by_vm[i]);
	for (unsigned int i = 0; i < o->cpus; i++)
		printf(" cpu.%u=%" PRIu64, i, t->by_cpu[i]);
	putchar('\n');
}

/* The last VM goes unnamed, as when the VMM's command line had no -name. */
static int write_vms(struct trace_writer *w, const struct opts *o)
{
	FILE *f = trace_open_file(w, TRACE_SIDE_DIR "/vms.tsv");

	if (!f)
		return -1;
	for (unsigned int i = 0; i < o->vms; i++) {
		if (i && i == o->vms - 1)
			fprintf(f, "%u\t%u\t\n", 4000 + 100 * i, i + 1);
		else if (!i)
			fprintf(f, "%u\t%u\t%s\n", 4000, 1, o->vm_name);
		else
			fprintf(f, "%u\t%u\tguest%u\n", 4000 + 100 * i, i + 1,
				i + 1);
	}
	return fclose(f) ? hvc_err(errno, "writing vms.tsv: %s",
				   strerror(errno)) : 0;
}

struct losses {
	unsigned int nr, next;		/* bursts, the next to start */
	uint64_t at[3], size[3];	/* when (events written), how many */
	uint64_t left;			/* of the burst under way */
	unsigned int cpu;
	uint64_t *discarded;		/* per CPU */
};

static void plan_losses(struct losses *l, const struct opts *o)
{
	l->nr = o->lose < 3 ? o->lose : 3;
	for (unsigned int i = 0; i < l->nr; i++) {
		l->at[i] = o->events * (i + 1) / l->nr;
		l->size[i] = o->lose / l->nr + (i == l->nr - 1 ? o->lose % l->nr : 0);
	}
}

/* 1 when E is lost to a burst, 0 when not, -1 on error (printed). */
static int lose(struct losses *l, struct trace_writer *w, uint64_t written,
		const struct opts *o, const struct hvtrace_event *e)
{
	if (!l->left && l->next < l->nr && written >= l->at[l->next]) {
		/* The last burst is news for a packet of its own. */
		if (written == o->events && trace_flush(w))
			return -1;
		l->cpu = e->cpu_entry;
		l->left = l->size[l->next++];
	}
	if (!l->left || e->cpu_entry != l->cpu)
		return 0;
	l->left--;
	trace_set_discarded(w, l->cpu, ++l->discarded[l->cpu]);
	return 1;
}

static int generate(const struct opts *o, struct trace_writer *w)
{
	unsigned int nv = o->vms * o->vcpus;
	struct vcpu *v = calloc(nv, sizeof(*v));
	struct vcpu **heap = calloc(nv, sizeof(*heap));
	uint64_t *seq = calloc(o->cpus, sizeof(*seq));
	struct truth t = { .by_vm = calloc(o->vms, sizeof(uint64_t)),
			   .by_cpu = calloc(o->cpus, sizeof(uint64_t)),
			   .irq_end = calloc(nv, sizeof(uint64_t)) };
	struct losses l = { .discarded = calloc(o->cpus, sizeof(uint64_t)) };
	int lost;

	if (!v || !heap || !seq || !t.by_vm || !t.by_cpu || !t.irq_end ||
	    !l.discarded)
		return hvc_err(ENOMEM, "out of memory");
	plan_losses(&l, o);
	all_vcpus = v;
	nr_vcpus = nv;
	nr_per_vm = o->vcpus;
	for (unsigned int i = 0; i < nv; i++) {
		v[i].vm = i / o->vcpus + 1;
		v[i].id = i % o->vcpus;
		v[i].pid = 4000 + 100 * (v[i].vm - 1);
		v[i].tid = v[i].pid + 1 + v[i].id;
		v[i].cpu = i % o->cpus;
	}
	for (unsigned int i = 0; i < nv; i++) {
		/* 120 s after boot, the vCPUs a little apart */
		make_exit(o, &v[i], 120000000000ULL + i * 1000, true);
		heap[i] = &v[i];
	}
	for (unsigned int i = nv / 2; i-- > 0;)
		sift_down(heap, nv, i);
	while (t.events < o->events || l.left || l.next < l.nr) {
		struct vcpu *c = heap[0];
		struct hvtrace_event e = c->q[c->head++];

		if (c->head == c->nr)
			make_exit(o, c, e.ts_ns + e.duration_ns, false);
		sift_down(heap, nv, 0);
		e.seq = ++seq[e.cpu_entry];
		lost = lose(&l, w, t.events, o, &e);
		if (lost < 0)
			return 1;
		if (lost) {
			t.lost++;
			continue;
		}
		if (t.events == o->events) {
			seq[e.cpu_entry]--;	/* not recorded at all */
			continue;
		}
		if (trace_append(w, &e))
			return 1;
		count(&t, &e);
	}
	print_truth(o, &t);
	free(v);
	free(heap);
	free(seq);
	free(t.by_vm);
	free(t.by_cpu);
	free(t.irq_end);
	free(l.discarded);
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "Usage: gen-trace DIR --events N [--cpus C] [--vms V] "
		"[--vcpus P] [--seed S] [--lose K] [--isa svm|vmx] "
		"[--hostname NAME] [--vm-name NAME] [--comm NAME]\n");
	exit(2);
}

static uint64_t number(const char *opt, const char *s, uint64_t min,
		       uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = s ? strtoull(s, &end, 0) : 0;
	if (!s || !*s || *end || errno || v < min || v > max) {
		fprintf(stderr, "Error: %s wants a number from %" PRIu64
			" to %" PRIu64 ".\n", opt, min, max);
		usage();
	}
	return v;
}

static void parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .events = UINT64_MAX, .hostname = "gen-trace",
			    .vm_name = "guest1", .comm = HOT_COMM,
			    .cpus = 4, .vms = 2,
			    .vcpus = 2, .seed = 1, .isa = HVTRACE_ISA_SVM };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (a[0] != '-' && !o->dir) {
			o->dir = a;
			continue;
		}
		i++;
		if (!strcmp(a, "--events"))
			o->events = number(a, v, 0, UINT64_MAX - 1);
		else if (!strcmp(a, "--cpus"))
			o->cpus = number(a, v, 1, 4096);
		else if (!strcmp(a, "--vms"))
			o->vms = number(a, v, 1, 1000);
		else if (!strcmp(a, "--vcpus"))
			o->vcpus = number(a, v, 1, 1024);
		else if (!strcmp(a, "--seed"))
			o->seed = number(a, v, 0, UINT64_MAX);
		else if (!strcmp(a, "--lose"))
			o->lose = number(a, v, 0, UINT64_MAX);
		else if (!strcmp(a, "--isa") && v && !strcmp(v, "svm"))
			o->isa = HVTRACE_ISA_SVM;
		else if (!strcmp(a, "--isa") && v && !strcmp(v, "vmx"))
			o->isa = HVTRACE_ISA_VMX;
		else if (!strcmp(a, "--hostname") && v)
			o->hostname = v;
		else if (!strcmp(a, "--vm-name") && v && !v[strcspn(v, "\t\n")])
			o->vm_name = v;
		else if (!strcmp(a, "--comm") && v)
			o->comm = v;
		else
			usage();
	}
	if (!o->dir || o->events == UINT64_MAX)
		usage();
}

int main(int argc, char **argv)
{
	struct trace_env env = {
		.kernel = "6.1.0-synthetic", .hvtrace_version = "synthetic",
	};
	struct trace_writer *w;
	struct opts o;
	int ret;

	parse(argc, argv, &o);
	rng = o.seed;
	irq_rng = o.seed ^ 0x6c617465;	/* "late" */
	preemptors[0].comm = o.comm;
	env.hostname = o.hostname;
	env.cpu_vendor = o.isa == HVTRACE_ISA_VMX ? "GenuineIntel" :
						    "AuthenticAMD";
	w = trace_create(o.dir, o.cpus, &env);
	if (!w)
		return 1;
	ret = trace_write_host(w, &env) || write_vms(w, &o) ||
	      generate(&o, w) ? 1 : 0;
	if (trace_finish(w))
		ret = 1;
	return ret;
}
