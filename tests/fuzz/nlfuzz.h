/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlfuzz: a generic netlink fuzzer for the "hvtrace" family. See nlfuzz.c
 * for the whole picture; this header declares what its parts share:
 *
 *   gen.c     attribute trees, templates (recorded and built in),
 *             mutations, serialization
 *   oracle.c  what the kernel must answer: netlink's own rules, the
 *             family's policy and the ABI of include/uapi/linux/hvtrace.h,
 *             and a model of the configuration
 *   wire.c    sockets, sending, reading every answer (with timeouts),
 *             state snapshots, hex dumps
 *   nlfuzz.c  options, the supervisor, the senders' loop, the figures
 */
#ifndef NLFUZZ_H
#define NLFUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/hvtrace.h>

/* ---- deterministic randomness ------------------------------------- */

struct rng {
	uint64_t s;
};

static inline uint64_t rnd(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

static inline bool chance(struct rng *r, unsigned int percent)
{
	return below(r, 100) < percent;
}

/* ---- attribute trees ---------------------------------------------- */

/* One attribute: a leaf with a payload, or a nest of children. */
struct node {
	uint16_t type;		/* nla_type as sent, flag bits included */
	bool nest;
	uint8_t *data;		/* leaf payload */
	uint32_t len;
	struct node *kids;	/* nest children */
	uint32_t nkids, cap;
};

/* One netlink message before serialization. */
struct msg {
	uint16_t nl_type, nl_flags;
	uint8_t cmd, version;
	uint16_t reserved;
	struct node root;	/* root.kids: the top-level attributes */
	const char *origin;	/* template name */
	char muts[160];		/* the mutations applied, for reports */
};

/* Largest send: well below the socket's send buffer. */
#define SEND_MAX (128 * 1024)

/* Bytes of one sendmsg(), possibly several messages. */
struct wbuf {
	uint8_t *p;
	size_t len;
	/* Offsets of every attribute header written (byte mutations). */
	uint32_t attr_off[4096];
	unsigned int nattr;
};

/* ---- what the kernel must answer ----------------------------------- */

/* Allowed outcomes: bit 0 success, bit E errno E (E < 128). */
struct allow {
	uint64_t w[2];
};

static inline void allow_add(struct allow *a, int e)
{
	if (e >= 0 && e < 128)
		a->w[e / 64] |= 1ULL << (e % 64);
}

static inline bool allowed(const struct allow *a, int e)
{
	return e >= 0 && e < 128 && (a->w[e / 64] >> (e % 64) & 1);
}

enum unit_kind {
	U_DROPPED,	/* netlink drops it without a word */
	U_ACKONLY,	/* not a request, or a control type: netlink acks */
	U_GENL,		/* reaches generic netlink */
};

/* The sender's privileges, as the family sees them. */
enum priv {
	PRIV_ADMIN,	/* CAP_SYS_ADMIN, initial namespaces */
	PRIV_OBSERVE,	/* CAP_PERFMON without CAP_SYS_ADMIN */
	PRIV_NONE,	/* neither */
	PRIV_NETNS,	/* another network namespace: no family */
};

/* One message as netlink will see it, what it must answer, what it did. */
struct unit {
	enum unit_kind kind;
	uint32_t off, len;	/* in the send buffer */
	uint32_t seq;
	uint16_t flags;
	uint8_t cmd;
	bool dump;		/* handled as a dump */
	bool ack;		/* NLM_F_ACK */
	struct allow allow;	/* what may come back */
	const char *why;	/* the oracle's reason for a refusal */
	bool uncertain;		/* prediction rests on an earlier guess */
	bool changes;		/* SET_CONFIG that must change the model */
	/* results */
	bool finished;
	bool got_err, got_reply, got_done;
	int err;		/* from NLMSG_ERROR or DONE, as positive errno */
	unsigned int replies, dump_msgs;
	bool dump_started;
	char ext_msg[96];	/* the extended ACK's message */
};

/* ---- the configuration model --------------------------------------- */

/* Dense exit-reason indices, as the ABI's reason codes map to them. */
#define R_VMX_MAX	128
#define R_SVM_LOW	0x100
#define R_SVM_HIGH_BASE	0x400
#define R_SVM_HIGH	0x20
#define R_SVM_ERR	0xffffffffU
#define NR_RIDX		(R_VMX_MAX + R_SVM_LOW + R_SVM_HIGH + 1)

#define VCPU_BITS	(HVTRACE_MAX_VCPU_ID + 1)
#define CPU_WORDS_MAX	128	/* 8192 CPUs: Debian's NR_CPUS */

struct cfgm {
	uint64_t thr, pthr, rip_min, rip_max;
	uint64_t irqthr;	/* or HVTRACE_IRQ_THRESHOLD_OFF */
	uint32_t pid, kb;
	uint8_t mode, on, halt;
	bool has_vcpus, has_cpus, has_reasons;
	uint64_t vcpus[VCPU_BITS / 64];
	uint64_t cpus[CPU_WORDS_MAX];
	bool has_override[NR_RIDX];
	uint64_t override[NR_RIDX];
	bool reason[NR_RIDX];
};

/* What the sender knows of the module's state. */
enum lease { LEASE_NONE, LEASE_MAIN, LEASE_OTHER, LEASE_UNSURE };

struct state {
	struct cfgm cfg;
	bool cfg_known;
	bool recording;
	enum lease lease;	/* as the socket of the step sees it */
	bool dump_running;	/* on that socket, within the step */
};

/* The host facts the policy depends on. */
struct host {
	unsigned int nr_cpu_ids;	/* possible CPUs */
	unsigned int cpumask_bytes;	/* the CPU filter's longest: NR_CPUS
					 * or 8192 bits, the larger */
	unsigned int cpu_bytes;		/* what GET_CONFIG sends: longs */
};

extern struct host host;

/* gen.c */
void node_free(struct node *n);
/* The kinds of templates: a command, doit or dump, or none that exists. */
enum tclass {
	T_STATUS, T_STATUS_DUMP, T_CONFIG, T_CONFIG_DUMP, T_SET, T_START,
	T_STOP, T_CLEAR, T_STATS, T_EVENTS, T_UNKNOWN, T_WATERMARK,
	T_WATCH, T_WATCH_STOP, T_CAPTURES,
	NR_TCLASS
};
struct msg *msg_template(struct rng *r, int want, int recorded);
void msg_free(struct msg *m);
void msg_mutate(struct msg *m, struct rng *r, unsigned int nmut);
void msg_serialize(const struct msg *m, struct wbuf *w, uint32_t seq);
void bytes_mutate(struct wbuf *w, size_t start, struct rng *r,
		  char *note, size_t notesz);
int corpus_load(const char *path, uint16_t family);
unsigned int corpus_size(void);
void gen_cmds_of_corpus(unsigned int *per_cmd);

/* oracle.c */
void oracle_init(void);
void oracle_send(uint8_t *buf, size_t len, uint16_t family, enum priv priv,
		 struct state *st, struct unit *units, unsigned int *nunits,
		 unsigned int max);
int cfgm_parse(struct cfgm *c, const uint8_t *nest, size_t len);
int cfgm_apply(struct cfgm *c, const uint8_t *attrs, size_t len,
	       char *err, size_t errsz);
bool cfgm_equal(const struct cfgm *a, const struct cfgm *b, char *diff,
		size_t diffsz);
int ridx_of(uint8_t isa, uint32_t code);
const char *cmd_name(unsigned int cmd);

/* wire.c */
int nl_open(bool ext_ack, bool cap_ack, int rcvbuf);
int nl_resolve(int fd, uint16_t *family, uint32_t *group);
int nl_send(int fd, const void *buf, size_t len);
struct collect {
	struct unit *units;
	unsigned int nunits;
	uint32_t sentinel;
	int timeout_ms;
	uint16_t family;
	/* tallies */
	unsigned long dump_msgs, mcast_msgs, stray, bad_replies;
	const char *fail;	/* set when the exchange went wrong */
};
int nl_collect(int fd, struct collect *c, void (*on_reply)(void *ctx,
	       const uint8_t *msg, size_t len, struct unit *u), void *ctx);
int nl_sentinel(int fd, uint32_t seq);
int nl_read_one(int fd, int timeout_ms, uint16_t family,
		unsigned int *data_msgs);
int nl_request(int fd, uint16_t family, uint8_t cmd, uint16_t flags,
	       uint32_t seq, uint8_t *reply, size_t replysz, size_t *replylen,
	       int timeout_ms);
int fetch_config(int fd, uint16_t family, uint32_t *seq, uint8_t *out,
		 size_t outsz, size_t *outlen, int timeout_ms);
struct status_snap {
	bool recording, reader;
	uint64_t stats_age_ns, exits_seen, entries_seen, mem_bytes;
	uint8_t acct[1024];
	size_t acct_len;
};
int fetch_status(int fd, uint16_t family, uint32_t *seq,
		 struct status_snap *s, int timeout_ms);
void hexdump(const uint8_t *p, size_t len, const char *indent);
void decode(const uint8_t *p, size_t len, const char *indent);

#endif /* NLFUZZ_H */
