// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark-only module (bench/overhead): registers probes that do nothing
 * on KVM's kvm_exit and kvm_entry tracepoints, the two hvtrace and the
 * ftrace comparison use, to measure what any tracepoint-based tracer pays
 * before doing any work. With clock=1 each probe also reads local_clock(),
 * as hvtrace's do once each. Never installed anywhere.
 *
 * The probes ignore their arguments: they take the first two (data, vcpu)
 * and a third that is kvm_exit's isa or, on kernels that have it,
 * kvm_entry's second argument; an unused argument register is harmless.
 */
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/tracepoint.h>

extern struct tracepoint __tracepoint_kvm_exit;
extern struct tracepoint __tracepoint_kvm_entry;

static bool clock;
module_param(clock, bool, 0444);
MODULE_PARM_DESC(clock, "read local_clock() in each probe");

static DEFINE_PER_CPU(u64, sink);

static void np_probe(void *data, void *vcpu, unsigned long arg)
{
	if (clock)
		this_cpu_write(sink, local_clock());
}

static int __init np_init(void)
{
	int err;

	err = tracepoint_probe_register(&__tracepoint_kvm_exit, np_probe, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(&__tracepoint_kvm_entry, np_probe,
					NULL);
	if (err)
		tracepoint_probe_unregister(&__tracepoint_kvm_exit, np_probe,
					    NULL);
	return err;
}

static void __exit np_exit(void)
{
	tracepoint_probe_unregister(&__tracepoint_kvm_entry, np_probe, NULL);
	tracepoint_probe_unregister(&__tracepoint_kvm_exit, np_probe, NULL);
	tracepoint_synchronize_unregister();
}

module_init(np_init);
module_exit(np_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace benchmark: empty probes on kvm_exit/kvm_entry");
