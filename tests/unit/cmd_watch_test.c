// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl watch: every bad input refused before the module hears of it (and
 * the directory left as it was), the module's refusal shown, the story
 * line of synthetic captures word for word, captures written whole into
 * DIR and read back by dump and report, a full disk (write(2) failing
 * under the trace writer) leaving nothing behind, stale .tmp-* removed,
 * pruning by count and by size, and status' watch.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "capture_story.h"
#include "fake_nl.h"
#include "util.h"
#include "watch.h"

/*
 * write(2) of the code under test: fails with this errno when set, into
 * every file or, with fake_write_only, only into files whose path holds
 * it (one capture's, the disk full while it was written).
 */
static int fake_write_err;
static const char *fake_write_only;
ssize_t __real_write(int fd, const void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);

static bool fake_write_fails(int fd)
{
	char link[64], path[1024];
	ssize_t len;

	if (!fake_write_err)
		return false;
	if (!fake_write_only)
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len < 0)
		return false;
	path[len] = '\0';
	return strstr(path, fake_write_only);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	if (fake_write_fails(fd)) {
		errno = fake_write_err;
		return -1;
	}
	return __real_write(fd, buf, n);
}

static char top[256];

/* A path under the test's directory (eight in use at once). */
static char *tmpdir(const char *name)
{
	static char path[8][512];
	static unsigned int next;
	char *p = path[next++ % 8];

	snprintf(p, sizeof(path[0]), "%s/%s", top, name);
	return p;
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* Entries of DIR whose name starts with PREFIX. */
static int count_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
		    strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	if (d)
		closedir(d);
	return n;
}

/* Run watch with ARGS; its exit status, what it printed in *OUT. */
#define WATCH_RUN(out, ...) ({						\
	int _r;								\
	fake_capture_begin();						\
	_r = FAKE_RUN(hvctl_cmd_watch, "watch", __VA_ARGS__, NULL);	\
	*(out) = fake_capture_end();					\
	_r;								\
})

/* A bad command line: exit 2, MSG, nothing asked of the module. */
#define CHECK_BAD(msg, ...) do {					\
	char *_o;							\
	fake_reset();							\
	hvctl_json = false;						\
	CHECK_INT(WATCH_RUN(&_o, __VA_ARGS__), 2);			\
	CHECK_STR(fake_err, msg);					\
	CHECK_HAS(_o, "Usage: hvctl");					\
	/* Nothing asked, but a VM name looked up. */			\
	CHECK_INT(fake_opens, fake_asked[HVTRACE_CMD_GET_STATS][1]);	\
	CHECK_INT(fake_requests, fake_asked[HVTRACE_CMD_GET_STATUS][0] + \
		  fake_asked[HVTRACE_CMD_GET_STATS][1]);		\
	free(_o);							\
} while (0)

static void test_bad_options(void)
{
	char *d = tmpdir("never");

	CHECK_BAD("no trigger: give --exit DUR, --stall X/Y, --preempted DUR, "
		  "--irq-latency DUR or --guest-mark", "-o", d);
	CHECK_BAD("no trigger: give --exit DUR, --stall X/Y, --preempted DUR, "
		  "--irq-latency DUR or --guest-mark", "--vm", "4100", "-o", d);
	CHECK_BAD("--guest-mark no-such-vm-here: no running VM of that name "
		  "or UUID (nor a pid)", "--guest-mark=no-such-vm-here", "-o", d);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	CHECK_BAD("--guest-mark takes the VMM's pid, not '0'",
		  "--guest-mark=0", "-o", d);
	CHECK_BAD("--guest-mark takes the VMM's pid, a VM's name or UUID, "
		  "not ''", "--guest-mark=", "-o", d);
	CHECK_BAD("--guest-mark given twice", "--guest-mark",
		  "--guest-mark=7", "-o", d);
	CHECK_BAD("--stall 50ms/20ms: 50.00ms out of the guest cannot fit in "
		  "a window of 20.00ms (X must be at most Y)",
		  "--stall", "50ms/20ms", "-o", d);
	CHECK_BAD("--stall takes X/Y, at least X out of the guest within the "
		  "last Y (e.g. 20ms/50ms), not '20ms'", "--stall", "20ms",
		  "-o", d);
	CHECK_BAD("--stall 0/50ms: both times must be more than 0",
		  "--stall", "0/50ms", "-o", d);
	CHECK_BAD("--history takes a number from 1 to 65536, not '0'",
		  "--stall", "20ms/50ms", "--history", "0", "-o", d);
	CHECK_BAD("--history takes a number from 1 to 65536, not '65537'",
		  "--stall", "20ms/50ms", "--history", "65537", "-o", d);
	CHECK_BAD("--on goes with --exit", "--stall", "20ms/50ms", "--on",
		  "runnable", "-o", d);
	CHECK_BAD("--halt goes with --exit or --stall", "--preempted", "5ms",
		  "--halt", "-o", d);
	CHECK_BAD("--halt counts halt time toward --exit on the total only, "
		  "not --on vmm", "--exit", "5ms", "--on", "vmm", "--halt",
		  "-o", d);
	CHECK_BAD("unknown part 'idle' for --on (total, handling, vmm, halt, "
		  "runnable, other)", "--exit", "5ms", "--on", "idle", "-o", d);
	CHECK_BAD("--exit must be more than 0", "--exit", "0", "-o", d);
	CHECK_BAD("--exit: bad duration 'soon' (e.g. 50us, 1.5ms, 2s)",
		  "--exit", "soon", "-o", d);
	CHECK_BAD("--irq-latency must be more than 0", "--irq-latency", "0",
		  "-o", d);
	CHECK_BAD("--irq-latency: bad duration 'soon' (e.g. 50us, 1.5ms, 2s)",
		  "--irq-latency", "soon", "-o", d);
	CHECK_BAD("--irq-latency: missing unit in '100' (use ns, us, ms or s)",
		  "--irq-latency", "100", "-o", d);
	CHECK_BAD("--irq-latency is at most 3600s, not '3601s'",
		  "--irq-latency", "3601s", "-o", d);
	CHECK_BAD("--halt goes with --exit or --stall", "--irq-latency",
		  "100ms", "--halt", "-o", d);
	CHECK_BAD("--post is at most 10s, not '11s'", "--exit", "5ms",
		  "--post", "11s", "-o", d);
	CHECK_BAD("--vm no-such-vm-here: no running VM of that name or UUID "
		  "(nor a pid)", "--exit", "5ms", "--vm", "no-such-vm-here",
		  "-o", d);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	CHECK_BAD("--vm -5: no running VM of that name or UUID (nor a pid, "
		  "which is decimal digits only)", "--exit", "5ms", "--vm",
		  "-5", "-o", d);
	CHECK_BAD("--vm takes the VMM's pid, not '0'", "--exit", "5ms",
		  "--vm", "0", "-o", d);
	CHECK_BAD("vcpu range 5-2 is reversed (write it 2-5)", "--exit", "5ms",
		  "--vcpu", "5-2", "-o", d);
	CHECK_BAD("bad size '10X' (e.g. 2048, 512K, 4M)", "--exit", "5ms",
		  "--max-size", "10X", "-o", d);
	CHECK_BAD("--keep must be more than 0 (none: no limit)", "--exit", "5ms",
		  "--keep", "0", "-o", d);
	CHECK_BAD("missing -o DIR", "--exit", "5ms");
	CHECK_BAD("--rate takes a number from 1 to 3600, not '0'",
		  "--exit", "5ms", "--rate", "0", "-o", d);
	CHECK(!exists(d));
}

/* GET_STATUS, the watch armed or not (then its counters only). */
static void put_status_armed(bool armed, uint64_t busy, uint64_t dropped)
{
	struct nlmsghdr *nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	struct nlattr *n;

	mnl_attr_put_strz(nlh, HVTRACE_A_VERSION, "0.2.0");
	mnl_attr_put_u32(nlh, HVTRACE_A_ABI, 3);
	mnl_attr_put_u32(nlh, HVTRACE_A_NR_CPUS, 8);
	n = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
	mnl_attr_put_u64(nlh, HVTRACE_ACCT_SEEN, 1);
	mnl_attr_nest_end(nlh, n);
	n = mnl_attr_nest_start(nlh, HVTRACE_A_WATCH);
	mnl_attr_put_u8(nlh, HVTRACE_WATCH_ARMED, armed);
	if (!armed)
		goto counters;
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_STALL_NS, 20000000);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_STALL_WINDOW_NS, 50000000);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_IRQ_NS, 100000000);
	mnl_attr_put_u32(nlh, HVTRACE_WATCH_HISTORY, 512);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_POST_NS, 5000000);
	mnl_attr_put_u32(nlh, HVTRACE_WATCH_RATE, 6);
	mnl_attr_put_u32(nlh, HVTRACE_WATCH_RATE_TOTAL, 60);
	mnl_attr_put(nlh, HVTRACE_WATCH_FILTER_VCPUS, 8,
		     &(uint64_t){ 0x3d });
	mnl_attr_put_u8(nlh, HVTRACE_WATCH_MARK_TRIGGERS, 1);
	mnl_attr_put_u32(nlh, HVTRACE_WATCH_MARK_PID, 4100);
counters:
	mnl_attr_put_u32(nlh, HVTRACE_WATCH_VCPUS, 4);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_MEM_BYTES, 3 << 20);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_CAPTURES, 9);
	mnl_attr_put_u32(nlh, HVTRACE_WATCH_PENDING, 1);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_DROPPED, dropped);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_SUPPRESSED_BUSY, busy);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_SUPPRESSED_RATE, 3);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_SUPPRESSED_TOTAL, 0);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_NO_HISTORY, armed ? 0 : 2);
	mnl_attr_put_u64(nlh, HVTRACE_WATCH_VCPU_BYTES, armed ? 128 << 10 : 0);
	mnl_attr_nest_end(nlh, n);
}

