/* SPDX-License-Identifier: GPL-2.0 */
/* hvctl report --html: the report as one self-contained page. */
#ifndef HVCTL_REPORT_HTML_H
#define HVCTL_REPORT_HTML_H

#include "report_agg.h"

/*
 * Write REP (of trace DIR) to PATH, mode 0600: tables and inline SVG
 * charts, no scripts, nothing fetched (the page's CSP forbids it). TOP
 * rows per table. 0, or 1 with an error printed.
 */
int report_html(const struct report *rep, const char *dir, const char *path,
		unsigned int top);

#endif /* HVCTL_REPORT_HTML_H */
