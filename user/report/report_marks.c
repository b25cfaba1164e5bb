// SPDX-License-Identifier: GPL-2.0
/*
 * The report's guest marks (report_marks.h). A mark is a point in both
 * timelines at once: the host's clock at its CPUID exit, and the guest's
 * TSC it passed. The mapping KVM kept for the vCPU (ratio and offset)
 * gives the guest TSC at the exit too; the lag, that less the guest's
 * own value, is the exit's cost in guest cycles when the mapping holds.
 */
#include <inttypes.h>
#include <stdio.h>

#include <linux/hvtrace.h>

#include "guest_tsc.h"
#include "output.h"
#include "report_marks.h"

enum {
	MC_ID, MC_VM, MC_VM_ID, MC_VM_PID, MC_VCPU, MC_TIME, MC_TS,
	MC_GUEST_TSC, MC_HOST_TSC, MC_AT_EXIT, MC_LAG, MC_RATIO_TEXT,
	MC_OFFSET_TEXT, MC_RATIO, MC_FRAC_BITS, MC_OFFSET, MC_RIP,
	MC_NR
};

static const struct out_col mark_cols[MC_NR] = {
	[MC_ID] = { "id", "mark", 8, OUT_U64 },
	[MC_VM] = { "vm", "vm", -12, OUT_STR },
	[MC_VM_ID] = { "vm_id", NULL, 0, OUT_U64 },
	[MC_VM_PID] = { "vm_pid", NULL, 0, OUT_U64 },
	[MC_VCPU] = { "vcpu", "vcpu", 4, OUT_U64 },
	[MC_TIME] = { NULL, "time", 17, OUT_STR },
	[MC_TS] = { "ts_ns", NULL, 0, OUT_U64 },
	[MC_GUEST_TSC] = { "guest_tsc", "guest tsc", 20, OUT_U64 },
	[MC_HOST_TSC] = { "host_tsc", "host tsc", 20, OUT_U64 },
	[MC_AT_EXIT] = { "guest_tsc_at_exit", "at the exit", 20, OUT_U64 },
	/* Signed: JSON writes it apart (out_i64()). */
	[MC_LAG] = { NULL, "lag", 8, OUT_STR },
	[MC_RATIO_TEXT] = { NULL, "ratio", 12, OUT_STR },
	[MC_OFFSET_TEXT] = { NULL, "tsc offset", 18, OUT_STR },
	[MC_RATIO] = { "tsc_ratio", NULL, 0, OUT_U64 },
	[MC_FRAC_BITS] = { "tsc_frac_bits", NULL, 0, OUT_U64 },
	[MC_OFFSET] = { "tsc_offset", NULL, 0, OUT_U64 },
	[MC_RIP] = { "rip", NULL, 0, OUT_U64 },
};

/* Text of one row: the time, lag, ratio and offset as they print. */
struct mark_text {
	char vm[64], time[32], lag[24], ratio[32], offset[24];
};

static void mark_row(struct out *o, const struct report *rep,
		     const struct rep_mark *m)
{
	uint64_t at = guest_tsc_at(m->host_tsc, m->tsc_ratio, m->tsc_frac_bits,
				   m->tsc_offset);
	int64_t lag = guest_tsc_lag(at, m->guest_tsc);
	struct out_cell c[MC_NR] = { 0 };
	struct mark_text t;
	/* The ratio as a factor: 1.0 is an unscaled TSC. */
	double ratio = m->tsc_frac_bits < 64 ?
		       (double)m->tsc_ratio / (double)(1ULL << m->tsc_frac_bits) :
		       0;

	snprintf(t.time, sizeof(t.time), "%" PRIu64 ".%09" PRIu64,
		 m->ts_ns / 1000000000, m->ts_ns % 1000000000);
	snprintf(t.lag, sizeof(t.lag), "%+" PRId64, lag);
	snprintf(t.ratio, sizeof(t.ratio), "%.9f", ratio);
	snprintf(t.offset, sizeof(t.offset), "0x%" PRIx64, m->tsc_offset);
	c[MC_ID].u = m->id;
	c[MC_VM].s = report_vm_name(rep, m->vm_id, t.vm, sizeof(t.vm));
	c[MC_VM_ID].u = m->vm_id;
	c[MC_VM_PID].u = m->vm_pid;
	c[MC_VCPU].u = m->vcpu_id;
	c[MC_TIME].s = t.time;
	c[MC_TS].u = m->ts_ns;
	c[MC_GUEST_TSC].u = m->guest_tsc;
	c[MC_HOST_TSC].u = m->host_tsc;
	c[MC_AT_EXIT].u = at;
	c[MC_LAG].s = t.lag;
	c[MC_RATIO_TEXT].s = t.ratio;
	c[MC_OFFSET_TEXT].s = t.offset;
	c[MC_RATIO].u = m->tsc_ratio;
	c[MC_FRAC_BITS].u = m->tsc_frac_bits;
	c[MC_OFFSET].u = m->tsc_offset;
	c[MC_RIP].u = m->rip;
	c[MC_RIP].absent = !(m->flags & HVTRACE_EVF_RIP_VALID);
	out_open_object(o, NULL);
	out_cells(o, mark_cols, c, MC_NR);
	out_i64(o, "lag_cycles", NULL, lag);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

void rep_print_marks(struct out *o, const struct report *rep)
{
	const struct rep_mark *m;
	uint64_t total;
	unsigned int n = report_marks(rep, &m, &total);

	if (!total && !o->json)
		return;
	out_open_object(o, "marks");
	out_u64(o, "count", NULL, total);
	out_u64(o, "kept", NULL, n);
	if (!o->json)
		printf("\nGuest marks: %" PRIu64 " (guest TSC at the exit = "
		       "host TSC x ratio + tsc offset; lag: that less the "
		       "guest's own, in its cycles)\n", total);
	out_heading(o, mark_cols, MC_NR);
	out_open_array(o, "entries");
	for (unsigned int i = 0; i < n; i++)
		mark_row(o, rep, &m[i]);
	out_close_array(o);
	out_close_object(o);
	if (!o->json && total > n)
		printf("(%" PRIu64 " more marks: the report keeps the first "
		       "%u)\n", total - n, REP_MAX_MARKS);
}
