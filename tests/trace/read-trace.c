// SPDX-License-Identifier: GPL-2.0
/*
 * read-trace: hvctl's trace reader alone, for its cost per event: every
 * event of DIR through trace_next(), nothing printed but a summary.
 *
 *   read-trace DIR
 *   READ-TRACE events=N exits=X preempts=P marks=M irqs=I cpu_ns=T
 *              ns_per_event=T/N
 *
 * The CPU time is the process's (user and system) over the reading.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "trace_read.h"

static uint64_t cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t t0, t, n = 0, sum = 0, kinds[HVTRACE_EV_IRQ + 1] = { 0 };
	struct trace_reader *r;
	struct trace_event ev;
	char err[512];
	int ret;

	if (argc != 2) {
		fprintf(stderr, "Usage: read-trace DIR\n");
		return 2;
	}
	t0 = cpu_ns();
	r = trace_open(argv[1], 0, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "Error: %s.\n", err);
		return 1;
	}
	while ((ret = trace_next(r, &ev)) > 0) {
		n++;
		kinds[trace_event_type(&ev)]++;
		/* Touch the record, as every consumer does. */
		sum += ev.e.duration_ns;
	}
	if (ret < 0) {
		fprintf(stderr, "Error: %s.\n", trace_error(r));
		trace_close(r);
		return 1;
	}
	trace_close(r);
	t = cpu_ns() - t0;
	printf("READ-TRACE events=%" PRIu64 " exits=%" PRIu64 " preempts=%"
	       PRIu64 " marks=%" PRIu64 " irqs=%" PRIu64 " duration_sum=%"
	       PRIu64 " cpu_ns=%" PRIu64 " ns_per_event=%.1f\n", n,
	       kinds[HVTRACE_EV_EXIT], kinds[HVTRACE_EV_PREEMPT],
	       kinds[HVTRACE_EV_MARK], kinds[HVTRACE_EV_IRQ], sum, t,
	       n ? (double)t / (double)n : 0.0);
	return 0;
}
