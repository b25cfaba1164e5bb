// SPDX-License-Identifier: GPL-2.0
/*
 * Must always compile: if it does not, the probe command line itself is
 * broken and every probe result would be a lie.
 */
#include <linux/kvm_host.h>
#include <linux/tracepoint.h>
