// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl export: a recorded trace as Chrome/Perfetto trace-event JSON.
 * Each VM is a process (its VMM's pid) and each vCPU thread a track in
 * it, holding one complete ("X") slice per exit: exit to re-entry, named
 * by the reason, its time split in the args (the parts have no place in
 * time, only sums). A preemption record is a slice of its own on the
 * same track, "preempted by COMM (PID)" from switch-out to switch-in:
 * inside its exit's slice, so Perfetto draws it as the exit's child.
 * The events stream out as the reader yields them; only the set of VMs
 * and vCPU threads already named is kept.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "exit_reasons.h"
#include "hvctl.h"
#include "out_file.h"
#include "output.h"
#include "trace_read.h"

/* Keys seen so far: open addressing, kept at most half full. */
struct key_set {
	uint64_t *keys;			/* stored as key + 1: 0 is free */
	size_t cap, used;
};

static bool set_grow(struct key_set *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	uint64_t *k = calloc(cap, sizeof(*k));

	if (!k)
		return false;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->keys[i])
			continue;
		for (j = s->keys[i] * 0x9e3779b97f4a7c15ULL >> 32 & (cap - 1);
		     k[j]; j = (j + 1) & (cap - 1))
			;
		k[j] = s->keys[i];
	}
	free(s->keys);
	s->keys = k;
	s->cap = cap;
	return true;
}

/* Add KEY: 1 when new, 0 when there already, -1 out of memory. */
static int set_add(struct key_set *s, uint64_t key)
{
	size_t j;

	if (2 * (s->used + 1) > s->cap && !set_grow(s))
		return -1;
	key++;
	for (j = key * 0x9e3779b97f4a7c15ULL >> 32 & (s->cap - 1); s->keys[j];
	     j = (j + 1) & (s->cap - 1))
		if (s->keys[j] == key)
			return 0;
	s->keys[j] = key;
	s->used++;
	return 1;
}

struct exporter {
	struct trace_reader *r;
	FILE *f;
	struct key_set vms, threads;
	bool first;			/* no array member written yet */
};

static void next_member(struct exporter *x)
{
	fputs(x->first ? "\n" : ",\n", x->f);
	x->first = false;
}

/* Microseconds with the nanoseconds kept as three decimals. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
		(unsigned int)(ns % 1000));
}

/* Process and thread names, the first time a VM or vCPU thread shows. */
static int name_tracks(struct exporter *x, const struct trace_record *e)
{
	uint64_t thread = (uint64_t)e->vm_pid << 32 | e->tid;
	char buf[32];
	int ret;

	ret = set_add(&x->vms, e->vm_pid);
	if (ret < 0)
		return -1;
	if (ret) {
		next_member(x);
		fprintf(x->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%"
			PRIu32 ",\"tid\":0,\"args\":{\"name\":", e->vm_pid);
		out_json_str(x->f, trace_vm_label(x->r, e->vm_id, e->vm_pid,
						  buf, sizeof(buf)));
		fputs("}}", x->f);
	}
	ret = set_add(&x->threads, thread);
	if (ret <= 0)
		return ret;
	next_member(x);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"args\":{\"name\":\"vcpu%" PRIu32 "\"}}",
		e->vm_pid, e->tid, e->vcpu_id);
	/* Tracks in vCPU order, not in order of appearance. */
	next_member(x);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%"
		PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"sort_index\":%" PRIu32
		"}}", e->vm_pid, e->tid, e->vcpu_id);
	return 0;
}

/* Who ran instead: "preempted_by": "stress-ng (4242)", and the fields. */
static void preemptor_args(FILE *f, const struct trace_record *e)
{
	char comm[TRACE_COMM_BUF], name[TRACE_COMM_BUF + 16];

	trace_comm(e, comm);
	snprintf(name, sizeof(name), "%s (%" PRIu32 ")", comm, e->preempt_pid);
	fputs(",\"preempted_by\":", f);
	out_json_str(f, name);
	fprintf(f, ",\"preempt_pid\":%" PRIu32 ",\"preempt_comm\":",
		e->preempt_pid);
	out_json_str(f, comm);
	fprintf(f, ",\"preempt_vcpu\":%s,\"preempt_ns\":%" PRIu64,
		e->flags & HVTRACE_EVF_PREEMPT_VCPU ? "true" : "false",
		(uint64_t)e->preempt_ns);
}

