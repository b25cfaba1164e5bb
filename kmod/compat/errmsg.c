// SPDX-License-Identifier: GPL-2.0
/* Formatted extended-ACK messages on kernels without NL_SET_ERR_MSG_FMT. */
#ifndef HVT_HAS_NL_SET_ERR_MSG_FMT
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/netlink.h>

#define HVT_ERRMSG_BUFS	16
#define HVT_ERRMSG_LEN	96

const char *hvt_errmsg_fmt(const char *fmt, ...)
{
	static char buf[HVT_ERRMSG_BUFS][HVT_ERRMSG_LEN];
	static atomic_t next = ATOMIC_INIT(0);
	char *b = buf[(unsigned int)atomic_inc_return(&next) % HVT_ERRMSG_BUFS];
	va_list args;

	va_start(args, fmt);
	vsnprintf(b, HVT_ERRMSG_LEN, fmt, args);
	va_end(args);
	return b;
}
#endif
