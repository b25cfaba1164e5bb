// SPDX-License-Identifier: GPL-2.0
/*
 * hvtrace.conf(5) (user/lib/config_file.c): every key into the change,
 * the watch's and the exporter's settings; comments and blanks; each kind
 * of error with its exact "FILE:LINE: ..." message, all of a file's
 * errors in one pass; the declarative defaults; the file written from a
 * configuration, word for word, and read back into the same
 * configuration; the shipped etc/hvtrace.conf, as it is and with every
 * key it shows set.
 */
#include <errno.h>
#include <limits.h>

#include "config_file.h"
#include "exit_reasons.h"
#include "fake_vmm.h"
#include "unit.h"

/* Every message of the sink, in order. */
static char msgs[32][1100];
static int nr_msgs;

static void sink(const char *msg, void *data)
{
	(void)data;
	if (nr_msgs < (int)(sizeof(msgs) / sizeof(msgs[0])))
		snprintf(msgs[nr_msgs++], sizeof(msgs[0]), "%s", msg);
}

static struct hvc_conf conf;
/* The parts whose VM names parse() looks up (test_vm_names()). */
static unsigned int parse_resolve = HVC_CONF_MODULE | HVC_CONF_WATCH;

/* LEN bytes of TEXT as the file "t.conf": hvc_conf_parse()'s return. */
static int parse_n(const char *text, size_t len)
{
	FILE *f = fmemopen((void *)text, len, "r");
	int ret;

	nr_msgs = 0;
	ret = hvc_conf_parse(f, "t.conf", parse_resolve, &conf);
	fclose(f);
	return ret;
}

static int parse(const char *text)
{
	return parse_n(text, strlen(text));
}

/* TEXT is refused with MSG, its only message. */
#define CHECK_BAD(text, msg) do {					\
	CHECK_INT(parse(text), -EINVAL);				\
	CHECK_INT(nr_msgs, 1);						\
	CHECK_STR(msgs[0], msg);					\
} while (0)

static bool has_bit(const uint64_t *w, unsigned int i)
{
	return w[i / 64] >> (i % 64) & 1;
}

