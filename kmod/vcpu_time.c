// SPDX-License-Identifier: GPL-2.0
/*
 * The time split's rare paths (vcpu_time.h has the state, the drawing
 * and the entry points): a vCPU's destruction, a slot's start. An exit's
 * close and the reset after it are inline there, in the caller's
 * out-of-line counting of a split exit, so that path makes no extra
 * calls.
 */
#include "vcpu_time.h"

void hvt_time_init(struct hvt_split *s)
{
	/* A slot taken over by identity only: its old thread lets go. */
	if (s->task)
		hvt_split_own(s, NULL);
	s->in_exit = false;
	s->where = HVT_ON_CPU;
	hvt_time_reset(s);
}

bool hvt_time_destroyed(struct hvt_split *s, u64 *d)
{
	hvt_split_own(s, NULL);
	if (!s->in_exit)
		return false;
	/* The split state may be all but empty: settle it anyway. */
	s->split = true;
	__hvt_time_end(s, hvt_time_now(), d);
	return true;
}
