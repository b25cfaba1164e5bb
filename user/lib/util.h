/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers every part of hvctl may use. */
#ifndef HVCTL_UTIL_H
#define HVCTL_UTIL_H

#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* PART of WHOLE in parts per million, rounded; 0 of nothing. */
static inline uint64_t ppm_of(uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((double)part * 1e6 / (double)whole + 0.5) : 0;
}

#endif /* HVCTL_UTIL_H */
