/* SPDX-License-Identifier: GPL-2.0 */
/* The netlink layer of hvctl: the hvtrace genl family over libmnl. */
#ifndef HVCTL_NL_H
#define HVCTL_NL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

struct hvnl;

/*
 * The transport under client.c. Errors go to the client's error sink
 * (hvc_err), each exactly once; calls return 0 or a negative errno.
 *
 * Open a socket and resolve the "hvtrace" family into *NL. On failure
 * reports an error that says what to do (load the module, run as root)
 * and returns its negative errno: -ENOENT when the module is not loaded.
 */
int hvnl_open(struct hvnl **nl);
void hvnl_close(struct hvnl *nl);

/* Start a request for CMD in BUF (MNL_SOCKET_BUFFER_SIZE bytes). */
struct nlmsghdr *hvnl_request(struct hvnl *nl, void *buf, uint8_t cmd,
			      uint16_t flags);

/* A refusal by the kernel: its errno and extended ACK. */
struct hvnl_ack {
	int err;		/* positive errno */
	char msg[256];		/* "" when it gave none */
	uint32_t off;		/* of the attribute it names in the request */
	bool has_off;
};

/*
 * A reply message to the caller (the genl header not yet skipped): 0, or
 * a negative errno it has reported. The first failure is what
 * hvnl_talk() returns; the messages after it are read, not handed on.
 */
typedef int (*hvnl_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * Send the request and run CB on every reply message, to the request's
 * end (its ACK, or a dump's NLMSG_DONE) even after a failure, so the
 * session is ready for the next request. A kernel refusal is reported,
 * with its extended ACK message, or with ACK given only filled in for the
 * caller to report. Replies to an earlier request are skipped. 0, or a
 * negative errno.
 */
int hvnl_talk(struct hvnl *nl, struct nlmsghdr *req, hvnl_cb cb, void *data,
	      struct hvnl_ack *ack);
/* Report ACK as hvnl_talk would, CMD the refused command; -ack->err. */
int hvnl_report_ack(const struct hvnl_ack *ack, uint8_t cmd,
		    const char *what);

/*
 * What an attribute of a reply must be (wireguard-tools' ipc checks its
 * replies the same way): one entry per type of a table; a type without a
 * name is not looked at (a newer module's), one of the wrong size is an
 * error that names it. MULTIPLE: for BINARY, the payload is a multiple of
 * that many bytes.
 */
struct hvnl_policy {
	enum mnl_attr_data_type type;
	const char *name;
	unsigned int multiple;
};

/*
 * Fill TB[0..MAX] from the reply's attributes, each checked against
 * POLICY[0..MAX]: 0, or -EPROTO reported naming the attribute.
 */
int hvnl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	       unsigned int max, const struct hvnl_policy *policy);
/* The same for the attributes nested in NEST. */
int hvnl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned int max, const struct hvnl_policy *policy);

/* Accessors of checked attributes that tolerate absence. */
uint64_t hvnl_u64(const struct nlattr *a);
uint32_t hvnl_u32(const struct nlattr *a);
uint8_t hvnl_u8(const struct nlattr *a);
const char *hvnl_str(const struct nlattr *a);

/* Join the "events" multicast group (watermark notifications). */
int hvnl_subscribe_events(struct hvnl *nl);
int hvnl_fd(const struct hvnl *nl);
/* Read and drop whatever notifications are queued. */
void hvnl_discard_pending(struct hvnl *nl);
/*
 * Read the queued notifications without waiting: a bit (1U << cmd) for
 * each genl command that came; every bit on an overrun (ENOBUFS).
 */
uint32_t hvnl_pending(struct hvnl *nl);

#endif /* HVCTL_NL_H */
