// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl stat --vcpus: the interrupts delivered to each vCPU, from a
 * canned GET_STATS dump. The client library's rows (sorted by vector,
 * the other row last, empty rows dropped), a malformed array refused and
 * a newer module's flags taken, the sources (timer, local, ipi, device)
 * named, and the text (one table for all vCPUs, one line of what was not
 * timed) and JSON shown (stat_irq.h).
 */
#include "fake_nl.h"
#include "util.h"

/* A row's split members from a module that sends none. */
#define NO_SPLIT "\"guest_ns\":null,\"handling_ns\":null," \
	"\"vmm_ns\":null,\"halt_ns\":null,\"runnable_ns\":null," \
	"\"other_ns\":null,\"preemptor\":null"

/* The next vCPU's HVTRACE_VCPU_IRQ_SPLIT, if any (SPLIT_LEN bytes). */
static const struct hvtrace_vcpu_irq_split *put_split;
static size_t put_split_len;
/* The next vCPU's HVTRACE_VCPU_IRQ_PCT, if any (PCT_LEN bytes). */
static const void *put_pct;
static size_t put_pct_len;

/* A vCPU of VM with IRQS of N rows (LEN bytes, if not N rows). */
static void put_vcpu(uint32_t vm, uint32_t id,
		     const struct hvtrace_vcpu_irq *irqs, unsigned int n,
		     size_t len, uint64_t unmatched, uint64_t reinjected,
		     uint64_t posted, bool gone)
{
	struct nlmsghdr *nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	struct nlattr *nest = mnl_attr_nest_start(nlh, HVTRACE_A_VCPU);

	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_ID, vm);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_PID, 4242 + 1000 * (vm - 1));
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_ID, id);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_TID,
			 4243 + 1000 * (vm - 1) + id);
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
	if (put_split)
		mnl_attr_put(nlh, HVTRACE_VCPU_IRQ_SPLIT, put_split_len,
			     put_split);
	put_split = NULL;
	if (put_pct)
		mnl_attr_put(nlh, HVTRACE_VCPU_IRQ_PCT, put_pct_len, put_pct);
	put_pct = NULL;
	mnl_attr_nest_end(nlh, nest);
}

/*
 * VM 1 vCPU 0: the other row, an IPI's vector and the LAPIC timer's, in
 * the module's order (first seen), an empty row, and unmatched
 * injections. VM 1 vCPU 1 (gone): nothing timed, reinjections and posted
 * ones. VM 1 vCPU 2: no interrupt data. VM 2 vCPU 0: the LAPIC timer,
 * and unmatched injections (its virtio devices'). VM 2 vCPU 1: unmatched
 * injections only.
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

static const struct hvtrace_vcpu_irq rows2[] = {
	{ .vector = 0xec, .flags = HVTRACE_VCPU_IRQ_LOCAL,
	  .count = 100, .total_ns = 150000, .max_ns = 9000 },
};

/* A new GET_STATS reply, its vCPUs to come. */
static void put_start(void)
{
	fake_reset();
	mnl_attr_put_u64(fake_reply(HVTRACE_CMD_GET_STATUS),
			 HVTRACE_A_STATS_AGE_NS, 2000000000);
}

/* The client library's reading of the reply put. */
static void get_stats(struct hvc_stats *s)
{
	struct hvc *c;

	CHECK_INT(hvc_open(&c), 0);
	CHECK_INT(hvc_stats_get(c, s), 0);
	hvc_close(c);
}

static void put_stats(void)
{
	put_start();
	put_vcpu(1, 0, rows0, ARRAY_SIZE(rows0), 0, 7, 0, 0, false);
	put_vcpu(1, 1, NULL, 0, 0, 0, 2, 5, true);
	put_vcpu(1, 2, NULL, 0, 0, 0, 0, 0, false);
	put_vcpu(2, 0, rows2, ARRAY_SIZE(rows2), 0, 40, 0, 0, false);
	put_vcpu(2, 1, NULL, 0, 0, 3, 0, 0, false);
}

