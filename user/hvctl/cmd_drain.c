// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl drain: read what the rings hold now, once, and print one event a
 * line (text, or JSON objects with -j) as dump prints a trace's: exits,
 * with where their time went and who ran instead (never re-entered, or
 * no_entry in JSON: its vCPU was destroyed first), preemptions of vCPU
 * threads, guest marks and late interrupts. The quick look; `record` is
 * for keeping traces.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "event_fields.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "trace_read.h"

struct drain_state {
	const struct event_fmt *fields;	/* -j; NULL: text */
	uint64_t count;
};

/* An event a line, in dump's words (event_text(), event_json()). */
static int on_event(const struct hvtrace_event *e, void *data)
{
	char rname[EXIT_LABEL_LEN], vm[24], comm[HVTRACE_COMM_LEN + 1];
	char line[EVENT_LINE_MAX], *p;
	struct drain_state *d = data;
	struct event_view v;
	/* A late interrupt's reason is its vector: it names its last exit. */
	uint32_t code = e->type == HVTRACE_EV_IRQ ? e->info2 : e->reason;

	/* The ring's bytes: not trusted to hold a NUL. */
	snprintf(comm, sizeof(comm), "%.*s", HVTRACE_COMM_LEN,
		 e->preempt_comm);
	event_view_ring(&v, e,
			exit_reason_label(rname, sizeof(rname), e->isa, code),
			trace_vm_label(NULL, e->vm_id, e->vm_pid, vm,
				       sizeof(vm)),
			comm);
	p = d->fields ? event_json(line, d->fields, &v) :
			event_text(line, &v);
	*p++ = '\n';
	fwrite(line, 1, p - line, stdout);
	d->count++;
	return 0;
}

static int drain_run(int argc, char **argv)
{
	struct drain_state d = { .count = 0 };
	struct hvc_drain_ops ops = { .event = on_event, .data = &d };
	struct event_fmt json;
	struct hvc *c;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_drain, argc, argv))
		return 0;
	if (hvctl_no_args(&hvctl_cmd_drain, argc, argv))
		return 2;
	if (hvc_open(&c))
		return 1;
	if (hvctl_json) {
		event_fmt_init(&json, EF_DRAIN);
		d.fields = &json;
	}
	ret = hvc_drain(c, &ops);
	hvc_close(c);
	fflush(stdout);
	if (!ret && !hvctl_json)
		fprintf(stderr, "%" PRIu64 " events\n", d.count);
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_drain = {
	.name = "drain",
	.run = drain_run,
	.usage = "",
	.summary = "print the buffered events once and remove them from the rings",
};
