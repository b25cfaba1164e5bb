// SPDX-License-Identifier: GPL-2.0
/*
 * The "hvtrace" generic netlink family: the only way in and out of the
 * module. Every operation is GENL_ADMIN_PERM and the family is not netnsok,
 * so containers on the host cannot see other tenants' VM activity.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <net/genetlink.h>
#include <uapi/linux/hvtrace.h>

#include "hvtrace.h"

static struct genl_family hvt_family;

static int hvt_cmd_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &hvt_family, 0,
				HVTRACE_CMD_GET_STATUS);
	if (!hdr)
		goto nospace;

	if (nla_put_string(msg, HVTRACE_A_STATUS_VERSION, HVTRACE_VERSION) ||
	    nla_put_u32(msg, HVTRACE_A_STATUS_ABI, HVTRACE_GENL_VERSION) ||
	    nla_put_u32(msg, HVTRACE_A_STATUS_NR_CPUS, num_possible_cpus()) ||
	    nla_put_u64_64bit(msg, HVTRACE_A_STATUS_EXITS_SEEN,
			      hvt_exits_seen(), HVTRACE_A_STATUS_PAD) ||
	    nla_put_u64_64bit(msg, HVTRACE_A_STATUS_ENTRIES_SEEN,
			      hvt_entries_seen(), HVTRACE_A_STATUS_PAD))
		goto nospace;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static const struct genl_small_ops hvt_ops[] = {
	{
		.cmd	= HVTRACE_CMD_GET_STATUS,
		.flags	= GENL_ADMIN_PERM,
		.doit	= hvt_cmd_get_status,
	},
};

static struct genl_family hvt_family __ro_after_init = {
	.name		= HVTRACE_GENL_NAME,
	.version	= HVTRACE_GENL_VERSION,
	.netnsok	= false,
	.module		= THIS_MODULE,
	.small_ops	= hvt_ops,
	.n_small_ops	= ARRAY_SIZE(hvt_ops),
	.resv_start_op	= HVTRACE_CMD_MAX + 1,
};

int __init hvt_genl_register(void)
{
	return genl_register_family(&hvt_family);
}

void hvt_genl_unregister(void)
{
	genl_unregister_family(&hvt_family);
}
MODULE_ALIAS_GENL_FAMILY(HVTRACE_GENL_NAME);
