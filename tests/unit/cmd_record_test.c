// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl record's start: its thresholds, filters and buffers are one
 * change, sent as one SET_CONFIG before recording starts, or, when any
 * part is bad, not sent at all. A refusal by the module names the option.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "fake_nl.h"

static char dir[64];

/* A module with one CPU, nothing recorded yet. */
static void put_module(void)
{
	struct nlmsghdr *nlh;
	struct nlattr *acct;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_strz(nlh, HVTRACE_A_VERSION, "0.1.0");
	mnl_attr_put_u32(nlh, HVTRACE_A_NR_CPUS, 1);
	acct = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
	mnl_attr_put_u64(nlh, HVTRACE_ACCT_SEEN, 0);
	mnl_attr_nest_end(nlh, acct);
}

/* hvctl record -o DIR/t -q --duration 1ms ARGS...: its exit status. */
#define RUN_O(...) ({							\
	char _t[80];							\
									\
	snprintf(_t, sizeof(_t), "%s/t", dir);				\
	FAKE_RUN(hvctl_cmd_record, "record", "-o", _t, __VA_ARGS__, NULL); \
})
#define RUN(...) RUN_O("-q", "--duration", "1ms", __VA_ARGS__)

static void remove_trace(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s/t", dir);
	CHECK_INT(system(cmd), 0);
}

/* A bad part anywhere: nothing reaches the module, nothing changes. */
static void test_bad_sends_nothing(void)
{
	put_module();
	CHECK_INT(RUN("--threshold", "10us", "--reason", "nfp"), 2);
	CHECK_HAS(fake_err, "unknown exit reason 'nfp'");
	CHECK_INT(fake_opens, 0);
	CHECK_INT(fake_requests, 0);

	put_module();
	CHECK_INT(RUN("--pid", "7", "--threshold", "10us", "--buffer-size",
		      "2"), 2);
	CHECK_HAS(fake_err, "buffer size 2 out of range");
	CHECK_INT(fake_requests, 0);

	put_module();
	CHECK_INT(RUN("--threshold", "5xs", "--cpu", "0"), 2);
	CHECK_INT(fake_requests, 0);

	put_module();
	CHECK_INT(RUN("--cpu", "0", "--rip", "0x2000-0x1000"), 2);
	CHECK_HAS(fake_err, "ends before it starts");
	CHECK_INT(fake_requests, 0);

	/* --opt=value, and the checks of the parser itself. */
	put_module();
	CHECK_INT(RUN("--reason", "npf", "--reason", "io"), 2);
	CHECK_HAS(fake_err, "--reason given twice");
	CHECK_INT(fake_opens, 0);
	put_module();
	CHECK_INT(RUN("--pid=abc"), 2);
	CHECK_HAS(fake_err, "--pid abc: no running VM of that name or UUID (nor a pid)");
	/* The name's lookup was all: a session, the stats read. */
	CHECK_INT(fake_opens, 1);
	CHECK_INT(fake_requests, 2);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATUS][0], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	put_module();
	CHECK_INT(RUN_O("-q", "--duration=-1s"), 2);
	CHECK_HAS(fake_err, "--duration: negative duration '-1s'");
	CHECK_INT(fake_opens, 0);
	put_module();
	CHECK_INT(RUN_O("-q", "--duration=0"), 2);
	CHECK_HAS(fake_err, "--duration must be more than 0");
	put_module();
	CHECK_INT(RUN("--quiet=1"), 2);
	CHECK_HAS(fake_err, "--quiet takes no value");
	put_module();
	CHECK_INT(RUN("extra"), 2);
	CHECK_HAS(fake_err, "unexpected argument 'extra'");
	CHECK_INT(fake_opens, 0);
}

static uint64_t cfg_u64(uint16_t type)
{
	return hvnl_u64(fake_req_cfg(type));
}

/* Every option in the one SET_CONFIG, sent before START. */
static void test_one_request(void)
{
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES];
	const struct nlattr *a, *r;
	uint64_t w;
	int nr = 0;

	put_module();
	CHECK_INT(RUN("--threshold", "10us", "--reason", "npf,hlt",
		      "--pid", "42", "--vcpu", "0-1", "--cpu", "0",
		      "--rip", "0x1000-0x1fff", "--buffer-size", "4M",
		      "--mode", "overwrite"), 0);
	CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_START][0], 1);
	CHECK_U64(cfg_u64(HVTRACE_CFG_THRESHOLD_NS), 10000);
	CHECK_INT(hvnl_u8(fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON)),
		  HVTRACE_ON_TOTAL);
	CHECK_INT(hvnl_u32(fake_req_cfg(HVTRACE_CFG_FILTER_PID)), 42);
	/* Bitmaps: copied out, the payload is only 4-byte aligned. */
	a = fake_req_cfg(HVTRACE_CFG_FILTER_VCPUS);
	if (CHECK(a && mnl_attr_get_payload_len(a) == 8)) {
		memcpy(&w, mnl_attr_get_payload(a), 8);
		CHECK_U64(w, 3);
	}
	a = fake_req_cfg(HVTRACE_CFG_FILTER_CPUS);
	if (CHECK(a && mnl_attr_get_payload_len(a) == 8)) {
		memcpy(&w, mnl_attr_get_payload(a), 8);
		CHECK_U64(w, 1);
	}
	CHECK_U64(cfg_u64(HVTRACE_CFG_FILTER_RIP_MIN), 0x1000);
	CHECK_U64(cfg_u64(HVTRACE_CFG_FILTER_RIP_MAX), 0x1fff);
	CHECK_INT(hvnl_u32(fake_req_cfg(HVTRACE_CFG_BUFFER_KB)), 4096);
	CHECK_INT(hvnl_u8(fake_req_cfg(HVTRACE_CFG_MODE)),
		  HVTRACE_MODE_OVERWRITE);
	a = fake_req_cfg(HVTRACE_CFG_FILTER_REASONS);
	if (CHECK(a))
		mnl_attr_for_each_nested(r, a)
			nr++;
	/* Whatever the names match, on both vendors. */
	CHECK_INT(nr, exit_reason_parse("npf", refs, EXIT_REASON_MAX_MATCHES) +
		  exit_reason_parse("hlt", refs, EXIT_REASON_MAX_MATCHES));
	CHECK(!fake_req_cfg(HVTRACE_CFG_FILTERS_CLEAR));
	remove_trace();

	/* Nothing to change: no SET_CONFIG at all. */
	put_module();
	CHECK_INT(RUN_O("-q", "--duration", "1ms"), 0);
	CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 0);
	CHECK_INT(fake_asked[HVTRACE_CMD_START][0], 1);
	remove_trace();
}

