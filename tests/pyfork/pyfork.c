// SPDX-License-Identifier: GPL-2.0
/*
 * pyfork: run a Python program the way `python3` would, in a fork of a
 * warm interpreter (tests/pyfork/server.py) instead of a new one.
 *
 *   pyfork -c CODE [ARG...]
 *   pyfork SCRIPT [ARG...]
 *   pyfork --preload DIR MODULE     the server imports MODULE from DIR
 *                                   (without a server: nothing to do)
 *
 * Under emulation a python3 start costs a second on a stock kernel and
 * more than two on the debug kernel; the e2e tests start a few hundred.
 * A fork of the server costs a tenth of that.
 *
 * The program gets this process's stdin, stdout and stderr (passed to the
 * server as file descriptors), working directory, environment and
 * arguments; pyfork exits with its status, or dies of its signal.
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to pyfork are passed on to it;
 * if pyfork dies, the server kills it.
 *
 * Without $HVT_PYFORK (the server's socket), when the server cannot be
 * reached, or when it refuses (another user, capabilities, namespace,
 * ...: the program would not run as python3 here would), pyfork runs
 * python3 itself: same program, only slower.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

/* Request: NUL-separated "cwd", "argc", argv..., env..., at most this. */
#define REQUEST_MAX	(256 * 1024)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int server = -1;

static void usage_exit(void)
{
	fputs("usage: pyfork -c CODE [ARG...] | SCRIPT [ARG...] | --preload DIR MODULE\n",
	      stderr);
	exit(2);
}

static void run_python3(char **argv)
{
	argv[0] = "python3";
	execvp("python3", argv);
	fprintf(stderr, "pyfork: cannot run python3: %s\n", strerror(errno));
	exit(127);
}

/* Without a server there is nothing to preload into: done. */
static void preload_or_python3(char **argv)
{
	if (!strcmp(argv[1], "--preload"))
		exit(0);
	run_python3(argv);
}

/* Passed on: the server signals the program. send() is async-signal-safe. */
static void forward(int sig)
{
	char msg[] = "kill 00";

	msg[5] = '0' + sig / 10;
	msg[6] = '0' + sig % 10;
	send(server, msg, sizeof(msg) - 1, MSG_NOSIGNAL);
}

static int connect_server(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -1;
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Append S and its NUL to BUF at *LEN; false when it does not fit. */
static int put(char *buf, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1;

	if (*len + n > REQUEST_MAX)
		return 0;
	memcpy(buf + *len, s, n);
	*len += n;
	return 1;
}

static int build_request(char *buf, size_t *len, int argc, char **argv)
{
	char cwd[4096], count[16];
	char **e;
	int i;

	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	snprintf(count, sizeof(count), "%d", argc - 1);
	if (!put(buf, len, cwd) || !put(buf, len, count))
		return 0;
	for (i = 1; i < argc; i++)
		if (!put(buf, len, argv[i]))
			return 0;
	for (e = environ; *e; e++)
		if (!put(buf, len, *e))
			return 0;
	return 1;
}

/* Send the request with our stdin, stdout and stderr. */
static int send_request(const char *buf, size_t len)
{
	int fds[3] = { 0, 1, 2 };
	char control[CMSG_SPACE(sizeof(fds))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = sizeof(control),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cmsg), fds, sizeof(fds));
	return sendmsg(server, &msg, MSG_NOSIGNAL) == (ssize_t)len;
}

/*
 * The server's answer: "exit N" or "signal N", end as the program did;
 * "refused" (we are not in its shoes: tests/pyfork/server.py), run it
 * ourselves.
 */
static void finish(const char *reply, char **argv)
{
	int n;

	if (!strcmp(reply, "refused")) {
		close(server);
		preload_or_python3(argv);
	}

	if (sscanf(reply, "exit %d", &n) == 1)
		exit(n);
	if (sscanf(reply, "signal %d", &n) == 1) {
		signal(n, SIG_DFL);
		raise(n);
		exit(128 + n);
	}
	fprintf(stderr, "pyfork: the server said '%s'\n", reply);
	exit(125);
}

int main(int argc, char **argv)
{
	static const int passed_on[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = forward };
	const char *path = getenv("HVT_PYFORK");
	static char buf[REQUEST_MAX];
	char reply[64];
	size_t len = 0;
	ssize_t n;
	unsigned int i;

	if (argc < 2)
		usage_exit();
	if (!strcmp(argv[1], "--preload") && argc != 4)
		usage_exit();
	if (!path || !*path)
		preload_or_python3(argv);
	server = connect_server(path);
	if (server < 0 || !build_request(buf, &len, argc, argv))
		preload_or_python3(argv);
	/* Before the request: a signal must reach the program it starts. */
	for (i = 0; i < ARRAY_SIZE(passed_on); i++)
		sigaction(passed_on[i], &sa, NULL);
	if (!send_request(buf, len)) {
		fprintf(stderr, "pyfork: cannot send to %s: %s\n", path, strerror(errno));
		return 125;
	}
	do
		n = recv(server, reply, sizeof(reply) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		fprintf(stderr, "pyfork: no answer from %s\n", path);
		return 125;
	}
	reply[n] = '\0';
	finish(reply, argv);
	return 125;
}