/* The change a file that sets nothing gives: every default, cleared. */
static void check_defaults(const struct hvc_change *ch)
{
	CHECK_INT(ch->set, HVC_CH_THRESHOLD | HVC_CH_PREEMPT | HVC_CH_IRQ |
		  HVC_CH_HALT | HVC_CH_CLEAR_THRESHOLDS |
		  HVC_CH_CLEAR_FILTERS | HVC_CH_BUFFER_KB | HVC_CH_MODE);
	CHECK_U64(ch->threshold_ns, 0);
	CHECK_INT(ch->threshold_on, HVTRACE_ON_TOTAL);
	CHECK_INT(ch->halt_triggers, 0);
	CHECK_U64(ch->preempt_threshold_ns, 0);
	CHECK_U64(ch->irq_threshold_ns, HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK_INT(ch->nr_thresholds, 0);
	CHECK_INT(ch->buffer_kb, HVTRACE_BUFFER_KB_DEFAULT);
	CHECK_INT(ch->mode, HVTRACE_MODE_DISCARD);
}

static void test_empty_and_comments(void)
{
	CHECK_INT(parse("\n"), 0);
	CHECK_INT(nr_msgs, 0);
	check_defaults(&conf.change);
	CHECK_INT(conf.watch.given, 0);
	CHECK_INT(conf.exporter.given, 0);

	CHECK_INT(parse("# a comment\n   \n\t# indented\n#threshold 5ms\n"
			"threshold 7us # the rest is a comment\n"
			"threshold.on\tvmm\t\r\n"
			"  buffer.mode overwrite#x\n"), -EINVAL);
	/* '#' starts a comment at the start of a word only. */
	CHECK_INT(nr_msgs, 1);
	CHECK_STR(msgs[0], "t.conf:7: buffer.mode: mode is discard or "
		  "overwrite, not 'overwrite#x'");
	CHECK_INT(parse("# a comment\n   \n\t# indented\n#threshold 5ms\n"
			"threshold 7us # the rest is a comment\n"
			"threshold.on\tvmm\t\r\n"), 0);
	CHECK_U64(conf.change.threshold_ns, 7000);
	CHECK_INT(conf.change.threshold_on, HVTRACE_ON_VMM);
	/* No final newline. */
	CHECK_INT(parse("threshold 9ms"), 0);
	CHECK_U64(conf.change.threshold_ns, 9000000);
}

/* Every module key, into the one change apply sends. */
static void test_module_keys(void)
{
	const struct hvc_change *ch = &conf.change;

	CHECK_INT(parse("threshold 50us\n"
			"threshold.on total\n"
			"threshold.halt include\n"
			"threshold.preemptions 1ms\n"
			"threshold.interrupts 250us\n"
			"threshold.reason hlt 2ms\n"
			"threshold.reason svm:0x7777 3us\n"
			"filter.pid 4242\n"
			"filter.vcpu 0,2-3\n"
			"filter.cpu 5\n"
			"filter.reason io\n"
			"filter.rip 0x1000-0x1fff\n"
			"buffer.size 4M\n"
			"buffer.mode overwrite\n"), 0);
	CHECK_INT(nr_msgs, 0);
	CHECK_INT(ch->set, HVC_CH_THRESHOLD | HVC_CH_PREEMPT | HVC_CH_IRQ |
		  HVC_CH_HALT | HVC_CH_CLEAR_THRESHOLDS |
		  HVC_CH_CLEAR_FILTERS | HVC_CH_BUFFER_KB | HVC_CH_MODE |
		  HVC_CH_REASON_THRESHOLDS | HVC_CH_PID | HVC_CH_VCPUS |
		  HVC_CH_CPUS | HVC_CH_REASONS | HVC_CH_RIP);
	CHECK_U64(ch->threshold_ns, 50000);
	CHECK_INT(ch->threshold_on, HVTRACE_ON_TOTAL);
	CHECK_INT(ch->halt_triggers, 1);
	CHECK_U64(ch->preempt_threshold_ns, 1000000);
	CHECK_U64(ch->irq_threshold_ns, 250000);
	/* "hlt": both vendors' HLT. */
	CHECK_INT(ch->nr_thresholds, 3);
	CHECK_INT(ch->thresholds[0].isa, HVTRACE_ISA_VMX);
	CHECK_INT(ch->thresholds[0].code, 12);
	CHECK_U64(ch->thresholds[0].threshold_ns, 2000000);
	CHECK_INT(ch->thresholds[1].isa, HVTRACE_ISA_SVM);
	CHECK_INT(ch->thresholds[1].code, 0x78);
	CHECK_U64(ch->thresholds[1].threshold_ns, 2000000);
	CHECK_INT(ch->thresholds[2].isa, HVTRACE_ISA_SVM);
	CHECK_INT(ch->thresholds[2].code, 0x7777);
	CHECK_U64(ch->thresholds[2].threshold_ns, 3000);
	CHECK_INT(ch->pid, 4242);
	CHECK_INT(ch->nr_vcpu_words, 1);
	CHECK_U64(ch->vcpus[0], 0xd);
	CHECK_INT(ch->nr_cpu_words, 1);
	CHECK_U64(ch->cpus[0], 0x20);
	CHECK_INT(ch->nr_reasons, 2);
	CHECK_INT(ch->reasons[0].code, 30);	/* IO_INSTRUCTION */
	CHECK_INT(ch->reasons[1].code, 0x7b);	/* IOIO */
	CHECK_U64(ch->rip_min, 0x1000);
	CHECK_U64(ch->rip_max, 0x1fff);
	CHECK_INT(ch->buffer_kb, 4096);
	CHECK_INT(ch->mode, HVTRACE_MODE_OVERWRITE);
	/* What a refusal by the module names: the file, the line, the key. */
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_IRQ_THRESHOLD_NS, 0),
		  "t.conf:5: threshold.interrupts 250us");
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_FILTER_CPUS, 0),
		  "t.conf:10: filter.cpu 5");
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_REASON_THRESHOLD, 2),
		  "t.conf:7: threshold.reason svm:0x7777");
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_BUFFER_KB, 0),
		  "t.conf:13: buffer.size 4M");

	/* Off: no late interrupt records, the module's default. */
	CHECK_INT(parse("threshold.interrupts off\n"), 0);
	CHECK_INT(nr_msgs, 0);
	CHECK(ch->set & HVC_CH_IRQ);
	CHECK_U64(ch->irq_threshold_ns, HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_IRQ_THRESHOLD_NS, 0),
		  "t.conf:1: threshold.interrupts off");
	CHECK_INT(parse("threshold.interrupts 0\n"), 0);
	CHECK_U64(ch->irq_threshold_ns, 0);
	CHECK_INT(parse("threshold.interrupts 3600s\n"), 0);
	CHECK_U64(ch->irq_threshold_ns, HVTRACE_THRESHOLD_NS_MAX);

	/* "any" names the filter, lifted; the rest are not sent at all. */
	CHECK_INT(parse("filter.pid any\nfilter.rip any\nthreshold.on "
			"preempted\n"), 0);
	CHECK_INT(ch->set & (HVC_CH_PID | HVC_CH_VCPUS | HVC_CH_CPUS |
			     HVC_CH_REASONS | HVC_CH_RIP),
		  HVC_CH_PID | HVC_CH_RIP);
	CHECK_INT(ch->pid, 0);
	CHECK_U64(ch->rip_max, UINT64_MAX);
	CHECK_INT(ch->threshold_on, HVTRACE_ON_RUNNABLE);
	/* The defaults sent for what the file leaves out are named too. */
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_BUFFER_KB, 0),
		  "t.conf sets no buffer.size: the default 2560K");
	CHECK_STR(hvc_change_typed_at(ch, HVTRACE_CFG_MODE, 0),
		  "t.conf sets no buffer.mode: the default discard");
}