static void test_parse(void)
{
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;

	put_stats();
	get_stats(&s);
	CHECK_INT(s.nr_vcpus, 5);
	CHECK_INT(s.vcpus[0].nr_irqs, 3);
	r = s.vcpus[0].irqs;
	CHECK_INT(r[0].vector, 0xec);
	CHECK(r[0].local && !r[0].ipi && !r[0].device && !r[0].other);
	CHECK(!r[0].unknown && !r[0].timer);
	CHECK_U64(r[0].count, 12);
	CHECK_U64(r[0].total_ns, 24000);
	CHECK_U64(r[0].max_ns, 5000);
	CHECK_INT(r[1].vector, 0xfb);
	CHECK(!r[1].local && r[1].ipi && !r[1].device && !r[1].other);
	CHECK_INT(r[2].vector, 0);
	CHECK(r[2].local && r[2].ipi && !r[2].device && r[2].other);
	CHECK_U64(r[2].count, 4);
	CHECK_U64(s.vcpus[0].irq_unmatched, 7);
	CHECK_U64(s.vcpus[0].irq_reinjected, 0);
	CHECK_U64(s.vcpus[0].irq_posted, 0);
	CHECK_INT(s.vcpus[1].nr_irqs, 0);
	CHECK_U64(s.vcpus[1].irq_reinjected, 2);
	CHECK_U64(s.vcpus[1].irq_posted, 5);
	CHECK_INT(s.vcpus[2].nr_irqs, 0);
	CHECK_INT(s.vcpus[3].vm_id, 2);
	CHECK_INT(s.vcpus[3].nr_irqs, 1);
	CHECK_U64(s.vcpus[3].irq_unmatched, 40);
	CHECK_INT(s.vcpus[4].nr_irqs, 0);
	CHECK_U64(s.vcpus[4].irq_unmatched, 3);
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
	put_vcpu(2, 3, rows0, 0, sizeof(rows0[0]) + 4, 0, 0, 0, false);
	check_refused("the module's reply is malformed: HVTRACE_VCPU_IRQS "
		      "has 36 bytes");
}

/*
 * Flags this hvctl does not know (a newer module's sources) are no
 * reason to refuse the reply: the row shows the sources it knows, and
 * "unknown" when it knows none; JSON lists the known ones only.
 */
static const struct hvtrace_vcpu_irq newer[] = {
	{ .vector = 0x22, .flags = HVTRACE_VCPU_IRQ_LOCAL | 0x40,
	  .count = 1, .total_ns = 3000, .max_ns = 3000 },
	{ .vector = 0x23, .flags = 0x20 | 0x80,
	  .count = 2, .total_ns = 8000, .max_ns = 6000 },
};

static void put_newer(void)
{
	put_start();
	put_vcpu(3, 0, newer, ARRAY_SIZE(newer), 0, 0, 0, 0, false);
}

static void test_unknown_flags(void)
{
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;
	char *out;

	put_newer();
	get_stats(&s);
	CHECK_INT(s.nr_vcpus, 1);
	CHECK_INT(s.vcpus[0].nr_irqs, 2);
	r = s.vcpus[0].irqs;
	CHECK(r[0].local && !r[0].ipi && !r[0].device && !r[0].other &&
	      !r[0].timer && r[0].unknown);
	CHECK_INT(r[1].vector, 0x23);
	CHECK(!r[1].local && !r[1].ipi && !r[1].device && !r[1].other &&
	      !r[1].timer && r[1].unknown);
	hvc_stats_free(&s);

	put_newer();
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "     count       avg       max\n"
		  "vm 3 vcpu 0              34 (0x22)  local                1"
		  "     3.0us     3.0us\n"
		  "vm 3 vcpu 0              35 (0x23)  unknown              2"
		  "     4.0us     6.0us\n"
		  "\ntop preemptors");
	free(out);

	put_newer();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"irqs\":["
		  "{\"vector\":34,\"sources\":[\"local\"],\"count\":1,"
		  "\"total_ns\":3000,\"avg_ns\":3000,\"max_ns\":3000," NO_SPLIT "},"
		  "{\"vector\":35,\"sources\":[],\"count\":2,"
		  "\"total_ns\":8000,\"avg_ns\":4000,\"max_ns\":6000," NO_SPLIT "}],"
		  "\"irq_unmatched\":0,");
	free(out);
}

/*
 * Raised by no vCPU of the VM (a module that probes every raiser): the
 * source "device", after local and ipi, joined with '+'. VM 1 vCPU 0:
 * an irqfd's vector, the LAPIC timer's also raised by the VMM, an IPI's
 * also raised by an irqfd, and the other row raised by all three. VM 1
 * vCPU 1: the VMM's, with a newer module's flag.
 */
static const struct hvtrace_vcpu_irq dev0[] = {
	{ .flags = HVTRACE_VCPU_IRQ_OTHER | HVTRACE_VCPU_IRQ_LOCAL |
		   HVTRACE_VCPU_IRQ_IPI | HVTRACE_VCPU_IRQ_DEVICE,
	  .count = 4, .total_ns = 4000, .max_ns = 2000 },
	{ .vector = 0xfb, .flags = HVTRACE_VCPU_IRQ_IPI |
				   HVTRACE_VCPU_IRQ_DEVICE,
	  .count = 3, .total_ns = 30000, .max_ns = 20000 },
	{ .vector = 0x22, .flags = HVTRACE_VCPU_IRQ_DEVICE,
	  .count = 30, .total_ns = 240000, .max_ns = 40000 },
	{ .vector = 0xec, .flags = HVTRACE_VCPU_IRQ_LOCAL |
				   HVTRACE_VCPU_IRQ_DEVICE,
	  .count = 12, .total_ns = 24000, .max_ns = 5000 },
};

