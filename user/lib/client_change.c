// SPDX-License-Identifier: GPL-2.0
/*
 * Changes of configuration: each part parsed and checked from what the
 * user typed into a struct hvc_change, then the whole change sent as one
 * SET_CONFIG. When the module refuses it, its extended ACK points at an
 * attribute of the request, which names the option the user typed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "duration.h"
#include "util.h"
#include "vm_ident.h"

/*
 * OPT S typed for occurrences FIRST..FIRST+COUNT-1 of ATTR. A single
 * attribute (COUNT 1 at 0) typed again takes the later text; past
 * HVC_MAX_TYPED the text is not kept, and a refusal names no option.
 */
static void typed_range(struct hvc_change *ch, uint16_t attr,
			unsigned int first, unsigned int count,
			const char *opt, const char *s)
{
	struct hvc_typed *t = NULL;

	for (unsigned int i = 0; i < ch->nr_typed; i++)
		if (ch->typed[i].attr == attr && ch->typed[i].first == first)
			t = &ch->typed[i];
	if (!t && ch->nr_typed < HVC_MAX_TYPED)
		t = &ch->typed[ch->nr_typed++];
	if (!t)
		return;
	t->attr = attr;
	t->first = first;
	t->count = count;
	snprintf(t->text, sizeof(t->text), "%s%s%s", opt ? opt : "",
		 opt ? " " : "", s);
}

void hvc_change_typed(struct hvc_change *ch, uint16_t attr, const char *opt,
		      const char *s)
{
	typed_range(ch, attr, 0, 1, opt, s);
}

const char *hvc_change_typed_at(const struct hvc_change *ch, uint16_t attr,
				unsigned int nth)
{
	for (unsigned int i = 0; i < ch->nr_typed; i++) {
		const struct hvc_typed *t = &ch->typed[i];

		if (t->attr == attr && nth >= t->first &&
		    nth < (unsigned int)t->first + t->count)
			return t->text;
	}
	return NULL;
}

/* A strict unsigned number (decimal or 0x hex). */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

int hvc_parse_threshold(const char *s, uint64_t *ns)
{
	const char *err;

	if (duration_parse(s, ns, &err))
		return hvc_err(EINVAL, "%s", err);
	if (*ns > HVTRACE_THRESHOLD_NS_MAX)
		return hvc_err(ERANGE, "threshold %s out of range (at most %llus)",
			       s, HVTRACE_THRESHOLD_NS_MAX / 1000000000ULL);
	return 0;
}

int hvc_parse_irq_threshold(const char *s, uint64_t *ns)
{
	if (!strcmp(s, "off")) {
		*ns = HVTRACE_IRQ_THRESHOLD_OFF;
		return 0;
	}
	return hvc_parse_threshold(s, ns);
}

int hvc_parse_reason(const char *s, struct exit_reason_ref *out, int max)
{
	char msg[512];
	int n = exit_reason_parse(s, out, max);

	if (n > 0)
		return n;
	exit_reason_unknown(msg, sizeof(msg), s);
	return hvc_err(EINVAL, "%s", msg);
}

int hvc_parse_id_list(const char *s, uint64_t *words, unsigned int *nr,
		      unsigned int limit, const char *what)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	*nr = 0;
	memset(words, 0, ((limit + 63) / 64) * sizeof(uint64_t));
	if (!strcmp(s, "any"))
		return 0;
	copy = strdup(s);
	if (!copy)
		return hvc_err(ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = '\0';
		if (!parse_u64(tok, &lo) || (dash && !parse_u64(dash + 1, &hi))) {
			ret = hvc_err(EINVAL, "bad %s list '%s' (want e.g. 0,2-5)",
				      what, s);
			break;
		}
		if (!dash)
			hi = lo;
		if (lo > hi) {
			ret = hvc_err(EINVAL, "%s range %llu-%llu is reversed "
				      "(write it %llu-%llu)", what,
				      (unsigned long long)lo,
				      (unsigned long long)hi,
				      (unsigned long long)hi,
				      (unsigned long long)lo);
			break;
		}
		if (hi >= limit) {
			ret = hvc_err(ERANGE, "%s %llu is out of range 0..%u",
				      what, (unsigned long long)hi, limit - 1);
			break;
		}
		for (uint64_t i = lo; i <= hi; i++)
			words[i / 64] |= 1ULL << (i % 64);
	}
	free(copy);
	for (unsigned int i = 0; !ret && i < (limit + 63) / 64; i++)
		if (words[i])
			*nr = i + 1;
	return ret;
}

