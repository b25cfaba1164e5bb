// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl set-threshold: what each command line sends in its SET_CONFIG,
 * and that a bad one names what is wrong and sends nothing.
 */
#include "fake_nl.h"

#define RUN(...) ({						\
	fake_reset();							\
	FAKE_RUN(hvctl_cmd_set_threshold, "set-threshold", __VA_ARGS__, NULL); \
})

static uint64_t cfg_u64(uint16_t type)
{
	return hvnl_u64(fake_req_cfg(type));
}

static int cfg_u8(uint16_t type)
{
	const struct nlattr *a = fake_req_cfg(type);

	return a ? hvnl_u8(a) : -1;
}

static void test_global(void)
{
	CHECK_INT(RUN("50us"), 0);
	CHECK_INT(fake_requests, 1);
	CHECK_U64(cfg_u64(HVTRACE_CFG_THRESHOLD_NS), 50000);
	/* No --on: back to total, so the line says all there is. */
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_TOTAL);
	CHECK(!fake_req_cfg(HVTRACE_CFG_HALT_TRIGGERS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_PREEMPT_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLD));
	CHECK(!fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLDS_CLEAR));

	CHECK_INT(RUN("1ms", "--on", "preempted"), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_THRESHOLD_NS), 1000000);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_RUNNABLE);
	CHECK_INT(RUN("--on", "runnable", "1ms"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_RUNNABLE);
	CHECK_INT(RUN("1ms", "--on=VMM"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_VMM);
	CHECK_INT(RUN("1ms", "--on", "handling"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_HANDLING);
	CHECK_INT(RUN("1ms", "--on", "halt"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_HALT);
	CHECK_INT(RUN("1ms", "--on", "other"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_OTHER);
	CHECK(!fake_req_cfg(HVTRACE_CFG_HALT_TRIGGERS));
}

static void test_halt(void)
{
	CHECK_INT(RUN("--include-halt"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_HALT_TRIGGERS), 1);
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON));

	CHECK_INT(RUN("--exclude-halt", "--exclude-halt"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_HALT_TRIGGERS), 0);

	CHECK_INT(RUN("2ms", "--include-halt"), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_THRESHOLD_NS), 2000000);
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_TOTAL);
	CHECK_INT(cfg_u8(HVTRACE_CFG_HALT_TRIGGERS), 1);

	CHECK_INT(RUN("2ms", "--on", "total", "--exclude-halt"), 0);
	CHECK_INT(cfg_u8(HVTRACE_CFG_HALT_TRIGGERS), 0);
}

static void test_reasons_and_preemptions(void)
{
	const struct nlattr *n, *tb[HVTRACE_RSN_MAX + 1];

	/* An override compares the part in force: --on is not sent. */
	CHECK_INT(RUN("10us", "--reason", "cpuid"), 0);
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON));
	n = fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLD);
	if (CHECK(n)) {
		hvnl_parse_nested(n, tb, HVTRACE_RSN_MAX);
		CHECK_U64(hvnl_u64(tb[HVTRACE_RSN_THRESHOLD_NS]), 10000);
		CHECK(tb[HVTRACE_RSN_ISA] && tb[HVTRACE_RSN_CODE]);
	}

	CHECK_INT(RUN("10us", "--reason", "hlt", "--include-halt"), 0);
	CHECK(fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLD));
	CHECK_INT(cfg_u8(HVTRACE_CFG_HALT_TRIGGERS), 1);

	CHECK_INT(RUN("0", "--clear-reasons"), 0);
	CHECK(fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLDS_CLEAR));
	CHECK(fake_req_cfg(HVTRACE_CFG_THRESHOLD_NS));
	CHECK_INT(cfg_u8(HVTRACE_CFG_THRESHOLD_ON), HVTRACE_ON_TOTAL);
	CHECK_INT(RUN("--clear-reasons"), 0);
	CHECK(fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLDS_CLEAR));
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON));

	CHECK_INT(RUN("--preemptions", "250us"), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_PREEMPT_THRESHOLD_NS), 250000);
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON));
	CHECK(!fake_req_cfg(HVTRACE_CFG_HALT_TRIGGERS));
}

/* Rejected with exit status WANT and a message containing MSG; unsent. */
#define CHECK_BAD(want, msg, ...) do {					\
	CHECK_INT(RUN(__VA_ARGS__), (want));				\
	CHECK_HAS(fake_err, (msg));					\
	CHECK_INT(fake_opens, 0);					\
} while (0)

static void test_bad(void)
{
	CHECK_BAD(2, "unknown part 'busy' for --on (total, handling, vmm, "
		  "halt, preempted, other)", "1ms", "--on", "busy");
	CHECK_BAD(2, "--on needs a part", "1ms", "--on");
	CHECK_BAD(2, "--on given twice", "1ms", "--on", "vmm", "--on", "halt");
	CHECK_BAD(2, "--exclude-halt and --include-halt contradict",
		  "1ms", "--exclude-halt", "--include-halt");
	CHECK_BAD(2, "--include-halt only applies with --on total, not --on vmm",
		  "1ms", "--on", "vmm", "--include-halt");
	CHECK_BAD(2, "--preemptions takes a DURATION only, not --on",
		  "1ms", "--preemptions", "--on", "vmm");
	CHECK_BAD(2, "--preemptions takes a DURATION only, not --reason",
		  "1ms", "--preemptions", "--reason", "io");
	CHECK_BAD(2, "not --exclude-halt", "1ms", "--preemptions",
		  "--exclude-halt");
	CHECK_BAD(2, "not --clear-reasons", "1ms", "--preemptions",
		  "--clear-reasons");
	CHECK_BAD(2, "--preemptions needs a DURATION", "--preemptions");
	CHECK_BAD(2, "not with --reason", "1ms", "--on", "vmm", "--reason",
		  "io");
	CHECK_BAD(2, "--on needs the global threshold's DURATION", "--on",
		  "vmm", "--clear-reasons");
	CHECK_BAD(2, "--reason needs a DURATION", "--reason", "io");
	CHECK_BAD(2, "unknown part ''", "1ms", "--on=");
	CHECK_BAD(2, "out of range", "7200s", "--preemptions");
	CHECK_BAD(2, "unexpected argument '2ms'", "1ms", "2ms");
	CHECK_BAD(2, "unexpected argument '--bogus'", "1ms", "--bogus");
	CHECK_BAD(1, "unknown exit reason 'nfp'", "1ms", "--reason", "nfp");

	fake_reset();
	CHECK_INT(FAKE_RUN(hvctl_cmd_set_threshold, "set-threshold", NULL), 2);
	CHECK_HAS(fake_err, "missing DURATION");
	CHECK_INT(fake_opens, 0);
}

int main(void)
{
	test_global();
	test_halt();
	test_reasons_and_preemptions();
	test_bad();
	return unit_report();
}
