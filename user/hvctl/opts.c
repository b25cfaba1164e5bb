// SPDX-License-Identifier: GPL-2.0
/*
 * One option parser for every hvctl command (opts.h): the command's table
 * says which options there are and what their values are; this file turns
 * argv into the command's options struct, or into a message naming the
 * option that was wrong.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "hvctl.h"
#include "number.h"
#include "opts.h"

int hvctl_parse_u64(const char *s, uint64_t *v)
{
	return hvc_parse_decimal(s, v);
}

static bool same(const char *name, const char *s, size_t len)
{
	return name && strlen(name) == len && !strncmp(name, s, len);
}

static int json_opt(void *o, const char *name, const char *v)
{
	(void)o, (void)name, (void)v;
	hvctl_json = true;
	return 0;
}

/*
 * Every command's options besides its own table: -j is the same before
 * the command ("hvctl -j stat") and anywhere after it ("hvctl stat -j",
 * "hvctl dump DIR --json"), and completes for every command.
 */
const struct hvctl_opt hvctl_global_opts[] = {
	{ .name = "--json", .alias = "-j", .kind = HVCTL_OPT_FLAG,
	  .call = json_opt, .repeat = true },
	OPT_END,
};

static const struct hvctl_opt *find_in(const struct hvctl_opt *t,
				       const char *s, size_t len)
{
	for (const struct hvctl_opt *o = t; o && o->name; o++)
		if (same(o->name, s, len) || same(o->alias, s, len))
			return o;
	return NULL;
}

/* The option of CMD (or a global one) whose name is S[0..LEN). */
static const struct hvctl_opt *find_opt(const struct hvctl_cmd *cmd,
					const char *s, size_t len)
{
	const struct hvctl_opt *o = find_in(cmd->opts, s, len);

	return o ? o : find_in(hvctl_global_opts, s, len);
}

const struct hvctl_opt *hvctl_global_opt(const char *name)
{
	return find_in(hvctl_global_opts, name, strlen(name));
}

const struct hvctl_opt *hvctl_find_opt(const struct hvctl_cmd *cmd,
				       const char *name)
{
	return find_opt(cmd, name, strlen(name));
}

bool hvctl_is_option(const char *a)
{
	return a[0] == '-' && a[1] && !isdigit((unsigned char)a[1]);
}

static int take_u64(const struct hvctl_cmd *cmd, const struct hvctl_opt *o,
		    const char *name, const char *v, uint64_t *out)
{
	if (hvc_parse_count(name, v, o->min, o->max ? o->max : UINT64_MAX,
			    out))
		return hvctl_usage(cmd);
	return 0;
}

static int take_duration(const struct hvctl_cmd *cmd,
			 const struct hvctl_opt *o, const char *name,
			 const char *v, uint64_t *out)
{
	char min[DURATION_LEN];
	const char *err;

	if (duration_parse(v, out, &err))
		return hvctl_usage_err(cmd, "%s: %s", name, err);
	if (*out >= o->min)
		return 0;
	if (o->min == 1)
		return hvctl_usage_err(cmd, "%s must be more than 0", name);
	duration_exact(min, sizeof(min), o->min);
	return hvctl_usage_err(cmd, "%s must be at least %s", name, min);
}

/* "--on needs a value (total, handling, ...)" when the words are known. */
static int needs_value(const struct hvctl_cmd *cmd, const struct hvctl_opt *o)
{
	char words[256] = "";

	if (o->values && o->values[0] != '@') {
		size_t n = 0;

		for (const char *s = o->values; *s && n + 3 < sizeof(words); s++)
			n += (size_t)snprintf(words + n, sizeof(words) - n,
					      *s == ' ' ? ", " : "%c", *s);
		return hvctl_usage_err(cmd, "%s needs a value (%s)", o->name,
				       words);
	}
	return hvctl_usage_err(cmd, "%s needs a value", o->name);
}

