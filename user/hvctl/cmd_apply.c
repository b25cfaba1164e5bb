// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl apply: hvtrace.conf(5) made the module's configuration, whole.
 * The file is read and checked to its end first (config_file.c); only a
 * good file is sent, as one SET_CONFIG that the module applies entirely
 * or refuses entirely, so a bad line, or a refusal, changes nothing.
 * What the file does not name goes back to its default.
 */
#include <stdlib.h>

#include "client.h"
#include "config_file.h"
#include "hvctl.h"

struct apply_opts {
	bool check;		/* --check: read and check only */
};

static const struct hvctl_opt apply_opts[] = {
	OPT_FLAG("--check", struct apply_opts, check),
	OPT_END,
};

static int apply_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_apply;
	struct apply_opts o = { 0 };
	struct hvc_conf *conf;
	int n, ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	ret = hvctl_parse_opts(cmd, argc, argv, &o, &n);
	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 1);
	if (ret)
		return ret;
	if (!n)
		return hvctl_usage_err(cmd, "no FILE (- for standard input)");
	/* A whole configuration is some 40 KiB: not on the stack. */
	conf = calloc(1, sizeof(*conf));
	if (!conf)
		return hvctl_err("out of memory");
	/* --check: the file, not which VMs run (config_file.h). */
	ret = hvc_conf_read(argv[1], o.check ? 0 : HVC_CONF_MODULE, conf);
	if (!ret && !o.check)
		ret = hvc_apply(&conf->change);
	free(conf);
	return ret ? 1 : 0;
}

const struct hvctl_cmd hvctl_cmd_apply = {
	.name = "apply",
	.run = apply_run,
	.usage = "[--check] FILE",
	.opts = apply_opts,
	.args = "@file",
	.summary = "apply FILE, hvtrace.conf(5), as the whole configuration\n"
		   "in one change (-: standard input): what it leaves out\n"
		   "goes back to its default, and a bad line changes nothing;\n"
		   "--check: check FILE only, without the module",
};