static void test_watch_and_exporter_keys(void)
{
	const struct hvc_watch_conf *w = &conf.watch;
	const struct hvc_exporter_conf *e = &conf.exporter;

	CHECK_INT(parse("watch.exit 5ms\nwatch.on runnable\nwatch.stall "
			"20ms/50ms\nwatch.halt include\nwatch.preempted 10ms\n"
			"watch.irq-latency 100ms\n"
			"watch.guest-mark 4100\nwatch.history 512\n"
			"watch.post 2ms\nwatch.rate 7\nwatch.rate-total 70\n"
			"watch.vm 1200\nwatch.vcpu 1-2\nwatch.dir /var/x\n"
			"watch.keep 3\nwatch.max-size 1G\n"
			"exporter.listen [::1]:9655\nexporter.textfile /t\n"
			"exporter.interval 30s\n"), 0);
	CHECK_INT(nr_msgs, 0);
	CHECK_INT(w->given, (1 << HVC_WK_NR) - 1);
	CHECK_U64(w->w.exit_ns, 5000000);
	CHECK_INT(w->w.exit_on, HVTRACE_ON_RUNNABLE);
	CHECK_U64(w->w.stall_ns, 20000000);
	CHECK_U64(w->w.stall_window_ns, 50000000);
	CHECK(w->halt);
	CHECK_U64(w->w.preempt_ns, 10000000);
	CHECK_U64(w->w.irq_ns, 100000000);
	CHECK_INT(w->w.mark_triggers, 1);
	CHECK_INT(w->w.mark_pid, 4100);
	CHECK_INT(w->w.history, 512);
	CHECK(w->w.has_post);
	CHECK_U64(w->w.post_ns, 2000000);
	CHECK_INT(w->w.rate, 7);
	CHECK_INT(w->w.rate_total, 70);
	CHECK_INT(w->w.pid, 1200);
	CHECK_U64(w->w.vcpus[0], 0x6);
	CHECK_STR(w->dir, "/var/x");
	CHECK_U64(w->keep, 3);
	CHECK_U64(w->max_kib, 1 << 20);
	CHECK_STR(w->typed[HVTRACE_WATCH_HISTORY], "watch.history 512");
	CHECK_STR(w->typed[HVTRACE_WATCH_MARK_PID], "watch.guest-mark 4100");
	CHECK_STR(w->typed[HVTRACE_WATCH_IRQ_NS], "watch.irq-latency 100ms");
	CHECK_INT(e->given, 7);
	CHECK_STR(e->listen, "[::1]:9655");
	CHECK_STR(e->textfile, "/t");
	CHECK_U64(e->interval_ns, 30000000000ULL);
	/* Neither section changes what apply sends. */
	check_defaults(&conf.change);

	CHECK_INT(parse("watch.guest-mark any\nwatch.vm any\n"
			"exporter.listen :9655\nexporter.listen2 x\n"),
		  -EINVAL);
	CHECK_STR(msgs[0], "t.conf:4: unknown key 'exporter.listen2'");
	CHECK_INT(parse("watch.guest-mark any\nwatch.vm any\n"
			"exporter.listen :9655\n"), 0);
	CHECK_INT(w->w.mark_triggers, 1);
	CHECK_INT(w->w.mark_pid, 0);
	CHECK_INT(w->w.pid, 0);
	CHECK_INT(parse("exporter.listen localhost:9655\n"), 0);
	CHECK_INT(parse("exporter.listen 10.1.2.3:0\n"), 0);
}

/*
 * exporter.listen of HVC_LISTEN_LEN - 1 bytes is kept whole; one byte
 * more is refused, naming the key and the limit, not cut.
 */
static void test_listen_len(void)
{
	char text[128], name[HVC_LISTEN_LEN + 1];
	size_t n = HVC_LISTEN_LEN - 1 - strlen(":9655");

	memset(name, 'a', n);
	snprintf(name + n, sizeof(name) - n, ":9655");
	snprintf(text, sizeof(text), "exporter.listen %s\n", name);
	CHECK_INT(parse(text), 0);
	CHECK_INT(nr_msgs, 0);
	CHECK_STR(conf.exporter.listen, name);
	CHECK_INT(strlen(conf.exporter.listen), HVC_LISTEN_LEN - 1);
	snprintf(text, sizeof(text), "exporter.listen a%s\n", name);
	CHECK_BAD(text, "t.conf:1: exporter.listen 'aaaaaaaaaaaaaaaaaaaaaaaa"
		  "...' is 64 bytes long: at most 63");
}

