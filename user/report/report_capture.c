// SPDX-License-Identifier: GPL-2.0
/*
 * A capture's report section (report_capture.h): the header from
 * hvtrace/capture.json (which watch wrote: one object, its header
 * members first, each once), the records from the trace, the story from
 * both.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "report_capture.h"
#include "time_parts.h"
#include "trace_format.h"
#include "trace_read.h"

/* Where KEY's value starts in the flat JSON object DOC; NULL: absent. */
static const char *value_of(const char *doc, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(doc, pat);
	return p ? p + strlen(pat) : NULL;
}

static uint64_t num(const char *doc, const char *key, bool *ok)
{
	const char *v = value_of(doc, key);
	char *end;
	uint64_t n;

	if (!v)
		return 0;
	n = strtoull(v, &end, 10);
	if (end == v || v[0] == '-')
		*ok = false;
	return n;
}

static int64_t snum(const char *doc, const char *key)
{
	const char *v = value_of(doc, key);

	return v ? strtoll(v, NULL, 10) : 0;
}

/* A string member without escapes (words and times), into BUF. */
static bool str(const char *doc, const char *key, char *buf, size_t len)
{
	const char *v = value_of(doc, key), *end;

	if (!v || *v != '"')
		return false;
	end = strchr(v + 1, '"');
	if (!end)
		return false;
	snprintf(buf, len, "%.*s", (int)(end - v - 1), v + 1);
	return true;
}

/* The header from DOC: 0, or -EINVAL with WHY (a warning). */
static int header(const char *doc, struct rep_capture *rc, char *why,
		  size_t len)
{
	struct hvc_capture *c = &rc->cap;
	char word[32] = "";
	uint64_t vector;
	bool ok = true;
	int trig;

	str(doc, "trigger", word, sizeof(word));
	trig = capture_trigger_parse(word);
	if (trig < 0) {
		snprintf(why, len, "unknown trigger '%s'", word);
		return -EINVAL;
	}
	c->trigger = trig;
	c->id = num(doc, "capture_id", &ok);
	c->vm_id = num(doc, "vm_id", &ok);
	c->vm_pid = num(doc, "vm_pid", &ok);
	c->vcpu_id = num(doc, "vcpu", &ok);
	c->tid = num(doc, "tid", &ok);
	c->trigger_ts = num(doc, "trigger_ts_ns", &ok);
	c->value_ns = num(doc, "value_ns", &ok);
	c->limit_ns = num(doc, "limit_ns", &ok);
	c->window_ns = num(doc, "window_ns", &ok);
	c->first_seq = num(doc, "first_seq", &ok);
	c->trigger_seq = num(doc, "trigger_seq", &ok);
	c->end_seq = num(doc, "end_seq", &ok);
	c->suppressed = num(doc, "suppressed", &ok);
	rc->trig_cpu = num(doc, "trigger_cpu", &ok);
	rc->trig_seq = num(doc, "trigger_stream_seq", &ok);
	if (str(doc, "part", word, sizeof(word)) &&
	    threshold_on_parse(word) >= 0)
		c->on = threshold_on_parse(word);
	vector = num(doc, "irq_vector", &ok);
	/* A vector is a byte: a larger one is damage, not a vector. */
	if (vector > UINT8_MAX)
		ok = false;
	c->irq_vector = vector;
	str(doc, "time", rc->time, sizeof(rc->time));
	if (!ok) {
		snprintf(why, len, "a number is not one");
		return -EINVAL;
	}
	return 0;
}

/* The trace's record back as the module's (the story reads those). */
static void to_event(struct hvtrace_event *e, const struct trace_event *t)
{
	const struct trace_record *x = &t->e;

	memset(e, 0, sizeof(*e));
	e->seq = x->seq;
	e->ts_ns = trace_exit_ns(t);
	e->duration_ns = x->duration_ns;
	e->info1 = x->info1;
	e->info2 = x->info2;
	e->addr = x->addr;
	e->rip = x->rip;
	e->reason = x->reason;
	e->intr_info = x->intr_info;
	e->error_code = x->error_code;
	e->vcpu_id = x->vcpu_id;
	e->vm_id = x->vm_id;
	e->vm_pid = x->vm_pid;
	e->tid = x->tid;
	e->cpu_exit = x->cpu_exit;
	e->cpu_entry = x->cpu_entry;
	e->isa = x->isa;
	e->type = x->type;
	e->flags = x->flags;
	e->preempt_pid = x->preempt_pid;
	memcpy(e->part_ns, x->part_ns, sizeof(e->part_ns));
	e->preempt_ns = x->preempt_ns;
	/* An irq story counts the guest time before its exit. */
	e->guest_ns = x->guest_ns;
	memcpy(e->preempt_comm, x->preempt_comm, sizeof(e->preempt_comm));
}

