// SPDX-License-Identifier: GPL-2.0
/*
 * Messages for nlfuzz: templates and their mutations.
 *
 * A template is a valid request: one recorded from hvctl (the corpus, see
 * nlrecord.c), or one built here from the ABI (every command, and random
 * valid configurations). Mutations work on the attribute tree (types,
 * payloads, duplicates, nests of other attribute spaces, deep and huge
 * nests, bitmaps at and beyond their size) and then on the bytes
 * (attribute and message lengths, truncation, bit flips, garbage).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "nlfuzz.h"

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("nlfuzz: realloc");
		exit(2);
	}
	return p;
}

/* ---- trees --------------------------------------------------------- */

void node_free(struct node *n)
{
	uint32_t i;

	for (i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->data);
	memset(n, 0, sizeof(*n));
}

static void node_copy(struct node *dst, const struct node *src)
{
	uint32_t i;

	*dst = *src;
	dst->data = NULL;
	dst->kids = NULL;
	dst->cap = src->nkids;
	if (src->len) {
		dst->data = xrealloc(NULL, src->len);
		memcpy(dst->data, src->data, src->len);
	}
	if (src->nkids) {
		dst->kids = xrealloc(NULL, src->nkids * sizeof(*dst->kids));
		for (i = 0; i < src->nkids; i++)
			node_copy(&dst->kids[i], &src->kids[i]);
	}
}

/* A new child of PARENT at position POS (its end if POS is beyond). */
static struct node *node_insert(struct node *parent, uint32_t pos)
{
	if (parent->nkids == parent->cap) {
		parent->cap = parent->cap ? 2 * parent->cap : 4;
		parent->kids = xrealloc(parent->kids,
					parent->cap * sizeof(*parent->kids));
	}
	if (pos > parent->nkids)
		pos = parent->nkids;
	memmove(&parent->kids[pos + 1], &parent->kids[pos],
		(parent->nkids - pos) * sizeof(*parent->kids));
	parent->nkids++;
	parent->nest = true;
	memset(&parent->kids[pos], 0, sizeof(parent->kids[pos]));
	return &parent->kids[pos];
}

static struct node *add_leaf(struct node *parent, uint16_t type,
			     const void *data, uint32_t len)
{
	struct node *n = node_insert(parent, UINT32_MAX);

	n->type = type;
	n->len = len;
	if (len) {
		n->data = xrealloc(NULL, len);
		memcpy(n->data, data, len);
	}
	return n;
}

static void add_u8(struct node *p, uint16_t type, uint8_t v)
{
	add_leaf(p, type, &v, 1);
}

static void add_u32(struct node *p, uint16_t type, uint32_t v)
{
	add_leaf(p, type, &v, 4);
}

static void add_u64(struct node *p, uint16_t type, uint64_t v)
{
	add_leaf(p, type, &v, 8);
}

static struct node *add_nest(struct node *p, uint16_t type)
{
	struct node *n = node_insert(p, UINT32_MAX);

	n->type = type | NLA_F_NESTED;
	n->nest = true;
	return n;
}

/* Parse an attribute stream into PARENT; false if it is not one exactly. */
static bool parse_attrs(struct node *parent, const uint8_t *p, size_t len,
			int depth)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		size_t alen = a->nla_len, step = NLA_ALIGN(alen);
		struct node *n;

		if (alen < NLA_HDRLEN || alen > len)
			return false;
		n = node_insert(parent, UINT32_MAX);
		n->type = a->nla_type;
		if ((a->nla_type & NLA_F_NESTED) && depth < 16 &&
		    parse_attrs(n, p + NLA_HDRLEN, alen - NLA_HDRLEN,
				depth + 1)) {
			n->nest = true;
		} else {
			node_free(n);
			n->type = a->nla_type;
			n->len = alen - NLA_HDRLEN;
			if (n->len) {
				n->data = xrealloc(NULL, n->len);
				memcpy(n->data, p + NLA_HDRLEN, n->len);
			}
		}
		if (step >= len)
			return true;
		p += step;
		len -= step;
	}
	return len == 0;
}

/* ---- templates ----------------------------------------------------- */

struct recorded {
	struct msg m;
};

static struct recorded *corpus;
static unsigned int ncorpus;

static void msg_init(struct msg *m, uint8_t cmd, uint16_t flags,
		     const char *origin)
{
	memset(m, 0, sizeof(*m));
	m->nl_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	m->cmd = cmd;
	m->version = HVTRACE_GENL_VERSION;
	m->root.nest = true;
	m->origin = origin;
}

