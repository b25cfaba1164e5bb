// SPDX-License-Identifier: GPL-2.0
/*
 * The commands of hvtrace.conf(5): hvctl apply sends a good file as
 * exactly one SET_CONFIG whose attributes are the whole configuration
 * (both CLEAR flags first, every default), and nothing at all for a bad
 * file; --check opens no session; a refusal names the file's line;
 * hvctl config --save writes a canned GET_CONFIG as the file, which
 * applied (the module played by made_config()) and saved again is the
 * same text (hvctl watch --config: cmd_watch_test.c).
 */
#include <fcntl.h>

#include "fake_nl.h"

static char top[64];

/* TEXT written into NAME under the test's directory: its path. */
static char *file(const char *name, const char *text)
{
	static char paths[4][128];
	static unsigned int next;
	char *p = paths[next++ % 4];
	FILE *f;

	snprintf(p, sizeof(paths[0]), "%s/%s", top, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	return p;
}

#define APPLY(...) ({							\
	fake_reset();							\
	FAKE_RUN(hvctl_cmd_apply, "apply", __VA_ARGS__, NULL);		\
})

/* The last SET_CONFIG's CONFIG nest, or NULL. */
static const struct nlattr *sent_nest(void)
{
	const struct nlmsghdr *nlh = (const void *)fake_set_config;
	const struct nlattr *a;

	if (!nlh->nlmsg_len)
		return NULL;
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == HVTRACE_A_CONFIG)
			return a;
	return NULL;
}

/* The types of the last SET_CONFIG's attributes, in order: "1,13,2". */
static const char *sent_types(void)
{
	static char buf[1024];
	const struct nlattr *nest = sent_nest(), *a;
	size_t n = 0;

	buf[0] = '\0';
	if (!nest)
		return buf;
	mnl_attr_for_each_nested(a, nest)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%u", n ? "," : "",
			      mnl_attr_get_type(a));
	return buf;
}

static uint64_t cfg_u64(uint16_t type)
{
	return hvnl_u64(fake_req_cfg(type));
}

static int cfg_u8(uint16_t type)
{
	const struct nlattr *a = fake_req_cfg(type);

	return a ? hvnl_u8(a) : -1;
}

/* "ISA/CODE/NS;..." of the REASON_THRESHOLD entries sent, in order. */
static const char *sent_thresholds(void)
{
	static char buf[1024];
	const struct nlattr *nest = sent_nest(), *a;
	const struct nlattr *tb[HVTRACE_RSN_MAX + 1];
	size_t n = 0;

	buf[0] = '\0';
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != HVTRACE_CFG_REASON_THRESHOLD ||
		    hvnl_parse_nested(a, tb, HVTRACE_RSN_MAX, hvc_policy_rsn))
			continue;
		n += snprintf(buf + n, sizeof(buf) - n, "%u/0x%x/%" PRIu64 ";",
			      hvnl_u8(tb[HVTRACE_RSN_ISA]),
			      hvnl_u32(tb[HVTRACE_RSN_CODE]),
			      hvnl_u64(tb[HVTRACE_RSN_THRESHOLD_NS]));
	}
	return buf;
}

/* Attribute types, as sent_types() writes them. */
#define T(x) HVTRACE_CFG_##x

