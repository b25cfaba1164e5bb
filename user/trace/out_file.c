// SPDX-License-Identifier: GPL-2.0
/*
 * Output files: the policy is in out_file.h. The trace directory check
 * walks up from the directory the output lands in (resolved, so links
 * and ".." are gone) by opening ".." until the root, comparing device and
 * inode with the trace directory's at each step; and compares an
 * existing output file with every entry of the trace and its side-file
 * directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "out_file.h"
#include "output.h"
#include "trace_format.h"

/* Directories walked up before giving up (a loop, or a deep bind mount). */
#define MAX_DEPTH	4096

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is DIR the directory T or below it? */
static bool below(const char *dir, const struct stat *t)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	bool found = false;
	struct stat st, up;

	for (int i = 0; fd >= 0 && i < MAX_DEPTH; i++) {
		int parent;

		if (fstat(fd, &st))
			break;
		if (same_file(&st, t)) {
			found = true;
			break;
		}
		parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) || same_file(&up, &st)) {
			if (parent >= 0)
				close(parent);
			break;
		}
		close(fd);
		fd = parent;
	}
	if (fd >= 0)
		close(fd);
	return found;
}

/* Is ST one of the files in directory DIR (links followed)? */
static bool in_dir(const char *dir, const struct stat *st)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat x;
	bool found = false;

	while (d && !found && (e = readdir(d)))
		found = !fstatat(dirfd(d), e->d_name, &x, 0) &&
			S_ISREG(x.st_mode) && same_file(&x, st);
	if (d)
		closedir(d);
	return found;
}

/*
 * 0 when a file in directory DIR (ST: the file, when it exists) is no
 * part of the trace TRACE; else -EINVAL with the error sink told.
 */
static int check_trace(const struct out_file *o, const char *dir,
		       const struct stat *st, const char *trace)
{
	char side[PATH_MAX + 16];
	struct stat t;

	if (!trace || stat(trace, &t) || !S_ISDIR(t.st_mode))
		return 0;
	if (below(dir, &t))
		return hvc_err(EINVAL, "writing %s: that is inside the trace "
			       "directory %s (write it elsewhere)", o->name,
			       trace);
	snprintf(side, sizeof(side), "%s/" TRACE_SIDE_DIR, trace);
	if (st && (in_dir(trace, st) || in_dir(side, st)))
		return hvc_err(EINVAL, "writing %s: that is a file of the "
			       "trace %s", o->name, trace);
	return 0;
}

static int fail(struct out_file *o, int err)
{
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return hvc_err(err, "writing %s: %s", o->name, strerror(err));
}

/*
 * The stream on FD (from open(), -1 with errno on failure); when that
 * fails, FD closed and CREATED (a file made for it) removed.
 */
static int adopt_fd(struct out_file *o, int fd, const char *created)
{
	int e;

	if (fd < 0)
		return fail(o, errno);
	o->f = fdopen(fd, "w");
	if (o->f)
		return 0;
	e = errno;
	close(fd);
	if (created)
		unlink(created);
	return fail(o, e);
}

/* Write in place what is no regular file: /dev/null, a FIFO, a tty. */
static int open_in_place(struct out_file *o, const char *trace)
{
	char *path = realpath(o->name, NULL);
	int fd, ret;

	if (!path)
		return fail(o, errno);
	ret = check_trace(o, dirname(path), NULL, trace);
	free(path);
	if (ret)
		return ret;
	fd = open(o->name, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	return adopt_fd(o, fd, NULL);
}

/* TARGET's directory and name, and a temporary there: ".NAME.XXXXXX". */
static int open_temporary(struct out_file *o, const char *trace,
			  const struct stat *st)
{
	char *copy = strdup(o->target), *copy2 = strdup(o->target);
	const char *dir, *base;
	int fd, ret = 0;

	if (!copy || !copy2) {
		free(copy);
		free(copy2);
		return fail(o, ENOMEM);
	}
	dir = dirname(copy);
	base = basename(copy2);
	ret = check_trace(o, dir, st, trace);
	if (!ret && asprintf(&o->tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		o->tmp = NULL;
		ret = fail(o, ENOMEM);
	}
	free(copy);
	free(copy2);
	if (ret)
		return ret;
	fd = mkostemp(o->tmp, O_CLOEXEC);
	return adopt_fd(o, fd, o->tmp);
}

int out_file_open(struct out_file *o, const char *name, const char *trace)
{
	struct stat st, lst;
	char *copy, *dir;

	*o = (struct out_file){ .name = name };
	if (!strcmp(name, "-")) {
		o->f = stdout;
		return 0;
	}
	if (!stat(name, &st)) {
		if (S_ISDIR(st.st_mode))
			return fail(o, EISDIR);
		if (!S_ISREG(st.st_mode))
			return open_in_place(o, trace);
		/* As "> FILE" would: a file we may not write stays. */
		if (faccessat(AT_FDCWD, name, W_OK, AT_EACCESS))
			return fail(o, errno);
		o->target = realpath(name, NULL);
		if (!o->target)
			return fail(o, errno);
		o->existed = true;
		o->mode = st.st_mode & 0777;
		o->uid = st.st_uid;
		o->gid = st.st_gid;
		return open_temporary(o, trace, &st);
	}
	if (errno != ENOENT)
		return fail(o, errno);
	/* A link to nowhere: "> FILE" would create its target; we do not. */
	if (!lstat(name, &lst))
		return hvc_err(ENOENT, "writing %s: a symbolic link to nothing",
			       name);
	copy = strdup(name);
	dir = copy ? realpath(dirname(copy), NULL) : NULL;
	free(copy);
	copy = strdup(name);
	if (!dir || !copy || asprintf(&o->target, "%s/%s", dir,
				      basename(copy)) < 0) {
		int e = dir && copy ? ENOMEM : errno;

		o->target = NULL;
		free(dir);
		free(copy);
		return fail(o, e);
	}
	free(dir);
	free(copy);
	return open_temporary(o, trace, NULL);
}

int out_file_commit(struct out_file *o)
{
	int err = 0, fd;

	if (o->f == stdout) {
		err = -out_check_stdout();
		return err ? hvc_err(err, "writing standard output: %s",
				     strerror(err)) : 0;
	}
	fd = fileno(o->f);
	if (fflush(o->f))
		err = errno;
	else if (ferror(o->f))
		err = EIO;
	if (!err && o->tmp && o->existed) {
		/*
		 * Root replacing someone's file gives it back to them; where
		 * that fails (no owners on the file system), the mode holds.
		 */
		if (!geteuid() && fchown(fd, o->uid, o->gid))
			errno = 0;
		if (fchmod(fd, o->mode))
			err = errno;
	}
	if (fclose(o->f) && !err)
		err = errno;
	o->f = NULL;
	if (!err && o->tmp && rename(o->tmp, o->target))
		err = errno;
	if (err && o->tmp)
		unlink(o->tmp);
	if (err)
		return fail(o, err);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
	return 0;
}

void out_file_discard(struct out_file *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}
