// SPDX-License-Identifier: GPL-2.0
/*
 * hvtrace: hypervisor-level tracer for KVM hosts.
 *
 * Module entry and exit, and the load-time parameters. Ordering matters
 * on the way out: probes are unregistered and synchronized before
 * anything they touch goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/tracepoint.h>

#include "buffers.h"
#include "clock.h"
#include "config.h"
#include "cpus.h"
#include "exit_info.h"
#include "genl.h"
#include "params.h"
#include "probes.h"
#include "ring_device.h"
#include "stats.h"
#include "threads.h"
#include "vcpu_table.h"
#include "watch.h"

static ulong threshold_ns;
module_param(threshold_ns, ulong, 0444);
MODULE_PARM_DESC(threshold_ns, "Initial duration threshold in ns (default 0: record every exit; at most one hour)");

static uint buffer_kb = HVTRACE_BUFFER_KB_DEFAULT;
module_param(buffer_kb, uint, 0444);
MODULE_PARM_DESC(buffer_kb, "Initial ring size per CPU in KiB (default 2560: 16384 records)");

static bool overwrite;
module_param(overwrite, bool, 0444);
MODULE_PARM_DESC(overwrite, "Start in flight-recorder (overwrite) mode");

static bool autostart;
module_param(autostart, bool, 0444);
MODULE_PARM_DESC(autostart, "Start recording at load");

unsigned int hvt_max_vcpus = 1024;
module_param_named(max_vcpus, hvt_max_vcpus, uint, 0444);
MODULE_PARM_DESC(max_vcpus, "vCPUs alive at once that are traced (default 1024, 1..65536)");

unsigned int hvt_nr_hist = 24;
module_param_named(hist_reasons, hvt_nr_hist, uint, 0444);
MODULE_PARM_DESC(hist_reasons, "Exit reasons with their own latency histogram, per CPU (default 24, 2..254)");

static int __init check_params(void)
{
	/* The load must not set what SET_CONFIG would refuse. */
	if (threshold_ns > HVTRACE_THRESHOLD_NS_MAX) {
		pr_err("threshold_ns=%lu above the maximum %llu (one hour)\n",
		       threshold_ns, HVTRACE_THRESHOLD_NS_MAX);
		return -EINVAL;
	}
	if (buffer_kb < HVTRACE_BUFFER_KB_MIN ||
	    buffer_kb > HVTRACE_BUFFER_KB_MAX) {
		pr_err("buffer_kb=%u out of range %u..%u\n", buffer_kb,
		       HVTRACE_BUFFER_KB_MIN, HVTRACE_BUFFER_KB_MAX);
		return -EINVAL;
	}
	if (!hvt_max_vcpus || hvt_max_vcpus > 65536) {
		pr_err("max_vcpus=%u out of range 1..65536\n", hvt_max_vcpus);
		return -EINVAL;
	}
	if (hvt_nr_hist < 2 || hvt_nr_hist > 254) {
		pr_err("hist_reasons=%u out of range 2..254\n", hvt_nr_hist);
		return -EINVAL;
	}
	return 0;
}

static void teardown(void)
{
	hvt_cpus_exit();
	hvt_watch_exit_module();
	hvt_buffers_exit();
	hvt_lease_exit();
	hvt_exit_info_exit();
	hvt_config_exit();
	hvt_threads_exit();
	hvt_vcpus_exit();
	hvt_stats_exit();
	rcu_barrier();	/* kfree_rcu'd configurations */
}

static void probes_unregister(void)
{
	hvt_probe_vcpu_run_unregister();
	hvt_probe_sched_unregister();
	hvt_probe_kvm_unregister();
	hvt_probe_destroy_unregister();
	tracepoint_synchronize_unregister();
}

/*
 * Destruction first, so no vCPU the exit path meets can be destroyed
 * unseen (its slot would stay taken); then the exit path: the others
 * only act on exits it opened.
 */
static int probes_register(void)
{
	int err;

	err = hvt_probe_destroy_register();
	if (err)
		return err;
	err = hvt_probe_kvm_register();
	if (err)
		goto err_destroy;
	err = hvt_probe_sched_register();
	if (err)
		goto err_kvm;
	err = hvt_probe_vcpu_run_register();
	if (err)
		goto err_sched;
	return 0;

err_sched:
	hvt_probe_sched_unregister();
err_kvm:
	hvt_probe_kvm_unregister();
err_destroy:
	hvt_probe_destroy_unregister();
	tracepoint_synchronize_unregister();
	return err;
}

/*
 * The probes first: until they are gone they queue watermark wake-ups,
 * which multicast on the family; then the watch, whose scan does too.
 */
static void unload(void)
{
	probes_unregister();
	hvt_clock_exit();
	hvt_watch_disarm();
	hvt_buffers_quiesce();
	hvt_genl_unregister();
	teardown();
}

static int __init hvt_init(void)
{
	int err;

	err = check_params();
	if (err)
		return err;
	err = hvt_stats_init();
	if (!err)
		err = hvt_vcpus_init(hvt_max_vcpus);
	if (!err)
		err = hvt_threads_init();
	if (!err)
		err = hvt_config_init(threshold_ns);
	if (!err)
		err = hvt_exit_info_init();
	if (!err)
		err = hvt_lease_init();
	if (!err)
		err = hvt_watch_init();
	if (!err)
		err = hvt_buffers_init(buffer_kb, overwrite ?
				       HVTRACE_MODE_OVERWRITE :
				       HVTRACE_MODE_DISCARD);
	/* Last: a CPU that comes up now finds everything it needs. */
	if (!err)
		err = hvt_cpus_init();
	if (err)
		goto err_teardown;

	hvt_recording_set(autostart);
	hvt_clock_init();
	err = probes_register();
	if (err)
		goto err_clock;
	err = hvt_genl_register();
	if (err)
		goto err_probes;
	/* Last: an open file holds the module, which must be whole by then. */
	err = hvt_ring_device_register();
	if (err) {
		unload();
		return err;
	}

	pr_info("loaded, version %s\n", HVTRACE_VERSION);
	return 0;

err_probes:
	probes_unregister();
err_clock:
	hvt_clock_exit();
err_teardown:
	teardown();
	return err;
}

static void __exit hvt_exit(void)
{
	/* No file is open: each holds the module. */
	hvt_ring_device_unregister();
	unload();
	pr_info("unloaded\n");
}

module_init(hvt_init);
module_exit(hvt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace: hypervisor-level tracer for KVM hosts");
MODULE_VERSION(HVTRACE_VERSION);