static void test_apply(void)
{
	char *path = file("full.conf",
				"# a host's configuration\n"
				"threshold 50us\n"
				"threshold.on runnable\n"
				"threshold.preemptions 1ms\n"
				"threshold.interrupts 200us\n"
				"threshold.reason cpuid 2us\n"
				"threshold.reason svm:npf 3us\n"
				"filter.pid 4242\n"
				"filter.cpu 1,3\n"
				"buffer.size 4M\n"
				"buffer.mode overwrite\n"
				"watch.stall 20ms/50ms\n"
				"exporter.listen 127.0.0.1:9655\n");
	uint64_t cpus;
	char want[128];

	CHECK_INT(APPLY(path), 0);
	CHECK_STR(fake_err, "");
	/* One request, a SET_CONFIG, in one session. */
	CHECK_INT(fake_opens, 1);
	CHECK_INT(fake_requests, 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 1);
	/* The clears first; then what the file says, the rest its default. */
	snprintf(want, sizeof(want),
		 "%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u,%u",
		 T(FILTERS_CLEAR), T(REASON_THRESHOLDS_CLEAR),
		 T(PREEMPT_THRESHOLD_NS), T(IRQ_THRESHOLD_NS), T(THRESHOLD_NS),
		 T(THRESHOLD_ON), T(REASON_THRESHOLD), T(REASON_THRESHOLD),
		 T(REASON_THRESHOLD),
		 T(HALT_TRIGGERS), T(FILTER_PID), T(FILTER_CPUS),
		 T(BUFFER_KB), T(MODE));
	CHECK_STR(sent_types(), want);
	CHECK_U64(cfg_u64(T(THRESHOLD_NS)), 50000);
	CHECK_INT(cfg_u8(T(THRESHOLD_ON)), HVTRACE_ON_RUNNABLE);
	CHECK_INT(cfg_u8(T(HALT_TRIGGERS)), 0);
	CHECK_U64(cfg_u64(T(PREEMPT_THRESHOLD_NS)), 1000000);
	CHECK_U64(cfg_u64(T(IRQ_THRESHOLD_NS)), 200000);
	/* cpuid: both vendors; svm:npf: SVM's NPF only. */
	CHECK_STR(sent_thresholds(), "1/0xa/2000;2/0x72/2000;2/0x400/3000;");
	CHECK_INT(hvnl_u32(fake_req_cfg(T(FILTER_PID))), 4242);
	CHECK_INT(mnl_attr_get_payload_len(fake_req_cfg(T(FILTER_CPUS))), 8);
	memcpy(&cpus, mnl_attr_get_payload(fake_req_cfg(T(FILTER_CPUS))), 8);
	CHECK_U64(cpus, 0xa);
	CHECK_INT(hvnl_u32(fake_req_cfg(T(BUFFER_KB))), 4096);
	CHECK_INT(cfg_u8(T(MODE)), HVTRACE_MODE_OVERWRITE);
}

/* A file that names nothing: the defaults, the filters and overrides gone. */
static void test_defaults(void)
{
	char want[128];

	CHECK_INT(APPLY(file("empty.conf", "# nothing\n")), 0);
	CHECK_INT(fake_requests, 1);
	snprintf(want, sizeof(want), "%u,%u,%u,%u,%u,%u,%u,%u,%u",
		 T(FILTERS_CLEAR), T(REASON_THRESHOLDS_CLEAR),
		 T(PREEMPT_THRESHOLD_NS), T(IRQ_THRESHOLD_NS), T(THRESHOLD_NS),
		 T(THRESHOLD_ON), T(HALT_TRIGGERS), T(BUFFER_KB), T(MODE));
	CHECK_STR(sent_types(), want);
	CHECK_U64(cfg_u64(T(THRESHOLD_NS)), 0);
	CHECK_INT(cfg_u8(T(THRESHOLD_ON)), HVTRACE_ON_TOTAL);
	CHECK_INT(cfg_u8(T(HALT_TRIGGERS)), 0);
	CHECK_U64(cfg_u64(T(PREEMPT_THRESHOLD_NS)), 0);
	/* Late interrupt records: off, as the module loads. */
	CHECK_U64(cfg_u64(T(IRQ_THRESHOLD_NS)), HVTRACE_IRQ_THRESHOLD_OFF);
	CHECK_INT(hvnl_u32(fake_req_cfg(T(BUFFER_KB))), 2560);
	CHECK_INT(cfg_u8(T(MODE)), HVTRACE_MODE_DISCARD);
}

