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

#include "duration.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "nl.h"
#include "output.h"
#include "time_parts.h"

/* Text: the preemptor, "vCPU thread COMM[PID] ran 1.2ms". */
static void print_preemptor(const struct hvtrace_event *e, const char *comm)
{
	char d[16];

	duration_format(d, sizeof(d), e->preempt_ns);
	printf("%s%s[%u] ran %s",
	       e->flags & HVTRACE_EVF_PREEMPT_VCPU ? "vCPU thread " : "",
	       comm, e->preempt_pid, d);
}

/*
 * Text: where an exit's time went, its non-zero parts, and who ran
 * instead: " (handling 20us, vmm 180us, preempted 1.1ms; stress[1234]
 * ran 900us)". Nothing for an exit that was all handling.
 */
static void print_split(const struct hvtrace_event *e, const char *comm)
{
	uint64_t handling = time_handling(e->duration_ns, e->part_ns);
	const char *sep = " (";
	char d[16];

	if (handling == e->duration_ns && !e->preempt_pid)
		return;
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++) {
		uint64_t ns = i ? e->part_ns[i - 1] : handling;

		if (!ns)
			continue;
		duration_format(d, sizeof(d), ns);
		printf("%s%s %s", sep, time_part_labels[i], d);
		sep = ", ";
	}
	if (e->preempt_pid) {
		printf("%s", *sep == ',' ? "; " : sep);
		print_preemptor(e, comm);
	}
	putchar(')');
}

static void print_text(const struct hvtrace_event *e, const char *name,
		       const char *comm)
{
	bool preempt = e->type == HVTRACE_EV_PREEMPT;
	char d[16], q[64];

	duration_format(d, sizeof(d), e->duration_ns);
	exit_reason_qualifier(q, sizeof(q), e->isa, e->reason, e->info1,
			      e->info2);
	/* A preemption happened where the thread was switched out. */
	printf("[%" PRIu64 ".%06" PRIu64 "] cpu%u vm%u pid %u vcpu%u %s%s",
	       (uint64_t)e->ts_ns / 1000000000,
	       (uint64_t)e->ts_ns % 1000000000 / 1000,
	       preempt ? e->cpu_exit : e->cpu_entry, e->vm_id, e->vm_pid,
	       e->vcpu_id, preempt ? "preempted during " : "", name);
	if (e->flags & HVTRACE_EVF_ADDR_GPA)
		printf(" gpa 0x%" PRIx64, (uint64_t)e->addr);
	if (e->flags & HVTRACE_EVF_ADDR_MSR)
		printf(" msr 0x%" PRIx64, (uint64_t)e->addr);
	if (*q && !(e->flags & HVTRACE_EVF_ADDR_GPA))
		printf(" %s", q);
	if (e->flags & HVTRACE_EVF_RIP_VALID)
		printf(" rip 0x%" PRIx64, (uint64_t)e->rip);
	printf(" %s", d);
	/* The duration ran to the vCPU's destruction, not to an entry. */
	if (e->flags & HVTRACE_EVF_NO_ENTRY)
		printf(" no_entry");
	if (!preempt) {
		print_split(e, comm);
	} else if (e->preempt_pid) {
		printf(" (");
		print_preemptor(e, comm);
		putchar(')');
	}
	putchar('\n');
}

static void print_event(const struct hvtrace_event *e)
{
	const char *name = exit_reason_name(e->isa, e->reason);
	char rname[16], comm[HVTRACE_COMM_LEN + 1];

	if (!name) {
		snprintf(rname, sizeof(rname), "0x%x", e->reason);
		name = rname;
	}
	/* The ring's bytes: not trusted to hold a NUL. */
	snprintf(comm, sizeof(comm), "%.*s", HVTRACE_COMM_LEN,
		 e->preempt_comm);
	if (!hvctl_json) {
		print_text(e, name, comm);
		return;
	}
	out_open_object(NULL);
	out_str("type", NULL, e->type == HVTRACE_EV_PREEMPT ? "preempt" :
		e->type == HVTRACE_EV_EXIT ? "exit" : "unknown");
	out_u64("seq", NULL, e->seq);
	out_u64("ts_ns", NULL, e->ts_ns);
	out_u64("duration_ns", NULL, e->duration_ns);
	out_str("reason", NULL, name);
	out_u64("isa", NULL, e->isa);
	out_u64("code", NULL, e->reason);
	out_u64("info1", NULL, e->info1);
	out_u64("info2", NULL, e->info2);
	if (e->flags & HVTRACE_EVF_ADDR_GPA)
		out_u64("gpa", NULL, e->addr);
	if (e->flags & HVTRACE_EVF_ADDR_MSR)
		out_u64("msr", NULL, e->addr);
	if (e->flags & HVTRACE_EVF_RIP_VALID)
		out_u64("rip", NULL, e->rip);
	out_u64("vm_id", NULL, e->vm_id);
	out_u64("vm_pid", NULL, e->vm_pid);
	out_u64("vcpu", NULL, e->vcpu_id);
	out_u64("tid", NULL, e->tid);
	out_u64("cpu_exit", NULL, e->cpu_exit);
	out_u64("cpu", NULL, e->cpu_entry);
	out_time_parts(e->duration_ns, e->part_ns);
	out_u64("guest_ns", NULL, e->guest_ns);
	if (e->flags & HVTRACE_EVF_NO_ENTRY)
		out_bool("no_entry", NULL, true);
	if (e->preempt_pid) {
		out_u64("preempt_pid", NULL, e->preempt_pid);
		out_str("preempt_comm", NULL, comm);
		out_bool("preempt_vcpu", NULL,
			 e->flags & HVTRACE_EVF_PREEMPT_VCPU);
		out_u64("preempt_ns", NULL, e->preempt_ns);
	}
	out_close_object();
	out_end();
}

static int drain_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const struct hvtrace_event *ev;
	uint64_t *count = data;
	size_t n;

	if (hvnl_parse(nlh, tb, HVTRACE_A_MAX) < 0)
		return MNL_CB_ERROR;
	if (!tb[HVTRACE_A_EVENTS])
		return MNL_CB_OK;
	ev = mnl_attr_get_payload(tb[HVTRACE_A_EVENTS]);
	n = mnl_attr_get_payload_len(tb[HVTRACE_A_EVENTS]) / sizeof(*ev);
	for (size_t i = 0; i < n; i++)
		print_event(&ev[i]);
	*count += n;
	return MNL_CB_OK;
}

static int drain_run(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint64_t count = 0;
	struct hvnl *nl;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_drain, argc, argv))
		return 0;
	if (argc > 1)
		return hvctl_usage_err(&hvctl_cmd_drain,
				       "unexpected argument '%s'", argv[1]);
	nl = hvnl_open();
	if (!nl)
		return 1;
	ret = hvnl_talk(nl, hvnl_request(nl, buf, HVTRACE_CMD_READ_EVENTS,
					 NLM_F_DUMP), drain_cb, &count);
	hvnl_close(nl);
	fflush(stdout);
	if (!ret && !hvctl_json)
		fprintf(stderr, "%" PRIu64 " events\n", count);
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_drain = {
	.name = "drain",
	.run = drain_run,
	.usage = "",
	.summary = "print the buffered events once and remove them from the rings",
};
