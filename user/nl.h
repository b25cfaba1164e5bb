/* SPDX-License-Identifier: GPL-2.0 */
/* The netlink layer of hvctl: the hvtrace genl family over libmnl. */
#ifndef HVCTL_NL_H
#define HVCTL_NL_H

#include <libmnl/libmnl.h>
#include <stdint.h>

struct hvnl;

/*
 * Open a socket and resolve the "hvtrace" family. On failure prints an
 * error that says what to do (load the module, run as root) and returns
 * NULL.
 */
struct hvnl *hvnl_open(void);
void hvnl_close(struct hvnl *nl);

/* Start a request for CMD in BUF (MNL_SOCKET_BUFFER_SIZE bytes). */
struct nlmsghdr *hvnl_request(struct hvnl *nl, void *buf, uint8_t cmd,
			      uint16_t flags);

/*
 * Send the request and run CB on every reply message (with the genl header
 * already skipped: CB gets the message and DATA). Kernel errors are printed
 * as "Error: <extended ACK message>." and give -1.
 */
int hvnl_talk(struct hvnl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *data);

/* Attribute table helper for callbacks: fills TB[0..MAX] from the reply. */
int hvnl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	       unsigned int max);


/* Parse the attributes nested in NEST into TB[0..MAX]. */
int hvnl_parse_nested(const struct nlattr *nest, const struct nlattr **tb,
		      unsigned int max);

/* Open, send CMD with no attributes, close. 0 on success. */
int hvnl_simple(uint8_t cmd);

/* Attribute accessors that tolerate absence. */
uint64_t hvnl_u64(const struct nlattr *a);
uint32_t hvnl_u32(const struct nlattr *a);
uint8_t hvnl_u8(const struct nlattr *a);
const char *hvnl_str(const struct nlattr *a);

/* Join the "events" multicast group (watermark notifications). */
int hvnl_subscribe_events(struct hvnl *nl);
int hvnl_fd(const struct hvnl *nl);
/* Read and drop whatever notifications are queued. */
void hvnl_discard_pending(struct hvnl *nl);

#endif /* HVCTL_NL_H */
