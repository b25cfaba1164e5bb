// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's ftrace trace_marker: the mark's line in the guest's own
 * trace (a cyclictest --tracemark run's, say), so that its timeline and
 * the host's meet at the mark.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "hvmark.h"

const char *const hvmark_marker_paths[] = {
	"/sys/kernel/tracing/trace_marker",
	"/sys/kernel/debug/tracing/trace_marker",
	NULL,
};

int hvmark_marker_open(const char *const *paths, const char **path)
{
	for (; *paths; paths++) {
		int fd = open(*paths, O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			*path = *paths;
			return fd;
		}
	}
	return -1;
}

enum hvmark_marker_result hvmark_marker_write(int fd, const char *line,
					      size_t len)
{
	ssize_t n = write(fd, line, len);

	if (n == (ssize_t)len)
		return HVMARK_MARKER_OK;
	/*
	 * With tracing_on at 0 the ring buffer takes nothing and the write
	 * fails with EBADF (kernel/trace/trace.c, tracing_mark_write()): so
	 * it is after cyclictest --breaktrace stopped the trace.
	 */
	if (n < 0 && errno == EBADF)
		return HVMARK_MARKER_OFF;
	if (n >= 0)
		errno = EIO;	/* the marker takes a line whole or not */
	return HVMARK_MARKER_FAILED;
}
