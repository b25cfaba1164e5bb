// SPDX-License-Identifier: GPL-2.0
/*
 * user/trace/trace_read.c with user/trace/trace_write.c: both kinds of record come
 * back field for field (the time split, handling computed by the writer,
 * the preemptor, its command name made printable), in end-time order;
 * records of an unknown type are skipped and counted; traces of another
 * format are refused with a message that names it; a damaged packet is
 * skipped whole and counted, or with TRACE_STRICT an error naming its
 * offset; implausible events are returned and counted per rule. A guest
 * mark comes back with its clocks, plausible, as dump's line says it. A
 * late interrupt comes back in its vendor's class, its vector no exit
 * reason, its guest time in the split, as dump's lines say it.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event_fields.h"
#include "trace_read.h"
#include "trace_write.h"
#include "unit.h"

static char dir[64];

static const struct trace_env env = {
	.hostname = "unit", .kernel = "6.1.0", .cpu_vendor = "AuthenticAMD",
	.hvtrace_version = "test",
};

/* An NPF exit of 10us on CPU 1: 1us VMM, 2us halt, 3us runnable, 0.5us other. */
static struct hvtrace_event exit_event(void)
{
	struct hvtrace_event e = {
		.seq = 2, .ts_ns = 1000000, .duration_ns = 10000,
		.info1 = 0xb, .info2 = 0xfebf0010, .addr = 0xfebf0010,
		.rip = 0xffffffff81603000ULL, .reason = 0x400, .vcpu_id = 3,
		.vm_id = 1, .vm_pid = 4000, .tid = 4004, .cpu_exit = 0,
		.cpu_entry = 1, .isa = HVTRACE_ISA_SVM, .type = HVTRACE_EV_EXIT,
		.flags = HVTRACE_EVF_RIP_VALID | HVTRACE_EVF_ADDR_GPA |
			 HVTRACE_EVF_PREEMPT_VCPU,
		.preempt_pid = 4101, .preempt_ns = 2500, .guest_ns = 777,
		.preempt_comm = "CPU 0/KVM",
	};

	e.part_ns[HVTRACE_PART_VMM] = 1000;
	e.part_ns[HVTRACE_PART_HALT] = 2000;
	e.part_ns[HVTRACE_PART_RUNNABLE] = 3000;
	e.part_ns[HVTRACE_PART_OTHER] = 500;
	return e;
}

/* Its preemption: 3us off CPU from 1.002ms, by a task with an odd name. */
static struct hvtrace_event preempt_event(void)
{
	struct hvtrace_event e = exit_event();

	e.seq = 1;
	e.type = HVTRACE_EV_PREEMPT;
	e.ts_ns = 1002000;
	e.duration_ns = e.preempt_ns = 3000;
	e.cpu_exit = e.cpu_entry = 1;
	e.flags &= ~HVTRACE_EVF_PREEMPT_VCPU;
	e.preempt_pid = 31337;
	e.guest_ns = 0;
	memset(e.part_ns, 0, sizeof(e.part_ns));
	e.part_ns[HVTRACE_PART_RUNNABLE] = 3000;
	memcpy(e.preempt_comm, "tab\there\xff\x01xyzUVWXY", HVTRACE_COMM_LEN);
	return e;
}

static void write_trace(void)
{
	struct trace_writer *w = trace_create(dir, 2, &env);
	struct hvtrace_event pre = preempt_event(), ex = exit_event();
	struct hvtrace_event odd = ex;

	if (!CHECK(w != NULL))
		exit(1);
	odd.type = 7;		/* a kind this format has no class for */
	CHECK_INT(trace_append(w, &pre), 0);
	CHECK_INT(trace_append(w, &odd), 0);
	CHECK_INT(trace_append(w, &ex), 0);
	CHECK_U64(trace_events(w), 2);
	CHECK_U64(trace_skipped(w), 1);
	CHECK_INT(trace_finish(w), 0);
}