int hvc_change_pid(struct hvc_change *ch, const char *opt, const char *s)
{
	/*
	 * Messages name the option or key alone: from a file OPT is
	 * "FILE:LINE: KEY", and the file's reader says FILE:LINE itself.
	 */
	const char *name = !opt ? "pid" :
			   strrchr(opt, ' ') ? strrchr(opt, ' ') + 1 : opt;
	pid_t pid = 0;
	int ret = 0;

	/* A pid, or a running VM's name or UUID (vm_ident.h). */
	if (strcmp(s, "any"))
		ret = ch->names_unresolved ? vm_ident_check(name, s, &pid) :
					     vm_ident_find(name, s, &pid);
	if (ret)
		return ret;
	ch->pid = pid;
	ch->set |= HVC_CH_PID;
	hvc_change_typed(ch, HVTRACE_CFG_FILTER_PID, opt, s);
	return 0;
}

int hvc_change_vcpus(struct hvc_change *ch, const char *opt, const char *s)
{
	int ret = hvc_parse_id_list(s, ch->vcpus, &ch->nr_vcpu_words,
				HVTRACE_MAX_VCPU_ID + 1, "vcpu");

	if (ret)
		return ret;
	ch->set |= HVC_CH_VCPUS;
	hvc_change_typed(ch, HVTRACE_CFG_FILTER_VCPUS, opt, s);
	return 0;
}

int hvc_change_cpus(struct hvc_change *ch, const char *opt, const char *s)
{
	int ret = hvc_parse_id_list(s, ch->cpus, &ch->nr_cpu_words, HVC_MAX_CPUS,
				"cpu");

	if (ret)
		return ret;
	ch->set |= HVC_CH_CPUS;
	hvc_change_typed(ch, HVTRACE_CFG_FILTER_CPUS, opt, s);
	return 0;
}

int hvc_change_rip(struct hvc_change *ch, const char *opt, const char *s)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	char buf[64], *dash;

	if (strcmp(s, "any")) {
		snprintf(buf, sizeof(buf), "%s", s);
		dash = strchr(buf, '-');
		if (!dash)
			return hvc_err(EINVAL, "bad rip range '%s' (want MIN-MAX)",
				       s);
		*dash = '\0';
		if (!parse_u64(buf, &lo) || !parse_u64(dash + 1, &hi))
			return hvc_err(EINVAL, "bad rip range '%s' (want "
				       "MIN-MAX, e.g. 0x1000-0x1fff)", s);
		if (lo > hi)
			return hvc_err(EINVAL, "rip range '%s' ends before it "
				       "starts", s);
	}
	ch->rip_min = lo;
	ch->rip_max = hi;
	ch->set |= HVC_CH_RIP;
	hvc_change_typed(ch, HVTRACE_CFG_FILTER_RIP_MIN, opt, s);
	hvc_change_typed(ch, HVTRACE_CFG_FILTER_RIP_MAX, opt, s);
	return 0;
}

/* Append what NAME matches to ARR (holding *N), THR_NS for each. */
static int add_reasons(struct hvc_reason *arr, unsigned int *n,
		       const char *name, uint64_t thr_ns)
{
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES];
	int nr = hvc_parse_reason(name, refs, EXIT_REASON_MAX_MATCHES);

	if (nr < 0)
		return nr;
	if (*n + nr > HVC_MAX_REASONS)
		return hvc_err(E2BIG, "too many exit reasons");
	for (int i = 0; i < nr; i++)
		arr[(*n)++] = (struct hvc_reason){
			.isa = refs[i].isa, .code = refs[i].code,
			.threshold_ns = thr_ns,
		};
	return 0;
}