/*
 * The args of both kinds; of a preemption, reason to rip are the exit's in
 * flight, named by EXIT (its slice is named by the preemptor).
 */
static void exit_args(FILE *f, const struct trace_event *ev, const char *exit)
{
	const struct trace_record *e = &ev->e;
	char q[96];

	fputs(",\"args\":{", f);
	if (exit) {
		fputs("\"exit\":", f);
		out_json_str(f, exit);
		fputc(',', f);
	}
	fprintf(f, "\"isa\":%u,\"code\":%" PRIu32 ",\"info1\":\"0x%"
		PRIx64 "\",\"info2\":\"0x%" PRIx64 "\"", e->isa, e->reason,
		(uint64_t)e->info1, (uint64_t)e->info2);
	if (e->intr_info || e->error_code)
		fprintf(f, ",\"intr_info\":\"0x%" PRIx32 "\",\"error_code\":\"0x%"
			PRIx32 "\"", e->intr_info, e->error_code);
	if (e->flags & HVTRACE_EVF_ADDR_GPA)
		fprintf(f, ",\"gpa\":\"0x%" PRIx64 "\"", (uint64_t)e->addr);
	if (e->flags & HVTRACE_EVF_ADDR_MSR)
		fprintf(f, ",\"msr\":\"0x%" PRIx64 "\"", (uint64_t)e->addr);
	if (e->flags & HVTRACE_EVF_RIP_VALID)
		fprintf(f, ",\"rip\":\"0x%" PRIx64 "\"", (uint64_t)e->rip);
	if (exit_reason_qualifier(q, sizeof(q), e->isa, e->reason, e->info1,
				  e->info2) > 0) {
		fputs(",\"detail\":", f);
		out_json_str(f, q);
	}
	fprintf(f, ",\"duration_ns\":%" PRIu64 ",\"vm_id\":%" PRIu32
		",\"vcpu\":%" PRIu32 ",\"cpu_exit\":%u,\"cpu\":%u,\"seq\":%"
		PRIu64 ",\"flags\":\"0x%x\"", (uint64_t)e->duration_ns,
		e->vm_id, e->vcpu_id, e->cpu_exit, ev->cpu, (uint64_t)e->seq,
		e->flags);
	fprintf(f, ",\"handling_ns\":%" PRIu64 ",\"vmm_ns\":%" PRIu64
		",\"halt_ns\":%" PRIu64 ",\"runnable_ns\":%" PRIu64
		",\"other_ns\":%" PRIu64 ",\"guest_ns\":%" PRIu64,
		(uint64_t)e->handling_ns, (uint64_t)e->part_ns[HVTRACE_PART_VMM],
		(uint64_t)e->part_ns[HVTRACE_PART_HALT],
		(uint64_t)e->part_ns[HVTRACE_PART_RUNNABLE],
		(uint64_t)e->part_ns[HVTRACE_PART_OTHER],
		(uint64_t)e->guest_ns);
	if (e->preempt_pid || trace_is_preempt(ev))
		preemptor_args(f, e);
	fputs("}}", f);
}

static int export_event(struct exporter *x, const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;
	char comm[TRACE_COMM_BUF], pre[TRACE_COMM_BUF + 40], code[16];
	const char *name;

	if (name_tracks(x, e))
		return -1;
	name = e->isa == HVTRACE_ISA_UNKNOWN ? "unknown" :
					      exit_reason_name(e->isa, e->reason);
	if (!name) {
		snprintf(code, sizeof(code), "0x%x", e->reason);
		name = code;
	}
	next_member(x);
	if (trace_is_preempt(ev)) {
		snprintf(pre, sizeof(pre), "preempted by %s%s (%" PRIu32 ")",
			 e->flags & HVTRACE_EVF_PREEMPT_VCPU ? "vcpu " : "",
			 trace_comm(e, comm), e->preempt_pid);
		fputs("{\"ph\":\"X\",\"cat\":\"preempt\",\"name\":", x->f);
		out_json_str(x->f, pre);
	} else {
		fprintf(x->f, "{\"ph\":\"X\",\"cat\":\"exit\",\"name\":\"%s\"",
			name);
	}
	fprintf(x->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, e->vm_pid,
		e->tid);
	put_us(x->f, "ts", trace_exit_ns(ev));
	put_us(x->f, "dur", e->duration_ns);
	exit_args(x->f, ev, trace_is_preempt(ev) ? name : NULL);
	return 0;
}