/* The module's refusal names the attribute: hvctl names the option. */
static void test_refusal_names_option(void)
{
	put_module();
	fake_refuse(HVTRACE_CMD_SET_CONFIG, EBUSY,
		    "stop recording and reading before changing the buffers",
		    HVTRACE_CFG_BUFFER_KB);
	CHECK_INT(RUN("--threshold", "1us", "--buffer-size", "4M"), 1);
	CHECK_STR(fake_err, "stop recording and reading before changing the "
		  "buffers (--buffer-size 4M)");
	CHECK_INT(fake_asked[HVTRACE_CMD_START][0], 0);
	remove_trace();

	/* No attribute named: the message alone. */
	put_module();
	fake_refuse(HVTRACE_CMD_SET_CONFIG, EINVAL, "no configuration", 0);
	CHECK_INT(RUN("--cpu", "1"), 1);
	CHECK_STR(fake_err, "no configuration");
	remove_trace();
}

/* A -o that cannot take a trace: refused before any SET_CONFIG. */
static void test_bad_dir_sends_nothing(void)
{
	char t[80], f[96];
	FILE *fp;

	snprintf(t, sizeof(t), "%s/t", dir);
	snprintf(f, sizeof(f), "%s/t/old", dir);
	CHECK_INT(mkdir(t, 0700), 0);
	fp = fopen(f, "w");
	if (CHECK(fp))
		fclose(fp);
	put_module();
	CHECK_INT(RUN("--threshold", "10us"), 1);
	CHECK_HAS(fake_err, "not an empty directory");
	CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 0);
	CHECK_INT(fake_asked[HVTRACE_CMD_START][0], 0);
	remove_trace();
}

/* The change refused: the trace it would have gone with is not left. */
static void test_refused_leaves_no_trace(void)
{
	char t[80];

	snprintf(t, sizeof(t), "%s/t", dir);
	put_module();
	fake_refuse(HVTRACE_CMD_SET_CONFIG, EINVAL, "no", 0);
	CHECK_INT(RUN("--threshold", "10us"), 1);
	CHECK_MSG(access(t, F_OK) && errno == ENOENT, "%s left behind", t);
	remove_trace();
}

/* START refused after the change: the change is undone, part by part. */
static void test_start_refused_undoes(void)
{
	struct nlmsghdr *nlh;
	struct nlattr *c;
	char *out;

	put_module();
	nlh = fake_dump(HVTRACE_CMD_GET_CONFIG);
	c = mnl_attr_nest_start(nlh, HVTRACE_A_CONFIG);
	mnl_attr_put_u64(nlh, HVTRACE_CFG_THRESHOLD_NS, 50000);
	mnl_attr_put_u8(nlh, HVTRACE_CFG_THRESHOLD_ON, HVTRACE_ON_VMM);
	mnl_attr_put_u32(nlh, HVTRACE_CFG_FILTER_PID, 7);
	mnl_attr_put_u32(nlh, HVTRACE_CFG_BUFFER_KB, 2048);
	mnl_attr_nest_end(nlh, c);
	fake_refuse(HVTRACE_CMD_START, EBUSY, "busy", 0);
	fake_capture_begin();
	CHECK_INT(RUN("--threshold", "10us", "--pid", "42"), 1);
	out = fake_capture_end();
	CHECK_STR(fake_err, "busy");
	CHECK_HAS(out, "the configuration is back as it was before this record");
	free(out);
	/* The change, then its undo: only what it changed, as it was. */
	CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 2);
	CHECK_U64(cfg_u64(HVTRACE_CFG_THRESHOLD_NS), 50000);
	CHECK_INT(hvnl_u8(fake_req_cfg(HVTRACE_CFG_THRESHOLD_ON)),
		  HVTRACE_ON_VMM);
	CHECK_INT(hvnl_u32(fake_req_cfg(HVTRACE_CFG_FILTER_PID)), 7);
	CHECK(!fake_req_cfg(HVTRACE_CFG_BUFFER_KB));
	CHECK(!fake_req_cfg(HVTRACE_CFG_FILTER_CPUS));
	remove_trace();
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/hvctl-record-test.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_bad_sends_nothing();
	test_one_request();
	test_refusal_names_option();
	test_bad_dir_sends_nothing();
	test_refused_leaves_no_trace();
	test_start_refused_undoes();
	rmdir(dir);
	return unit_report();
}