int corpus_load(const char *path, uint16_t family)
{
	FILE *f = fopen(path, "rb");
	uint32_t len;

	if (!f)
		return -errno;
	while (fread(&len, sizeof(len), 1, f) == 1) {
		uint8_t *buf;
		size_t off = 0;

		if (len > SEND_MAX) {
			fclose(f);
			return -EINVAL;
		}
		buf = xrealloc(NULL, len);
		if (fread(buf, 1, len, f) != len) {
			free(buf);
			break;
		}
		while (off + NLMSG_HDRLEN + GENL_HDRLEN <= len) {
			const struct nlmsghdr *h = (const void *)(buf + off);
			const struct genlmsghdr *g = NLMSG_DATA(h);
			struct msg *m;

			if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
			    h->nlmsg_len > len - off)
				break;
			if (h->nlmsg_type == family) {
				corpus = xrealloc(corpus, (ncorpus + 1) *
						  sizeof(*corpus));
				m = &corpus[ncorpus].m;
				msg_init(m, g->cmd, 0, "recorded");
				m->nl_flags = h->nlmsg_flags;
				m->version = g->version;
				m->reserved = g->reserved;
				if (parse_attrs(&m->root,
						(const uint8_t *)h +
						NLMSG_HDRLEN + GENL_HDRLEN,
						h->nlmsg_len - NLMSG_HDRLEN -
						GENL_HDRLEN, 0))
					ncorpus++;
				else
					node_free(&m->root);
			}
			off += NLMSG_ALIGN(h->nlmsg_len);
		}
		free(buf);
	}
	fclose(f);
	return 0;
}

unsigned int corpus_size(void)
{
	return ncorpus;
}

void gen_cmds_of_corpus(unsigned int *per_cmd)
{
	unsigned int i;

	for (i = 0; i < ncorpus; i++)
		per_cmd[corpus[i].m.cmd]++;
}

/* A valid exit reason code of ISA (or, rarely, one that is not). */
static uint32_t some_code(struct rng *r, uint8_t isa, bool valid)
{
	if (!valid)
		switch (below(r, 4)) {
		case 0: return isa == HVTRACE_ISA_VMX ? 128 + below(r, 0xff80) :
				0x100 + below(r, 0x300);
		case 1: return 0x420 + below(r, 1000);
		case 2: return 0xfffffffe;
		default: return (uint32_t)rnd(r) | 0x10000000;
		}
	if (isa == HVTRACE_ISA_VMX)
		return below(r, 8) ? below(r, 80) :
		       below(r, R_VMX_MAX) | (uint32_t)(rnd(r) << 16);
	switch (below(r, 6)) {
	case 0: return R_SVM_HIGH_BASE + below(r, R_SVM_HIGH);
	case 1: return R_SVM_ERR;
	default: return below(r, R_SVM_LOW);
	}
}

static void add_reason(struct node *p, uint16_t type, struct rng *r,
		       bool threshold)
{
	struct node *n = add_nest(p, type);
	uint8_t isa = below(r, 2) ? HVTRACE_ISA_SVM : HVTRACE_ISA_VMX;

	add_u8(n, HVTRACE_RSN_ISA, isa);
	add_u32(n, HVTRACE_RSN_CODE, some_code(r, isa, below(r, 20)));
	if (threshold)
		add_u64(n, HVTRACE_RSN_THRESHOLD_NS, below(r, 3) ?
			below(r, 1000000) : 3600ULL * 1000000000ULL);
}

static uint64_t some_ns(struct rng *r)
{
	switch (below(r, 5)) {
	case 0: return 0;
	case 1: return 3600ULL * 1000000000ULL;
	case 2: return 1 + below(r, 1000);
	default: return rnd(r) % (3600ULL * 1000000000ULL);
	}
}

static void add_bitmap(struct node *p, uint16_t type, struct rng *r,
		       unsigned int bits, unsigned int max_bytes)
{
	unsigned int words = 1 + below(r, (bits + 63) / 64), i;
	uint64_t *w = xrealloc(NULL, max_bytes + 8);

	if (chance(r, 20))	/* longer, zero beyond the last valid bit */
		words = max_bytes / 8;
	if (chance(r, 10))
		words = 0;
	memset(w, 0, max_bytes + 8);
	for (i = 0; i < words && i * 64 < bits; i++) {
		w[i] = chance(r, 30) ? ~0ULL : rnd(r);
		if (bits - i * 64 < 64)
			w[i] &= (1ULL << (bits - i * 64)) - 1;
	}
	add_leaf(p, type, w, words * 8);
	free(w);
}

