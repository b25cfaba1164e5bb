// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl set-threshold: the in-kernel duration threshold, global or per
 * exit reason. Exits shorter than their threshold are aggregated but not
 * recorded.
 */
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "config_req.h"
#include "duration.h"
#include "hvctl.h"

/* The module's limit (kmod/genl.c): an hour. */
#define HVCTL_MAX_THRESHOLD_NS (3600ULL * 1000000000ULL)

static int threshold_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_set_threshold;
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES * 4];
	const char *dur = NULL, *err;
	bool clear = false;
	struct cfg_req r;
	uint64_t ns = 0;
	int nrefs = 0;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reason")) {
			int n;

			if (++i == argc)
				return hvctl_usage_err(cmd, "--reason needs a name");
			n = parse_reason_arg(argv[i], refs + nrefs,
					     EXIT_REASON_MAX_MATCHES);
			if (!n)
				return 1;
			nrefs += n;
			if (nrefs > EXIT_REASON_MAX_MATCHES * 3)
				return hvctl_usage_err(cmd, "too many --reason");
		} else if (!strcmp(argv[i], "--clear-reasons")) {
			clear = true;
		} else if (!dur && argv[i][0] != '-') {
			dur = argv[i];
		} else {
			return hvctl_usage_err(cmd, "unexpected argument '%s'",
					       argv[i]);
		}
	}
	if (!dur && !clear)
		return hvctl_usage_err(cmd, "missing DURATION");
	if (dur && duration_parse(dur, &ns, &err))
		return hvctl_usage_err(cmd, "%s", err);
	if (ns > HVCTL_MAX_THRESHOLD_NS)
		return hvctl_usage_err(cmd, "threshold %s out of range (at most 3600s)",
				       dur);

	if (!cfg_begin(&r))
		return 1;
	if (clear)
		mnl_attr_put(r.nlh, HVTRACE_CFG_REASON_THRESHOLDS_CLEAR, 0, NULL);
	if (dur && !nrefs)
		mnl_attr_put_u64(r.nlh, HVTRACE_CFG_THRESHOLD_NS, ns);
	for (int i = 0; dur && i < nrefs; i++)
		cfg_put_reason(r.nlh, HVTRACE_CFG_REASON_THRESHOLD, &refs[i],
			       true, ns);
	return cfg_commit(&r);
}

const struct hvctl_cmd hvctl_cmd_set_threshold = {
	.name = "set-threshold",
	.run = threshold_run,
	.usage = "DURATION [--reason NAME]... | --clear-reasons",
	.summary = "record only exits lasting DURATION or more (ns, us, ms, s);\n"
		   "with --reason, for those exit reasons only",
};
