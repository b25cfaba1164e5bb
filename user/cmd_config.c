// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl config: the whole configuration in force. hvctl buffer: ring size
 * and mode (only while stopped).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "config_fetch.h"
#include "config_req.h"
#include "duration.h"
#include "hvctl.h"
#include "output.h"
#include "time_parts.h"

/* A u64 of nanoseconds: the number in JSON, a duration in text. */
static void print_duration(const char *key, const char *fmt, uint64_t ns)
{
	char d[16];

	duration_format(d, sizeof(d), ns);
	out_u64(key, NULL, ns);
	if (!hvctl_json)
		printf(fmt, d);
}

static void print_reason(const struct cfg_reason *r, bool with_thr)
{
	const char *name = exit_reason_name(r->isa, r->code);
	const char *isa = r->isa == HV_ISA_VMX ? "vmx" : "svm";

	out_open_object(NULL);
	out_str("isa", NULL, isa);
	out_u64("code", NULL, r->code);
	out_str("reason", NULL, name ? name : "?");
	if (!hvctl_json)
		printf("    %s %s (0x%x)", isa, name ? name : "?", r->code);
	if (with_thr)
		print_duration("threshold_ns", ": %s", r->threshold_ns);
	if (!hvctl_json)
		putchar('\n');
	out_close_object();
}

static void print_bitmap(const char *key, const char *label,
			 const struct cfg_bitmap *b)
{
	bool first = true;

	if (!hvctl_json)
		printf("  %-17s", label);
	out_open_array(key);
	for (unsigned int i = 0; i < b->nbits; i++) {
		if (!(b->w[i / 64] >> (i % 64) & 1))
			continue;
		out_u64(NULL, first ? "%" PRIu64 : ",%" PRIu64, i);
		first = false;
	}
	out_close_array();
	if (!hvctl_json)
		printf("%s\n", first ? "any" : "");
}

static void print_filters(const struct config *c)
{
	if (!hvctl_json)
		printf("filters:\n");
	out_open_object("filters");
	if (c->pid)
		out_u64("pid", "  pid              %" PRIu64 "\n", c->pid);
	else
		out_str("pid", "  pid              %s\n", "any");
	print_bitmap("vcpus", "vcpu", &c->vcpus);
	print_bitmap("cpus", "cpu", &c->cpus);
	out_u64("rip_min", NULL, c->rip_min);
	out_u64("rip_max", NULL, c->rip_max);
	if (!hvctl_json) {
		if (!c->rip_min && c->rip_max == UINT64_MAX)
			printf("  rip              any\n");
		else
			printf("  rip              0x%" PRIx64 "-0x%" PRIx64 "\n",
			       c->rip_min, c->rip_max);
		printf("  reason           %s\n", c->reason_filter ? "" : "any");
	}
	out_open_array("reasons");
	for (unsigned int i = 0; i < c->nr_reasons; i++)
		print_reason(&c->reasons[i], false);
	out_close_array();
	out_close_object();
}

static void print_config(const struct config *c)
{
	out_open_object(NULL);
	print_duration("threshold_ns", "threshold:         %s\n",
		       c->threshold_ns);
	out_str("threshold_on", "threshold on:      %s\n",
		threshold_on_name(c->threshold_on));
	out_bool("halt_triggers", "halt triggers:     %s\n", c->halt_triggers);
	print_duration("preempt_threshold_ns", "preempt threshold: %s\n",
		       c->preempt_threshold_ns);
	if (!hvctl_json)
		printf("reason thresholds:\n");
	out_open_array("reason_thresholds");
	for (unsigned int i = 0; i < c->nr_thresholds; i++)
		print_reason(&c->thresholds[i], true);
	out_close_array();
	print_filters(c);
	out_u64("buffer_kb", "buffer:            %" PRIu64 " KiB per CPU",
		c->buffer_kb);
	out_str("mode", ", %s mode\n", c->mode == HVTRACE_MODE_OVERWRITE ?
		"overwrite" : "discard");
	out_close_object();
}

/* Fetch the configuration and print it to F (text or JSON as set). */
static int show_config(FILE *f)
{
	struct config c = { 0 };
	struct hvnl *nl;
	int ret;

	nl = hvnl_open();
	if (!nl)
		return -1;
	ret = config_fetch(nl, &c);
	hvnl_close(nl);
	if (!ret) {
		out_set_file(f);
		print_config(&c);
		out_end();
		out_set_file(stdout);
	}
	config_free(&c);
	return ret;
}