/* A random valid SET_CONFIG (against the documented ABI). */
static void gen_config(struct msg *m, struct rng *r)
{
	struct node *c = add_nest(&m->root, HVTRACE_A_CONFIG);
	unsigned int i, n;
	uint64_t a, b;

	if (chance(r, 10))
		add_leaf(c, HVTRACE_CFG_FILTERS_CLEAR, NULL, 0);
	if (chance(r, 10))
		add_leaf(c, HVTRACE_CFG_REASON_THRESHOLDS_CLEAR, NULL, 0);
	if (chance(r, 35))
		add_u64(c, HVTRACE_CFG_THRESHOLD_NS, some_ns(r));
	if (chance(r, 25))
		for (i = 0, n = 1 + below(r, 4); i < n; i++)
			add_reason(c, HVTRACE_CFG_REASON_THRESHOLD, r, true);
	if (chance(r, 20))
		add_u32(c, HVTRACE_CFG_FILTER_PID,
			below(r, 2) ? 0 : (uint32_t)rnd(r));
	if (chance(r, 20))
		add_bitmap(c, HVTRACE_CFG_FILTER_VCPUS, r, VCPU_BITS,
			   VCPU_BITS / 8);
	if (chance(r, 20)) {
		struct node *l = add_nest(c, HVTRACE_CFG_FILTER_REASONS);

		for (i = 0, n = below(r, 6); i < n; i++)
			add_reason(l, HVTRACE_A_REASON, r, chance(r, 5));
	}
	if (chance(r, 20)) {
		a = below(r, 3) ? rnd(r) >> below(r, 64) : 0;
		b = below(r, 3) ? rnd(r) >> below(r, 64) : ~0ULL;
		if (a > b) {
			uint64_t t = a;

			a = b;
			b = t;
		}
		if (below(r, 4))
			add_u64(c, HVTRACE_CFG_FILTER_RIP_MIN, a);
		if (below(r, 4))
			add_u64(c, HVTRACE_CFG_FILTER_RIP_MAX, b);
	}
	if (chance(r, 15))
		add_bitmap(c, HVTRACE_CFG_FILTER_CPUS, r, host.nr_cpu_ids,
			   host.cpumask_bytes);
	if (chance(r, 8)) {
		static const uint32_t kb[] = { 4, 8, 16, 64, 256, 2560 };

		add_u32(c, HVTRACE_CFG_BUFFER_KB, kb[below(r, 6)]);
	}
	if (chance(r, 8))
		add_u8(c, HVTRACE_CFG_MODE, below(r, 2));
	if (chance(r, 15))
		add_u8(c, HVTRACE_CFG_THRESHOLD_ON, below(r, HVTRACE_ON_MAX + 1));
	if (chance(r, 15))
		add_u8(c, HVTRACE_CFG_HALT_TRIGGERS, below(r, 2));
	if (chance(r, 15))
		add_u64(c, HVTRACE_CFG_PREEMPT_THRESHOLD_NS, some_ns(r));
	if (chance(r, 15))
		add_u64(c, HVTRACE_CFG_IRQ_THRESHOLD_NS, below(r, 3) ?
			some_ns(r) : HVTRACE_IRQ_THRESHOLD_OFF);
	/* Attribute order is free: shuffle now and then. */
	if (chance(r, 30))
		for (i = c->nkids; i > 1; i--) {
			uint32_t j = below(r, i);
			struct node t = c->kids[i - 1];

			c->kids[i - 1] = c->kids[j];
			c->kids[j] = t;
		}
}


/*
 * A watch: mostly valid settings (small histories, so arming is not
 * refused for memory), now and then what WATCH_START must refuse.
 */
static void gen_watch(struct msg *m, struct rng *r)
{
	struct node *w = add_nest(&m->root, HVTRACE_A_WATCH);
	uint64_t x, y;

	if (chance(r, 60))
		add_u64(w, HVTRACE_WATCH_EXIT_NS, some_ns(r));
	if (chance(r, 20))
		add_u8(w, HVTRACE_WATCH_EXIT_ON, below(r, HVTRACE_ON_MAX + 2));
	if (chance(r, 15))
		add_u8(w, HVTRACE_WATCH_HALT_TRIGGERS, below(r, 3));
	if (chance(r, 40)) {
		x = some_ns(r);
		y = some_ns(r);
		if (below(r, 4) && x > y) {
			uint64_t t = x;

			x = y;
			y = t;
		}
		if (below(r, 8))
			add_u64(w, HVTRACE_WATCH_STALL_NS, x);
		if (below(r, 8))
			add_u64(w, HVTRACE_WATCH_STALL_WINDOW_NS, y);
	}
	if (chance(r, 30))
		add_u64(w, HVTRACE_WATCH_PREEMPT_NS, some_ns(r));
	if (chance(r, 50))
		add_u32(w, HVTRACE_WATCH_HISTORY, below(r, 10) ?
			1 + below(r, 64) : (uint32_t)rnd(r) >> below(r, 32));
	if (chance(r, 30))
		add_u64(w, HVTRACE_WATCH_POST_NS, some_ns(r));
	if (chance(r, 20))
		add_u32(w, HVTRACE_WATCH_RATE, below(r, 4000));
	if (chance(r, 20))
		add_u32(w, HVTRACE_WATCH_RATE_TOTAL, below(r, 4000));
	if (chance(r, 15))
		add_u32(w, HVTRACE_WATCH_FILTER_PID,
			below(r, 2) ? 0 : (uint32_t)rnd(r));
	if (chance(r, 15))
		add_bitmap(w, HVTRACE_WATCH_FILTER_VCPUS, r, VCPU_BITS,
			   VCPU_BITS / 8);
	/* Guest marks: 2 is past the policy; a pid alone is refused. */
	if (chance(r, 20))
		add_u8(w, HVTRACE_WATCH_MARK_TRIGGERS, below(r, 3));
	if (chance(r, 15))
		add_u32(w, HVTRACE_WATCH_MARK_PID,
			below(r, 2) ? 0 : (uint32_t)rnd(r));
}

static const unsigned int weight[NR_TCLASS] = {
	[T_STATUS] = 6, [T_STATUS_DUMP] = 4, [T_CONFIG] = 6,
	[T_CONFIG_DUMP] = 4, [T_SET] = 32, [T_START] = 4, [T_STOP] = 5,
	[T_CLEAR] = 5, [T_STATS] = 5, [T_EVENTS] = 4, [T_UNKNOWN] = 4,
	[T_WATERMARK] = 3, [T_WATCH] = 8, [T_WATCH_STOP] = 3,
	[T_CAPTURES] = 3,
};

