// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: makes the debug kernel report the bugs named in
 * report= (a comma-separated list, done in that order) when loaded, to
 * prove that the VM harness fails a run whose kernel reports one, and
 * shows the report. Loading succeeds either way: only the kernel log
 * tells. Never installed anywhere else.
 *
 *   leak     a kmalloc()ed block nothing points to (KMEMLEAK, at the
 *            harness's scan when the run ends)
 *   rcu      rcu_dereference() outside a read-side critical section
 *            (PROVE_RCU: "WARNING: suspicious RCU usage")
 *   lockdep  two spinlocks taken in both orders ("WARNING: possible
 *            circular locking dependency detected")
 *   sleep    might_sleep() with preemption disabled (DEBUG_ATOMIC_SLEEP:
 *            "BUG: sleeping function called from invalid context")
 *   odebug   kfree() of a block holding an armed timer (DEBUG_OBJECTS_FREE:
 *            "ODEBUG: free active ... object type: timer_list"; its fixup
 *            stops the timer before the memory goes)
 *   ubsan    a shift by more than the width of int ("UBSAN:
 *            shift-out-of-bounds")
 *   kasan    a read one byte past a kmalloc()ed block ("BUG: KASAN:
 *            slab-out-of-bounds")
 *
 * Lockdep (and with it PROVE_RCU) turns itself off after its first report
 * and after a taint that makes it unreliable, such as KASAN's: to see them
 * all in one run, name them in the order above.
 */
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static char *report = "";
module_param(report, charp, 0444);
MODULE_PARM_DESC(report, "bugs to report, in order: leak,rcu,lockdep,sleep,odebug,ubsan,kasan");

static int __rcu *report_rcu_ptr;
static DEFINE_SPINLOCK(report_lock_a);
static DEFINE_SPINLOCK(report_lock_b);

static noinline void report_leak(void)
{
	char *p = kmalloc(200, GFP_KERNEL);

	/* Non-zero contents, so the block's checksum settles. */
	if (p)
		memset(p, 0x5a, 200);
	pr_info("report_test: leaking 200 bytes\n");
}

static noinline void report_rcu(void)
{
	int *p = rcu_dereference(report_rcu_ptr);

	pr_info("report_test: rcu_dereference outside rcu_read_lock: %d\n", !p);
}

static noinline void report_sleep(void)
{
	preempt_disable();
	might_sleep();
	preempt_enable();
}

struct report_timed {
	struct timer_list timer;
};

static void report_timer_fn(struct timer_list *t)
{
}

static noinline void report_odebug(void)
{
	struct report_timed *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return;
	timer_setup(&p->timer, report_timer_fn, 0);
	mod_timer(&p->timer, jiffies + 60 * HZ);
	pr_info("report_test: freeing an armed timer\n");
	kfree(p);
}

static noinline void report_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);
	size_t i = 16;

	if (!p)
		return;
	OPTIMIZER_HIDE_VAR(i);
	pr_info("report_test: read past the end: %d\n", READ_ONCE(p[i]));
	kfree(p);
}

static noinline void report_ubsan(void)
{
	int shift = 40, one = 1;

	OPTIMIZER_HIDE_VAR(shift);
	pr_info("report_test: 1 << 40 = %d\n", one << shift);
}

static noinline void report_lockdep(void)
{
	spin_lock(&report_lock_a);
	spin_lock(&report_lock_b);
	spin_unlock(&report_lock_b);
	spin_unlock(&report_lock_a);

	spin_lock(&report_lock_b);
	spin_lock(&report_lock_a);
	spin_unlock(&report_lock_a);
	spin_unlock(&report_lock_b);
}

static const struct {
	const char *name;
	void (*fn)(void);
} report_kinds[] = {
	{ "leak", report_leak },
	{ "rcu", report_rcu },
	{ "lockdep", report_lockdep },
	{ "sleep", report_sleep },
	{ "odebug", report_odebug },
	{ "ubsan", report_ubsan },
	{ "kasan", report_kasan },
};

static int __init report_test_init(void)
{
	char *list, *cur, *name;
	size_t i;

	list = kstrdup(report, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	cur = list;
	while ((name = strsep(&cur, ",")) != NULL) {
		if (!*name)
			continue;
		for (i = 0; i < ARRAY_SIZE(report_kinds); i++)
			if (!strcmp(name, report_kinds[i].name))
				break;
		if (i == ARRAY_SIZE(report_kinds)) {
			pr_err("report_test: unknown report '%s'\n", name);
			kfree(list);
			return -EINVAL;
		}
		pr_info("report_test: deliberate %s report\n", name);
		report_kinds[i].fn();
	}
	kfree(list);
	return 0;
}

static void __exit report_test_exit(void)
{
}

module_init(report_test_init);
module_exit(report_test_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("hvtrace test harness: deliberate debug-kernel reports");