/* GET_STATUS with the watch armed and its counters. */
static void put_status(uint64_t busy, uint64_t dropped)
{
	put_status_armed(true, busy, dropped);
}

#define T0	5000000000000ULL	/* the trigger, local_clock */
#define MS	1000000ULL

/* Synthetic records, built in the vCPU's order. */
static struct hvtrace_event evs[64];
static unsigned int nev;
static uint64_t next_seq;

static struct hvtrace_event *add(uint8_t type, uint32_t reason,
				 uint64_t end, uint64_t dur)
{
	struct hvtrace_event *e = &evs[nev++];

	memset(e, 0, sizeof(*e));
	e->seq = next_seq++;
	e->type = type;
	e->isa = HVTRACE_ISA_SVM;
	e->reason = reason;
	e->ts_ns = end - dur;
	e->duration_ns = dur;
	e->vm_id = 3;
	e->vm_pid = 1200;
	e->vcpu_id = 2;
	e->tid = 1207;
	e->cpu_exit = 5;
	e->cpu_entry = 5;
	return e;
}

static void preemptor(struct hvtrace_event *e, uint32_t pid,
		      const char *comm, uint64_t ns)
{
	e->preempt_pid = pid;
	snprintf(e->preempt_comm, sizeof(e->preempt_comm), "%s", comm);
	e->preempt_ns = ns;
}

#define NPF	0x400
#define IOIO	0x7b
#define MSR	0x7c
#define HLT	0x78
#define CPUID	0x72
#define VINTR	0x64

/*
 * A stall: 10 NPF exits at page 0xfeb00000 (8 from rip 0x4016d0), 3
 * port I/O exits, then batch-job (207) takes the CPU for 30 ms and a
 * kworker for 5 ms; the trigger is the exit they happened in.
 */
static void stall_capture(struct hvc_capture *c)
{
	struct hvtrace_event *e;

	nev = 0;
	next_seq = 1000;
	for (unsigned int i = 0; i < 10; i++) {
		e = add(HVTRACE_EV_EXIT, NPF, T0 - 45 * MS + i * 1000, 500);
		e->flags = HVTRACE_EVF_ADDR_GPA | HVTRACE_EVF_RIP_VALID;
		e->addr = 0xfeb00010 + i * 8;
		e->info2 = e->addr;
		e->rip = i < 8 ? 0x4016d0 : 0x4016e0;
		/* Two of them landed on CPU 4 (the vCPU migrated). */
		if (i == 3 || i == 4)
			e->cpu_entry = 4;
	}
	for (unsigned int i = 0; i < 3; i++) {
		e = add(HVTRACE_EV_EXIT, IOIO, T0 - 44 * MS + i * 1000, 500);
		e->info1 = 0x71 << 16;
		e->flags = HVTRACE_EVF_RIP_VALID;
		e->rip = 0x1000;
	}
	e = add(HVTRACE_EV_PREEMPT, NPF, T0 - 6 * MS, 30 * MS);
	preemptor(e, 207, "batch-job", 30 * MS);
	e->part_ns[HVTRACE_PART_RUNNABLE] = 30 * MS;
	e = add(HVTRACE_EV_PREEMPT, NPF, T0 - 1 * MS, 5 * MS);
	preemptor(e, 99, "kworker/5:1", 5 * MS);
	e->part_ns[HVTRACE_PART_RUNNABLE] = 5 * MS;
	e = add(HVTRACE_EV_EXIT, NPF, T0, 43 * MS);
	e->flags = HVTRACE_EVF_ADDR_GPA | HVTRACE_EVF_RIP_VALID;
	e->addr = 0xfeb00040;
	e->rip = 0x4016d0;
	e->part_ns[HVTRACE_PART_RUNNABLE] = 41 * MS;
	preemptor(e, 207, "batch-job", 30 * MS);
	/* The post-trigger window: one exit after it. */
	e = add(HVTRACE_EV_EXIT, NPF, T0 + 2 * MS, 1000);
	e->flags = HVTRACE_EVF_ADDR_GPA;
	e->addr = 0xfeb00000;
	*c = (struct hvc_capture){
		.id = 1, .vm_id = 3, .vm_pid = 1200, .vcpu_id = 2, .tid = 1207,
		.trigger = HVTRACE_TRIGGER_STALL, .trigger_ts = T0,
		.value_ns = 43200000, .limit_ns = 20 * MS, .window_ns = 50 * MS,
		.first_seq = 1000, .trigger_seq = 1015, .end_seq = 1017,
		.suppressed = 2, .events = evs, .nr_events = nev,
	};
}

/* An exit trigger: port I/O, 12 ms of which 8 ms runnable (hog). */
static void exit_capture(struct hvc_capture *c)
{
	struct hvtrace_event *e;

	nev = 0;
	next_seq = 1;
	for (unsigned int i = 0; i < 6; i++) {
		e = add(HVTRACE_EV_EXIT, IOIO, T0 - 20 * MS + i * 1000, 300);
		e->info1 = (i < 4 ? 0x71 : 0x70) << 16;
		e->flags = HVTRACE_EVF_RIP_VALID;
		e->rip = 0xffffffff81000000ULL;
		e->vm_id = 1;
		e->vcpu_id = 0;
	}
	e = add(HVTRACE_EV_EXIT, IOIO, T0, 12 * MS);
	e->info1 = 0x71 << 16;
	e->part_ns[HVTRACE_PART_RUNNABLE] = 8 * MS;
	e->cpu_exit = 1;
	e->vm_id = 1;
	e->vcpu_id = 0;
	preemptor(e, 1234, "hog", 8 * MS);
	*c = (struct hvc_capture){
		.id = 2, .vm_id = 1, .vm_pid = 900, .vcpu_id = 0, .tid = 901,
		.trigger = HVTRACE_TRIGGER_EXIT, .trigger_ts = T0,
		.value_ns = 12 * MS, .limit_ns = 10 * MS,
		.on = HVTRACE_ON_TOTAL, .first_seq = 1, .trigger_seq = 7,
		.end_seq = 8, .events = evs, .nr_events = nev,
	};
}

/* Three writes of MSR 0x6e0 (TSC deadline) from rip 0x2000, from START. */
static void msr_exits(uint64_t start)
{
	struct hvtrace_event *e;

	for (unsigned int i = 0; i < 3; i++) {
		e = add(HVTRACE_EV_EXIT, MSR, start + i * 1000, 300);
		e->flags = HVTRACE_EVF_ADDR_MSR | HVTRACE_EVF_RIP_VALID;
		e->addr = 0x6e0;
		e->rip = 0x2000;
		e->info1 = 1;
	}
}

/* A preemption trigger: hog (1234) held CPU 1 for 40.1 ms. */
static void preempt_capture(struct hvc_capture *c)
{
	struct hvtrace_event *e;

	nev = 0;
	next_seq = 50;
	msr_exits(T0 - 50 * MS);
	e = add(HVTRACE_EV_PREEMPT, MSR, T0, 40100000);
	e->cpu_exit = 1;
	e->part_ns[HVTRACE_PART_RUNNABLE] = 40100000;
	preemptor(e, 1234, "hog", 40100000);
	*c = (struct hvc_capture){
		.id = 3, .vm_id = 1, .vm_pid = 900, .vcpu_id = 1, .tid = 902,
		.trigger = HVTRACE_TRIGGER_PREEMPT, .trigger_ts = T0,
		.value_ns = 40100000, .limit_ns = 40 * MS, .first_seq = 50,
		.trigger_seq = 53, .end_seq = 54, .events = evs,
		.nr_events = nev,
	};
}

/* A mark trigger: the guest's mark 7, after two HLT exits. */
static void mark_capture(struct hvc_capture *c)
{
	struct hvtrace_event *e;

	nev = 0;
	next_seq = 70;
	for (unsigned int i = 0; i < 2; i++) {
		e = add(HVTRACE_EV_EXIT, HLT, T0 - 5 * MS + i * 1000, 300);
		e->flags = HVTRACE_EVF_RIP_VALID;
		e->rip = 0x3000;
	}
	e = add(HVTRACE_EV_MARK, CPUID, T0, 0);
	e->info1 = 7;
	e->info2 = 123456789;
	e->mark.host_tsc = 123457000;
	e->mark.tsc_ratio = 1ULL << 48;
	e->mark.tsc_frac_bits = 48;
	*c = (struct hvc_capture){
		.id = 4, .vm_id = 3, .vm_pid = 1200, .vcpu_id = 0, .tid = 1201,
		.trigger = HVTRACE_TRIGGER_MARK, .trigger_ts = T0,
		.first_seq = 70, .trigger_seq = 72, .end_seq = 73,
		.events = evs, .nr_events = nev,
	};
}

/* Late interrupts' trigger exits: where their time went. */
enum irq_kind {
	IRQ_PREEMPTED,	/* HLT 150 ms, 148 ms runnable: hvhog (262) on CPU 0 */
	IRQ_HALTED,	/* HLT 150 ms, 140 ms halted, no preemption */
	IRQ_WAITED,	/* as preempted, no preemption record: the exit's own */
	IRQ_GUEST,	/* in the guest 49.9 ms, then VINTR 3 us */
	IRQ_LONG,	/* HLT 1 s, halted 990 ms; after the raise hvhog 8 ms */
};