/* The field of O in BASE: only tables with fields come with a BASE. */
static void *field(const struct hvctl_opt *o, void *base)
{
	assert(base);
	return (char *)base + o->off;
}

static int take(const struct hvctl_cmd *cmd, const struct hvctl_opt *o,
		const char *v, void *base)
{
	switch (o->kind) {
	case HVCTL_OPT_FLAG:
		/* V: an EQ_VALUE flag's "=value", else NULL. */
		if (o->call)
			return o->call(base, o->name, v);
		*(bool *)field(o, base) = true;
		return 0;
	case HVCTL_OPT_STR:
		*(const char **)field(o, base) = v;
		return 0;
	case HVCTL_OPT_DURATION:
		return take_duration(cmd, o, o->name, v, field(o, base));
	case HVCTL_OPT_U64:
		return take_u64(cmd, o, o->name, v, field(o, base));
	case HVCTL_OPT_CALL:
		return o->call(base, o->name, v);
	}
	return 0;
}

/*
 * Whether O was given before: one bit per table entry, the command's
 * first, the global ones after (tables are short: tests/unit checks).
 */
static bool seen_before(const struct hvctl_cmd *cmd, const struct hvctl_opt *o,
			uint64_t *seen)
{
	const struct hvctl_opt *t = cmd->opts;
	size_t i, n = 0;

	while (t && t[n].name)
		n++;
	if (t && o >= t && o < t + n)
		i = (size_t)(o - t);
	else
		i = n + (size_t)(o - hvctl_global_opts);
	assert(i < 64);
	if (*seen & (1ULL << i))
		return true;
	*seen |= 1ULL << i;
	return false;
}

int hvctl_parse_opts(const struct hvctl_cmd *cmd, int argc, char **argv,
		     void *base, int *nargs)
{
	bool options = true;
	uint64_t seen = 0;
	int n = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq;
		const struct hvctl_opt *o;
		const char *v = NULL;
		int ret;

		if (options && !strcmp(a, "--")) {
			options = false;
			continue;
		}
		if (!options || !hvctl_is_option(a)) {
			argv[++n] = argv[i];
			continue;
		}
		/* "--opt=value": long options only. */
		eq = a[1] == '-' ? strchr(a, '=') : NULL;
		o = find_opt(cmd, a, eq ? (size_t)(eq - a) : strlen(a));
		if (!o)
			return hvctl_usage_err(cmd, "unknown option '%s'", a);
		if (!hvctl_opt_has_value(o) && eq && !o->eq_value)
			return hvctl_usage_err(cmd, "%s takes no value", o->name);
		if (seen_before(cmd, o, &seen) && !o->repeat)
			return hvctl_usage_err(cmd, "%s given twice", o->name);
		if (hvctl_opt_has_value(o)) {
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc)
				v = argv[++i];
			else
				return needs_value(cmd, o);
		} else if (eq) {
			v = eq + 1;
		}
		ret = take(cmd, o, v, base);
		if (ret)
			return ret;
	}
	*nargs = n;
	return 0;
}

int hvctl_max_args(const struct hvctl_cmd *cmd, char **argv, int nargs,
		   int max)
{
	if (nargs > max)
		return hvctl_usage_err(cmd, "unexpected argument '%s'",
				       argv[max + 1]);
	return 0;
}

int hvctl_parse_dir(const struct hvctl_cmd *cmd, int argc, char **argv,
		    void *o, const char **dir)
{
	int n, ret = hvctl_parse_opts(cmd, argc, argv, o, &n);

	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 1);
	if (ret)
		return ret;
	if (!n)
		return hvctl_usage_err(cmd, "no trace directory");
	*dir = argv[1];
	return 0;
}

int hvctl_no_args(const struct hvctl_cmd *cmd, int argc, char **argv)
{
	int n, ret = hvctl_parse_opts(cmd, argc, argv, NULL, &n);

	return ret ? ret : hvctl_max_args(cmd, argv, n, 0);
}
