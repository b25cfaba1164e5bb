// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/qmp.c against a monitor that misbehaves as a real QEMU can
 * not be made to (a real one: tests/e2e/79-qemu-mmio-device.t): a forked
 * peer on a unix socket plays each script. The answer split across
 * writes, with events between; a bad escape; silence, and a trickle of
 * events, each bounded by the timeout; no socket; not a monitor.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "qmp.h"
#include "unit.h"

static char path[108];

static const char greet[] =
	"{\"QMP\": {\"version\": {}, \"capabilities\": [\"oob\"]}}\r\n";
static const char caps[] = "{\"return\": {}}\r\n";
static const char event[] =
	"{\"timestamp\": {\"seconds\": 1}, \"event\": \"RTC_CHANGE\"}\r\n";

enum script { GOOD, BAD_ESCAPE, SILENT, TRICKLE, NOT_QMP };

static void put(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
		_exit(1);
}

/*
 * The greeting, the capabilities' answer (an event before it with
 * EVENTS), and the next command read: false when the client went away.
 */
static bool negotiate(int fd, bool events)
{
	char buf[4096];

	put(fd, greet);
	if (read(fd, buf, sizeof(buf)) <= 0)
		return false;
	if (events)
		put(fd, event);
	put(fd, caps);
	return read(fd, buf, sizeof(buf)) > 0;
}

/* The peer's side: greeting and answers as SCRIPT says, then close. */
static void play(int fd, enum script script)
{
	switch (script) {
	case GOOD:
		if (!negotiate(fd, true))
			break;
		/* The answer in pieces, an event before it. */
		put(fd, event);
		put(fd, "{\"return\": \"FlatView #0\\r\\n AS \\\"mem");
		usleep(20000);
		put(fd, "ory\\\", root: system\\r\\n  00000000fea00000-"
			"00000000feafffff (prio 1, i/o): edu\\u002dmmio "
			"\\\"x\\\"\\r\\n\"}\r\n");
		break;
	case BAD_ESCAPE:
		if (negotiate(fd, false))
			put(fd, "{\"return\": \"abc\\u1\"}\n");
		break;
	case SILENT:
		sleep(3);
		break;
	case TRICKLE:
		/* Never the answer: events, a tenth of a second apart. */
		if (!negotiate(fd, false))
			break;
		for (int i = 0; i < 30; i++) {
			put(fd, event);
			usleep(100000);
		}
		break;
	case NOT_QMP:
		put(fd, "SSH-2.0-OpenSSH\r\n");
		break;
	}
	close(fd);
}

static pid_t serve(enum script script)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	pid_t pid;

	strcpy(sa.sun_path, path);
	unlink(path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1))
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = accept(lfd, NULL, NULL);

		if (fd >= 0)
			play(fd, script);
		_exit(0);
	}
	close(lfd);
	return pid;
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

static char last[256];

static void keep(const char *msg, void *data)
{
	(void)data;
	snprintf(last, sizeof(last), "%s", msg);
}

/* Asks the peer playing SCRIPT: the return, the text, the time it took. */
static int ask(enum script script, unsigned int ms, char **text,
	       uint64_t *took, uint32_t *pid)
{
	pid_t peer = serve(script);
	uint64_t t = ms_now();
	int ret;

	*text = NULL;
	last[0] = '\0';
	ret = qmp_memory_tree(path, ms, pid, text);
	*took = ms_now() - t;
	if (peer > 0) {
		kill(peer, SIGKILL);
		waitpid(peer, NULL, 0);
	}
	return ret;
}

int main(void)
{
	uint64_t took;
	uint32_t pid;
	char *text;
	int ret;

	snprintf(path, sizeof(path), "/tmp/qmp_test.%d", getpid());
	hvc_set_err_sink(keep, NULL);

	ret = ask(GOOD, 2000, &text, &took, &pid);
	CHECK_INT(ret, 0);
	CHECK_INT(pid, getpid());	/* the socket's maker: this process */
	CHECK_STR(text, "FlatView #0\r\n AS \"memory\", root: system\r\n"
		  "  00000000fea00000-00000000feafffff (prio 1, i/o): "
		  "edu-mmio \"x\"\r\n");
	free(text);

	ret = ask(BAD_ESCAPE, 2000, &text, &took, &pid);
	CHECK_INT(ret, -EPROTO);
	CHECK(text == NULL);
	CHECK_HAS(last, "does not end");

	/* Silence, or events and never an answer: the timeout, no more. */
	ret = ask(SILENT, 300, &text, &took, &pid);
	CHECK_INT(ret, -ETIMEDOUT);
	CHECK_MSG(took >= 300 && took < 600, "took %llu ms",
		  (unsigned long long)took);
	CHECK_HAS(last, "no answer in 300 ms");
	ret = ask(TRICKLE, 300, &text, &took, &pid);
	CHECK_INT(ret, -ETIMEDOUT);
	CHECK_MSG(took >= 300 && took < 600, "took %llu ms",
		  (unsigned long long)took);

	ret = ask(NOT_QMP, 2000, &text, &took, &pid);
	CHECK_INT(ret, -EPROTO);
	CHECK_HAS(last, "not a QMP monitor");

	unlink(path);
	ret = qmp_memory_tree(path, 2000, &pid, &text);
	CHECK_INT(ret, -ENOENT);
	CHECK_HAS(last, path);
	return unit_report();
}
