/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report of a capture (a trace `hvctl watch` wrote, with
 * hvtrace/capture.json) opens with the capture: its trigger, window and
 * the evidence chain, worked out from the trace's records by the same
 * code that told the story when the capture was made (capture_story.c).
 */
#ifndef HVCTL_REPORT_CAPTURE_H
#define HVCTL_REPORT_CAPTURE_H

#include "capture_story.h"

struct out;

struct rep_capture {
	struct hvc_capture cap;		/* from capture.json, the records */
	struct capture_story st;
	int64_t clock_offset_ns;	/* host.json's */
	unsigned int trig_cpu;		/* the trigger record in the trace */
	uint64_t trig_seq;
	char time[40];			/* capture.json's "time" */
};

/*
 * Read the capture in trace DIR into RC: 1; 0 when DIR holds no
 * capture.json (an ordinary trace) or one that cannot be read (then WARN,
 * LEN bytes, says why: a warning, the rest of the report stands); or a
 * negative errno reported (out of memory, the trace unreadable).
 */
int report_capture_read(const char *dir, struct rep_capture *rc,
			char *warn, size_t len);
void report_capture_free(struct rep_capture *rc);
/* The "Capture" section (text), or the "capture" object (JSON). */
void report_capture_print(struct out *o, const struct rep_capture *rc);

#endif /* HVCTL_REPORT_CAPTURE_H */