int hvc_change_reasons(struct hvc_change *ch, const char *opt, const char *s)
{
	char *copy, *tok, *save = NULL;
	unsigned int n = 0;
	int ret = 0;

	if (strcmp(s, "any")) {
		copy = strdup(s);
		if (!copy)
			return hvc_err(ENOMEM, "out of memory");
		for (tok = strtok_r(copy, ",", &save); tok && !ret;
		     tok = strtok_r(NULL, ",", &save))
			ret = add_reasons(ch->reasons, &n, tok, 0);
		free(copy);
		if (ret)
			return ret;
	}
	ch->nr_reasons = n;
	ch->set |= HVC_CH_REASONS;
	hvc_change_typed(ch, HVTRACE_CFG_FILTER_REASONS, opt, s);
	return 0;
}

int hvc_change_reason_threshold(struct hvc_change *ch, const char *opt,
				const char *name, uint64_t ns)
{
	unsigned int first = ch->nr_thresholds;
	int ret = add_reasons(ch->thresholds, &ch->nr_thresholds, name, ns);

	if (ret)
		return ret;
	ch->set |= HVC_CH_REASON_THRESHOLDS;
	/* One name may be several entries (both vendors): each names it. */
	typed_range(ch, HVTRACE_CFG_REASON_THRESHOLD, first,
		    ch->nr_thresholds - first, opt, name);
	return 0;
}

int hvc_parse_size(const char *s, uint64_t *kib)
{
	unsigned int shift = 0;
	uint64_t kb;
	char *end;

	if (*s < '0' || *s > '9')
		return hvc_err(EINVAL, "bad size '%s' (e.g. 2048, 512K, 4M)", s);
	errno = 0;
	kb = strtoull(s, &end, 10);
	if (!strcasecmp(end, "m") || !strcasecmp(end, "mib"))
		shift = 10;
	else if (!strcasecmp(end, "g") || !strcasecmp(end, "gib"))
		shift = 20;
	else if (!strcasecmp(end, "t") || !strcasecmp(end, "tib"))
		shift = 30;
	else if (*end && strcasecmp(end, "k") && strcasecmp(end, "kib"))
		return hvc_err(EINVAL, "bad size '%s' (e.g. 2048, 512K, 4M)", s);
	/* Too large to count (ERANGE) or to scale: UINT64_MAX. */
	if (errno == ERANGE || kb > UINT64_MAX >> shift)
		kb = UINT64_MAX;
	else
		kb <<= shift;
	*kib = kb;
	return 0;
}

int hvc_change_buffer_size(struct hvc_change *ch, const char *opt,
			   const char *s)
{
	uint64_t kb;
	int ret = hvc_parse_size(s, &kb);

	if (ret)
		return ret;
	if (kb < HVTRACE_BUFFER_KB_MIN || kb > HVTRACE_BUFFER_KB_MAX)
		return hvc_err(ERANGE, "buffer size %s out of range %uK..%uM",
			       s, HVTRACE_BUFFER_KB_MIN,
			       HVTRACE_BUFFER_KB_MAX / 1024);
	ch->buffer_kb = kb;
	ch->set |= HVC_CH_BUFFER_KB;
	hvc_change_typed(ch, HVTRACE_CFG_BUFFER_KB, opt, s);
	return 0;
}

int hvc_change_mode(struct hvc_change *ch, const char *opt, const char *s)
{
	if (!strcmp(s, "discard"))
		ch->mode = HVTRACE_MODE_DISCARD;
	else if (!strcmp(s, "overwrite"))
		ch->mode = HVTRACE_MODE_OVERWRITE;
	else
		return hvc_err(EINVAL, "mode is discard or overwrite, not '%s'",
			       s);
	ch->set |= HVC_CH_MODE;
	hvc_change_typed(ch, HVTRACE_CFG_MODE, opt, s);
	return 0;
}

int hvc_change_filter(struct hvc_change *ch, const char *opt,
		      const char *kind, const char *s)
{
	static const struct {
		const char *kind;
		int (*change)(struct hvc_change *ch, const char *opt,
			      const char *s);
	} kinds[] = {
		{ "pid", hvc_change_pid },
		{ "vcpu", hvc_change_vcpus },
		{ "cpu", hvc_change_cpus },
		{ "reason", hvc_change_reasons },
		{ "rip", hvc_change_rip },
	};

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kind, kinds[i].kind))
			return s ? kinds[i].change(ch, opt, s) : 0;
	return -ENOENT;
}

