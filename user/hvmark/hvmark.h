/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvmark: a guest marks its timeline for the host's hvtrace (CPUID
 * HVTRACE_MARK_LEAF, include/uapi/linux/hvtrace.h). What can run on any
 * machine: the options, the mark's line and the guest's trace_marker, in
 * libhvmark.a (user/hvmark/hvmark.mk). The CPU's part, TSC and CPUID, is
 * cpu.h's alone, used by main (hvmark.c) only.
 */
#ifndef HVMARK_H
#define HVMARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HVMARK_USAGE \
	"usage: hvmark [-n COUNT] [-i INTERVAL] [-q] [--no-trace-marker] [ID]"

enum hvmark_action {
	HVMARK_RUN,
	HVMARK_HELP,
	HVMARK_VERSION,
};

struct hvmark_opts {
	enum hvmark_action action;
	uint32_t id;		/* the first mark's id; the next ones count up */
	uint32_t count;		/* marks to issue */
	uint64_t interval_ns;	/* from one mark to the next */
	bool quiet;		/* no line on standard output */
	bool trace_marker;	/* the line into the guest's ftrace too */
};

/* Room for an error message of hvmark_parse(). */
#define HVMARK_ERR_LEN 160

/*
 * Parse the command line into O (the defaults first: id 1, one mark, 0
 * interval). Returns 0, or -1 with ERR saying what was wrong and naming
 * the argument: the caller prints it and the usage line, and exits 2.
 * getopt's state is reset first: it may be called again.
 */
int hvmark_parse(int argc, char **argv, struct hvmark_opts *o, char *err);

/*
 * The mark's line, "hvmark: mark ID tsc TSC monotonic_ns NS\n", decimal,
 * into BUF of HVMARK_LINE_LEN; returns its length. Standard output gets
 * it, and the guest's trace_marker the same text.
 */
#define HVMARK_LINE_LEN 96
size_t hvmark_line(char *buf, uint32_t id, uint64_t tsc, uint64_t mono_ns);

/*
 * The guest's ftrace trace_marker: the first of PATHS (NULL-terminated)
 * that exists and can be opened for writing. Returns its descriptor and
 * points *PATH at it, or -1: none there, or none writable (not an error:
 * a guest without tracefs still marks the host's trace).
 */
int hvmark_marker_open(const char *const *paths, const char **path);

/* Where tracefs is: its own mount first, then under debugfs. */
extern const char *const hvmark_marker_paths[];

enum hvmark_marker_result {
	HVMARK_MARKER_OK,
	HVMARK_MARKER_OFF,	/* tracing_on is 0: the kernel says EBADF */
	HVMARK_MARKER_FAILED,	/* errno says why */
};

/* LINE (LEN bytes) into the trace_marker FD. */
enum hvmark_marker_result hvmark_marker_write(int fd, const char *line,
					      size_t len);

#endif /* HVMARK_H */