static const struct {
	uint8_t cmd;
	bool dump;
} tclass_cmd[NR_TCLASS] = {
	[T_STATUS] = { HVTRACE_CMD_GET_STATUS, false },
	[T_STATUS_DUMP] = { HVTRACE_CMD_GET_STATUS, true },
	[T_CONFIG] = { HVTRACE_CMD_GET_CONFIG, false },
	[T_CONFIG_DUMP] = { HVTRACE_CMD_GET_CONFIG, true },
	[T_SET] = { HVTRACE_CMD_SET_CONFIG, false },
	[T_START] = { HVTRACE_CMD_START, false },
	[T_STOP] = { HVTRACE_CMD_STOP, false },
	[T_CLEAR] = { HVTRACE_CMD_CLEAR, false },
	[T_STATS] = { HVTRACE_CMD_GET_STATS, true },
	[T_EVENTS] = { HVTRACE_CMD_READ_EVENTS, true },
	[T_UNKNOWN] = { HVTRACE_CMD_GET_STATUS, false },
	[T_WATERMARK] = { HVTRACE_CMD_WATERMARK, false },
	[T_WATCH] = { HVTRACE_CMD_WATCH_START, false },
	[T_WATCH_STOP] = { HVTRACE_CMD_WATCH_STOP, false },
	[T_CAPTURES] = { HVTRACE_CMD_READ_CAPTURES, true },
};

/* A recorded message of CMD with that dump flag, if the corpus has one. */
static const struct msg *recorded_of(struct rng *r, uint8_t cmd, bool dump)
{
	unsigned int i, n = 0, pick;

	for (i = 0; i < ncorpus; i++)
		if (corpus[i].m.cmd == cmd &&
		    !!((corpus[i].m.nl_flags & NLM_F_DUMP) == NLM_F_DUMP) == dump)
			n++;
	if (!n)
		return NULL;
	pick = below(r, n);
	for (i = 0; i < ncorpus; i++)
		if (corpus[i].m.cmd == cmd &&
		    !!((corpus[i].m.nl_flags & NLM_F_DUMP) == NLM_F_DUMP) == dump &&
		    !pick--)
			return &corpus[i].m;
	return NULL;
}

/*
 * A valid request: the recorded message RECORDED (>= 0), or a built-in one
 * of class WANT (>= 0, enum tclass), or one drawn by weight (both -1).
 */
struct msg *msg_template(struct rng *r, int want, int recorded)
{
	struct msg *m = xrealloc(NULL, sizeof(*m));
	unsigned int total = 0, pick, t;
	const struct msg *rec = NULL;
	bool dump;

	if (recorded >= 0 && (unsigned int)recorded < ncorpus) {
		*m = corpus[recorded].m;
		node_copy(&m->root, &corpus[recorded].m.root);
		m->muts[0] = 0;
		return m;
	}
	for (t = 0; t < NR_TCLASS; t++)
		total += weight[t];
	pick = below(r, total);
	for (t = 0; t < NR_TCLASS - 1 && pick >= weight[t]; t++)
		pick -= weight[t];
	if (want >= 0 && want < NR_TCLASS)
		t = want;

	dump = tclass_cmd[t].dump;
	if (want < 0 && below(r, 2))
		rec = recorded_of(r, tclass_cmd[t].cmd, dump);
	if (rec) {
		*m = *rec;
		node_copy(&m->root, &rec->root);
		m->muts[0] = 0;
	} else {
		msg_init(m, tclass_cmd[t].cmd, dump ? NLM_F_DUMP : 0,
			 "built-in");
		if (t == T_SET)
			gen_config(m, r);
		if (t == T_WATCH)
			gen_watch(m, r);
	}
	if (t == T_UNKNOWN) {
		/* CAPTURE, like WATERMARK, is a notification: no operation. */
		static const uint8_t cmds[] = { 0, HVTRACE_CMD_CAPTURE,
						HVTRACE_CMD_MAX + 1, 0x7f, 0x80,
						0xff };

		m->cmd = below(r, 2) ? cmds[below(r, sizeof(cmds))] :
				       HVTRACE_CMD_MAX + 1 +
				       below(r, 255 - HVTRACE_CMD_MAX);
	}
	if ((t == T_WATERMARK || t == T_UNKNOWN) && chance(r, 30))
		m->nl_flags |= NLM_F_DUMP;
	return m;
}

void msg_free(struct msg *m)
{
	if (!m)
		return;
	node_free(&m->root);
	free(m);
}

/* ---- tree mutations ------------------------------------------------ */

/* Every node of the tree, with its parent, depth first. */
struct slot {
	struct node *parent;
	uint32_t idx;
};

static unsigned int collect_slots(struct node *parent, struct slot *s,
				  unsigned int n, unsigned int max)
{
	uint32_t i;

	for (i = 0; i < parent->nkids && n < max; i++) {
		s[n].parent = parent;
		s[n].idx = i;
		n++;
		if (parent->kids[i].nest)
			n = collect_slots(&parent->kids[i], s, n, max);
	}
	return n;
}

/*
 * A slot to mutate: mostly one inside a nest (inside CONFIG, say), where
 * a message gets past the top level's policy and deeper code runs.
 */
static unsigned int pick_slot(struct rng *r, const struct slot *s,
			      unsigned int n, const struct node *root)
{
	unsigned int i = below(r, n), tries;

	for (tries = 0; tries < 6 && s[i].parent == root && chance(r, 75);
	     tries++)
		i = below(r, n);
	return i;
}

