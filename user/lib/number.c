// SPDX-License-Identifier: GPL-2.0
/* Counts, for options and configuration keys alike (number.h). */
#include <errno.h>

#include "err.h"
#include "number.h"

int hvc_parse_decimal(const char *s, uint64_t *v)
{
	uint64_t n = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned char)*s - '0';

		if (d > 9)
			return -EINVAL;
		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

int hvc_parse_count(const char *name, const char *v, uint64_t min,
		    uint64_t max, uint64_t *out)
{
	uint64_t n = 0;
	int err = hvc_parse_decimal(v, &n);

	if (err == -ERANGE && max == UINT64_MAX)
		return hvc_err(EINVAL, "%s must be at most %llu, not '%s'",
			       name, (unsigned long long)max, v);
	if (err || n < min || n > max) {
		if (min == 1 && max == UINT64_MAX)
			return hvc_err(EINVAL, "%s must be a positive number, "
				       "not '%s'", name, v);
		return hvc_err(EINVAL, "%s takes a number from %llu to %llu, "
			       "not '%s'", name, (unsigned long long)min,
			       (unsigned long long)max, v);
	}
	*out = n;
	return 0;
}
