// SPDX-License-Identifier: GPL-2.0
/*
 * nlrecord.so: records what a program sends on generic netlink sockets,
 * for nlfuzz's corpus of real requests.
 *
 *   LD_PRELOAD=build/fuzz/nlrecord.so NLFUZZ_RECORD=FILE hvctl status
 *
 * appends each sendto()/sendmsg()/send() on an AF_NETLINK socket to FILE
 * as a 32-bit length and the bytes, unchanged; the call itself goes on.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <linux/netlink.h>

static int netlink_socket(int fd)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);

	return !getsockname(fd, (struct sockaddr *)&sa, &len) &&
	       sa.ss_family == AF_NETLINK;
}

static void record(int fd, const struct iovec *iov, size_t n)
{
	const char *path = getenv("NLFUZZ_RECORD");
	uint32_t len = 0;
	char *buf, *p;
	size_t i;
	int out;

	if (!path || !netlink_socket(fd))
		return;
	for (i = 0; i < n; i++)
		len += iov[i].iov_len;
	buf = malloc(sizeof(len) + len);
	if (!buf)
		return;
	memcpy(buf, &len, sizeof(len));
	for (i = 0, p = buf + sizeof(len); i < n; p += iov[i].iov_len, i++)
		memcpy(p, iov[i].iov_base, iov[i].iov_len);
	out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (out >= 0) {
		/* One write: records of concurrent senders stay whole. */
		if (write(out, buf, sizeof(len) + len) < 0)
			(void)0;
		close(out);
	}
	free(buf);
}

ssize_t sendto(int fd, const void *b, size_t n, int flags,
	       const struct sockaddr *to, socklen_t tolen)
{
	static ssize_t (*real)(int, const void *, size_t, int,
			       const struct sockaddr *, socklen_t);
	struct iovec iov = { (void *)b, n };

	if (!real)
		real = dlsym(RTLD_NEXT, "sendto");
	record(fd, &iov, 1);
	return real(fd, b, n, flags, to, tolen);
}

ssize_t send(int fd, const void *b, size_t n, int flags)
{
	static ssize_t (*real)(int, const void *, size_t, int);
	struct iovec iov = { (void *)b, n };

	if (!real)
		real = dlsym(RTLD_NEXT, "send");
	record(fd, &iov, 1);
	return real(fd, b, n, flags);
}

ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	static ssize_t (*real)(int, const struct msghdr *, int);

	if (!real)
		real = dlsym(RTLD_NEXT, "sendmsg");
	record(fd, m->msg_iov, m->msg_iovlen);
	return real(fd, m, flags);
}