static const struct {
	uint32_t reason;
	uint64_t value_ns;		/* raise to injection */
	uint64_t duration_ns, guest_ns, halt_ns, runnable_ns;
	uint64_t off_ns;		/* a preemption record's, 0: none */
	uint64_t noted_ns;		/* the exit's noted preemptor's */
} irq_exits[] = {
	[IRQ_PREEMPTED] = { HLT, 150200000, 150 * MS, 2 * MS, 1 * MS,
			    148 * MS, 148 * MS, 148 * MS },
	[IRQ_HALTED] = { HLT, 150200000, 150 * MS, 2 * MS, 140 * MS },
	[IRQ_WAITED] = { HLT, 150200000, 150 * MS, 2 * MS, 1 * MS, 148 * MS,
			 0, 148 * MS },
	[IRQ_GUEST] = { VINTR, 50 * MS, 3000, 49900000 },
	[IRQ_LONG] = { HLT, 10 * MS, 1000 * MS, 2 * MS, 990 * MS, 9 * MS,
		       8 * MS, 8 * MS },
};

/*
 * A late interrupt: vector 0xec, injected at the end of the trigger
 * exit KIND; three MSR exits before it.
 */
static void irq_capture(struct hvc_capture *c, enum irq_kind kind)
{
	typeof(irq_exits[0]) *x = &irq_exits[kind];
	struct hvtrace_event *e;

	nev = 0;
	next_seq = 90;
	msr_exits(T0 - 1200 * MS);
	/* Off CPU inside the trigger exit, switched in before its end. */
	if (x->off_ns) {
		e = add(HVTRACE_EV_PREEMPT, HLT, T0 - 1 * MS, x->off_ns);
		e->part_ns[HVTRACE_PART_RUNNABLE] = x->off_ns;
		preemptor(e, 262, "hvhog", x->off_ns);
	}
	e = add(HVTRACE_EV_EXIT, x->reason, T0, x->duration_ns);
	e->guest_ns = x->guest_ns;
	e->part_ns[HVTRACE_PART_HALT] = x->halt_ns;
	e->part_ns[HVTRACE_PART_RUNNABLE] = x->runnable_ns;
	if (x->noted_ns)
		preemptor(e, 262, "hvhog", x->noted_ns);
	for (unsigned int i = 0; i < nev; i++) {
		evs[i].vm_id = 1;
		evs[i].vcpu_id = 1;
		evs[i].tid = 902;
		evs[i].cpu_exit = 0;
		evs[i].cpu_entry = 0;
	}
	*c = (struct hvc_capture){
		.id = 5, .vm_id = 1, .vm_pid = 900, .vcpu_id = 1, .tid = 902,
		.trigger = HVTRACE_TRIGGER_IRQ, .irq_vector = 0xec,
		.trigger_ts = T0, .value_ns = x->value_ns,
		.limit_ns = 100 * MS, .first_seq = 90,
		.trigger_seq = next_seq - 1, .end_seq = next_seq,
		.events = evs, .nr_events = nev,
	};
}

/* irq_capture()'s kinds as made() takes them. */
static void irq_capture_preempted(struct hvc_capture *c)
{
	irq_capture(c, IRQ_PREEMPTED);
}

static void irq_capture_guest(struct hvc_capture *c)
{
	irq_capture(c, IRQ_GUEST);
}

static void story_of(struct capture_story *st, const struct hvc_capture *c,
		     char *line, size_t len)
{
	unsigned int trig = capture_find_seq(c->events, c->nr_events,
					     c->trigger_seq);

	CHECK(trig < c->nr_events);
	CHECK_INT(capture_story(st, c, c->events, c->nr_events, trig), 0);
	capture_story_line(line, len, st);
}

/* ST's evidence lines, to be freed. */
static char *evidence_of(const struct capture_story *st)
{
	char *ev = NULL;
	size_t n;
	FILE *f = open_memstream(&ev, &n);

	if (f) {
		capture_story_evidence(f, st);
		fclose(f);
	}
	return ev;
}

static void test_story(void)
{
	struct capture_story st;
	struct hvc_capture c;
	char line[1024], *ev;

	stall_capture(&c);
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "stall vm 3 vcpu 2: 43.20ms out of guest in 50ms: "
		  "41.00ms runnable (batch-job (207) on CPU 5); before it 10 "
		  "NPF exits at page 0xfeb00000 from rip 0x4016d0");
	CHECK_U64(st.pre_ns, 30 * MS);
	CHECK_U64(st.exits_before, 13);
	CHECK_U64(st.qual_count, 10);
	CHECK_U64(st.rip_count, 8);
	ev = evidence_of(&st);
	CHECK_STR(ev, "trigger:    stall, 43.20ms out of guest in 50ms "
		  "(limit 20ms)\n"
		  "vcpu:       vm 3 (pid 1200) vcpu 2 (tid 1207)\n"
		  "chain:      NPF (10 of 13 exits before it) -> page "
		  "0xfeb00000 (10) -> rip 0x4016d0 (8) -> batch-job (207) on "
		  "CPU 5 for 30.00ms\n"
		  "runnable:   41.00ms\n"
		  "suppressed: 2 triggers of this vCPU since its previous "
		  "capture\n");
	free(ev);

	exit_capture(&c);
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "exit vm 1 vcpu 0: IOIO 12.00ms (8.00ms runnable: hog "
		  "(1234) on CPU 1); before it 6 IOIO exits at port 0x71 from "
		  "rip 0xffffffff81000000");

	/* On a part: the part is named, and is the runnable one. */
	c.on = HVTRACE_ON_RUNNABLE;
	c.value_ns = 8 * MS;
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "exit vm 1 vcpu 0: IOIO 8.00ms runnable (hog (1234) on "
		  "CPU 1); before it 6 IOIO exits at port 0x71 from rip "
		  "0xffffffff81000000");

	preempt_capture(&c);
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "preempted vm 1 vcpu 1: 40.10ms by hog (1234) on CPU 1; "
		  "before it 3 MSR exits at msr 0x6e0 from rip 0x2000");

	/* The trigger record alone: nothing before it to tell. */
	c.events = &evs[3];
	c.nr_events = 1;
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "preempted vm 1 vcpu 1: 40.10ms by hog (1234) on CPU 1");

	/* A mark: what the guest passed; the exits before it as ever. */
	mark_capture(&c);
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "mark vm 3 vcpu 0: guest mark 7 (guest tsc 123456789); "
		  "before it 2 HLT exits from rip 0x3000");
	ev = evidence_of(&st);
	CHECK_STR(ev, "trigger:    mark 7, guest tsc 123456789\n"
		  "vcpu:       vm 3 (pid 1200) vcpu 0 (tid 1201)\n"
		  "chain:      HLT (2 of 2 exits before it) -> rip 0x3000 (2)\n");
	free(ev);
	/* Its record missing: the mark said without numbers. */
	c.nr_events = 2;
	CHECK_INT(capture_story(&st, &c, c.events, c.nr_events, 2), 0);
	capture_story_line(line, sizeof(line), &st);
	CHECK_STR(line, "mark vm 3 vcpu 0: guest mark (its record is not in "
		  "the capture); before it 2 HLT exits from rip 0x3000");
	/* One exit before it: "exit", not "exits". */
	mark_capture(&c);
	c.events = &evs[1];
	c.nr_events = 2;
	c.first_seq = 71;
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "mark vm 3 vcpu 0: guest mark 7 (guest tsc 123456789); "
		  "before it 1 HLT exit from rip 0x3000");

	CHECK_STR(capture_trigger_word(HVTRACE_TRIGGER_MARK), "mark");
	CHECK_INT(capture_trigger_parse("mark"), HVTRACE_TRIGGER_MARK);
	CHECK_STR(capture_trigger_word(HVTRACE_TRIGGER_PREEMPT), "preempted");
	CHECK_INT(capture_trigger_parse("stall"), HVTRACE_TRIGGER_STALL);
	CHECK_INT(capture_trigger_parse("nap"), -1);
}

/*
 * A late interrupt's story: the exit it was injected at, where its
 * delivery time went (no more than the records show), the evidence.
 */