static int config_run(int argc, char **argv)
{
	if (hvctl_want_help(&hvctl_cmd_config, argc, argv))
		return 0;
	if (argc > 1)
		return hvctl_usage_err(&hvctl_cmd_config,
				       "unexpected argument '%s'", argv[1]);
	return show_config(stdout) ? 1 : 0;
}

/* "2048" (KiB), "512K", "4M", "1G" to KiB; 0 on error. */
static uint64_t parse_kb(const char *s)
{
	char *end;
	uint64_t v;

	if (!*s || *s == '-')
		return 0;
	v = strtoull(s, &end, 10);
	if (!strcmp(end, "") || !strcasecmp(end, "k") || !strcasecmp(end, "kib"))
		return v;
	if (!strcasecmp(end, "m") || !strcasecmp(end, "mib"))
		return v << 10;
	if (!strcasecmp(end, "g") || !strcasecmp(end, "gib"))
		return v << 20;
	return 0;
}

static int buffer_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_buffer;
	int64_t mode = -1;
	uint64_t kb = 0;
	struct cfg_req r;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			kb = parse_kb(argv[++i]);
			if (!kb)
				return hvctl_usage_err(cmd, "bad size '%s' (e.g. 2048, 512K, 4M)",
						       argv[i]);
			if (kb < HVTRACE_BUFFER_KB_MIN || kb > HVTRACE_BUFFER_KB_MAX)
				return hvctl_usage_err(cmd, "buffer size %s out of range %uK..%uM",
						       argv[i], HVTRACE_BUFFER_KB_MIN,
						       HVTRACE_BUFFER_KB_MAX / 1024);
		} else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "discard"))
				mode = HVTRACE_MODE_DISCARD;
			else if (!strcmp(argv[i], "overwrite"))
				mode = HVTRACE_MODE_OVERWRITE;
			else
				return hvctl_usage_err(cmd, "mode is discard or overwrite, not '%s'",
						       argv[i]);
		} else {
			return hvctl_usage_err(cmd, "unexpected argument '%s'",
					       argv[i]);
		}
	}
	if (!kb && mode < 0)
		return hvctl_usage_err(cmd, "nothing to change");
	if (!cfg_begin(&r))
		return 1;
	if (kb)
		mnl_attr_put_u32(r.nlh, HVTRACE_CFG_BUFFER_KB, kb);
	if (mode >= 0)
		mnl_attr_put_u8(r.nlh, HVTRACE_CFG_MODE, mode);
	return cfg_commit(&r);
}

static int reasons_run(int argc, char **argv)
{
	if (hvctl_want_help(&hvctl_cmd_reasons, argc, argv))
		return 0;
	out_open_array(NULL);
	for (unsigned int isa = HV_ISA_VMX; isa <= HV_ISA_SVM; isa++) {
		for (int i = 0; i < exit_reason_count(isa); i++) {
			const struct exit_reason_entry *e = exit_reason_at(isa, i);

			out_open_object(NULL);
			out_str("isa", "%s", isa == HV_ISA_VMX ? "vmx" : "svm");
			out_u64("code", " 0x%04" PRIx64, e->code);
			out_str("name", " %s\n", e->name);
			out_close_object();
		}
	}
	out_close_array();
	out_end();
	return 0;
}

const struct hvctl_cmd hvctl_cmd_config = {
	.name = "config",
	.run = config_run,
	.usage = "",
	.summary = "show thresholds, filters and buffers in force",
};

const struct hvctl_cmd hvctl_cmd_buffer = {
	.name = "buffer",
	.run = buffer_run,
	.usage = "[--size SIZE] [--mode discard|overwrite]",
	.summary = "set the ring size per CPU (KiB, or with K/M/G) and mode;\n"
		   "only while stopped",
};

const struct hvctl_cmd hvctl_cmd_reasons = {
	.name = "reasons",
	.run = reasons_run,
	.usage = "",
	.summary = "list the exit reasons hvctl knows, both vendors",
};

int hvctl_write_config_json(FILE *f)
{
	bool json = hvctl_json;
	int ret;

	hvctl_json = true;
	ret = show_config(f);
	hvctl_json = json;
	return ret;
}
