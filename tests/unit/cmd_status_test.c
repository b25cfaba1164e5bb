// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl status (ABI 3): the totals from the GET_STATUS reply, one row per
 * CPU from its dump, and the vCPU, VM and memory figures; text and JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../user/hvctl/apicv.h"
#include "fake_nl.h"

/*
 * Exits 100 + base.., preemption records 10 + base.., no_entry base + 1,
 * guest marks 50 + base.., late interrupt records 70 + base..
 */
static void put_counts(struct nlmsghdr *nlh, uint64_t base)
{
	for (uint16_t a = HVTRACE_ACCT_SEEN; a <= HVTRACE_ACCT_UNPAIRED; a++)
		mnl_attr_put_u64(nlh, a, 100 + base + a);
	for (uint16_t a = HVTRACE_ACCT_PREEMPT_SEEN;
	     a <= HVTRACE_ACCT_PREEMPT_LOST; a++)
		mnl_attr_put_u64(nlh, a, 10 + base + a);
	mnl_attr_put_u64(nlh, HVTRACE_ACCT_NO_ENTRY, base + 1);
	for (uint16_t a = HVTRACE_ACCT_MARK_FILTERED;
	     a <= HVTRACE_ACCT_MARK_LIMITED; a++)
		mnl_attr_put_u64(nlh, a, 50 + base + a - HVTRACE_ACCT_MARK_FILTERED);
	for (uint16_t a = HVTRACE_ACCT_IRQ_SEEN; a <= HVTRACE_ACCT_IRQ_LOST;
	     a++)
		mnl_attr_put_u64(nlh, a, 70 + base + a - HVTRACE_ACCT_IRQ_SEEN);
}

/* The clock the fake module says it reads; NULL: one that does not say. */
static const char *fake_clock = "tsc";
/* KVM's interrupt tracepoints it probes; -1: a module that does not say. */
static int fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE |
	HVTRACE_IRQ_PROBE_INJECT | HVTRACE_IRQ_PROBE_POSTED;

static void put_status(uint64_t refused, uint8_t reclaim)
{
	struct nlmsghdr *nlh;
	struct nlattr *acct;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_strz(nlh, HVTRACE_A_VERSION, "0.1.0");
	mnl_attr_put_u32(nlh, HVTRACE_A_ABI, 3);
	mnl_attr_put_u32(nlh, HVTRACE_A_NR_CPUS, 4);
	mnl_attr_put_u32(nlh, HVTRACE_A_CPUS_TRACED, 2);
	mnl_attr_put_strz(nlh, HVTRACE_A_VENDOR, "kvm_amd");
	mnl_attr_put_u64(nlh, HVTRACE_A_EXITS_SEEN, 5000);
	mnl_attr_put_u64(nlh, HVTRACE_A_ENTRIES_SEEN, 4990);
	mnl_attr_put_u64(nlh, HVTRACE_A_EXITS_UNTRACED, 7);
	mnl_attr_put_u32(nlh, HVTRACE_A_VCPUS_LIVE, 3);
	mnl_attr_put_u32(nlh, HVTRACE_A_VCPUS_MAX, 1024);
	mnl_attr_put_u32(nlh, HVTRACE_A_VMS_LIVE, 2);
	mnl_attr_put_u64(nlh, HVTRACE_A_VCPUS_CREATED, 10);
	mnl_attr_put_u64(nlh, HVTRACE_A_VCPUS_RECLAIMED, 7);
	mnl_attr_put_u64(nlh, HVTRACE_A_VCPUS_REFUSED, refused);
	mnl_attr_put_u8(nlh, HVTRACE_A_RECLAIM, reclaim);
	mnl_attr_put_u64(nlh, HVTRACE_A_MEM_BYTES, 12 << 20);
	mnl_attr_put_u64(nlh, HVTRACE_A_MEM_CPU_BYTES, 2621440 + 49152);
	mnl_attr_put_u64(nlh, HVTRACE_A_MEM_VCPU_BYTES, 1536);
	if (fake_clock) {
		mnl_attr_put_strz(nlh, HVTRACE_A_CLOCK, fake_clock);
		mnl_attr_put_u32(nlh, HVTRACE_A_CLOCK_SKEW_NS, 17);
	}
	if (fake_irq_probes >= 0)
		mnl_attr_put_u8(nlh, HVTRACE_A_IRQ_PROBES, fake_irq_probes);
	acct = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
	put_counts(nlh, 1000);
	mnl_attr_nest_end(nlh, acct);

	/* The dump: one message per traced CPU (0 and 2 of 4). */
	for (uint32_t i = 0; i < 2; i++) {
		nlh = fake_dump(HVTRACE_CMD_GET_STATUS);
		acct = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
		mnl_attr_put_u32(nlh, HVTRACE_ACCT_CPU, 2 * i);
		put_counts(nlh, i * 100);
		mnl_attr_nest_end(nlh, acct);
	}
}