static void test_irq_story(void)
{
	static const struct {
		enum irq_kind kind;
		const char *delivered, *line;
		enum story_part part;
		uint64_t part_ns;
	} want[] = {
		{ IRQ_PREEMPTED, "150.20ms", "HLT 150.00ms, preempted 148.00ms "
		  "by hvhog (262) on CPU 0", STORY_P_RUNNABLE, 148 * MS },
		/* Halted, not preempted: said so, and no task named. */
		{ IRQ_HALTED, "150.20ms", "HLT 150.00ms, halted 140.00ms",
		  STORY_P_HALT, 140 * MS },
		/* Runnable with no preemption record: the exit's noted task. */
		{ IRQ_WAITED, "150.20ms", "HLT 150.00ms, runnable 148.00ms "
		  "(hvhog (262) on CPU 0)", STORY_P_RUNNABLE, 148 * MS },
		/*
		 * Halted a second before the raise, preempted 8 ms after it:
		 * the halt is no part of the delivery, the preemption is.
		 */
		{ IRQ_LONG, "10.00ms", "HLT 1.000s, preempted 8.00ms by hvhog "
		  "(262) on CPU 0", STORY_P_RUNNABLE, 8 * MS },
		/* It waited in the guest: the exit that took it is no cause. */
		{ IRQ_GUEST, "50.00ms", "in the guest 49.90ms before VINTR "
		  "3.0us", STORY_P_GUEST, 49900000 },
	};
	struct capture_story st;
	struct hvc_capture c;
	char line[1024], text[1024], *ev;

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		enum irq_kind k = want[i].kind;

		irq_capture(&c, k);
		story_of(&st, &c, line, sizeof(line));
		snprintf(text, sizeof(text), "irq vm 1 vcpu 1: interrupt 0xec "
			 "delivered %s after its raise: %s; before it 3 MSR "
			 "exits at msr 0x6e0 from rip 0x2000",
			 want[i].delivered, want[i].line);
		CHECK_STR(line, text);
		CHECK_INT(st.delivery_part, want[i].part);
		CHECK_U64(st.delivery_part_ns, want[i].part_ns);
		CHECK_INT(st.pre_pid, k == IRQ_HALTED || k == IRQ_GUEST ? 0 :
				      262);
	}

	/* Word for word, the first: the sentence a watch prints. */
	irq_capture(&c, IRQ_PREEMPTED);
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "irq vm 1 vcpu 1: interrupt 0xec delivered 150.20ms "
		  "after its raise: HLT 150.00ms, preempted 148.00ms by hvhog "
		  "(262) on CPU 0; before it 3 MSR exits at msr 0x6e0 from "
		  "rip 0x2000");
	CHECK_U64(st.runnable_ns, 148 * MS);
	CHECK_U64(st.pre_ns, 148 * MS);
	ev = evidence_of(&st);
	CHECK_STR(ev, "trigger:    irq 0xec, 150.20ms after its raise (limit "
		  "100ms)\n"
		  "vcpu:       vm 1 (pid 900) vcpu 1 (tid 902)\n"
		  "chain:      MSR (3 of 3 exits before it) -> msr 0x6e0 (3) "
		  "-> rip 0x2000 (3) -> hvhog (262) on CPU 0 for 148.00ms\n"
		  "injected:   at the end of HLT 150.00ms; of the delivery, "
		  "148.00ms runnable\n"
		  "runnable:   148.00ms\n");
	free(ev);

	/* And the halted one: the dominant part is the halt, nobody held it. */
	irq_capture(&c, IRQ_HALTED);
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "irq vm 1 vcpu 1: interrupt 0xec delivered 150.20ms "
		  "after its raise: HLT 150.00ms, halted 140.00ms; before it 3 "
		  "MSR exits at msr 0x6e0 from rip 0x2000");
	CHECK_U64(st.runnable_ns, 0);

	irq_capture(&c, IRQ_GUEST);
	story_of(&st, &c, line, sizeof(line));
	ev = evidence_of(&st);
	CHECK_HAS(ev, "injected:   at the end of VINTR 3.0us; of the delivery, "
		  "49.90ms in the guest\n");
	free(ev);

	/* Its exit not in the capture: the interrupt, nothing made up. */
	irq_capture(&c, IRQ_PREEMPTED);
	c.nr_events = 3;
	CHECK_INT(capture_story(&st, &c, c.events, c.nr_events, 3), 0);
	capture_story_line(line, sizeof(line), &st);
	CHECK_STR(line, "irq vm 1 vcpu 1: interrupt 0xec delivered 150.20ms "
		  "after its raise; before it 3 MSR exits at msr 0x6e0 from "
		  "rip 0x2000");
	CHECK_INT(st.delivery_part, STORY_P_NONE);
	CHECK_U64(st.pre_pid, 0);

	CHECK_STR(capture_trigger_word(HVTRACE_TRIGGER_IRQ), "irq");
	CHECK_INT(capture_trigger_parse("irq"), HVTRACE_TRIGGER_IRQ);
}


/*
 * A late interrupt record (HVTRACE_EV_IRQ) among a capture's: it is told.
 * An irq trigger's own says exactly where the delivery time went, where
 * the exit and preemption records only bound it; in another trigger's
 * capture it is said beside the story. Its time is its raise, its end
 * the injection.
 */
static void test_story_irq_record(void)
{
	struct capture_story st;
	struct hvc_capture c;
	struct hvtrace_event *e;
	char line[1024], *ev;
	char *js = NULL;
	size_t n;
	FILE *f;
	struct out o;

	/* Runnable with no preemption record: the record's own split. */
	irq_capture(&c, IRQ_WAITED);
	e = add(HVTRACE_EV_IRQ, 0xec, T0 - 10000, 150200000);
	e->info1 = HVTRACE_VCPU_IRQ_TIMER;
	e->info2 = HLT;
	e->guest_ns = 200000;
	e->part_ns[HVTRACE_PART_HALT] = 500000;
	e->part_ns[HVTRACE_PART_RUNNABLE] = 149400000;
	preemptor(e, 262, "hvhog", 149 * MS);
	/* Another vector's, longer, injected elsewhere: not the trigger's. */
	e = add(HVTRACE_EV_IRQ, 0xef, T0 - 200 * MS, 190 * MS);
	e->info1 = HVTRACE_VCPU_IRQ_LOCAL;
	c.nr_events = nev;
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "irq vm 1 vcpu 1: interrupt 0xec delivered 150.20ms "
		  "after its raise: HLT 150.00ms, runnable 149.40ms (hvhog "
		  "(262) on CPU 0); before it 3 MSR exits at msr 0x6e0 from "
		  "rip 0x2000");
	CHECK(st.has_irq);
	CHECK_INT(st.delivery_part, STORY_P_RUNNABLE);
	CHECK_U64(st.delivery_part_ns, 149400000);
	CHECK_U64(st.runnable_ns, 149400000);
	/* The evidence after the chain (test_irq_story()'s): exact too. */
	ev = evidence_of(&st);
	CHECK_STR(ev ? strstr(ev, "hvhog (262) on CPU 0 for") : NULL,
		  "hvhog (262) on CPU 0 for 148.00ms\n"
		  "injected:   at the end of HLT 150.00ms; of the delivery, "
		  "149.40ms runnable\n"
		  "late irq:   0xec (timer), 150.20ms after its raise: runnable "
		  "149.40ms: preempted by hvhog (262)\n"
		  "runnable:   149.40ms\n");
	free(ev);

	/* Only the other vector's: not the trigger's delivery, untold. */
	irq_capture(&c, IRQ_WAITED);
	e = add(HVTRACE_EV_IRQ, 0xef, T0 - 10000, 150 * MS);
	c.nr_events = nev;
	story_of(&st, &c, line, sizeof(line));
	CHECK(!st.has_irq);
	CHECK_U64(st.delivery_part_ns, 148 * MS);

	/* A stall's capture: the longest late interrupt beside it. */
	stall_capture(&c);
	e = add(HVTRACE_EV_IRQ, 0xfb, T0 - 1 * MS, 1 * MS);
	e->info1 = HVTRACE_VCPU_IRQ_IPI;
	e->info2 = 0x60;
	e->guest_ns = 900000;
	e = add(HVTRACE_EV_IRQ, 0xef, T0 + 1 * MS, 2100000);
	e->info1 = HVTRACE_VCPU_IRQ_IPI;
	e->info2 = NPF;
	e->guest_ns = 100000;
	e->part_ns[HVTRACE_PART_RUNNABLE] = 1800000;
	preemptor(e, 4242, "stress-ng", 1800000);
	c.nr_events = nev;
	story_of(&st, &c, line, sizeof(line));
	CHECK_STR(line, "stall vm 3 vcpu 2: 43.20ms out of guest in 50ms: "
		  "41.00ms runnable (batch-job (207) on CPU 5); late interrupt "
		  "0xef (ipi) 2.10ms: runnable 1.80ms: preempted by stress-ng "
		  "(4242); before it 10 NPF exits at page 0xfeb00000 from rip "
		  "0x4016d0");
	CHECK_INT(st.delivery_part, STORY_P_NONE);
	ev = evidence_of(&st);
	CHECK_HAS(ev, "\nlate irq:   0xef (ipi), 2.10ms after its raise: "
		  "runnable 1.80ms: preempted by stress-ng (4242)\n"
		  "runnable:   41.00ms\n");
	free(ev);
	f = open_memstream(&js, &n);
	if (CHECK(f != NULL)) {
		out_init(&o, f, true);
		out_open_object(&o, NULL);
		capture_story_json(&o, &st, 0, NULL, 0, 0);
		out_close_object(&o);
		fclose(f);
		CHECK_HAS(js, ",\"late_interrupt\":{\"vector\":239,\"source\":"
			  "\"ipi\",\"latency_ns\":2100000,\"why\":\"runnable "
			  "1.80ms: preempted by stress-ng (4242)\"},");
		CHECK_HASNT(js, "delivery_part");
	}
	free(js);
}

static void test_names(void)
{
	char buf[64];

	capture_time_text(buf, sizeof(buf), 1000123456789ULL,
			1796211893000000000LL, "%Y%m%dT%H%M%S", "Z");
	CHECK_STR(buf, "20261202T120133.123Z");
	capture_time_text(buf, sizeof(buf), 1000123456789ULL,
			1796211893000000000LL, "%H:%M:%S", "");
	CHECK_STR(buf, "12:01:33.123");
	CHECK(watch_is_capture_name("20261202T120133.123Z-vm3-vcpu2"));
	CHECK(watch_is_capture_name("20261202T120133.123Z-vm3-vcpu2-17"));
	CHECK(!watch_is_capture_name("20261202T120133.123Z-vm3-vcpu"));
	CHECK(!watch_is_capture_name("20261202T120133.123Z-vm3-vcpu2-"));
	CHECK(!watch_is_capture_name("2026120T120133.123Z-vm3-vcpu2"));
	CHECK(!watch_is_capture_name("notes"));
	CHECK(!watch_is_capture_name(".tmp-20261202T120133.123Z-vm3-vcpu2"));
}

