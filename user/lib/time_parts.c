// SPDX-License-Identifier: GPL-2.0
/* Names of the parts of an exit's time, and their arithmetic. */
#include <strings.h>

#include "duration.h"
#include "output.h"
#include "time_parts.h"
#include "util.h"

/*
 * One name per part, the ABI's: "runnable" is the host scheduler keeping
 * a ready vCPU off its CPU ("preempted" is what preemption records hold).
 */
static const char *const on_names[] = {
	[HVTRACE_ON_TOTAL] = "total",
	[HVTRACE_ON_HANDLING] = "handling",
	[HVTRACE_ON_VMM] = "vmm",
	[HVTRACE_ON_HALT] = "halt",
	[HVTRACE_ON_RUNNABLE] = "runnable",
	[HVTRACE_ON_OTHER] = "other",
};

_Static_assert(ARRAY_SIZE(on_names) == __HVTRACE_ON_MAX,
	       "a name for every enum hvtrace_threshold_on");

const char *const time_part_labels[HVTRACE_NR_PARTS + 1] = {
	"handling",
	[1 + HVTRACE_PART_VMM] = "vmm",
	[1 + HVTRACE_PART_HALT] = "halt",
	[1 + HVTRACE_PART_RUNNABLE] = "runnable",
	[1 + HVTRACE_PART_OTHER] = "other",
};

const char *const time_part_keys[HVTRACE_NR_PARTS + 1] = {
	"handling_ns",
	[1 + HVTRACE_PART_VMM] = "vmm_ns",
	[1 + HVTRACE_PART_HALT] = "halt_ns",
	[1 + HVTRACE_PART_RUNNABLE] = "runnable_ns",
	[1 + HVTRACE_PART_OTHER] = "other_ns",
};
const char *threshold_on_name(unsigned int on)
{
	return on <= HVTRACE_ON_MAX ? on_names[on] : "?";
}

int threshold_on_parse(const char *s)
{
	/* Operators' word for it, taken as hvctl 0.1 took it. */
	if (!strcasecmp(s, "preempted"))
		return HVTRACE_ON_RUNNABLE;
	for (int i = 0; i <= HVTRACE_ON_MAX; i++)
		if (!strcasecmp(s, on_names[i]))
			return i;
	return -1;
}

uint64_t time_handling(uint64_t total, const __u64 part[HVTRACE_NR_PARTS])
{
	uint64_t sum = 0;

	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += part[i];
	return total > sum ? total - sum : 0;
}

void out_time_parts(struct out *o, uint64_t total,
		    const __u64 part[HVTRACE_NR_PARTS])
{
	out_u64(o, time_part_keys[0], NULL, time_handling(total, part));
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		out_u64(o, time_part_keys[1 + i], NULL, part[i]);
}

double time_share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void time_split_head(struct out *o, const char *label, bool timed)
{
	if (!o->json)
		fprintf(o->f, " %*s", timed ? 16 : 9, label);
}

void time_split_heading(struct out *o, bool timed)
{
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
		time_split_head(o, time_part_labels[i], timed);
}

void time_split_cell(struct out *o, uint64_t ns, uint64_t whole, bool timed)
{
	char t[DURATION_LEN];

	if (o->json)
		return;
	if (timed)
		fprintf(o->f, " %9s", duration_str(t, ns));
	fprintf(o->f, " %*.1f%%", timed ? 5 : 8, time_share(ns, whole));
}

void time_split_cells(struct out *o, const uint64_t ns[HVTRACE_NR_PARTS + 1],
		      uint64_t whole, bool timed)
{
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
		time_split_cell(o, ns[i], whole, timed);
}
