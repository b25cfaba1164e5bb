// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl config: the threshold settings, and the configuration read with
 * the GET_CONFIG dump (ABI 3), whose parts are concatenated: hundreds of
 * per-reason thresholds and reason filter entries in batches.
 */
#include "exit_reasons.h"
#include "fake_nl.h"

/* As the module batches them. */
#define BATCH 48

static struct nlattr *start_part(struct nlmsghdr **nlh)
{
	*nlh = fake_dump(HVTRACE_CMD_GET_CONFIG);
	return mnl_attr_nest_start(*nlh, HVTRACE_A_CONFIG);
}

static void put_reason(struct nlmsghdr *nlh, uint16_t type, uint8_t isa,
		       uint32_t code, bool thr, uint64_t ns)
{
	struct nlattr *r = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, isa);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, code);
	if (thr)
		mnl_attr_put_u64(nlh, HVTRACE_RSN_THRESHOLD_NS, ns);
	mnl_attr_nest_end(nlh, r);
}

/* The late interrupt threshold put_settings() sends, if it sends one. */
static uint64_t irq_ns = HVTRACE_IRQ_THRESHOLD_OFF;
static bool irq_sent = true;

/* The first part: every single setting. */
static void put_settings(struct nlmsghdr *nlh, uint8_t on, uint8_t halt,
			 uint64_t preempt_ns)
{
	mnl_attr_put_u64(nlh, HVTRACE_CFG_THRESHOLD_NS, 50000);
	mnl_attr_put_u32(nlh, HVTRACE_CFG_FILTER_PID, 0);
	mnl_attr_put_u64(nlh, HVTRACE_CFG_FILTER_RIP_MIN, 0);
	mnl_attr_put_u64(nlh, HVTRACE_CFG_FILTER_RIP_MAX, UINT64_MAX);
	mnl_attr_put_u32(nlh, HVTRACE_CFG_BUFFER_KB, 2048);
	mnl_attr_put_u8(nlh, HVTRACE_CFG_MODE, HVTRACE_MODE_DISCARD);
	mnl_attr_put_u8(nlh, HVTRACE_CFG_THRESHOLD_ON, on);
	mnl_attr_put_u8(nlh, HVTRACE_CFG_HALT_TRIGGERS, halt);
	mnl_attr_put_u64(nlh, HVTRACE_CFG_PREEMPT_THRESHOLD_NS, preempt_ns);
	if (irq_sent)
		mnl_attr_put_u64(nlh, HVTRACE_CFG_IRQ_THRESHOLD_NS, irq_ns);
}

/* Settings, and one per-reason threshold in a part of its own. */
static void put_config(uint8_t on, uint8_t halt, uint64_t preempt_ns)
{
	struct nlmsghdr *nlh;
	struct nlattr *c;

	fake_reset();
	c = start_part(&nlh);
	put_settings(nlh, on, halt, preempt_ns);
	mnl_attr_nest_end(nlh, c);
	c = start_part(&nlh);
	put_reason(nlh, HVTRACE_CFG_REASON_THRESHOLD, HVTRACE_ISA_SVM,
		   0x400 /* NPF */, true, 1000);
	mnl_attr_nest_end(nlh, c);
}

/* Reason I of every reason hvctl knows, VMX first. */
static const struct exit_reason_entry *reason_at(int i, uint8_t *isa)
{
	int vmx = exit_reason_count(HV_ISA_VMX);

	*isa = i < vmx ? HVTRACE_ISA_VMX : HVTRACE_ISA_SVM;
	return exit_reason_at(*isa, i < vmx ? i : i - vmx);
}

static int nr_reasons(void)
{
	return exit_reason_count(HV_ISA_VMX) + exit_reason_count(HV_ISA_SVM);
}

/*
 * A threshold (1000 + i ns) and a filter entry for every reason, with
 * vCPU and CPU bitmaps, in batches; TRAILER: after the last full batch
 * an empty FILTER_REASONS list, as the module sends when the entries
 * fill their last batch exactly.
 */