static struct node *pick_nest(struct rng *r, struct node **nests,
			      unsigned int n)
{
	unsigned int i = below(r, n), tries;

	for (tries = 0; tries < 6 && i == 0 && n > 1 && chance(r, 75); tries++)
		i = below(r, n);
	return nests[i];
}

/* Nests of the tree (the root included). */
static unsigned int collect_nests(struct node *n, struct node **out,
				  unsigned int k, unsigned int max)
{
	uint32_t i;

	if (k < max)
		out[k++] = n;
	for (i = 0; i < n->nkids && k < max; i++)
		if (n->kids[i].nest)
			k = collect_nests(&n->kids[i], out, k, max);
	return k;
}

static size_t tree_size(const struct node *n)
{
	size_t s = 0;
	uint32_t i;

	if (!n->nest)
		return NLA_ALIGN(NLA_HDRLEN + n->len);
	for (i = 0; i < n->nkids; i++)
		s += tree_size(&n->kids[i]);
	return s + NLA_HDRLEN;
}

/* Values at the edges of what the policy accepts, by payload size. */
static void edge_payload(struct rng *r, uint8_t *p, uint32_t len)
{
	/* ~0ULL - 1: next to the one value past the hour that is taken. */
	static const uint64_t e8[] = { 0, 1, 3600000000000ULL,
		3600000000001ULL, ~0ULL, ~0ULL - 1, 1ULL << 63,
		0x7fffffffffffffffULL };
	static const uint32_t e4[] = { 0, 1, 3, 4, 5, 2560, 262144, 262145,
		0x7fffffff, 0x80000000, 0xffffffff, 0x400, 0x41f, 0x420,
		0xff, 0x100, 127, 128 };
	static const uint8_t e1[] = { 0, 1, 2, 3, 5, 6, 0x7f, 0x80, 0xff };
	uint32_t i;

	if (len == 8) {
		memcpy(p, &e8[below(r, sizeof(e8) / 8)], 8);
	} else if (len == 4) {
		memcpy(p, &e4[below(r, sizeof(e4) / 4)], 4);
	} else if (len == 1) {
		p[0] = e1[below(r, sizeof(e1))];
	} else {
		/* Random bytes, a third of them 0xff. */
		for (i = 0; i < len; i += 8) {
			uint64_t v = rnd(r), ff = rnd(r) & rnd(r);
			uint32_t j;

			for (j = 0; j < 8 && i + j < len; j++)
				p[i + j] = ff >> (8 * j) & 1 ? 0xff :
					   (uint8_t)(v >> (8 * j));
		}
	}
}

static uint32_t some_len(struct rng *r)
{
	static const uint32_t l[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 160,
		511, 512, 513, 520, 1023, 1024, 1032 };

	return below(r, 4) ? l[below(r, sizeof(l) / 4)] : below(r, 700);
}

/* The largest attribute type of the space PARENT's children are in. */
static unsigned int space_max(const struct node *parent, const struct node *root)
{
	if (parent == root)
		return HVTRACE_A_MAX;
	if ((parent->type & NLA_TYPE_MASK) == HVTRACE_A_CONFIG)
		return HVTRACE_CFG_MAX;
	return HVTRACE_RSN_MAX;
}

/* A type: mostly one of the space (MAX), else anything. */
static uint16_t some_type(struct rng *r, unsigned int max)
{
	uint16_t t;

	if (chance(r, 60))
		return 1 + below(r, max);
	switch (below(r, 6)) {
	case 0: t = 0; break;
	case 1: t = 1 + below(r, HVTRACE_A_MAX + 4); break;
	case 2: t = 0x3fff; break;
	case 3: t = (uint16_t)rnd(r); break;
	default: t = below(r, 20); break;
	}
	if (chance(r, 10))
		t |= NLA_F_NET_BYTEORDER;
	return t;
}

/* N becomes a leaf of LEN edge-value bytes; it keeps its type. */
static void set_payload(struct node *n, uint32_t len, struct rng *r)
{
	uint16_t type = n->type;

	node_free(n);
	n->type = type;
	n->nest = false;
	n->len = len;
	if (len) {
		n->data = xrealloc(NULL, len);
		edge_payload(r, n->data, len);
	}
}

