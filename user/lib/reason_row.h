/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exit-reason row of `stat` and `report`: one table of columns for
 * both (output.h's column helper), so the row's text and JSON are
 * described once. A command leaves the cells it does not have absent.
 */
#ifndef HVCTL_REASON_ROW_H
#define HVCTL_REASON_ROW_H

#include "output.h"

enum reason_col {
	RC_REASON,
	RC_ISA,
	RC_CODE,
	RC_COUNT,
	RC_NO_ENTRY,
	RC_RATE,
	RC_TOTAL,
	RC_SHARE_PPM,
	RC_SHARE,
	RC_MIN,
	RC_P50,
	RC_P99,
	RC_P999,
	RC_MAX,
	RC_NR
};

extern const struct out_col reason_cols[RC_NR];

#endif /* HVCTL_REASON_ROW_H */