/* The READ_CAPTURES dump of capture C, its records in two messages. */
static void put_capture(const struct hvc_capture *c)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_READ_CAPTURES);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_CAPTURE);
	unsigned int half = c->nr_events / 2;

	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_ID, c->id);
	mnl_attr_put_u32(nlh, HVTRACE_CAPTURE_VM_ID, c->vm_id);
	mnl_attr_put_u32(nlh, HVTRACE_CAPTURE_VM_PID, c->vm_pid);
	mnl_attr_put_u32(nlh, HVTRACE_CAPTURE_VCPU_ID, c->vcpu_id);
	mnl_attr_put_u32(nlh, HVTRACE_CAPTURE_TID, c->tid);
	mnl_attr_put_u8(nlh, HVTRACE_CAPTURE_TRIGGER, c->trigger);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_TRIGGER_TS, c->trigger_ts);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_VALUE_NS, c->value_ns);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_LIMIT_NS, c->limit_ns);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_WINDOW_NS, c->window_ns);
	mnl_attr_put_u8(nlh, HVTRACE_CAPTURE_ON, c->on);
	if (c->trigger == HVTRACE_TRIGGER_IRQ)
		mnl_attr_put_u8(nlh, HVTRACE_CAPTURE_IRQ_VECTOR, c->irq_vector);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_FIRST_SEQ, c->first_seq);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_TRIGGER_SEQ, c->trigger_seq);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_END_SEQ, c->end_seq);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_SUPPRESSED, c->suppressed);
	mnl_attr_nest_end(nlh, n);
	nlh = fake_dump(HVTRACE_CMD_READ_CAPTURES);
	mnl_attr_put_u64(nlh, HVTRACE_A_CAPTURE_ID, c->id);
	mnl_attr_put(nlh, HVTRACE_A_EVENTS, half * sizeof(*c->events),
		     c->events);
	nlh = fake_dump(HVTRACE_CMD_READ_CAPTURES);
	mnl_attr_put_u64(nlh, HVTRACE_A_CAPTURE_ID, c->id);
	mnl_attr_put(nlh, HVTRACE_A_EVENTS,
		     (c->nr_events - half) * sizeof(*c->events),
		     c->events + half);
}

/* FN's capture into C, its records kept in KEEP (FN reuses evs). */
static void made(void (*fn)(struct hvc_capture *), struct hvc_capture *c,
		 struct hvtrace_event *keep)
{
	fn(c);
	memcpy(keep, evs, sizeof(evs));
	c->events = keep;
}

/* SIGTERM to ourselves in MS milliseconds: the watch's loop ends. */
static timer_t stop_timer(unsigned int ms)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGTERM,
	};
	struct itimerspec its = {
		.it_value = { .tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000L },
	};
	timer_t t;

	timer_create(CLOCK_MONOTONIC, &sev, &t);
	timer_settime(t, 0, &its, NULL);
	return t;
}

/* The path of the one capture in DIR whose name has PART, in BUF. */
static bool find_capture(const char *dir, const char *part, char *buf,
			 size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	while (d && (e = readdir(d)))
		if (watch_is_capture_name(e->d_name) &&
		    strstr(e->d_name, part)) {
			snprintf(buf, len, "%s/%s", dir, e->d_name);
			found = true;
		}
	if (d)
		closedir(d);
	return found;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 65536);

	if (f) {
		if (!fread(s, 1, 65535, f))
			s[0] = '\0';
		fclose(f);
	}
	return s;
}

/* Capture PATH's side file hvtrace/NAME, to be freed. */
static char *side_text(const char *path, const char *name)
{
	char file[1200];

	snprintf(file, sizeof(file), "%s/hvtrace/%s", path, name);
	return slurp(file);
}

/* A fresh module holding capture C to read, once. */
static void put_one(const struct hvc_capture *c)
{
	fake_reset();
	put_status(0, 0);
	put_capture(c);
	fake_dump_once[HVTRACE_CMD_READ_CAPTURES] = true;
}

/*
 * A fresh module holding three captures to read, once: a stall (vm 3
 * vcpu 2), an exit (vm 1 vcpu 0), a preemption (vm 1 vcpu 1).
 */
static void put_three(struct hvc_capture *stall, struct hvc_capture *ex,
		      struct hvc_capture *pre, struct hvtrace_event keep[3][64])
{
	fake_reset();
	put_status(0, 0);
	made(stall_capture, stall, keep[0]);
	made(exit_capture, ex, keep[1]);
	made(preempt_capture, pre, keep[2]);
	put_capture(stall);
	put_capture(ex);
	put_capture(pre);
	fake_dump_once[HVTRACE_CMD_READ_CAPTURES] = true;
}