static void test_json(void)
{
	char *out;

	put_status(0, 1);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATUS][0], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATUS][1], 1);
	CHECK_HAS(out, "{\"version\":\"0.1.0\",\"abi\":3,\"recording\":\"off\","
		  "\"vendor\":\"kvm_amd\",\"clock\":\"tsc\",\"clock_skew_ns\":17,"
		  "\"nr_cpus\":4,\"cpus_traced\":2,"
		  "\"reader\":\"none\",\"exits_seen\":5000,"
		  "\"entries_seen\":4990,\"exits_untraced\":7,"
		  "\"vcpus_live\":3,\"vcpus_max\":1024,\"vcpus_created\":10,"
		  "\"vcpus_reclaimed\":7,\"vms_live\":2,\"vcpus_refused\":0,"
		  "\"reclaim\":true,\"irq_timed\":true,"
		  "\"irq_every_source\":false,\"irq_timer_expiry\":false,\"vmx_preemption_timer\":null,"
		  "\"irq_posted_counted\":true,\"apicv\":\"kvm_amd avic=0\","
		  "\"mem_bytes\":12582912,"
		  "\"mem_cpu_bytes\":2670592,\"mem_vcpu_bytes\":1536,");
	CHECK_HAS(out, "\"accounting\":{\"cpus\":[{\"cpu\":0,\"seen\":104,"
		  "\"filtered\":105,\"below_threshold\":106,\"recorded\":107,"
		  "\"lost\":108,\"overwritten\":109,\"drained\":110,"
		  "\"unpaired\":111,\"no_entry\":1,\"preempt_seen\":22,"
		  "\"preempt_filtered\":23,\"preempt_below_threshold\":24,"
		  "\"preempt_recorded\":25,\"preempt_lost\":26,"
		  "\"mark_seen\":53,\"mark_filtered\":50,\"mark_limited\":54,"
		  "\"mark_recorded\":51,\"mark_lost\":52,"
		  "\"irq_seen\":70,\"irq_filtered\":71,"
		  "\"irq_below_threshold\":72,\"irq_recorded\":73,"
		  "\"irq_lost\":74},"
		  "{\"cpu\":2,\"seen\":204,");
	CHECK_HAS(out, "\"no_entry\":101,\"preempt_seen\":122,");
	CHECK_HAS(out, "],\"total\":{\"seen\":1104,");
	CHECK_HAS(out, "\"unpaired\":1111,\"no_entry\":1001,");
	CHECK_HAS(out, "\"preempt_lost\":1026,\"mark_seen\":1053,"
		  "\"mark_filtered\":1050,\"mark_limited\":1054,"
		  "\"mark_recorded\":1051,\"mark_lost\":1052,"
		  "\"irq_seen\":1070,\"irq_filtered\":1071,"
		  "\"irq_below_threshold\":1072,\"irq_recorded\":1073,"
		  "\"irq_lost\":1074}}}\n");
	/* ABI 3 has no per-CPU nests in the reply: the rows are the dump's. */
	CHECK_HASNT(out, "{\"cpu\":1,");
	free(out);
}

