// SPDX-License-Identifier: GPL-2.0
/*
 * What the kernel must answer to the bytes nlfuzz sends.
 *
 * Three layers decide, in this order, and each is mirrored here:
 *
 *   netlink     netlink_rcv_skb(): messages one after another in a send;
 *               a length that does not fit ends the send without a word;
 *               non-requests and control types are only acked
 *   genetlink   genl_family_rcv_msg(): no family in another network
 *               namespace (-ENOENT); short family header (-EINVAL);
 *               reserved field and flags beyond REQUEST|ACK|ECHO|DUMP
 *               (-EINVAL, genl_header_check); the operation by command and
 *               by doit/dump (-EOPNOTSUPP); another dump running on the
 *               socket (-EBUSY); the family's policy, strict (-EINVAL or
 *               -ERANGE, lib/nlattr.c's order of checks)
 *   hvtrace     the privileges and the semantics the uapi header documents
 *               (include/uapi/linux/hvtrace.h): -EPERM, -EBUSY, -EINVAL,
 *               -ERANGE
 *
 * The policy mirror is the ABI as documented, not a copy of kmod/genl.c's
 * tables: a difference between the two is what the fuzzer is for. Where
 * the outcome depends on what cannot be seen from here (a reader's
 * deferred release, the memory a resize finds), more than one outcome is
 * allowed.
 *
 * The configuration model (struct cfgm) is GET_CONFIG's reply, parsed;
 * cfgm_apply() is SET_CONFIG on the model, so an accepted request can be
 * checked setting by setting, and a refused one must leave the model as
 * it was.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nlfuzz.h"

#define THR_MAX (3600ULL * 1000000000ULL)

const char *cmd_name(unsigned int cmd)
{
	static const char *const names[] = {
		[HVTRACE_CMD_UNSPEC] = "UNSPEC",
		[HVTRACE_CMD_GET_STATUS] = "GET_STATUS",
		[HVTRACE_CMD_GET_CONFIG] = "GET_CONFIG",
		[HVTRACE_CMD_SET_CONFIG] = "SET_CONFIG",
		[HVTRACE_CMD_START] = "START",
		[HVTRACE_CMD_STOP] = "STOP",
		[HVTRACE_CMD_CLEAR] = "CLEAR",
		[HVTRACE_CMD_GET_STATS] = "GET_STATS",
		[HVTRACE_CMD_READ_EVENTS] = "READ_EVENTS",
		[HVTRACE_CMD_WATERMARK] = "WATERMARK",
		[HVTRACE_CMD_WATCH_START] = "WATCH_START",
		[HVTRACE_CMD_WATCH_STOP] = "WATCH_STOP",
		[HVTRACE_CMD_READ_CAPTURES] = "READ_CAPTURES",
		[HVTRACE_CMD_CAPTURE] = "CAPTURE",
	};

	return cmd < sizeof(names) / sizeof(names[0]) ? names[cmd] : "unknown";
}

/* ---- the policy, as the ABI documents it --------------------------- */

enum pk { P_NONE, P_U8, P_U32, P_U64, P_FLAG, P_BIN, P_NEST };

struct pol {
	enum pk kind;
	bool range;
	uint64_t min, max;		/* ints: range; P_BIN: largest length */
	const struct pol *nested;	/* P_NEST: validated inside, or not */
	unsigned int nested_max;
};

static const struct pol rsn_pol[HVTRACE_RSN_MAX + 1] = {
	[HVTRACE_RSN_ISA] = { P_U8, true, HVTRACE_ISA_VMX, HVTRACE_ISA_SVM },
	[HVTRACE_RSN_CODE] = { P_U32 },
	[HVTRACE_RSN_THRESHOLD_NS] = { P_U64, true, 0, THR_MAX },
};

static struct pol cfg_pol[HVTRACE_CFG_MAX + 1] = {
	[HVTRACE_CFG_THRESHOLD_NS] = { P_U64, true, 0, THR_MAX },
	[HVTRACE_CFG_REASON_THRESHOLD] = { P_NEST, .nested = rsn_pol,
					   .nested_max = HVTRACE_RSN_MAX },
	[HVTRACE_CFG_REASON_THRESHOLDS_CLEAR] = { P_FLAG },
	[HVTRACE_CFG_FILTER_PID] = { P_U32 },
	[HVTRACE_CFG_FILTER_VCPUS] = { P_BIN, .max = VCPU_BITS / 8 },
	/* Its entries are checked by SET_CONFIG itself. */
	[HVTRACE_CFG_FILTER_REASONS] = { P_NEST },
	[HVTRACE_CFG_FILTER_RIP_MIN] = { P_U64 },
	[HVTRACE_CFG_FILTER_RIP_MAX] = { P_U64 },
	[HVTRACE_CFG_FILTER_CPUS] = { P_BIN },	/* host.cpumask_bytes */
	[HVTRACE_CFG_FILTERS_CLEAR] = { P_FLAG },
	[HVTRACE_CFG_BUFFER_KB] = { P_U32, true, HVTRACE_BUFFER_KB_MIN,
				    HVTRACE_BUFFER_KB_MAX },
	[HVTRACE_CFG_MODE] = { P_U8, true, 0, HVTRACE_MODE_MAX },
	[HVTRACE_CFG_THRESHOLD_ON] = { P_U8, true, 0, HVTRACE_ON_MAX },
	[HVTRACE_CFG_HALT_TRIGGERS] = { P_U8, true, 0, 1 },
	[HVTRACE_CFG_PREEMPT_THRESHOLD_NS] = { P_U64, true, 0, THR_MAX },
	/* Its range has one value beyond, off: SET_CONFIG checks it. */
	[HVTRACE_CFG_IRQ_THRESHOLD_NS] = { P_U64 },
};

