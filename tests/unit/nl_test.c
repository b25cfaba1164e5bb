// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c's talk() under the client, against a fake socket: libmnl's socket
 * calls are wrapped (-Wl,--wrap, see the Makefile), and what the kernel
 * would answer a request is built by the test's answer function into
 * datagrams that recvfrom hands out one at a time. What it checks: every
 * failure is one message in the error sink, a failed dump is read to its
 * NLMSG_DONE so the session's next request works, a short attribute is
 * an error naming it, replies to an earlier request are skipped, and
 * hvc_open() returns what went wrong.
 */
#include <errno.h>
#include <stdlib.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "unit.h"

#define FAMILY		0x42
#define PORTID		4242
#define NR_DGRAMS	8
#define DGRAM_SIZE	(32 * 1024)

static char dgrams[NR_DGRAMS][DGRAM_SIZE] __attribute__((aligned(8)));
static size_t dgram_len[NR_DGRAMS];
static unsigned int nr_dgrams, next_dgram;
static int open_errno;		/* mnl_socket_open() fails with it */

/* What the kernel answers REQ: datagrams put with put_msg(). */
static void (*answer)(const struct nlmsghdr *req);

static char last_err[512];
static int nr_errs;

static void sink(const char *msg, void *data)
{
	(void)data;
	nr_errs++;
	snprintf(last_err, sizeof(last_err), "%s", msg);
}

static void reset(void (*fn)(const struct nlmsghdr *req))
{
	nr_dgrams = next_dgram = 0;
	nr_errs = 0;
	last_err[0] = '\0';
	answer = fn;
}

/* Begin a message of TYPE in datagram DG, a genl one for family types. */
static struct nlmsghdr *put_msg(unsigned int dg, uint16_t type, uint32_t seq,
				uint16_t flags)
{
	struct nlmsghdr *nlh = (void *)(dgrams[dg] + dgram_len[dg]);

	if (dg >= nr_dgrams) {
		nr_dgrams = dg + 1;
		dgram_len[dg] = 0;
		nlh = (void *)dgrams[dg];
	}
	nlh = mnl_nlmsg_put_header(nlh);
	nlh->nlmsg_type = type;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = PORTID;
	nlh->nlmsg_flags = flags;
	if (type >= NLMSG_MIN_TYPE) {
		struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

		g->cmd = 0;
	}
	return nlh;
}

/* The message is complete: count it into its datagram. */
static void end_msg(unsigned int dg, const struct nlmsghdr *nlh)
{
	dgram_len[dg] += NLMSG_ALIGN(nlh->nlmsg_len);
}

/* NLMSG_ERROR with ERR (0: an ACK) and, if any, an extended-ACK text. */
static void put_ack(unsigned int dg, const struct nlmsghdr *req, int err,
		    const char *msg)
{
	struct nlmsghdr *nlh = put_msg(dg, NLMSG_ERROR, req->nlmsg_seq,
				       NLM_F_CAPPED | (msg ? NLM_F_ACK_TLVS : 0));
	struct nlmsgerr *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	e->error = err;
	e->msg = *req;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	end_msg(dg, nlh);
}

static void put_done(unsigned int dg, const struct nlmsghdr *req, int err)
{
	struct nlmsghdr *nlh = put_msg(dg, NLMSG_DONE, req->nlmsg_seq,
				       NLM_F_MULTI);
	int *e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));

	*e = err;
	end_msg(dg, nlh);
}

static uint8_t cmd_of(const struct nlmsghdr *req)
{
	return ((const struct genlmsghdr *)mnl_nlmsg_get_payload(req))->cmd;
}

/* The controller's answer to GETFAMILY; the module's to its commands. */
static void put_family(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh = put_msg(0, GENL_ID_CTRL, req->nlmsg_seq, 0);

	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAMILY);
	end_msg(0, nlh);
	put_ack(0, req, 0, NULL);
}

/* A capture's header, ID, with TRIGGER, in datagram DG. */
static void put_capture_head(unsigned int dg, const struct nlmsghdr *req,
			     uint64_t id, uint8_t trigger)
{
	struct nlmsghdr *nlh = put_msg(dg, FAMILY, req->nlmsg_seq, NLM_F_MULTI);
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_CAPTURE);

	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_ID, id);
	mnl_attr_put_u32(nlh, HVTRACE_CAPTURE_VCPU_ID, (uint32_t)id + 10);
	mnl_attr_put_u8(nlh, HVTRACE_CAPTURE_TRIGGER, trigger);
	if (trigger == HVTRACE_TRIGGER_IRQ)
		mnl_attr_put_u8(nlh, HVTRACE_CAPTURE_IRQ_VECTOR, 0xec);
	mnl_attr_put_u64(nlh, HVTRACE_CAPTURE_TRIGGER_SEQ, 100 * id + 2);
	mnl_attr_nest_end(nlh, n);
	end_msg(dg, nlh);
}

