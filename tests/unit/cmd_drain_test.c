// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl drain: exits with their time split and preemptor, exits that never
 * re-entered (no_entry), preemption records and late interrupts, as JSON
 * objects and text lines (dump's), from a READ_EVENTS dump.
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

/*
 * A late interrupt: IPI vector 0xfd raised 2ms before its injection after
 * an HLT exit (SVM 0x78): 300us in the guest, 1.2ms halted, 450us
 * runnable (another vCPU's thread ran 400us of it), 50us of handling.
 */
static struct hvtrace_event irq_event(void)
{
	struct hvtrace_event e = exit_event();

	e.seq = 11;
	e.type = HVTRACE_EV_IRQ;
	e.ts_ns = 12345000000;
	e.duration_ns = 2000000;
	e.reason = 0xfd;
	e.info1 = HVTRACE_VCPU_IRQ_IPI;
	e.info2 = 0x78;
	e.rip = 0;
	e.cpu_exit = 3;
	e.flags = HVTRACE_EVF_PREEMPT_VCPU;
	e.guest_ns = 300000;
	memset(e.part_ns, 0, sizeof(e.part_ns));
	e.part_ns[HVTRACE_PART_HALT] = 1200000;
	e.part_ns[HVTRACE_PART_RUNNABLE] = 450000;
	e.preempt_pid = 4244;
	e.preempt_ns = 400000;
	strcpy(e.preempt_comm, "CPU 1/KVM");
	return e;
}

static void put_events(void)
{
	struct hvtrace_event ev[5] = { exit_event(), exit_event(),
				       exit_event(), exit_event(),
				       irq_event() };
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
	/* Its last exit where an exit's reason is; its vector and source. */
	CHECK_HAS(out, "{\"type\":\"irq\",\"seq\":11,\"ts_ns\":12345000000,"
		  "\"duration_ns\":2000000,\"reason\":\"HLT\",\"isa\":2,"
		  "\"code\":120,\"info1\":2,\"info2\":120,\"intr_info\":0,"
		  "\"error_code\":0,\"vm_id\":1,\"vm_pid\":4242,\"vcpu\":0,"
		  "\"tid\":4243,\"cpu_exit\":3,\"cpu\":3,\"flags\":16,"
		  "\"handling_ns\":50000,\"vmm_ns\":0,\"halt_ns\":1200000,"
		  "\"runnable_ns\":450000,\"other_ns\":0,\"guest_ns\":300000,"
		  "\"preempt_pid\":4244,\"preempt_comm\":\"CPU 1/KVM\","
		  "\"preempt_vcpu\":true,\"preempt_ns\":400000,\"vector\":253,"
		  "\"source\":\"ipi\"}\n");
	/* Only a late interrupt has them. */
	CHECK_INT(fake_count(out, "\"vector\""), 1);
	CHECK_INT(fake_count(out, "\"source\""), 1);
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
	/* A late interrupt: from its raise, on the injecting entry's CPU. */
	CHECK_HAS(out, "[12.345000] vm vm1 pid 4242 vcpu0 cpu3 irq 0xfd ipi late "
		  "2.00ms after HLT: handling 50.0us vmm 0ns halt 1.20ms "
		  "runnable 450.0us other 0ns guest 300.0us; preempted by vcpu "
		  "CPU 1/KVM (4244) for 400.0us\n");
	CHECK_HAS(out, "\n5 events\n");
	free(out);
	return unit_report();
}