static void put_reasons(struct nlmsghdr *nlh, uint16_t type,
			const struct hvc_reason *r, unsigned int n,
			bool with_thr)
{
	for (unsigned int i = 0; i < n; i++) {
		struct nlattr *nest = mnl_attr_nest_start(nlh, type);

		mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, r[i].isa);
		mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, r[i].code);
		if (with_thr)
			mnl_attr_put_u64(nlh, HVTRACE_RSN_THRESHOLD_NS,
					 r[i].threshold_ns);
		mnl_attr_nest_end(nlh, nest);
	}
}

/* The attributes of CH in the CONFIG nest; clears first, as they apply. */
static void put_change(struct nlmsghdr *nlh, const struct hvc_change *ch)
{
	struct nlattr *list;

	if (ch->set & HVC_CH_CLEAR_FILTERS)
		mnl_attr_put(nlh, HVTRACE_CFG_FILTERS_CLEAR, 0, NULL);
	if (ch->set & HVC_CH_CLEAR_THRESHOLDS)
		mnl_attr_put(nlh, HVTRACE_CFG_REASON_THRESHOLDS_CLEAR, 0, NULL);
	if (ch->set & HVC_CH_PREEMPT)
		mnl_attr_put_u64(nlh, HVTRACE_CFG_PREEMPT_THRESHOLD_NS,
				 ch->preempt_threshold_ns);
	if (ch->set & HVC_CH_IRQ)
		mnl_attr_put_u64(nlh, HVTRACE_CFG_IRQ_THRESHOLD_NS,
				 ch->irq_threshold_ns);
	if (ch->set & HVC_CH_THRESHOLD) {
		mnl_attr_put_u64(nlh, HVTRACE_CFG_THRESHOLD_NS,
				 ch->threshold_ns);
		mnl_attr_put_u8(nlh, HVTRACE_CFG_THRESHOLD_ON,
				ch->threshold_on);
	}
	if (ch->set & HVC_CH_REASON_THRESHOLDS)
		put_reasons(nlh, HVTRACE_CFG_REASON_THRESHOLD, ch->thresholds,
			    ch->nr_thresholds, true);
	if (ch->set & HVC_CH_HALT)
		mnl_attr_put_u8(nlh, HVTRACE_CFG_HALT_TRIGGERS,
				ch->halt_triggers);
	if (ch->set & HVC_CH_PID)
		mnl_attr_put_u32(nlh, HVTRACE_CFG_FILTER_PID, ch->pid);
	if (ch->set & HVC_CH_VCPUS)
		mnl_attr_put(nlh, HVTRACE_CFG_FILTER_VCPUS,
			     ch->nr_vcpu_words * sizeof(uint64_t), ch->vcpus);
	if (ch->set & HVC_CH_CPUS)
		mnl_attr_put(nlh, HVTRACE_CFG_FILTER_CPUS,
			     ch->nr_cpu_words * sizeof(uint64_t), ch->cpus);
	if (ch->set & HVC_CH_REASONS) {
		list = mnl_attr_nest_start(nlh, HVTRACE_CFG_FILTER_REASONS);
		put_reasons(nlh, HVTRACE_A_REASON, ch->reasons, ch->nr_reasons,
			    false);
		mnl_attr_nest_end(nlh, list);
	}
	if (ch->set & HVC_CH_RIP) {
		mnl_attr_put_u64(nlh, HVTRACE_CFG_FILTER_RIP_MIN, ch->rip_min);
		mnl_attr_put_u64(nlh, HVTRACE_CFG_FILTER_RIP_MAX, ch->rip_max);
	}
	if (ch->set & HVC_CH_BUFFER_KB)
		mnl_attr_put_u32(nlh, HVTRACE_CFG_BUFFER_KB, ch->buffer_kb);
	if (ch->set & HVC_CH_MODE)
		mnl_attr_put_u8(nlh, HVTRACE_CFG_MODE, ch->mode);
}

/* Room for the largest change: two lists of reasons at 32 bytes each. */
#define CHANGE_BUF	(64 * 1024)