/* N records of capture ID, seq 100 * ID + FROM.., in datagram DG. */
static void put_capture_records(unsigned int dg, const struct nlmsghdr *req,
				uint64_t id, unsigned int from, unsigned int n)
{
	struct nlmsghdr *nlh = put_msg(dg, FAMILY, req->nlmsg_seq, NLM_F_MULTI);
	struct hvtrace_event ev[4] = { 0 };

	for (unsigned int i = 0; i < n; i++)
		ev[i].seq = 100 * id + from + i;
	mnl_attr_put_u64(nlh, HVTRACE_A_CAPTURE_ID, id);
	mnl_attr_put(nlh, HVTRACE_A_EVENTS, n * sizeof(ev[0]), ev);
	end_msg(dg, nlh);
}

/*
 * READ_CAPTURES: capture 1 (three records over two messages), capture 2
 * (one), capture 3 (a late interrupt's, one); with bad_capture, records
 * of a capture 9 never announced, in place of capture 2's.
 */
static bool bad_capture;

static void put_captures(const struct nlmsghdr *req)
{
	put_capture_head(0, req, 1, HVTRACE_TRIGGER_STALL);
	put_capture_records(0, req, 1, 0, 2);
	put_capture_records(1, req, 1, 2, 1);
	put_capture_head(1, req, 2, HVTRACE_TRIGGER_PREEMPT);
	put_capture_records(2, req, bad_capture ? 9 : 2, 0, 1);
	put_capture_head(2, req, 3, HVTRACE_TRIGGER_IRQ);
	put_capture_records(3, req, 3, 0, 1);
	put_done(3, req, 0);
}

/* The last WATCH_START's WATCH nest, as the module would read it. */
static char watch_sent[4096] __attribute__((aligned(4)));

/* WATCH_START refused, the extended ACK pointing at HISTORY. */
static void put_watch_refusal(const struct nlmsghdr *req)
{
	const struct nlattr *a, *w = NULL;
	struct nlmsghdr *nlh;
	struct nlmsgerr *e;

	memset(watch_sent, 0, sizeof(watch_sent));
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == HVTRACE_A_WATCH &&
		    a->nla_len <= sizeof(watch_sent))
			memcpy(watch_sent, a, a->nla_len);
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == HVTRACE_A_WATCH)
			w = a;
	nlh = put_msg(0, NLMSG_ERROR, req->nlmsg_seq,
		      NLM_F_CAPPED | NLM_F_ACK_TLVS);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e));
	e->error = -ENOMEM;
	e->msg = *req;
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "histories too large");
	mnl_attr_for_each_nested(a, w)
		if (mnl_attr_get_type(a) == HVTRACE_WATCH_HISTORY)
			mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS,
					 (const char *)a - (const char *)req);
	end_msg(0, nlh);
}

/* GET_STATUS: its reply and ACK; GET_CONFIG: a dump whose first part
 * has a u32 where a u64 belongs, then a good part, then DONE. */
