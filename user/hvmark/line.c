// SPDX-License-Identifier: GPL-2.0
/*
 * The mark's line. Tests and scripts parse it (tests/e2e/72-qemu-linux-
 * guest.t): its words and their order are an interface, like hvctl's JSON.
 */
#include <inttypes.h>
#include <stdio.h>

#include "hvmark.h"

size_t hvmark_line(char *buf, uint32_t id, uint64_t tsc, uint64_t mono_ns)
{
	return snprintf(buf, HVMARK_LINE_LEN,
			"hvmark: mark %" PRIu32 " tsc %" PRIu64 " monotonic_ns %" PRIu64 "\n",
			id, tsc, mono_ns);
}