/* Each kind of error: the file, the line, the key and what is wrong. */
static void test_errors(void)
{
	CHECK_BAD("threshold 1ms\nthresold 2ms\n",
		  "t.conf:2: unknown key 'thresold'");
	CHECK_BAD("threshold=2ms\n", "t.conf:1: unknown key 'threshold=2ms' "
		  "(KEY VALUE, with a blank between them)");
	CHECK_BAD("\nthreshold\n", "t.conf:2: threshold needs a DURATION");
	CHECK_BAD("threshold.reason npf\n", "t.conf:1: threshold.reason needs "
		  "an exit reason NAME and a DURATION");
	CHECK_BAD("watch.stall\n", "t.conf:1: watch.stall needs X/Y");
	CHECK_BAD("threshold 1ms 2ms\n", "t.conf:1: threshold: unexpected "
		  "'2ms' after the value");
	CHECK_BAD("threshold.reason npf 1ms extra\n", "t.conf:1: "
		  "threshold.reason: unexpected 'extra' after the value");
	CHECK_BAD("threshold 1ms\n# again\nthreshold 1ms\n",
		  "t.conf:3: threshold given twice (first at line 1)");
	CHECK_BAD("watch.exit 1ms\nwatch.exit 2ms\n",
		  "t.conf:2: watch.exit given twice (first at line 1)");
	CHECK_BAD("threshold 50\n", "t.conf:1: threshold: missing unit in "
		  "'50' (use ns, us, ms or s)");
	/* A message that starts with the key is not prefixed with it. */
	CHECK_BAD("threshold 7200s\n", "t.conf:1: threshold 7200s out of "
		  "range (at most 3600s)");
	CHECK_BAD("threshold.preemptions 7200s\n", "t.conf:1: "
		  "threshold.preemptions: threshold 7200s out of range (at "
		  "most 3600s)");
	CHECK_BAD("threshold.on idle\n", "t.conf:1: threshold.on: unknown "
		  "part 'idle' (total, handling, vmm, halt, runnable, other)");
	CHECK_BAD("threshold.halt yes\n", "t.conf:1: threshold.halt: include "
		  "or exclude, not 'yes'");
	CHECK_BAD("threshold.preemptions -1ms\n", "t.conf:1: "
		  "threshold.preemptions: negative duration '-1ms'");
	/* Off is late interrupt records' only. */
	CHECK_BAD("threshold.preemptions off\n", "t.conf:1: "
		  "threshold.preemptions: bad duration 'off' (e.g. 50us, "
		  "1.5ms, 2s)");
	CHECK_BAD("threshold off\n", "t.conf:1: threshold: bad duration "
		  "'off' (e.g. 50us, 1.5ms, 2s)");
	CHECK_BAD("threshold.interrupts\n", "t.conf:1: threshold.interrupts "
		  "needs a DURATION or off");
	CHECK_BAD("threshold.interrupts 7200s\n", "t.conf:1: "
		  "threshold.interrupts: threshold 7200s out of range (at "
		  "most 3600s)");
	CHECK_BAD("threshold.interrupts OFF\n", "t.conf:1: "
		  "threshold.interrupts: bad duration 'OFF' (e.g. 50us, "
		  "1.5ms, 2s)");
	CHECK_BAD("threshold.interrupts off\nthreshold.interrupts 1ms\n",
		  "t.conf:2: threshold.interrupts given twice (first at line "
		  "1)");
	CHECK_BAD("threshold.reason nfp 1ms\n", "t.conf:1: threshold.reason: "
		  "unknown exit reason 'nfp' (did you mean: NPF?); 'hvctl "
		  "reasons' lists them");
	CHECK_BAD("threshold.reason npf 1ms\nthreshold.reason svm:npf 2ms\n",
		  "t.conf:2: threshold.reason: NPF has a threshold already "
		  "(line 1)");
	CHECK_BAD("filter.pid 0\n", "t.conf:1: filter.pid takes the VMM's "
		  "pid, not '0'");
	CHECK_BAD("filter.vcpu 5-2\n", "t.conf:1: filter.vcpu: vcpu range 5-2 "
		  "is reversed (write it 2-5)");
	CHECK_BAD("filter.cpu 9000\n", "t.conf:1: filter.cpu: cpu 9000 is out "
		  "of range 0..8191");
	CHECK_BAD("filter.reason npf,bogus\n", "t.conf:1: filter.reason: "
		  "unknown exit reason 'bogus'; 'hvctl reasons' lists them");
	CHECK_BAD("filter.rip 0x2000-0x1000\n", "t.conf:1: filter.rip: rip "
		  "range '0x2000-0x1000' ends before it starts");
	CHECK_BAD("buffer.size 2\n", "t.conf:1: buffer.size: buffer size 2 "
		  "out of range 4K..256M");
	CHECK_BAD("buffer.size 4X\n", "t.conf:1: buffer.size: bad size '4X' "
		  "(e.g. 2048, 512K, 4M)");
	CHECK_BAD("buffer.mode sideways\n", "t.conf:1: buffer.mode: mode is "
		  "discard or overwrite, not 'sideways'");
	/* The watch's values, in the words of its options. */
	CHECK_BAD("watch.stall 50ms/20ms\n", "t.conf:1: watch.stall 50ms/20ms: "
		  "50.00ms out of the guest cannot fit in a window of 20.00ms "
		  "(X must be at most Y)");
	CHECK_BAD("watch.stall 20ms\n", "t.conf:1: watch.stall takes X/Y, at "
		  "least X out of the guest within the last Y (e.g. "
		  "20ms/50ms), not '20ms'");
	CHECK_BAD("watch.exit 0\n", "t.conf:1: watch.exit must be more than 0");
	CHECK_BAD("watch.irq-latency 0\n", "t.conf:1: watch.irq-latency must "
		  "be more than 0");
	CHECK_BAD("watch.irq-latency 1.5\n", "t.conf:1: watch.irq-latency: "
		  "missing unit in '1.5' (use ns, us, ms or s)");
	CHECK_BAD("watch.irq-latency 2h\n", "t.conf:1: watch.irq-latency: "
		  "unknown unit 'h' in '2h' (use ns, us, ms or s)");
	CHECK_BAD("watch.irq-latency 3601s\n", "t.conf:1: watch.irq-latency "
		  "is at most 3600s, not '3601s'");
	CHECK_BAD("watch.history 0\n", "t.conf:1: watch.history takes a number "
		  "from 1 to 65536, not '0'");
	CHECK_BAD("watch.keep -1\n", "t.conf:1: watch.keep must be a positive "
		  "number, not '-1'");
	CHECK_BAD("watch.post 11s\n", "t.conf:1: watch.post is at most 10s, "
		  "not '11s'");
	CHECK_BAD("watch.vm no-such-vm-here\n", "t.conf:1: watch.vm "
		  "no-such-vm-here: no running VM of that name or UUID (nor a "
		  "pid)");
	CHECK_BAD("watch.vm -5\n", "t.conf:1: watch.vm -5: no running VM of "
		  "that name or UUID (nor a pid, which is decimal digits "
		  "only)");
	CHECK_BAD("watch.guest-mark 0\n", "t.conf:1: watch.guest-mark takes "
		  "the VMM's pid, not '0'");
	CHECK_BAD("watch.halt on\n", "t.conf:1: watch.halt is include or "
		  "exclude, not 'on'");
	CHECK_BAD("watch.max-size 0\n", "t.conf:1: watch.max-size must be more "
		  "than 0 (none: no limit)");
	CHECK_BAD("exporter.listen 9655\n", "t.conf:1: exporter.listen '9655': "
		  "ADDR:PORT wanted");
	CHECK_BAD("exporter.listen 127.0.0.1:99999\n", "t.conf:1: "
		  "exporter.listen '127.0.0.1:99999': port '99999' is no "
		  "number from 0 to 65535");
	CHECK_BAD("exporter.listen [fe80::zz]:9655\n", "t.conf:1: "
		  "exporter.listen '[fe80::zz]': not an address");
	CHECK_BAD("exporter.textfile /t\nexporter.interval 500ms\n",
		  "t.conf:2: exporter.interval must be at least 1s");
	CHECK_BAD("exporter.interval 5\n", "t.conf:1: exporter.interval: "
		  "missing unit in '5' (use ns, us, ms or s)");
	CHECK_INT(parse_n("threshold 1ms\nab\0cd\n", 20), -EINVAL);
	CHECK_INT(nr_msgs, 1);
	CHECK_STR(msgs[0], "t.conf:2: a NUL byte: this is no text");
}