static void module(const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh;
	struct nlattr *n;

	if (req->nlmsg_type == GENL_ID_CTRL)
		return put_family(req);
	switch (cmd_of(req)) {
	case HVTRACE_CMD_GET_STATUS:
		/* First what is left of a dump given up on: skipped. */
		put_done(0, &(struct nlmsghdr){ .nlmsg_seq = req->nlmsg_seq - 1 },
			 0);
		nlh = put_msg(0, FAMILY, req->nlmsg_seq, 0);
		mnl_attr_put_strz(nlh, HVTRACE_A_VERSION, "9.9");
		n = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
		mnl_attr_put_u64(nlh, HVTRACE_ACCT_SEEN, 5);
		mnl_attr_nest_end(nlh, n);
		end_msg(0, nlh);
		put_ack(0, req, 0, NULL);
		break;
	case HVTRACE_CMD_GET_CONFIG:
		for (int dg = 0; dg < 2; dg++) {
			nlh = put_msg(dg, FAMILY, req->nlmsg_seq, NLM_F_MULTI);
			n = mnl_attr_nest_start(nlh, HVTRACE_A_CONFIG);
			if (dg)
				mnl_attr_put_u64(nlh, HVTRACE_CFG_THRESHOLD_NS, 1);
			else
				mnl_attr_put_u32(nlh, HVTRACE_CFG_THRESHOLD_NS, 1);
			mnl_attr_nest_end(nlh, n);
			end_msg(dg, nlh);
		}
		put_done(2, req, 0);
		break;
	case HVTRACE_CMD_START:
		put_ack(0, req, -EPERM, NULL);
		break;
	case HVTRACE_CMD_READ_CAPTURES:
		put_captures(req);
		break;
	case HVTRACE_CMD_WATCH_START:
		put_watch_refusal(req);
		break;
	case HVTRACE_CMD_STOP:
		put_ack(0, req, -EBUSY, "a reader is draining");
		break;
	case HVTRACE_CMD_READ_EVENTS:
		/* A dump that fails part way: its error is in DONE. */
		nlh = put_msg(0, FAMILY, req->nlmsg_seq, NLM_F_MULTI);
		mnl_attr_put_u32(nlh, HVTRACE_A_EVENTS_CPU, 0);
		end_msg(0, nlh);
		put_done(1, req, -ENOBUFS);
		break;
	default:
		put_ack(0, req, 0, NULL);
	}
}

static void no_module(const struct nlmsghdr *req)
{
	put_ack(0, req, -ENOENT, NULL);
}

struct mnl_socket *__wrap_mnl_socket_open(int bus);
int __wrap_mnl_socket_bind(struct mnl_socket *nl, unsigned int groups,
			   pid_t pid);
int __wrap_mnl_socket_setsockopt(const struct mnl_socket *nl, int type,
				 void *buf, socklen_t len);
unsigned int __wrap_mnl_socket_get_portid(const struct mnl_socket *nl);
ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl,
				 const void *req, size_t siz);
ssize_t __wrap_mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf,
				   size_t siz);
int __wrap_mnl_socket_close(struct mnl_socket *nl);
ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags);

struct mnl_socket *__wrap_mnl_socket_open(int bus)
{
	(void)bus;
	if (open_errno) {
		errno = open_errno;
		return NULL;
	}
	return (struct mnl_socket *)dgrams;
}

int __wrap_mnl_socket_bind(struct mnl_socket *nl, unsigned int groups,
			   pid_t pid)
{
	(void)nl, (void)groups, (void)pid;
	return 0;
}

int __wrap_mnl_socket_setsockopt(const struct mnl_socket *nl, int type,
				 void *buf, socklen_t len)
{
	(void)nl, (void)type, (void)buf, (void)len;
	return 0;
}

unsigned int __wrap_mnl_socket_get_portid(const struct mnl_socket *nl)
{
	(void)nl;
	return PORTID;
}

ssize_t __wrap_mnl_socket_sendto(const struct mnl_socket *nl,
				 const void *req, size_t siz)
{
	(void)nl;
	/* The last request's replies are all read, or the test fails. */
	CHECK_INT(next_dgram, nr_dgrams);
	nr_dgrams = next_dgram = 0;
	answer(req);
	return siz;
}

ssize_t __wrap_mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf,
				   size_t siz)
{
	(void)nl;
	if (next_dgram == nr_dgrams || dgram_len[next_dgram] > siz) {
		errno = EAGAIN;
		return -1;
	}
	memcpy(buf, dgrams[next_dgram], dgram_len[next_dgram]);
	return dgram_len[next_dgram++];
}

int __wrap_mnl_socket_close(struct mnl_socket *nl)
{
	(void)nl;
	return 0;
}

/* The notifications queued (hvnl_pending()); an overrun first if set. */
static bool overrun;

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	(void)fd, (void)flags;
	if (overrun) {
		overrun = false;
		errno = ENOBUFS;
		return -1;
	}
	return __wrap_mnl_socket_recvfrom(NULL, buf, len);
}

/* A malformed dump: one error naming the attribute, read to its DONE. */
static void test_failed_dump_then_next(void)
{
	struct hvc_config cfg = { 0 };
	struct hvc_status st = { 0 };
	struct hvc *c;

	reset(module);
	if (!CHECK(hvc_open(&c) == 0 && c))
		return;
	CHECK_INT(hvc_config_get(c, &cfg), -EPROTO);
	CHECK_INT(nr_errs, 1);
	CHECK_STR(last_err, "the module's reply is malformed: "
		  "HVTRACE_CFG_THRESHOLD_NS has 4 bytes");
	CHECK_INT(next_dgram, nr_dgrams);
	CHECK_U64(cfg.threshold_ns, 0);

	/* The same session: its next request answered. */
	reset(module);
	CHECK_INT(hvc_status_get(c, &st, false), 0);
	CHECK_INT(nr_errs, 0);
	CHECK_STR(st.version, "9.9");
	CHECK_U64(st.total.n[HVTRACE_ACCT_SEEN], 5);
	hvc_status_free(&st);
	hvc_close(c);
}