/* An attribute of another nest's space, or a whole foreign nest. */
static void add_foreign(struct node *p, struct rng *r)
{
	struct node *n;
	unsigned int i, k;
	char comm[16] = "nlfuzz";

	switch (below(r, 9)) {
	case 0:	/* an ACCT nest as a client would never send it */
		n = add_nest(p, HVTRACE_A_ACCT);
		for (i = 0, k = 1 + below(r, 8); i < k; i++)
			add_u64(n, 1 + below(r, HVTRACE_ACCT_MAX), rnd(r));
		break;
	case 1:	/* a VCPU nest */
		n = add_nest(p, HVTRACE_A_VCPU);
		add_u32(n, HVTRACE_VCPU_ID, below(r, 8));
		add_u64(n, HVTRACE_VCPU_COUNT, rnd(r));
		break;
	case 2:	/* a PREEMPTOR nest */
		n = add_nest(p, HVTRACE_A_PREEMPTOR);
		add_leaf(n, HVTRACE_PRE_COMM, comm, sizeof(comm));
		add_u32(n, HVTRACE_PRE_PID, 1);
		break;
	case 3:	/* a stats REASON nest with counters */
		n = add_nest(p, HVTRACE_A_REASON);
		add_u8(n, HVTRACE_RSN_ISA, HVTRACE_ISA_SVM);
		add_u32(n, HVTRACE_RSN_CODE, 0x7b);
		add_u64(n, HVTRACE_RSN_COUNT, 5);
		break;
	case 4:	/* a CONFIG nest where there should be none */
		n = add_nest(p, HVTRACE_A_CONFIG);
		add_u64(n, HVTRACE_CFG_THRESHOLD_NS, some_ns(r));
		break;
	case 5:	/* a reason threshold nest */
		add_reason(p, HVTRACE_CFG_REASON_THRESHOLD, r, below(r, 2));
		break;
	case 6:	/* events, as READ_EVENTS sends them */
		k = 160 * (1 + below(r, 3));
		n = add_leaf(p, HVTRACE_A_EVENTS, NULL, 0);
		set_payload(n, k, r);
		break;
	case 7:	/* a string */
		add_leaf(p, HVTRACE_A_VERSION, "0.1.0", 6);
		break;
	default:	/* a status counter */
		add_u64(p, HVTRACE_A_EXITS_SEEN + below(r, 3), rnd(r));
		break;
	}
}

/* Bitmaps at, below and beyond their sizes and bit limits. */
static void add_bad_bitmap(struct node *cfg, struct rng *r)
{
	bool cpus = below(r, 2);
	uint16_t type = cpus ? HVTRACE_CFG_FILTER_CPUS : HVTRACE_CFG_FILTER_VCPUS;
	uint32_t max = cpus ? host.cpumask_bytes : VCPU_BITS / 8;
	uint32_t bits = cpus ? host.nr_cpu_ids : VCPU_BITS;
	uint32_t len, bit;
	struct node *n;

	switch (below(r, 7)) {
	case 0: len = max; break;
	case 1: len = max + 8; break;
	case 2: len = max + 1 + below(r, 7); break;
	case 3: len = 8 * below(r, max / 8 + 2); break;
	case 4: len = below(r, 2 * max + 16); break;
	case 5: len = (bits + 63) / 64 * 8; break;
	default: len = 4 * (1 + below(r, 8)); break;
	}
	n = add_leaf(cfg, type, NULL, 0);
	n->len = len;
	n->data = xrealloc(NULL, len);
	memset(n->data, 0, len);
	switch (below(r, 4)) {
	case 0:
		memset(n->data, 0xff, len);
		break;
	case 1:	/* the first bit beyond the limit, or the last within */
		bit = bits - below(r, 2);
		if (bit / 8 < len)
			n->data[bit / 8] |= 1 << (bit % 8);
		break;
	case 2:
		edge_payload(r, n->data, len);
		break;
	default:
		if (len)
			n->data[below(r, len)] = 1 << below(r, 8);
	}
}

static struct node *find_config(struct msg *m, struct rng *r)
{
	uint32_t i;

	for (i = 0; i < m->root.nkids; i++)
		if (m->root.kids[i].nest &&
		    (m->root.kids[i].type & NLA_TYPE_MASK) == HVTRACE_A_CONFIG)
			return &m->root.kids[i];
	if (chance(r, 85))
		return add_nest(&m->root, HVTRACE_A_CONFIG);
	return &m->root;
}

static void note(struct msg *m, const char *what)
{
	size_t l = strlen(m->muts);

	snprintf(m->muts + l, sizeof(m->muts) - l, "%s%s", l ? "," : "", what);
}