/* Keys that mean nothing together: said at the line that is wrong. */
static void test_together(void)
{
	CHECK_BAD("threshold.on vmm\nthreshold 1ms\nthreshold.halt include\n",
		  "t.conf:3: threshold.halt goes with threshold.on total only, "
		  "not vmm (line 1)");
	CHECK_INT(parse("threshold.on total\nthreshold.halt exclude\n"), 0);
	CHECK_BAD("watch.stall 1ms/2ms\nwatch.on vmm\n",
		  "t.conf:2: watch.on goes with watch.exit");
	CHECK_BAD("watch.preempted 1ms\nwatch.halt include\n",
		  "t.conf:2: watch.halt goes with watch.exit or watch.stall");
	CHECK_BAD("watch.exit 1ms\nwatch.on vmm\nwatch.halt include\n",
		  "t.conf:3: watch.halt counts halt time toward watch.exit on "
		  "the total only, not watch.on vmm");
	/* Exclude is no halt: it goes with anything. */
	CHECK_INT(parse("watch.preempted 1ms\nwatch.halt exclude\n"), 0);
	CHECK_BAD("exporter.interval 30s\n", "t.conf:1: exporter.interval is "
		  "how often the textfile is written: it needs "
		  "exporter.textfile DIR");
}

/* One pass says every line that is wrong, in order; at most 20. */
static void test_all_errors(void)
{
	char big[4096] = "";

	CHECK_INT(parse("threshold 5\nfoo 1\nthreshold.on total\n"
			"filter.vcpu x\nbuffer.mode\n"), -EINVAL);
	CHECK_INT(nr_msgs, 4);
	CHECK_STR(msgs[0], "t.conf:1: threshold: missing unit in '5' (use ns, "
		  "us, ms or s)");
	CHECK_STR(msgs[1], "t.conf:2: unknown key 'foo'");
	CHECK_STR(msgs[2], "t.conf:4: filter.vcpu: bad vcpu list 'x' (want "
		  "e.g. 0,2-5)");
	CHECK_STR(msgs[3], "t.conf:5: buffer.mode needs discard or overwrite");

	for (int i = 0; i < 25; i++)
		strcat(big, "bad\n");
	CHECK_INT(parse(big), -EINVAL);
	CHECK_INT(nr_msgs, 21);
	CHECK_STR(msgs[19], "t.conf:20: unknown key 'bad'");
	CHECK_STR(msgs[20], "t.conf: 25 errors in all, the first 20 said");
}

/*
 * VM names: looked up for the parts the reader uses only (apply the
 * module's, watch the watch's, the exporter none), the others checked as
 * written; apply's error says the VM does not run and when names are
 * resolved, its file, line and key once.
 */
