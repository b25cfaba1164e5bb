/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CPU's part of a mark, x86 only and nothing else: the TSC, the
 * hypervisor bit, and the CPUID that the host's hvtrace records. Kept out
 * of libhvmark.a: main (hvmark.c) alone executes it, the unit tests never.
 */
#ifndef HVMARK_CPU_H
#define HVMARK_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/hvtrace.h>

/* CPUID.1:ECX bit 31: set by every hypervisor for its guests, clear on
 * bare metal (Intel SDM vol. 2A, CPUID; AMD APM vol. 3, E.3.2).
 */
static inline bool cpu_in_vm(void)
{
	uint32_t eax = 1, ebx, ecx = 0, edx;

	__asm__ volatile("cpuid"
			 : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
	return ecx & (1U << 31);
}

static inline uint64_t cpu_rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/*
 * The mark: CPUID exits to the hypervisor whatever the leaf, and hvtrace
 * takes EAX = HVTRACE_MARK_LEAF as one, ECX its id, EDX:EBX the TSC the
 * guest read. What KVM answers is of no use: the registers are dropped.
 */
static inline void cpu_mark(uint32_t id, uint64_t tsc)
{
	uint32_t eax = HVTRACE_MARK_LEAF, ebx = (uint32_t)tsc, ecx = id;
	uint32_t edx = (uint32_t)(tsc >> 32);

	__asm__ volatile("cpuid"
			 : "+a"(eax), "+b"(ebx), "+c"(ecx), "+d"(edx)
			 :
			 : "memory");
}

#endif /* HVMARK_CPU_H */