int hvc_config_set(struct hvc *c, const struct hvc_change *ch)
{
	char *buf = malloc(CHANGE_BUF);
	struct hvnl_ack ack = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	const char *what = NULL;
	unsigned int nth = 0;
	uint16_t bad;
	int ret;

	if (!buf)
		return hvc_err(ENOMEM, "out of memory");
	nlh = hvnl_request(c->nl, buf, HVTRACE_CMD_SET_CONFIG, 0);
	nest = mnl_attr_nest_start(nlh, HVTRACE_A_CONFIG);
	put_change(nlh, ch);
	mnl_attr_nest_end(nlh, nest);
	ret = hvnl_talk(c->nl, nlh, NULL, NULL, &ack);
	/* Refused by the module: ACK says why, and where. */
	if (ack.err) {
		bad = ack.has_off ? hvc_attr_at(nlh, HVTRACE_A_CONFIG, ack.off,
						 &nth) : 0;
		if (bad)
			what = hvc_change_typed_at(ch, bad, nth);
		ret = hvnl_report_ack(&ack, HVTRACE_CMD_SET_CONFIG, what);
	}
	free(buf);
	return ret;
}

int hvc_apply(const struct hvc_change *ch)
{
	struct hvc *c;
	int ret;

	ret = hvc_open(&c);
	if (ret)
		return ret;
	ret = hvc_config_set(c, ch);
	hvc_close(c);
	return ret;
}

/* A bitmap as the module sent it into WORDS (MAX of them); *NR as set. */
static void undo_bitmap(uint64_t *words, unsigned int max, unsigned int *nr,
			const struct hvc_bitmap *b)
{
	unsigned int n = b->nbits / 64 < max ? b->nbits / 64 : max;

	memset(words, 0, max * sizeof(*words));
	*nr = 0;
	for (unsigned int i = 0; i < n; i++) {
		words[i] = b->w[i];
		if (words[i])
			*nr = i + 1;
	}
}

static unsigned int undo_reasons(struct hvc_reason *to,
				 const struct hvc_reason *from, unsigned int n)
{
	n = n < HVC_MAX_REASONS ? n : HVC_MAX_REASONS;
	memcpy(to, from, n * sizeof(*to));
	return n;
}

void hvc_change_undo(struct hvc_change *undo, const struct hvc_change *ch,
		     const struct hvc_config *cfg)
{
	unsigned int set = ch->set;

	memset(undo, 0, sizeof(*undo));
	if (set & HVC_CH_CLEAR_FILTERS)
		set |= HVC_CH_PID | HVC_CH_VCPUS | HVC_CH_CPUS | HVC_CH_RIP |
		       HVC_CH_REASONS;
	/* Overrides added or dropped: all of them as they were. */
	if (set & (HVC_CH_CLEAR_THRESHOLDS | HVC_CH_REASON_THRESHOLDS)) {
		undo->set |= HVC_CH_CLEAR_THRESHOLDS | HVC_CH_REASON_THRESHOLDS;
		undo->nr_thresholds = undo_reasons(undo->thresholds,
						   cfg->thresholds,
						   cfg->nr_thresholds);
	}
	undo->set |= set & (HVC_CH_THRESHOLD | HVC_CH_PREEMPT | HVC_CH_IRQ |
			    HVC_CH_HALT | HVC_CH_PID | HVC_CH_VCPUS |
			    HVC_CH_CPUS | HVC_CH_RIP | HVC_CH_REASONS |
			    HVC_CH_BUFFER_KB | HVC_CH_MODE);
	undo->threshold_ns = cfg->threshold_ns;
	undo->threshold_on = cfg->threshold_on;
	undo->preempt_threshold_ns = cfg->preempt_threshold_ns;
	undo->irq_threshold_ns = cfg->irq_threshold_ns;
	undo->halt_triggers = cfg->halt_triggers;
	undo->pid = cfg->pid;
	undo_bitmap(undo->vcpus, sizeof(undo->vcpus) / sizeof(undo->vcpus[0]),
		    &undo->nr_vcpu_words, &cfg->vcpus);
	undo_bitmap(undo->cpus, sizeof(undo->cpus) / sizeof(undo->cpus[0]),
		    &undo->nr_cpu_words, &cfg->cpus);
	undo->rip_min = cfg->rip_min;
	undo->rip_max = cfg->rip_max;
	if (cfg->reason_filter)
		undo->nr_reasons = undo_reasons(undo->reasons, cfg->reasons,
						cfg->nr_reasons);
	undo->buffer_kb = cfg->buffer_kb;
	undo->mode = cfg->mode;
}
