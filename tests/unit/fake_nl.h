/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl commands against canned kernel replies. A cmd_NAME_test links
 * with -Wl,--wrap for hvnl_open, hvnl_close, hvnl_request and hvnl_talk
 * (see the Makefile), so no socket is opened: a request is kept for the
 * test to read (fake_req), and the reply to command CMD is the messages
 * the test built with fake_reply(CMD), or for a dump (NLM_F_DUMP) with
 * fake_dump(CMD). A request the test gave no reply gets none; one it
 * made fake_refuse() is refused with an extended ACK (naming a member of
 * the request's CONFIG or WATCH nest). A dump in fake_dump_once[] is
 * given once, then none (a READ_CAPTURES hands each capture over once);
 * hvnl_pending() returns fake_pending, the notifications queued. Every
 * error, the client library's and the command's, lands in fake_err: the
 * library's error sink (err.h) is set to keep it, and the CLI's
 * hvctl_err() and hvctl_usage_err() (cli.c, linked) report through the
 * same sink. fake_capture_*() collect what a command prints, text or
 * JSON, on standard output and error.
 *
 * Header-only, like unit.h: each test is a single translation unit.
 */
#ifndef HVTRACE_FAKE_NL_H
#define HVTRACE_FAKE_NL_H

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "hvctl.h"
#include "nl.h"
#include "output.h"
#include "unit.h"

#define FAKE_BUF (128 * 1024)

/*
 * Replies by command, [0] to a request, [1] to a dump: messages back to
 * back, FAKE_USED bytes, the last one at FAKE_LAST.
 */
static char fake_replies[HVTRACE_CMD_MAX + 1][2][FAKE_BUF]
	__attribute__((aligned(8)));
static size_t fake_used[HVTRACE_CMD_MAX + 1][2];
static struct nlmsghdr *fake_last[HVTRACE_CMD_MAX + 1][2];

/* The last request sent, and how often the family was opened. */
static char fake_req[FAKE_BUF] __attribute__((aligned(8)));
/* The last SET_CONFIG, whatever came after it. */
static char fake_set_config[FAKE_BUF] __attribute__((aligned(8)));
static int fake_opens, fake_requests;
/* Requests by command, [0] not dumps, [1] dumps. */
static int fake_asked[HVTRACE_CMD_MAX + 1][2];
static char fake_err[512];
/* Refusals by command: errno, extended ACK message, attribute named. */
static int fake_refuse_err[HVTRACE_CMD_MAX + 1];
static const char *fake_refuse_msg[HVTRACE_CMD_MAX + 1];
static uint16_t fake_refuse_attr[HVTRACE_CMD_MAX + 1];
static unsigned int fake_refuse_nth[HVTRACE_CMD_MAX + 1];
/* Set to refuse the next opens with this negative errno. */
static int fake_open_err;
/* Dumps of these commands are given once, then none. */
static bool fake_dump_once[HVTRACE_CMD_MAX + 1];
/* What hvnl_pending() returns: a bit per notification command. */
static uint32_t fake_pending;
/*
 * Set: requests carrying a top-level attribute of this type are refused
 * as a module that does not know it refuses them (strict validation).
 */
static uint16_t fake_unknown_attr;

/* The error sink: the last message. */
static void fake_sink(const char *msg, void *data)
{
	(void)data;
	snprintf(fake_err, sizeof(fake_err), "%s", msg);
}

__attribute__((constructor))
static void fake_init(void)
{
	hvc_set_err_sink(fake_sink, NULL);
}

/* Forget the replies, the last request and the last error. */
__attribute__((unused))
static void fake_reset(void)
{
	memset(fake_used, 0, sizeof(fake_used));
	memset(fake_last, 0, sizeof(fake_last));
	memset(fake_req, 0, sizeof(fake_req));
	memset(fake_set_config, 0, sizeof(fake_set_config));
	memset(fake_asked, 0, sizeof(fake_asked));
	memset(fake_refuse_err, 0, sizeof(fake_refuse_err));
	fake_opens = fake_requests = 0;
	fake_open_err = 0;
	memset(fake_dump_once, 0, sizeof(fake_dump_once));
	fake_pending = 0;
	fake_unknown_attr = 0;
	fake_err[0] = '\0';
}

static struct nlmsghdr *fake_msg(uint8_t cmd, bool dump)
{
	struct genlmsghdr *g;
	struct nlmsghdr *nlh;

	if (fake_last[cmd][dump])
		fake_used[cmd][dump] +=
			NLMSG_ALIGN(fake_last[cmd][dump]->nlmsg_len);
	nlh = mnl_nlmsg_put_header(fake_replies[cmd][dump] +
				   fake_used[cmd][dump]);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	fake_last[cmd][dump] = nlh;
	return nlh;
}

/* Start one more reply message to CMD; put attributes into it. */
__attribute__((unused))
static struct nlmsghdr *fake_reply(uint8_t cmd)
{
	return fake_msg(cmd, false);
}

/* The same for a dump of CMD. */
__attribute__((unused))
static struct nlmsghdr *fake_dump(uint8_t cmd)
{
	return fake_msg(cmd, true);
}

/* Refuse requests for CMD with ERR and MSG, naming CONFIG member ATTR. */
__attribute__((unused))
static void fake_refuse(uint8_t cmd, int err, const char *msg, uint16_t attr)
{
	fake_refuse_err[cmd] = err;
	fake_refuse_msg[cmd] = msg;
	fake_refuse_attr[cmd] = attr;
	fake_refuse_nth[cmd] = 0;
}

/* The same, naming occurrence NTH (from 0) of a repeated ATTR. */
__attribute__((unused))
static void fake_refuse_at(uint8_t cmd, int err, const char *msg,
			   uint16_t attr, unsigned int nth)
{
	fake_refuse(cmd, err, msg, attr);
	fake_refuse_nth[cmd] = nth;
}

int __wrap_hvnl_open(struct hvnl **nl);
void __wrap_hvnl_close(struct hvnl *nl);
struct nlmsghdr *__wrap_hvnl_request(struct hvnl *nl, void *buf, uint8_t cmd,
				     uint16_t flags);
int __wrap_hvnl_talk(struct hvnl *nl, struct nlmsghdr *req, hvnl_cb cb,
		     void *data, struct hvnl_ack *ack);
int __wrap_hvnl_subscribe_events(struct hvnl *nl);
int __wrap_hvnl_fd(const struct hvnl *nl);
void __wrap_hvnl_discard_pending(struct hvnl *nl);
uint32_t __wrap_hvnl_pending(struct hvnl *nl);

uint32_t __wrap_hvnl_pending(struct hvnl *nl)
{
	uint32_t seen = fake_pending;

	(void)nl;
	fake_pending = 0;
	return seen;
}

int __wrap_hvnl_subscribe_events(struct hvnl *nl)
{
	(void)nl;
	return 0;
}

/* No socket: poll() ignores a negative descriptor and times out. */
int __wrap_hvnl_fd(const struct hvnl *nl)
{
	(void)nl;
	return -1;
}

void __wrap_hvnl_discard_pending(struct hvnl *nl)
{
	(void)nl;
}

/* The ACK of a refusal: where the attribute named sits in REQ. */
static int fake_ack(struct nlmsghdr *req, uint8_t cmd, struct hvnl_ack *ack)
{
	const struct nlattr *a, *cfg = NULL;
	unsigned int nth = fake_refuse_nth[cmd];
	struct hvnl_ack mine;

	if (!ack)
		ack = &mine;
	memset(ack, 0, sizeof(*ack));
	ack->err = fake_refuse_err[cmd];
	snprintf(ack->msg, sizeof(ack->msg), "%s", fake_refuse_msg[cmd]);
	/* The attribute named sits in the CONFIG or the WATCH nest. */
	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == HVTRACE_A_CONFIG ||
		    mnl_attr_get_type(a) == HVTRACE_A_WATCH)
			cfg = a;
	if (cfg) {
		mnl_attr_for_each_nested(a, cfg) {
			if (mnl_attr_get_type(a) != fake_refuse_attr[cmd] ||
			    nth--)
				continue;
			ack->off = (const char *)a - (const char *)req;
			ack->has_off = true;
			break;
		}
	}
	if (ack == &mine)
		return hvnl_report_ack(ack, cmd, NULL);
	return -ack->err;
}

