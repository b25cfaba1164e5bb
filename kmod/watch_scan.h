/* SPDX-License-Identifier: GPL-2.0 */
/* The watch's process-context side (watch_scan.c), for the probes' side. */
#ifndef _HVT_WATCH_SCAN_H
#define _HVT_WATCH_SCAN_H

/* Ask the scan to run: any context, the probes' included. */
void hvt_watch_kick(void);
/* Forget this minute's total of captures (at arm). */
void hvt_watch_rate_reset(void);

#endif /* _HVT_WATCH_SCAN_H */
