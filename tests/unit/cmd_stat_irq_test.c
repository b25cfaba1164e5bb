// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl stat --vcpus: the interrupts delivered to each vCPU, from a
 * canned GET_STATS dump. The client library's rows (sorted by vector,
 * the other row last, empty rows dropped), a malformed array and an
 * unknown flag refused, and the text and JSON shown (stat_irq.h).
 */
#include "fake_nl.h"
#include "util.h"

/* A vCPU of VM 1 with IRQS of N rows (LEN bytes, if not N rows). */
static void put_vcpu(uint32_t id, const struct hvtrace_vcpu_irq *irqs,
		     unsigned int n, size_t len, uint64_t unmatched,
		     uint64_t reinjected, uint64_t posted, bool gone)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *nest = mnl_attr_nest_start(nlh, HVTRACE_A_VCPU);

	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_ID, 1);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_PID, 4242);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_ID, id);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_TID, 4243 + id);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_COUNT, 30);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_TOTAL_NS, 400000);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_GUEST_NS, 600000);
	if (gone)
		mnl_attr_put_u8(nlh, HVTRACE_VCPU_GONE, 1);
	if (n || len)
		mnl_attr_put(nlh, HVTRACE_VCPU_IRQS,
			     len ? len : n * sizeof(*irqs), irqs);
	if (unmatched)
		mnl_attr_put_u64(nlh, HVTRACE_VCPU_IRQ_UNMATCHED, unmatched);
	if (reinjected)
		mnl_attr_put_u64(nlh, HVTRACE_VCPU_IRQ_REINJECTED,
				 reinjected);
	if (posted)
		mnl_attr_put_u64(nlh, HVTRACE_VCPU_IRQ_POSTED, posted);
	mnl_attr_nest_end(nlh, nest);
}

/*
 * vCPU 0: the other row, an IPI's vector and the LAPIC timer's, in the
 * module's order (first seen), an empty row, and unmatched injections.
 * vCPU 1 (gone): nothing timed, reinjections and posted ones. vCPU 2: no
 * interrupt data.
 */
static const struct hvtrace_vcpu_irq rows0[] = {
	{ .flags = HVTRACE_VCPU_IRQ_OTHER | HVTRACE_VCPU_IRQ_LOCAL |
		   HVTRACE_VCPU_IRQ_IPI,
	  .count = 4, .total_ns = 4000, .max_ns = 2000 },
	{ .vector = 0xfb, .flags = HVTRACE_VCPU_IRQ_IPI,
	  .count = 3, .total_ns = 30000, .max_ns = 20000 },
	{ .vector = 0x30, .flags = HVTRACE_VCPU_IRQ_LOCAL },
	{ .vector = 0xec, .flags = HVTRACE_VCPU_IRQ_LOCAL,
	  .count = 12, .total_ns = 24000, .max_ns = 5000 },
};

static void put_stats(void)
{
	struct nlmsghdr *nlh;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_u64(nlh, HVTRACE_A_STATS_AGE_NS, 2000000000);
	put_vcpu(0, rows0, ARRAY_SIZE(rows0), 0, 7, 0, 0, false);
	put_vcpu(1, NULL, 0, 0, 0, 2, 5, true);
	put_vcpu(2, NULL, 0, 0, 0, 0, 0, false);
}

static void test_parse(void)
{
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;
	struct hvc *c;

	put_stats();
	CHECK_INT(hvc_open(&c), 0);
	CHECK_INT(hvc_stats_get(c, &s), 0);
	hvc_close(c);
	CHECK_INT(s.nr_vcpus, 3);
	CHECK_INT(s.vcpus[0].nr_irqs, 3);
	r = s.vcpus[0].irqs;
	CHECK_INT(r[0].vector, 0xec);
	CHECK(r[0].local && !r[0].ipi && !r[0].other);
	CHECK_U64(r[0].count, 12);
	CHECK_U64(r[0].total_ns, 24000);
	CHECK_U64(r[0].max_ns, 5000);
	CHECK_INT(r[1].vector, 0xfb);
	CHECK(!r[1].local && r[1].ipi && !r[1].other);
	CHECK_INT(r[2].vector, 0);
	CHECK(r[2].local && r[2].ipi && r[2].other);
	CHECK_U64(r[2].count, 4);
	CHECK_U64(s.vcpus[0].irq_unmatched, 7);
	CHECK_U64(s.vcpus[0].irq_reinjected, 0);
	CHECK_U64(s.vcpus[0].irq_posted, 0);
	CHECK_INT(s.vcpus[1].nr_irqs, 0);
	CHECK_U64(s.vcpus[1].irq_reinjected, 2);
	CHECK_U64(s.vcpus[1].irq_posted, 5);
	CHECK_INT(s.vcpus[2].nr_irqs, 0);
	hvc_stats_free(&s);
}

