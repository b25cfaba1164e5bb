/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Forced into every object of hvtrace_kunit.ko (tests/kunit/Kbuild) in
 * place of kmod's compatibility header, whose compile probes and KVM
 * macros the KVM-free code in that module does not need. It takes that
 * header's include guard, so a source that includes it explicitly gets
 * this file's definitions instead. A macro that is not about KVM and that
 * code under test takes from kmod's header must be repeated here.
 */
#ifndef _HVT_COMPAT_H
#define _HVT_COMPAT_H

/* Built into hvtrace_kunit.ko, not hvtrace.ko. */
#define HVT_KUNIT 1

#endif /* _HVT_COMPAT_H */