/* The watch's settings; the counters GET_STATUS adds have no policy. */
static const struct pol watch_pol[HVTRACE_WATCH_MAX + 1] = {
	[HVTRACE_WATCH_EXIT_NS] = { P_U64, true, 0, THR_MAX },
	[HVTRACE_WATCH_EXIT_ON] = { P_U8, true, 0, HVTRACE_ON_MAX },
	[HVTRACE_WATCH_HALT_TRIGGERS] = { P_U8, true, 0, 1 },
	[HVTRACE_WATCH_STALL_NS] = { P_U64, true, 0, THR_MAX },
	[HVTRACE_WATCH_STALL_WINDOW_NS] = { P_U64, true, 0, THR_MAX },
	[HVTRACE_WATCH_PREEMPT_NS] = { P_U64, true, 0, THR_MAX },
	[HVTRACE_WATCH_HISTORY] = { P_U32, true, 1, HVTRACE_WATCH_HISTORY_MAX },
	[HVTRACE_WATCH_POST_NS] = { P_U64, true, 0,
				    HVTRACE_WATCH_POST_NS_MAX },
	[HVTRACE_WATCH_RATE] = { P_U32, true, 1, HVTRACE_WATCH_RATE_MAX },
	[HVTRACE_WATCH_RATE_TOTAL] = { P_U32, true, 1,
				       HVTRACE_WATCH_RATE_MAX },
	[HVTRACE_WATCH_FILTER_PID] = { P_U32 },
	[HVTRACE_WATCH_FILTER_VCPUS] = { P_BIN, .max = VCPU_BITS / 8 },
	[HVTRACE_WATCH_MARK_TRIGGERS] = { P_U8, true, 0, 1 },
	[HVTRACE_WATCH_MARK_PID] = { P_U32 },
};

void oracle_init(void)
{
	cfg_pol[HVTRACE_CFG_FILTER_CPUS].max = host.cpumask_bytes;
}

static const struct pol top_pol[HVTRACE_A_MAX + 1] = {
	[HVTRACE_A_CONFIG] = { P_NEST, .nested = cfg_pol,
			       .nested_max = HVTRACE_CFG_MAX },
	[HVTRACE_A_WATCH] = { P_NEST, .nested = watch_pol,
			      .nested_max = HVTRACE_WATCH_MAX },
	/* Read by GET_STATUS and GET_STATS; the others ignore it. */
	[HVTRACE_A_SINCE_LOAD] = { P_FLAG },
};

static const struct nlattr *attr_at(const uint8_t *p)
{
	return (const struct nlattr *)p;
}

static uint64_t leaf_value(const uint8_t *p, unsigned int len)
{
	uint64_t v = 0;

	memcpy(&v, p, len < 8 ? len : 8);
	return v;
}

/*
 * lib/nlattr.c's __nla_validate_parse() and validate_nla() with
 * NL_VALIDATE_STRICT, in their order: 0, or the negative errno with WHY.
 */