/* A bad file: exit 1, its first error said, nothing opened or sent. */
static void test_bad(void)
{
	char *path = file("bad.conf", "threshold 50us\n"
				"filter.pid 4242\n"
				"buffer.mode fast\n");
	char want[256];

	CHECK_INT(APPLY(path), 1);
	snprintf(want, sizeof(want), "%s:3: buffer.mode: mode is discard or "
		 "overwrite, not 'fast'", path);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_opens, 0);
	CHECK_INT(fake_requests, 0);
	CHECK_INT(sent_nest() == NULL, 1);

	/* A bad watch or exporter key spoils the whole file too. */
	path = file("bad2.conf", "threshold 50us\nwatch.rate 0\n");
	CHECK_INT(APPLY(path), 1);
	snprintf(want, sizeof(want), "%s:2: watch.rate takes a number from 1 "
		 "to 3600, not '0'", path);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_requests, 0);

	CHECK_INT(APPLY(top), 1);
	snprintf(want, sizeof(want), "cannot read %s: Is a directory", top);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_opens, 0);
}

/* --check: the file only; no session, so no module needed. */
static void test_check(void)
{
	char *good = file("good.conf", "threshold 1ms\n");
	char *bad = file("bad.conf", "\nthreshold 1\n");
	char want[256];

	fake_reset();
	fake_open_err = -ENOENT;
	CHECK_INT(FAKE_RUN(hvctl_cmd_apply, "apply", "--check", good, NULL), 0);
	CHECK_INT(fake_opens, 0);
	CHECK_STR(fake_err, "");
	CHECK_INT(APPLY(bad, "--check"), 1);
	snprintf(want, sizeof(want), "%s:2: threshold: missing unit in '1' "
		 "(use ns, us, ms or s)", bad);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_opens, 0);
}

/*
 * A VM name: --check takes it as written, without the module; applied,
 * a VM that does not run is an error that says when names are resolved,
 * and nothing is sent.
 */
static void test_vm_name(void)
{
	char *path = file("name.conf", "filter.pid unit-not-running\n");
	char want[512];

	fake_reset();
	fake_open_err = -ENOENT;
	CHECK_INT(APPLY(path, "--check"), 0);
	CHECK_INT(fake_opens, 0);
	CHECK_STR(fake_err, "");
	fake_reset();
	CHECK_INT(APPLY(path), 1);
	snprintf(want, sizeof(want), "%s:1: filter.pid unit-not-running: no "
		 "running VM of that name or UUID (nor a pid): a name is "
		 "resolved to its VMM's pid once, when the file is applied "
		 "(apply it again once the VM runs)", path);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_SET_CONFIG][0], 0);
}

/* PATH applied, the module refusing ATTR with ERR and MSG: says WANT. */
static void check_refused(char *path, int err, const char *msg,
			  uint16_t attr, const char *want)
{
	fake_reset();
	fake_refuse(HVTRACE_CMD_SET_CONFIG, err, msg, attr);
	CHECK_INT(FAKE_RUN(hvctl_cmd_apply, "apply", path, NULL), 1);
	CHECK_STR(fake_err, want);
	CHECK_INT(fake_requests, 1);
}

/* The module's refusal names the file, the line and the key. */
static void test_refused(void)
{
	char *path = file("host.conf", "threshold 1ms\n\n"
				"filter.cpu 4000\n");

	check_refused(path, ERANGE, "no such CPU in the CPU filter",
		      T(FILTER_CPUS), "no such CPU in the CPU filter "
		      "(host.conf:3: filter.cpu 4000)");
	/* A default it sent, while recording. */
	check_refused(path, EBUSY, "stop recording and reading before "
		      "changing the buffers", T(BUFFER_KB), "stop recording "
		      "and reading before changing the buffers (host.conf "
		      "sets no buffer.size: the default 2560K)");
	/* Late interrupt records' threshold, as the file wrote it. */
	check_refused(file("irq.conf", "threshold.interrupts off\n"), ERANGE,
		      "interrupt threshold over an hour, and not off",
		      T(IRQ_THRESHOLD_NS), "interrupt threshold over an hour, "
		      "and not off (irq.conf:1: threshold.interrupts off)");
}

