/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command-line options, parsed the same way for every command from a
 * table the command's struct hvctl_cmd points at (so `hvctl __complete`
 * and the bash completion follow the table, never a copy of it):
 *
 *   --opt=value, --opt value   every option that takes a value; short
 *                              options (-o DIR) only the second way
 *   --opt, --opt=value         a flag with an optional value (EQ_VALUE):
 *                              the value only the first way, so the
 *                              next argument is never taken for one
 *   --                         ends the options: what follows is an
 *                              argument even if it starts with '-'
 *   -5us, -1                   a '-' and a digit are an argument, so
 *                              the value's own check names the problem
 *                              ("negative duration '-5us'")
 *
 * Numbers are strict: decimal digits only, no sign, no wrap, and a value
 * beyond the option's range is refused with a message naming the option.
 * An option given twice is refused, unless its table entry says REPEAT
 * (each one adds, like set-threshold's --reason).
 * Arguments that are not options are moved to argv[1..*nargs], in order.
 */
#ifndef HVCTL_OPTS_H
#define HVCTL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hvctl_cmd;

enum hvctl_opt_kind {
	HVCTL_OPT_FLAG,		/* bool at OFF set, or CALL(o, name, NULL) */
	HVCTL_OPT_STR,		/* const char * at OFF: the value as typed */
	HVCTL_OPT_DURATION,	/* uint64_t ns at OFF, at least MIN */
	HVCTL_OPT_U64,		/* uint64_t at OFF, in [MIN, MAX] */
	HVCTL_OPT_CALL,		/* CALL(o, name, value): the library checks it */
};

struct hvctl_opt {
	const char *name;	/* "--count", "-o" */
	const char *alias;	/* "-q" beside "--quiet", or NULL */
	enum hvctl_opt_kind kind;
	size_t off;		/* in the command's options struct */
	uint64_t min, max;	/* numbers; MAX 0: UINT64_MAX */
	/* 0, or the exit status of the error it reported */
	int (*call)(void *o, const char *name, const char *value);
	/*
	 * What the value can be, for completion and messages: words
	 * ("text json csv"), or "@file", "@dir", "@reason"; NULL: anything.
	 */
	const char *values;
	bool repeat;		/* may be given more than once */
	bool eq_value;		/* a FLAG's CALL gets "--opt=value"'s */
};

#define OPT_FLAG(n, type, field) \
	{ .name = (n), .kind = HVCTL_OPT_FLAG, .off = offsetof(type, field) }
#define OPT_FLAG_CALL(n, fn) \
	{ .name = (n), .kind = HVCTL_OPT_FLAG, .call = (fn) }
/* "--opt" calls FN(o, name, NULL), "--opt=value" FN(o, name, value). */
#define OPT_FLAG_VALUE(n, fn) \
	{ .name = (n), .kind = HVCTL_OPT_FLAG, .call = (fn), .eq_value = true }
#define OPT_STR(n, type, field, vals) \
	{ .name = (n), .kind = HVCTL_OPT_STR, .off = offsetof(type, field), \
	  .values = (vals) }
#define OPT_DURATION(n, type, field, lo) \
	{ .name = (n), .kind = HVCTL_OPT_DURATION, \
	  .off = offsetof(type, field), .min = (lo) }
#define OPT_U64(n, type, field, lo, hi) \
	{ .name = (n), .kind = HVCTL_OPT_U64, .off = offsetof(type, field), \
	  .min = (lo), .max = (hi) }
#define OPT_CALL(n, fn, vals) \
	{ .name = (n), .kind = HVCTL_OPT_CALL, .call = (fn), .values = (vals) }
#define OPT_END { .name = NULL }

/*
 * Parse ARGV[1..ARGC) with CMD's options into O (the command's options
 * struct). 0, or the usage error's exit status (2) once reported, or
 * what an option's CALL returned.
 */
int hvctl_parse_opts(const struct hvctl_cmd *cmd, int argc, char **argv,
		     void *o, int *nargs);
/* No more than MAX arguments: 0, or the usage error's exit status. */
int hvctl_max_args(const struct hvctl_cmd *cmd, char **argv, int nargs,
		   int max);
/* A command that takes neither options nor arguments. */
int hvctl_no_args(const struct hvctl_cmd *cmd, int argc, char **argv);
/* The one trace directory of report, dump and export, into *DIR. */
int hvctl_parse_dir(const struct hvctl_cmd *cmd, int argc, char **argv,
		    void *o, const char **dir);
/* A strict unsigned decimal: 0, -EINVAL or -ERANGE. */
int hvctl_parse_u64(const char *s, uint64_t *v);
/* The option of CMD named NAME (or its alias), NULL: none. */
const struct hvctl_opt *hvctl_find_opt(const struct hvctl_cmd *cmd,
				       const char *name);
/*
 * The options every command takes besides its table (-j/--json), and
 * the one named NAME, NULL: none. hvctl_find_opt() finds them too.
 */
extern const struct hvctl_opt hvctl_global_opts[];
const struct hvctl_opt *hvctl_global_opt(const char *name);
/* "-x", "--xy", but not "-", "-5us" or "-1": those are arguments. */
bool hvctl_is_option(const char *a);
/* Whether O takes a value. */
static inline int hvctl_opt_has_value(const struct hvctl_opt *o)
{
	return o->kind != HVCTL_OPT_FLAG;
}

#endif /* HVCTL_OPTS_H */