static int validate(const uint8_t *p, int len, const struct pol *pol,
		    unsigned int maxtype, const char **why)
{
	static const unsigned int exact[] = { [P_U8] = 1, [P_U32] = 4,
					      [P_U64] = 8 };
	int rem = len, err;

	while (rem >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
	       attr_at(p)->nla_len <= rem) {
		const struct nlattr *a = attr_at(p);
		unsigned int type = a->nla_type & NLA_TYPE_MASK;
		int alen = a->nla_len - NLA_HDRLEN;
		const struct pol *pt;
		uint64_t v;

		if (type == 0 || type > maxtype) {
			*why = "unknown attribute type";
			return -EINVAL;
		}
		pt = &pol[type];
		if (pt->kind <= P_U64 && pt->kind != P_NONE &&
		    alen != (int)exact[pt->kind]) {
			*why = "invalid attribute length";
			return -EINVAL;
		}
		if (pt->kind == P_NEST && !(a->nla_type & NLA_F_NESTED)) {
			*why = "NLA_F_NESTED is missing";
			return -EINVAL;
		}
		if (pt->kind != P_NEST && pt->kind != P_NONE &&
		    (a->nla_type & NLA_F_NESTED)) {
			*why = "NLA_F_NESTED not expected";
			return -EINVAL;
		}
		switch (pt->kind) {
		case P_NONE:
			*why = "attribute without a policy";
			return -EINVAL;
		case P_FLAG:
			if (alen > 0) {
				*why = "flag with a payload";
				return -ERANGE;
			}
			break;
		case P_BIN:
			if (alen > (int)pt->max) {
				*why = "binary attribute too long";
				return -ERANGE;
			}
			break;
		case P_NEST:
			if (!alen)
				break;
			if (alen < NLA_HDRLEN) {
				*why = "nest shorter than an attribute";
				return -ERANGE;
			}
			if (pt->nested) {
				err = validate(p + NLA_HDRLEN, alen, pt->nested,
					       pt->nested_max, why);
				if (err)
					return err;
			}
			break;
		default:
			v = leaf_value(p + NLA_HDRLEN, alen);
			if (pt->range && (v < pt->min || v > pt->max)) {
				*why = "value out of range";
				return -ERANGE;
			}
		}
		rem -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	if (rem > 0) {
		*why = "bytes leftover after parsing attributes";
		return -EINVAL;
	}
	return 0;
}

/* The last attribute of each type in a policy-valid stream. */
static void last_of_each(const uint8_t *p, int len, const uint8_t **tb,
			 unsigned int max)
{
	memset(tb, 0, (max + 1) * sizeof(*tb));
	while (len >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
	       attr_at(p)->nla_len <= len) {
		unsigned int t = attr_at(p)->nla_type & NLA_TYPE_MASK;

		if (t <= max)
			tb[t] = p;
		len -= NLA_ALIGN(attr_at(p)->nla_len);
		p += NLA_ALIGN(attr_at(p)->nla_len);
	}
}

static unsigned int plen(const uint8_t *a)
{
	return attr_at(a)->nla_len - NLA_HDRLEN;
}

static uint64_t pval(const uint8_t *a)
{
	return leaf_value(a + NLA_HDRLEN, plen(a));
}

/* ---- exit reasons -------------------------------------------------- */

/*
 * The dense index of an exit reason, as SET_CONFIG accepts them: VMX
 * basic reasons (the low 16 bits of the code), SVM codes below 0x100, from
 * 0x400 for 0x20, and SVM_EXIT_ERR; -1 for the catch-alls ("no such exit
 * reason").
 */
int ridx_of(uint8_t isa, uint32_t code)
{
	if (isa == HVTRACE_ISA_VMX)
		return (code & 0xffff) < R_VMX_MAX ? (int)(code & 0xffff) : -1;
	if (isa != HVTRACE_ISA_SVM)
		return -1;
	if (code < R_SVM_LOW)
		return R_VMX_MAX + code;
	if (code - R_SVM_HIGH_BASE < R_SVM_HIGH)
		return R_VMX_MAX + R_SVM_LOW + code - R_SVM_HIGH_BASE;
	if (code == R_SVM_ERR)
		return NR_RIDX - 1;
	return -1;
}

/* A REASON nest's index: -EINVAL unless it names one exit reason. */
static int parse_reason(const uint8_t *nest, const char **why)
{
	const uint8_t *tb[HVTRACE_RSN_MAX + 1];
	int err, ridx;

	/* nla_parse_nested(): a nest says so. */
	if (!(attr_at(nest)->nla_type & NLA_F_NESTED)) {
		*why = "NLA_F_NESTED is missing";
		return -EINVAL;
	}
	err = validate(nest + NLA_HDRLEN, plen(nest), rsn_pol, HVTRACE_RSN_MAX,
		       why);
	if (err)
		return err;
	last_of_each(nest + NLA_HDRLEN, plen(nest), tb, HVTRACE_RSN_MAX);
	if (!tb[HVTRACE_RSN_ISA] || !tb[HVTRACE_RSN_CODE]) {
		*why = "exit reason needs an ISA and a code";
		return -EINVAL;
	}
	ridx = ridx_of(pval(tb[HVTRACE_RSN_ISA]), pval(tb[HVTRACE_RSN_CODE]));
	if (ridx < 0) {
		*why = "no such exit reason";
		return -EINVAL;
	}
	return ridx;
}

/* ---- the configuration model --------------------------------------- */

static void reset_filters(struct cfgm *c)
{
	c->pid = 0;
	c->rip_min = 0;
	c->rip_max = ~0ULL;
	c->has_vcpus = c->has_cpus = c->has_reasons = false;
	memset(c->vcpus, 0, sizeof(c->vcpus));
	memset(c->cpus, 0, sizeof(c->cpus));
	memset(c->reason, 0, sizeof(c->reason));
}

/*
 * A bitmap of u64 words of at most LIMIT bits into WORDS: 1 if a bit is
 * set, 0 if none, -EINVAL when ragged or with a bit at or beyond LIMIT.
 */
static int get_bitmap(uint64_t *words, unsigned int nwords, const uint8_t *a,
		      unsigned int limit, const char **why)
{
	unsigned int len = plen(a), i, any = 0;
	uint64_t w;

	if (len % 8) {
		*why = "bitmap is not made of 64-bit words";
		return -EINVAL;
	}
	memset(words, 0, nwords * 8);
	for (i = 0; i < len / 8; i++) {
		memcpy(&w, a + NLA_HDRLEN + 8 * i, 8);
		if (i * 64 >= limit ? w != 0 :
		    limit - i * 64 < 64 && (w >> (limit - i * 64))) {
			*why = "bit beyond the limit";
			return -EINVAL;
		}
		if (i < nwords)
			words[i] = w;
		any |= !!w;
	}
	return any;
}

/*
 * SET_CONFIG's attributes (the whole genl payload, policy-valid) applied
 * to C: 0, or the negative errno (-EINVAL, -ERANGE) with C undefined and
 * WHY set.
 */
static int apply(struct cfgm *c, const uint8_t *attrs, int len,
		 const char **why)
{
	const uint8_t *top[HVTRACE_A_MAX + 1], *tb[HVTRACE_CFG_MAX + 1];
	const uint8_t *cfg, *p, *list;
	int rem, ridx, err;
	uint64_t v;

	last_of_each(attrs, len, top, HVTRACE_A_MAX);
	cfg = top[HVTRACE_A_CONFIG];
	if (!cfg) {
		*why = "no configuration in the request";
		return -EINVAL;
	}
	last_of_each(cfg + NLA_HDRLEN, plen(cfg), tb, HVTRACE_CFG_MAX);
	if (tb[HVTRACE_CFG_FILTERS_CLEAR])
		reset_filters(c);
	if (tb[HVTRACE_CFG_REASON_THRESHOLDS_CLEAR])
		memset(c->has_override, 0, sizeof(c->has_override));
	if (tb[HVTRACE_CFG_THRESHOLD_NS])
		c->thr = pval(tb[HVTRACE_CFG_THRESHOLD_NS]);
	if (tb[HVTRACE_CFG_THRESHOLD_ON])
		c->on = pval(tb[HVTRACE_CFG_THRESHOLD_ON]);
	if (tb[HVTRACE_CFG_HALT_TRIGGERS])
		c->halt = pval(tb[HVTRACE_CFG_HALT_TRIGGERS]);
	if (tb[HVTRACE_CFG_PREEMPT_THRESHOLD_NS])
		c->pthr = pval(tb[HVTRACE_CFG_PREEMPT_THRESHOLD_NS]);
	if (tb[HVTRACE_CFG_BUFFER_KB])
		c->kb = pval(tb[HVTRACE_CFG_BUFFER_KB]);
	if (tb[HVTRACE_CFG_MODE])
		c->mode = pval(tb[HVTRACE_CFG_MODE]);
	/*
	 * After the buffers (their EBUSY comes before any of these errors:
	 * predict() reads them from C) and before the reasons and filters.
	 */
	if (tb[HVTRACE_CFG_IRQ_THRESHOLD_NS]) {
		v = pval(tb[HVTRACE_CFG_IRQ_THRESHOLD_NS]);
		if (v > THR_MAX && v != HVTRACE_IRQ_THRESHOLD_OFF) {
			*why = "interrupt threshold over an hour, and not off";
			return -ERANGE;
		}
		c->irqthr = v;
	}

	/* Every REASON_THRESHOLD, in order: the last one of a reason wins. */
	for (p = cfg + NLA_HDRLEN, rem = plen(cfg);
	     rem >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
	     attr_at(p)->nla_len <= rem;
	     rem -= NLA_ALIGN(attr_at(p)->nla_len),
	     p += NLA_ALIGN(attr_at(p)->nla_len)) {
		const uint8_t *rt[HVTRACE_RSN_MAX + 1];

		if ((attr_at(p)->nla_type & NLA_TYPE_MASK) !=
		    HVTRACE_CFG_REASON_THRESHOLD)
			continue;
		ridx = parse_reason(p, why);
		if (ridx < 0)
			return ridx;
		last_of_each(p + NLA_HDRLEN, plen(p), rt, HVTRACE_RSN_MAX);
		if (!rt[HVTRACE_RSN_THRESHOLD_NS]) {
			*why = "reason threshold without a duration";
			return -EINVAL;
		}
		c->has_override[ridx] = true;
		c->override[ridx] = pval(rt[HVTRACE_RSN_THRESHOLD_NS]);
	}

	if (tb[HVTRACE_CFG_FILTER_PID])
		c->pid = pval(tb[HVTRACE_CFG_FILTER_PID]);
	if (tb[HVTRACE_CFG_FILTER_VCPUS]) {
		err = get_bitmap(c->vcpus, VCPU_BITS / 64,
				 tb[HVTRACE_CFG_FILTER_VCPUS], VCPU_BITS, why);
		if (err < 0)
			return err;
		c->has_vcpus = err;
	}
	if (tb[HVTRACE_CFG_FILTER_CPUS]) {
		err = get_bitmap(c->cpus, CPU_WORDS_MAX,
				 tb[HVTRACE_CFG_FILTER_CPUS], host.nr_cpu_ids,
				 why);
		if (err < 0)
			return err;
		c->has_cpus = err;
	}
	list = tb[HVTRACE_CFG_FILTER_REASONS];
	if (list) {
		/*
		 * The ABI: "list of RSN_ISA+RSN_CODE pairs inside REASON
		 * nests" (the entries' own type is not checked, as the YNL
		 * spec says). A list that is not made of whole attributes is
		 * not such a list.
		 */
		memset(c->reason, 0, sizeof(c->reason));
		c->has_reasons = false;
		for (p = list + NLA_HDRLEN, rem = plen(list);
		     rem >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
		     attr_at(p)->nla_len <= rem;
		     rem -= NLA_ALIGN(attr_at(p)->nla_len),
		     p += NLA_ALIGN(attr_at(p)->nla_len)) {
			ridx = parse_reason(p, why);
			if (ridx < 0)
				return ridx;
			c->reason[ridx] = true;
			c->has_reasons = true;
		}
		if (rem > 0) {
			*why = "FILTER_REASONS: bytes that are no attribute";
			return -EINVAL;
		}
	}
	if (tb[HVTRACE_CFG_FILTER_RIP_MIN])
		c->rip_min = pval(tb[HVTRACE_CFG_FILTER_RIP_MIN]);
	if (tb[HVTRACE_CFG_FILTER_RIP_MAX])
		c->rip_max = pval(tb[HVTRACE_CFG_FILTER_RIP_MAX]);
	if (c->rip_min > c->rip_max) {
		*why = "RIP range minimum above its maximum";
		return -EINVAL;
	}
	return 0;
}

int cfgm_apply(struct cfgm *c, const uint8_t *attrs, size_t len, char *err,
	       size_t errsz)
{
	const char *why = "";
	int ret = apply(c, attrs, len, &why);

	if (err)
		snprintf(err, errsz, "%s", why);
	return ret;
}

/* GET_CONFIG's CONFIG nest (its payload) into C. */
int cfgm_parse(struct cfgm *c, const uint8_t *p, size_t len)
{
	int rem = len;

	memset(c, 0, sizeof(*c));
	c->rip_max = ~0ULL;
	/* A module without late interrupt records records none. */
	c->irqthr = HVTRACE_IRQ_THRESHOLD_OFF;
	while (rem >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
	       attr_at(p)->nla_len <= rem) {
		unsigned int t = attr_at(p)->nla_type & NLA_TYPE_MASK;
		unsigned int l = plen(p);
		const char *why;
		int r;

		switch (t) {
		case HVTRACE_CFG_THRESHOLD_NS: c->thr = pval(p); break;
		case HVTRACE_CFG_PREEMPT_THRESHOLD_NS: c->pthr = pval(p); break;
		case HVTRACE_CFG_IRQ_THRESHOLD_NS: c->irqthr = pval(p); break;
		case HVTRACE_CFG_FILTER_RIP_MIN: c->rip_min = pval(p); break;
		case HVTRACE_CFG_FILTER_RIP_MAX: c->rip_max = pval(p); break;
		case HVTRACE_CFG_FILTER_PID: c->pid = pval(p); break;
		case HVTRACE_CFG_BUFFER_KB: c->kb = pval(p); break;
		case HVTRACE_CFG_MODE: c->mode = pval(p); break;
		case HVTRACE_CFG_THRESHOLD_ON: c->on = pval(p); break;
		case HVTRACE_CFG_HALT_TRIGGERS: c->halt = pval(p); break;
		case HVTRACE_CFG_FILTER_VCPUS:
			memcpy(c->vcpus, p + NLA_HDRLEN,
			       l < sizeof(c->vcpus) ? l : sizeof(c->vcpus));
			c->has_vcpus = true;
			break;
		case HVTRACE_CFG_FILTER_CPUS:
			memcpy(c->cpus, p + NLA_HDRLEN,
			       l < sizeof(c->cpus) ? l : sizeof(c->cpus));
			c->has_cpus = true;
			break;
		case HVTRACE_CFG_REASON_THRESHOLD: {
			const uint8_t *rt[HVTRACE_RSN_MAX + 1];

			r = parse_reason(p, &why);
			if (r < 0)
				return -EINVAL;
			last_of_each(p + NLA_HDRLEN, l, rt, HVTRACE_RSN_MAX);
			if (!rt[HVTRACE_RSN_THRESHOLD_NS])
				return -EINVAL;
			c->has_override[r] = true;
			c->override[r] = pval(rt[HVTRACE_RSN_THRESHOLD_NS]);
			break;
		}
		case HVTRACE_CFG_FILTER_REASONS: {
			const uint8_t *e = p + NLA_HDRLEN;
			int erem = l;

			while (erem >= NLA_HDRLEN &&
			       attr_at(e)->nla_len >= NLA_HDRLEN &&
			       attr_at(e)->nla_len <= erem) {
				r = parse_reason(e, &why);
				if (r < 0)
					return -EINVAL;
				c->reason[r] = true;
				c->has_reasons = true;
				erem -= NLA_ALIGN(attr_at(e)->nla_len);
				e += NLA_ALIGN(attr_at(e)->nla_len);
			}
			break;
		}
		default:
			return -EINVAL;
		}
		rem -= NLA_ALIGN(attr_at(p)->nla_len);
		p += NLA_ALIGN(attr_at(p)->nla_len);
	}
	return rem > 0 ? -EINVAL : 0;
}

static void reason_name(int ridx, char *buf, size_t sz)
{
	if (ridx < R_VMX_MAX)
		snprintf(buf, sz, "vmx:%d", ridx);
	else if (ridx < R_VMX_MAX + R_SVM_LOW)
		snprintf(buf, sz, "svm:0x%x", ridx - R_VMX_MAX);
	else if (ridx < NR_RIDX - 1)
		snprintf(buf, sz, "svm:0x%x",
			 ridx - R_VMX_MAX - R_SVM_LOW + R_SVM_HIGH_BASE);
	else
		snprintf(buf, sz, "svm:err");
}

bool cfgm_equal(const struct cfgm *a, const struct cfgm *b, char *diff,
		size_t sz)
{
	char r[32];
	int i;

#define SAME(f) do {							\
	if (a->f != b->f) {						\
		snprintf(diff, sz, #f ": model %llu, kernel %llu",	\
			 (unsigned long long)a->f,			\
			 (unsigned long long)b->f);			\
		return false;						\
	}								\
} while (0)
	SAME(thr); SAME(pthr); SAME(irqthr); SAME(rip_min); SAME(rip_max);
	SAME(pid); SAME(kb); SAME(mode); SAME(on); SAME(halt);
	SAME(has_vcpus); SAME(has_cpus); SAME(has_reasons);
#undef SAME
	if (a->has_vcpus && memcmp(a->vcpus, b->vcpus, sizeof(a->vcpus))) {
		snprintf(diff, sz, "vCPU filter bitmap differs");
		return false;
	}
	if (a->has_cpus && memcmp(a->cpus, b->cpus, host.cpu_bytes)) {
		snprintf(diff, sz, "CPU filter bitmap differs");
		return false;
	}
	for (i = 0; i < NR_RIDX; i++) {
		if (a->has_override[i] != b->has_override[i] ||
		    (a->has_override[i] && a->override[i] != b->override[i])) {
			reason_name(i, r, sizeof(r));
			snprintf(diff, sz, "threshold of %s: model %s%llu, kernel %s%llu",
				 r, a->has_override[i] ? "" : "none/",
				 (unsigned long long)a->override[i],
				 b->has_override[i] ? "" : "none/",
				 (unsigned long long)b->override[i]);
			return false;
		}
		if (a->reason[i] != b->reason[i]) {
			reason_name(i, r, sizeof(r));
			snprintf(diff, sz, "reason filter %s: model %d, kernel %d",
				 r, a->reason[i], b->reason[i]);
			return false;
		}
	}
	return true;
}