static void test_text(void)
{
	char *out;

	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "hvtrace 0.1.0 (netlink ABI 3)\n"
		  "  recording:     off\n"
		  "  exit reasons:  kvm_amd\n"
		  "  clock:         tsc (local_clock()'s time, to 17 ns)\n"
		  "  cpus:          4 (2 traced)\n"
		  "  reader:        none\n"
		  "  exits seen:    5000\n"
		  "  entries seen:  4990\n"
		  "  untraced:      7 exits (on CPUs without hvtrace state)\n"
		  "  vcpus:         3 live (max 1024); since load 10 created, "
		  "7 reclaimed\n"
		  "  vms:           2 live\n"
		  "  reclaim:       yes (vCPU and VM destruction is followed)\n"
		  "  interrupts:    delivery timed (raise to injection)\n"
		  "                 raises by vCPUs only (VMM, irqfd, PIT and "
		  "IOAPIC interrupts count as unmatched)\n"
		  "                 LAPIC timers from KVM's raise (a halt or "
		  "preemption after the expiry is not in their time)\n"
		  "                 posting off (kvm_amd avic=0): every "
		  "interrupt is injected\n"
		  "  memory:        12.0 MiB held (per traced CPU 2.5 MiB, per "
		  "vCPU 1.5 KiB)\n");
	CHECK_HASNT(out, "refused");
	CHECK_HAS(out, "\naccounting of exits (seen = filtered + "
		  "below_threshold + recorded + lost):\n"
		  "  cpu            seen     filtered below_threshold"
		  "     recorded         lost  overwritten"
		  "      drained     unpaired     no_entry\n"
		  "  0               104          105             106"
		  "          107          108          109          110"
		  "          111            1\n"
		  "  2               204");
	CHECK_HAS(out, "  total          1104         1105            1106"
		  "         1107         1108         1109         1110"
		  "         1111         1001\n");
	CHECK_HAS(out, "\naccounting of preemptions (seen = filtered + "
		  "below_threshold + recorded + lost):\n"
		  "  cpu            seen     filtered below_threshold"
		  "     recorded         lost\n"
		  "  0                22           23              24"
		  "           25           26\n  2               122");
	CHECK_HAS(out, "  total          1022         1023            1024"
		  "         1025         1026\n");
	CHECK_HAS(out, "\naccounting of guest marks (seen = filtered + "
		  "limited + recorded + lost):\n"
		  "  cpu            seen     filtered      limited     recorded"
		  "         lost\n"
		  "  0                53           50           54           51"
		  "           52\n"
		  "  2               153          150          154          151"
		  "          152\n"
		  "  total          1053         1050         1054         1051"
		  "         1052\n");
	CHECK_HAS(out, "\naccounting of late interrupts (seen = filtered + "
		  "below_threshold + recorded + lost):\n"
		  "  cpu            seen     filtered below_threshold"
		  "     recorded         lost\n"
		  "  0                70           71              72"
		  "           73           74\n"
		  "  2               170          171             172"
		  "          173          174\n"
		  "  total          1070         1071            1072"
		  "         1073         1074\n");
	free(out);
}

/* Refused vCPUs are said loudly; no reclaim is explained. */
static void test_refused(void)
{
	char *out;

	put_status(5, 0);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  vms:           2 live\n"
		  "  refused:       5 (more than max_vcpus alive): their exits "
		  "are NOT traced\n"
		  "  reclaim:       no (destruction cannot be followed: a vCPU "
		  "at a reused address is told apart by identity only)\n");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"vcpus_refused\":5,\"reclaim\":false,");
	free(out);
}

/* local_clock() itself; a module that does not say reads it too. */
static void test_clock(void)
{
	char *out;

	fake_clock = "local_clock";
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  exit reasons:  kvm_amd\n"
		  "  clock:         local_clock\n"
		  "  cpus:");
	free(out);
	fake_clock = NULL;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  clock:         local_clock (a module that does not "
		  "say)\n  cpus:");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"clock\":\"local_clock\",\"clock_skew_ns\":0,");
	free(out);
	fake_clock = "tsc";
}

