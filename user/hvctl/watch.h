/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl watch's directory of captures (watch_dir.c), apart from the
 * command (cmd_watch.c). Each capture is a trace directory of its own,
 * written as `hvctl record` writes one, plus its header and story:
 *
 *   DIR/20261202T120133.123Z-vm3-vcpu2/    UTC time of the trigger
 *       metadata, stream_<cpu>             the CTF trace
 *       hvtrace/host.json
 *       hvtrace/capture.json               the header and the story
 *       hvtrace/summary.txt                the story line, the evidence
 *
 * (capture.json and summary.txt sit in hvtrace/ because CTF readers take
 * every plain file beside metadata for a stream.) A capture is built in
 * DIR/.tmp-<name> and renamed into place whole, so DIR only ever holds
 * complete captures; a .tmp-* left by a killed run is removed at start.
 */
#ifndef HVCTL_WATCH_H
#define HVCTL_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture_story.h"
#include "client.h"
#include "output.h"
#include "trace_write.h"

struct watch_dir {
	const char *dir;
	unsigned int nr_cpus;		/* streams of a capture's trace */
	const struct trace_env *env;	/* clock_offset_ns: local_clock to UTC */
	uint64_t keep;			/* captures kept at most, 0: any */
	uint64_t max_kib;		/* their size at most, 0: any */
};

/* The longest capture name, and a path of one. */
#define WATCH_NAME_LEN	64
#define WATCH_PATH_LEN	4200

/*
 * DIR is a directory we can write captures into (made if missing, its
 * parent must exist; an existing one's mode is left alone): 0, or a
 * negative errno reported. *MADE: it was made here (to be removed should
 * the watch not start).
 */
int watch_dir_open(const struct watch_dir *wd, bool *made);
/*
 * Remove the .tmp-* captures a killed run left unfinished: only once the
 * watch is ours (the module has one owner), so never another running
 * hvctl watch's. 0, or a negative errno reported.
 */
int watch_dir_clean(const struct watch_dir *wd);

/* Whether NAME is a capture's (a name watch_capture_write() gives). */
bool watch_is_capture_name(const char *name);

/*
 * Write CAP with its story ST into WD, renamed into place when whole;
 * its path into PATH (WATCH_PATH_LEN). 0, or a negative errno reported
 * with nothing left behind (-ENOSPC/-EDQUOT: the disk is full).
 */
int watch_capture_write(const struct watch_dir *wd,
			const struct hvc_capture *cap,
			const struct capture_story *st, char *path);

/*
 * Remove the oldest captures beyond WD's keep and max_kib (never the
 * newest one, nor anything whose name is not a capture's): how many.
 */
unsigned int watch_prune(const struct watch_dir *wd);

#endif /* HVCTL_WATCH_H */