/* ---- one send, message by message ---------------------------------- */

static bool has_doit(unsigned int cmd)
{
	return (cmd >= HVTRACE_CMD_GET_STATUS && cmd <= HVTRACE_CMD_CLEAR) ||
	       cmd == HVTRACE_CMD_WATCH_START || cmd == HVTRACE_CMD_WATCH_STOP;
}

static bool has_dump(unsigned int cmd)
{
	return cmd == HVTRACE_CMD_GET_STATUS || cmd == HVTRACE_CMD_GET_CONFIG ||
	       cmd == HVTRACE_CMD_GET_STATS || cmd == HVTRACE_CMD_READ_EVENTS ||
	       cmd == HVTRACE_CMD_READ_CAPTURES;
}

/* A leaf of the WATCH nest in ATTRS (0 when absent), and whether there. */
static bool watch_leaf(const uint8_t *p, int len, unsigned int type,
		       uint64_t *v)
{
	bool found = false;

	/* The last of repeated attributes counts, as in nla_parse(). */
	*v = 0;
	while (len >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
	       attr_at(p)->nla_len <= len) {
		const struct nlattr *a = attr_at(p);

		if ((a->nla_type & NLA_TYPE_MASK) == type) {
			*v = leaf_value(p + NLA_HDRLEN, a->nla_len - NLA_HDRLEN);
			found = true;
		}
		len -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return found;
}

/*
 * WATCH_START's own checks, past the policy (validated already): the
 * nest, the stall's two halves, a trigger; its VCPUS bitmap in whole
 * words. 0 or the errno with WHY.
 */
static int watch_check(const uint8_t *attrs, int alen, const char **why)
{
	const uint8_t *n = NULL;
	uint64_t stall, window, exit_ns, preempt, marks, mark_pid;
	uint64_t vcpus_len = 0;
	int nlen = 0, rem = alen;
	const uint8_t *p = attrs;

	while (rem >= NLA_HDRLEN && attr_at(p)->nla_len >= NLA_HDRLEN &&
	       attr_at(p)->nla_len <= rem) {
		if ((attr_at(p)->nla_type & NLA_TYPE_MASK) == HVTRACE_A_WATCH) {
			n = p + NLA_HDRLEN;
			nlen = attr_at(p)->nla_len - NLA_HDRLEN;
		}
		rem -= NLA_ALIGN(attr_at(p)->nla_len);
		p += NLA_ALIGN(attr_at(p)->nla_len);
	}
	if (!n) {
		*why = "no watch settings";
		return EINVAL;
	}
	for (p = n, rem = nlen; rem >= NLA_HDRLEN &&
	     attr_at(p)->nla_len >= NLA_HDRLEN && attr_at(p)->nla_len <= rem;
	     rem -= NLA_ALIGN(attr_at(p)->nla_len),
	     p += NLA_ALIGN(attr_at(p)->nla_len))
		if ((attr_at(p)->nla_type & NLA_TYPE_MASK) ==
		    HVTRACE_WATCH_FILTER_VCPUS)
			vcpus_len = attr_at(p)->nla_len - NLA_HDRLEN;
	if (vcpus_len % 8) {
		*why = "bitmap is not made of 64-bit words";
		return EINVAL;
	}
	watch_leaf(n, nlen, HVTRACE_WATCH_STALL_NS, &stall);
	watch_leaf(n, nlen, HVTRACE_WATCH_STALL_WINDOW_NS, &window);
	watch_leaf(n, nlen, HVTRACE_WATCH_EXIT_NS, &exit_ns);
	watch_leaf(n, nlen, HVTRACE_WATCH_PREEMPT_NS, &preempt);
	watch_leaf(n, nlen, HVTRACE_WATCH_MARK_TRIGGERS, &marks);
	watch_leaf(n, nlen, HVTRACE_WATCH_MARK_PID, &mark_pid);
	if (!stall != !window) {
		*why = "a stall needs its time and its window";
		return EINVAL;
	}
	if (stall > window) {
		*why = "a stall longer than its window";
		return EINVAL;
	}
	if (mark_pid && !marks) {
		*why = "a VMM whose marks trigger, without mark triggers";
		return EINVAL;
	}
	if (!exit_ns && !stall && !preempt && !marks) {
		*why = "no trigger";
		return EINVAL;
	}
	return 0;
}

static bool observing(unsigned int cmd)
{
	return cmd == HVTRACE_CMD_GET_STATUS || cmd == HVTRACE_CMD_GET_CONFIG ||
	       cmd == HVTRACE_CMD_GET_STATS;
}

static void only(struct unit *u, int e, const char *why)
{
	memset(&u->allow, 0, sizeof(u->allow));
	allow_add(&u->allow, e);
	u->why = why;
}

/* What the family must do with a message that reaches it. */
static void predict(struct unit *u, const uint8_t *m, enum priv priv,
		    struct state *st)
{
	const struct nlmsghdr *h = (const void *)m;
	const struct genlmsghdr *g = NLMSG_DATA(h);
	uint16_t flags = h->nlmsg_flags;
	const uint8_t *attrs = m + NLMSG_HDRLEN + GENL_HDRLEN;
	int alen = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	const char *why = "";
	struct cfgm c;
	bool resize;
	int err;

	if (h->nlmsg_len >= NLMSG_HDRLEN + GENL_HDRLEN)
		u->cmd = g->cmd;
	u->dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	if (priv == PRIV_NETNS)
		return only(u, ENOENT, "the family does not exist here");
	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return only(u, EINVAL, "shorter than the family header");
	if (g->cmd >= HVTRACE_CMD_GET_STATUS) {	/* resv_start_op */
		if (g->reserved)
			return only(u, EINVAL, "genlmsghdr.reserved is not 0");
		if ((flags & NLM_F_DUMP) == NLM_F_DUMP)
			flags &= ~NLM_F_DUMP;
		if (flags & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO))
			return only(u, EINVAL, "reserved bits in nlmsg_flags");
	}
	if (u->dump ? !has_dump(g->cmd) : !has_doit(g->cmd))
		return only(u, EOPNOTSUPP, "no such operation");
	if (u->dump && st->dump_running) {
		/* Netlink's own: one dump at a time on a socket. */
		memset(&u->allow, 0, sizeof(u->allow));
		allow_add(&u->allow, EBUSY);
		u->uncertain = true;
	}
	err = validate(attrs, alen, top_pol, HVTRACE_A_MAX, &why);
	if (err) {
		if (!u->uncertain)
			memset(&u->allow, 0, sizeof(u->allow));
		allow_add(&u->allow, -err);
		u->why = why;
		return;
	}
	if (priv == PRIV_NONE || (priv == PRIV_OBSERVE && !observing(g->cmd))) {
		if (!u->uncertain)
			memset(&u->allow, 0, sizeof(u->allow));
		allow_add(&u->allow, EPERM);
		u->why = "not privileged";
		return;
	}
	if (u->uncertain) {
		/* It may run after all, if the other dump ended in time. */
		allow_add(&u->allow, 0);
		if (g->cmd == HVTRACE_CMD_READ_EVENTS) {
			allow_add(&u->allow, EBUSY);
			/* If it ran, this socket owns the buffers now. */
			if (st->lease == LEASE_NONE)
				st->lease = LEASE_UNSURE;
		}
		return;
	}
	switch (g->cmd) {
	case HVTRACE_CMD_START:
	case HVTRACE_CMD_STOP:
		only(u, 0, NULL);
		st->recording = g->cmd == HVTRACE_CMD_START;
		break;
	case HVTRACE_CMD_CLEAR:
		if (st->lease == LEASE_MAIN || st->lease == LEASE_OTHER)
			return only(u, EBUSY, "a reader owns the buffers");
		/* A reader's dump ends when its socket is freed: later. */
		only(u, 0, NULL);
		allow_add(&u->allow, EBUSY);
		break;
	case HVTRACE_CMD_WATCH_START:
		err = watch_check(attrs, alen, &why);
		if (err)
			return only(u, err, why);
		/*
		 * Armed, or not: another socket's watch (this socket's is
		 * replaced), or histories for max_vcpus beyond half of the
		 * memory; neither can be seen from here.
		 */
		only(u, 0, NULL);
		allow_add(&u->allow, EBUSY);
		allow_add(&u->allow, ENOMEM);
		break;
	case HVTRACE_CMD_WATCH_STOP:
		only(u, 0, NULL);
		break;
	case HVTRACE_CMD_READ_CAPTURES:
		/* The captures are the arming socket's only. */
		only(u, 0, NULL);
		allow_add(&u->allow, EPERM);
		st->dump_running = true;
		break;
	case HVTRACE_CMD_READ_EVENTS:
		if (st->lease == LEASE_OTHER)
			return only(u, EBUSY, "another reader owns the buffers");
		only(u, 0, NULL);
		allow_add(&u->allow, EBUSY);
		st->dump_running = true;
		if (st->lease == LEASE_NONE)
			st->lease = LEASE_UNSURE;
		break;
	case HVTRACE_CMD_SET_CONFIG:
		if (!st->cfg_known) {
			only(u, 0, NULL);
			allow_add(&u->allow, EINVAL);
			allow_add(&u->allow, EBUSY);
			allow_add(&u->allow, ENOMEM);
			u->uncertain = true;
			break;
		}
		c = st->cfg;
		err = apply(&c, attrs, alen, &why);
		resize = c.kb != st->cfg.kb || c.mode != st->cfg.mode;
		if (resize && (st->recording || st->lease == LEASE_MAIN ||
			       st->lease == LEASE_OTHER))
			return only(u, EBUSY, "buffers change while in use");
		if (err) {
			only(u, -err, why);
			/* The buffers' state is checked first. */
			if (resize && st->lease == LEASE_UNSURE)
				allow_add(&u->allow, EBUSY);
			return;
		}
		only(u, 0, NULL);
		if (resize) {
			/* The rings' memory, and a reader's late release. */
			allow_add(&u->allow, ENOMEM);
			allow_add(&u->allow, EBUSY);
		}
		if (resize && st->lease == LEASE_UNSURE)
			allow_add(&u->allow, EBUSY);
		u->changes = true;
		st->cfg = c;
		break;
	default:	/* observing */
		only(u, 0, NULL);
		if (u->dump)
			st->dump_running = true;
		break;
	}
}

