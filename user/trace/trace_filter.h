/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which events of a trace report, dump and export look at, from the same
 * options on all three (their table: TRACE_FILTER_OPTS, hvctl.h):
 *
 *   --since T, --until T   exit (switch-out, raise) time in [since, until):
 *                          "1.5s", "200ms" from the trace's start, or an
 *                          absolute time as the trace prints it: dump's
 *                          seconds "120.000010" or JSON's ns "120000010412"
 *   --vm ID|NAME[,...]     VMs by id or by their name in vms.tsv
 *   --vcpu N[,...]         vCPU ids
 *   --reason R[,...]       exit reasons as `hvctl reasons` names them;
 *                          a preemption record goes by its exit's, a
 *                          late interrupt by its last exit's (never by
 *                          its vector)
 *   --cpu N[,...]          host CPUs (the stream: where the vCPU re-entered)
 *
 * Options given together must all match.
 */
#ifndef HVCTL_TRACE_FILTER_H
#define HVCTL_TRACE_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "exit_reasons.h"
#include "trace_read.h"

#define TRACE_FILTER_MAX	64	/* ids per list */

struct trace_filter_time {
	bool set, abs;
	uint64_t ns;
};

struct trace_filter {
	/* The options' text (TRACE_FILTER_OPTS), NULL: not given. */
	const char *since, *until, *vm, *vcpu, *reason, *cpu;

	bool active;
	struct trace_filter_time from, to;
	bool resolved;			/* LO and HI known */
	uint64_t lo, hi;
	unsigned int nr_vms, nr_vcpus, nr_reasons, nr_cpus;
	uint32_t vms[TRACE_FILTER_MAX];
	uint32_t vcpus[TRACE_FILTER_MAX];
	uint32_t cpus[TRACE_FILTER_MAX];
	struct exit_reason_ref reasons[TRACE_FILTER_MAX];
};

/* Check the options' values: 0, or -EINVAL with the error sink told. */
int trace_filter_parse(struct trace_filter *f);
/* VM names need the trace's vms.tsv: 0, or -EINVAL (sink told). */
int trace_filter_bind(struct trace_filter *f, const struct trace_reader *r);
bool trace_filter_match_active(struct trace_filter *f,
			       const struct trace_reader *r,
			       const struct trace_event *ev);

/*
 * Whether EV is one to look at (the window is fixed at the first call).
 * Inline: with no filter given, every event of a trace asks.
 */
static inline bool trace_filter_match(struct trace_filter *f,
				      const struct trace_reader *r,
				      const struct trace_event *ev)
{
	return !f->active || trace_filter_match_active(f, r, ev);
}
/* The window, once fixed: [*LO, *HI); false when no time was given. */
bool trace_filter_window(const struct trace_filter *f, uint64_t *lo,
			 uint64_t *hi);

#endif /* HVCTL_TRACE_FILTER_H */
