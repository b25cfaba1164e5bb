/* SPDX-License-Identifier: GPL-2.0 */
/* The "hvtrace" generic netlink family (genl.c). */
#ifndef _HVT_GENL_H
#define _HVT_GENL_H

int hvt_genl_register(void);
void hvt_genl_unregister(void);
/* A ring passed its watermark: tell the "events" group (process ctx). */
void hvt_genl_notify_watermark(void);

#endif /* _HVT_GENL_H */
