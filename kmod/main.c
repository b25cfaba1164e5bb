// SPDX-License-Identifier: GPL-2.0
/*
 * hvtrace: hypervisor-level tracer for KVM hosts.
 *
 * Module entry and exit. Ordering matters on the way out: probes are
 * unregistered and synchronized before anything they touch goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/tracepoint.h>

#include "hvtrace.h"

static int __init hvt_init(void)
{
	int err;

	err = hvt_probe_kvm_register();
	if (err)
		return err;

	err = hvt_genl_register();
	if (err)
		goto err_probes;

	pr_info("loaded, version %s\n", HVTRACE_VERSION);
	return 0;

err_probes:
	hvt_probe_kvm_unregister();
	tracepoint_synchronize_unregister();
	return err;
}

static void __exit hvt_exit(void)
{
	hvt_genl_unregister();
	hvt_probe_kvm_unregister();
	tracepoint_synchronize_unregister();
	pr_info("unloaded\n");
}

module_init(hvt_init);
module_exit(hvt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace: hypervisor-level tracer for KVM hosts");
MODULE_VERSION(HVTRACE_VERSION);