static int no_event(const struct hvtrace_event *ev, void *data)
{
	(void)ev, (void)data;
	return 0;
}

/* Refusals, in an ACK or in a dump's DONE: one message each. */
static void test_one_message_each(void)
{
	struct hvc_drain_ops ops = { .event = no_event };
	struct hvc *c;

	reset(module);
	if (!CHECK(hvc_open(&c) == 0 && c))
		return;
	reset(module);
	CHECK_INT(hvc_start(c), -EPERM);
	CHECK_INT(nr_errs, 1);
	CHECK(strstr(last_err, "CAP_SYS_ADMIN") != NULL);
	reset(module);
	CHECK_INT(hvc_stop(c), -EBUSY);
	CHECK_INT(nr_errs, 1);
	CHECK_STR(last_err, "a reader is draining");
	reset(module);
	CHECK_INT(hvc_drain(c, &ops), -ENOBUFS);
	CHECK_INT(nr_errs, 1);
	CHECK_INT(next_dgram, nr_dgrams);
	reset(module);
	CHECK_INT(hvc_clear(c), 0);
	CHECK_INT(nr_errs, 0);
	hvc_close(c);
}

/* What hvc_open() says and returns: the cause, once. */
static void test_open_causes(void)
{
	struct hvc *c = (void *)1;

	reset(no_module);
	CHECK_INT(hvc_open(&c), -ENOENT);
	CHECK(!c);
	CHECK_INT(nr_errs, 1);
	CHECK_STR(last_err, "the hvtrace module is not loaded (modprobe hvtrace)");

	reset(module);
	open_errno = EMFILE;
	CHECK_INT(hvc_open(&c), -EMFILE);
	CHECK_INT(nr_errs, 1);
	CHECK(strstr(last_err, "netlink socket") != NULL);
	open_errno = 0;
}

struct got {
	unsigned int n;
	uint64_t ids[4], first[4];
	unsigned int records[4];
	uint8_t trigger[4], vector[4];
};

static int got_capture(const struct hvc_capture *cap, void *data)
{
	struct got *g = data;

	if (g->n < 4) {
		g->ids[g->n] = cap->id;
		g->records[g->n] = cap->nr_events;
		g->first[g->n] = cap->nr_events ? cap->events[0].seq : 0;
		g->vector[g->n] = cap->irq_vector;
		g->trigger[g->n++] = cap->trigger;
	}
	return 0;
}

/* READ_CAPTURES: each capture whole, in order; strays are an error. */
static void test_captures(void)
{
	struct hvc_watch w = { .stall_ns = 1, .stall_window_ns = 2,
			       .history = 70000 };
	struct got g = { 0 };
	struct hvc *c;

	reset(module);
	if (!CHECK(hvc_open(&c) == 0 && c))
		return;
	reset(module);
	CHECK_INT(hvc_captures_read(c, got_capture, &g), 0);
	CHECK_INT(nr_errs, 0);
	CHECK_INT(g.n, 3);
	CHECK_U64(g.ids[0], 1);
	CHECK_INT(g.records[0], 3);
	CHECK_U64(g.first[0], 100);
	CHECK_INT(g.trigger[0], HVTRACE_TRIGGER_STALL);
	CHECK_INT(g.vector[0], 0);
	CHECK_U64(g.ids[1], 2);
	CHECK_INT(g.records[1], 1);
	CHECK_INT(g.trigger[1], HVTRACE_TRIGGER_PREEMPT);
	/* A late interrupt's capture: its vector with it. */
	CHECK_U64(g.ids[2], 3);
	CHECK_INT(g.records[2], 1);
	CHECK_U64(g.first[2], 300);
	CHECK_INT(g.trigger[2], HVTRACE_TRIGGER_IRQ);
	CHECK_INT(g.vector[2], 0xec);
	CHECK_INT(next_dgram, nr_dgrams);

	/* Records of a capture never announced: an error, the dump read. */
	memset(&g, 0, sizeof(g));
	bad_capture = true;
	reset(module);
	CHECK_INT(hvc_captures_read(c, got_capture, &g), -EPROTO);
	bad_capture = false;
	CHECK_INT(nr_errs, 1);
	CHECK_STR(last_err, "the module sent records of capture 9 without its "
		  "header");
	CHECK_INT(g.n, 1);
	CHECK_INT(next_dgram, nr_dgrams);

	/* The module's refusal names the option typed for its attribute. */
	w.typed[HVTRACE_WATCH_HISTORY] = "--history 70000";
	reset(module);
	CHECK_INT(hvc_watch_start(c, &w), -ENOMEM);
	CHECK_INT(nr_errs, 1);
	CHECK_STR(last_err, "histories too large (--history 70000)");
	hvc_close(c);
}

