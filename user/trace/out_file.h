/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files the user names for output (report --html FILE, export --perfetto
 * FILE) are theirs, not ours. The policy, in one place:
 *
 *   - A regular FILE, new or existing, is written as a temporary beside
 *     it (".FILE.XXXXXX", mode 0600) and renamed over it once complete:
 *     FILE is never seen half written, and an error leaves it as it was.
 *     A new FILE stays 0600; an existing one keeps its mode (and, written
 *     by root, its owner), and must be writable as for "> FILE". A
 *     symbolic link is followed: the file it names is replaced.
 *   - Anything else that exists (/dev/null, a FIFO, a terminal) is
 *     written in place: never replaced, truncated or chmod'ed.
 *   - Nothing is written in the trace directory being read, or below it,
 *     or over one of its files, by device and inode (a symbolic link, a
 *     hard link or ".." does not get around it).
 *   - "-" is standard output.
 *
 * Every failure tells the error sink (err.h) "writing FILE: <reason>"
 * and returns a negative errno; hvctl exits 1. main() checks standard
 * output the same way after every command (out_check_stdout(), output.h).
 */
#ifndef HVCTL_OUT_FILE_H
#define HVCTL_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct out_file {
	FILE *f;			/* write here */
	const char *name;		/* as the user gave it */
	char *tmp;			/* renamed onto target when done;
					 * NULL: written in place */
	char *target;			/* FILE, symbolic links resolved */
	bool existed;			/* target is a file being replaced */
	mode_t mode;			/* ... and its mode and owner */
	uid_t uid;
	gid_t gid;
};

/*
 * Open NAME for output, refusing the trace directory TRACE (NULL: none).
 * 0, or a negative errno with the error sink told.
 */
int out_file_open(struct out_file *o, const char *name, const char *trace);
/* Flush, close, move into place: 0, or a negative errno (sink told). */
int out_file_commit(struct out_file *o);
/* Give up (an error elsewhere): FILE stays as it was. */
void out_file_discard(struct out_file *o);
#endif /* HVCTL_OUT_FILE_H */
