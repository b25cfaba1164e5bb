/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl report: the guest marks of a trace (report_marks()), as text or
 * JSON (-j): when each was on the host, the guest's TSC it carried, and
 * the host-to-guest TSC mapping KVM had for its vCPU (guest_tsc.h).
 */
#ifndef HVCTL_REPORT_MARKS_H
#define HVCTL_REPORT_MARKS_H

#include "report_agg.h"

struct out;

/*
 * "Guest marks: N ..." and a row per mark kept; nothing in text when the
 * trace has none, an empty "marks" object in JSON.
 */
void rep_print_marks(struct out *o, const struct report *rep);

#endif /* HVCTL_REPORT_MARKS_H */
