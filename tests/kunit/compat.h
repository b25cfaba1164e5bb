/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stand-in for kmod/compat.h in the KUnit build (tests/kunit/Kbuild forces
 * it in with -include). The KUnit module holds only code that does not
 * touch KVM, so the compile probes and the KVM macros of kmod/compat.h are
 * not needed. It takes kmod/compat.h's include guard, so a source that
 * includes "compat.h" itself gets this file's (empty) definitions instead.
 * A non-KVM macro added to kmod/compat.h that core code uses must be added
 * here too.
 */
#ifndef _HVT_COMPAT_H
#define _HVT_COMPAT_H

/* Built into hvtrace_kunit.ko, not hvtrace.ko. */
#define HVT_KUNIT 1

#endif /* _HVT_COMPAT_H */