static void test_run(void)
{
	struct hvc_capture stall, ex, pre;
	struct hvtrace_event keep[3][64];
	char *d = tmpdir("caps");
	char path[1024], file[1200], *out, *s;
	timer_t t;

	/* A .tmp-* a killed run left; and what is not ours stays. */
	mkdir(d, 0700);
	snprintf(file, sizeof(file), "%s/.tmp-20261202T000000.000Z-vm1-vcpu1",
		 d);
	mkdir(file, 0700);
	strcat(file, "/stream_0");
	close(open(file, O_CREAT | O_WRONLY, 0600));
	snprintf(file, sizeof(file), "%s/.tmp-mine", d);
	mkdir(file, 0700);

	put_three(&stall, &ex, &pre, keep);
	hvctl_json = false;
	t = stop_timer(300);
	CHECK_INT(WATCH_RUN(&out, "--stall", "20ms/50ms", "--history", "512",
			    "--vcpu", "0,2-5", "-o", d), 0);
	timer_delete(t);
	CHECK_HAS(out, " stall vm 3 vcpu 2: 43.20ms out of guest in 50ms: "
		  "41.00ms runnable (batch-job (207) on CPU 5); before it 10 "
		  "NPF exits at page 0xfeb00000 from rip 0x4016d0 -> ");
	CHECK_HAS(out, " exit vm 1 vcpu 0: IOIO 12.00ms (8.00ms runnable: hog "
		  "(1234) on CPU 1); before it 6 IOIO exits at port 0x71 from "
		  "rip 0xffffffff81000000 -> ");
	CHECK_HAS(out, " preempted vm 1 vcpu 1: 40.10ms by hog (1234) on CPU 1;"
		  " before it 3 MSR exits at msr 0x6e0 from rip 0x2000 -> ");
	CHECK_HAS(out, "-vm3-vcpu2\n");
	CHECK_HAS(out, "suppressed: 0 busy, 3 rate, 0 total; dropped: 0 "
		  "unread, 0 disk full; no history: 0 vCPUs\n");
	CHECK_HAS(out, "watching: stall 20ms/50ms, history 512, post "
		  "10ms, rate 6/min per vCPU, 60/min in all, vcpus 0,2-5; "
		  "captures into ");
	/* Bounded though no limit was given. */
	CHECK_HAS(out, ", at most 1000 captures and 1G (^C stops)\n");
	CHECK_HAS(out, "note: removed ");
	CHECK_HAS(out, "3 captures written, 0 dropped for a full disk\n");
	CHECK_HASNT(out, "warning");
	free(out);
	/* Armed with what was typed, stopped at the end. */
	CHECK_INT(fake_asked[HVTRACE_CMD_WATCH_START][0], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_WATCH_STOP][0], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_READ_CAPTURES][1], 2);
	/* The stale capture went, .tmp-mine (not a capture's) stayed. */
	CHECK_INT(count_entries(d, ".tmp-"), 1);
	CHECK_INT(count_entries(d, "2026"), 3);
	CHECK_INT(count_entries(d, ""), 4);

	CHECK(find_capture(d, "-vm3-vcpu2", path, sizeof(path)));
	s = side_text(path, "capture.json");
	CHECK_HAS(s, "\"trigger\":\"stall\",\"capture_id\":1,\"vm_id\":3,"
		  "\"vm_pid\":1200,\"vm_name\":\"\",\"vcpu\":2,\"tid\":1207,"
		  "\"trigger_ts_ns\":5000000000000,\"value_ns\":43200000,"
		  "\"limit_ns\":20000000,\"window_ns\":50000000,"
		  "\"first_seq\":1000,\"trigger_seq\":1015,\"end_seq\":1017,"
		  "\"suppressed\":2,\"records\":17,\"trigger_cpu\":5,"
		  "\"trigger_stream_seq\":14,\"story\":\"stall vm 3 vcpu 2:");
	CHECK_HAS(s, "\"runnable_ns\":41000000,\"preemptor\":{\"pid\":207,"
		  "\"comm\":\"batch-job\",\"vcpu\":false,\"cpu\":5,"
		  "\"ns\":30000000},\"before\":{\"exits\":13,\"reason\":\"NPF\","
		  "\"count\":10,\"page\":\"0xfeb00000\",\"qualifier_count\":10,"
		  "\"rip\":\"0x4016d0\",\"rip_count\":8}}\n");
	free(s);
	s = side_text(path, "summary.txt");
	CHECK_HAS(s, " UTC stall vm 3 vcpu 2: 43.20ms out of guest");
	CHECK_HAS(s, "\n\ntrigger:    stall, 43.20ms out of guest in 50ms");
	free(s);
	snprintf(file, sizeof(file), "%s/hvtrace/host.json", path);
	CHECK(exists(file));

	/* dump reads it as any trace: renumbered per CPU, nothing lost. */
	fake_reset();
	out = FAKE_OUTPUT(false, hvctl_cmd_dump, "dump", path, NULL);
	/* 12 NPF exits, and two preemption records "in NPF". */
	CHECK_INT(fake_count(out, " NPF "), 14);
	CHECK_INT(fake_count(out, " IOIO "), 3);
	CHECK_HASNT(out, "lost");
	CHECK_HASNT(out, "warning");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_dump, "dump", path, NULL);
	CHECK_INT(fake_count(out, "\"type\":\"preempt\""), 2);
	free(out);

	/* export --perfetto too: every record a slice. */
	snprintf(file, sizeof(file), "%s/capture.perfetto.json", top);
	fake_capture_begin();
	CHECK_INT(FAKE_RUN(hvctl_cmd_export, "export", path, "--perfetto",
			   file, NULL), 0);
	free(fake_capture_end());
	s = slurp(file);
	CHECK_INT(fake_count(s, "\"name\":\"NPF\""), 12);
	CHECK_INT(fake_count(s, "\"name\":\"IOIO\""), 3);
	free(s);

	/* report opens with the capture and its evidence chain. */
	out = FAKE_OUTPUT(false, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "Capture\n");
	CHECK_HAS(out, "stall vm 3 vcpu 2: 43.20ms out of guest in 50ms: "
		  "41.00ms runnable (batch-job (207) on CPU 5); before it 10 "
		  "NPF exits at page 0xfeb00000 from rip 0x4016d0\n");
	CHECK_HAS(out, "chain:      NPF (10 of 13 exits before it) -> page "
		  "0xfeb00000 (10) -> rip 0x4016d0 (8) -> batch-job (207) on "
		  "CPU 5 for 30.00ms\n");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "{\"capture\":{\"time\":\"");
	CHECK_HAS(out, "Z\",\"trigger\":\"stall\",\"capture_id\":1,");
	CHECK_HAS(out, "\"trigger_stream_seq\":14,\"story\":\"stall vm 3 ");
	CHECK_HAS(out, "\"rip_count\":8}},\"trace\":{");
	free(out);

	/* --html: the page has the capture after its title. */
	snprintf(file, sizeof(file), "%s/capture.html", top);
	fake_capture_begin();
	CHECK_INT(FAKE_RUN(hvctl_cmd_report, "report", path, "--html", file,
			   NULL), 0);
	free(fake_capture_end());
	s = slurp(file);
	CHECK_HAS(s, "<section id=\"capture\"><h2>Capture</h2><p>stall vm 3 "
		  "vcpu 2: 43.20ms out of guest in 50ms: 41.00ms runnable "
		  "(batch-job (207) on CPU 5); before it 10 NPF exits at page "
		  "0xfeb00000 from rip 0x4016d0</p><pre>trigger:    stall, ");
	CHECK_HAS(s, "chain:      NPF (10 of 13 exits before it) -&gt; page "
		  "0xfeb00000 (10) -&gt; rip 0x4016d0 (8) -&gt; batch-job (207) "
		  "on CPU 5 for 30.00ms\n");
	CHECK(strstr(s, "id=\"summary\"") && strstr(s, "id=\"capture\"") &&
	      strstr(s, "id=\"summary\"") < strstr(s, "id=\"capture\""));
	free(s);

	/* A capture.json that is a FIFO: a warning, the rest reported. */
	snprintf(file, sizeof(file), "%s/hvtrace/capture.json", path);
	unlink(file);
	mkfifo(file, 0600);
	out = FAKE_OUTPUT(false, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "hvctl: warning: ");
	CHECK_HAS(out, "/hvtrace/capture.json: not a regular file, not read: "
		  "no Capture section\n");
	CHECK_HASNT(out, "Capture\n");
	CHECK_HAS(out, "Exit reasons, by time");
	free(out);

	/* A capture of a module refused: the message, the option, no DIR. */
	fake_reset();
	fake_refuse(HVTRACE_CMD_WATCH_START, ENOMEM, "max_vcpus histories "
		    "of 60000 records exceed half of the memory available",
		    HVTRACE_WATCH_HISTORY);
	put_status(0, 0);
	CHECK_INT(WATCH_RUN(&out, "--stall", "20ms/50ms", "--history",
			    "60000", "-o", tmpdir("refused")), 1);
	CHECK_STR(fake_err, "max_vcpus histories of 60000 records exceed half "
		  "of the memory available (--history 60000)");
	CHECK(!exists(tmpdir("refused")));
	CHECK_INT(fake_asked[HVTRACE_CMD_READ_CAPTURES][1], 0);
	free(out);

	/* Guest marks: a refusal of either attribute names what was typed. */
	fake_reset();
	fake_refuse(HVTRACE_CMD_WATCH_START, EINVAL, "no VMM of that pid",
		    HVTRACE_WATCH_MARK_PID);
	put_status(0, 0);
	CHECK_INT(WATCH_RUN(&out, "--guest-mark=4100", "-o",
			    tmpdir("refused")), 1);
	CHECK_STR(fake_err, "no VMM of that pid (--guest-mark=4100)");
	free(out);
	fake_reset();
	fake_refuse(HVTRACE_CMD_WATCH_START, EOPNOTSUPP, "no guest marks",
		    HVTRACE_WATCH_MARK_TRIGGERS);
	put_status(0, 0);
	CHECK_INT(WATCH_RUN(&out, "--exit", "5ms", "--guest-mark", "-o",
			    tmpdir("refused")), 1);
	CHECK_STR(fake_err, "no guest marks (--guest-mark)");
	free(out);
}

/* A full disk: the capture is dropped, counted, nothing left behind. */
static void test_disk_full(void)
{
	struct hvc_capture stall, ex, pre;
	struct hvtrace_event keep[3][64];
	char *d = tmpdir("full");
	char one[512], path[1024], *out;
	timer_t t;

	fake_reset();
	put_status(1, 2);
	made(stall_capture, &stall, keep[0]);
	made(exit_capture, &ex, keep[1]);
	put_capture(&stall);
	put_capture(&ex);
	fake_dump_once[HVTRACE_CMD_READ_CAPTURES] = true;
	hvctl_json = false;
	fake_write_err = ENOSPC;
	t = stop_timer(300);
	CHECK_INT(WATCH_RUN(&out, "--exit", "10ms", "-o", d), 0);
	timer_delete(t);
	fake_write_err = 0;
	CHECK_HAS(out, "hvctl: writing ");
	CHECK_HAS(out, "-vm3-vcpu2/stream_4: No space left on device: capture "
		  "1 (vm 3 vcpu 2) dropped, 1 so far for a full disk; going on\n");
	CHECK_HAS(out, ": No space left on device: capture 2 (vm 1 vcpu 0) "
		  "dropped, 2 so far for a full disk; going on\n");
	/* Said once, in its context: not as an error too. */
	CHECK_HASNT(out, "Error:");
	CHECK_HAS(out, "suppressed: 1 busy, 3 rate, 0 total; dropped: 2 "
		  "unread, 2 disk full; no history: 0 vCPUs\n");
	CHECK_HAS(out, "0 captures written, 2 dropped for a full disk\n");
	free(out);
	CHECK_INT(count_entries(d, ""), 0);

	/*
	 * The disk full for the second capture only: the first is written
	 * before and the third after, each whole and readable; nothing is
	 * left of the second, not even its .tmp- directory.
	 */
	snprintf(one, sizeof(one), "%s", tmpdir("full-one"));
	put_three(&stall, &ex, &pre, keep);
	fake_write_err = ENOSPC;
	fake_write_only = "-vm1-vcpu0/";
	t = stop_timer(300);
	CHECK_INT(WATCH_RUN(&out, "--exit", "10ms", "-o", one), 0);
	timer_delete(t);
	fake_write_err = 0;
	fake_write_only = NULL;
	CHECK_HAS(out, ": No space left on device: capture 2 (vm 1 vcpu 0) "
		  "dropped, 1 so far for a full disk; going on\n");
	CHECK_HAS(out, "2 captures written, 1 dropped for a full disk\n");
	free(out);
	CHECK_INT(count_entries(one, ".tmp-"), 0);
	CHECK_INT(count_entries(one, "-vm1-vcpu0"), 0);
	CHECK_INT(count_entries(one, "2026"), 2);
	CHECK(find_capture(one, "-vm3-vcpu2", path, sizeof(path)));
	out = FAKE_OUTPUT(false, hvctl_cmd_dump, "dump", path, NULL);
	CHECK_INT(fake_count(out, " NPF "), 14);
	CHECK_HASNT(out, "warning");
	free(out);
	CHECK(find_capture(one, "-vm1-vcpu1", path, sizeof(path)));
	out = FAKE_OUTPUT(true, hvctl_cmd_dump, "dump", path, NULL);
	CHECK_HAS(out, "\"type\":\"preempt\"");
	CHECK_HASNT(out, "warning");
	free(out);

	/* JSON: one object a line, the capture's members and its path. */
	ex.end_seq = 10;	/* two records the dump does not hold */
	put_one(&ex);
	hvctl_json = true;
	t = stop_timer(300);
	CHECK_INT(WATCH_RUN(&out, "--exit", "10ms", "-o", d), 0);
	timer_delete(t);
	hvctl_json = false;
	CHECK_HAS(out, ",\"trigger\":\"exit\",\"capture_id\":2,\"vm_id\":1,");
	CHECK_HAS(out, "\"part\":\"total\",");
	CHECK_HAS(out, "\"path\":\"");
	CHECK_HAS(out, "hvctl: warning: capture 2 holds 7 records, the module "
		  "numbered 9 (1 to 9)\n");
	CHECK_HAS(out, "-vm1-vcpu0\"}\n{\"suppressed_busy\":0,"
		  "\"suppressed_rate\":3,");
	free(out);
	CHECK_INT(count_entries(d, "2026"), 1);
	CHECK_INT(count_entries(d, ""), 1);
}

