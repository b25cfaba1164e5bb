// SPDX-License-Identifier: GPL-2.0
/*
 * hvmark: mark the guest's timeline for the host's hvtrace. Runs in a KVM
 * guest, statically linked so that any guest (an initramfs, a minimal
 * image) runs it as it is. Each mark, in this order:
 *
 *   CLOCK_MONOTONIC -> rdtsc -> CPUID(HVTRACE_MARK_LEAF, id, TSC)
 *                                  |  the host records it (hvctl record,
 *                                  |  hvctl watch --guest-mark)
 *   "hvmark: mark ID tsc TSC monotonic_ns NS" on standard output and into
 *   the guest's ftrace trace_marker
 *
 * so a mark ties three clocks: the guest's monotonic time (its ftrace and
 * cyclictest timeline), the guest's TSC, and through the host's record of
 * the exit, the host's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "hvmark.h"

static void usage(FILE *f)
{
	fprintf(f, "%s\n", HVMARK_USAGE);
	if (f == stderr)
		return;
	fputs("Mark the guest's timeline for the host's hvtrace: read the TSC, execute\n"
	      "CPUID with EAX=0x48565400, ECX=ID, EDX:EBX=TSC (one VM exit that the\n"
	      "host records), then print 'hvmark: mark ID tsc TSC monotonic_ns NS'\n"
	      "and write it to the guest's ftrace trace_marker.\n"
	      "  ID                 the first mark's id, 0 to 4294967295 (default 1)\n"
	      "  -n, --count COUNT  marks ID, ID+1, ... (default 1)\n"
	      "  -i, --interval DUR from one mark to the next: 10ms, 1s (default 0)\n"
	      "  -q, --quiet        no lines on standard output\n"
	      "  --no-trace-marker  not into the guest's trace_marker\n"
	      "  --help, --version\n", f);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Until CLOCK_MONOTONIC reads AT_NS: marks keep their period. */
static void sleep_until(uint64_t at_ns)
{
	struct timespec ts = {
		.tv_sec = at_ns / 1000000000, .tv_nsec = at_ns % 1000000000,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* When mark I is due: START + I * INTERVAL_NS, or never (the clock's end). */
static uint64_t mark_time(uint64_t start, uint32_t i, uint64_t interval_ns)
{
	uint64_t at;

	if (__builtin_mul_overflow(i, interval_ns, &at) ||
	    __builtin_add_overflow(at, start, &at))
		return UINT64_MAX;
	return at;
}

int main(int argc, char **argv)
{
	char err[HVMARK_ERR_LEN], line[HVMARK_LINE_LEN];
	const char *marker_path = NULL;
	struct hvmark_opts o;
	uint64_t start = 0;
	int marker = -1;
	bool said_off = false;

	if (hvmark_parse(argc, argv, &o, err)) {
		fprintf(stderr, "hvmark: %s\n", err);
		usage(stderr);
		return 2;
	}
	if (o.action == HVMARK_HELP) {
		usage(stdout);
		return 0;
	}
	if (o.action == HVMARK_VERSION) {
		printf("hvmark %s\n", HVTRACE_VERSION);
		return 0;
	}
	if (!cpu_in_vm()) {
		fprintf(stderr, "hvmark: not in a virtual machine (CPUID hypervisor bit clear)\n");
		return 1;
	}
	if (o.trace_marker)
		marker = hvmark_marker_open(hvmark_marker_paths, &marker_path);

	for (uint32_t i = 0; i < o.count; i++) {
		uint64_t ns, tsc;
		size_t len;

		if (i)
			sleep_until(mark_time(start, i, o.interval_ns));
		ns = monotonic_ns();
		tsc = cpu_rdtsc();
		cpu_mark(o.id + i, tsc);
		if (!i)
			start = ns;
		len = hvmark_line(line, o.id + i, tsc, ns);
		if (!o.quiet && (fputs(line, stdout) == EOF || fflush(stdout))) {
			fprintf(stderr, "hvmark: standard output: %s\n", strerror(errno));
			return 1;
		}
		if (marker < 0)
			continue;
		switch (hvmark_marker_write(marker, line, len)) {
		case HVMARK_MARKER_OK:
			break;
		case HVMARK_MARKER_OFF:
			if (!said_off)
				fprintf(stderr, "hvmark: %s: tracing is off (tracing_on 0): the marks are not in the guest's trace\n",
					marker_path);
			said_off = true;
			break;
		case HVMARK_MARKER_FAILED:
			fprintf(stderr, "hvmark: writing %s: %s\n", marker_path,
				strerror(errno));
			return 1;
		}
	}
	return 0;
}