/* Lost events: a global instant where each loss range begins. */
static void export_loss(unsigned int cpu, uint64_t begin, uint64_t end,
			uint64_t lost, void *arg)
{
	struct exporter *x = arg;

	next_member(x);
	fprintf(x->f, "{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"loss\",\"name\":"
		"\"%" PRIu64 " event%s lost on cpu%u\",\"pid\":0,\"tid\":0",
		lost, lost == 1 ? "" : "s", cpu);
	put_us(x->f, "ts", begin);
	fprintf(x->f, ",\"args\":{\"cpu\":%u,\"lost\":%" PRIu64 ",\"begin_ns\":%"
		PRIu64 ",\"end_ns\":%" PRIu64 "}}", cpu, lost, begin, end);
}

static int export(struct exporter *x)
{
	struct trace_event ev;
	int ret;

	fputs("{\"traceEvents\":[", x->f);
	while ((ret = trace_next(x->r, &ev)) > 0)
		if (export_event(x, &ev))
			return hvctl_err("out of memory");
	if (ret < 0)
		return hvctl_err("%s", trace_error(x->r));
	trace_for_each_loss(x->r, export_loss, x);
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", x->f);
	return 0;
}

static int export_file(const char *dir, const char *out, unsigned int flags)
{
	static char obuf[1 << 18];
	struct exporter x = { .first = true };
	struct trace_reader *r;
	struct out_file o;
	char err[512];
	int ret;

	r = trace_open(dir, flags, err, sizeof(err));
	if (!r)
		return hvctl_err("%s", err);
	if (out_file_open(&o, out, dir)) {
		trace_close(r);
		return 1;
	}
	x.r = r;
	x.f = o.f;
	setvbuf(x.f, obuf, _IOFBF, sizeof(obuf));
	ret = export(&x);
	/* Half a JSON document is of no use: FILE stays as it was. */
	if (ret)
		out_file_discard(&o);
	else
		ret = out_file_commit(&o);
	if (!ret)
		trace_print_warnings(r, stderr);
	free(x.vms.keys);
	free(x.threads.keys);
	trace_close(r);
	return ret ? 1 : 0;
}

static int export_run(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	bool strict = false;
	const struct hvctl_opt opts[] = {
		{ "--perfetto", &out, NULL },
		{ "--strict", NULL, &strict },
		{ NULL, NULL, NULL },
	};
	int ret;

	if (hvctl_want_help(&hvctl_cmd_export, argc, argv))
		return 0;
	ret = hvctl_dir_and_options(&hvctl_cmd_export, argc, argv, opts, &dir);
	if (ret)
		return ret;
	if (!out || !*out)
		return hvctl_usage_err(&hvctl_cmd_export,
				       "--perfetto FILE is required");
	return export_file(dir, out, strict ? TRACE_STRICT : 0);
}

const struct hvctl_cmd hvctl_cmd_export = {
	.name = "export",
	.run = export_run,
	.usage = "DIR --perfetto FILE [--strict]",
	.summary = "convert a recorded trace for ui.perfetto.dev or chrome://tracing\n"
		   "(trace-event JSON; FILE - is stdout): a process per VM, a\n"
		   "track per vCPU, a slice per exit (its time split in the\n"
		   "args), and within it a \"preempted by COMM (PID)\" slice per\n"
		   "preemption record. FILE is replaced whole once written (new:\n"
		   "mode 0600), never inside DIR; --strict makes any damage to the\n"
		   "trace an error",
};
