// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the vCPU and VM tables (kmod/vcpu_table.c) as a host that runs
 * for months sees them: vCPUs created and destroyed at fresh addresses by
 * the hundred thousand, at most max_vcpus alive, VMs re-created at the
 * same address. Keys are made-up pointers: the table never dereferences
 * them.
 */
#include <kunit/test.h>
#include <linux/sched.h>

#include "vcpu_table.h"
#include "vcpu_time.h"

/* What stats.c and main.c define in hvtrace.ko. */
unsigned long hvt_gen = 1;

#define VT_MAX		64
/* Fresh addresses, 16 KiB apart, as struct vcpu_svm objects would be. */
#define VT_KEY(i)	((const void *)(0xffff888100000000UL + (i) * 0x4000UL))
#define VT_KVM(i)	((const struct kvm *)(0xffff888900000000UL + (i) * 0x10000UL))

static int vtab_init(struct kunit *test)
{
	return hvt_vcpus_init(VT_MAX);
}

static void vtab_exit(struct kunit *test)
{
	hvt_vcpus_exit();
}

static struct hvt_vcpu_ident vtab_id(const struct kvm *kvm, u32 pid, u32 id)
{
	struct hvt_vcpu_ident i = { .kvm = kvm, .vm_pid = pid, .vcpu_id = id };

	return i;
}

static void vtab_counts(struct kunit *test, u32 live, u64 created,
			u64 reclaimed, u64 refused)
{
	struct hvt_vcpu_counts n;

	hvt_vcpu_counts(&n);
	KUNIT_EXPECT_EQ(test, n.live, live);
	KUNIT_EXPECT_EQ(test, n.max, (u32)VT_MAX);
	KUNIT_EXPECT_EQ(test, n.created, created);
	KUNIT_EXPECT_EQ(test, n.reclaimed, reclaimed);
	KUNIT_EXPECT_EQ(test, n.refused, refused);
}

/* Claimed on the first exit, found again, gone once destroyed. */
static void vtab_claim_retire_test(struct kunit *test)
{
	struct hvt_vcpu_ident id = vtab_id(VT_KVM(0), 100, 0);
	struct hvt_vcpu *v = hvt_vcpu_claim(VT_KEY(0), &id);

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_PTR_EQ(test, hvt_vcpu_lookup(VT_KEY(0)), v);
	KUNIT_EXPECT_PTR_EQ(test, hvt_vcpu_claim(VT_KEY(0), &id), v);
	KUNIT_EXPECT_EQ(test, v->vm_id, 1U);
	KUNIT_EXPECT_NULL(test, hvt_vcpu_lookup(VT_KEY(1)));
	vtab_counts(test, 1, 1, 0, 0);

	hvt_vcpu_retire(v);
	/* At once: the address matches nothing, even before the reap. */
	KUNIT_EXPECT_NULL(test, hvt_vcpu_lookup(VT_KEY(0)));
	hvt_vcpus_reap();
	vtab_counts(test, 0, 1, 1, 0);
}

/*
 * 100,000 vCPUs at fresh addresses, each destroyed before the next few
 * come: nothing fills up, and the next vCPU is traced like the first.
 */