/* A capture dir named for time TS with BYTES in one stream file. */
static void fake_dir(const char *d, const char *name, size_t bytes)
{
	char path[1024];
	char *buf = calloc(1, bytes + 1);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", d, name);
	mkdir(path, 0700);
	strcat(path, "/stream_0");
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	if (__real_write(fd, buf, bytes) != (ssize_t)bytes)
		CHECK(0);
	close(fd);
	free(buf);
}

static void test_prune(void)
{
	char *d = tmpdir("prune");
	struct watch_dir wd = { .dir = d };
	char path[1024];

	mkdir(d, 0700);
	fake_dir(d, "20261202T120001.000Z-vm1-vcpu0", 600);
	fake_dir(d, "20261202T120002.000Z-vm1-vcpu1", 600);
	fake_dir(d, "20261202T120003.000Z-vm2-vcpu0", 600);
	fake_dir(d, "20261202T120004.000Z-vm2-vcpu0-9", 600);
	fake_dir(d, "notes", 100000);
	/* No limit: nothing goes. */
	CHECK_INT(watch_prune(&wd), 0);
	/* By count: the oldest two. */
	wd.keep = 2;
	CHECK_INT(watch_prune(&wd), 2);
	CHECK(!exists(tmpdir("prune/20261202T120001.000Z-vm1-vcpu0")));
	CHECK(!exists(tmpdir("prune/20261202T120002.000Z-vm1-vcpu1")));
	CHECK(exists(tmpdir("prune/20261202T120003.000Z-vm2-vcpu0")));
	CHECK(exists(tmpdir("prune/20261202T120004.000Z-vm2-vcpu0-9")));
	/* By size: 1200 bytes > 1K, the older goes; "notes" is not ours. */
	wd.keep = 0;
	wd.max_kib = 1;
	CHECK_INT(watch_prune(&wd), 1);
	CHECK(exists(tmpdir("prune/20261202T120004.000Z-vm2-vcpu0-9")));
	CHECK(exists(tmpdir("prune/notes")));
	/* The newest stays, however large. */
	fake_dir(d, "20261202T120005.000Z-vm2-vcpu0", 5000);
	CHECK_INT(watch_prune(&wd), 1);
	CHECK_INT(count_entries(d, "2026"), 1);
	snprintf(path, sizeof(path), "%s/20261202T120005.000Z-vm2-vcpu0", d);
	CHECK(exists(path));
}

/* -o DIR that cannot hold captures: refused before the module is asked. */
static void test_bad_dir(void)
{
	char file[512], *out;

	snprintf(file, sizeof(file), "%s/plain", top);
	close(open(file, O_CREAT | O_WRONLY, 0600));
	fake_reset();
	CHECK_INT(WATCH_RUN(&out, "--exit", "5ms", "-o", file), 1);
	CHECK_HAS(fake_err, "/plain is not a directory (-o takes the directory "
		  "the captures go into)");
	CHECK_INT(fake_opens, 0);
	free(out);
	strcat(file, "/sub");
	CHECK_INT(WATCH_RUN(&out, "--exit", "5ms", "-o", file), 1);
	CHECK_HAS(fake_err, "/plain/sub: Not a directory");
	CHECK_INT(fake_opens, 0);
	free(out);
	/* Without root's privilege, a directory we may not write. */
	if (geteuid()) {
		char *ro = tmpdir("ro");

		mkdir(ro, 0500);
		CHECK_INT(WATCH_RUN(&out, "--exit", "5ms", "-o", ro), 1);
		CHECK_HAS(fake_err, "cannot write captures into ");
		CHECK_INT(fake_opens, 0);
		free(out);
	}
}

/* status shows the watch: settings and counters, text and JSON. */
static void test_status(void)
{
	char *out;

	fake_reset();
	put_status(4, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  watch:         armed: stall 20ms/50ms, irq latency "
		  "100ms, guest marks of vm 4100, history 512, post 5ms, rate 6/min per vCPU, 60/min in all, vcpus "
		  "0,2-5\n"
		  "                 4 vCPUs with a history, 3.0 MiB held (128.0 "
		  "KiB a vCPU, 8 ready for new ones)\n"
		  "                 captures: 9 since armed, 1 pending, 1 "
		  "dropped unread\n"
		  "                 suppressed: 4 busy, 3 rate, 0 total\n");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"watch\":{\"armed\":true,\"exit_ns\":0,\"stall_ns\":"
		  "20000000,\"stall_window_ns\":50000000,\"preempt_ns\":0,"
		  "\"irq_ns\":100000000,\"mark_triggers\":true,\"mark_pid\":4100,\"history\":512,\"post_ns\":5000000,\"rate\":6,"
		  "\"rate_total\":60,\"pid\":0,\"vcpus\":\"0,2-5\","
		  "\"vcpus_with_history\":4,\"mem_bytes\":3145728,"
		  "\"vcpu_bytes\":131072,\"captures\":9,\"pending\":1,\"dropped\":1,"
		  "\"suppressed_busy\":4,\"suppressed_rate\":3,"
		  "\"suppressed_total\":0,\"no_history\":0}");
	free(out);

	/* Not armed: said so, the counters still shown; no history loud. */
	fake_reset();
	put_status_armed(false, 0, 0);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  watch:         not armed\n"
		  "                 4 vCPUs with a history, 3.0 MiB held\n");
	CHECK_HAS(out, "                 no history: 2 vCPUs (no memory): "
		  "their stalls are NOT caught\n");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"watch\":{\"armed\":false,\"vcpus_with_history\":4,");
	free(out);
}

/* TEXT written into NAME under the test's directory: its path. */
static char *conf_file(const char *name, const char *text)
{
	char *p = tmpdir(name);
	FILE *f = fopen(p, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

/* The WATCH attribute TYPE of the last request, or NULL. */
static const struct nlattr *watch_attr(uint16_t type)
{
	const struct nlattr *a, *w;

	mnl_attr_for_each(a, (struct nlmsghdr *)fake_req,
			  sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == HVTRACE_A_WATCH)
			mnl_attr_for_each_nested(w, a)
				if (mnl_attr_get_type(w) == type)
					return w;
	return NULL;
}

/*
 * watch ARGS with the module refusing WATCH_START for ATTR: what it sent
 * is in fake_req, what the refusal named in fake_err. Its exit status.
 */
#define REFUSED_RUN(attr, ...) ({					\
	int _r;								\
	char *_o;							\
	fake_reset();							\
	put_status_armed(false, 0, 0);					\
	fake_refuse(HVTRACE_CMD_WATCH_START, EINVAL, "refused", (attr)); \
	_r = WATCH_RUN(&_o, __VA_ARGS__);				\
	free(_o);							\
	_r;								\
})

/*
 * A run that captures nothing, with CONF and --keep KEEP, --max-size
 * MAX_SIZE where not NULL (else options at their defaults, given once
 * each): its first line says WANT of its limits.
 */
static void check_limits(const char *want, char *conf, char *keep,
			 char *max_size)
{
	char *d = tmpdir("limits"), *out;
	timer_t t;

	fake_reset();
	put_status(0, 0);
	hvctl_json = false;
	t = stop_timer(100);
	CHECK_INT(WATCH_RUN(&out, "--exit", "5ms", "--config", conf,
			    keep ? "--keep" : "--post", keep ? keep : "10ms",
			    max_size ? "--max-size" : "--history",
			    max_size ? max_size : "256", "-o", d), 0);
	timer_delete(t);
	CHECK_HAS(out, want);
	free(out);
}

/* --keep and --max-size: 1000 and 1G unless given, "none" lifts them. */
static void test_limits(void)
{
	char empty[512], lifted[512];

	/* Copied: tmpdir()'s names are reused after eight more. */
	snprintf(empty, sizeof(empty), "%s", conf_file("empty.conf",
						       "# nothing\n"));
	snprintf(lifted, sizeof(lifted), "%s",
		 conf_file("lifted.conf", "watch.keep none\n"
			   "watch.max-size none\n"));

	check_limits(", at most 1000 captures and 1G (^C", empty, NULL, NULL);
	check_limits(", no limit (^C", lifted, NULL, NULL);
	check_limits(", at most 7 captures and 1G (^C", empty, "7", NULL);
	check_limits(", at most 1000 captures and 2M (^C", empty, NULL,
		     "2048K");
	check_limits(", at most 1000 captures and 1500K (^C", empty, NULL,
		     "1500");
	check_limits(", at most 3M (^C", empty, "none", "3M");
	check_limits(", at most 5 captures (^C", lifted, "5", NULL);
	check_limits(", at most 1000 captures and 2T (^C", lifted, "1000",
		     "2T");
	CHECK_BAD("--max-size must be more than 0 (none: no limit)", "--exit",
		  "5ms", "--max-size", "0", "-o", tmpdir("limits"));
}

