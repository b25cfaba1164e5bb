/* SPDX-License-Identifier: GPL-2.0 */
/* The "hvtrace" generic netlink family (genl.c, genl_watch.c). */
#ifndef _HVT_GENL_H
#define _HVT_GENL_H

#include <net/genetlink.h>
#include <uapi/linux/hvtrace.h>

extern struct genl_family hvt_family;

int hvt_genl_register(void);
void hvt_genl_unregister(void);
/* A ring passed its watermark: tell the "events" group (process ctx). */
void hvt_genl_notify_watermark(void);
/* A capture closed: tell the "events" group (process ctx). */
void hvt_genl_notify_capture(void);

/* The privilege tests (genl.c's top comment); false: EXTACK says why. */
bool hvt_may_observe(const struct sk_buff *skb,
		     struct netlink_ext_ack *extack);
bool hvt_may_change(const struct sk_buff *skb,
		    struct netlink_ext_ack *extack);
/*
 * Copy a user bitmap of u64 words into DST (NBITS long). 1 if any bit is
 * set, 0 if none, -EINVAL for a ragged length, -ERANGE for a bit at or
 * beyond LIMIT.
 */
int hvt_nla_bitmap(unsigned long *dst, unsigned int nbits,
		   const struct nlattr *a, unsigned int limit);

/* genl_watch.c: the watch's commands, and its part of GET_STATUS. */
extern const struct nla_policy hvt_watch_policy[HVTRACE_WATCH_MAX + 1];
int hvt_cmd_watch_start(struct sk_buff *skb, struct genl_info *info);
int hvt_cmd_watch_stop(struct sk_buff *skb, struct genl_info *info);
int hvt_captures_start(struct netlink_callback *cb);
int hvt_captures_dump(struct sk_buff *skb, struct netlink_callback *cb);
int hvt_captures_done(struct netlink_callback *cb);
int hvt_watch_put_status(struct sk_buff *msg);

#endif /* _HVT_GENL_H */
