// SPDX-License-Identifier: GPL-2.0
/*
 * kvm_entry gained a second argument (force_immediate_exit) together with
 * the second argument of kvm_x86_ops.vcpu_run (6.9; backported to Debian's
 * 6.1, where it is now u64 run_flags). The tracepoint itself is declared in
 * arch/x86/kvm/trace.h, which headers packages do not ship, so the vcpu_run
 * signature is the witness.
 */
#include <linux/kvm_host.h>

static enum exit_fastpath_completion __maybe_unused probe_run(struct kvm_vcpu *vcpu)
{
	return EXIT_FASTPATH_NONE;
}

/* Compiles only if vcpu_run no longer takes the vCPU alone. */
static_assert(!__builtin_types_compatible_p(typeof(kvm_x86_ops.vcpu_run),
					    typeof(probe_run) *));
