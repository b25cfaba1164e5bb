// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl status: what the module is, whether it records, how many vCPUs
 * and VMs it follows and the memory it holds, the watch (hvctl watch),
 * and the trust accounting:
 * per CPU, seen = filtered + below threshold + recorded + lost, exactly,
 * for exits, preemption records and late interrupt records apart.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "apicv.h"
#include "client.h"
#include "hvctl.h"
#include "output.h"
#include "util.h"

struct acct_field {
	unsigned int attr;
	const char *key;	/* JSON */
	const char *label;	/* text column */
};

static const struct acct_field exit_fields[] = {
	{ HVTRACE_ACCT_SEEN, "seen", "seen" },
	{ HVTRACE_ACCT_FILTERED, "filtered", "filtered" },
	{ HVTRACE_ACCT_BELOW, "below_threshold", "below_threshold" },
	{ HVTRACE_ACCT_RECORDED, "recorded", "recorded" },
	{ HVTRACE_ACCT_LOST, "lost", "lost" },
	{ HVTRACE_ACCT_OVERWRITTEN, "overwritten", "overwritten" },
	{ HVTRACE_ACCT_DRAINED, "drained", "drained" },
	{ HVTRACE_ACCT_UNPAIRED, "unpaired", "unpaired" },
	/* Of seen: ended by their vCPU's destruction, never re-entered. */
	{ HVTRACE_ACCT_NO_ENTRY, "no_entry", "no_entry" },
};

/* Preemption records: the same identity, counted apart. */
static const struct acct_field preempt_fields[] = {
	{ HVTRACE_ACCT_PREEMPT_SEEN, "preempt_seen", "seen" },
	{ HVTRACE_ACCT_PREEMPT_FILTERED, "preempt_filtered", "filtered" },
	{ HVTRACE_ACCT_PREEMPT_BELOW, "preempt_below_threshold",
	  "below_threshold" },
	{ HVTRACE_ACCT_PREEMPT_RECORDED, "preempt_recorded", "recorded" },
	{ HVTRACE_ACCT_PREEMPT_LOST, "preempt_lost", "lost" },
};

/* Guest marks: no threshold; the VM, vCPU and CPU filters, a rate. */
static const struct acct_field mark_fields[] = {
	{ HVTRACE_ACCT_MARK_SEEN, "mark_seen", "seen" },
	{ HVTRACE_ACCT_MARK_FILTERED, "mark_filtered", "filtered" },
	{ HVTRACE_ACCT_MARK_LIMITED, "mark_limited", "limited" },
	{ HVTRACE_ACCT_MARK_RECORDED, "mark_recorded", "recorded" },
	{ HVTRACE_ACCT_MARK_LOST, "mark_lost", "lost" },
};

/* Late interrupt records: a threshold of their own, the same identity. */
static const struct acct_field irq_fields[] = {
	{ HVTRACE_ACCT_IRQ_SEEN, "irq_seen", "seen" },
	{ HVTRACE_ACCT_IRQ_FILTERED, "irq_filtered", "filtered" },
	{ HVTRACE_ACCT_IRQ_BELOW, "irq_below_threshold", "below_threshold" },
	{ HVTRACE_ACCT_IRQ_RECORDED, "irq_recorded", "recorded" },
	{ HVTRACE_ACCT_IRQ_LOST, "irq_lost", "lost" },
};

struct acct_set {
	const char *title;
	const struct acct_field *f;
	size_t n;
};

#define ACCT_SET(t, a) { t, a, ARRAY_SIZE(a) }

static const struct acct_set acct_sets[] = {
	ACCT_SET("exits (seen = filtered + below_threshold + recorded + lost)",
		 exit_fields),
	ACCT_SET("preemptions (seen = filtered + below_threshold + recorded "
		 "+ lost)", preempt_fields),
	ACCT_SET("guest marks (seen = filtered + limited + recorded + lost)",
		 mark_fields),
	ACCT_SET("late interrupts (seen = filtered + below_threshold + "
		 "recorded + lost)", irq_fields),
};

#define N_SETS ARRAY_SIZE(acct_sets)
/* A row's columns: indent, cpu (JSON), cpu (text) and every set's. */
#define ACCT_COLS (3 + ARRAY_SIZE(exit_fields) + ARRAY_SIZE(preempt_fields) + \
		   ARRAY_SIZE(mark_fields) + ARRAY_SIZE(irq_fields))