static void test_round_trip(void)
{
	struct hvtrace_event pre = preempt_event(), ex = exit_event();
	char err[512], comm[TRACE_COMM_BUF];
	struct trace_reader *r;
	struct trace_event ev;

	write_trace();
	r = trace_open(dir, 0, err, sizeof(err));
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return;

	/* The preemption ends first (its switch-in), so it comes first. */
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK(trace_is_preempt(&ev));
	CHECK_INT(ev.id, TRACE_EV_PREEMPT_SVM);
	CHECK_U64(ev.ts_ns, pre.ts_ns + pre.duration_ns);
	CHECK_U64(trace_exit_ns(&ev), pre.ts_ns);
	CHECK_U64(ev.e.duration_ns, 3000);
	CHECK_U64(ev.e.handling_ns, 0);
	CHECK_U64(ev.e.part_ns[HVTRACE_PART_RUNNABLE], 3000);
	CHECK_U64(ev.e.preempt_pid, 31337);
	CHECK_U64(ev.e.preempt_ns, 3000);
	CHECK_INT(ev.e.type, HVTRACE_EV_PREEMPT);
	CHECK_INT(ev.e.reason, 0x400);
	CHECK_U64(ev.e.rip, pre.rip);
	/* Printable, cut at 15 bytes, NUL-padded: what babeltrace2 prints. */
	CHECK_STR(trace_comm(&ev.e, comm), "tab?here??xyzUV");
	CHECK_INT(ev.e.preempt_comm[15], 0);
	CHECK(!(ev.e.flags & HVTRACE_EVF_PREEMPT_VCPU));

	CHECK_INT(trace_next(r, &ev), 1);
	CHECK(!trace_is_preempt(&ev));
	CHECK_INT(ev.id, TRACE_EV_EXIT_SVM);
	CHECK_INT(ev.cpu, 1);
	CHECK_U64(ev.ts_ns, ex.ts_ns + ex.duration_ns);
	CHECK_U64(ev.e.seq, 2);
	CHECK_U64(ev.e.duration_ns, 10000);
	/* 10us less 1 + 2 + 3 + 0.5 */
	CHECK_U64(ev.e.handling_ns, 3500);
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		CHECK_U64(ev.e.part_ns[i], ex.part_ns[i]);
	CHECK_U64(ev.e.guest_ns, 777);
	CHECK_U64(ev.e.info1, 0xb);
	CHECK_U64(ev.e.info2, 0xfebf0010);
	CHECK_U64(ev.e.addr, 0xfebf0010);
	CHECK_INT(ev.e.vcpu_id, 3);
	CHECK_INT(ev.e.vm_id, 1);
	CHECK_INT(ev.e.vm_pid, 4000);
	CHECK_INT(ev.e.tid, 4004);
	CHECK_INT(ev.e.cpu_exit, 0);
	CHECK_INT(ev.e.cpu_entry, 1);
	CHECK_INT(ev.e.flags, ex.flags);
	CHECK_U64(ev.e.preempt_pid, 4101);
	CHECK_U64(ev.e.preempt_ns, 2500);
	CHECK_STR(trace_comm(&ev.e, comm), "CPU 0/KVM");

	CHECK_INT(trace_next(r, &ev), 0);
	trace_close(r);
}

/* A new trace DIR/NAME (its path in SUB) of the N events EVS, in order. */
static bool write_sub(const char *name, const struct hvtrace_event *evs,
		      unsigned int n, char *sub, size_t len)
{
	struct trace_writer *w;

	snprintf(sub, len, "%s/%s", dir, name);
	w = trace_create(sub, 2, &env);
	if (!CHECK(w != NULL))
		return false;
	for (unsigned int i = 0; i < n; i++)
		CHECK_INT(trace_append(w, &evs[i]), 0);
	CHECK_U64(trace_events(w), n);
	CHECK_U64(trace_skipped(w), 0);
	CHECK_INT(trace_finish(w), 0);
	return true;
}

/*
 * A VMX guest mark 7 at 2ms on CPU 1: the vCPU's TSC runs at 1.5 times
 * the host's (48 fraction bits) less 7e12, so 5e12 host cycles are 5e11
 * guest cycles (the product needs 128 bits); the guest read its TSC 1211
 * cycles before the exit.
 */