/* One mutation of the tree or the headers. */
static void mutate_once(struct msg *m, struct rng *r)
{
	struct slot slots[512];
	struct node *nests[128];
	unsigned int ns = collect_slots(&m->root, slots, 0, 512);
	unsigned int nn = collect_nests(&m->root, nests, 0, 128);
	struct node *n, *p;
	unsigned int i, k;
	size_t size;

	k = below(r, 17);
	/* The big ones (deep, huge, many) half as often: they cost. */
	if ((k == 9 || k == 10 || k == 12) && below(r, 2))
		k = 3;
	/* Nothing to change yet: a setting, or any attribute, to add. */
	if (!ns && (k == 3 || k == 4 || k == 5 || k == 6 || k == 13))
		k = below(r, 2) ? 15 : 7;
	switch (k) {
	case 0:
		switch (below(r, 6)) {
		case 0: m->nl_flags ^= NLM_F_DUMP; break;
		case 1: m->nl_flags ^= 1 << below(r, 16); break;
		case 2: m->nl_flags = (uint16_t)rnd(r); break;
		case 3: m->nl_flags ^= NLM_F_ROOT; break;
		case 4: m->nl_flags ^= NLM_F_ACK; break;
		default: m->nl_flags |= NLM_F_ECHO | NLM_F_EXCL; break;
		}
		note(m, "flags");
		break;
	case 1:
		m->version = (uint8_t)rnd(r);
		if (chance(r, 30))
			m->reserved = (uint16_t)rnd(r);
		note(m, "version");
		break;
	case 2:
		m->cmd = below(r, 2) ? below(r, 14) : (uint8_t)rnd(r);
		note(m, "cmd");
		break;
	case 3:
		i = pick_slot(r, slots, ns, &m->root);
		slots[i].parent->kids[slots[i].idx].type =
			some_type(r, space_max(slots[i].parent, &m->root));
		note(m, "type");
		break;
	case 4:
		i = pick_slot(r, slots, ns, &m->root);
		n = &slots[i].parent->kids[slots[i].idx];
		set_payload(n, some_len(r), r);
		note(m, "payload");
		break;
	case 5:
		i = pick_slot(r, slots, ns, &m->root);
		p = slots[i].parent;
		k = slots[i].idx;
		n = node_insert(p, k + 1);
		node_copy(n, &p->kids[k]);
		note(m, "dup");
		break;
	case 6:
		i = pick_slot(r, slots, ns, &m->root);
		p = slots[i].parent;
		k = slots[i].idx;
		node_free(&p->kids[k]);
		memmove(&p->kids[k], &p->kids[k + 1],
			(p->nkids - k - 1) * sizeof(*p->kids));
		p->nkids--;
		note(m, "del");
		break;
	case 7:
		p = pick_nest(r, nests, nn);
		n = node_insert(p, below(r, p->nkids + 1));
		n->type = some_type(r, space_max(p, &m->root));
		set_payload(n, some_len(r), r);
		note(m, "insert");
		break;
	case 8:
		add_foreign(pick_nest(r, nests, nn), r);
		note(m, "foreign");
		break;
	case 9:	/* a chain of nests, deep */
		p = pick_nest(r, nests, nn);
		k = 2 + below(r, chance(r, 20) ? 200 : 20);
		n = p;
		for (i = 0; i < k; i++)
			n = add_nest(n, below(r, 3) ? (p == &m->root ?
				     HVTRACE_A_CONFIG : p->type & NLA_TYPE_MASK) :
				     some_type(r, HVTRACE_A_MAX));
		add_u64(n, 2 + below(r, 3), rnd(r));
		note(m, "deep");
		break;
	case 10: /* a huge nest: many entries */
		p = find_config(m, r);
		k = 20 + below(r, chance(r, 10) ? 3600 : 300);
		/* No more than fit in a send (36 bytes an entry). */
		size = tree_size(&m->root);
		if (k > (SEND_MAX - size) / 36)
			k = size < SEND_MAX ? (SEND_MAX - size) / 36 : 0;
		if (below(r, 2)) {
			for (i = 0; i < k; i++)
				add_reason(p, HVTRACE_CFG_REASON_THRESHOLD, r,
					   chance(r, 97));
		} else {
			n = add_nest(p, HVTRACE_CFG_FILTER_REASONS);
			for (i = 0; i < k; i++)
				add_reason(n, HVTRACE_A_REASON, r, false);
		}
		note(m, "huge");
		break;
	case 11:
		add_bad_bitmap(find_config(m, r), r);
		note(m, "bitmap");
		break;
	case 12: /* many attributes */
		p = pick_nest(r, nests, nn);
		k = 20 + below(r, chance(r, 20) ? 3000 : 200);
		size = tree_size(&m->root);
		for (i = 0; i < k && size < SEND_MAX / 2; i++) {
			uint32_t src = below(r, p->nkids);
			bool copy = p->nkids && below(r, 2);
			struct node *c = node_insert(p, UINT32_MAX);

			if (copy) {
				node_copy(c, &p->kids[src]);
			} else {
				c->type = 1 + below(r, 20);
				set_payload(c, below(r, 3) ? 8 : some_len(r), r);
			}
			size += tree_size(c);
		}
		note(m, "many");
		break;
	case 13:
		i = pick_slot(r, slots, ns, &m->root);
		n = &slots[i].parent->kids[slots[i].idx];
		n->type ^= NLA_F_NESTED;
		note(m, "nestflag");
		break;
	case 14: /* an exit reason at the edges */
		for (i = 0; i < ns; i++) {
			n = &slots[i].parent->kids[slots[i].idx];
			if (!n->nest && n->len == 4 &&
			    (n->type & NLA_TYPE_MASK) == HVTRACE_RSN_CODE &&
			    chance(r, 60)) {
				uint32_t c = some_code(r, below(r, 2) + 1,
						       below(r, 2));

				memcpy(n->data, &c, 4);
			}
			if (!n->nest && n->len == 1 &&
			    (n->type & NLA_TYPE_MASK) == HVTRACE_RSN_ISA &&
			    chance(r, 30))
				n->data[0] = below(r, 4);
		}
		note(m, "reason");
		break;
	case 15: /* a setting with a value at its edges */
		p = find_config(m, r);
		n = add_leaf(p, 2 + below(r, HVTRACE_CFG_MAX - 1), NULL, 0);
		set_payload(n, below(r, 4) ? (uint32_t[]){ 0, 1, 4, 8 }[below(r, 4)] :
			    some_len(r), r);
		note(m, "edge");
		break;
	default: /* a configuration request where there is none */
		if (!below(r, 3) || m->cmd == HVTRACE_CMD_SET_CONFIG)
			m->cmd = 1 + below(r, HVTRACE_CMD_MAX);
		else
			find_config(m, r);
		note(m, "retarget");
		break;
	}
}

void msg_mutate(struct msg *m, struct rng *r, unsigned int nmut)
{
	while (nmut--)
		mutate_once(m, r);
}

/* ---- serialization ------------------------------------------------- */

