// SPDX-License-Identifier: GPL-2.0
/*
 * Module information of hvtrace_kunit.ko, always linked in (see Kbuild).
 * There is no init or exit function: KUnit runs the suites found in the
 * module's .kunit_test_suites section when the module loads.
 */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace KUnit suites");