/*
 * The columns of a row, in COLS: JSON has every set's in one object,
 * text ONLY's, as each set is a table of its own. Returns how many.
 */
static unsigned int acct_cols(struct out_col *cols, const struct acct_set *only)
{
	unsigned int n = 0;

	/* Text: an empty column, so the table sits two spaces in. */
	cols[n++] = (struct out_col){ .head = "", .width = 1, .kind = OUT_STR };
	cols[n++] = (struct out_col){ .key = "cpu", .kind = OUT_U64 };
	cols[n++] = (struct out_col){ .head = "cpu", .width = -6,
				      .kind = OUT_STR };
	for (size_t s = 0; s < N_SETS; s++) {
		const struct acct_set *set = &acct_sets[s];

		for (size_t i = 0; i < set->n; i++) {
			int len = strlen(set->f[i].label);

			cols[n++] = (struct out_col){
				.key = set->f[i].key,
				.head = set == only ? set->f[i].label : NULL,
				.width = len < 12 ? 12 : len,
				.kind = OUT_U64,
			};
		}
	}
	return n;
}

/* One CPU's row, or with TOTAL the totals, in the N columns COLS. */
static void print_acct_row(struct out *o, const struct hvc_acct_row *row,
			   bool total, const struct out_col *cols,
			   unsigned int n)
{
	char label[16] = "total";
	struct out_cell c[ACCT_COLS] = {
		{ .s = "" },
		{ .u = row->cpu, .absent = total },
		{ .s = label },
	};
	unsigned int k = 3;

	if (!total)
		snprintf(label, sizeof(label), "%u", row->cpu);
	for (size_t s = 0; s < N_SETS; s++)
		for (size_t i = 0; i < acct_sets[s].n; i++)
			c[k++].u = row->n[acct_sets[s].f[i].attr];
	out_open_object(o, total ? "total" : NULL);
	out_cells(o, cols, c, n);
	if (!o->json)
		putchar('\n');
	out_close_object(o);
}

/* Rows for each CPU (the dump), then the totals (the reply). */
static void print_acct_rows(struct out *o, const struct hvc_status *st,
			    const struct out_col *cols, unsigned int n)
{
	out_open_array(o, "cpus");
	for (unsigned int i = 0; i < st->nr_cpu_rows; i++)
		print_acct_row(o, &st->cpus[i], false, cols, n);
	out_close_array(o);
	print_acct_row(o, &st->total, true, cols, n);
}

static void print_accounting(struct out *o, const struct hvc_status *st)
{
	struct out_col cols[ACCT_COLS];
	unsigned int n;

	if (o->json) {
		print_acct_rows(o, st, cols, acct_cols(cols, NULL));
		return;
	}
	for (size_t s = 0; s < N_SETS; s++) {
		printf("\naccounting of %s:\n", acct_sets[s].title);
		n = acct_cols(cols, &acct_sets[s]);
		out_heading(o, cols, n);
		print_acct_rows(o, st, cols, n);
	}
}

