// SPDX-License-Identifier: GPL-2.0
/* The exit-reason row's columns, shared by `stat` and `report`. */
#include "reason_row.h"

const struct out_col reason_cols[RC_NR] = {
	[RC_REASON] = { "reason", "reason", -24, OUT_STR },
	[RC_ISA] = { "isa", NULL, 0, OUT_U64 },
	[RC_CODE] = { "code", NULL, 0, OUT_U64 },
	[RC_COUNT] = { "count", "count", 12, OUT_U64 },
	[RC_NO_ENTRY] = { "no_entry", NULL, 0, OUT_U64 },
	[RC_RATE] = { "rate_per_s", "rate/s", 10, OUT_RATE },
	[RC_TOTAL] = { "total_ns", "time", 10, OUT_DUR },
	[RC_SHARE_PPM] = { "share_ppm", NULL, 0, OUT_U64 },
	[RC_SHARE] = { NULL, "share", 7, OUT_PCT, 2 },
	[RC_MIN] = { "min_ns", "min", 9, OUT_DUR },
	[RC_P50] = { "p50_ns", "p50", 9, OUT_DUR },
	[RC_P99] = { "p99_ns", "p99", 9, OUT_DUR },
	[RC_P999] = { "p999_ns", "p99.9", 9, OUT_DUR },
	[RC_MAX] = { "max_ns", "max", 9, OUT_DUR },
};
