/* SPDX-License-Identifier: GPL-2.0 */
/* Module parameters others read (main.c), fixed at load. */
#ifndef _HVT_PARAMS_H
#define _HVT_PARAMS_H

extern unsigned int hvt_max_vcpus;
extern unsigned int hvt_nr_hist;

#endif /* _HVT_PARAMS_H */
