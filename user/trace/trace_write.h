/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing a trace directory (layout in trace_format.h). Each stream keeps
 * one packet in memory and writes it whole when full or flushed, at a
 * page-aligned offset, so the files only ever hold complete packets.
 */
#ifndef HVCTL_TRACE_WRITE_H
#define HVCTL_TRACE_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include <linux/hvtrace.h>

struct trace_writer;

struct trace_env {
	const char *hostname;
	const char *kernel;		/* uname -r */
	const char *cpu_vendor;		/* "AuthenticAMD", ... */
	const char *hvtrace_version;	/* the module's */
	int64_t clock_offset_ns;	/* add to timestamps for UTC */
};

/*
 * Create DIR (mode 0700, whatever the umask lets through) with NR_CPUS
 * streams and the CTF metadata; every file in it mode 0600. DIR may
 * exist if it is an empty directory: it is used as it is, its mode the
 * owner's choice. On failure tells the error sink (err.h), naming the
 * path, and returns NULL.
 */
struct trace_writer *trace_create(const char *dir, unsigned int nr_cpus,
				  const struct trace_env *env);
/*
 * Append one event, an exit or a preemption record, to its CPU's stream
 * (ev->cpu_entry). Records of a type the format has no class for are
 * skipped and counted (trace_skipped()). 0 or a negative errno.
 */
int trace_append(struct trace_writer *w, const struct hvtrace_event *ev);
/* Set CPU's cumulative lost count, stamped on its next packet. */
void trace_set_discarded(struct trace_writer *w, unsigned int cpu,
			 uint64_t discarded);
/* Write every partial packet out. 0 or a negative errno. */
int trace_flush(struct trace_writer *w);
/* Flush, close and free. 0 or a negative errno (the sink told). */
int trace_finish(struct trace_writer *w);
/*
 * Instead of trace_finish() right after trace_create(), when recording
 * never began: remove what trace_create() wrote, and DIR if it made it.
 */
void trace_discard(struct trace_writer *w);
/* Events and bytes written so far. */
uint64_t trace_events(const struct trace_writer *w);
uint64_t trace_bytes(const struct trace_writer *w);
/* Records skipped for their unknown type. */
uint64_t trace_skipped(const struct trace_writer *w);
/*
 * Create DIR/NAME (a new file, mode 0600; NAME may be in TRACE_SIDE_DIR)
 * for writing; NULL with the error sink told.
 */
FILE *trace_open_file(const struct trace_writer *w, const char *name);
/*
 * Close F from trace_open_file(), written with stdio only: 0, or the
 * errno of what failed (a full disk is ENOSPC, not a generic EIO).
 */
int trace_close_file(FILE *f);
/* TRACE_SIDE_DIR/host.json: ENV's strings JSON-escaped. 0 or -errno. */
int trace_write_host(const struct trace_writer *w, const struct trace_env *env);

#endif /* HVCTL_TRACE_WRITE_H */