/* --config FILE: the watch.* keys, under what is typed. */
static void test_config(void)
{
	char *dir = tmpdir("config-captures"), *path, want[600];

	path = conf_file("watch.conf", "threshold 1ms\n"
			 "watch.stall 20ms/50ms\nwatch.history 512\n"
			 "watch.rate 7\nwatch.vcpu 1\n");
	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_HISTORY, "--config", path, "-o",
			      dir), 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_WATCH_START][0], 1);
	CHECK_STR(fake_err, "refused (watch.history 512)");
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_STALL_NS)), 20000000);
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_STALL_WINDOW_NS)),
		  50000000);
	CHECK_INT(hvnl_u32(watch_attr(HVTRACE_WATCH_HISTORY)), 512);
	CHECK_INT(hvnl_u32(watch_attr(HVTRACE_WATCH_RATE)), 7);
	CHECK(watch_attr(HVTRACE_WATCH_FILTER_VCPUS));
	CHECK(!watch_attr(HVTRACE_WATCH_EXIT_NS));
	CHECK(!exists(dir));
	/* What is typed wins, before or after --config. */
	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_HISTORY, "--history", "64",
			      "--config", path, "--exit", "5ms", "-o", dir), 1);
	CHECK_STR(fake_err, "refused (--history 64)");
	CHECK_INT(hvnl_u32(watch_attr(HVTRACE_WATCH_HISTORY)), 64);
	CHECK_INT(hvnl_u32(watch_attr(HVTRACE_WATCH_RATE)), 7);
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_EXIT_NS)), 5000000);
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_STALL_NS)), 20000000);
	/* The directory from the file too. */
	snprintf(want, sizeof(want), "watch.dir %s\nwatch.preempted 3ms\n",
		 dir);
	path = conf_file("dir.conf", want);
	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_PREEMPT_NS, "--config", path), 1);
	CHECK_STR(fake_err, "refused (watch.preempted 3ms)");
	/* A bad line anywhere in it: the module is not asked. */
	path = conf_file("bad.conf", "watch.exit 5ms\nbuffer.size 2\n");
	CHECK_INT(REFUSED_RUN(0, "--config", path, "-o", dir), 1);
	snprintf(want, sizeof(want), "%s:2: buffer.size: buffer size 2 out of "
		 "range 4K..256M", path);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_opens, 0);
	/* The file and the command line together, checked as one. */
	path = conf_file("none.conf", "watch.history 5\n");
	CHECK_INT(REFUSED_RUN(0, "--config", path, "-o", dir), 2);
	CHECK_STR(fake_err, "no trigger: give --exit DUR, --stall X/Y, "
		  "--preempted DUR, --irq-latency DUR or --guest-mark");
	path = conf_file("on.conf", "watch.stall 1ms/2ms\n");
	CHECK_INT(REFUSED_RUN(0, "--config", path, "--on", "vmm", "-o", dir),
		  2);
	CHECK_STR(fake_err, "--on goes with --exit");
	CHECK_INT(fake_opens, 0);
	CHECK_INT(REFUSED_RUN(0, "--config", "/nonexistent.conf", "--exit",
			      "1ms", "-o", dir), 1);
	CHECK_STR(fake_err, "cannot read /nonexistent.conf: No such file or "
		  "directory");
}

/*
 * --irq-latency and watch.irq-latency: sent as IRQ_NS, a refusal (no
 * timed delivery) naming what was typed; a late interrupt's capture
 * written, its vector in capture.json, and report telling the same story.
 */
static void test_irq(void)
{
	struct hvtrace_event keep[64];
	struct hvc_capture c;
	char *d = tmpdir("irq"), *dir = tmpdir("irq-refused");
	char path[1024], file[1200], *out, *s;
	timer_t t;
	FILE *f;

	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_IRQ_NS, "--irq-latency", "100ms",
			      "-o", dir), 1);
	CHECK_STR(fake_err, "refused (--irq-latency 100ms)");
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_IRQ_NS)), 100000000);
	CHECK(!watch_attr(HVTRACE_WATCH_EXIT_NS));
	CHECK(!exists(dir));
	/* Not given: not sent. */
	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_EXIT_NS, "--exit", "5ms", "-o",
			      dir), 1);
	CHECK(!watch_attr(HVTRACE_WATCH_IRQ_NS));
	/* Where delivery is not timed, the module's word and the option. */
	fake_reset();
	fake_refuse(HVTRACE_CMD_WATCH_START, EOPNOTSUPP, "interrupt delivery "
		    "is not timed on this host", HVTRACE_WATCH_IRQ_NS);
	put_status(0, 0);
	CHECK_INT(WATCH_RUN(&out, "--exit", "5ms", "--irq-latency", "100ms",
			    "-o", dir), 1);
	CHECK_STR(fake_err, "interrupt delivery is not timed on this host "
		  "(--irq-latency 100ms)");
	CHECK(!exists(dir));
	free(out);
	s = conf_file("irq.conf", "watch.irq-latency 50ms\n");
	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_IRQ_NS, "--config", s, "-o", dir),
		  1);
	CHECK_STR(fake_err, "refused (watch.irq-latency 50ms)");
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_IRQ_NS)), 50000000);
	/* What is typed wins over the file. */
	CHECK_INT(REFUSED_RUN(HVTRACE_WATCH_IRQ_NS, "--config", s,
			      "--irq-latency", "2ms", "-o", dir), 1);
	CHECK_STR(fake_err, "refused (--irq-latency 2ms)");
	CHECK_U64(hvnl_u64(watch_attr(HVTRACE_WATCH_IRQ_NS)), 2000000);

	/* A late interrupt's capture: its line, its files. */
	made(irq_capture_preempted, &c, keep);
	put_one(&c);
	hvctl_json = false;
	t = stop_timer(300);
	CHECK_INT(WATCH_RUN(&out, "--irq-latency", "100ms", "-o", d), 0);
	timer_delete(t);
	CHECK_HAS(out, "watching: irq latency 100ms, history 256 (default), ");
	CHECK_HAS(out, " irq vm 1 vcpu 1: interrupt 0xec delivered 150.20ms "
		  "after its raise: HLT 150.00ms, preempted 148.00ms by hvhog "
		  "(262) on CPU 0; before it 3 MSR exits at msr 0x6e0 from "
		  "rip 0x2000 -> ");
	CHECK_HAS(out, "1 captures written, 0 dropped for a full disk\n");
	CHECK_HASNT(out, "warning");
	free(out);
	CHECK(find_capture(d, "-vm1-vcpu1", path, sizeof(path)));
	s = side_text(path, "capture.json");
	CHECK_HAS(s, "\"trigger\":\"irq\",\"capture_id\":5,");
	CHECK_HAS(s, "\"value_ns\":150200000,\"limit_ns\":100000000,"
		  "\"irq_vector\":236,\"first_seq\":90,");
	CHECK_HAS(s, "\"runnable_ns\":148000000,\"delivery_part\":"
		  "\"runnable\",\"delivery_part_ns\":148000000,\"preemptor\":"
		  "{\"pid\":262,\"comm\":\"hvhog\",");
	free(s);
	s = side_text(path, "summary.txt");
	CHECK_HAS(s, " UTC irq vm 1 vcpu 1: interrupt 0xec delivered ");
	CHECK_HAS(s, "\n\ntrigger:    irq 0xec, 150.20ms after its raise "
		  "(limit 100ms)\n");
	free(s);

	/* report reads the trigger and the vector back: the same story. */
	out = FAKE_OUTPUT(false, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "Capture\n  irq vm 1 vcpu 1: interrupt 0xec delivered "
		  "150.20ms after its raise: HLT 150.00ms, preempted 148.00ms "
		  "by hvhog (262) on CPU 0; before it 3 MSR exits at msr 0x6e0 "
		  "from rip 0x2000\n");
	CHECK_HAS(out, "  trigger:    irq 0xec, 150.20ms after its raise "
		  "(limit 100ms)\n");
	CHECK_HAS(out, "  injected:   at the end of HLT 150.00ms; of the "
		  "delivery, 148.00ms runnable\n");
	CHECK_HASNT(out, "warning");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "Z\",\"trigger\":\"irq\",\"capture_id\":5,");
	CHECK_HAS(out, "\"irq_vector\":236,");
	CHECK_HAS(out, "\"delivery_part\":\"runnable\",");
	free(out);
	/* A vector that is no byte: damage, the rest reported. */
	s = side_text(path, "capture.json");
	memcpy(strstr(s, "\"irq_vector\":236") + 13, "999", 3);
	snprintf(file, sizeof(file), "%s/hvtrace/capture.json", path);
	f = fopen(file, "w");
	if (f) {
		fputs(s, f);
		fclose(f);
	}
	free(s);
	out = FAKE_OUTPUT(false, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "/hvtrace/capture.json: a number is not one: no Capture "
		  "section\n");
	CHECK_HASNT(out, "Capture\n");
	free(out);

	/* It waited in the guest: the trace keeps the guest time too. */
	made(irq_capture_guest, &c, keep);
	put_one(&c);
	t = stop_timer(300);
	CHECK_INT(WATCH_RUN(&out, "--irq-latency", "10ms", "-o",
			    tmpdir("irq-guest")), 0);
	timer_delete(t);
	CHECK_HAS(out, ": in the guest 49.90ms before VINTR 3.0us; ");
	free(out);
	CHECK(find_capture(tmpdir("irq-guest"), "-vm1-vcpu1", path,
			   sizeof(path)));
	out = FAKE_OUTPUT(false, hvctl_cmd_report, "report", path, NULL);
	CHECK_HAS(out, "interrupt 0xec delivered 50.00ms after its raise: in "
		  "the guest 49.90ms before VINTR 3.0us; ");
	free(out);
}

int main(void)
{
	snprintf(top, sizeof(top), "/tmp/hvctl-watch-test.XXXXXX");
	if (!mkdtemp(top))
		return 1;
	test_bad_options();
	test_story();
	test_irq_story();
	test_story_irq_record();
	test_names();
	test_run();
	test_disk_full();
	test_prune();
	test_bad_dir();
	test_status();
	test_config();
	test_limits();
	test_irq();
	/* HVT_KEEP=1 keeps the captures, to look at them. */
	if (!getenv("HVT_KEEP")) {
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
		if (system(cmd))
			CHECK(0);
	} else {
		fprintf(stderr, "# kept %s\n", top);
	}
	return unit_report();
}
