/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Building SET_CONFIG requests and parsing what operators type for them:
 * exit reason names, CPU and vCPU lists, buffer sizes.
 */
#ifndef HVCTL_CONFIG_REQ_H
#define HVCTL_CONFIG_REQ_H

#include <stdbool.h>
#include <stdint.h>

#include "exit_reasons.h"
#include "nl.h"

struct cfg_req {
	struct hvnl *nl;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[16384];
};

/* Open the family and start a SET_CONFIG request; false on error. */
bool cfg_begin(struct cfg_req *r);
/* Send it, print any error, close. 0 on success. */
int cfg_commit(struct cfg_req *r);

/* A REASON-shaped nest (isa + code) of type TYPE. */
void cfg_put_reason(struct nlmsghdr *nlh, uint16_t type,
		    const struct exit_reason_ref *ref, bool with_thr,
		    uint64_t thr_ns);

/*
 * Parse one reason name or number; on failure print the error with close
 * matches and return 0. Otherwise the number of matches in OUT.
 */
int parse_reason_arg(const char *s, struct exit_reason_ref *out, int max);

/* "0,2-5,7" into a bitmap of 64-bit words (LIMIT bits). */
int parse_id_list(const char *s, uint64_t *words, unsigned int limit,
		  const char *what);

/* A strict unsigned number (decimal or 0x hex). */
bool parse_u64(const char *s, uint64_t *v);

#endif /* HVCTL_CONFIG_REQ_H */