static void test_usage(void)
{
	CHECK_INT(APPLY("--check"), 2);
	CHECK_STR(fake_err, "no FILE (- for standard input)");
	CHECK_INT(APPLY("a.conf", "b.conf"), 2);
	CHECK_STR(fake_err, "unexpected argument 'b.conf'");
	CHECK_INT(APPLY("a.conf", "--force"), 2);
	CHECK_STR(fake_err, "unknown option '--force'");
	CHECK_INT(fake_opens, 0);
}

/* "-": the file on standard input. */
static void test_stdin(void)
{
	int saved = dup(STDIN_FILENO), fd;

	fd = open(file("in.conf", "threshold 3us\n"), O_RDONLY);
	dup2(fd, STDIN_FILENO);
	close(fd);
	CHECK_INT(APPLY("-"), 0);
	CHECK_U64(cfg_u64(T(THRESHOLD_NS)), 3000);
	fd = open(file("in.conf", "threshold 3us\nthreshold 4us\n"), O_RDONLY);
	dup2(fd, STDIN_FILENO);
	close(fd);
	clearerr(stdin);
	CHECK_INT(APPLY("-"), 1);
	CHECK_STR(fake_err, "<stdin>:2: threshold given twice (first at line "
		  "1)");
	CHECK_INT(fake_requests, 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	clearerr(stdin);
}

/* ---- config --save ------------------------------------------------- */

/* A configuration, as the module's GET_CONFIG dump gives it. */
struct canned {
	uint64_t thr, preempt, irq;
	uint8_t on, halt, mode;
	uint32_t pid, buffer_kb;
	uint64_t vcpus[2], cpus[2];
	unsigned int vcpu_words, cpu_words;
	uint64_t rip_min, rip_max;
	struct hvc_reason thresholds[8], reasons[8];
	unsigned int nr_thresholds, nr_reasons;
};

static void put_rsn(struct nlmsghdr *nlh, uint16_t type,
		    const struct hvc_reason *r, bool thr)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, r->isa);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, r->code);
	if (thr)
		mnl_attr_put_u64(nlh, HVTRACE_RSN_THRESHOLD_NS,
				 r->threshold_ns);
	mnl_attr_nest_end(nlh, n);
}

/* C as the dump: the settings, then the overrides and the reason filter. */
static void put_canned(const struct canned *c)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest, *list;

	fake_reset();
	nlh = fake_dump(HVTRACE_CMD_GET_CONFIG);
	nest = mnl_attr_nest_start(nlh, HVTRACE_A_CONFIG);
	mnl_attr_put_u64(nlh, T(THRESHOLD_NS), c->thr);
	mnl_attr_put_u32(nlh, T(FILTER_PID), c->pid);
	mnl_attr_put_u64(nlh, T(FILTER_RIP_MIN), c->rip_min);
	mnl_attr_put_u64(nlh, T(FILTER_RIP_MAX), c->rip_max);
	mnl_attr_put_u32(nlh, T(BUFFER_KB), c->buffer_kb);
	mnl_attr_put_u8(nlh, T(MODE), c->mode);
	mnl_attr_put_u8(nlh, T(THRESHOLD_ON), c->on);
	mnl_attr_put_u8(nlh, T(HALT_TRIGGERS), c->halt);
	mnl_attr_put_u64(nlh, T(PREEMPT_THRESHOLD_NS), c->preempt);
	mnl_attr_put_u64(nlh, T(IRQ_THRESHOLD_NS), c->irq);
	mnl_attr_put(nlh, T(FILTER_VCPUS), c->vcpu_words * 8, c->vcpus);
	mnl_attr_put(nlh, T(FILTER_CPUS), c->cpu_words * 8, c->cpus);
	mnl_attr_nest_end(nlh, nest);
	nlh = fake_dump(HVTRACE_CMD_GET_CONFIG);
	nest = mnl_attr_nest_start(nlh, HVTRACE_A_CONFIG);
	for (unsigned int i = 0; i < c->nr_thresholds; i++)
		put_rsn(nlh, T(REASON_THRESHOLD), &c->thresholds[i], true);
	if (c->nr_reasons) {
		list = mnl_attr_nest_start(nlh, T(FILTER_REASONS));
		for (unsigned int i = 0; i < c->nr_reasons; i++)
			put_rsn(nlh, HVTRACE_A_REASON, &c->reasons[i], false);
		mnl_attr_nest_end(nlh, list);
	}
	mnl_attr_nest_end(nlh, nest);
}