static struct hvtrace_event mark_event(void)
{
	struct hvtrace_event e = {
		.seq = 5, .ts_ns = 2000000, .info1 = 7,
		.info2 = 500000000000ULL - 1211, .rip = 0x1088, .reason = 10,
		.vcpu_id = 3, .vm_id = 1, .vm_pid = 4000, .tid = 4004,
		.cpu_exit = 1, .cpu_entry = 1, .isa = HVTRACE_ISA_VMX,
		.type = HVTRACE_EV_MARK, .flags = HVTRACE_EVF_RIP_VALID,
	};

	e.mark.host_tsc = 5000000000000ULL;
	e.mark.tsc_offset = -7000000000000ULL;
	e.mark.tsc_ratio = 3ULL << 47;
	e.mark.tsc_frac_bits = 48;
	return e;
}

static void test_mark_round_trip(void)
{
	struct hvtrace_event evs[2] = { exit_event(), mark_event() };
	const struct hvtrace_event mark = evs[1];
	char sub[96], err[512], line[EVENT_LINE_MAX];
	struct trace_reader *r;
	struct trace_info info;
	struct trace_event ev;
	struct event_view v;

	if (!write_sub("marks", evs, 2, sub, sizeof(sub)))
		return;
	r = trace_open(sub, TRACE_STRICT, err, sizeof(err));
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return;
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK_INT(trace_event_type(&ev), HVTRACE_EV_EXIT);
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK_INT(ev.id, TRACE_EV_MARK_VMX);
	CHECK(trace_is_mark(&ev) && !trace_is_preempt(&ev));
	CHECK_INT(trace_event_type(&ev), HVTRACE_EV_MARK);
	/* Its time is its exit's: no duration. */
	CHECK_U64(ev.ts_ns, mark.ts_ns);
	CHECK_U64(trace_exit_ns(&ev), mark.ts_ns);
	CHECK_U64(ev.e.duration_ns, 0);
	CHECK_U64(ev.e.handling_ns, 0);
	CHECK_U64(ev.e.info1, 7);
	CHECK_U64(ev.e.info2, mark.info2);
	CHECK_U64(ev.e.mark.host_tsc, mark.mark.host_tsc);
	CHECK_U64(ev.e.mark.tsc_offset, mark.mark.tsc_offset);
	CHECK_U64(ev.e.mark.tsc_ratio, mark.mark.tsc_ratio);
	CHECK_U64(ev.e.mark.tsc_frac_bits, 48);
	CHECK_U64(ev.e.rip, 0x1088);
	CHECK_INT(ev.e.vcpu_id, 3);

	event_view_trace(&v, &ev.e, trace_event_type(&ev), ev.ts_ns, ev.cpu,
			 "CPUID", "vm1", "");
	CHECK_STR(v.type, "mark");
	CHECK_U64(v.guest_tsc_at_exit, 500000000000ULL);
	/* The clocks are not a time split. */
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
		CHECK_U64(v.part_ns[i], 0);
	*event_text(line, &v) = '\0';
	CHECK_STR(line, "[0.002000] vm vm1 pid 4000 vcpu3 cpu1 mark 7 rip "
		  "0x1088 guest tsc 499999998789 (at the exit: 500000000000, "
		  "+1211 cycles)");

	CHECK_INT(trace_next(r, &ev), 0);
	trace_get_info(r, &info);
	CHECK_U64(info.implausible, 0);
	CHECK_U64(info.damaged_packets, 0);
	trace_close(r);
}

/*
 * A late interrupt of vCPU 3 on CPU 1, injected at 3.05ms after a HLT
 * exit of ISA (VMX 12, SVM 0x78; none: 0): vector 0xec raised by its
 * LAPIC timer 50us before, 10us of it in the guest, 30us halted, 5us
 * runnable (4us of which "hog", 31337, ran), so 5us of handling.
 */
