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
	CHECK(!fake_req_cfg(HVTRACE_CFG_IRQ_THRESHOLD_NS));
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

	CHECK_INT(RUN("--exclude-halt"), 0);
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
		CHECK_INT(hvnl_parse_nested(n, tb, HVTRACE_RSN_MAX,
					    hvc_policy_rsn), 0);
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
	CHECK(!fake_req_cfg(HVTRACE_CFG_IRQ_THRESHOLD_NS));
}

/* Late interrupt records: a DURATION, or off; that attribute alone. */
static void test_interrupts(void)
{
	CHECK_INT(RUN("100us", "--interrupts"), 0);
	CHECK_INT(fake_requests, 1);
	CHECK_U64(cfg_u64(HVTRACE_CFG_IRQ_THRESHOLD_NS), 100000);
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON));
	CHECK(!fake_req_cfg(HVTRACE_CFG_PREEMPT_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_HALT_TRIGGERS));

	CHECK_INT(RUN("--interrupts", "off"), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_IRQ_THRESHOLD_NS),
		  HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK_INT(RUN("0", "--interrupts"), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_IRQ_THRESHOLD_NS), 0);
	CHECK_INT(RUN("3600s", "--interrupts"), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_IRQ_THRESHOLD_NS),
		  HVTRACE_THRESHOLD_NS_MAX);

	/* A refusal names what was typed. */
	fake_reset();
	fake_refuse(HVTRACE_CMD_SET_CONFIG, ERANGE,
		    "interrupt threshold over an hour, and not off",
		    HVTRACE_CFG_IRQ_THRESHOLD_NS);
	CHECK_INT(FAKE_RUN(hvctl_cmd_set_threshold, "set-threshold", "off",
			   "--interrupts", NULL), 1);
	CHECK_STR(fake_err, "interrupt threshold over an hour, and not off "
		  "(--interrupts off)");
}

/* Rejected with exit status WANT and a message containing MSG; unsent. */
#define CHECK_BAD(want, msg, ...) do {					\
	CHECK_INT(RUN(__VA_ARGS__), (want));				\
	CHECK_HAS(fake_err, (msg));					\
	CHECK_INT(fake_opens, 0);					\
} while (0)

static void test_bad(void)
{
	CHECK_BAD(2, "--exclude-halt given twice", "--exclude-halt",
		  "--exclude-halt");
	CHECK_BAD(2, "--on given twice", "1ms", "--on", "vmm", "--on", "vmm");
	CHECK_BAD(2, "unknown part 'busy' for --on (total, handling, vmm, "
		  "halt, runnable, other)", "1ms", "--on", "busy");
	CHECK_BAD(2, "--on needs a value (total, handling, vmm, halt, "
		  "runnable, other)", "1ms", "--on");
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
	CHECK_BAD(2, "unknown option '--bogus'", "1ms", "--bogus");
	CHECK_BAD(2, "unknown exit reason 'nfp'", "1ms", "--reason", "nfp");

	/* Off is late interrupt records' only; --interrupts takes no more. */
	CHECK_BAD(2, "off goes with --interrupts only: other thresholds take "
		  "a DURATION", "off");
	CHECK_BAD(2, "off goes with --interrupts only", "off",
		  "--preemptions");
	CHECK_BAD(2, "off goes with --interrupts only", "off", "--reason",
		  "io");
	CHECK_BAD(2, "--preemptions and --interrupts set two thresholds: one "
		  "at a time", "1ms", "--preemptions", "--interrupts");
	CHECK_BAD(2, "--preemptions and --interrupts set two thresholds",
		  "off", "--interrupts", "--preemptions");
	CHECK_BAD(2, "--interrupts takes a DURATION only, not --reason",
		  "1ms", "--interrupts", "--reason", "io");
	CHECK_BAD(2, "--interrupts takes a DURATION only, not --on", "off",
		  "--interrupts", "--on", "vmm");
	CHECK_BAD(2, "--interrupts takes a DURATION only, not --include-halt",
		  "1ms", "--interrupts", "--include-halt");
	CHECK_BAD(2, "--interrupts takes a DURATION only, not --clear-reasons",
		  "1ms", "--interrupts", "--clear-reasons");
	CHECK_BAD(2, "--interrupts needs a DURATION or off", "--interrupts");
	CHECK_BAD(2, "threshold 7200s out of range (at most 3600s)", "7200s",
		  "--interrupts");
	CHECK_BAD(2, "bad duration 'of'", "of", "--interrupts");
	CHECK_BAD(2, "unexpected argument 'off'", "1ms", "off",
		  "--interrupts");

	fake_reset();
	CHECK_INT(FAKE_RUN(hvctl_cmd_set_threshold, "set-threshold", NULL), 2);
	CHECK_HAS(fake_err, "missing DURATION");
	CHECK_INT(fake_opens, 0);
}

