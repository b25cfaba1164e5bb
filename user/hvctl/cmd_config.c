// SPDX-License-Identifier: GPL-2.0
/* hvctl config: the whole configuration in force. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "config_file.h"
#include "duration.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "output.h"
#include "time_parts.h"

/* A u64 of nanoseconds: the number in JSON, a duration in text. */
static void print_duration(struct out *o, const char *key, const char *fmt, uint64_t ns)
{
	char d[16];

	duration_format(d, sizeof(d), ns);
	out_u64(o, key, NULL, ns);
	if (!o->json)
		printf(fmt, d);
}

/*
 * A reason of the per-reason thresholds or of the reason filter, a line
 * of its own in text: "    vmx NPF (0x30): 1.0us". No heading line.
 */
enum cfg_reason_col {
	CR_INDENT,
	CR_ISA,
	CR_CODE,
	CR_REASON,
	CR_CODE_TEXT,
	CR_THRESHOLD,
	CR_NR
};

static const struct out_col cfg_reason_cols[CR_NR] = {
	/* Text: an empty column, so the line sits four spaces in. */
	[CR_INDENT] = { NULL, "", 3, OUT_STR },
	[CR_ISA] = { "isa", "", 0, OUT_STR },
	[CR_CODE] = { "code", NULL, 0, OUT_U64 },
	[CR_REASON] = { "reason", "", 0, OUT_STR },
	[CR_CODE_TEXT] = { NULL, "", 0, OUT_STR },
	[CR_THRESHOLD] = { "threshold_ns", "", 0, OUT_DUR },
};

static void print_reason(struct out *o, const struct hvc_reason *r, bool with_thr)
{
	char label[EXIT_LABEL_LEN], code[24];
	struct out_cell c[CR_NR] = {
		[CR_INDENT].s = "",
		[CR_ISA].s = r->isa == HV_ISA_VMX ? "vmx" : "svm",
		[CR_CODE].u = r->code,
		[CR_REASON].s = exit_reason_label(label, sizeof(label), r->isa,
						  r->code),
		[CR_CODE_TEXT].s = code,
		[CR_THRESHOLD].u = r->threshold_ns,
	};

	/* Text: "(0x30): 1.0us" with a threshold, "(0x30)" without. */
	snprintf(code, sizeof(code), "(0x%x)%s", r->code, with_thr ? ":" : "");
	out_open_object(o, NULL);
	out_cells(o, cfg_reason_cols, c, with_thr ? CR_NR : CR_THRESHOLD);
	if (!o->json)
		putchar('\n');
	out_close_object(o);
}

static void print_bitmap(struct out *o, const char *key, const char *label,
			 const struct hvc_bitmap *b)
{
	bool first = true;

	if (!o->json)
		printf("  %-19s", label);
	out_open_array(o, key);
	for (unsigned int i = 0; i < b->nbits; i++) {
		if (!(b->w[i / 64] >> (i % 64) & 1))
			continue;
		out_u64(o, NULL, first ? "%" PRIu64 : ",%" PRIu64, i);
		first = false;
	}
	out_close_array(o);
	if (!o->json)
		printf("%s\n", first ? "any" : "");
}

static void print_filters(struct out *o, const struct hvc_config *c)
{
	if (!o->json)
		printf("filters:\n");
	out_open_object(o, "filters");
	if (c->pid)
		out_u64(o, "pid", "  pid                %" PRIu64 "\n", c->pid);
	else
		out_str(o, "pid", "  pid                %s\n", "any");
	print_bitmap(o, "vcpus", "vcpu", &c->vcpus);
	print_bitmap(o, "cpus", "cpu", &c->cpus);
	out_u64(o, "rip_min", NULL, c->rip_min);
	out_u64(o, "rip_max", NULL, c->rip_max);
	if (!o->json) {
		if (!c->rip_min && c->rip_max == UINT64_MAX)
			printf("  rip                any\n");
		else
			printf("  rip                0x%" PRIx64 "-0x%" PRIx64
			       "\n", c->rip_min, c->rip_max);
		printf("  reason             %s\n",
		       c->reason_filter ? "" : "any");
	}
	out_open_array(o, "reasons");
	for (unsigned int i = 0; i < c->nr_reasons; i++)
		print_reason(o, &c->reasons[i], false);
	out_close_array(o);
	out_close_object(o);
}

static void print_config(struct out *o, const struct hvc_config *c)
{
	out_open_object(o, NULL);
	print_duration(o, "threshold_ns", "threshold:           %s\n",
		       c->threshold_ns);
	out_str(o, "threshold_on", "threshold on:        %s\n",
		threshold_on_name(c->threshold_on));
	out_bool(o, "halt_triggers", "halt triggers:       %s\n",
		 c->halt_triggers);
	print_duration(o, "preempt_threshold_ns", "preempt threshold:   %s\n",
		       c->preempt_threshold_ns);
	/* Off is no duration: JSON null, as a value that is not there. */
	if (c->irq_threshold_ns == HVTRACE_IRQ_THRESHOLD_OFF) {
		out_null(o, "irq_threshold_ns");
		if (!o->json)
			printf("interrupt threshold: off\n");
	} else {
		print_duration(o, "irq_threshold_ns",
			       "interrupt threshold: %s\n",
			       c->irq_threshold_ns);
	}
	if (!o->json)
		printf("reason thresholds:\n");
	out_open_array(o, "reason_thresholds");
	for (unsigned int i = 0; i < c->nr_thresholds; i++)
		print_reason(o, &c->thresholds[i], true);
	out_close_array(o);
	print_filters(o, c);
	out_u64(o, "buffer_kb", "buffer:              %" PRIu64 " KiB per CPU",
		c->buffer_kb);
	out_str(o, "mode", ", %s mode\n", c->mode == HVTRACE_MODE_OVERWRITE ?
		"overwrite" : "discard");
	out_close_object(o);
}

/* Fetch the configuration; print it to O, or with SAVE as the file. */
static int show_config(struct out *o, bool save)
{
	struct hvc_config c = { 0 };
	struct hvc *cl;
	int ret;

	ret = hvc_open(&cl);
	if (ret)
		return ret;
	ret = hvc_config_get(cl, &c);
	hvc_close(cl);
	if (!ret && save) {
		hvc_conf_write(stdout, &c);
	} else if (!ret) {
		print_config(o, &c);
		out_end(o);
	}
	hvc_config_free(&c);
	return ret;
}

struct config_opts {
	bool save;	/* --save: as hvtrace.conf(5), for hvctl apply */
};

static const struct hvctl_opt config_opts[] = {
	OPT_FLAG("--save", struct config_opts, save),
	OPT_END,
};

static int config_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_config;
	struct config_opts co = { 0 };
	struct out o;
	int n, ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	ret = hvctl_parse_opts(cmd, argc, argv, &co, &n);
	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 0);
	if (ret)
		return ret;
	if (co.save && hvctl_json)
		return hvctl_usage_err(cmd, "--save writes hvtrace.conf(5), "
				       "not JSON: no -j with it");
	out_init(&o, stdout, hvctl_json);
	return show_config(&o, co.save) ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_config = {
	.name = "config",
	.run = config_run,
	.usage = "[--save]",
	.opts = config_opts,
	.summary = "show thresholds, filters and buffers in force (--save: as\n"
		   "an hvtrace.conf(5) file that hvctl apply takes)",
};

int hvctl_write_config_json(FILE *f)
{
	struct out o;

	out_init(&o, f, true);
	return show_config(&o, false);
}
