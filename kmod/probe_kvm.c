// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on KVM's exit and entry tracepoints. Linking the exported
 * __tracepoint_kvm_* symbols makes modprobe load kvm first and pins it
 * while hvtrace is loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvm_host.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>

#include "hvtrace.h"
#include "kvm_tracepoints.h"

struct hvt_cpu_counts {
	u64 exits;
	u64 entries;
};

static DEFINE_PER_CPU(struct hvt_cpu_counts, hvt_counts);

static void hvt_on_exit(void *data, struct kvm_vcpu *vcpu, u32 isa)
{
	this_cpu_inc(hvt_counts.exits);
}

static void hvt_on_entry(HVT_KVM_ENTRY_PROTO)
{
	this_cpu_inc(hvt_counts.entries);
}

static u64 hvt_sum(size_t offset)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *(u64 *)((char *)per_cpu_ptr(&hvt_counts, cpu) + offset);
	return sum;
}

u64 hvt_exits_seen(void)
{
	return hvt_sum(offsetof(struct hvt_cpu_counts, exits));
}

u64 hvt_entries_seen(void)
{
	return hvt_sum(offsetof(struct hvt_cpu_counts, entries));
}

int hvt_probe_kvm_register(void)
{
	int err;

	err = tracepoint_probe_register(&__tracepoint_kvm_exit,
					hvt_on_exit, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(&__tracepoint_kvm_entry,
					hvt_on_entry, NULL);
	if (err)
		tracepoint_probe_unregister(&__tracepoint_kvm_exit,
					    hvt_on_exit, NULL);
	return err;
}

void hvt_probe_kvm_unregister(void)
{
	tracepoint_probe_unregister(&__tracepoint_kvm_entry, hvt_on_entry, NULL);
	tracepoint_probe_unregister(&__tracepoint_kvm_exit, hvt_on_exit, NULL);
}