/* A reason nest of a request: ISA, CODE and a threshold (or 0). */
static struct hvc_reason reason_of(const struct nlattr *nest)
{
	const struct nlattr *tb[HVTRACE_RSN_MAX + 1] = { 0 };

	hvnl_parse_nested(nest, tb, HVTRACE_RSN_MAX, hvc_policy_rsn);
	return (struct hvc_reason){
		hvnl_u8(tb[HVTRACE_RSN_ISA]), hvnl_u32(tb[HVTRACE_RSN_CODE]),
		hvnl_u64(tb[HVTRACE_RSN_THRESHOLD_NS]),
	};
}

/*
 * What the module holds after the last SET_CONFIG, applied to anything
 * (it clears the filters and the overrides first): into C.
 */
static void made_config(struct canned *c)
{
	const struct nlattr *nest = sent_nest(), *a, *r;

	memset(c, 0, sizeof(*c));
	c->rip_max = UINT64_MAX;
	if (!CHECK(nest && fake_req_cfg(T(FILTERS_CLEAR)) &&
		   fake_req_cfg(T(REASON_THRESHOLDS_CLEAR))))
		return;
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case T(THRESHOLD_NS):
			c->thr = hvnl_u64(a);
			break;
		case T(THRESHOLD_ON):
			c->on = hvnl_u8(a);
			break;
		case T(HALT_TRIGGERS):
			c->halt = hvnl_u8(a);
			break;
		case T(PREEMPT_THRESHOLD_NS):
			c->preempt = hvnl_u64(a);
			break;
		case T(IRQ_THRESHOLD_NS):
			c->irq = hvnl_u64(a);
			break;
		case T(FILTER_PID):
			c->pid = hvnl_u32(a);
			break;
		case T(FILTER_VCPUS):
			c->vcpu_words = mnl_attr_get_payload_len(a) / 8;
			memcpy(c->vcpus, mnl_attr_get_payload(a),
			       mnl_attr_get_payload_len(a));
			break;
		case T(FILTER_CPUS):
			c->cpu_words = mnl_attr_get_payload_len(a) / 8;
			memcpy(c->cpus, mnl_attr_get_payload(a),
			       mnl_attr_get_payload_len(a));
			break;
		case T(FILTER_RIP_MIN):
			c->rip_min = hvnl_u64(a);
			break;
		case T(FILTER_RIP_MAX):
			c->rip_max = hvnl_u64(a);
			break;
		case T(BUFFER_KB):
			c->buffer_kb = hvnl_u32(a);
			break;
		case T(MODE):
			c->mode = hvnl_u8(a);
			break;
		case T(REASON_THRESHOLD):
			c->thresholds[c->nr_thresholds++] = reason_of(a);
			break;
		case T(FILTER_REASONS):
			mnl_attr_for_each_nested(r, a)
				c->reasons[c->nr_reasons++] = reason_of(r);
			break;
		}
	}
}

static char *save(void)
{
	return FAKE_OUTPUT(false, hvctl_cmd_config, "config", "--save", NULL);
}

