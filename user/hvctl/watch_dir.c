// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl watch's directory of captures (watch.h): each capture written
 * whole into a temporary directory and renamed into place, the oldest
 * pruned beyond --keep and --max-size.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "hvctl.h"
#include "time_parts.h"
#include "trace_format.h"
#include "vm_ident.h"
#include "watch.h"

#define TMP_PREFIX	".tmp-"

/* Remove PATH and all under it, links never followed. */
static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int rm_tree(const char *path)
{
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* PATH's data on disk: 0 or an errno. */
static int sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (fsync(fd))
		err = errno;
	close(fd);
	return err;
}

static int sync_entry(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_F || flag == FTW_DP ? sync_path(path) : 0;
}

/*
 * A capture on disk before its name says it is whole: a host that
 * crashes (the hosts watched are troubled ones) keeps it whole or not at
 * all. 0 or an errno.
 */
static int sync_tree(const char *path)
{
	int err = nftw(path, sync_entry, 16, FTW_DEPTH | FTW_PHYS);

	return err < 0 ? errno : err;
}

/* N digits at *P (0: one or more), stepped over. */
static bool digits(const char **p, unsigned int n)
{
	const char *s = *p;

	while (**p >= '0' && **p <= '9' && (!n || (unsigned int)(*p - s) < n))
		(*p)++;
	return *p > s && (!n || (unsigned int)(*p - s) == n);
}