/* The sysfs hvctl reads (apicv_sysfs): made in main(). */
static char sysfs_dir[] = "/tmp/hvctl-apicv.XXXXXX";

/* One more parameter, PARAM of MODULE, set to VALUE. */
static void fake_param(const char *module, const char *param,
		       const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/module/%s/parameters/%s", sysfs_dir,
		 module, param);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%s\n", value);
		fclose(f);
	}
}

/* A sysfs with only PARAM of MODULE, set to VALUE (NULL: no module). */
static void fake_sysfs(const char *module, const char *param,
		       const char *value)
{
	const char *dir = sysfs_dir;
	char path[256];

	snprintf(path, sizeof(path), "rm -rf %s/module && mkdir -p "
		 "%s/module/%s/parameters", dir, dir, module);
	CHECK_INT(system(path), 0);
	if (value)
		fake_param(module, param, value);
}

/*
 * Interrupt delivery: timed, or not (a probe missing), or a module that
 * does not say; every raiser's or vCPUs' only, LAPIC timers from their
 * expiry or from KVM's raise (true, false, null in JSON; in text where
 * timed only); posting on is said loudly, no vendor module nothing.
 */
static void test_interrupts(void)
{
	char *out;

	fake_sysfs("kvm_intel", "enable_apicv", "Y");
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    delivery timed (raise to injection)\n"
		  "                 raises by vCPUs only (VMM, irqfd, PIT and "
		  "IOAPIC interrupts count as unmatched)\n"
		  "                 LAPIC timers from KVM's raise (a halt or "
		  "preemption after the expiry is not in their time)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): "
		  "interrupts posted to vCPUs are NOT injected: counted "
		  "(posted), NOT timed\n  memory:");
	CHECK_HASNT(out, "every raiser");
	CHECK_HASNT(out, "apic_timer_fn");
	free(out);
	/* The raise probed by the kprobe: every raiser's. */
	fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_INJECT |
			  HVTRACE_IRQ_PROBE_POSTED | HVTRACE_IRQ_PROBE_EVERY;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    delivery timed (raise to injection)\n"
		  "                 every raiser (kprobe __apic_accept_irq)\n"
		  "                 LAPIC timers from KVM's raise (a halt or "
		  "preemption after the expiry is not in their time)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): ");
	CHECK_HASNT(out, "vCPUs only");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timed\":true,\"irq_every_source\":true,"
		  "\"irq_timer_expiry\":false,\"vmx_preemption_timer\":null,\"irq_posted_counted\":true,"
		  "\"apicv\":\"kvm_intel enable_apicv=Y\",");
	free(out);
	/* The timer's expiry probed too: LAPIC timers from it. */
	fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_INJECT |
			  HVTRACE_IRQ_PROBE_POSTED | HVTRACE_IRQ_PROBE_EVERY |
			  HVTRACE_IRQ_PROBE_TIMER;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    delivery timed (raise to injection)\n"
		  "                 every raiser (kprobe __apic_accept_irq)\n"
		  "                 LAPIC timers from their expiry (kprobe "
		  "apic_timer_fn)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): ");
	CHECK_HASNT(out, "KVM's raise");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timed\":true,\"irq_every_source\":true,"
		  "\"irq_timer_expiry\":true,\"vmx_preemption_timer\":null,"
		  "\"irq_posted_counted\":true,"
		  "\"apicv\":\"kvm_intel enable_apicv=Y\",");
	free(out);
	/*
	 * Intel's VMX preemption timer on: a running vCPU's timer never
	 * goes through apic_timer_fn, said; off, as on AMD.
	 */
	fake_param("kvm_intel", "preemption_timer", "Y");
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "                 LAPIC timers from their expiry (kprobe "
		  "apic_timer_fn) only while their vCPU is halted "
		  "(kvm_intel preemption_timer=Y)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): ");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timer_expiry\":true,"
		  "\"vmx_preemption_timer\":true,");
	free(out);
	fake_param("kvm_intel", "preemption_timer", "N");
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "                 LAPIC timers from their expiry (kprobe "
		  "apic_timer_fn)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): ");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timer_expiry\":true,"
		  "\"vmx_preemption_timer\":false,");
	free(out);
	fake_sysfs("kvm_intel", "enable_apicv", "Y");
	/* Each flag said as the module sets it, whatever it pairs it with. */
	fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_INJECT |
			  HVTRACE_IRQ_PROBE_TIMER;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    delivery timed (raise to injection)\n"
		  "                 raises by vCPUs only (VMM, irqfd, PIT and "
		  "IOAPIC interrupts count as unmatched)\n"
		  "                 LAPIC timers from their expiry (kprobe "
		  "apic_timer_fn)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): ");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timed\":true,\"irq_every_source\":false,"
		  "\"irq_timer_expiry\":true,\"vmx_preemption_timer\":null,\"irq_posted_counted\":false,");
	free(out);
	/* Not timed (no injection probe): whose raises, in JSON only. */
	fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_EVERY |
			  HVTRACE_IRQ_PROBE_TIMER;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    delivery NOT timed (KVM's "
		  "kvm_apic_accept_irq or kvm_inj_virq not probed)\n"
		  "                 posting on (kvm_intel enable_apicv=Y): ");
	CHECK_HASNT(out, "LAPIC timers");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timed\":false,\"irq_every_source\":true,"
		  "\"irq_timer_expiry\":true,\"vmx_preemption_timer\":null,\"irq_posted_counted\":false,");
	free(out);
	fake_sysfs("kvm_amd", "avic", "1");
	fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_POSTED;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    delivery NOT timed (KVM's "
		  "kvm_apic_accept_irq or kvm_inj_virq not probed)\n"
		  "                 posting on (kvm_amd avic=1): ");
	CHECK_HASNT(out, "LAPIC timers");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timed\":false,\"irq_every_source\":false,"
		  "\"irq_timer_expiry\":false,\"vmx_preemption_timer\":null,\"irq_posted_counted\":true,"
		  "\"apicv\":\"kvm_amd avic=1\",");
	free(out);
	fake_sysfs("kvm_amd", "avic", NULL);
	fake_irq_probes = -1;
	put_status(0, 1);
	out = FAKE_OUTPUT(false, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "  interrupts:    not timed (a module that does not "
		  "say)\n  memory:");
	free(out);
	out = FAKE_OUTPUT(true, hvctl_cmd_status, "status", NULL);
	CHECK_HAS(out, "\"irq_timed\":null,\"irq_every_source\":null,"
		  "\"irq_timer_expiry\":null,\"apicv\":null,");
	free(out);
	fake_irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_INJECT |
			  HVTRACE_IRQ_PROBE_POSTED;
}

/* A reply without its accounting: an error, and nothing printed. */
static void test_no_acct(void)
{
	struct nlmsghdr *nlh;
	char *out;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_u32(nlh, HVTRACE_A_ABI, 3);
	hvctl_json = false;
	fake_capture_begin();
	CHECK_INT(FAKE_RUN(hvctl_cmd_status, "status", NULL), 1);
	out = fake_capture_end();
	CHECK_STR(out, "");
	free(out);
	CHECK_STR(fake_err, "the module's status has no accounting");
	/* No dump asked for after a bad reply. */
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATUS][1], 0);
}

int main(void)
{
	char rm[64];

	/* Not the machine's own: kvm_amd's avic=0. */
	CHECK(mkdtemp(sysfs_dir) != NULL);
	apicv_sysfs = sysfs_dir;
	fake_sysfs("kvm_amd", "avic", "0");
	test_json();
	test_text();
	test_refused();
	test_clock();
	test_no_acct();
	test_interrupts();
	snprintf(rm, sizeof(rm), "rm -rf %s", sysfs_dir);
	CHECK_INT(system(rm), 0);
	return unit_report();
}