static void vtab_churn_test(struct kunit *test)
{
	struct hvt_vcpu_ident id;
	struct hvt_vcpu *v;
	unsigned int i, missed = 0;

	for (i = 0; i < 100000; i++) {
		id = vtab_id(VT_KVM(i / 2), 1000 + i / 2, i % 2);
		v = hvt_vcpu_claim(VT_KEY(i), &id);
		if (!v) {
			missed++;
			continue;
		}
		if (hvt_vcpu_lookup(VT_KEY(i)) != v || v->split.in_exit)
			missed++;
		hvt_vcpu_retire(v);
		if (i % 2)
			hvt_vm_retire(VT_KVM(i / 2));
		/* Grace periods come now and then, not after every vCPU. */
		if (i % VT_MAX == VT_MAX - 1)
			hvt_vcpus_reap();
	}
	hvt_vcpus_reap();
	KUNIT_EXPECT_EQ(test, missed, 0U);
	vtab_counts(test, 0, 100000, 100000, 0);

	id = vtab_id(VT_KVM(200000), 9, 0);
	v = hvt_vcpu_claim(VT_KEY(200000), &id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_EXPECT_EQ(test, v->vm_id, 50001U);
	KUNIT_EXPECT_EQ(test, v->entry_ts, U64_MAX);
	KUNIT_EXPECT_FALSE(test, v->split.in_exit);
}

/*
 * At most max_vcpus alive: the next is refused and counted once however
 * often it exits, traced when room comes; a refused vCPU that KVM
 * destroys leaves nothing behind.
 */
static void vtab_full_test(struct kunit *test)
{
	struct hvt_vcpu *v[VT_MAX];
	struct hvt_vcpu_ident id;
	unsigned int i;

	for (i = 0; i < VT_MAX; i++) {
		id = vtab_id(VT_KVM(i), 1, 0);
		v[i] = hvt_vcpu_claim(VT_KEY(i), &id);
		KUNIT_ASSERT_NOT_NULL(test, v[i]);
	}
	id = vtab_id(VT_KVM(VT_MAX), 1, 0);
	KUNIT_EXPECT_NULL(test, hvt_vcpu_claim(VT_KEY(VT_MAX), &id));
	KUNIT_EXPECT_NULL(test, hvt_vcpu_claim(VT_KEY(VT_MAX), &id));
	KUNIT_EXPECT_NULL(test, hvt_vcpu_lookup(VT_KEY(VT_MAX)));
	id = vtab_id(VT_KVM(VT_MAX + 1), 1, 0);
	KUNIT_EXPECT_NULL(test, hvt_vcpu_claim(VT_KEY(VT_MAX + 1), &id));
	vtab_counts(test, VT_MAX, VT_MAX, 0, 2);
	/* Destroyed while refused: forgotten, never traced. */
	hvt_vcpu_forget(VT_KEY(VT_MAX + 1));
	/* One goes: the refused one comes in at its next exit. */
	hvt_vcpu_retire(v[0]);
	id = vtab_id(VT_KVM(VT_MAX), 1, 0);
	v[0] = hvt_vcpu_claim(VT_KEY(VT_MAX), &id);
	KUNIT_ASSERT_NOT_NULL(test, v[0]);
	KUNIT_EXPECT_PTR_EQ(test, hvt_vcpu_lookup(VT_KEY(VT_MAX)), v[0]);
	vtab_counts(test, VT_MAX, VT_MAX + 1, 0, 2);
	for (i = 0; i < VT_MAX; i++)
		hvt_vcpu_retire(v[i]);
	hvt_vcpus_reap();
	vtab_counts(test, 0, VT_MAX + 1, VT_MAX + 1, 2);
	/* Nothing of the refused vCPUs is left to show or to match. */
	for (i = 0; i < hvt_vcpu_slots(); i++)
		KUNIT_EXPECT_NULL(test, hvt_vcpu_at(i));
}

/*
 * VM numbers: one per VM, however its vCPUs come; a VM re-created at the
 * same address by the same process is another VM.
 */
static void vtab_vm_numbers_test(struct kunit *test)
{
	struct hvt_vcpu_ident a0 = vtab_id(VT_KVM(0), 100, 0);
	struct hvt_vcpu_ident a1 = vtab_id(VT_KVM(0), 100, 1);
	struct hvt_vcpu_ident b0 = vtab_id(VT_KVM(1), 100, 0);
	struct hvt_vcpu *v0, *v1, *w;

	v0 = hvt_vcpu_claim(VT_KEY(0), &a0);
	v1 = hvt_vcpu_claim(VT_KEY(1), &a1);
	w = hvt_vcpu_claim(VT_KEY(2), &b0);
	KUNIT_ASSERT_TRUE(test, v0 && v1 && w);
	KUNIT_EXPECT_EQ(test, v0->vm_id, 1U);
	KUNIT_EXPECT_EQ(test, v1->vm_id, 1U);
	KUNIT_EXPECT_EQ(test, w->vm_id, 2U);

	/* Destroyed and made again at the same addresses, same pid. */
	hvt_vcpu_retire(v0);
	hvt_vcpu_retire(v1);
	hvt_vm_retire(VT_KVM(0));
	v0 = hvt_vcpu_claim(VT_KEY(0), &a0);
	v1 = hvt_vcpu_claim(VT_KEY(1), &a1);
	KUNIT_ASSERT_TRUE(test, v0 && v1);
	KUNIT_EXPECT_EQ(test, v0->vm_id, 3U);
	KUNIT_EXPECT_EQ(test, v1->vm_id, 3U);
	KUNIT_EXPECT_EQ(test, w->vm_id, 2U);
	hvt_vcpu_retire(v0);
	hvt_vcpu_retire(v1);
	hvt_vcpu_retire(w);
	hvt_vcpus_reap();
}

/*
 * Where destruction cannot be followed, a vCPU at a freed one's address
 * is told apart by its identity: it starts afresh, in another VM.
 */
static void vtab_identity_test(struct kunit *test)
{
	struct hvt_vcpu_ident a = vtab_id(VT_KVM(0), 100, 0);
	struct hvt_vcpu_ident b = vtab_id(VT_KVM(0), 200, 0);
	struct hvt_vcpu *v = hvt_vcpu_claim(VT_KEY(0), &a);

	KUNIT_ASSERT_NOT_NULL(test, v);
	v->split.in_exit = true;
	v->stat.exits.count = 5;
	KUNIT_EXPECT_PTR_EQ(test, hvt_vcpu_claim(VT_KEY(0), &b), v);
	KUNIT_EXPECT_FALSE(test, v->split.in_exit);
	KUNIT_EXPECT_EQ(test, v->vm_pid, 200U);
	KUNIT_EXPECT_EQ(test, v->vm_id, 2U);
	KUNIT_EXPECT_EQ(test, v->gen, 0UL);	/* aggregates start again */
	vtab_counts(test, 1, 1, 0, 0);
	hvt_vcpu_retire(v);
	hvt_vcpus_reap();
}

/*
 * The last destroyed vCPUs stay visible until a clear; their counters
 * since load (exits per reason too) stay after it.
 */
static void vtab_departed_test(struct kunit *test)
{
	struct hvt_vcpu_ident id = vtab_id(VT_KVM(0), 100, 3);
	struct hvt_vcpu *v = hvt_vcpu_claim(VT_KEY(0), &id);
	struct hvt_vcpu_view *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	unsigned int i, found = 0, cpuid = hvt_vcpu_rsn_index(10);

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, w);
	hvt_vcpu_stat(v)->exits.count = 42;
	v->rsn[cpuid].count = 42;
	v->rsn[cpuid].ns = 4200;
	hvt_vcpu_retire(v);
	for (i = 0; i < HVTRACE_VCPUS_DEPARTED; i++) {
		if (!hvt_vcpu_departed(i, w, false))
			continue;
		found++;
		KUNIT_EXPECT_EQ(test, w->vcpu_id, 3U);
		KUNIT_EXPECT_EQ(test, w->vm_pid, 100U);
		KUNIT_EXPECT_EQ(test, w->stat.exits.count, 42ULL);
	}
	KUNIT_EXPECT_EQ(test, found, 1U);
	hvt_gen++;	/* a clear */
	for (i = 0, found = 0; i < HVTRACE_VCPUS_DEPARTED; i++) {
		KUNIT_EXPECT_FALSE(test, hvt_vcpu_departed(i, w, false));
		if (!hvt_vcpu_departed(i, w, true))
			continue;
		found++;
		KUNIT_EXPECT_EQ(test, w->stat.exits.count, 42ULL);
		KUNIT_EXPECT_EQ(test, w->rsn[cpuid].count, 42ULL);
		KUNIT_EXPECT_EQ(test, w->rsn[cpuid].ns, 4200ULL);
	}
	KUNIT_EXPECT_EQ(test, found, 1U);
	hvt_vcpus_reap();
}

