/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A line built in a buffer, no stdio per field: dump and export write
 * millions of events, and a printf per field is most of their time. Each
 * put_*() writes at P and returns the end. put_u64() copies 20 bytes
 * whatever the number's length (a constant-size copy is inlined): a
 * buffer keeps PUT_SLACK bytes past what it means to hold.
 */
#ifndef HVCTL_PUT_H
#define HVCTL_PUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "json_escape.h"

#define PUT_SLACK 20

static inline char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static inline char *put_str(char *p, const char *s)
{
	return put_mem(p, s, strlen(s));
}

static inline char *put_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"939495969798990";
	char tmp[40], *t = tmp + 20;
	size_t n;

	/* Parts of an exit's time are mostly 0. */
	if (v < 10) {
		*p = '0' + v;
		return p + 1;
	}
	/* Two digits per division, right-aligned at tmp + 20. */
	while (v >= 100) {
		t -= 2;
		memcpy(t, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, pairs + 2 * v, 2);
	} else {
		*--t = '0' + v;
	}
	n = tmp + 20 - t;
	memcpy(p, t, 20);
	return p + n;
}

/* The N last decimal digits of V, zeros in front: a fraction's. */
static inline char *put_digits(char *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = n; i; i--) {
		p[i - 1] = '0' + v % 10;
		v /= 10;
	}
	return p + n;
}

/* "0x" and lower-case hex digits. */
static inline char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* S as a JSON string through the one escaper: OUT_JSON_CHAR_MAX a byte. */
static inline char *put_json_str(char *p, const char *s)
{
	int used;

	*p++ = '"';
	while (*s) {
		p += out_json_char(p, s, &used);
		s += used;
	}
	*p++ = '"';
	return p;
}

/*
 * A preemptor as every output names it: "stress-ng (4242)", and a vCPU
 * thread "vcpu CPU 1/KVM (4102)". A buffer of PREEMPTOR_LEN holds one
 * with a command name of up to 16 bytes.
 */
#define PREEMPTOR_LEN	(5 + 16 + 2 + 1 + PUT_SLACK + 2)

static inline char *put_preemptor(char *p, const char *comm, uint64_t pid,
				  bool vcpu)
{
	if (vcpu)
		p = put_str(p, "vcpu ");
	p = put_str(put_str(p, comm), " (");
	p = put_u64(p, pid);
	*p++ = ')';
	return p;
}

#endif /* HVCTL_PUT_H */
