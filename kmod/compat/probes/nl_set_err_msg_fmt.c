// SPDX-License-Identifier: GPL-2.0
/*
 * Formatted extended-ACK messages (NL_SET_ERR_MSG_FMT, 6.3): the text
 * lives in the extack itself. Without it a formatted message needs a
 * buffer of our own.
 */
#include <linux/netlink.h>

static void __maybe_unused probe(struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG_FMT(extack, "%d", 1);
}
