// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl filter and hvctl buffer: what a bad value says (a usage error,
 * exit status 2, nothing sent), and the filter kinds, which
 * hvc_change_filter() alone lists.
 */
#include "fake_nl.h"

#define FILTER(...) ({							\
	fake_reset();							\
	FAKE_RUN(hvctl_cmd_filter, "filter", __VA_ARGS__, NULL);	\
})

#define BUFFER(...) ({							\
	fake_reset();							\
	FAKE_RUN(hvctl_cmd_buffer, "buffer", __VA_ARGS__, NULL);	\
})

/* Refused as a usage error naming MSG; the module never asked. */
/* Nothing asked, but a VM name looked up (a session, stats read). */
#define CHECK_USAGE(run, msg) do {					\
	int _l;								\
	CHECK_INT((run), 2);						\
	CHECK_HAS(fake_err, (msg));					\
	_l = fake_asked[HVTRACE_CMD_GET_STATS][1];			\
	CHECK_INT(fake_opens, _l);					\
	CHECK_INT(fake_requests, fake_asked[HVTRACE_CMD_GET_STATUS][0] + _l); \
} while (0)

static void test_kinds(void)
{
	static char *kinds[] = {
		"pid", "vcpu", "cpu", "reason", "rip",
	};
	struct hvc_change ch = { 0 };

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		CHECK_INT(hvc_change_filter(&ch, NULL, kinds[i], NULL), 0);
		CHECK_INT(FILTER(kinds[i], "any"), 0);
		CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 1);
	}
	CHECK_INT(ch.set, 0);
	/* Unknown: a return of its own, and nothing in the sink. */
	fake_reset();
	CHECK_INT(hvc_change_filter(&ch, NULL, "bogus", "1"), -ENOENT);
	CHECK_STR(fake_err, "");
	CHECK_USAGE(FILTER("bogus", "1"), "unknown filter 'bogus'");
	CHECK_USAGE(FILTER("pid", "1", "bogus", "1"), "unknown filter 'bogus'");
}

static void test_bad_values(void)
{
	CHECK_USAGE(FILTER("cpu", "3-1"), "cpu range 3-1 is reversed");
	CHECK_USAGE(FILTER("vcpu", "7-2"), "vcpu range 7-2 is reversed");
	CHECK_USAGE(FILTER("vcpu", "5000"), "vcpu 5000 is out of range");
	CHECK_USAGE(FILTER("cpu", "0,x"), "bad cpu list");
	fake_reset();
	CHECK_USAGE(FILTER("pid", "abc"), "pid abc: no running VM of that "
		    "name or UUID (nor a pid)");
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	CHECK_USAGE(FILTER("reason", "nfp"), "unknown exit reason 'nfp'");
	CHECK_USAGE(FILTER("rip", "0x2000-0x1000"), "ends before it starts");
	CHECK_USAGE(FILTER("pid"), "'pid' needs a value");
	CHECK_USAGE(FILTER("clear", "pid"), "'clear' takes no value");

	CHECK_INT(FILTER("cpu", "1-3"), 0);
	CHECK_INT(FILTER("clear"), 0);
	CHECK(fake_req_cfg(HVTRACE_CFG_FILTERS_CLEAR));
}

static void test_buffer_size(void)
{
	CHECK_INT(BUFFER("--size", "4M"), 0);
	CHECK_INT(hvnl_u32(fake_req_cfg(HVTRACE_CFG_BUFFER_KB)), 4096);
	CHECK_INT(BUFFER("--size", "512k"), 0);
	CHECK_INT(hvnl_u32(fake_req_cfg(HVTRACE_CFG_BUFFER_KB)), 512);
	CHECK_USAGE(BUFFER("--size", "2"), "buffer size 2 out of range");
	CHECK_USAGE(BUFFER("--size", "300M"), "out of range");
	/* Sizes that wrapped: 2^54 MiB is 0 KiB after << 10, and so on. */
	CHECK_USAGE(BUFFER("--size", "18014398509481984M"), "out of range");
	CHECK_USAGE(BUFFER("--size", "17592186044416G"), "out of range");
	CHECK_USAGE(BUFFER("--size", "99999999999999999999999"), "out of range");
	CHECK_USAGE(BUFFER("--size", "0"), "out of range");
	CHECK_USAGE(BUFFER("--size", "-1"), "bad size '-1'");
	CHECK_USAGE(BUFFER("--size", " 4M"), "bad size");
	CHECK_USAGE(BUFFER("--size", "4X"), "bad size '4X'");
	CHECK_USAGE(BUFFER("--mode", "sideways"), "discard or overwrite");
}

/* The option parser's forms reach the same checks (user/hvctl/opts.c). */
static void test_forms(void)
{
	CHECK_INT(BUFFER("--size=4M", "--mode=overwrite"), 0);
	CHECK_INT(hvnl_u32(fake_req_cfg(HVTRACE_CFG_BUFFER_KB)), 4096);
	CHECK_USAGE(BUFFER("--size=2"), "buffer size 2 out of range");
	CHECK_USAGE(BUFFER("--size"), "--size needs a value");
	CHECK_USAGE(BUFFER("--mode"), "--mode needs a value (discard, "
		    "overwrite)");
	CHECK_USAGE(BUFFER("--size", "4M", "x"), "unexpected argument 'x'");
	CHECK_USAGE(BUFFER("--sz", "4M"), "unknown option '--sz'");
	CHECK_USAGE(BUFFER("--"), "nothing to change");
	/* "pid -1" is a pair; pid's own check refuses the value. */
	CHECK_USAGE(FILTER("pid", "0"), "pid takes the VMM's pid, not '0'");
	/* Decimal digits alone are a pid: "-1" and "0x10" are names. */
	CHECK_USAGE(FILTER("pid", "-1"), "pid -1: no running VM of that name "
		    "or UUID (nor a pid, which is decimal digits only)");
	CHECK_USAGE(FILTER("pid", "0x10"), "pid 0x10: no running VM of that "
		    "name or UUID (nor a pid, which is decimal digits only)");
	CHECK_USAGE(FILTER("--pid", "1"), "unknown option '--pid'");
	CHECK_INT(FILTER("--", "pid", "1"), 0);
}

int main(void)
{
	test_kinds();
	test_bad_values();
	test_buffer_size();
	test_forms();
	return unit_report();
}