static const struct hvtrace_vcpu_irq dev1[] = {
	{ .vector = 0x23, .flags = HVTRACE_VCPU_IRQ_DEVICE | 0x20,
	  .count = 2, .total_ns = 8000, .max_ns = 6000 },
};

static void test_device(void)
{
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;
	char *out;

	put_start();
	put_vcpu(1, 0, dev0, ARRAY_SIZE(dev0), 0, 0, 0, 0, false);
	put_vcpu(1, 1, dev1, ARRAY_SIZE(dev1), 0, 0, 0, 0, false);
	get_stats(&s);
	CHECK_INT(s.vcpus[0].nr_irqs, 4);
	r = s.vcpus[0].irqs;
	CHECK_INT(r[0].vector, 0x22);
	CHECK(!r[0].local && !r[0].ipi && r[0].device && !r[0].unknown &&
	      !r[0].timer);
	CHECK(r[1].local && !r[1].ipi && r[1].device);
	CHECK(!r[2].local && r[2].ipi && r[2].device);
	CHECK(r[3].local && r[3].ipi && r[3].device && r[3].other);
	CHECK_INT(s.vcpus[1].nr_irqs, 1);
	r = s.vcpus[1].irqs;
	CHECK(!r[0].local && !r[0].ipi && r[0].device && r[0].unknown &&
	      !r[0].timer);
	hvc_stats_free(&s);

	/* The column widens for the whole table: "local+ipi+device". */
	put_start();
	put_vcpu(1, 0, dev0, ARRAY_SIZE(dev0), 0, 0, 0, 0, false);
	put_vcpu(1, 1, dev1, ARRAY_SIZE(dev1), 0, 0, 0, 0, false);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "            count       avg       max\n"
		  "vm 1 vcpu 0              34 (0x22)  device             "
		  "        30     8.0us    40.0us\n"
		  "vm 1 vcpu 0              236 (0xec) local+device       "
		  "        12     2.0us     5.0us\n"
		  "vm 1 vcpu 0              251 (0xfb) ipi+device         "
		  "         3    10.0us    20.0us\n"
		  "vm 1 vcpu 0              other      local+ipi+device   "
		  "         4     1.0us     2.0us\n"
		  "vm 1 vcpu 1              35 (0x23)  device             "
		  "         2     4.0us     6.0us\n"
		  "\ntop preemptors");
	free(out);

	put_start();
	put_vcpu(1, 0, dev0, ARRAY_SIZE(dev0), 0, 0, 0, 0, false);
	put_vcpu(1, 1, dev1, ARRAY_SIZE(dev1), 0, 0, 0, 0, false);
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"irqs\":["
		  "{\"vector\":34,\"sources\":[\"device\"],\"count\":30,"
		  "\"total_ns\":240000,\"avg_ns\":8000,\"max_ns\":40000," NO_SPLIT "},"
		  "{\"vector\":236,\"sources\":[\"local\",\"device\"],"
		  "\"count\":12,\"total_ns\":24000,\"avg_ns\":2000,"
		  "\"max_ns\":5000," NO_SPLIT "},"
		  "{\"vector\":251,\"sources\":[\"ipi\",\"device\"],"
		  "\"count\":3,\"total_ns\":30000,\"avg_ns\":10000,"
		  "\"max_ns\":20000," NO_SPLIT "},"
		  "{\"vector\":null,"
		  "\"sources\":[\"local\",\"ipi\",\"device\"],"
		  "\"count\":4,\"total_ns\":4000,\"avg_ns\":1000,"
		  "\"max_ns\":2000," NO_SPLIT "}],\"irq_unmatched\":0,");
	CHECK_HAS(out, "\"irqs\":[{\"vector\":35,"
		  "\"sources\":[\"device\"],\"count\":2,"
		  "\"total_ns\":8000,\"avg_ns\":4000,\"max_ns\":6000," NO_SPLIT "}],"
		  "\"irq_unmatched\":0,");
	free(out);

	/* Sources as narrow as "local+ipi" keep its width. */
	put_start();
	put_vcpu(1, 0, dev1, ARRAY_SIZE(dev1), 0, 0, 0, 0, false);
	put_vcpu(1, 1, rows0, ARRAY_SIZE(rows0), 0, 0, 0, 0, false);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "     count       avg       max\n"
		  "vm 1 vcpu 0              35 (0x23)  device               2"
		  "     4.0us     6.0us\n"
		  "vm 1 vcpu 1              236 (0xec) local               12"
		  "     2.0us     5.0us\n"
		  "vm 1 vcpu 1              251 (0xfb) ipi                  3"
		  "    10.0us    20.0us\n"
		  "vm 1 vcpu 1              other      local+ipi            4"
		  "     1.0us     2.0us\n"
		  "\ntop preemptors");
	free(out);
}