static bool fake_has_attr(struct nlmsghdr *req, uint16_t type)
{
	const struct nlattr *a;

	mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == type)
			return true;
	return false;
}

/* The kernel's answer to an attribute beyond its policy's maximum. */
static int fake_unknown(struct nlmsghdr *req, uint8_t cmd,
			struct hvnl_ack *ack)
{
	struct hvnl_ack mine = { .err = EINVAL };

	(void)req;
	snprintf(mine.msg, sizeof(mine.msg), "Unknown attribute type");
	if (!ack)
		return hvnl_report_ack(&mine, cmd, NULL);
	*ack = mine;
	return -EINVAL;
}

int __wrap_hvnl_open(struct hvnl **nl)
{
	fake_opens++;
	*nl = NULL;
	if (fake_open_err)
		return hvc_err(-fake_open_err, "fake: cannot open (%d)",
			       fake_open_err);
	/* Opaque to the commands; only the wrappers below see it. */
	*nl = (struct hvnl *)fake_replies;
	return 0;
}

void __wrap_hvnl_close(struct hvnl *nl)
{
	(void)nl;
}

struct nlmsghdr *__wrap_hvnl_request(struct hvnl *nl, void *buf, uint8_t cmd,
				     uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	(void)nl;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = HVTRACE_GENL_VERSION;
	return nlh;
}