/* A reply hvctl cannot read whole is refused, naming what is wrong. */
static void check_refused(const char *msg)
{
	hvctl_json = false;
	fake_capture_begin();
	CHECK_INT(FAKE_RUN(hvctl_cmd_stat, "stat", "--vcpus", NULL), 1);
	free(fake_capture_end());
	CHECK_STR(fake_err, msg);
}

static void test_bad_length(void)
{
	put_stats();
	put_vcpu(3, rows0, 0, sizeof(rows0[0]) + 4, 0, 0, 0, false);
	check_refused("the module's reply is malformed: HVTRACE_VCPU_IRQS "
		      "has 36 bytes");
}

static void test_bad_flags(void)
{
	struct hvtrace_vcpu_irq bad[] = {
		rows0[1],
		{ .vector = 0x22, .flags = HVTRACE_VCPU_IRQ_LOCAL | 0x8,
		  .count = 1 },
	};

	put_stats();
	put_vcpu(3, bad, ARRAY_SIZE(bad), 0, 0, 0, 0, false);
	check_refused("the module's reply is malformed: HVTRACE_VCPU_IRQS "
		      "has unknown flags 0x9 (vector 34)");
}

static void test_text(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	/*
	 * After the vCPUs' tables, before the preemptors; every table's
	 * first column as wide as the widest title, so that they line up.
	 */
	CHECK_HAS(out, "       0ns   0.0%\n"
		  "\ninterrupt delivery vm 1 vcpu 0        source           count"
		  "       avg       max\n"
		  "236 (0xec)                            local               12"
		  "     2.0us     5.0us\n"
		  "251 (0xfb)                            ipi                  3"
		  "    10.0us    20.0us\n"
		  "other                                 local+ipi            4"
		  "     1.0us     2.0us\n"
		  "not timed: unmatched 7\n"
		  "\ninterrupt delivery vm 1 vcpu 1 (gone) source           count"
		  "       avg       max\n"
		  "not timed: reinjected 2, posted 5\n"
		  "\ntop preemptors");
	CHECK_HASNT(out, "interrupt delivery vm 1 vcpu 2");
	CHECK_INT(fake_count(out, "interrupt delivery"), 2);
	free(out);

	/* Without --vcpus: no vCPU, no interrupts. */
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", NULL);
	CHECK_HASNT(out, "interrupt delivery");
	free(out);
}

static void test_json(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"gone\":false,\"irqs\":["
		  "{\"vector\":236,\"sources\":[\"local\"],\"count\":12,"
		  "\"total_ns\":24000,\"avg_ns\":2000,\"max_ns\":5000},"
		  "{\"vector\":251,\"sources\":[\"ipi\"],\"count\":3,"
		  "\"total_ns\":30000,\"avg_ns\":10000,\"max_ns\":20000},"
		  "{\"vector\":null,\"sources\":[\"local\",\"ipi\"],"
		  "\"count\":4,\"total_ns\":4000,\"avg_ns\":1000,"
		  "\"max_ns\":2000}],"
		  "\"irq_unmatched\":7,\"irq_reinjected\":0,\"irq_posted\":0}");
	CHECK_HAS(out, "\"gone\":true,\"irqs\":[],\"irq_unmatched\":0,"
		  "\"irq_reinjected\":2,\"irq_posted\":5}");
	CHECK_HAS(out, "\"vcpu\":2,\"tid\":4245,");
	CHECK_HAS(out, "\"gone\":false,\"irqs\":[],\"irq_unmatched\":0,"
		  "\"irq_reinjected\":0,\"irq_posted\":0}],\"preemptors\":[]}");
	free(out);
}

int main(void)
{
	test_parse();
	test_bad_length();
	test_bad_flags();
	test_text();
	test_json();
	return unit_report();
}