/*
 * The vCPU's LAPIC timer timed from its expiry (a module that probes
 * apic_timer_fn): the source "timer", first, joined with '+'. VM 1 vCPU
 * 0, in the module's order: the other row raised by all four, an IPI's
 * vector also the timer's, the timer's alone, an irqfd's also the
 * timer's, and a vector of the timer's and of the vCPU's own LVTs. VM 1
 * vCPU 1: a newer module's flags, with the timer's and alone.
 */
static const struct hvtrace_vcpu_irq tim0[] = {
	{ .flags = HVTRACE_VCPU_IRQ_OTHER | HVTRACE_VCPU_IRQ_TIMER |
		   HVTRACE_VCPU_IRQ_LOCAL | HVTRACE_VCPU_IRQ_IPI |
		   HVTRACE_VCPU_IRQ_DEVICE,
	  .count = 4, .total_ns = 4000, .max_ns = 2000 },
	{ .vector = 0xfb, .flags = HVTRACE_VCPU_IRQ_TIMER |
				   HVTRACE_VCPU_IRQ_IPI,
	  .count = 3, .total_ns = 30000, .max_ns = 20000 },
	{ .vector = 0xec, .flags = HVTRACE_VCPU_IRQ_TIMER,
	  .count = 12, .total_ns = 24000, .max_ns = 5000 },
	{ .vector = 0x22, .flags = HVTRACE_VCPU_IRQ_TIMER |
				   HVTRACE_VCPU_IRQ_DEVICE,
	  .count = 30, .total_ns = 240000, .max_ns = 40000 },
	{ .vector = 0xef, .flags = HVTRACE_VCPU_IRQ_TIMER |
				   HVTRACE_VCPU_IRQ_LOCAL,
	  .count = 6, .total_ns = 18000, .max_ns = 9000 },
};

static const struct hvtrace_vcpu_irq tim1[] = {
	{ .vector = 0x24, .flags = 0x40,
	  .count = 1, .total_ns = 1000, .max_ns = 1000 },
	{ .vector = 0x23, .flags = HVTRACE_VCPU_IRQ_TIMER | 0x20,
	  .count = 2, .total_ns = 8000, .max_ns = 6000 },
};

/* The timer's vector, an IPI's and the other row (local+ipi). */
static const struct hvtrace_vcpu_irq tim2[] = {
	{ .vector = 0xec, .flags = HVTRACE_VCPU_IRQ_TIMER,
	  .count = 12, .total_ns = 24000, .max_ns = 5000 },
	{ .vector = 0xfb, .flags = HVTRACE_VCPU_IRQ_IPI,
	  .count = 3, .total_ns = 30000, .max_ns = 20000 },
	{ .flags = HVTRACE_VCPU_IRQ_OTHER | HVTRACE_VCPU_IRQ_LOCAL |
		   HVTRACE_VCPU_IRQ_IPI,
	  .count = 4, .total_ns = 4000, .max_ns = 2000 },
};

static void put_timer(void)
{
	put_start();
	put_vcpu(1, 0, tim0, ARRAY_SIZE(tim0), 0, 0, 0, 0, false);
	put_vcpu(1, 1, tim1, ARRAY_SIZE(tim1), 0, 0, 0, 0, false);
}