/* Per-reason thresholds are sent when .set says so, and only then. */
static void test_reason_thresholds_bit(void)
{
	struct hvc_change ch = { 0 };

	fake_reset();
	CHECK_INT(hvc_change_reason_threshold(&ch, "--reason", "cpuid", 5), 0);
	CHECK(ch.set & HVC_CH_REASON_THRESHOLDS);
	CHECK_INT(hvc_apply(&ch), 0);
	CHECK(fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLD));

	/* Entries left from parsing, the part not chosen: not sent. */
	fake_reset();
	ch.set = HVC_CH_PREEMPT;
	CHECK_INT(hvc_apply(&ch), 0);
	CHECK(!fake_req_cfg(HVTRACE_CFG_REASON_THRESHOLD));
	CHECK(fake_req_cfg(HVTRACE_CFG_PREEMPT_THRESHOLD_NS));
	CHECK(!fake_req_cfg(HVTRACE_CFG_IRQ_THRESHOLD_NS));

	fake_reset();
	ch.set = HVC_CH_IRQ;
	ch.irq_threshold_ns = HVTRACE_IRQ_THRESHOLD_OFF;
	CHECK_INT(hvc_apply(&ch), 0);
	CHECK_U64(hvnl_u64(fake_req_cfg(HVTRACE_CFG_IRQ_THRESHOLD_NS)),
		  HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK(!fake_req_cfg(HVTRACE_CFG_PREEMPT_THRESHOLD_NS));
}

/* An undo puts the late interrupt threshold back, off included. */
static void test_irq_undo(void)
{
	struct hvc_config cfg = { .irq_threshold_ns = HVTRACE_IRQ_THRESHOLD_OFF,
				  .preempt_threshold_ns = 7 };
	static struct hvc_change ch, undo;

	ch = (struct hvc_change){ .set = HVC_CH_IRQ, .irq_threshold_ns = 5 };
	hvc_change_undo(&undo, &ch, &cfg);
	CHECK_INT(undo.set, HVC_CH_IRQ);
	CHECK_U64(undo.irq_threshold_ns, HVTRACE_IRQ_THRESHOLD_OFF);
	fake_reset();
	CHECK_INT(hvc_apply(&undo), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_IRQ_THRESHOLD_NS),
		  HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK(!fake_req_cfg(HVTRACE_CFG_PREEMPT_THRESHOLD_NS));

	/* Another part changed: the late interrupt threshold left alone. */
	ch = (struct hvc_change){ .set = HVC_CH_PREEMPT };
	hvc_change_undo(&undo, &ch, &cfg);
	CHECK_INT(undo.set, HVC_CH_PREEMPT);
	fake_reset();
	CHECK_INT(hvc_apply(&undo), 0);
	CHECK_U64(cfg_u64(HVTRACE_CFG_PREEMPT_THRESHOLD_NS), 7);
	CHECK(!fake_req_cfg(HVTRACE_CFG_IRQ_THRESHOLD_NS));
}

/* A refusal of one override names the --reason it came from. */
static void test_refusal_names_reason(void)
{
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES];
	int cpuid = exit_reason_parse("cpuid", refs, EXIT_REASON_MAX_MATCHES);
	int hlt = exit_reason_parse("hlt", refs, EXIT_REASON_MAX_MATCHES);

	CHECK(cpuid > 0 && hlt > 0);
	for (int i = 0; i < cpuid + hlt; i++) {
		fake_reset();
		fake_refuse_at(HVTRACE_CMD_SET_CONFIG, EINVAL, "no such reason",
			       HVTRACE_CFG_REASON_THRESHOLD, i);
		CHECK_INT(FAKE_RUN(hvctl_cmd_set_threshold, "set-threshold",
				   "10us", "--reason", "cpuid", "--reason",
				   "hlt", NULL), 1);
		CHECK_STR(fake_err, i < cpuid ?
			  "no such reason (--reason cpuid)" :
			  "no such reason (--reason hlt)");
	}
}

/* A session that cannot be opened: its cause, not a guess. */
static void test_open_cause(void)
{
	fake_reset();
	fake_open_err = -EACCES;
	CHECK_INT(FAKE_RUN(hvctl_cmd_set_threshold, "set-threshold", "1us",
			   NULL), 1);
	CHECK_HAS(fake_err, "fake: cannot open");
	fake_reset();
	fake_open_err = -EACCES;
	CHECK_INT(hvc_apply(&(struct hvc_change){ .set = HVC_CH_PREEMPT }),
		  -EACCES);
}

int main(void)
{
	test_global();
	test_halt();
	test_reasons_and_preemptions();
	test_interrupts();
	test_bad();
	test_reason_thresholds_bit();
	test_irq_undo();
	test_refusal_names_reason();
	test_open_cause();
	return unit_report();
}
