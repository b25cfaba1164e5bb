// SPDX-License-Identifier: GPL-2.0
/*
 * gen-keys: a trace with more distinct keys than hvctl report's tables
 * hold, whose hottest keys only come after the tables filled up, for the
 * test that the top-N lists are exact whatever the trace's size:
 *
 *   gen-keys DIR [--keys K] [--hot H] [--cpus C]
 *
 * One VM of C vCPUs (one per CPU) on SVM. First K cold exits, each with a
 * RIP, a GPA page, an MSR and an I/O port of its own (NPF, MSR and IOIO
 * exits in turn, 1us each, so every key has at most 1us), then H exits
 * on one hot RIP and page (NPF, 9us each), H/3 on a hot port (IOIO, 9us)
 * and H/3 on a hot MSR (9us), interleaved with more cold ones. The last
 * line printed is the truth:
 *
 *   GEN-KEYS events=N hot_rip=0x.. hot_rip_exits=H hot_rip_ns=.. ...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "err.h"
#include "trace_write.h"

#define HOT_RIP		0xffffffff81abc000ULL
#define HOT_PAGE	0xfed00000ULL
#define HOT_PORT	0x0cf8
#define HOT_MSR		0x4b564d02
#define COLD_NS		1000
#define HOT_NS		9000

enum kind { NPF, MSR, IO };

struct gen {
	struct trace_writer *w;
	unsigned int cpus;
	uint64_t ts, events;
};

static int exit_of(struct gen *g, enum kind k, uint64_t key, uint64_t ns)
{
	unsigned int cpu = g->events % g->cpus;
	struct hvtrace_event e = {
		.type = HVTRACE_EV_EXIT, .isa = HVTRACE_ISA_SVM,
		.vm_id = 1, .vm_pid = 4000, .vcpu_id = cpu, .tid = 4001 + cpu,
		.cpu_exit = cpu, .cpu_entry = cpu, .duration_ns = ns,
		.seq = g->events / g->cpus + 1,
	};

	/* One exit at a time: each ends before the next starts. */
	g->ts += ns + 100;
	e.ts_ns = g->ts - ns;
	switch (k) {
	case NPF:
		e.reason = 0x400;
		e.flags = HVTRACE_EVF_RIP_VALID | HVTRACE_EVF_ADDR_GPA;
		e.rip = key == HOT_PAGE ? HOT_RIP :
			0xffffffff80000000ULL + (key >> 12) * 0x10;
		e.addr = e.info2 = key;
		e.info1 = 1;
		break;
	case MSR:
		e.reason = 0x7c;
		e.flags = HVTRACE_EVF_ADDR_MSR;
		e.addr = key;
		break;
	case IO:
		e.reason = 0x7b;
		e.info1 = key << 16 | 1U << 4;
		break;
	}
	g->events++;
	return trace_append(g->w, &e);
}

/* Cold key I of kind K: each once in the whole trace. */
static int cold(struct gen *g, uint64_t i)
{
	switch (i % 3) {
	case 0:
		return exit_of(g, NPF, 0x100000000ULL + (i / 3) * 0x1000,
			       COLD_NS);
	case 1:
		return exit_of(g, MSR, 0x10000 + i / 3, COLD_NS);
	}
	/* 65536 ports: past them they repeat, still below the hot one. */
	return exit_of(g, IO, 0x1000 + (i / 3) % 0xe000, COLD_NS);
}

int main(int argc, char **argv)
{
	struct trace_env env = {
		.kernel = "6.1.0-synthetic", .hvtrace_version = "synthetic",
		.hostname = "gen-keys", .cpu_vendor = "AuthenticAMD",
	};
	uint64_t keys = 60000, hot = 3000, cold_i = 0;
	struct gen g = { .cpus = 2, .ts = 100000000000ULL };
	const char *dir = NULL;
	int ret = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--keys") && i + 1 < argc)
			keys = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--hot") && i + 1 < argc)
			hot = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
			g.cpus = strtoul(argv[++i], NULL, 0);
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else
			dir = NULL, i = argc;
	}
	if (!dir || !g.cpus || g.cpus > 64 || hot < 3) {
		fprintf(stderr, "Usage: gen-keys DIR [--keys K] [--hot H] "
			"[--cpus C]\n");
		return 2;
	}
	g.w = trace_create(dir, g.cpus, &env);
	if (!g.w)
		return 1;
	if (trace_write_host(g.w, &env))
		ret = 1;
	while (!ret && cold_i < keys)
		ret = cold(&g, cold_i++);
	/* The hot keys, each among cold ones the tables never saw. */
	for (uint64_t i = 0; !ret && i < hot; i++) {
		ret = exit_of(&g, NPF, HOT_PAGE, HOT_NS) || cold(&g, cold_i++);
		if (!ret && i % 3 == 0)
			ret = exit_of(&g, IO, HOT_PORT, HOT_NS) ||
			      exit_of(&g, MSR, HOT_MSR, HOT_NS);
	}
	if (trace_finish(g.w))
		ret = 1;
	if (ret)
		return 1;
	printf("GEN-KEYS events=%" PRIu64 " cold=%" PRIu64 " hot_rip=0x%llx "
	       "hot_page=0x%llx hot_exits=%" PRIu64 " hot_ns=%" PRIu64
	       " hot_port=0x%x hot_msr=0x%x hot_io_exits=%" PRIu64
	       " hot_io_ns=%" PRIu64 "\n", g.events, cold_i, HOT_RIP,
	       HOT_PAGE, hot, hot * HOT_NS, HOT_PORT, HOT_MSR,
	       (hot + 2) / 3, (hot + 2) / 3 * HOT_NS);
	return 0;
}