static void test_timer(void)
{
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;
	char *out;

	put_timer();
	get_stats(&s);
	CHECK_INT(s.vcpus[0].nr_irqs, 5);
	r = s.vcpus[0].irqs;
	CHECK_INT(r[0].vector, 0x22);
	CHECK(r[0].timer && !r[0].local && !r[0].ipi && r[0].device &&
	      !r[0].unknown);
	CHECK_INT(r[1].vector, 0xec);
	CHECK(r[1].timer && !r[1].local && !r[1].ipi && !r[1].device &&
	      !r[1].other && !r[1].unknown);
	CHECK_INT(r[2].vector, 0xef);
	CHECK(r[2].timer && r[2].local && !r[2].ipi && !r[2].device);
	CHECK_INT(r[3].vector, 0xfb);
	CHECK(r[3].timer && !r[3].local && r[3].ipi && !r[3].device);
	CHECK(r[4].other && r[4].timer && r[4].local && r[4].ipi &&
	      r[4].device && !r[4].unknown);
	CHECK_INT(s.vcpus[1].nr_irqs, 2);
	r = s.vcpus[1].irqs;
	CHECK_INT(r[0].vector, 0x23);
	CHECK(r[0].timer && !r[0].local && r[0].unknown);
	CHECK_INT(r[1].vector, 0x24);
	CHECK(!r[1].timer && !r[1].local && !r[1].ipi && !r[1].device &&
	      r[1].unknown);
	hvc_stats_free(&s);

	/* The column widens for the whole table: "timer+local+ipi+device". */
	put_timer();
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "                  count       avg       max\n"
		  "vm 1 vcpu 0              34 (0x22)  timer+device       "
		  "              30     8.0us    40.0us\n"
		  "vm 1 vcpu 0              236 (0xec) timer              "
		  "              12     2.0us     5.0us\n"
		  "vm 1 vcpu 0              239 (0xef) timer+local        "
		  "               6     3.0us     9.0us\n"
		  "vm 1 vcpu 0              251 (0xfb) timer+ipi          "
		  "               3    10.0us    20.0us\n"
		  "vm 1 vcpu 0              other      timer+local+ipi+device "
		  "           4     1.0us     2.0us\n"
		  "vm 1 vcpu 1              35 (0x23)  timer              "
		  "               2     4.0us     6.0us\n"
		  "vm 1 vcpu 1              36 (0x24)  unknown            "
		  "               1     1.0us     1.0us\n"
		  "\ntop preemptors");
	free(out);

	put_timer();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"irqs\":["
		  "{\"vector\":34,\"sources\":[\"timer\",\"device\"],"
		  "\"count\":30,\"total_ns\":240000,\"avg_ns\":8000,"
		  "\"max_ns\":40000," NO_SPLIT "},"
		  "{\"vector\":236,\"sources\":[\"timer\"],\"count\":12,"
		  "\"total_ns\":24000,\"avg_ns\":2000,\"max_ns\":5000," NO_SPLIT "},"
		  "{\"vector\":239,\"sources\":[\"timer\",\"local\"],"
		  "\"count\":6,\"total_ns\":18000,\"avg_ns\":3000,"
		  "\"max_ns\":9000," NO_SPLIT "},"
		  "{\"vector\":251,\"sources\":[\"timer\",\"ipi\"],"
		  "\"count\":3,\"total_ns\":30000,\"avg_ns\":10000,"
		  "\"max_ns\":20000," NO_SPLIT "},"
		  "{\"vector\":null,\"sources\":[\"timer\",\"local\","
		  "\"ipi\",\"device\"],\"count\":4,\"total_ns\":4000,"
		  "\"avg_ns\":1000,\"max_ns\":2000," NO_SPLIT "}],\"irq_unmatched\":0,");
	CHECK_HAS(out, "\"irqs\":["
		  "{\"vector\":35,\"sources\":[\"timer\"],\"count\":2,"
		  "\"total_ns\":8000,\"avg_ns\":4000,\"max_ns\":6000," NO_SPLIT "},"
		  "{\"vector\":36,\"sources\":[],\"count\":1,"
		  "\"total_ns\":1000,\"avg_ns\":1000,\"max_ns\":1000," NO_SPLIT "}],"
		  "\"irq_unmatched\":0,");
	free(out);

	/* "timer" alone is narrower than "local+ipi": its width kept. */
	put_start();
	put_vcpu(1, 0, tim2, ARRAY_SIZE(tim2), 0, 0, 0, 0, false);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "     count       avg       max\n"
		  "vm 1 vcpu 0              236 (0xec) timer               12"
		  "     2.0us     5.0us\n"
		  "vm 1 vcpu 0              251 (0xfb) ipi                  3"
		  "    10.0us    20.0us\n"
		  "vm 1 vcpu 0              other      local+ipi            4"
		  "     1.0us     2.0us\n"
		  "\ntop preemptors");
	free(out);
}

/*
 * One table for all vCPUs, after the vCPUs' tables and before the
 * preemptors: a line per timed row, named as the time split names the
 * vCPU; no line for a vCPU without one; then one line of what was not
 * timed, totalled, and on how many vCPUs.
 */
static void test_text(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "       0ns   0.0%\n"
		  "\ninterrupt delivery       vector     source           count"
		  "       avg       max\n"
		  "vm 1 vcpu 0              236 (0xec) local               12"
		  "     2.0us     5.0us\n"
		  "vm 1 vcpu 0              251 (0xfb) ipi                  3"
		  "    10.0us    20.0us\n"
		  "vm 1 vcpu 0              other      local+ipi            4"
		  "     1.0us     2.0us\n"
		  "vm 2 vcpu 0              236 (0xec) local              100"
		  "     1.5us     9.0us\n"
		  "not timed: unmatched 50, reinjected 2, posted 5"
		  " (on 4 vCPUs)\n"
		  "\ntop preemptors");
	CHECK_INT(fake_count(out, "interrupt delivery"), 1);
	CHECK_INT(fake_count(out, "not timed"), 1);
	/* The time split names the vCPUs the same way. */
	CHECK_HAS(out, "\nvm 1 vcpu 1 (gone)       ");
	CHECK_HAS(out, "\nvm 2 vcpu 1              ");
	free(out);

	/* Without --vcpus: no vCPU, no interrupts. */
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", NULL);
	CHECK_HASNT(out, "interrupt delivery");
	free(out);
}

