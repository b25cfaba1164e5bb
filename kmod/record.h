/* SPDX-License-Identifier: GPL-2.0 */
/* Writing one record about a vCPU to this CPU's ring (record.c). */
#ifndef _HVT_RECORD_H
#define _HVT_RECORD_H

#include "stats.h"
#include "vcpu.h"

/*
 * One record of TYPE (enum hvtrace_event_type) about V, D ns long, to
 * CPU's ring; counted in C's accounting as recorded or lost.
 */
void hvt_record(struct hvt_cpu *c, const struct hvt_vcpu *v, u8 type, u64 d,
		int cpu);

/* EV: a record of TYPE about V, D ns long, ending on CPU (all but seq). */
void hvt_event_fill(struct hvtrace_event *ev, const struct hvt_vcpu *v,
		    u8 type, u64 d, int cpu);

#endif /* _HVT_RECORD_H */
