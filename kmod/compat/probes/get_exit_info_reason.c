// SPDX-License-Identifier: GPL-2.0
/*
 * The supported floor. Since 5.16 kvm_x86_ops.get_exit_info returns the
 * exit reason with the rest of the exit information, and kvm_exit passes
 * the ISA (the same series): hvtrace reads exits that way and nothing
 * older. compat.h turns a failed probe into a sentence.
 */
#include <linux/kvm_host.h>

static void __maybe_unused probe(struct kvm_vcpu *vcpu, u32 *reason,
				 u64 *info1, u64 *info2, u32 *intr_info,
				 u32 *error_code)
{
}

static_assert(__builtin_types_compatible_p(typeof(kvm_x86_ops.get_exit_info),
					   typeof(probe) *));