static void put_many(int n, bool trailer)
{
	uint64_t vcpus[64] = { 0x5 }, cpus[1] = { 0x2 };
	struct nlattr *c, *list;
	struct nlmsghdr *nlh;
	uint8_t isa;

	fake_reset();
	c = start_part(&nlh);
	put_settings(nlh, HVTRACE_ON_TOTAL, 0, 0);
	mnl_attr_put(nlh, HVTRACE_CFG_FILTER_VCPUS, sizeof(vcpus), vcpus);
	mnl_attr_put(nlh, HVTRACE_CFG_FILTER_CPUS, sizeof(cpus), cpus);
	mnl_attr_nest_end(nlh, c);
	for (int i = 0; i < n; i++) {
		const struct exit_reason_entry *e = reason_at(i, &isa);

		if (i % BATCH == 0)
			c = start_part(&nlh);
		put_reason(nlh, HVTRACE_CFG_REASON_THRESHOLD, isa, e->code,
			   true, 1000 + i);
		if (i % BATCH == BATCH - 1 || i == n - 1)
			mnl_attr_nest_end(nlh, c);
	}
	for (int i = 0; i < n; i++) {
		const struct exit_reason_entry *e = reason_at(i, &isa);

		if (i % BATCH == 0) {
			c = start_part(&nlh);
			list = mnl_attr_nest_start(nlh,
						   HVTRACE_CFG_FILTER_REASONS);
		}
		put_reason(nlh, HVTRACE_A_REASON, isa, e->code, false, 0);
		if (i % BATCH == BATCH - 1 || i == n - 1) {
			mnl_attr_nest_end(nlh, list);
			mnl_attr_nest_end(nlh, c);
		}
	}
	if (trailer) {
		c = start_part(&nlh);
		list = mnl_attr_nest_start(nlh, HVTRACE_CFG_FILTER_REASONS);
		mnl_attr_nest_end(nlh, list);
		mnl_attr_nest_end(nlh, c);
	}
}

static void test_settings(void)
{
	char *out;

	put_config(HVTRACE_ON_RUNNABLE, 1, 2000000);
	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	/* Read with the dump, not the request that may exceed a page. */
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_CONFIG][1], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_CONFIG][0], 0);
	CHECK_HAS(out, "{\"threshold_ns\":50000,\"threshold_on\":\"runnable\","
		  "\"halt_triggers\":true,\"preempt_threshold_ns\":2000000,"
		  "\"irq_threshold_ns\":null,\"reason_thresholds\":");
	CHECK_HAS(out, "\"reason_thresholds\":[{\"isa\":\"svm\",\"code\":1024,"
		  "\"reason\":\"NPF\",\"threshold_ns\":1000}]");
	CHECK_HAS(out, "\"filters\":{\"pid\":\"any\",\"vcpus\":[],\"cpus\":[],"
		  "\"rip_min\":0,\"rip_max\":18446744073709551615,"
		  "\"reasons\":[]},\"buffer_kb\":2048,\"mode\":\"discard\"}\n");
	free(out);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_STR(out, "threshold:           50.0us\n"
		  "threshold on:        runnable\n"
		  "halt triggers:       yes\n"
		  "preempt threshold:   2.00ms\n"
		  "interrupt threshold: off\n"
		  "reason thresholds:\n"
		  "    svm NPF (0x400): 1.0us\n"
		  "filters:\n"
		  "  pid                any\n"
		  "  vcpu               any\n"
		  "  cpu                any\n"
		  "  rip                any\n"
		  "  reason             any\n"
		  "buffer:              2048 KiB per CPU, discard mode\n");
	free(out);

	put_config(HVTRACE_ON_TOTAL, 0, 0);
	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "\"threshold_on\":\"total\",\"halt_triggers\":false,"
		  "\"preempt_threshold_ns\":0,");
	free(out);

	/* A newer module's part hvctl cannot name. */
	put_config(HVTRACE_ON_MAX + 1, 0, 0);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "threshold on:        ?\n");
	free(out);
}

/* The late interrupt threshold as put_settings() sends it: TEXT, JSON. */
static void check_irq(const char *text, const char *json)
{
	char *out;

	put_config(HVTRACE_ON_RUNNABLE, 1, 2000000);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, text);
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, json);
	free(out);
}

/* Off (above, the default) is null; a threshold a number, a duration. */
static void test_irq(void)
{
	irq_ns = 100000;
	check_irq("preempt threshold:   2.00ms\n"
		  "interrupt threshold: 100.0us\n"
		  "reason thresholds:\n",
		  "\"preempt_threshold_ns\":2000000,"
		  "\"irq_threshold_ns\":100000,\"reason_thresholds\":");
	/* 0 records every late interrupt: no off. */
	irq_ns = 0;
	check_irq("interrupt threshold: 0ns\n", "\"irq_threshold_ns\":0,");
	/* A module without late interrupt records records none: off. */
	irq_sent = false;
	check_irq("interrupt threshold: off\n", "\"irq_threshold_ns\":null,");
	irq_sent = true;
	irq_ns = HVTRACE_IRQ_THRESHOLD_OFF;
}

/*
 * Codes without a name read as in stat and report (exit_reason_label()):
 * the vendor and the code, and a VMX reason with flag bits (a failed
 * entry) its name and the whole code.
 */
