/* SPDX-License-Identifier: GPL-2.0 */
/* hvctl report --html: the report as one self-contained page. */
#ifndef HVCTL_REPORT_HTML_H
#define HVCTL_REPORT_HTML_H

#include <stdio.h>

#include "report_agg.h"

/*
 * Write REP (of trace DIR) to F (report --html opens it: out_file.h):
 * tables and inline SVG charts, no scripts, nothing fetched (the page's
 * CSP forbids it). TOP rows per table. Write errors show in F's error
 * flag; -1: out of memory (the page is not whole), else 0. CAP: the
 * capture DIR holds (report_capture.h), the page opens with it; NULL: none.
 */
struct rep_capture;
int report_html(const struct report *rep, const char *dir, FILE *f,
		unsigned int top, const struct rep_capture *cap);

#endif /* HVCTL_REPORT_HTML_H */