static void test_vm_names(void)
{
	const char *const web[] = { "-name", "unit-conf-web", NULL };
	const char *text = "filter.pid unit-conf-web\nwatch.vm unit-conf-web\n"
			   "watch.guest-mark unit-conf-web\n";
	const char *gone = "filter.pid unit-conf-gone\n"
			   "watch.vm unit-conf-gone\n";
	char longer[128];
	struct fake_vmm vmm;

	CHECK(fake_vmm_spawn(&vmm, "unit-conf-web", web));
	fake_reset();
	fake_vmm_row(vmm.pid, 1, false);
	/* apply: filter.pid's name made its VMM's pid; the watch's not. */
	parse_resolve = HVC_CONF_MODULE;
	CHECK_INT(parse(text), 0);
	CHECK_INT(nr_msgs, 0);
	CHECK_INT(conf.change.pid, vmm.pid);
	CHECK_STR(hvc_change_typed_at(&conf.change, HVTRACE_CFG_FILTER_PID, 0),
		  "t.conf:1: filter.pid unit-conf-web");
	CHECK_INT(conf.watch.w.pid, 0);
	CHECK_INT(conf.watch.w.mark_pid, 0);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	/* watch --config: the other way round. */
	parse_resolve = HVC_CONF_WATCH;
	CHECK_INT(parse(text), 0);
	CHECK_INT(conf.change.pid, 0);
	CHECK_INT(conf.watch.w.pid, vmm.pid);
	CHECK_INT(conf.watch.w.mark_pid, vmm.pid);
	fake_vmm_end(&vmm);

	/* No such VM: the exporter neither minds nor asks the module. */
	fake_reset();
	parse_resolve = 0;
	CHECK_INT(parse(gone), 0);
	CHECK_INT(nr_msgs, 0);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 0);
	/* It still checks what is written. */
	CHECK_BAD("filter.pid 0\n", "t.conf:1: filter.pid takes the VMM's "
		  "pid, not '0'");
	snprintf(longer, sizeof(longer), "watch.vm %064d\n", 1);
	longer[9] = 'x';
	CHECK_BAD(longer, "t.conf:1: watch.vm x000000000000000...: 64 bytes, "
		  "but VM names are at most 63 here (a longer one is cut, "
		  "shown ending in '\xe2\x80\xa6'): give its pid or UUID");
	/* watch: its own key's error alone. */
	parse_resolve = HVC_CONF_WATCH;
	CHECK_BAD(gone, "t.conf:2: watch.vm unit-conf-gone: no running VM of "
		  "that name or UUID (nor a pid)");
	/* apply: the module filters by pid, and a name is one pid. */
	parse_resolve = HVC_CONF_MODULE;
	CHECK_BAD(gone, "t.conf:1: filter.pid unit-conf-gone: no running VM "
		  "of that name or UUID (nor a pid): a name is resolved to "
		  "its VMM's pid once, when the file is applied (apply it "
		  "again once the VM runs)");
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 2);
	parse_resolve = HVC_CONF_MODULE | HVC_CONF_WATCH;
}

static void test_read(void)
{
	nr_msgs = 0;
	CHECK_INT(hvc_conf_read("/nonexistent/hvtrace.conf", 0, &conf), -ENOENT);
	CHECK_INT(nr_msgs, 1);
	CHECK_STR(msgs[0], "cannot read /nonexistent/hvtrace.conf: No such "
		  "file or directory");
	CHECK_INT(hvc_conf_read("/", 0, &conf), -EISDIR);
	CHECK_INT(nr_msgs, 2);
	CHECK_STR(msgs[1], "cannot read /: Is a directory");
	CHECK_INT(hvc_conf_read("/dev/null", 0, &conf), 0);
	check_defaults(&conf.change);
}

/* CFG written: the text. */
static char *written(const struct hvc_config *cfg)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	hvc_conf_write(f, cfg);
	fclose(f);
	return text;
}

/* The configuration the change CH makes of the defaults, as the module
 * would (filters and overrides cleared first, as the change says). */
static void made_by(struct hvc_config *c, const struct hvc_change *ch)
{
	static uint64_t vcpus[(HVTRACE_MAX_VCPU_ID + 64) / 64], cpus[128];
	static struct hvc_reason thr[HVC_MAX_REASONS], rsn[HVC_MAX_REASONS];

	CHECK(ch->set & HVC_CH_CLEAR_FILTERS);
	CHECK(ch->set & HVC_CH_CLEAR_THRESHOLDS);
	memcpy(vcpus, ch->vcpus, sizeof(vcpus));
	memcpy(cpus, ch->cpus, sizeof(cpus));
	memcpy(thr, ch->thresholds, sizeof(thr));
	memcpy(rsn, ch->reasons, sizeof(rsn));
	*c = (struct hvc_config){
		.threshold_ns = ch->threshold_ns,
		.threshold_on = ch->threshold_on,
		.halt_triggers = ch->halt_triggers,
		.preempt_threshold_ns = ch->preempt_threshold_ns,
		.irq_threshold_ns = ch->irq_threshold_ns,
		.thresholds = thr, .nr_thresholds = ch->nr_thresholds,
		.pid = ch->pid,
		.vcpus = { vcpus, ch->nr_vcpu_words * 64 },
		.cpus = { cpus, ch->nr_cpu_words * 64 },
		.rip_min = ch->set & HVC_CH_RIP ? ch->rip_min : 0,
		.rip_max = ch->set & HVC_CH_RIP ? ch->rip_max : UINT64_MAX,
		.reason_filter = ch->nr_reasons > 0,
		.reasons = rsn, .nr_reasons = ch->nr_reasons,
		.buffer_kb = ch->buffer_kb, .mode = ch->mode,
	};
}

