// SPDX-License-Identifier: GPL-2.0
/*
 * user/hvctl/opts.c: every form an option can take, every refusal, and the
 * exact message of each.
 */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "hvctl.h"
#include "opts.h"
#include "unit.h"

static char msg[512];

/* The error sink (err.h), which hvctl_usage_err() reports to: kept. */
static void keep_msg(const char *m, void *data)
{
	(void)data;
	snprintf(msg, sizeof(msg), "%s", m);
}

__attribute__((constructor))
static void set_sink(void)
{
	hvc_set_err_sink(keep_msg, NULL);
}

struct t_opts {
	bool flag;
	const char *str, *o;
	uint64_t dur, dur1, num, rng;
	int calls, fcalls;
	char last[64];
};

static int t_call(void *p, const char *name, const char *v)
{
	struct t_opts *t = p;

	t->calls++;
	snprintf(t->last, sizeof(t->last), "%s=%s", name, v);
	return strcmp(v, "bad") ? 0 : 7;
}

static int t_fcall(void *p, const char *name, const char *v)
{
	struct t_opts *t = p;

	t->fcalls++;
	snprintf(t->last, sizeof(t->last), "%s%s", name, v ? "!" : "");
	return 0;
}

static const struct hvctl_opt t_table[] = {
	{ .name = "--flag", .alias = "-f", .kind = HVCTL_OPT_FLAG,
	  .off = offsetof(struct t_opts, flag) },
	OPT_STR("--str", struct t_opts, str, NULL),
	OPT_STR("-o", struct t_opts, o, "@file"),
	OPT_STR("--words", struct t_opts, str, "a b c"),
	OPT_DURATION("--dur", struct t_opts, dur, 1000000),
	OPT_DURATION("--dur1", struct t_opts, dur1, 1),
	OPT_U64("--num", struct t_opts, num, 1, 0),
	OPT_U64("--rng", struct t_opts, rng, 1, 100),
	{ .name = "--call", .kind = HVCTL_OPT_CALL, .call = t_call,
	  .repeat = true },
	OPT_FLAG_CALL("--fcall", t_fcall),
	OPT_FLAG_VALUE("--vflag", t_fcall),
	OPT_END,
};

static const struct hvctl_cmd t_cmd = {
	.name = "t", .usage = "", .opts = t_table,
};
static const struct hvctl_cmd bare_cmd = { .name = "bare", .usage = "" };

static struct t_opts t;
static int nargs;
static char *args[16];

