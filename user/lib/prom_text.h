/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition format, version 0.0.4: what a scrape of
 * /metrics and node_exporter's textfile collector read. A family is its
 * "# HELP" and "# TYPE" lines and then its samples, together:
 *
 *   # HELP hvtrace_exits_total VM exits that ended, ...
 *   # TYPE hvtrace_exits_total counter
 *   hvtrace_exits_total{reason="NPF"} 1234
 *
 * Label values are escaped as the format says (\\, \", \n); bytes that
 * are no UTF-8 become U+FFFD, as a task's comm can hold any byte and a
 * scrape with invalid UTF-8 fails whole. Times are seconds, written from
 * nanoseconds as exact decimals ("0.000001023"), never through a double.
 */
#ifndef HVCTL_PROM_TEXT_H
#define HVCTL_PROM_TEXT_H

#include <stdint.h>
#include <stdio.h>

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

enum prom_type {
	PROM_COUNTER,
	PROM_GAUGE,
	PROM_HISTOGRAM,
};

struct prom_label {
	const char *name;
	const char *value;	/* any bytes */
};

/* "# HELP NAME HELP" and "# TYPE NAME TYPE". */
void prom_family(FILE *f, const char *name, enum prom_type type,
		 const char *help);
/* NAME{L[0],...,L[N-1]} VALUE: N may be 0. */
void prom_sample(FILE *f, const char *name, const struct prom_label *l,
		 unsigned int n, const char *value);
void prom_sample_u64(FILE *f, const char *name, const struct prom_label *l,
		     unsigned int n, uint64_t v);
/* NS nanoseconds as seconds. */
void prom_sample_ns(FILE *f, const char *name, const struct prom_label *l,
		    unsigned int n, uint64_t ns);

/* Room for prom_seconds()'s text: 20 digits, a point, a NUL. */
#define PROM_SECONDS_LEN 24
/* NS as seconds into BUF, exactly: "0", "1.5", "0.000000255"; BUF. */
char *prom_seconds(char *buf, uint64_t ns);
/* S as a label value between its quotes: escaped, UTF-8 only. */
void prom_label_value(FILE *f, const char *s);

#endif /* HVCTL_PROM_TEXT_H */