static bool room(struct wbuf *w, size_t n)
{
	return w->len + n <= SEND_MAX;
}

static void put_node(struct wbuf *w, const struct node *n)
{
	size_t start = w->len, len;
	struct nlattr *a;
	uint32_t i;

	if (!room(w, NLA_HDRLEN + (n->nest ? 0 : NLA_ALIGN(n->len))))
		return;
	if (w->nattr < sizeof(w->attr_off) / sizeof(w->attr_off[0]))
		w->attr_off[w->nattr++] = start;
	w->len += NLA_HDRLEN;
	if (n->nest) {
		for (i = 0; i < n->nkids; i++)
			put_node(w, &n->kids[i]);
	} else {
		memcpy(w->p + w->len, n->data, n->len);
		w->len += n->len;
	}
	len = w->len - start;
	a = (struct nlattr *)(w->p + start);
	a->nla_len = (uint16_t)len;	/* a nest beyond 64 KiB wraps: kept */
	a->nla_type = n->type;
	memset(w->p + w->len, 0, NLA_ALIGN(w->len) - w->len);
	w->len = NLA_ALIGN(w->len);
}

/* Append M to W as one message with sequence number SEQ. */
void msg_serialize(const struct msg *m, struct wbuf *w, uint32_t seq)
{
	size_t start = w->len;
	struct nlmsghdr *h = (struct nlmsghdr *)(w->p + start);
	struct genlmsghdr *g;
	uint32_t i;

	if (!room(w, NLMSG_HDRLEN + GENL_HDRLEN))
		return;
	memset(h, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = m->nl_type;
	h->nlmsg_flags = m->nl_flags;
	h->nlmsg_seq = seq;
	g = NLMSG_DATA(h);
	g->cmd = m->cmd;
	g->version = m->version;
	g->reserved = m->reserved;
	w->len += NLMSG_HDRLEN + GENL_HDRLEN;
	for (i = 0; i < m->root.nkids; i++)
		put_node(w, &m->root.kids[i]);
	h->nlmsg_len = w->len - start;
}

/*
 * Byte mutations of the message at START (the last one in W): lengths of
 * attributes and of the message, truncation, bit flips, garbage.
 */
void bytes_mutate(struct wbuf *w, size_t start, struct rng *r, char *note,
		  size_t notesz)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(w->p + start);
	size_t len = w->len - start, i, k;
	unsigned int first = 0;
	struct nlattr *a;
	const char *what;

	while (first < w->nattr && w->attr_off[first] < start)
		first++;
	switch (below(r, 6)) {
	case 0:	/* an attribute's length */
		if (first >= w->nattr)
			goto flip;
		a = (struct nlattr *)(w->p + w->attr_off[first +
				      below(r, w->nattr - first)]);
		switch (below(r, 5)) {
		case 0: a->nla_len = below(r, 4); break;
		case 1: a->nla_len += 1 + below(r, 8); break;
		case 2: a->nla_len -= 1 + below(r, a->nla_len > 8 ? 8 : 1); break;
		case 3: a->nla_len = 0xffff; break;
		default: a->nla_len = (uint16_t)rnd(r); break;
		}
		what = "nla_len";
		break;
	case 1:	/* truncated: the message ends inside an attribute */
		if (len <= NLMSG_HDRLEN + GENL_HDRLEN)
			goto flip;
		k = NLMSG_HDRLEN + below(r, len - NLMSG_HDRLEN);
		w->len = start + k;
		h->nlmsg_len = k;
		what = "truncated";
		break;
	case 2:	/* a message length that lies */
		switch (below(r, 6)) {
		case 0: h->nlmsg_len = below(r, NLMSG_HDRLEN); break;
		case 1: h->nlmsg_len = NLMSG_HDRLEN + below(r, GENL_HDRLEN); break;
		case 2: h->nlmsg_len = len - 1 - below(r, len > 24 ? 8 : 1); break;
		case 3: h->nlmsg_len = len + 1 + below(r, 64); break;
		case 4: h->nlmsg_len = 0xffffffff; break;
		default: h->nlmsg_len = NLMSG_HDRLEN + below(r, len); break;
		}
		what = "nlmsg_len";
		break;
	case 3:	/* garbage after the message, counted in it or not */
		k = 1 + below(r, 64);
		if (!room(w, k))
			goto flip;
		for (i = 0; i < k; i++)
			w->p[w->len + i] = (uint8_t)rnd(r);
		w->len += k;
		if (below(r, 2))
			h->nlmsg_len += k;
		what = "garbage";
		break;
	case 4:	/* the headers alone, short: even the netlink one */
		k = below(r, 4) ? NLMSG_HDRLEN + below(r, GENL_HDRLEN + 1) :
				  below(r, NLMSG_HDRLEN);
		w->len = start + k;
		if (k >= sizeof(h->nlmsg_len))
			h->nlmsg_len = k;
		what = "short";
		break;
	default:
flip:
		if (len <= NLMSG_HDRLEN)
			return;
		for (i = 0, k = 1 + below(r, 8); i < k; i++)
			w->p[start + NLMSG_HDRLEN + below(r, len - NLMSG_HDRLEN)] ^=
				1 << below(r, 8);
		what = "bitflip";
		break;
	}
	k = strlen(note);
	snprintf(note + k, notesz - k, "%s%s", k ? "," : "", what);
}
