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
 * The program gets this process's open file descriptors (passed to the
 * server), working directory, environment and arguments; pyfork exits
 * with its status, or dies of its signal. SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT sent to pyfork are passed on to it (those pyfork was started
 * ignoring stay ignored); if pyfork dies, the server kills it.
 *
 * pyfork runs python3 itself (Debian's /usr/bin/python3 where it is, as
 * the server) without $HVT_PYFORK (the server's socket), for other
 * python3 options, when the server cannot be reached or the request not
 * sent, or when the server refuses (another user, capabilities,
 * namespace, ...: the program would not run as python3 here would):
 * same program, only slower.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

#define __noreturn	__attribute__((noreturn))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
/* Request: NUL-separated cwd, argc, argv..., nfds, fds..., env... */
#define REQUEST_MAX	(128 * 1024)
#define MAX_FDS		253	/* SCM_MAX_FD */

static const int passed_on[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static int server = -1;
/* The last signal: passed on now or, before the request was sent, then. */
static volatile sig_atomic_t sent, pending;

static void __noreturn usage_exit(void)
{
	fputs("usage: pyfork -c CODE [ARG...] | SCRIPT [ARG...] | --preload DIR MODULE\n",
	      stderr);
	exit(2);
}

static void __noreturn run_python3(char **argv)
{
	const char *python3 = "/usr/bin/python3";

	if (access(python3, X_OK))
		python3 = "python3";
	argv[0] = (char *)python3;
	execvp(python3, argv);
	fprintf(stderr, "pyfork: cannot run %s: %s\n", python3, strerror(errno));
	exit(127);
}

/*
 * Run it ourselves. A signal that came meanwhile, which no program got,
 * is ours again. Without the server there is nothing to preload into:
 * done.
 */
static void __noreturn fall_back(char **argv)
{
	if (server >= 0)
		close(server);
	if (pending) {
		signal(pending, SIG_DFL);
		raise(pending);
	}
	if (!strcmp(argv[1], "--preload"))
		exit(0);
	run_python3(argv);
}

static void send_kill(int sig)
{
	char msg[] = "kill 00";

	msg[5] = '0' + sig / 10;
	msg[6] = '0' + sig % 10;
	send(server, msg, sizeof(msg) - 1, MSG_NOSIGNAL);
}

/* Passed on: the server signals the program. send() is async-signal-safe. */
static void forward(int sig)
{
	int saved = errno;

	pending = sig;
	if (sent)
		send_kill(sig);
	errno = saved;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = forward }, old;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(passed_on); i++) {
		if (sigaction(passed_on[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		sigaction(passed_on[i], &sa, NULL);
	}
}

static int connect_server(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	int fd;

	if (n >= sizeof(addr.sun_path))
		return -1;
	memcpy(addr.sun_path, path, n + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct request {
	char buf[REQUEST_MAX];
	size_t len;
	int fds[MAX_FDS];
	int nfds;
};

/* Append S and its NUL; false when it does not fit. */
static bool put(struct request *r, const char *s)
{
	size_t n = strlen(s) + 1;

	if (r->len + n > sizeof(r->buf))
		return false;
	memcpy(r->buf + r->len, s, n);
	r->len += n;
	return true;
}

static bool put_int(struct request *r, int v)
{
	char s[16];

	snprintf(s, sizeof(s), "%d", v);
	return put(r, s);
}

/* Our open descriptors but the server's socket, as the program's. */
static bool open_fds(struct request *r)
{
	struct dirent *e;
	DIR *d;
	int fd;

	d = opendir("/proc/self/fd");
	if (!d)
		return false;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd == dirfd(d) || fd == server)
			continue;
		if (r->nfds == MAX_FDS) {
			closedir(d);
			return false;
		}
		r->fds[r->nfds++] = fd;
	}
	closedir(d);
	return true;
}

static bool build_request(struct request *r, int argc, char **argv)
{
	char cwd[4096];
	char **e;
	int i;

	if (!getcwd(cwd, sizeof(cwd)) || !open_fds(r))
		return false;
	if (!put(r, cwd) || !put_int(r, argc - 1))
		return false;
	for (i = 1; i < argc; i++)
		if (!put(r, argv[i]))
			return false;
	if (!put_int(r, r->nfds))
		return false;
	for (i = 0; i < r->nfds; i++)
		if (!put_int(r, r->fds[i]))
			return false;
	for (e = environ; *e; e++)
		if (!put(r, *e))
			return false;
	return true;
}

/* The request with our descriptors; all or nothing (SOCK_SEQPACKET). */
static bool send_request(struct request *r)
{
	char control[CMSG_SPACE(sizeof(r->fds))] = { 0 };
	struct iovec iov = { .iov_base = r->buf, .iov_len = r->len };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = CMSG_SPACE(r->nfds * sizeof(int)),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
	ssize_t n;

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(r->nfds * sizeof(int));
	memcpy(CMSG_DATA(cmsg), r->fds, r->nfds * sizeof(int));
	do
		n = sendmsg(server, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)r->len;
}

/*
 * The server's answer: "exit N" or "signal N", end as the program did;
 * "refused" (we are not in its shoes: tests/pyfork/server.py), run it
 * ourselves.
 */
static void __noreturn finish(const char *reply, char **argv)
{
	int n;

	if (!strcmp(reply, "refused"))
		fall_back(argv);
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
	static struct request request;
	const char *path = getenv("HVT_PYFORK");
	char reply[64];
	ssize_t n;

	if (argc < 2)
		usage_exit();
	if (!strcmp(argv[1], "--preload") && argc != 4)
		usage_exit();
	/* -c and a script only: python3 itself for its other options. */
	if (argv[1][0] == '-' && strcmp(argv[1], "-c") && strcmp(argv[1], "--preload"))
		run_python3(argv);
	if (!strcmp(argv[1], "-c") && argc < 3)
		run_python3(argv);
	if (!path || !*path)
		fall_back(argv);
	server = connect_server(path);
	if (server < 0 || !build_request(&request, argc, argv))
		fall_back(argv);
	catch_signals();
	if (!send_request(&request))
		fall_back(argv);
	sent = 1;
	if (pending)
		send_kill(pending);
	do
		n = recv(server, reply, sizeof(reply) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		fprintf(stderr, "pyfork: %s went away\n", path);
		return 125;
	}
	reply[n] = '\0';
	finish(reply, argv);
}