static struct hvtrace_event irq_event(unsigned int isa)
{
	struct hvtrace_event e = {
		.seq = 7, .ts_ns = 3000000, .duration_ns = 50000,
		.info1 = HVTRACE_VCPU_IRQ_TIMER, .reason = 0xec, .vcpu_id = 3,
		.vm_id = 1, .vm_pid = 4000, .tid = 4004, .cpu_exit = 1,
		.cpu_entry = 1, .isa = isa, .type = HVTRACE_EV_IRQ,
		.preempt_pid = 31337, .preempt_ns = 4000, .guest_ns = 10000,
		.preempt_comm = "hog",
	};

	e.info2 = isa == HVTRACE_ISA_VMX ? 12 : isa == HVTRACE_ISA_SVM ? 0x78 : 0;
	e.part_ns[HVTRACE_PART_HALT] = 30000;
	e.part_ns[HVTRACE_PART_RUNNABLE] = 5000;
	return e;
}

/* The VMX one, read back field for field, as dump's lines say it. */
static void check_irq_vmx(const struct trace_event *ev)
{
	char comm[TRACE_COMM_BUF], line[EVENT_LINE_MAX];
	struct event_fmt f;
	struct event_view v;

	CHECK_INT(ev->id, TRACE_EV_IRQ_VMX);
	CHECK(trace_is_irq(ev) && !trace_is_mark(ev) && !trace_is_preempt(ev));
	CHECK_INT(trace_event_type(ev), HVTRACE_EV_IRQ);
	/* The header's time is the injection; the start is the raise. */
	CHECK_U64(ev->ts_ns, 3050000);
	CHECK_U64(trace_exit_ns(ev), 3000000);
	CHECK_U64(ev->e.duration_ns, 50000);
	CHECK_U64(ev->e.handling_ns, 5000);
	CHECK_U64(ev->e.guest_ns, 10000);
	CHECK_U64(ev->e.part_ns[HVTRACE_PART_HALT], 30000);
	CHECK_U64(ev->e.part_ns[HVTRACE_PART_RUNNABLE], 5000);
	CHECK_INT(ev->e.reason, 0xec);
	CHECK_U64(ev->e.info1, HVTRACE_VCPU_IRQ_TIMER);
	CHECK_U64(ev->e.info2, 12);
	/* Named and filtered by its last exit, never by its vector. */
	CHECK_INT(trace_exit_reason(ev), 12);
	CHECK_STR(trace_comm(&ev->e, comm), "hog");

	event_view_trace(&v, &ev->e, trace_event_type(ev), ev->ts_ns, ev->cpu,
			 "HLT", "vm1", comm);
	CHECK(v.irq && !v.mark && !v.preempt);
	CHECK_U64(v.vector, 0xec);
	CHECK_U64(v.code, 12);
	CHECK_STR(v.source, "timer");
	CHECK_U64(v.part_ns[0], 5000);
	CHECK_STR(v.gpa_class, NULL);
	*event_text(line, &v) = '\0';
	CHECK_STR(line, "[0.003000] vm vm1 pid 4000 vcpu3 cpu1 irq 0xec timer "
		  "late 50.0us after HLT: handling 5.0us vmm 0ns halt 30.0us "
		  "runnable 5.0us other 0ns guest 10.0us; preempted by hog "
		  "(31337) for 4.0us");
	event_fmt_init(&f, EF_DUMP);
	*event_json(line, &f, &v) = '\0';
	CHECK_STR(line, "{\"type\":\"irq\",\"seq\":7,\"ts_ns\":3000000,"
		  "\"entry_ns\":3050000,\"duration_ns\":50000,\"reason\":\"HLT\","
		  "\"isa\":1,\"code\":12,\"info1\":16,\"info2\":12,"
		  "\"intr_info\":0,\"error_code\":0,\"vm\":\"vm1\",\"vm_id\":1,"
		  "\"vm_pid\":4000,\"vcpu\":3,\"tid\":4004,\"cpu_exit\":1,"
		  "\"cpu\":1,\"flags\":0,\"handling_ns\":5000,\"vmm_ns\":0,"
		  "\"halt_ns\":30000,\"runnable_ns\":5000,\"other_ns\":0,"
		  "\"guest_ns\":10000,\"preempt_pid\":31337,"
		  "\"preempt_comm\":\"hog\",\"preempt_vcpu\":false,"
		  "\"preempt_ns\":4000,\"vector\":236,\"source\":\"timer\"}");
}