/* A clear's baseline: users see what came after it, exporters all. */
static void vtab_baseline_test(struct kunit *test)
{
	struct hvt_vcpu_ident id = vtab_id(VT_KVM(0), 100, 4);
	struct hvt_vcpu *v = hvt_vcpu_claim(VT_KEY(0), &id);
	struct hvt_vcpu_view *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, v);
	KUNIT_ASSERT_NOT_NULL(test, w);
	hvt_vcpu_stat(v)->exits.count = 7;
	v->stat.exits.max_ns = 900;
	hvt_gen++;	/* a clear */
	hvt_vcpu_view(v, w, false);
	KUNIT_EXPECT_EQ(test, w->stat.exits.count, 0ULL);
	hvt_vcpu_stat(v)->exits.count += 3;
	hvt_vcpu_view(v, w, false);
	KUNIT_EXPECT_EQ(test, w->stat.exits.count, 3ULL);
	KUNIT_EXPECT_EQ(test, w->stat.exits.max_ns, 0ULL);	/* reset */
	hvt_vcpu_view(v, w, true);
	KUNIT_EXPECT_EQ(test, w->stat.exits.count, 10ULL);
	hvt_vcpu_retire(v);
	hvt_vcpus_reap();
}

/*
 * Since the clear, a reader racing it sees zero or more, never a wrap,
 * and no minimum of U64_MAX; a slot is reset before it is free again.
 */