/*
 * The messages of one send as netlink_rcv_skb() walks them, each with
 * what it must answer. ST is updated with the expected outcomes, for the
 * messages after. A message of a type other than FAMILY, the
 * consequence of a length that lies, gets FAMILY (never another family's
 * request by accident).
 */
void oracle_send(uint8_t *buf, size_t len, uint16_t family, enum priv priv,
		 struct state *st, struct unit *units, unsigned int *nunits,
		 unsigned int max)
{
	size_t off = 0;

	*nunits = 0;
	while (len - off >= NLMSG_HDRLEN && *nunits < max) {
		struct nlmsghdr *h = (struct nlmsghdr *)(buf + off);
		struct unit *u = &units[(*nunits)++];
		size_t step;

		memset(u, 0, sizeof(*u));
		u->off = off;
		u->len = h->nlmsg_len;
		u->seq = h->nlmsg_seq;
		u->flags = h->nlmsg_flags;
		u->ack = h->nlmsg_flags & NLM_F_ACK;
		if (h->nlmsg_len < NLMSG_HDRLEN || len - off < h->nlmsg_len) {
			u->kind = U_DROPPED;
			u->len = len - off;
			break;
		}
		if (h->nlmsg_type >= NLMSG_MIN_TYPE && h->nlmsg_type != family)
			h->nlmsg_type = family;
		if (!(h->nlmsg_flags & NLM_F_REQUEST) ||
		    h->nlmsg_type < NLMSG_MIN_TYPE) {
			u->kind = U_ACKONLY;
			only(u, 0, NULL);
		} else {
			u->kind = U_GENL;
			predict(u, buf + off, priv, st);
		}
		step = NLMSG_ALIGN(h->nlmsg_len);
		off += step > len - off ? len - off : step;
	}
	/* Bytes too few for a header: netlink ignores them, silently. */
	if (off < len && len - off < NLMSG_HDRLEN && *nunits < max) {
		struct unit *u = &units[(*nunits)++];

		memset(u, 0, sizeof(*u));
		u->kind = U_DROPPED;
		u->off = off;
		u->len = len - off;
	}
}
