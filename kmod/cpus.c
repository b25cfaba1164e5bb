// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug: state for a CPU is allocated in the prepare stage, on the
 * CPU that brings it up, before the new CPU runs anything. At load a CPU
 * that cannot get its state fails the load; later the CPU comes up all
 * the same (a tracer must not stand in the way of a host's CPUs) and its
 * exits are counted as untraced, with one line in the kernel log.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>

#include "buffers.h"
#include "cpus.h"
#include "stats.h"

static int state = -1;
static bool loading;

static int cpu_prepare(unsigned int cpu)
{
	int err = hvt_stats_cpu_prepare(cpu);

	if (!err)
		err = hvt_buffers_cpu_prepare(cpu);
	if (!err || loading)
		return err;
	pr_warn("CPU %u: no memory for its state: its exits are not traced\n",
		cpu);
	return 0;
}

int hvt_cpus_init(void)
{
	int err;

	loading = true;
	err = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "hvtrace:prepare",
				cpu_prepare, NULL);
	loading = false;
	if (err < 0)
		return err;
	state = err;
	return 0;
}

void hvt_cpus_exit(void)
{
	if (state >= 0)
		cpuhp_remove_state_nocalls(state);
	state = -1;
}