/* A gone vCPU's rows, and a vCPU with what was not timed only. */
static void test_text_gone(void)
{
	char *out;

	put_start();
	put_vcpu(1, 0, NULL, 0, 0, 0, 0, 0, false);
	put_vcpu(1, 7, rows2, ARRAY_SIZE(rows2), 0, 0, 0, 0, true);
	put_vcpu(1, 1, NULL, 0, 0, 0, 0, 9, false);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "     count       avg       max\n"
		  "vm 1 vcpu 7 (gone)       236 (0xec) local              100"
		  "     1.5us     9.0us\n"
		  "not timed: posted 9 (on 1 vCPU)\n"
		  "\ntop preemptors");
	free(out);
}

/* Timed rows only: no line of what was not timed. */
static void test_text_all_timed(void)
{
	char *out;

	put_start();
	put_vcpu(1, 0, rows2, ARRAY_SIZE(rows2), 0, 0, 0, 0, false);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "     1.5us     9.0us\n\ntop preemptors");
	CHECK_HASNT(out, "not timed");
	free(out);
}

/* No vCPU with interrupt data: no table at all. */
static void test_text_none(void)
{
	char *out;

	put_start();
	put_vcpu(1, 0, NULL, 0, 0, 0, 0, 0, false);
	put_vcpu(2, 0, NULL, 0, 0, 0, 0, 0, true);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "vcpu time split");
	CHECK_HASNT(out, "interrupt delivery");
	CHECK_HASNT(out, "not timed");
	free(out);
}

static void test_json(void)
{
	char *out;

	put_stats();
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"gone\":false,\"irqs\":["
		  "{\"vector\":236,\"sources\":[\"local\"],\"count\":12,"
		  "\"total_ns\":24000,\"avg_ns\":2000,\"max_ns\":5000," NO_SPLIT "},"
		  "{\"vector\":251,\"sources\":[\"ipi\"],\"count\":3,"
		  "\"total_ns\":30000,\"avg_ns\":10000,\"max_ns\":20000," NO_SPLIT "},"
		  "{\"vector\":null,\"sources\":[\"local\",\"ipi\"],"
		  "\"count\":4,\"total_ns\":4000,\"avg_ns\":1000,"
		  "\"max_ns\":2000," NO_SPLIT "}],"
		  "\"irq_unmatched\":7,\"irq_reinjected\":0,\"irq_posted\":0}");
	CHECK_HAS(out, "\"gone\":true,\"irqs\":[],\"irq_unmatched\":0,"
		  "\"irq_reinjected\":2,\"irq_posted\":5}");
	CHECK_HAS(out, "\"vcpu\":2,\"tid\":4245,");
	CHECK_HAS(out, "\"gone\":false,\"irqs\":[],\"irq_unmatched\":0,"
		  "\"irq_reinjected\":0,\"irq_posted\":0},{\"vm_id\":2,");
	CHECK_HAS(out, "\"gone\":false,\"irqs\":[{\"vector\":236,"
		  "\"sources\":[\"local\"],\"count\":100,"
		  "\"total_ns\":150000,\"avg_ns\":1500,\"max_ns\":9000," NO_SPLIT "}],"
		  "\"irq_unmatched\":40,");
	CHECK_HAS(out, "\"gone\":false,\"irqs\":[],\"irq_unmatched\":3,"
		  "\"irq_reinjected\":0,\"irq_posted\":0}],\"preemptors\":[]}");
	free(out);
}

/*
 * Where each row's time went: the timer's vector waited in the guest,
 * runnable (a hog ran: its longest wait named) and in handling; the
 * IPI's in the guest, halted and in handling, no preemptor. The split
 * follows the module's row order, not the sorted one.
 */
static const struct hvtrace_vcpu_irq split_rows[] = {
	{ .vector = 0xef, .flags = HVTRACE_VCPU_IRQ_TIMER,
	  .count = 2, .total_ns = 300000000, .max_ns = 250000000 },
	{ .vector = 0xec, .flags = HVTRACE_VCPU_IRQ_IPI,
	  .count = 1, .total_ns = 10000, .max_ns = 10000 },
};