static const struct canned host = {
	.thr = 20000, .preempt = 500000, .irq = 3600000000000ULL,
	.on = HVTRACE_ON_TOTAL, .halt = 1,
	.mode = HVTRACE_MODE_OVERWRITE, .pid = 4242, .buffer_kb = 65536,
	.vcpus = { 0x3 }, .vcpu_words = 1, .cpus = { 0, 0x1 }, .cpu_words = 2,
	.rip_min = 0x1000, .rip_max = 0x1fff,
	.thresholds = {
		{ HVTRACE_ISA_SVM, 0x72, 1000 },	/* CPUID */
		{ HVTRACE_ISA_SVM, 0x400, 5000000 },	/* NPF */
	},
	.nr_thresholds = 2,
	.reasons = {
		{ HVTRACE_ISA_SVM, 0x7b, 0 },	/* IOIO */
		{ HVTRACE_ISA_SVM, 0x7c, 0 },	/* MSR */
	},
	.nr_reasons = 2,
};

static const char host_text[] =
	"# hvtrace.conf(5): the module's configuration, from 'hvctl config "
	"--save'\n"
	"threshold 20us\n"
	"threshold.on total\n"
	"threshold.halt include\n"
	"threshold.preemptions 500us\n"
	"threshold.interrupts 3600s\n"
	"threshold.reason svm:CPUID 1us\n"
	"threshold.reason svm:NPF 5ms\n"
	"filter.pid 4242\n"
	"filter.vcpu 0-1\n"
	"filter.cpu 64\n"
	"filter.reason IOIO,svm:MSR\n"
	"filter.rip 0x1000-0x1fff\n"
	"buffer.size 64M\n"
	"buffer.mode overwrite\n";

static void test_save(void)
{
	char *out;

	put_canned(&host);
	out = save();
	CHECK_STR(out, host_text);
	/* Read with the dump, and only that. */
	CHECK_INT(fake_requests, 1);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_CONFIG][1], 1);
	free(out);

	fake_reset();
	hvctl_json = true;
	CHECK_INT(FAKE_RUN(hvctl_cmd_config, "config", "--save", NULL), 2);
	hvctl_json = false;
	CHECK_STR(fake_err, "--save writes hvtrace.conf(5), not JSON: no -j "
		  "with it");
	CHECK_INT(fake_opens, 0);
	/* Plain config is as it was. */
	put_canned(&host);
	out = FAKE_OUTPUT(false, hvctl_cmd_config, "config", NULL);
	CHECK_HAS(out, "threshold:           20.0us\n");
	CHECK_HAS(out, "interrupt threshold: 3600.000s\n");
	free(out);
}

/* Saved, applied, saved again: the same text. */
static void round_trip(const struct canned *c, const char *name)
{
	struct canned made;
	char *first, *second;

	put_canned(c);
	first = save();
	CHECK_INT(APPLY(file(name, first)), 0);
	CHECK_INT(fake_requests, 1);
	made_config(&made);
	put_canned(&made);
	second = save();
	CHECK_STR(second, first);
	free(first);
	free(second);
}

static void test_round_trip(void)
{
	struct canned c = host;

	round_trip(&host, "host.conf");
	c = (struct canned){ .on = HVTRACE_ON_TOTAL, .rip_max = UINT64_MAX,
			     .irq = HVTRACE_IRQ_THRESHOLD_OFF,
			     .buffer_kb = 2560 };
	round_trip(&c, "defaults.conf");
	c = host;
	c.on = HVTRACE_ON_HALT;
	c.thresholds[0] = (struct hvc_reason){ HVTRACE_ISA_VMX, 0x7fff, 1 };
	c.reasons[1] = (struct hvc_reason){ HVTRACE_ISA_VMX, 48, 0 };
	c.buffer_kb = 4;
	c.mode = HVTRACE_MODE_DISCARD;
	c.rip_min = 0;
	c.rip_max = UINT64_MAX;
	c.vcpu_words = 0;
	c.irq = 0;
	round_trip(&c, "other.conf");
}

int main(void)
{
	char cmd[128];

	snprintf(top, sizeof(top), "/tmp/hvctl-apply-test.XXXXXX");
	if (!mkdtemp(top))
		return 1;
	test_apply();
	test_defaults();
	test_bad();
	test_check();
	test_vm_name();
	test_refused();
	test_usage();
	test_stdin();
	test_save();
	test_round_trip();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		CHECK(0);
	return unit_report();
}