/* The records, in the trace's order; the trigger's index. */
static int records(const char *dir, struct rep_capture *rc, unsigned int *trig)
{
	struct hvc_capture *c = &rc->cap;
	struct trace_event ev;
	struct trace_reader *r;
	unsigned int room = 0;
	char err[512];
	int ret;

	r = trace_open(dir, 0, err, sizeof(err));
	if (!r)
		return hvc_err(EIO, "%s", err);
	while ((ret = trace_next(r, &ev)) > 0) {
		if (c->nr_events == room) {
			void *p;

			room = room ? 2 * room : 256;
			p = realloc(c->events, room * sizeof(*c->events));
			if (!p) {
				ret = -1;
				break;
			}
			c->events = p;
		}
		if (ev.cpu == rc->trig_cpu && ev.e.seq == rc->trig_seq &&
		    rc->trig_seq)
			*trig = c->nr_events;
		to_event(&c->events[c->nr_events++], &ev);
	}
	trace_close(r);
	return ret < 0 ? hvc_err(ENOMEM, "reading %s: out of memory", dir) : 0;
}

int report_capture_read(const char *dir, struct rep_capture *rc,
			char *warn, size_t len)
{
	char *doc, *host, why[128];
	unsigned int trig = UINT32_MAX;
	const char *err;
	size_t n;
	int ret;

	memset(rc, 0, sizeof(*rc));
	*warn = '\0';
	doc = trace_read_side(dir, "capture.json", &n, &err);
	if (!doc && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (!doc) {
		snprintf(warn, len, "%s/" TRACE_SIDE_DIR "/capture.json: %s, not "
			 "read: no Capture section", dir, err);
		return 0;
	}
	ret = header(doc, rc, why, sizeof(why));
	free(doc);
	if (ret) {
		snprintf(warn, len, "%s/" TRACE_SIDE_DIR "/capture.json: %s: no "
			 "Capture section", dir, why);
		return 0;
	}
	ret = records(dir, rc, &trig);
	if (!ret) {
		host = trace_read_side(dir, "host.json", &n, &err);
		rc->clock_offset_ns = host ? snum(host, "clock_offset_ns") : 0;
		free(host);
		if (trig == UINT32_MAX)
			trig = rc->cap.nr_events;
		ret = capture_story(&rc->st, &rc->cap, rc->cap.events,
				    rc->cap.nr_events, trig);
	}
	if (!ret) {
		struct trace_vm vm;

		if (trace_side_vm(dir, rc->cap.vm_id, &vm))
			snprintf(rc->st.vm_name, sizeof(rc->st.vm_name), "%s",
				 vm.name);
	}
	if (ret) {
		report_capture_free(rc);
		return ret;
	}
	return 1;
}

void report_capture_free(struct rep_capture *rc)
{
	free(rc->cap.events);
	memset(rc, 0, sizeof(*rc));
}

/* TEXT's lines, each indented by two spaces, to standard output. */
static void indented(const char *text)
{
	const char *p = text;

	while (*p) {
		size_t n = strcspn(p, "\n");

		printf("  %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

void report_capture_print(struct out *o, const struct rep_capture *rc)
{
	char line[1024], *ev = NULL;
	size_t n = 0;
	FILE *f;

	if (o->json) {
		out_open_object(o, "capture");
		capture_story_json(o, &rc->st, rc->clock_offset_ns, NULL,
				   rc->trig_cpu, rc->trig_seq);
		out_close_object(o);
		return;
	}
	capture_story_line(line, sizeof(line), &rc->st);
	printf("Capture\n  %s\n", line);
	if (*rc->time)
		printf("  time:       %s\n", rc->time);
	f = open_memstream(&ev, &n);
	if (f) {
		capture_story_evidence(f, &rc->st);
		fclose(f);
		indented(ev);
		free(ev);
	}
	if (!rc->st.has_trigger)
		printf("  (the trigger record is not in the trace)\n");
	printf("\n");
}
