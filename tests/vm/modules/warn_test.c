// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: WARNs when loaded, to prove that the VM harness fails a
 * run whose kernel log shows a warning. Never installed anywhere else.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init warn_test_init(void)
{
	WARN(1, "hvtrace harness self-test: deliberate warning\n");
	return 0;
}

static void __exit warn_test_exit(void)
{
}

module_init(warn_test_init);
module_exit(warn_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace test harness: deliberate WARN");