/* The settings of W as WATCH_START sends them, read back. */
static void sent_back(struct hvc *c, const struct hvc_watch *w,
		      struct hvc_watch_status *got)
{
	const struct nlattr *nest = (const struct nlattr *)watch_sent;

	reset(module);
	CHECK_INT(hvc_watch_start(c, w), -ENOMEM);
	CHECK_INT(nest->nla_type & NLA_TYPE_MASK, HVTRACE_A_WATCH);
	CHECK_INT(hvc_watch_status_parse(nest, got), 0);
}

/*
 * Guest marks: MARK_TRIGGERS 1 when asked, MARK_PID only with it; late
 * interrupts: IRQ_NS when asked.
 */
static void test_watch_marks(void)
{
	struct hvc_watch w = { .exit_ns = 1 };
	struct hvc_watch_status got;
	struct hvc *c;

	reset(module);
	if (!CHECK(hvc_open(&c) == 0 && c))
		return;
	sent_back(c, &w, &got);
	CHECK_INT(got.set.mark_triggers, 0);
	CHECK_INT(got.set.mark_pid, 0);
	w.mark_triggers = 1;
	sent_back(c, &w, &got);
	CHECK_INT(got.set.mark_triggers, 1);
	CHECK_INT(got.set.mark_pid, 0);
	CHECK_U64(got.set.exit_ns, 1);
	w.mark_pid = 4100;
	sent_back(c, &w, &got);
	CHECK_INT(got.set.mark_triggers, 1);
	CHECK_INT(got.set.mark_pid, 4100);
	/* A pid without the trigger means nothing: not sent. */
	w.mark_triggers = 0;
	sent_back(c, &w, &got);
	CHECK_INT(got.set.mark_triggers, 0);
	CHECK_INT(got.set.mark_pid, 0);
	CHECK_U64(got.set.irq_ns, 0);
	/* Late interrupts: IRQ_NS, alone or with another trigger. */
	w.irq_ns = 100000000;
	sent_back(c, &w, &got);
	CHECK_U64(got.set.irq_ns, 100000000);
	CHECK_U64(got.set.exit_ns, 1);
	w.exit_ns = 0;
	sent_back(c, &w, &got);
	CHECK_U64(got.set.irq_ns, 100000000);
	CHECK_U64(got.set.exit_ns, 0);
	hvc_close(c);
}

/* Notifications: CAPTURE told apart from WATERMARK; an overrun is both. */
static void test_notifications(void)
{
	struct nlmsghdr *nlh;
	struct hvc *c;

	reset(module);
	if (!CHECK(hvc_open(&c) == 0 && c))
		return;
	reset(module);
	CHECK_INT(hvc_notifications(c), 0);
	nlh = put_msg(0, FAMILY, 0, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd =
		HVTRACE_CMD_CAPTURE;
	end_msg(0, nlh);
	CHECK_INT(hvc_notifications(c), HVC_NOTE_CAPTURE);
	reset(module);
	nlh = put_msg(0, FAMILY, 0, 0);
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd =
		HVTRACE_CMD_WATERMARK;
	end_msg(0, nlh);
	nlh = put_msg(1, FAMILY + 1, 0, 0);	/* another family's */
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd =
		HVTRACE_CMD_CAPTURE;
	end_msg(1, nlh);
	CHECK_INT(hvc_notifications(c), HVC_NOTE_WATERMARK);
	reset(module);
	overrun = true;
	CHECK_INT(hvc_notifications(c), HVC_NOTE_WATERMARK | HVC_NOTE_CAPTURE);
	hvc_close(c);
}

int main(void)
{
	hvc_set_err_sink(sink, NULL);
	test_captures();
	test_watch_marks();
	test_notifications();
	test_failed_dump_then_next();
	test_one_message_each();
	test_open_causes();
	return unit_report();
}
