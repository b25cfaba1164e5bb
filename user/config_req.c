// SPDX-License-Identifier: GPL-2.0
/* SET_CONFIG requests and the argument parsing they share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "config_req.h"
#include "hvctl.h"

bool cfg_begin(struct cfg_req *r)
{
	r->nl = hvnl_open();
	if (!r->nl)
		return false;
	r->nlh = hvnl_request(r->nl, r->buf, HVTRACE_CMD_SET_CONFIG, 0);
	r->nest = mnl_attr_nest_start(r->nlh, HVTRACE_A_CONFIG);
	return true;
}

int cfg_commit(struct cfg_req *r)
{
	int ret;

	mnl_attr_nest_end(r->nlh, r->nest);
	ret = hvnl_talk(r->nl, r->nlh, NULL, NULL);
	hvnl_close(r->nl);
	return ret ? 1 : 0;
}

void cfg_put_reason(struct nlmsghdr *nlh, uint16_t type,
		    const struct exit_reason_ref *ref, bool with_thr,
		    uint64_t thr_ns)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, type);

	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, ref->isa);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, ref->code);
	if (with_thr)
		mnl_attr_put_u64(nlh, HVTRACE_RSN_THRESHOLD_NS, thr_ns);
	mnl_attr_nest_end(nlh, n);
}

int parse_reason_arg(const char *s, struct exit_reason_ref *out, int max)
{
	const char *close[5];
	char hint[256] = "";
	int n = exit_reason_parse(s, out, max);

	if (n > 0)
		return n;
	n = exit_reason_suggest(s, close, 5);
	for (int i = 0; i < n; i++) {
		strncat(hint, i ? ", " : " (did you mean: ",
			sizeof(hint) - strlen(hint) - 1);
		strncat(hint, close[i], sizeof(hint) - strlen(hint) - 1);
	}
	if (n)
		strncat(hint, "?)", sizeof(hint) - strlen(hint) - 1);
	hvctl_err("unknown exit reason '%s'%s; 'hvctl reasons' lists them",
		  s, hint);
	return 0;
}

bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

int parse_id_list(const char *s, uint64_t *words, unsigned int limit,
		  const char *what)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return hvctl_err("out of memory"), -1;
	memset(words, 0, ((limit + 63) / 64) * sizeof(uint64_t));
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = '\0';
		if (!parse_u64(tok, &lo) || (dash && !parse_u64(dash + 1, &hi))) {
			ret = hvctl_err("bad %s list '%s' (want e.g. 0,2-5)",
					what, s);
			break;
		}
		if (!dash)
			hi = lo;
		if (lo > hi || hi >= limit) {
			ret = hvctl_err("%s %llu is out of range 0..%u", what,
					(unsigned long long)(lo > hi ? lo : hi),
					limit - 1);
			break;
		}
		for (uint64_t i = lo; i <= hi; i++)
			words[i / 64] |= 1ULL << (i % 64);
	}
	free(copy);
	return ret ? -1 : 0;
}