/* The text of DIR's metadata, NUL-terminated, in BUF. */
static void read_metadata(const char *d, char *buf, size_t len)
{
	char path[128];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", d);
	f = fopen(path, "r");
	if (CHECK(f != NULL)) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/*
 * Their classes: the vector a plain integer, the source and the last
 * exit's reason by name (the reason enums again, 64 bits wide, as info2
 * is); the exits' class as it was.
 */
static void check_irq_metadata(const char *d)
{
	static char md[65536];

	read_metadata(d, md, sizeof(md));
	CHECK_HAS(md, "\thvtrace_format = 4;\n");
	CHECK_HAS(md, "enum irq_source_t : uint64_t {\n\t\"local\" = 1,\n"
		  "\t\"ipi\" = 2,\n\t\"device\" = 8,\n\t\"timer\" = 16,\n};\n");
	CHECK_HAS(md, "enum vmx_reason64_t : uint64_t {\n"
		  "\t\"EXCEPTION_NMI\" = 0,\n");
	CHECK_HAS(md, "enum svm_reason64_t : uint64_t {\n");
	CHECK_HAS(md, "event {\n\tname = \"vcpu_irq_vmx\";\n\tid = 10;\n"
		  "\tstream_id = 0;\n\tfields := struct {\n"
		  "\t\tuint64_t seq;\n\t\tuint64_t duration_ns;\n"
		  "\t\tuint64_t handling_ns;\n\t\tuint64_t vmm_ns;\n"
		  "\t\tuint64_t halt_ns;\n\t\tuint64_t runnable_ns;\n"
		  "\t\tuint64_t other_ns;\n\t\tuint64_t guest_ns;\n"
		  "\t\tenum irq_source_t source;\n"
		  "\t\tenum vmx_reason64_t last_exit_reason;\n"
		  "\t\thex64_t addr;\n\t\thex64_t rip;\n"
		  "\t\thex32_t vector;\n\t\thex32_t intr_info;\n");
	CHECK_HAS(md, "\tname = \"vcpu_irq_svm\";\n\tid = 11;\n");
	CHECK_HAS(md, "\t\tenum svm_reason64_t last_exit_reason;\n");
	CHECK_HAS(md, "\tname = \"vcpu_irq\";\n\tid = 12;\n");
	CHECK_HAS(md, "\t\tenum irq_source_t source;\n"
		  "\t\tuint64_t last_exit_reason;\n");
	CHECK_HAS(md, "\tname = \"kvm_exit_vmx\";\n\tid = 1;\n");
	CHECK_HAS(md, "\t\thex64_t info1;\n\t\thex64_t info2;\n"
		  "\t\thex64_t addr;\n\t\thex64_t rip;\n"
		  "\t\tenum vmx_reason_t reason;\n");
}

/*
 * Late interrupts of each vendor's class and none's, plausible (the
 * guest time is in the split), between an exit and a mark.
 */
static void test_irq_round_trip(void)
{
	struct hvtrace_event evs[4] = {
		exit_event(), irq_event(HVTRACE_ISA_VMX),
		irq_event(HVTRACE_ISA_SVM), irq_event(HVTRACE_ISA_UNKNOWN),
	};
	char sub[96], err[512];
	struct trace_reader *r;
	struct trace_info info;
	struct trace_event ev;

	/* An IPI on SVM, a device's on none, each 0.1ms later. */
	evs[2].seq = 8;
	evs[2].ts_ns += 100000;
	evs[2].reason = 0xfd;
	evs[2].info1 = HVTRACE_VCPU_IRQ_IPI;
	evs[3].seq = 9;
	evs[3].ts_ns += 200000;
	evs[3].reason = 0x22;
	evs[3].info1 = HVTRACE_VCPU_IRQ_DEVICE;
	if (!write_sub("irqs", evs, 4, sub, sizeof(sub)))
		return;
	check_irq_metadata(sub);
	r = trace_open(sub, TRACE_STRICT, err, sizeof(err));
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return;
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK_INT(trace_event_type(&ev), HVTRACE_EV_EXIT);
	CHECK(!trace_is_irq(&ev));
	CHECK_INT(trace_exit_reason(&ev), 0x400);
	CHECK_INT(trace_next(r, &ev), 1);
	check_irq_vmx(&ev);
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK_INT(ev.id, TRACE_EV_IRQ_SVM);
	CHECK_INT(ev.e.reason, 0xfd);
	CHECK_INT(trace_exit_reason(&ev), 0x78);
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK_INT(ev.id, TRACE_EV_IRQ_UNKNOWN);
	CHECK_INT(trace_event_type(&ev), HVTRACE_EV_IRQ);
	CHECK_U64(ev.e.handling_ns, 5000);
	CHECK_INT(trace_next(r, &ev), 0);
	trace_get_info(r, &info);
	CHECK_U64(info.implausible, 0);
	trace_close(r);
}

/*
 * A trace NAME of late interrupt E alone, read: its implausible events,
 * the warning in WARN; with TRACE_STRICT trace_next() must fail.
 */
static uint64_t odd_irq(const struct hvtrace_event *e, const char *name,
			char *warn, size_t len)
{
	struct trace_info info = { 0 };
	char sub[96], err[512];
	struct trace_reader *r;
	struct trace_event ev;
	FILE *f;

	if (!write_sub(name, e, 1, sub, sizeof(sub)))
		return 0;
	r = trace_open(sub, 0, err, sizeof(err));
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return 0;
	CHECK_INT(trace_next(r, &ev), 1);
	CHECK_INT(trace_next(r, &ev), 0);
	trace_get_info(r, &info);
	f = fmemopen(warn, len, "w");
	if (CHECK(f != NULL)) {
		trace_print_warnings(r, f);
		fclose(f);
	}
	trace_close(r);
	r = trace_open(sub, TRACE_STRICT, err, sizeof(err));
	if (CHECK_MSG(r != NULL, "trace_open: %s", err))
		CHECK_INT(trace_next(r, &ev), -1);
	trace_close(r);
	return info.implausible;
}

/*
 * What cannot be a late interrupt: a vector past 0xff (the reason rule),
 * a guest time longer than the wait (the split rule: the writer's
 * handling cannot go below 0). Returned, counted, said.
 */
static void test_irq_implausible(void)
{
	struct hvtrace_event big = irq_event(HVTRACE_ISA_SVM);
	struct hvtrace_event over = irq_event(HVTRACE_ISA_SVM);
	char warn[1024];

	big.reason = 0x1ec;
	CHECK_U64(odd_irq(&big, "big-vector", warn, sizeof(warn)), 1);
	CHECK_MSG(strstr(warn, "1 implausible event, used as they are "
			 "(reason: 1); the first: ") &&
		  strstr(warn, "/stream_1: event at offset 68 (packet 0): "
			 "implausible: vector 0x1ec is above 0xff"),
		  "warning: %s", warn);
	over.guest_ns = 60000;
	CHECK_U64(odd_irq(&over, "long-guest", warn, sizeof(warn)), 1);
	CHECK_MSG(strstr(warn, "(split: 1)") &&
		  strstr(warn, "implausible: guest time, handling and the "
			 "parts add up to 95000ns, not to its duration "
			 "50000ns"), "warning: %s", warn);
}

/* What trace_open() says once SED has changed the metadata's format. */
static void check_format(const char *sed, const char *want)
{
	char cmd[256], err[512];
	struct trace_reader *r;

	snprintf(cmd, sizeof(cmd), "sed -i '/hvtrace_format = /%s' %s/metadata",
		 sed, dir);
	if (!CHECK(system(cmd) == 0))
		return;
	r = trace_open(dir, 0, err, sizeof(err));
	CHECK_MSG(!r, "a trace of another format opened");
	CHECK_MSG(strstr(err, want), "\"%s\" lacks \"%s\"", err, want);
	trace_close(r);
}

static void test_formats(void)
{
	check_format("s/= 4;/= 5;/", "trace format 5, from a newer hvctl");
	check_format("s/= 5;/= x;/", "hvtrace_format is not a version number");
	check_format("d", "trace format 1, from an older (before ABI 2) hvctl; "
		     "this one reads formats 2 to 4");
}

/* Three full packets of exits on CPU 0: NR_DAMAGE events, 1us apart. */
#define NR_DAMAGE	(3 * TRACE_EVENTS_PER_PACKET)

/* A new trace of N exits 1us apart, taking turns on CPUS CPUs. */
static void write_exits(unsigned int cpus, unsigned int n)
{
	struct trace_writer *w;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/*", dir);
	if (!CHECK(system(cmd) == 0))
		exit(1);
	w = trace_create(dir, cpus, &env);
	if (!CHECK(w != NULL))
		exit(1);
	for (unsigned int i = 0; i < n; i++) {
		struct hvtrace_event e = exit_event();

		e.seq = i;
		e.ts_ns = 1000000 + i * 1000ULL;
		e.cpu_exit = e.cpu_entry = i % cpus;
		e.duration_ns = 100;
		memset(e.part_ns, 0, sizeof(e.part_ns));
		CHECK_INT(trace_append(w, &e), 0);
	}
	CHECK_INT(trace_finish(w), 0);
}

static void write_packets(void)
{
	write_exits(1, NR_DAMAGE);
}

/* Write LEN bytes of DATA at OFF of stream_0. */
static void poke(long off, const void *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/stream_0", dir);
	fd = open(path, O_WRONLY);
	if (CHECK(fd >= 0))
		CHECK(pwrite(fd, data, len, off) == (ssize_t)len);
	close(fd);
}

/* Events trace_next() returns before its end (0) or an error (-1: ERR). */
static unsigned int read_all(unsigned int flags, int *last, char *err,
			     size_t len, struct trace_info *info,
			     char *warn, size_t wlen)
{
	struct trace_reader *r = trace_open(dir, flags, err, len);
	struct trace_event ev;
	unsigned int n = 0;
	FILE *f;

	*last = -2;
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return 0;
	while ((*last = trace_next(r, &ev)) > 0)
		n++;
	snprintf(err, len, "%s", trace_error(r));
	trace_get_info(r, info);
	f = fmemopen(warn, wlen, "w");
	if (CHECK(f != NULL)) {
		trace_print_warnings(r, f);
		fclose(f);
	}
	trace_close(r);
	return n;
}

#define EV_OFF(pkt, i)	((pkt) * TRACE_PACKET_SIZE + TRACE_PACKET_HEAD + \
			 (i) * TRACE_EVENT_SIZE)

static void test_damage(void)
{
	const unsigned int per = TRACE_EVENTS_PER_PACKET;
	char err[512], warn[1024];
	struct trace_info info;
	uint64_t big = 1ULL << 62;
	uint16_t id = 77;
	int last;

	/* The middle packet's magic: that packet is skipped, the rest read. */
	write_packets();
	poke(TRACE_PACKET_SIZE, "XXXX", 4);
	CHECK_INT(read_all(0, &last, err, sizeof(err), &info, warn,
			   sizeof(warn)), NR_DAMAGE - per);
	CHECK_INT(last, 0);
	CHECK_U64(info.damaged_packets, 1);
	CHECK_U64(info.packets, 2);
	CHECK_MSG(strstr(warn, "hvctl: warning: skipped 1 damaged packet "
			 "(stream_0: 1); the first: ") &&
		  strstr(warn, "/stream_0: packet 1 (offset 4096): bad magic "
			 "0x58585858\n"), "warning: %s", warn);
	/* Strict: the first packet's events, then the error at its offset. */
	CHECK_INT(read_all(TRACE_STRICT, &last, err, sizeof(err), &info, warn,
			   sizeof(warn)), per);
	CHECK_INT(last, -1);
	CHECK_MSG(strstr(err, "/stream_0: packet 1 (offset 4096): bad magic"),
		  "error: %s", err);
	/* The error says it: no warning counts the packet again. */
	CHECK_MSG(!strstr(warn, "damaged"), "warning: %s", warn);

	/* An unknown id in the last packet's middle: all of it goes. */
	write_packets();
	poke(EV_OFF(2, 5), &id, sizeof(id));
	CHECK_INT(read_all(0, &last, err, sizeof(err), &info, warn,
			   sizeof(warn)), NR_DAMAGE - per);
	CHECK_MSG(strstr(warn, "packet 2 (offset 8192): event 5: unknown "
			 "event id 77"), "warning: %s", warn);

	/* A time going back: the packet holding it is the damaged one. */
	write_packets();
	poke(EV_OFF(1, 7) + 2, "\0\0\0\0", 4);
	CHECK_INT(read_all(0, &last, err, sizeof(err), &info, warn,
			   sizeof(warn)), NR_DAMAGE - per);
	CHECK_U64(info.damaged_packets, 1);

	/* A huge duration: returned, but implausible twice over. */
	write_packets();
	poke(EV_OFF(0, 3) + 10 + 8, &big, sizeof(big));
	CHECK_INT(read_all(0, &last, err, sizeof(err), &info, warn,
			   sizeof(warn)), NR_DAMAGE);
	CHECK_U64(info.implausible, 1);
	CHECK_U64(info.damaged_packets, 0);
	CHECK_MSG(strstr(warn, "hvctl: warning: 1 implausible event, used as "
			 "they are (duration: 1, split: 1); the first: ") &&
		  strstr(warn, "/stream_0: event at offset 578 (packet 0): "
			 "implausible: duration 4611686018427387904ns is "
			 "longer than the clock had run"), "warning: %s", warn);
	CHECK_INT(read_all(TRACE_STRICT, &last, err, sizeof(err), &info, warn,
			   sizeof(warn)), 0);
	CHECK_INT(last, -1);
	CHECK_MSG(strstr(err, "event at offset 578 (packet 0): implausible"),
		  "error: %s", err);
}

/* Two CPUs' exits (write_exits()), NR_EACH each, over 2+ packets. */
#define NR_EACH		(TRACE_EVENTS_PER_PACKET + 7)

/*
 * TRACE_ANY_ORDER: every event once, a stream to its end before the
 * next; the trace's figures as a merged read's.
 */
static void test_any_order(void)
{
	struct trace_info merged = { 0 }, any = { 0 };
	unsigned int n[2] = { 0 }, cpu = 0, switches = 0;
	uint64_t prev[2] = { 0 }, prev_ts = 0;
	bool sorted = true, rising = true;
	char err[512];
	struct trace_reader *r;
	struct trace_event ev;

	write_exits(2, 2 * NR_EACH);
	r = trace_open(dir, 0, err, sizeof(err));
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return;
	while (trace_next(r, &ev) > 0) {
		sorted &= ev.ts_ns > prev_ts;
		prev_ts = ev.ts_ns;
	}
	trace_get_info(r, &merged);
	trace_close(r);
	CHECK(sorted);

	r = trace_open(dir, TRACE_ANY_ORDER, err, sizeof(err));
	if (!CHECK_MSG(r != NULL, "trace_open: %s", err))
		return;
	for (unsigned int i = 0; trace_next(r, &ev) > 0; i++) {
		if (!CHECK(ev.cpu < 2))
			break;
		if (i && ev.cpu != cpu)
			switches++;
		cpu = ev.cpu;
		rising &= ev.ts_ns > prev[cpu];
		prev[cpu] = ev.ts_ns;
		n[cpu]++;
	}
	CHECK_STR(trace_error(r), "");
	trace_get_info(r, &any);
	trace_close(r);
	CHECK_INT(n[0], NR_EACH);
	CHECK_INT(n[1], NR_EACH);
	CHECK_INT(switches, 1);
	CHECK(rising);
	CHECK_U64(any.events, merged.events);
	CHECK_U64(any.events, 2 * NR_EACH);
	CHECK_U64(any.packets, merged.packets);
	CHECK_U64(any.first_ts, merged.first_ts);
	CHECK_U64(any.last_ts, merged.last_ts);
}

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/trace_read_test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_round_trip();
	test_mark_round_trip();
	test_irq_round_trip();
	test_irq_implausible();
	test_formats();
	test_damage();
	test_any_order();
	cleanup();
	return unit_report();
}