/* Parse "t" and the NULL-ended arguments; the exit status. */
static int parse(const struct hvctl_cmd *cmd, ...)
{
	va_list ap;
	int argc = 0;

	memset(&t, 0, sizeof(t));
	msg[0] = '\0';
	nargs = -1;
	args[argc++] = (char *)"t";
	va_start(ap, cmd);
	while (argc < 15 && (args[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return hvctl_parse_opts(cmd, argc, args, &t, &nargs);
}

#define OK(...) CHECK_INT(parse(&t_cmd, __VA_ARGS__, NULL), 0)
#define BAD(want, ...) do {						\
	CHECK_INT(parse(&t_cmd, __VA_ARGS__, NULL), 2);			\
	CHECK_STR(msg, (want));						\
} while (0)

static void test_forms(void)
{
	OK("--str=x");
	CHECK_STR(t.str, "x");
	OK("--str", "x");
	CHECK_STR(t.str, "x");
	OK("--str", "-x");		/* the next argument, whatever it is */
	CHECK_STR(t.str, "-x");
	OK("--str=");
	CHECK_STR(t.str, "");
	OK("--str=a=b");
	CHECK_STR(t.str, "a=b");
	OK("-o", "dir");
	CHECK_STR(t.o, "dir");
	OK("--flag");
	CHECK(t.flag);
	OK("-f");
	CHECK(t.flag);
	OK("--call=v");
	CHECK_STR(t.last, "--call=v");
	OK("--call", "w");
	CHECK_STR(t.last, "--call=w");
	OK("--call", "1", "--call", "2");	/* a REPEAT option adds up */
	CHECK_INT(t.calls, 2);
	OK("--fcall");
	CHECK_STR(t.last, "--fcall");
	CHECK_INT(t.fcalls, 1);
	/* A flag's optional value: "=value" only, the next is an argument. */
	OK("--vflag");
	CHECK_STR(t.last, "--vflag");
	OK("--vflag=3");
	CHECK_STR(t.last, "--vflag!");
	OK("--vflag", "3");
	CHECK_STR(t.last, "--vflag");
	CHECK_INT(nargs, 1);
	CHECK_STR(args[1], "3");
	OK("--num=18446744073709551615");
	CHECK_INT(t.num == UINT64_MAX, 1);
	OK("--rng=100");
	CHECK_INT(t.rng, 100);
	OK("--rng", "007");
	CHECK_INT(t.rng, 7);
	OK("--dur", "1ms");
	CHECK_INT(t.dur, 1000000);
	OK("--dur=1.5s");
	CHECK_INT(t.dur, 1500000000);
	OK("--dur1", "1ns");
	CHECK_INT(t.dur1, 1);
}

static void test_args(void)
{
	OK("a", "--flag", "b");
	CHECK_INT(nargs, 2);
	CHECK_STR(args[1], "a");
	CHECK_STR(args[2], "b");
	OK("--flag", "--", "--str", "-f", "--");
	CHECK(t.flag);
	CHECK_INT(t.str == NULL, 1);
	CHECK_INT(nargs, 3);
	CHECK_STR(args[1], "--str");
	CHECK_STR(args[2], "-f");
	CHECK_STR(args[3], "--");
	/* A '-' and a digit, or '-' alone, are arguments. */
	OK("-5us", "-1", "-");
	CHECK_INT(nargs, 3);
	CHECK_STR(args[1], "-5us");
	CHECK_STR(args[2], "-1");
	CHECK_STR(args[3], "-");
	OK("--str", "--", "x");		/* a value first */
	CHECK_STR(t.str, "--");
	CHECK_INT(nargs, 1);
	CHECK_INT(parse(&t_cmd, NULL), 0);
	CHECK_INT(nargs, 0);
}

static void test_refused(void)
{
	BAD("unknown option '--bogus'", "--bogus");
	BAD("unknown option '--bogus=1'", "--bogus=1");
	BAD("unknown option '-x'", "-x");
	BAD("unknown option '-o=dir'", "-o=dir");	/* short: no '=' */
	BAD("unknown option '--st'", "--st", "x");	/* no abbreviations */
	BAD("--flag takes no value", "--flag=1");
	BAD("--fcall takes no value", "--fcall=");
	BAD("--str needs a value", "--str");
	BAD("-o needs a value", "-o");
	BAD("--words needs a value (a, b, c)", "--words");
	BAD("--num needs a value", "--num");

	BAD("--num must be a positive number, not '-1'", "--num", "-1");
	BAD("--num must be a positive number, not '-1'", "--num=-1");
	BAD("--num must be a positive number, not '0'", "--num", "0");
	BAD("--num must be a positive number, not '+1'", "--num", "+1");
	BAD("--num must be a positive number, not ' 1'", "--num", " 1");
	BAD("--num must be a positive number, not '1 '", "--num", "1 ");
	BAD("--num must be a positive number, not '1x'", "--num", "1x");
	BAD("--num must be a positive number, not '0x10'", "--num", "0x10");
	BAD("--num must be a positive number, not ''", "--num=");
	BAD("--num must be at most 18446744073709551615, not "
	    "'18446744073709551616'", "--num", "18446744073709551616");
	BAD("--num must be at most 18446744073709551615, not "
	    "'99999999999999999999999'", "--num", "99999999999999999999999");
	BAD("--rng takes a number from 1 to 100, not '18446744073709551616'",
	    "--rng", "18446744073709551616");
	BAD("--rng takes a number from 1 to 100, not '101'", "--rng", "101");
	BAD("--rng takes a number from 1 to 100, not '0'", "--rng=0");
	BAD("--rng takes a number from 1 to 100, not '-5'", "--rng", "-5");

	BAD("--dur: negative duration '-5us'", "--dur", "-5us");
	BAD("--dur: negative duration '-5us'", "--dur=-5us");
	BAD("--dur must be at least 1ms", "--dur", "999us");
	BAD("--dur must be at least 1ms", "--dur", "0");
	BAD("--dur1 must be more than 0", "--dur1", "0");
	CHECK_INT(parse(&t_cmd, "--dur", "5", NULL), 2);
	CHECK(!strncmp(msg, "--dur: ", 7));

	/* Twice is refused, whatever the forms, unless the option REPEATs. */
	BAD("--str given twice", "--str", "1", "--str=2");
	BAD("--flag given twice", "-f", "--flag");
	BAD("--num given twice", "--num", "1", "--num", "1");
	BAD("--fcall given twice", "--fcall", "a", "--fcall");
	BAD("--vflag given twice", "--vflag", "--vflag=1");

	/* What a CALL returns stops the parse. */
	CHECK_INT(parse(&t_cmd, "--call", "bad", "--flag", NULL), 7);
	CHECK(!t.flag);
	/* The first error is the one said. */
	BAD("unknown option '--x'", "--x", "--num", "0");

	CHECK_INT(parse(&bare_cmd, "--flag", NULL), 2);
	CHECK_STR(msg, "unknown option '--flag'");
	CHECK_INT(parse(&bare_cmd, "a", "-1", NULL), 0);
	CHECK_INT(nargs, 2);
}

static void test_helpers(void)
{
	uint64_t v = 42;
	char *argv[] = { "t", "a", "b", NULL };
	const char *dir = NULL;

	CHECK_INT(hvctl_parse_u64("0", &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(hvctl_parse_u64("18446744073709551615", &v), 0);
	CHECK_INT(v == UINT64_MAX, 1);
	CHECK_INT(hvctl_parse_u64("18446744073709551616", &v), -ERANGE);
	CHECK_INT(hvctl_parse_u64("-1", &v), -EINVAL);
	CHECK_INT(hvctl_parse_u64("", &v), -EINVAL);
	CHECK_INT(v == UINT64_MAX, 1);

	CHECK_INT(hvctl_max_args(&t_cmd, argv, 2, 1), 2);
	CHECK_STR(msg, "unexpected argument 'b'");
	CHECK_INT(hvctl_max_args(&t_cmd, argv, 2, 2), 0);

	CHECK_INT(hvctl_parse_dir(&t_cmd, 1, argv, &t, &dir), 2);
	CHECK_STR(msg, "no trace directory");
	CHECK_INT(hvctl_parse_dir(&t_cmd, 3, argv, &t, &dir), 2);
	CHECK_STR(msg, "unexpected argument 'b'");
	CHECK_INT(hvctl_parse_dir(&t_cmd, 2, argv, &t, &dir), 0);
	CHECK_STR(dir, "a");

	CHECK_INT(hvctl_no_args(&bare_cmd, 1, argv), 0);
	CHECK_INT(hvctl_no_args(&bare_cmd, 2, argv), 2);
	CHECK_STR(msg, "unexpected argument 'a'");
	argv[1] = "--";
	CHECK_INT(hvctl_no_args(&bare_cmd, 2, argv), 0);

	CHECK(hvctl_find_opt(&t_cmd, "-f") == &t_table[0]);
	CHECK(hvctl_find_opt(&t_cmd, "--flag") == &t_table[0]);
	CHECK(!hvctl_find_opt(&t_cmd, "--fla"));
	CHECK(!hvctl_find_opt(&bare_cmd, "--flag"));
}

/* -j/--json: every command's, wherever it is typed, up to a "--". */
static void test_global(void)
{
	hvctl_json = false;
	OK("a", "-j");
	CHECK(hvctl_json);
	CHECK_INT(nargs, 1);
	hvctl_json = false;
	OK("--json", "a");
	CHECK(hvctl_json);
	CHECK_INT(nargs, 1);
	hvctl_json = false;
	CHECK_INT(parse(&bare_cmd, "-j", NULL), 0);
	CHECK(hvctl_json);
	CHECK_INT(nargs, 0);
	hvctl_json = false;
	OK("--", "-j");
	CHECK(!hvctl_json);
	CHECK_INT(nargs, 1);
	CHECK_STR(args[1], "-j");
	BAD("--json takes no value", "--json=1");
	CHECK(!hvctl_json);
	OK("-j", "a", "--json");		/* twice means the same */
	CHECK(hvctl_json);
	hvctl_json = false;
	CHECK(hvctl_find_opt(&bare_cmd, "-j") == hvctl_global_opt("--json"));
	CHECK(!hvctl_global_opt("--jso"));
}

int main(void)
{
	test_forms();
	test_global();
	test_args();
	test_refused();
	test_helpers();
	return unit_report();
}
