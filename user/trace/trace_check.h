/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a good packet and a plausible event are (layout in trace_format.h),
 * for the trace reader. Pure functions of the bytes. The format has no
 * checksums, so these rules are what stands between damage and the
 * output:
 *
 *   packet   magic, the metadata's uuid, stream id 0, packet_size, a
 *            content_size of whole events, cpu_id the stream's, begin <=
 *            end; its events' ids known, their times never going back
 *            (within the packet and from the stream's previous packet),
 *            the first at timestamp_begin and the last at timestamp_end
 *            (the writer stamps exactly those). One that fails is damaged:
 *            the reader skips it whole.
 *   event    the rules of enum trace_odd. One that breaks any is still
 *            returned, but counted as implausible.
 */
#ifndef HVCTL_TRACE_CHECK_H
#define HVCTL_TRACE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Plausibility rules of an event; each one no real record breaks. */
enum trace_odd {
	TRACE_ODD_DURATION,	/* longer than the clock had run (its exit
				 * would be before boot) */
	TRACE_ODD_SPLIT,	/* handling and the parts (a late interrupt:
				 * and its guest time) do not add up to the
				 * duration (a mark: it has either) */
	TRACE_ODD_REASON,	/* no exit reason of its vendor can be that
				 * (a late interrupt: no vector) */
	TRACE_ODD_ISA,		/* not the vendor of its event class */
	TRACE_ODD_TYPE,		/* not the kind of its event class */
	TRACE_ODD_CPU,		/* cpu_entry is not its stream's CPU */
	TRACE_NR_ODD
};

/* Short names of the rules, for warnings: "duration", "split", ... */
extern const char *const trace_odd_names[TRACE_NR_ODD];

/* What a packet must agree with: the metadata and its stream so far. */
struct trace_pkt_expect {
	const uint8_t *uuid;		/* the metadata's, 16 bytes */
	unsigned int cpu;		/* N of stream_N */
	uint64_t after;			/* no event earlier: the stream's
					 * last event so far (0: none) */
};

/* The implausible events of one good packet. */
struct trace_odd_tally {
	uint32_t events;		/* breaking any rule */
	uint32_t first;			/* index of the first of them */
	uint32_t count[TRACE_NR_ODD];	/* events per rule broken */
};

/*
 * Check the packet at P (TRACE_PACKET_SIZE bytes). True when it is good,
 * its implausible events in *ODD; false when damaged, why in WHY.
 */
bool trace_check_packet(const uint8_t *p, const struct trace_pkt_expect *x,
			struct trace_odd_tally *odd, char *why, size_t len);

/* Which rule the event at EV (in stream CPU) breaks first, in words. */
void trace_odd_describe(const uint8_t *ev, unsigned int cpu, char *why,
			size_t len);

#endif /* HVCTL_TRACE_CHECK_H */