static const struct hvtrace_vcpu_irq_split splits[] = {
	{ .guest_ns = 1000000,
	  .part_ns = { [HVTRACE_PART_RUNNABLE] = 280000000 },
	  .pre_ns = 200000000, .pre_pid = 777, .pre_comm = "hvhog" },
	{ .guest_ns = 4000, .part_ns = { [HVTRACE_PART_HALT] = 5000 } },
};

static void put_split_stats(size_t len)
{
	put_start();
	put_split = splits;
	put_split_len = len;
	put_vcpu(1, 0, split_rows, ARRAY_SIZE(split_rows), 0, 0, 0, 0,
		 false);
}

static void test_split(void)
{
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;
	char *out;

	put_split_stats(sizeof(splits));
	get_stats(&s);
	CHECK_INT(s.vcpus[0].nr_irqs, 2);
	r = s.vcpus[0].irqs;
	CHECK_INT(r[0].vector, 0xec);
	CHECK(r[0].has_split && r[1].has_split);
	CHECK_U64(r[0].guest_ns, 4000);
	CHECK_U64(r[0].part_ns[HVTRACE_PART_HALT], 5000);
	CHECK_U64(r[0].pre_pid, 0);
	CHECK_STR(r[0].pre_comm, "");
	CHECK_INT(r[1].vector, 0xef);
	CHECK_U64(r[1].guest_ns, 1000000);
	CHECK_U64(r[1].part_ns[HVTRACE_PART_RUNNABLE], 280000000);
	CHECK_U64(r[1].pre_ns, 200000000);
	CHECK_U64(r[1].pre_pid, 777);
	CHECK_STR(r[1].pre_comm, "hvhog");
	CHECK(!r[1].pre_vcpu);
	hvc_stats_free(&s);

	put_split_stats(sizeof(splits));
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt wait split             guest         "
		  "handling              vmm             halt         runnable"
		  "            other  longest runnable wait\n"
		  "vm 1 vcpu 0 0xec          4.0us  40.0%     1.0us  10.0%"
		  "       0ns   0.0%     5.0us  50.0%       0ns   0.0%"
		  "       0ns   0.0%\n"
		  "vm 1 vcpu 0 0xef         1.00ms   0.3%   19.00ms   6.3%"
		  "       0ns   0.0%       0ns   0.0%  280.00ms  93.3%"
		  "       0ns   0.0%  200.00ms hvhog (777)\n"
		  "\ntop preemptors");
	free(out);

	put_split_stats(sizeof(splits));
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"irqs\":[{\"vector\":236,\"sources\":[\"ipi\"],"
		  "\"count\":1,\"total_ns\":10000,\"avg_ns\":10000,"
		  "\"max_ns\":10000,\"guest_ns\":4000,\"handling_ns\":1000,"
		  "\"vmm_ns\":0,\"halt_ns\":5000,\"runnable_ns\":0,"
		  "\"other_ns\":0,\"preemptor\":null},"
		  "{\"vector\":239,\"sources\":[\"timer\"],\"count\":2,"
		  "\"total_ns\":300000000,\"avg_ns\":150000000,"
		  "\"max_ns\":250000000,\"guest_ns\":1000000,"
		  "\"handling_ns\":19000000,\"vmm_ns\":0,\"halt_ns\":0,"
		  "\"runnable_ns\":280000000,\"other_ns\":0,"
		  "\"preemptor\":{\"pid\":777,\"comm\":\"hvhog\","
		  "\"vcpu\":false,\"ns\":200000000}}]");
	free(out);

	/*
	 * One split short of the rows: no row's split can be trusted, and
	 * the rest of the reply is read as ever.
	 */
	put_split_stats(sizeof(splits[0]));
	get_stats(&s);
	CHECK_INT(s.vcpus[0].nr_irqs, 2);
	CHECK(!s.vcpus[0].irqs[0].has_split && !s.vcpus[0].irqs[1].has_split);
	CHECK_U64(s.vcpus[0].irqs[1].total_ns, 300000000);
	hvc_stats_free(&s);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HASNT(out, "interrupt wait split");
	free(out);

	/* A newer module's longer entries: what this hvctl knows of each. */
	{
		unsigned char longer[2][sizeof(splits[0]) + 8] = { 0 };

		memcpy(longer[0], &splits[0], sizeof(splits[0]));
		memcpy(longer[1], &splits[1], sizeof(splits[1]));
		put_start();
		put_split = (const void *)longer;
		put_split_len = sizeof(longer);
		put_vcpu(1, 0, split_rows, ARRAY_SIZE(split_rows), 0, 0, 0, 0,
			 false);
		get_stats(&s);
		r = s.vcpus[0].irqs;
		CHECK(r[0].has_split && r[1].has_split);
		CHECK_U64(r[0].part_ns[HVTRACE_PART_HALT], 5000);
		CHECK_U64(r[1].pre_pid, 777);
		CHECK_STR(r[1].pre_comm, "hvhog");
		hvc_stats_free(&s);
	}
}

