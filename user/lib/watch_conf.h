/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings of `hvctl watch`, from its command line (cmd_watch.c) or
 * from the watch.* keys of hvtrace.conf (config_file.c): one parser for
 * both, so a value means the same wherever it is written. A setting is
 * named as its option without the dashes ("stall" for --stall; "dir" is
 * -o) and, in the file, as that name after "watch.".
 */
#ifndef HVCTL_WATCH_CONF_H
#define HVCTL_WATCH_CONF_H

#include <stdbool.h>
#include <stdint.h>

#include "client.h"

enum hvc_watch_key {
	HVC_WK_EXIT,
	HVC_WK_ON,
	HVC_WK_HALT,
	HVC_WK_STALL,
	HVC_WK_PREEMPTED,
	HVC_WK_IRQ_LATENCY,
	HVC_WK_GUEST_MARK,
	HVC_WK_HISTORY,
	HVC_WK_POST,
	HVC_WK_RATE,
	HVC_WK_RATE_TOTAL,
	HVC_WK_VM,
	HVC_WK_VCPU,
	HVC_WK_DIR,
	HVC_WK_KEEP,
	HVC_WK_MAX_SIZE,
	HVC_WK_NR
};

/* "exit", "on", ..., "max-size": the names, by key. */
extern const char *const hvc_watch_key_names[HVC_WK_NR];
/* The key named NAME, or -1. */
int hvc_watch_key(const char *name);

#define HVC_WATCH_DIR_LEN	4096
/*
 * What the directory of captures holds at most unless told otherwise
 * ("none" lifts a limit): a watch left running must not fill its disk.
 * At the default rates, 1000 captures are a quarter of an hour of
 * storms; a capture of 256 records is tens of KiB.
 */
#define HVC_WATCH_KEEP_DEFAULT		1000
#define HVC_WATCH_MAX_KIB_DEFAULT	(1ULL << 20)	/* 1 GiB */

struct hvc_watch_conf {
	struct hvc_watch w;		/* what WATCH_START sends */
	bool halt;			/* halt time counts (w.halt_triggers) */
	char dir[HVC_WATCH_DIR_LEN];	/* "": not given */
	uint64_t keep, max_kib;		/* 0: none (given) or the default */
	unsigned int given;		/* 1 << HVC_WK_* */
	/* VM names only checked, their pid 0: never to arm (config_file.h) */
	bool names_unresolved;
	char from[HVC_WK_NR][32];	/* the option or key each came as */
	/* What the user typed, by HVTRACE_WATCH_*: w.typed points here. */
	char typed[HVC_WATCH_TYPED][80];
};

/*
 * Set KEY from V as it was typed for NAME: the option ("--stall") or the
 * file's key ("watch.stall"). V is NULL for a flag given alone (--halt,
 * --guest-mark); the file writes "include" and "any" for them. Set again,
 * a key replaces all it set before. 0, or -EINVAL with a message naming
 * NAME and V.
 */
int hvc_watch_conf_set(struct hvc_watch_conf *c, enum hvc_watch_key key,
		       const char *name, const char *v);

/*
 * The settings together: --on needs --exit, --halt needs --exit or
 * --stall (and with --exit alone, the total); WHOLE (the watch is to be
 * armed) needs a trigger and a directory too. 0, with C->w ready for
 * hvc_watch_start(); or -EINVAL with the message, *BAD the key at fault.
 */
int hvc_watch_conf_check(struct hvc_watch_conf *c, bool whole,
			 enum hvc_watch_key *bad);

/* --keep and --max-size where neither option nor file gave them. */
void hvc_watch_conf_defaults(struct hvc_watch_conf *c);

#endif /* HVCTL_WATCH_CONF_H */