static bool lit(const char **p, const char *s)
{
	size_t n = strlen(s);

	if (strncmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

/* "20261202T120133.123Z-vm3-vcpu2", and "-<id>" after a clash. */
bool watch_is_capture_name(const char *name)
{
	const char *p = name;

	if (!digits(&p, 8) || !lit(&p, "T") || !digits(&p, 6) ||
	    !lit(&p, ".") || !digits(&p, 3) || !lit(&p, "Z-vm") ||
	    !digits(&p, 0) || !lit(&p, "-vcpu") || !digits(&p, 0))
		return false;
	if (*p == '-' && (p++, !digits(&p, 0)))
		return false;
	return !*p;
}

int watch_dir_open(const struct watch_dir *wd, bool *made)
{
	char probe[WATCH_PATH_LEN];
	struct stat st;

	*made = !mkdir(wd->dir, 0700);
	if (!*made && errno != EEXIST)
		return hvc_err(errno, "creating %s: %s", wd->dir,
			       strerror(errno));
	if (stat(wd->dir, &st))
		return hvc_err(errno, "%s: %s", wd->dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return hvc_err(ENOTDIR, "%s is not a directory (-o takes the "
			       "directory the captures go into)", wd->dir);
	/* Whether we can: by trying, as root passes access(W_OK) anyway. */
	snprintf(probe, sizeof(probe), "%s/" TMP_PREFIX "probe-%d", wd->dir,
		 (int)getpid());
	if (mkdir(probe, 0700))
		return hvc_err(errno, "cannot write captures into %s: %s",
			       wd->dir, strerror(errno));
	rmdir(probe);
	return 0;
}

int watch_dir_clean(const struct watch_dir *wd)
{
	struct dirent *e;
	DIR *d;

	d = opendir(wd->dir);
	if (!d)
		return hvc_err(errno, "reading %s: %s", wd->dir, strerror(errno));
	while ((e = readdir(d))) {
		char path[WATCH_PATH_LEN];

		if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) ||
		    !watch_is_capture_name(e->d_name + strlen(TMP_PREFIX)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", wd->dir, e->d_name);
		if (!rm_tree(path))
			fprintf(stderr, "note: removed %s, a capture a killed "
				"hvctl watch left unfinished\n", path);
	}
	closedir(d);
	return 0;
}

/* A side file of W written by FN; 0 or a negative errno (reported). */
static int side_file(struct trace_writer *w, const char *tmp, const char *name,
		     void (*fn)(FILE *f, const void *arg), const void *arg)
{
	FILE *f = trace_open_file(w, name);
	int err;

	if (!f)
		return -errno ? -errno : -EIO;
	fn(f, arg);
	err = trace_close_file(f);
	if (err)
		return hvc_err(err, "writing %s/%s: %s", tmp, name,
			       strerror(err));
	return 0;
}

struct json_arg {
	const struct capture_story *st;
	int64_t offset;
	unsigned int trig_cpu;
	uint64_t trig_seq;
};

static void write_capture_json(FILE *f, const void *arg)
{
	const struct json_arg *a = arg;
	struct out o;

	out_init(&o, f, true);
	out_open_object(&o, NULL);
	capture_story_json(&o, a->st, a->offset, NULL, a->trig_cpu,
			   a->trig_seq);
	out_close_object(&o);
	out_end(&o);
}

/* The capture's one VM, named as record names VMs (vms.tsv). */
static void write_vms(FILE *f, const void *arg)
{
	const struct json_arg *a = arg;
	const struct hvc_capture *c = a->st->cap;
	struct vm_ident id;

	vm_ident_read(c->vm_pid, &id);
	fprintf(f, "%u\t%u\t%s\t%s\n", c->vm_pid, c->vm_id, id.name, id.uuid);
}

static void write_summary(FILE *f, const void *arg)
{
	const struct json_arg *a = arg;
	char when[40], line[1024];

	capture_time_text(when, sizeof(when), a->st->cap->trigger_ts, a->offset,
			"%Y-%m-%d %H:%M:%S", " UTC");
	capture_story_line(line, sizeof(line), a->st);
	fprintf(f, "%s %s\n\n", when, line);
	capture_story_evidence(f, a->st);
}

/*
 * The records into W, each CPU's renumbered 1, 2, 3...: the module's
 * seq numbers the vCPU's records, and a reader takes a gap in a CPU's
 * numbers for records lost. The trigger record's new number in *A.
 */
static int write_records(struct trace_writer *w, const struct watch_dir *wd,
			 const struct capture_story *st, struct json_arg *a)
{
	const struct hvc_capture *c = st->cap;
	uint64_t *seq = calloc(wd->nr_cpus ? wd->nr_cpus : 1, sizeof(*seq));
	int ret = 0;

	if (!seq)
		return hvc_err(ENOMEM, "out of memory");
	for (unsigned int i = 0; i < c->nr_events && !ret; i++) {
		struct hvtrace_event ev = c->events[i];

		if (ev.cpu_entry < wd->nr_cpus)
			ev.seq = ++seq[ev.cpu_entry];
		if (st->has_trigger && i == st->trig) {
			a->trig_cpu = ev.cpu_entry;
			a->trig_seq = ev.seq;
		}
		ret = trace_append(w, &ev);
	}
	free(seq);
	return ret;
}

int watch_capture_write(const struct watch_dir *wd,
			const struct hvc_capture *cap,
			const struct capture_story *st, char *path)
{
	char name[WATCH_NAME_LEN], when[32], tmp[WATCH_PATH_LEN];
	struct json_arg a = { .st = st, .offset = wd->env->clock_offset_ns };
	struct trace_writer *w;
	struct stat sb;
	int ret;

	capture_time_text(when, sizeof(when), cap->trigger_ts,
			wd->env->clock_offset_ns, "%Y%m%dT%H%M%S", "Z");
	snprintf(name, sizeof(name), "%s-vm%u-vcpu%u", when, cap->vm_id,
		 cap->vcpu_id);
	snprintf(path, WATCH_PATH_LEN, "%s/%s", wd->dir, name);
	/* Two in one millisecond: the second takes its id too. */
	if (!lstat(path, &sb)) {
		snprintf(name + strlen(name), sizeof(name) - strlen(name),
			 "-%" PRIu64, cap->id);
		snprintf(path, WATCH_PATH_LEN, "%s/%s", wd->dir, name);
	}
	snprintf(tmp, sizeof(tmp), "%s/" TMP_PREFIX "%s", wd->dir, name);
	w = trace_create(tmp, wd->nr_cpus, wd->env);
	if (!w)
		return -errno ? -errno : -EIO;
	ret = write_records(w, wd, st, &a);
	if (!ret)
		ret = trace_write_host(w, wd->env);
	if (!ret)
		ret = side_file(w, tmp, TRACE_SIDE_DIR "/capture.json",
				write_capture_json, &a);
	if (!ret)
		ret = side_file(w, tmp, TRACE_SIDE_DIR "/vms.tsv", write_vms, &a);
	if (!ret)
		ret = side_file(w, tmp, TRACE_SIDE_DIR "/summary.txt",
				write_summary, &a);
	/* After a failure nothing more is written (nor said twice). */
	if (!ret)
		ret = trace_finish(w);
	else
		trace_discard(w);
	if (!ret) {
		int err = sync_tree(tmp);

		if (err)
			ret = hvc_err(err, "writing %s to disk: %s", tmp,
				      strerror(err));
	}
	if (!ret && rename(tmp, path))
		ret = hvc_err(errno, "renaming %s to %s: %s", tmp, path,
			      strerror(errno));
	/* The rename too. */
	if (!ret)
		sync_path(wd->dir);
	if (ret)
		rm_tree(tmp);
	return ret;
}

/* A capture in DIR, for pruning. */
struct kept {
	char name[WATCH_NAME_LEN];
	uint64_t bytes;
};

static uint64_t tree_bytes;

static int add_bytes(const char *path, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (flag == FTW_F)
		tree_bytes += st->st_size;
	return 0;
}

static int cmp_kept(const void *a, const void *b)
{
	return strcmp(((const struct kept *)a)->name,
		      ((const struct kept *)b)->name);
}

/* The captures in DIR, oldest first (their names sort by time). */
static struct kept *list_captures(const char *dir, unsigned int *n)
{
	struct kept *k = NULL, *q;
	unsigned int room = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	*n = 0;
	while (d && (e = readdir(d))) {
		char path[WATCH_PATH_LEN];

		if (!watch_is_capture_name(e->d_name) ||
		    strlen(e->d_name) >= WATCH_NAME_LEN)
			continue;
		if (*n == room) {
			room = room ? 2 * room : 64;
			q = realloc(k, room * sizeof(*k));
			if (!q)
				break;
			k = q;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		tree_bytes = 0;
		nftw(path, add_bytes, 16, FTW_PHYS);
		memcpy(k[*n].name, e->d_name, strlen(e->d_name) + 1);
		k[(*n)++].bytes = tree_bytes;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(k, *n, sizeof(*k), cmp_kept);
	return k;
}

unsigned int watch_prune(const struct watch_dir *wd)
{
	unsigned int n, removed = 0;
	struct kept *k;
	uint64_t total = 0;

	if (!wd->keep && !wd->max_kib)
		return 0;
	k = list_captures(wd->dir, &n);
	for (unsigned int i = 0; i < n; i++)
		total += k[i].bytes;
	/* The newest stays, whatever its size. */
	for (unsigned int i = 0; i + 1 < n; i++) {
		char path[WATCH_PATH_LEN];
		bool many = wd->keep && n - i > wd->keep;
		bool big = wd->max_kib && total / 1024 >= wd->max_kib &&
			   total > wd->max_kib * 1024;

		if (!many && !big)
			break;
		snprintf(path, sizeof(path), "%s/%s", wd->dir, k[i].name);
		if (rm_tree(path)) {
			hvc_err(errno, "pruning %s: %s", path, strerror(errno));
			break;
		}
		total -= k[i].bytes;
		removed++;
	}
	free(k);
	return removed;
}