/* "512 B", "4.0 KiB", "12.3 MiB", "1.5 GiB". */
static void format_bytes(char *buf, size_t len, uint64_t b)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int u = -1;

	while (v >= 1024 && u + 1 < (int)ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

/* The vCPU and VM tables: how full, what came and went. */
static void print_vcpus(struct out *o, const struct hvc_status *st)
{
	out_u64(o, "vcpus_live", "  vcpus:         %" PRIu64 " live",
		st->vcpus_live);
	out_u64(o, "vcpus_max", " (max %" PRIu64 ")", st->vcpus_max);
	out_u64(o, "vcpus_created", "; since load %" PRIu64 " created",
		st->vcpus_created);
	out_u64(o, "vcpus_reclaimed", ", %" PRIu64 " reclaimed\n",
		st->vcpus_reclaimed);
	out_u64(o, "vms_live", "  vms:           %" PRIu64 " live\n",
		st->vms_live);
	/* vCPUs nobody traces: easy to miss, so said loudly. */
	out_u64(o, "vcpus_refused", st->vcpus_refused ?
		"  refused:       %" PRIu64 " (more than max_vcpus alive): "
		"their exits are NOT traced\n" : NULL, st->vcpus_refused);
	out_bool(o, "reclaim", NULL, st->reclaim);
	if (!o->json)
		printf("  reclaim:       %s\n", st->reclaim ?
		       "yes (vCPU and VM destruction is followed)" :
		       "no (destruction cannot be followed: a vCPU at a reused "
		       "address is told apart by identity only)");
}

static void print_memory(struct out *o, const struct hvc_status *st)
{
	char all[16], cpu[16], vcpu[16];

	out_u64(o, "mem_bytes", NULL, st->mem_bytes);
	out_u64(o, "mem_cpu_bytes", NULL, st->mem_cpu_bytes);
	out_u64(o, "mem_vcpu_bytes", NULL, st->mem_vcpu_bytes);
	if (o->json)
		return;
	format_bytes(all, sizeof(all), st->mem_bytes);
	format_bytes(cpu, sizeof(cpu), st->mem_cpu_bytes);
	format_bytes(vcpu, sizeof(vcpu), st->mem_vcpu_bytes);
	printf("  memory:        %s held (per traced CPU %s, per vCPU %s)\n",
	       all, cpu, vcpu);
}

/*
 * Interrupt delivery: timed where both of KVM's ends are probed; every
 * raiser's with the raise probed at KVM's __apic_accept_irq (a kprobe),
 * else only vCPUs' (the kvm_apic_accept_irq tracepoint names the target
 * by id alone, its VM only where a vCPU raises). LAPIC timers from their
 * expiry with KVM's apic_timer_fn probed (a kprobe), else from KVM's
 * raise when the vCPU's thread next runs. Posted interrupts (APICv,
 * AVIC) never reach the injection: said loudly when the host posts them.
 */
static void print_interrupts(struct out *o, const struct hvc_status *st)
{
	const uint8_t both = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_INJECT;
	bool timed = (st->irq_probes & both) == both;
	bool every = st->irq_probes & HVTRACE_IRQ_PROBE_EVERY;
	bool expiry = st->irq_probes & HVTRACE_IRQ_PROBE_TIMER;
	int vmx_timer = vmx_preemption_timer();
	char apicv[64];
	bool posting = apicv_on(apicv, sizeof(apicv));

	if (!st->irq_probes_known) {
		out_null(o, "irq_timed");
		out_null(o, "irq_every_source");
		out_null(o, "irq_timer_expiry");
		if (!o->json)
			printf("  interrupts:    not timed (a module that does not say)\n");
	} else {
		out_bool(o, "irq_timed", timed ?
			 "  interrupts:    delivery timed (raise to injection)\n" :
			 "  interrupts:    delivery NOT timed (KVM's "
			 "kvm_apic_accept_irq or kvm_inj_virq not probed)\n",
			 timed);
		/* Whose raises: said where delivery is timed. */
		out_bool(o, "irq_every_source", !timed ? NULL : every ?
			 "                 every raiser (kprobe "
			 "__apic_accept_irq)\n" :
			 "                 raises by vCPUs only (VMM, irqfd, PIT "
			 "and IOAPIC interrupts count as unmatched)\n",
			 every);
		/*
		 * Whence a LAPIC timer's time: said where delivery is timed;
		 * on Intel with the VMX preemption timer, halted vCPUs' only.
		 */
		out_bool(o, "irq_timer_expiry", !timed ? NULL : !expiry ?
			 "                 LAPIC timers from KVM's raise (a halt "
			 "or preemption after the expiry is not in their "
			 "time)\n" : vmx_timer == 1 ?
			 "                 LAPIC timers from their expiry "
			 "(kprobe apic_timer_fn) only while their vCPU is "
			 "halted (kvm_intel preemption_timer=Y)\n" :
			 "                 LAPIC timers from their expiry "
			 "(kprobe apic_timer_fn)\n",
			 expiry);
		if (vmx_timer < 0)
			out_null(o, "vmx_preemption_timer");
		else
			out_bool(o, "vmx_preemption_timer", NULL, vmx_timer);
		out_bool(o, "irq_posted_counted", NULL,
			 st->irq_probes & HVTRACE_IRQ_PROBE_POSTED);
	}
	if (!*apicv)
		out_null(o, "apicv");
	else
		out_str(o, "apicv", posting ?
			"                 posting on (%s): interrupts posted to "
			"vCPUs are NOT injected: counted (posted), NOT timed\n" :
			"                 posting off (%s): every interrupt is "
			"injected\n", apicv);
}

/* The watch (hvctl watch): its settings, histories and captures. */
static void print_watch(struct out *o, const struct hvc_watch_status *w)
{
	char set[384], mem[16];

	if (!w->known)
		return;
	out_open_object(o, "watch");
	out_bool(o, "armed", NULL, w->armed);
	if (w->armed) {
		hvctl_watch_describe(set, sizeof(set), &w->set);
		if (!o->json)
			printf("  watch:         armed: %s\n", set);
		hvctl_watch_json(o, &w->set);
	} else if (!o->json) {
		printf("  watch:         not armed\n");
	}
	format_bytes(mem, sizeof(mem), w->mem_bytes);
	out_u64(o, "vcpus_with_history", "                 %" PRIu64
		" vCPUs with a history", w->vcpus);
	out_u64(o, "mem_bytes", NULL, w->mem_bytes);
	out_u64(o, "vcpu_bytes", NULL, w->vcpu_bytes);
	if (!o->json) {
		printf(", %s held", mem);
		if (w->armed) {
			format_bytes(mem, sizeof(mem), w->vcpu_bytes);
			printf(" (%s a vCPU, %u ready for new ones)", mem,
			       HVTRACE_WATCH_POOL);
		}
		printf("\n");
	}
	out_u64(o, "captures", "                 captures: %" PRIu64
		" since armed", w->captures);
	out_u64(o, "pending", ", %" PRIu64 " pending", w->pending);
	out_u64(o, "dropped", ", %" PRIu64 " dropped unread\n", w->dropped);
	out_u64(o, "suppressed_busy", "                 suppressed: %" PRIu64
		" busy", w->suppressed_busy);
	out_u64(o, "suppressed_rate", ", %" PRIu64 " rate",
		w->suppressed_rate);
	out_u64(o, "suppressed_total", ", %" PRIu64 " total\n",
		w->suppressed_total);
	out_u64(o, "no_history", w->no_history ?
		"                 no history: %" PRIu64 " vCPUs (no memory): "
		"their stalls are NOT caught\n" : NULL, w->no_history);
	out_close_object(o);
}

static void print_status(struct out *o, const struct hvc_status *st)
{
	out_open_object(o, NULL);
	out_str(o, "version", "hvtrace %s", st->version);
	out_u64(o, "abi", " (netlink ABI %" PRIu64 ")\n", st->abi);
	out_str(o, "recording", "  recording:     %s\n",
		st->recording ? "on" : "off");
	out_str(o, "vendor", "  exit reasons:  %s\n", *st->vendor ? st->vendor :
		"unavailable (no kvm_amd/kvm_intel)");
	/* Modules that do not say read local_clock(). */
	out_str(o, "clock", *st->clock ? "  clock:         %s" :
		"  clock:         %s (a module that does not say)",
		*st->clock ? st->clock : "local_clock");
	out_u64(o, "clock_skew_ns", strcmp(st->clock, "tsc") ? "\n" :
		" (local_clock()'s time, to %" PRIu64 " ns)\n",
		st->clock_skew_ns);
	out_u64(o, "nr_cpus", "  cpus:          %" PRIu64, st->nr_cpus);
	out_u64(o, "cpus_traced", " (%" PRIu64 " traced)\n", st->cpus_traced);
	out_str(o, "reader", "  reader:        %s\n",
		st->reader ? "draining" : "none");
	out_u64(o, "exits_seen", "  exits seen:    %" PRIu64 "\n",
		st->exits_seen);
	out_u64(o, "entries_seen", "  entries seen:  %" PRIu64 "\n",
		st->entries_seen);
	out_u64(o, "exits_untraced", "  untraced:      %" PRIu64
		" exits (on CPUs without hvtrace state)\n",
		st->exits_untraced);
	print_vcpus(o, st);
	print_interrupts(o, st);
	print_memory(o, st);
	print_watch(o, &st->watch);
	out_open_object(o, "accounting");
	print_accounting(o, st);
	out_close_object(o);
	out_close_object(o);
}

static int status_run(int argc, char **argv)
{
	struct hvc_status st = { 0 };
	struct out out;
	struct hvc *c;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_status, argc, argv))
		return 0;
	if (hvctl_no_args(&hvctl_cmd_status, argc, argv))
		return 2;
	if (hvc_open(&c))
		return 1;
	ret = hvc_status_get(c, &st, true);
	hvc_close(c);
	if (!ret) {
		out_init(&out, stdout, hvctl_json);
		print_status(&out, &st);
		out_end(&out);
	}
	hvc_status_free(&st);
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_status = {
	.name = "status",
	.run = status_run,
	.usage = "",
	.summary = "show the module's state and the event accounting (the\n"
		   "default), with the vCPUs and VMs followed and the memory held",
};
