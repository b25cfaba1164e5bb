// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl drain: exits with their time split and preemptor, exits that never
 * re-entered (no_entry), and preemption records, as JSON objects and text
 * lines (dump's), from a READ_EVENTS dump.
 */
#include "fake_nl.h"

static struct hvtrace_event exit_event(void)
{
	struct hvtrace_event e = {
		.seq = 7, .ts_ns = 12345678901, .duration_ns = 1300000,
		.reason = 0x7b,	/* IOIO */
		.info1 = 0x810010, .rip = 0x1000, .vcpu_id = 0, .vm_id = 1,
		.vm_pid = 4242, .tid = 4243, .cpu_exit = 2, .cpu_entry = 3,
		.isa = HVTRACE_ISA_SVM, .type = HVTRACE_EV_EXIT,
		.flags = HVTRACE_EVF_RIP_VALID, .guest_ns = 5000,
	};

	e.part_ns[HVTRACE_PART_VMM] = 180000;
	e.part_ns[HVTRACE_PART_RUNNABLE] = 1100000;
	return e;
}

static void put_events(void)
{
	struct hvtrace_event ev[4] = { exit_event(), exit_event(),
				       exit_event(), exit_event() };
	struct nlmsghdr *nlh;

	/* Who ran instead: a full 16-byte comm, no NUL in the ring. */
	ev[0].preempt_pid = 1234;
	ev[0].preempt_ns = 900000;
	memcpy(ev[0].preempt_comm, "stress-ng-cpu:01", HVTRACE_COMM_LEN);
	/* All handling. */
	memset(ev[1].part_ns, 0, sizeof(ev[1].part_ns));
	ev[1].seq = 8;
	/* What an exception exit carries besides (VMX's words; here 0s). */
	ev[1].intr_info = 0x80000b0e;
	ev[1].error_code = 0x4;
	/* A vCPU thread preempted by another one, mid-exit. */
	ev[2].seq = 9;
	ev[2].type = HVTRACE_EV_PREEMPT;
	ev[2].duration_ns = 400000;
	memset(ev[2].part_ns, 0, sizeof(ev[2].part_ns));
	ev[2].part_ns[HVTRACE_PART_RUNNABLE] = 400000;
	ev[2].guest_ns = 0;
	ev[2].preempt_pid = 4244;
	ev[2].preempt_ns = 300000;
	ev[2].flags |= HVTRACE_EVF_PREEMPT_VCPU;
	strcpy(ev[2].preempt_comm, "CPU 1/KVM");
	/* The vCPU was destroyed in the exit: it ran to the destruction. */
	ev[3].seq = 10;
	ev[3].flags |= HVTRACE_EVF_NO_ENTRY;
	memset(ev[3].part_ns, 0, sizeof(ev[3].part_ns));
	ev[3].part_ns[HVTRACE_PART_VMM] = 1000000;

	fake_reset();
	nlh = fake_dump(HVTRACE_CMD_READ_EVENTS);
	mnl_attr_put_u32(nlh, HVTRACE_A_EVENTS_CPU, 3);
	mnl_attr_put(nlh, HVTRACE_A_EVENTS, sizeof(ev), ev);
}

int main(void)
{
	char *out;

	put_events();
	out = FAKE_OUTPUT(true, hvctl_cmd_drain, "drain", NULL);
	/* Everything the ring has, as a trace's dump -j has it. */
	CHECK_HAS(out, "\"seq\":8,\"ts_ns\":12345678901,\"duration_ns\":1300000,"
		  "\"reason\":\"IOIO\",\"isa\":2,\"code\":123,\"info1\":8454160,"
		  "\"info2\":0,\"intr_info\":2147486478,\"error_code\":4,"
		  "\"rip\":4096,");
	CHECK_HAS(out, "{\"type\":\"exit\",\"seq\":7,\"ts_ns\":12345678901,"
		  "\"duration_ns\":1300000,\"reason\":\"IOIO\",");
	CHECK_HAS(out, "\"cpu_exit\":2,\"cpu\":3,\"flags\":1,\"handling_ns\":20000,"
		  "\"vmm_ns\":180000,\"halt_ns\":0,\"runnable_ns\":1100000,"
		  "\"other_ns\":0,\"guest_ns\":5000,\"preempt_pid\":1234,"
		  "\"preempt_comm\":\"stress-ng-cpu:01\",\"preempt_vcpu\":false,"
		  "\"preempt_ns\":900000}\n");
	CHECK_HAS(out, "{\"type\":\"exit\",\"seq\":8,");
	CHECK_HAS(out, "\"handling_ns\":1300000,\"vmm_ns\":0,\"halt_ns\":0,"
		  "\"runnable_ns\":0,\"other_ns\":0,\"guest_ns\":5000}\n");
	CHECK_HAS(out, "{\"type\":\"preempt\",\"seq\":9,\"ts_ns\":12345678901,"
		  "\"duration_ns\":400000,\"reason\":\"IOIO\",");
	CHECK_HAS(out, "\"handling_ns\":0,\"vmm_ns\":0,\"halt_ns\":0,"
		  "\"runnable_ns\":400000,\"other_ns\":0,\"guest_ns\":0,"
		  "\"preempt_pid\":4244,\"preempt_comm\":\"CPU 1/KVM\","
		  "\"preempt_vcpu\":true,\"preempt_ns\":300000}\n");
	CHECK_HAS(out, "{\"type\":\"exit\",\"seq\":10,");
	CHECK_HAS(out, "\"other_ns\":0,\"guest_ns\":5000,\"no_entry\":true}\n");
	/* The flag is named where it is set only. */
	CHECK_INT(fake_count(out, "no_entry"), 1);
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_drain, "drain", NULL);
	/* The words of dump's text lines (event_text()); a VM by its id. */
	CHECK_HAS(out, "[12.345678] vm vm1 pid 4242 vcpu0 cpu3 IOIO port 0x81 "
		  "out 1B rip 0x1000 1.30ms: handling 20.0us vmm 180.0us halt "
		  "0ns runnable 1.10ms other 0ns guest 5.0us; preempted by "
		  "stress-ng-cpu:01 (1234) for 900.0us\n");
	CHECK_HAS(out, "[12.345678] vm vm1 pid 4242 vcpu0 cpu3 IOIO port 0x81 "
		  "out 1B rip 0x1000 1.30ms: handling 1.30ms vmm 0ns halt 0ns "
		  "runnable 0ns other 0ns guest 5.0us\n");
	/* A preemption: on the CPU the thread left (cpu_exit). */
	CHECK_HAS(out, "[12.345678] vm vm1 pid 4242 vcpu0 cpu2 preempted "
		  "400.0us by vcpu CPU 1/KVM (4244) ran 300.0us; in IOIO "
		  "port 0x81 out 1B rip 0x1000\n");
	CHECK_HAS(out, "[12.345678] vm vm1 pid 4242 vcpu0 cpu3 IOIO port 0x81 "
		  "out 1B rip 0x1000 1.30ms never re-entered: handling 300.0us "
		  "vmm 1.00ms halt 0ns runnable 0ns other 0ns guest 5.0us\n");
	CHECK_INT(fake_count(out, "never re-entered"), 1);
	CHECK_HAS(out, "\n4 events\n");
	free(out);
	return unit_report();
}