/* In split_rows' order: the timer's, then the IPI's. */
static const struct hvtrace_vcpu_irq_pct pcts[] = {
	{ .p50_ns = 46137343, .p99_ns = 250000000, .p999_ns = 250000000 },
	{ .p50_ns = 9215, .p99_ns = 10000, .p999_ns = 10000 },
};

/* Rows of split_rows, with PCT of LEN bytes. */
static void put_pct_stats(const void *pct, size_t len)
{
	put_start();
	put_pct = pct;
	put_pct_len = len;
	put_vcpu(1, 0, split_rows, ARRAY_SIZE(split_rows), 0, 0, 0, 0,
		 false);
}

/*
 * Percentiles: read by row, shown beside avg and max (text and JSON);
 * none from an older module (no columns of "-"), one short of the rows
 * (none trusted), a newer module's longer entries (what hvctl knows).
 */
static void test_pct(void)
{
	unsigned char longer[2][sizeof(pcts[0]) + 8] = { 0 };
	struct hvc_stats s = { 0 };
	const struct hvc_vcpu_irq *r;
	char *out;

	put_pct_stats(pcts, sizeof(pcts));
	get_stats(&s);
	r = s.vcpus[0].irqs;
	CHECK_INT(r[0].vector, 0xec);
	CHECK(r[0].has_pct && r[1].has_pct);
	CHECK_U64(r[0].p50_ns, 9215);
	CHECK_U64(r[0].p999_ns, 10000);
	CHECK_U64(r[1].p50_ns, 46137343);
	CHECK_U64(r[1].p99_ns, 250000000);
	hvc_stats_free(&s);

	put_pct_stats(pcts, sizeof(pcts));
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\ninterrupt delivery       vector     source      "
		  "     count       avg       p50       p99     p99.9       max\n"
		  "vm 1 vcpu 0              236 (0xec) ipi                  1"
		  "    10.0us     9.2us    10.0us    10.0us    10.0us\n"
		  "vm 1 vcpu 0              239 (0xef) timer                2"
		  "  150.00ms   46.14ms  250.00ms  250.00ms  250.00ms\n");
	free(out);

	put_pct_stats(pcts, sizeof(pcts));
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"count\":1,\"total_ns\":10000,\"avg_ns\":10000,"
		  "\"p50_ns\":9215,\"p99_ns\":10000,\"p999_ns\":10000,"
		  "\"max_ns\":10000,");
	CHECK_HAS(out, "\"avg_ns\":150000000,\"p50_ns\":46137343,"
		  "\"p99_ns\":250000000,\"p999_ns\":250000000,"
		  "\"max_ns\":250000000,");
	free(out);

	/* No percentiles: the older table, and no JSON members. */
	put_pct_stats(NULL, 0);
	out = FAKE_OUTPUT(false, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "     count       avg       max\n");
	CHECK_HASNT(out, "avg       p50");
	free(out);
	put_pct_stats(NULL, 0);
	out = FAKE_OUTPUT(true, hvctl_cmd_stat, "stat", "--vcpus", NULL);
	CHECK_HAS(out, "\"avg_ns\":10000,\"max_ns\":10000,");
	free(out);

	/* One short of the rows: none trusted, the rest read. */
	put_pct_stats(pcts, sizeof(pcts[0]));
	get_stats(&s);
	CHECK_INT(s.vcpus[0].nr_irqs, 2);
	CHECK(!s.vcpus[0].irqs[0].has_pct && !s.vcpus[0].irqs[1].has_pct);
	CHECK_U64(s.vcpus[0].irqs[1].max_ns, 250000000);
	hvc_stats_free(&s);

	/* A newer module's longer entries. */
	memcpy(longer[0], &pcts[0], sizeof(pcts[0]));
	memcpy(longer[1], &pcts[1], sizeof(pcts[1]));
	put_pct_stats(longer, sizeof(longer));
	get_stats(&s);
	r = s.vcpus[0].irqs;
	CHECK(r[0].has_pct && r[1].has_pct);
	CHECK_U64(r[0].p50_ns, 9215);
	CHECK_U64(r[1].p999_ns, 250000000);
	hvc_stats_free(&s);
}

int main(void)
{
	test_parse();
	test_split();
	test_pct();
	test_bad_length();
	test_unknown_flags();
	test_device();
	test_timer();
	test_text();
	test_text_gone();
	test_text_all_timed();
	test_text_none();
	test_json();
	return unit_report();
}
