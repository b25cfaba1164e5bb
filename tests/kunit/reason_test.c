// SPDX-License-Identifier: GPL-2.0
/* KUnit: the dense exit-reason index for VMX and SVM (kmod/reason.c). */
#include <kunit/test.h>
#include <linux/bitmap.h>

#include "reason.h"

struct reason_case {
	const char *name;
	u8 isa;
	u32 code;
	unsigned int idx;
	bool exact;	/* maps back to (isa, code) */
};

static const struct reason_case reason_cases[] = {
	{ "VMX EXCEPTION_NMI", HVTRACE_ISA_VMX, 0, HVT_RIDX_VMX, true },
	{ "VMX CPUID", HVTRACE_ISA_VMX, 10, HVT_RIDX_VMX + 10, true },
	{ "VMX EPT_VIOLATION", HVTRACE_ISA_VMX, 48, HVT_RIDX_VMX + 48, true },
	/* Flag bits above the basic reason are not part of the index. */
	{ "VMX failed entry", HVTRACE_ISA_VMX, 0x80000021, HVT_RIDX_VMX + 33, false },
	{ "VMX beyond table", HVTRACE_ISA_VMX, 200, HVT_RIDX_VMX_OTHER, false },
	{ "SVM CPUID", HVTRACE_ISA_SVM, 0x72, HVT_RIDX_SVM_LOW + 0x72, true },
	{ "SVM IOIO", HVTRACE_ISA_SVM, 0x7b, HVT_RIDX_SVM_LOW + 0x7b, true },
	{ "SVM NPF", HVTRACE_ISA_SVM, 0x400, HVT_RIDX_SVM_HIGH, true },
	{ "SVM VMGEXIT", HVTRACE_ISA_SVM, 0x403, HVT_RIDX_SVM_HIGH + 3, true },
	{ "SVM ERR", HVTRACE_ISA_SVM, 0xffffffff, HVT_RIDX_SVM_ERR, true },
	{ "SVM gap", HVTRACE_ISA_SVM, 0x300, HVT_RIDX_SVM_OTHER, false },
	{ "SVM VMGEXIT range", HVTRACE_ISA_SVM, 0x80000010, HVT_RIDX_SVM_OTHER, false },
	{ "no vendor", HVTRACE_ISA_UNKNOWN, 12, HVT_RIDX_UNKNOWN, false },
};

static void reason_desc(const struct reason_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reason, reason_cases, reason_desc);

static void reason_index_test(struct kunit *test)
{
	const struct reason_case *c = test->param_value;
	u32 code = 0;
	u8 isa = 0;

	KUNIT_EXPECT_EQ(test, hvt_reason_index(c->isa, c->code), c->idx);
	KUNIT_EXPECT_LT(test, c->idx, (unsigned int)HVT_NR_REASONS);
	KUNIT_EXPECT_EQ(test, hvt_reason_of_index(c->idx, &isa, &code),
			c->exact || c->idx < HVT_RIDX_VMX_OTHER);
	if (c->exact) {
		KUNIT_EXPECT_EQ(test, isa, c->isa);
		KUNIT_EXPECT_EQ(test, code, c->code);
	}
}

/* Every index but the catch-alls maps back to itself. */
static void reason_roundtrip_test(struct kunit *test)
{
	unsigned int i;
	u32 code;
	u8 isa;

	for (i = 0; i < HVT_NR_REASONS; i++) {
		if (!hvt_reason_of_index(i, &isa, &code)) {
			KUNIT_EXPECT_GE(test, i, (unsigned int)HVT_RIDX_VMX_OTHER);
			continue;
		}
		KUNIT_EXPECT_EQ(test, hvt_reason_index(isa, code), i);
	}
}

/*
 * A vCPU's dense index: 292 slots, each reason of one ISA (and the
 * catch-alls) in its own, and back.
 */
static void reason_vcpu_index_test(struct kunit *test)
{
	DECLARE_BITMAP(used, HVT_VCPU_NR_RSN);
	unsigned int i, slot;
	u32 code;
	u8 isa, want;

	KUNIT_EXPECT_EQ(test, HVT_VCPU_NR_RSN, 292);
	for (want = HVTRACE_ISA_VMX; want <= HVTRACE_ISA_SVM; want++) {
		bitmap_zero(used, HVT_VCPU_NR_RSN);
		for (i = 0; i < HVT_NR_REASONS; i++) {
			hvt_reason_of_index(i, &isa, &code);
			if (isa && isa != want)
				continue;	/* the other ISA's */
			slot = hvt_vcpu_rsn_index(i);
			KUNIT_ASSERT_LT(test, slot, (unsigned int)HVT_VCPU_NR_RSN);
			KUNIT_EXPECT_FALSE(test, test_and_set_bit(slot, used));
			KUNIT_EXPECT_EQ(test, hvt_vcpu_rsn_ridx(slot, want), i);
		}
	}
	KUNIT_EXPECT_EQ(test, hvt_vcpu_rsn_ridx(200, HVTRACE_ISA_VMX),
			(unsigned int)HVT_NR_REASONS);
	KUNIT_EXPECT_EQ(test, hvt_vcpu_rsn_ridx(HVT_VCPU_NR_RSN,
						HVTRACE_ISA_SVM),
			(unsigned int)HVT_NR_REASONS);
}

static struct kunit_case reason_test_cases[] = {
	KUNIT_CASE_PARAM(reason_index_test, reason_gen_params),
	KUNIT_CASE(reason_roundtrip_test),
	KUNIT_CASE(reason_vcpu_index_test),
	{}
};

static struct kunit_suite reason_suite = {
	.name = "hvtrace_reason",
	.test_cases = reason_test_cases,
};

kunit_test_suite(reason_suite);
