/* SPDX-License-Identifier: GPL-2.0 */
/* The watch's process-context side (watch_scan.c), for the probes' side. */
#ifndef _HVT_WATCH_SCAN_H
#define _HVT_WATCH_SCAN_H

struct hvt_vcpu;
struct hvt_watch_cfg;
struct hvt_watch_vcpu;

/* Ask the scan to run: any context, the probes' included. */
void hvt_watch_kick(void);
/* Forget this minute's total of captures (at arm). */
void hvt_watch_rate_reset(void);
/* Does the watch WC take V's records (its filters)? */
bool hvt_watched(const struct hvt_watch_cfg *wc, const struct hvt_vcpu *v);
/* A ready watch from the pool, or NULL; any context, no lock. */
struct hvt_watch_vcpu *hvt_watch_pool_take(void);
/* W back into the pool (it was not used), or freed by the scan. */
void hvt_watch_pool_put(struct hvt_watch_vcpu *w);

#endif /* _HVT_WATCH_SCAN_H */