static void vtab_floor_test(struct kunit *test)
{
	struct hvt_vcpu_ident id = vtab_id(VT_KVM(0), 100, 5);
	struct hvt_vcpu_stat *stat, *base, *out;
	struct hvt_vcpu *v;

	stat = kunit_kzalloc(test, 3 * sizeof(*stat), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stat);
	base = stat + 1;
	out = stat + 2;
	KUNIT_EXPECT_EQ(test, hvt_sub_floor0(7, 5), 2ULL);
	KUNIT_EXPECT_EQ(test, hvt_sub_floor0(5, 7), 0ULL);
	/* Counts read before a clear, the baseline taken after it. */
	stat->exits.count = 3;
	stat->guest_ns = 100;
	base->exits.count = 5;
	base->guest_ns = 400;
	hvt_vcpu_stat_since_clear(out, stat, base, hvt_gen);
	KUNIT_EXPECT_EQ(test, out->exits.count, 0ULL);
	KUNIT_EXPECT_EQ(test, out->guest_ns, 0ULL);
	/* The first exit since the clear counted, its time not yet in. */
	stat->exits.count = 6;
	stat->exits.min_ns = U64_MAX;
	hvt_vcpu_stat_since_clear(out, stat, base, hvt_gen);
	KUNIT_EXPECT_EQ(test, out->exits.count, 1ULL);
	KUNIT_EXPECT_EQ(test, out->exits.min_ns, 0ULL);
	/* OUT may be STAT. */
	hvt_vcpu_stat_since_clear(stat, stat, base, hvt_gen);
	KUNIT_EXPECT_EQ(test, stat->exits.count, 1ULL);

	v = hvt_vcpu_claim(VT_KEY(0), &id);
	KUNIT_ASSERT_NOT_NULL(test, v);
	hvt_vcpu_stat(v)->exits.count = 7;
	v->rsn[0].count = 7;
	hvt_gen++;	/* a clear, then the vCPU's first count after it */
	hvt_vcpu_stat(v)->exits.count++;
	KUNIT_EXPECT_EQ(test, v->base.exits.count, 7ULL);
	hvt_vcpu_retire(v);
	hvt_vcpus_reap();
	/* Free again: no old baseline for the next vCPU's readers. */
	KUNIT_EXPECT_EQ(test, v->gen, 0UL);
	KUNIT_EXPECT_EQ(test, v->stat.exits.count, 0ULL);
	KUNIT_EXPECT_EQ(test, v->base.exits.count, 0ULL);
	KUNIT_EXPECT_EQ(test, v->rsn[0].count, 0ULL);
}

static struct kunit_case vtab_cases[] = {
	KUNIT_CASE(vtab_claim_retire_test),
	KUNIT_CASE(vtab_baseline_test),
	KUNIT_CASE(vtab_floor_test),
	KUNIT_CASE_SLOW(vtab_churn_test),
	KUNIT_CASE(vtab_full_test),
	KUNIT_CASE(vtab_vm_numbers_test),
	KUNIT_CASE(vtab_identity_test),
	KUNIT_CASE(vtab_departed_test),
	{}
};

static struct kunit_suite vtab_suite = {
	.name = "hvtrace_vcpu_table",
	.init = vtab_init,
	.exit = vtab_exit,
	.test_cases = vtab_cases,
};

kunit_test_suite(vtab_suite);
