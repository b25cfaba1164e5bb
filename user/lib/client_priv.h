/* SPDX-License-Identifier: GPL-2.0 */
/* What the client's files share and the commands never see. */
#ifndef HVCTL_CLIENT_PRIV_H
#define HVCTL_CLIENT_PRIV_H

#include <linux/hvtrace.h>

#include "nl.h"

struct hvc {
	struct hvnl *nl;
};

/*
 * Send CMD without attributes; CB on every reply message (0, or a negative
 * errno it reported).
 */
int hvc_request(struct hvc *c, uint8_t cmd, uint16_t flags, hvnl_cb cb,
		void *data);
/* The same with the attribute FLAG (an NLA_FLAG; 0: none). */
int hvc_request_flag(struct hvc *c, uint8_t cmd, uint16_t flags,
		     uint16_t flag, hvnl_cb cb, void *data);

/*
 * The member of request REQ's NEST_TYPE nest that holds byte OFF (an
 * extended ACK's offset): its type (0: none) and in *NTH how many of
 * that type come before it.
 */
uint16_t hvc_attr_at(const struct nlmsghdr *req, uint16_t nest_type,
		     uint32_t off, unsigned int *nth);

/* The attributes of the module's replies, table by table (client_policy.c). */
extern const struct hvnl_policy hvc_policy_attr[HVTRACE_A_MAX + 1];
extern const struct hvnl_policy hvc_policy_acct[HVTRACE_ACCT_MAX + 1];
extern const struct hvnl_policy hvc_policy_cfg[HVTRACE_CFG_MAX + 1];
extern const struct hvnl_policy hvc_policy_rsn[HVTRACE_RSN_MAX + 1];
extern const struct hvnl_policy hvc_policy_vcpu[HVTRACE_VCPU_MAX + 1];
extern const struct hvnl_policy hvc_policy_pre[HVTRACE_PRE_MAX + 1];
extern const struct hvnl_policy hvc_policy_watch[HVTRACE_WATCH_MAX + 1];
extern const struct hvnl_policy hvc_policy_capture[HVTRACE_CAPTURE_MAX + 1];

/*
 * "0,2-5,7" (or "any") into WORDS (LIMIT bits, named WHAT in errors);
 * *NR: words up to the last set. 0, or a negative errno reported.
 */
int hvc_parse_id_list(const char *s, uint64_t *words, unsigned int *nr,
		      unsigned int limit, const char *what);

/* GET_STATUS' WATCH nest into W (client_watch.c). */
struct hvc_watch_status;
int hvc_watch_status_parse(const struct nlattr *nest,
			   struct hvc_watch_status *w);

#endif /* HVCTL_CLIENT_PRIV_H */
