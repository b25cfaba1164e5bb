/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvtrace.conf(5), the configuration file: one setting a line, "KEY
 * VALUE", '#' comments. The module's keys (threshold*, filter.*,
 * buffer.*) make one struct hvc_change that `hvctl apply` sends whole as
 * one SET_CONFIG; the file is declarative, so what it leaves out is the
 * default again. The watch.* and exporter.* keys are read by `hvctl
 * watch --config` and `hvctl exporter --config`. Every value takes the
 * grammar of the option it stands for, parsed by the same code.
 *
 *   threshold 50us                  set-threshold 50us
 *   threshold.on runnable           set-threshold ... --on runnable
 *   threshold.halt include          set-threshold ... --include-halt
 *   threshold.preemptions 1ms       set-threshold 1ms --preemptions
 *   threshold.reason npf 20us       set-threshold 20us --reason npf
 *   filter.pid 4242                 filter pid 4242 (also vcpu, cpu,
 *                                   reason, rip)
 *   buffer.size 64M                 buffer --size 64M
 *   buffer.mode overwrite           buffer --mode overwrite
 *   watch.stall 20ms/50ms           watch --stall 20ms/50ms (every
 *                                   option of watch; "dir" for -o)
 *   exporter.listen 127.0.0.1:9655  exporter --listen (also textfile,
 *                                   interval)
 */
#ifndef HVCTL_CONFIG_FILE_H
#define HVCTL_CONFIG_FILE_H

#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "watch_conf.h"

enum hvc_exporter_key {
	HVC_EK_LISTEN,
	HVC_EK_TEXTFILE,
	HVC_EK_INTERVAL,
	HVC_EK_NR
};

#define HVC_LISTEN_LEN	64
/* How often the exporter writes its textfile, at least (--interval). */
#define HVC_EXPORTER_INTERVAL_MIN_NS	1000000000ULL

/* The exporter.* keys, as checked: what is not given is "" or 0. */
struct hvc_exporter_conf {
	char listen[HVC_LISTEN_LEN];	/* ADDR:PORT as written */
	char textfile[HVC_WATCH_DIR_LEN];
	uint64_t interval_ns;
	unsigned int given;		/* 1 << HVC_EK_* */
};

struct hvc_conf {
	/* The module's whole configuration: one hvc_config_set(). */
	struct hvc_change change;
	struct hvc_watch_conf watch;		/* the watch.* keys given */
	struct hvc_exporter_conf exporter;	/* the exporter.* keys given */
};

/* Errors reported at most; the file's first errors, in order. */
#define HVC_CONF_MAX_ERRORS	20

/*
 * The parts whose VM names a reader looks up (filter.pid; watch.vm and
 * watch.guest-mark): those it uses, now. The others' are checked as
 * written only, their pid 0 (names_unresolved), so a reader is neither
 * failed nor slowed by keys it ignores: the exporter none, watch
 * HVC_CONF_WATCH, apply HVC_CONF_MODULE (--check none: it checks the
 * file, without the module, not which VMs run).
 */
#define HVC_CONF_MODULE	(1U << 0)
#define HVC_CONF_WATCH	(1U << 1)

/*
 * Read and check the whole of PATH ("-": standard input) into CONF
 * (about 40 KiB: better not on the stack), the names of the parts in
 * RESOLVE (HVC_CONF_*) looked up. 0; or -EINVAL with each error reported
 * as "PATH:LINE: what is wrong" (the key, the value), CONF then to be
 * ignored; or a negative errno when PATH cannot be read. The exporter's
 * settings are CONF->exporter.
 */
int hvc_conf_read(const char *path, unsigned int resolve,
		  struct hvc_conf *conf);
/* The same from F, named NAME in messages. */
int hvc_conf_parse(FILE *f, const char *name, unsigned int resolve,
		   struct hvc_conf *conf);

/*
 * CFG, the module's configuration, as the file's text: every module key
 * once (threshold.halt with threshold.on total only), the per-reason
 * thresholds a line each. hvc_conf_parse() of it gives a change that
 * makes CFG again, so that saved, applied and saved again it is the same
 * text.
 */
void hvc_conf_write(FILE *f, const struct hvc_config *cfg);

/* The ids set in the NBITS of W, "0,2-5" ("any" when none). */
void hvc_id_list_put(FILE *f, const uint64_t *w, unsigned int nbits);

/*
 * "ADDR:PORT" as the exporter listens at, typed for NAME: at most
 * HVC_LISTEN_LEN - 1 bytes; ADDR an IPv4 address, an IPv6 one in
 * brackets ("[::1]:9655"), a host name (not resolved here: the exporter
 * does, when it binds) or nothing (every address); PORT 0 to 65535. 0,
 * or -EINVAL with a message naming NAME.
 */
int hvc_check_listen(const char *name, const char *s);

#endif /* HVCTL_CONFIG_FILE_H */