/* Saved, applied, saved: the same text, and the same configuration. */
static void check_round_trip(const struct hvc_config *cfg, const char *want)
{
	struct hvc_config back;
	char *text = written(cfg), *again;

	CHECK_STR(text, want);
	CHECK_INT(parse(text), 0);
	CHECK_INT(nr_msgs, 0);
	made_by(&back, &conf.change);
	CHECK_U64(back.threshold_ns, cfg->threshold_ns);
	CHECK_INT(back.threshold_on, cfg->threshold_on);
	CHECK_U64(back.preempt_threshold_ns, cfg->preempt_threshold_ns);
	CHECK_U64(back.irq_threshold_ns, cfg->irq_threshold_ns);
	CHECK_INT(back.nr_thresholds, cfg->nr_thresholds);
	for (unsigned int i = 0; i < cfg->nr_thresholds; i++)
		CHECK(back.thresholds[i].isa == cfg->thresholds[i].isa &&
		      back.thresholds[i].code == cfg->thresholds[i].code &&
		      back.thresholds[i].threshold_ns ==
		      cfg->thresholds[i].threshold_ns);
	CHECK_INT(back.nr_reasons, cfg->nr_reasons);
	for (unsigned int i = 0; i < cfg->nr_reasons; i++)
		CHECK(back.reasons[i].isa == cfg->reasons[i].isa &&
		      back.reasons[i].code == cfg->reasons[i].code);
	for (unsigned int i = 0; i < cfg->vcpus.nbits; i++)
		CHECK_INT(has_bit(back.vcpus.w, i), has_bit(cfg->vcpus.w, i));
	for (unsigned int i = 0; i < cfg->cpus.nbits; i++)
		CHECK_INT(has_bit(back.cpus.w, i), has_bit(cfg->cpus.w, i));
	CHECK_INT(back.pid, cfg->pid);
	CHECK_U64(back.rip_min, cfg->rip_min);
	CHECK_U64(back.rip_max, cfg->rip_max);
	CHECK_INT(back.buffer_kb, cfg->buffer_kb);
	CHECK_INT(back.mode, cfg->mode);
	again = written(&back);
	CHECK_STR(again, text);
	free(again);
	free(text);
}

static void test_write(void)
{
	uint64_t vcpus[2] = { 0x2d, 1ULL << 63 }, cpus[1] = { 0x7 };
	struct hvc_reason thr[] = {
		{ HVTRACE_ISA_VMX, 48, 20000 },		/* EPT_VIOLATION */
		{ HVTRACE_ISA_VMX, 12, 1500000 },	/* HLT, on both */
		{ HVTRACE_ISA_SVM, 0x78, 1500000 },
		{ HVTRACE_ISA_SVM, 0x7777, 7 },		/* no name */
	};
	struct hvc_reason rsn[] = {
		{ HVTRACE_ISA_SVM, 0x400, 0 }, { HVTRACE_ISA_SVM, 0x7b, 0 },
		{ HVTRACE_ISA_VMX, 0x7fff, 0 },
	};
	struct hvc_config c = {
		.threshold_on = HVTRACE_ON_TOTAL,
		.irq_threshold_ns = HVTRACE_IRQ_THRESHOLD_OFF,
		.rip_max = UINT64_MAX,
		.buffer_kb = HVTRACE_BUFFER_KB_DEFAULT,
	};

	/* The defaults. */
	check_round_trip(&c, "# hvtrace.conf(5): the module's configuration, "
			 "from 'hvctl config --save'\n"
			 "threshold 0ns\n"
			 "threshold.on total\n"
			 "threshold.halt exclude\n"
			 "threshold.preemptions 0ns\n"
			 "threshold.interrupts off\n"
			 "filter.pid any\n"
			 "filter.vcpu any\n"
			 "filter.cpu any\n"
			 "filter.reason any\n"
			 "filter.rip any\n"
			 "buffer.size 2560K\n"
			 "buffer.mode discard\n");

	c = (struct hvc_config){
		.threshold_ns = 50000, .threshold_on = HVTRACE_ON_RUNNABLE,
		.halt_triggers = 1, .preempt_threshold_ns = 3600000000000ULL,
		.irq_threshold_ns = 150000,
		.thresholds = thr, .nr_thresholds = 4, .pid = 4242,
		.vcpus = { vcpus, 128 }, .cpus = { cpus, 64 },
		.rip_min = 0, .rip_max = 0xffff, .reason_filter = true,
		.reasons = rsn, .nr_reasons = 3, .buffer_kb = 256 * 1024,
		.mode = HVTRACE_MODE_OVERWRITE,
	};
	/* Halt's bit means nothing with another part: not written. */
	check_round_trip(&c, "# hvtrace.conf(5): the module's configuration, "
			 "from 'hvctl config --save'\n"
			 "threshold 50us\n"
			 "threshold.on runnable\n"
			 "threshold.preemptions 3600s\n"
			 "threshold.interrupts 150us\n"
			 "threshold.reason EPT_VIOLATION 20us\n"
			 "threshold.reason vmx:HLT 1500us\n"
			 "threshold.reason svm:HLT 1500us\n"
			 "threshold.reason svm:0x7777 7ns\n"
			 "filter.pid 4242\n"
			 "filter.vcpu 0,2-3,5,127\n"
			 "filter.cpu 0-2\n"
			 "filter.reason svm:NPF,IOIO,vmx:0x7fff\n"
			 "filter.rip 0x0-0xffff\n"
			 "buffer.size 256M\n"
			 "buffer.mode overwrite\n");

	c.threshold_on = HVTRACE_ON_TOTAL;
	c.buffer_kb = 4097;
	c.rip_min = 0x1000;
	c.rip_max = UINT64_MAX;
	c.nr_thresholds = 0;
	c.nr_reasons = 0;
	c.reason_filter = false;
	c.vcpus = (struct hvc_bitmap){ NULL, 0 };
	c.irq_threshold_ns = 0;
	check_round_trip(&c, "# hvtrace.conf(5): the module's configuration, "
			 "from 'hvctl config --save'\n"
			 "threshold 50us\n"
			 "threshold.on total\n"
			 "threshold.halt include\n"
			 "threshold.preemptions 3600s\n"
			 "threshold.interrupts 0ns\n"
			 "filter.pid 4242\n"
			 "filter.vcpu any\n"
			 "filter.cpu 0-2\n"
			 "filter.reason any\n"
			 "filter.rip 0x1000-0xffffffffffffffff\n"
			 "buffer.size 4097K\n"
			 "buffer.mode overwrite\n");
}