static void test_unknown(void)
{
	struct nlattr *c, *list;
	struct nlmsghdr *nlh;
	char *out;

	CHECK(!exit_reason_name(HV_ISA_SVM, 0x7777));
	CHECK(!exit_reason_name(HV_ISA_VMX, 0x7fff));
	fake_reset();
	c = start_part(&nlh);
	put_settings(nlh, HVTRACE_ON_TOTAL, 0, 0);
	mnl_attr_nest_end(nlh, c);
	c = start_part(&nlh);
	put_reason(nlh, HVTRACE_CFG_REASON_THRESHOLD, HVTRACE_ISA_SVM, 0x7777,
		   true, 1000);
	put_reason(nlh, HVTRACE_CFG_REASON_THRESHOLD, HVTRACE_ISA_VMX,
		   0x80000021, true, 2000);
	list = mnl_attr_nest_start(nlh, HVTRACE_CFG_FILTER_REASONS);
	put_reason(nlh, HVTRACE_A_REASON, HVTRACE_ISA_VMX, 0x7fff, false, 0);
	mnl_attr_nest_end(nlh, list);
	mnl_attr_nest_end(nlh, c);

	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "\"reason_thresholds\":[{\"isa\":\"svm\",\"code\":30583,"
		  "\"reason\":\"SVM 0x7777\",\"threshold_ns\":1000},"
		  "{\"isa\":\"vmx\",\"code\":2147483681,"
		  "\"reason\":\"INVALID_STATE 0x80000021\","
		  "\"threshold_ns\":2000}]");
	CHECK_HAS(out, "\"reasons\":[{\"isa\":\"vmx\",\"code\":32767,"
		  "\"reason\":\"VMX 0x7fff\"}]");
	CHECK_HASNT(out, "\"?\"");
	free(out);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "reason thresholds:\n"
		  "    svm SVM 0x7777 (0x7777): 1.0us\n"
		  "    vmx INVALID_STATE 0x80000021 (0x80000021): 2.0us\n"
		  "filters:\n");
	CHECK_HAS(out, "  reason             \n    vmx VMX 0x7fff (0x7fff)\n"
		  "buffer:");
	free(out);
}

/* Every part concatenated, in order, whatever the batches. */
static void test_many(bool trailer)
{
	int n = nr_reasons();
	char *out, first[160], last[160];
	const struct exit_reason_entry *e;
	uint8_t isa;

	CHECK(n > 4 * BATCH);
	put_many(n, trailer);
	out = FAKE_OUTPUT(true, hvctl_cmd_config, "config", NULL);
	CHECK_INT(fake_count(out, "\"threshold_ns\":") - 1, n);
	CHECK_INT(fake_count(out, "{\"isa\":"), 2 * n);
	e = reason_at(0, &isa);
	snprintf(first, sizeof(first), "\"reason_thresholds\":[{\"isa\":\"vmx\","
		 "\"code\":%u,\"reason\":\"%s\",\"threshold_ns\":1000},",
		 e->code, e->name);
	CHECK_HAS(out, first);
	e = reason_at(n - 1, &isa);
	snprintf(last, sizeof(last), "{\"isa\":\"svm\",\"code\":%u,\"reason\":"
		 "\"%s\",\"threshold_ns\":%d}],", e->code, e->name, 1000 + n - 1);
	CHECK_HAS(out, last);
	CHECK_HAS(out, "\"filters\":{\"pid\":\"any\",\"vcpus\":[0,2],"
		  "\"cpus\":[1],");
	snprintf(last, sizeof(last), "{\"isa\":\"svm\",\"code\":%u,\"reason\":"
		 "\"%s\"}]},\"buffer_kb\":2048", e->code, e->name);
	CHECK_HAS(out, last);
	/* Thresholds 1000 + i: the one of a middle batch, in its place. */
	e = reason_at(BATCH + 1, &isa);
	snprintf(first, sizeof(first), "\"code\":%u,\"reason\":\"%s\","
		 "\"threshold_ns\":%d}", e->code, e->name, 1000 + BATCH + 1);
	CHECK_HAS(out, first);
	free(out);

	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	/* One line per threshold and per filter entry. */
	CHECK_INT(fake_count(out, "\n    "), 2 * n);
	CHECK_HAS(out, "  vcpu               0,2\n  cpu                1\n");
	CHECK_HAS(out, "  reason             \n    vmx ");
	free(out);
}

int main(void)
{
	test_settings();
	test_irq();
	test_unknown();
	test_many(false);
	test_many(true);
	return unit_report();
}
