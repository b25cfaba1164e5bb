// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl drain: read what the rings hold now, once, and print one event a
 * line (text, or JSON objects with -j): exits, with where their time went
 * and who ran instead (no_entry: the exit never re-entered, its vCPU was
 * destroyed first), and preemptions of vCPU threads. The quick look;
 * `record` is for keeping traces.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "duration.h"
#include "event_fields.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "output.h"
#include "time_parts.h"

/* Text: the preemptor, "vCPU thread COMM[PID] ran 1.2ms". */
static void print_preemptor(const struct event_view *v)
{
	char d[16];

	duration_format(d, sizeof(d), v->preempt_ns);
	printf("%s%s[%" PRIu64 "] ran %s",
	       v->preempt_vcpu ? "vCPU thread " : "", v->preempt_comm,
	       v->preempt_pid, d);
}

/*
 * Text: where an exit's time went, its non-zero parts, and who ran
 * instead: " (handling 20us, vmm 180us, preempted 1.1ms; stress[1234]
 * ran 900us)". Nothing for an exit that was all handling.
 */
static void print_split(const struct event_view *v)
{
	const char *sep = " (";
	char d[16];

	if (v->part_ns[0] == v->duration_ns && !v->preempt_pid)
		return;
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++) {
		if (!v->part_ns[i])
			continue;
		duration_format(d, sizeof(d), v->part_ns[i]);
		printf("%s%s %s", sep, time_part_labels[i], d);
		sep = ", ";
	}
	if (v->preempt_pid) {
		printf("%s", *sep == ',' ? "; " : sep);
		print_preemptor(v);
	}
	putchar(')');
}

static void print_text(const struct event_view *v)
{
	char d[16], q[96];
	const char *qs = event_qualifier(q, sizeof(q), v);

	duration_format(d, sizeof(d), v->duration_ns);
	/* A preemption happened where the thread was switched out. */
	printf("[%" PRIu64 ".%06" PRIu64 "] cpu%" PRIu64 " vm%" PRIu64
	       " pid %" PRIu64 " vcpu%" PRIu64 " %s%s",
	       v->ts_ns / 1000000000, v->ts_ns % 1000000000 / 1000,
	       v->preempt ? v->cpu_exit : v->cpu, v->vm_id, v->vm_pid,
	       v->vcpu, v->preempt ? "preempted during " : "", v->reason);
	if (v->flags & HVTRACE_EVF_ADDR_GPA)
		printf(" gpa 0x%" PRIx64, v->addr);
	if (v->flags & HVTRACE_EVF_ADDR_MSR)
		printf(" msr 0x%" PRIx64, v->addr);
	if (*qs)
		printf(" %s", qs);
	if (v->flags & HVTRACE_EVF_RIP_VALID)
		printf(" rip 0x%" PRIx64, v->rip);
	printf(" %s", d);
	/* The duration ran to the vCPU's destruction, not to an entry. */
	if (v->no_entry)
		printf(" no_entry");
	if (!v->preempt) {
		print_split(v);
	} else if (v->preempt_pid) {
		printf(" (");
		print_preemptor(v);
		putchar(')');
	}
	putchar('\n');
}

static void print_event(struct out *o, const struct hvtrace_event *e)
{
	char rname[48], comm[HVTRACE_COMM_LEN + 1];
	struct event_view v;

	/* The ring's bytes: not trusted to hold a NUL. */
	snprintf(comm, sizeof(comm), "%.*s", HVTRACE_COMM_LEN,
		 e->preempt_comm);
	event_view_ring(&v, e, exit_reason_label(rname, sizeof(rname), e->isa,
						 e->reason), comm);
	if (!o->json) {
		print_text(&v);
		return;
	}
	out_open_object(o, NULL);
	event_out_members(o, &v, EF_DRAIN);
	out_close_object(o);
	out_end(o);
}

struct drain_state {
	struct out o;
	uint64_t count;
};

static int on_event(const struct hvtrace_event *ev, void *data)
{
	struct drain_state *d = data;

	print_event(&d->o, ev);
	d->count++;
	return 0;
}

static int drain_run(int argc, char **argv)
{
	struct drain_state d = { .count = 0 };
	struct hvc_drain_ops ops = { .event = on_event, .data = &d };
	struct hvc *c;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_drain, argc, argv))
		return 0;
	if (hvctl_no_args(&hvctl_cmd_drain, argc, argv))
		return 2;
	if (hvc_open(&c))
		return 1;
	out_init(&d.o, stdout, hvctl_json);
	ret = hvc_drain(c, &ops);
	hvc_close(c);
	fflush(stdout);
	if (!ret && !d.o.json)
		fprintf(stderr, "%" PRIu64 " events\n", d.count);
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_drain = {
	.name = "drain",
	.run = drain_run,
	.usage = "",
	.summary = "print the buffered events once and remove them from the rings",
};
