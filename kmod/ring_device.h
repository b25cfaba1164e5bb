/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/hvtrace: the rings mapped into their reader (ring_device.c). */
#ifndef _HVT_RING_DEVICE_H
#define _HVT_RING_DEVICE_H

int hvt_ring_device_register(void);
void hvt_ring_device_unregister(void);

#endif /* _HVT_RING_DEVICE_H */
