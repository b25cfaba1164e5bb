// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl filter: which exits may be recorded. Each kind given replaces
 * that kind only; "any" lifts it; "clear" lifts them all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "config_req.h"
#include "hvctl.h"

#define MAX_CPUS 8192

static int put_list(struct cfg_req *r, uint16_t type, const char *arg,
		    unsigned int limit, const char *what)
{
	uint64_t words[MAX_CPUS / 64];
	unsigned int n = 0;

	if (!strcmp(arg, "any")) {
		mnl_attr_put(r->nlh, type, 0, NULL);
		return 0;
	}
	if (parse_id_list(arg, words, limit, what))
		return -1;
	for (unsigned int i = 0; i < (limit + 63) / 64; i++)
		if (words[i])
			n = i + 1;
	mnl_attr_put(r->nlh, type, n * sizeof(uint64_t), words);
	return 0;
}

static int put_reasons(struct cfg_req *r, const char *arg)
{
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES];
	char *copy, *tok, *save = NULL;
	struct nlattr *list;
	int ret = 0;

	list = mnl_attr_nest_start(r->nlh, HVTRACE_CFG_FILTER_REASONS);
	if (strcmp(arg, "any")) {
		copy = strdup(arg);
		for (tok = strtok_r(copy, ",", &save); tok && !ret;
		     tok = strtok_r(NULL, ",", &save)) {
			int n = parse_reason_arg(tok, refs,
						 EXIT_REASON_MAX_MATCHES);

			if (!n)
				ret = -1;
			for (int i = 0; i < n; i++)
				cfg_put_reason(r->nlh, HVTRACE_A_REASON,
					       &refs[i], false, 0);
		}
		free(copy);
	}
	mnl_attr_nest_end(r->nlh, list);
	return ret;
}

static int put_rip(struct cfg_req *r, const char *arg)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	char buf[64], *dash;

	if (strcmp(arg, "any")) {
		snprintf(buf, sizeof(buf), "%s", arg);
		dash = strchr(buf, '-');
		if (!dash)
			return hvctl_err("bad rip range '%s' (want MIN-MAX)", arg), -1;
		*dash = '\0';
		if (!parse_u64(buf, &lo) || !parse_u64(dash + 1, &hi))
			return hvctl_err("bad rip range '%s' (want MIN-MAX, e.g. 0x1000-0x1fff)",
					 arg), -1;
		if (lo > hi)
			return hvctl_err("rip range '%s' ends before it starts",
					 arg), -1;
	}
	mnl_attr_put_u64(r->nlh, HVTRACE_CFG_FILTER_RIP_MIN, lo);
	mnl_attr_put_u64(r->nlh, HVTRACE_CFG_FILTER_RIP_MAX, hi);
	return 0;
}

static int filter_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_filter;
	struct cfg_req r;
	int err = 0;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	if (argc < 2)
		return hvctl_usage_err(cmd, "nothing to filter on");
	if (argc % 2 == 0 && strcmp(argv[1], "clear"))
		return hvctl_usage_err(cmd, "'%s' needs a value",
				       argv[argc - 1]);
	if (!strcmp(argv[1], "clear") && argc > 2)
		return hvctl_usage_err(cmd, "'clear' takes no value");
	for (int i = 1; i + 1 < argc; i += 2) {
		static const char *const kinds[] = {
			"pid", "vcpu", "reason", "rip", "cpu",
		};
		bool known = false;

		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			known |= !strcmp(argv[i], kinds[k]);
		if (!known)
			return hvctl_usage_err(cmd, "unknown filter '%s'",
					       argv[i]);
	}

	if (!cfg_begin(&r))
		return 1;
	if (!strcmp(argv[1], "clear"))
		mnl_attr_put(r.nlh, HVTRACE_CFG_FILTERS_CLEAR, 0, NULL);
	for (int i = 1; i + 1 < argc && !err; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];
		uint64_t pid;

		if (!strcmp(k, "pid")) {
			if (!strcmp(v, "any"))
				pid = 0;
			else if (!parse_u64(v, &pid) || !pid || pid > INT32_MAX)
				err = hvctl_err("bad pid '%s'", v);
			mnl_attr_put_u32(r.nlh, HVTRACE_CFG_FILTER_PID, pid);
		} else if (!strcmp(k, "vcpu")) {
			err = put_list(&r, HVTRACE_CFG_FILTER_VCPUS, v,
				       HVTRACE_MAX_VCPU_ID + 1, "vcpu");
		} else if (!strcmp(k, "cpu")) {
			err = put_list(&r, HVTRACE_CFG_FILTER_CPUS, v, MAX_CPUS,
				       "cpu");
		} else if (!strcmp(k, "reason")) {
			err = put_reasons(&r, v);
		} else {
			err = put_rip(&r, v);
		}
	}
	if (err) {
		hvnl_close(r.nl);
		return 1;
	}
	return cfg_commit(&r);
}

const struct hvctl_cmd hvctl_cmd_filter = {
	.name = "filter",
	.run = filter_run,
	.usage = "[pid PID|any] [vcpu LIST|any] [reason NAMES|any]\n"
		 "                  [rip MIN-MAX|any] [cpu LIST|any] | clear",
	.summary = "record only exits of that VMM pid, vCPUs, exit reasons,\n"
		   "guest RIP range or host CPUs (LIST: 0,2-5; NAMES: npf,io)",
};