/* Every reason hvctl knows, each a word that means it alone. */
static void test_every_reason(void)
{
	static struct hvc_reason all[HVC_MAX_REASONS];
	struct hvc_config c = {
		.rip_max = UINT64_MAX, .buffer_kb = 4,
		.reasons = all, .reason_filter = true,
	};
	struct hvc_change *ch = &conf.change;
	char *text;

	for (unsigned int isa = HV_ISA_VMX; isa <= HV_ISA_SVM; isa++)
		for (int i = 0; i < exit_reason_count(isa); i++)
			all[c.nr_reasons++] = (struct hvc_reason){
				isa, exit_reason_at(isa, i)->code, 0,
			};
	text = written(&c);
	CHECK_INT(parse(text), 0);
	CHECK_INT(ch->nr_reasons, c.nr_reasons);
	for (unsigned int i = 0; i < c.nr_reasons && i < ch->nr_reasons; i++)
		CHECK_MSG(ch->reasons[i].isa == all[i].isa &&
			  ch->reasons[i].code == all[i].code,
			  "entry %u: %u/0x%x, want %u/0x%x", i,
			  ch->reasons[i].isa, ch->reasons[i].code,
			  all[i].isa, all[i].code);
	free(text);
}

/* The shipped file: it sets nothing, and shows every key. */
static void test_shipped(void)
{
	char path[PATH_MAX], *text = NULL, *set, *line, *save = NULL;
	size_t cap = 0;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 40);
	FILE *f;

	CHECK(n > 0);
	path[n > 0 ? n : 0] = '\0';
	/* build/unit/config_file_test -> etc/hvtrace.conf */
	for (int up = 0; up < 3 && strrchr(path, '/'); up++)
		*strrchr(path, '/') = '\0';
	strcat(path, "/etc/hvtrace.conf");
	nr_msgs = 0;
	CHECK_INT(hvc_conf_read(path, HVC_CONF_MODULE | HVC_CONF_WATCH,
				&conf), 0);
	CHECK_INT(nr_msgs, 0);
	check_defaults(&conf.change);
	CHECK_INT(conf.watch.given, 0);
	CHECK_INT(conf.exporter.given, 0);

	/* Each "#key value" set: the file still good, every key there. */
	f = fopen(path, "r");
	CHECK(f);
	if (!f)
		return;
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	set = calloc(1, n + 1);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool key = line[0] == '#' && line[1] >= 'a' && line[1] <= 'z';

		strcat(set, line + key);
		strcat(set, "\n");
	}
	CHECK_INT(parse(set), 0);
	for (int i = 0; i < nr_msgs; i++)
		CHECK_STR(msgs[i], "");
	CHECK_INT(conf.watch.given, (1 << HVC_WK_NR) - 1);
	CHECK_INT(conf.exporter.given, (1 << HVC_EK_NR) - 1);
	CHECK_INT(conf.change.set & (HVC_CH_PID | HVC_CH_VCPUS | HVC_CH_CPUS |
				     HVC_CH_REASONS | HVC_CH_RIP |
				     HVC_CH_REASON_THRESHOLDS),
		  HVC_CH_PID | HVC_CH_VCPUS | HVC_CH_CPUS | HVC_CH_REASONS |
		  HVC_CH_RIP | HVC_CH_REASON_THRESHOLDS);
	/* The defaults it shows are the defaults. */
	CHECK_U64(conf.change.threshold_ns, 0);
	CHECK_U64(conf.change.irq_threshold_ns, HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK(hvc_change_typed_at(&conf.change, HVTRACE_CFG_IRQ_THRESHOLD_NS,
				  0));
	CHECK_INT(conf.change.buffer_kb, HVTRACE_BUFFER_KB_DEFAULT);
	CHECK_INT(conf.watch.w.history, HVTRACE_WATCH_HISTORY_DEFAULT);
	CHECK_U64(conf.watch.w.post_ns, HVTRACE_WATCH_POST_NS_DEFAULT);
	CHECK_INT(conf.watch.w.rate, HVTRACE_WATCH_RATE_DEFAULT);
	CHECK_INT(conf.watch.w.rate_total, HVTRACE_WATCH_RATE_TOTAL_DEFAULT);
	free(set);
	free(text);
}

int main(void)
{
	hvc_set_err_sink(sink, NULL);
	test_empty_and_comments();
	test_module_keys();
	test_watch_and_exporter_keys();
	test_listen_len();
	test_errors();
	test_together();
	test_all_errors();
	test_vm_names();
	test_read();
	test_write();
	test_every_reason();
	test_shipped();
	return unit_report();
}
