/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvtrace's metrics for Prometheus: what GET_STATUS and GET_STATS hold
 * (struct hvc_status, struct hvc_stats) in the text exposition format
 * (prom_text.h). A pure function of those structs: `hvctl exporter`
 * serves it over HTTP and writes it for node_exporter's textfile
 * collector, the tests give it canned structs. docs/hvctl.8 (METRICS)
 * says what each metric means.
 *
 * What the module keeps decides the labels: exits per VM and reason
 * (from each vCPU's exits per reason), the duration histogram per reason
 * (all VMs together), per vCPU (all reasons together), and interrupt
 * deliveries per vCPU and vector (metrics_irq.h). The structs
 * must hold the counters since load (hvc_*_get_since_load()), which
 * hvctl clear leaves alone. Rows that would give one series twice are
 * added up: reasons of one label, a VM's vCPUs, a destroyed vCPU and a
 * new one of the same VM and id.
 */
#ifndef HVCTL_METRICS_H
#define HVCTL_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "client.h"

/*
 * The exit duration histogram's edges: le = 2^k - 1 ns, k from
 * METRICS_LE_FIRST to METRICS_LE_LAST (255 ns to 4.294967295 s), then
 * +Inf. Each is the last nanosecond of a kernel bucket (durations are
 * whole nanoseconds and 2^k starts a bucket: hist.h), so each cumulative
 * count is a sum of whole kernel buckets, without interpolation.
 */
#define METRICS_LE_FIRST	8
#define METRICS_LE_LAST		32
/* Preemptors shown, by comm, most time first. */
#define METRICS_TOP_PREEMPTORS	10

/* A VM's name and UUID (vm_ident.h), for hvtrace_vm_info. */
struct metrics_vm {
	uint32_t vm_id, pid;
	const char *name, *uuid;	/* "": none */
};

/*
 * What was written of each VM's exits per reason, kept by a caller that
 * writes again (the exporter) from one scrape to the next. The module
 * keeps a quit VM's vCPUs among the last HVTRACE_VCPUS_DEPARTED
 * destroyed and drops them one at a time, so their sum would fall (a
 * counter reset to Prometheus): a VM's reason is written at least as it
 * was while one of its vCPUs is left, then its series end. VM numbers
 * start again when the module is reloaded: free it then.
 */
struct metrics_written {
	struct vm_reason *rows;		/* metrics.c's */
	unsigned int nr;
};

void metrics_written_free(struct metrics_written *w);

struct metrics_in {
	/* NULL: the module could not be read (hvtrace_up 0, nothing else). */
	const struct hvc_status *status;
	const struct hvc_stats *stats;
	const char *kernel;	/* the host's release, `uname -r` */
	/*
	 * The live VMs' names, one hvtrace_vm_info{vm,pid,name,uuid} 1
	 * each: joined onto the vm label in PromQL (group_left), so a name
	 * never changes another series' labels.
	 */
	const struct metrics_vm *vms;
	unsigned int nr_vms;
	struct metrics_written *written;	/* NULL: none kept */
};

/*
 * The exposition of IN to F: 0, or a negative errno (-ENOMEM, -EIO: F
 * failed) with the sink told.
 */
int metrics_write(FILE *f, const struct metrics_in *in);

#endif /* HVCTL_METRICS_H */