int __wrap_hvnl_talk(struct hvnl *nl, struct nlmsghdr *req, hvnl_cb cb,
		     void *data, struct hvnl_ack *ack)
{
	uint8_t cmd = ((struct genlmsghdr *)mnl_nlmsg_get_payload(req))->cmd;
	bool dump = req->nlmsg_flags & NLM_F_DUMP;
	const struct nlmsghdr *nlh;
	int len, ret = 0;

	(void)nl;
	fake_requests++;
	fake_asked[cmd][dump]++;
	memcpy(fake_req, req, req->nlmsg_len);
	if (cmd == HVTRACE_CMD_SET_CONFIG)
		memcpy(fake_set_config, req, req->nlmsg_len);
	if (fake_refuse_err[cmd])
		return fake_ack(req, cmd, ack);
	if (fake_unknown_attr && fake_has_attr(req, fake_unknown_attr))
		return fake_unknown(req, cmd, ack);
	if (!cb || !fake_last[cmd][dump])
		return 0;
	len = fake_used[cmd][dump] + fake_last[cmd][dump]->nlmsg_len;
	/* As nl.c: after a failure the rest is not handed on. */
	for (nlh = (void *)fake_replies[cmd][dump];
	     !ret && mnl_nlmsg_ok(nlh, len); nlh = mnl_nlmsg_next(nlh, &len))
		ret = cb(nlh, data);
	if (dump && fake_dump_once[cmd]) {
		fake_last[cmd][1] = NULL;
		fake_used[cmd][1] = 0;
	}
	return ret;
}

/* Attribute TYPE of the last SET_CONFIG's CONFIG nest, or NULL. */
__attribute__((unused))
static const struct nlattr *fake_req_cfg(uint16_t type)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	const struct nlattr *c[HVTRACE_CFG_MAX + 1];

	if (hvnl_parse((struct nlmsghdr *)fake_set_config, tb,
		       HVTRACE_A_MAX, hvc_policy_attr) ||
	    !tb[HVTRACE_A_CONFIG] ||
	    hvnl_parse_nested(tb[HVTRACE_A_CONFIG], c, HVTRACE_CFG_MAX,
			      hvc_policy_cfg))
		return NULL;
	return c[type];
}

/* Run hvctl COMMAND ARGS... (a NULL-terminated list); its exit status. */
#define FAKE_RUN(cmd, ...)						\
	((cmd).run(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *) - 1, \
		   (char *[]){ __VA_ARGS__ }))

static FILE *fake_capture_file;
static int fake_saved_fd[3];

/* Everything printed from here to fake_capture_end() is collected. */
__attribute__((unused))
static void fake_capture_begin(void)
{
	fflush(stdout);
	fake_capture_file = tmpfile();
	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
		fake_saved_fd[fd] = dup(fd);
		dup2(fileno(fake_capture_file), fd);
	}
}

/* What was printed (standard output and error); the caller frees it. */
__attribute__((unused))
static char *fake_capture_end(void)
{
	long n;
	char *s;

	fflush(stdout);
	for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++) {
		dup2(fake_saved_fd[fd], fd);
		close(fake_saved_fd[fd]);
	}
	n = ftell(fake_capture_file);
	s = calloc(1, n + 1);
	rewind(fake_capture_file);
	if (fread(s, 1, n, fake_capture_file) != (size_t)n)
		s[0] = '\0';
	fclose(fake_capture_file);
	return s;
}

/* Run hvctl COMMAND ARGS... (as FAKE_RUN), with -j when JSON, expecting
 * success; what it printed, for the caller to free. */
#define FAKE_OUTPUT(json, cmd, ...) ({					\
	hvctl_json = (json);						\
	fake_capture_begin();						\
	CHECK_INT(FAKE_RUN(cmd, __VA_ARGS__), 0);			\
	fake_capture_end();						\
})

/* How often NEEDLE occurs in HAYSTACK, overlaps counted. */
__attribute__((unused))
static int fake_count(const char *haystack, const char *needle)
{
	int n = 0;

	for (; (haystack = strstr(haystack, needle)); haystack++)
		n++;
	return n;
}

#endif /* HVTRACE_FAKE_NL_H */
