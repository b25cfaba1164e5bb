// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's textfile for node_exporter's textfile collector
 * (exporter.h). The collector reads the .prom files in DIR whenever it
 * is scraped: the file is written under a name it ignores (a dot file
 * not ending in .prom) and renamed over the old one, so it reads the
 * whole of one write or the whole of the one before. The directory may
 * be writable by a group (fleet.md): the name is a new one each time and
 * the file made by us (O_EXCL), so a file someone left there is never
 * written into, nor its mode changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "exporter.h"

#define TEXTFILE	"hvtrace.prom"
#define TEXTFILE_TMP	".hvtrace.prom.XXXXXX"

int textfile_check(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return hvc_err(errno, "--textfile %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return hvc_err(ENOTDIR, "--textfile %s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return hvc_err(errno, "--textfile %s: %s", dir, strerror(errno));
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= n;
	}
	return 0;
}

/* DIR's entries (the rename) on disk too. */
static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

int textfile_write(const char *dir, const char *text, size_t len)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s/%s", dir, TEXTFILE_TMP) >=
	    (int)sizeof(tmp) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, TEXTFILE) >=
	    (int)sizeof(path))
		return hvc_err(ENAMETOOLONG, "--textfile %s: name too long", dir);
	/* Ours alone: O_EXCL, a name of its own (not a link's either). */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return hvc_err(errno, "writing %s: %s", tmp, strerror(errno));
	/* The collector runs as another user; the umask must not hide it. */
	err = fchmod(fd, 0644) ? -errno : 0;
	if (!err)
		err = write_all(fd, text, len);
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return hvc_err(-err, "writing %s: %s", path, strerror(-err));
	}
	err = sync_dir(dir);
	if (err)
		return hvc_err(-err, "writing %s: %s", path, strerror(-err));
	return 0;
}
