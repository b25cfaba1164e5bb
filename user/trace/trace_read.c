// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a trace directory back: the per-CPU streams, each read a few
 * packets at a time into its own buffer, merged by event time with a
 * binary min-heap. Memory depends on the number of streams, never on the
 * length of the trace.
 *
 * What can be wrong with a trace, and what the reader does about it
 * (trace_read.h; the rules themselves are trace_check.c's):
 *
 *   metadata missing, not ours, too large   trace_open() fails
 *   stream file not regular, unreadable     skipped (a warning)
 *   read error in a stream                  the rest of it skipped
 *   torn packet at a stream's end           ignored (a killed recorder)
 *   packet failing the checks               skipped whole (a warning)
 *   event breaking a plausibility rule      returned, counted (a warning)
 *   vms.tsv missing, not regular, too large no names (a warning)
 *   vmm-map.tsv not regular, too large      no device names (a warning);
 *                                           missing: none asked (record
 *                                           --qmp), nothing said
 *
 * With TRACE_STRICT every "(a warning)" but vms.tsv's is an error. Side
 * files and the metadata are read only if stat() and then fstat() of a
 * non-blocking open say they are regular files, and at most SIDE_MAX of
 * them: a FIFO never blocks the reader, /dev/zero never fills its memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_check.h"
#include "trace_read.h"
#include "vmm_map.h"

/*
 * Reading 32 packets per call rather than one takes about a third off the
 * reader's CPU time (40 instead of 55 ns per event, page cache warm). But
 * every stream has a buffer of its own: spread a fixed budget over the
 * streams, between one packet and READ_MAX_PACKETS each.
 */
#define READ_BUDGET		(16U << 20)
#define READ_MAX_PACKETS	32U
/* Loss ranges kept per stream before the closest two are merged. */
#define MAX_LOSS_RANGES		512
/*
 * The most of the metadata (ours is some 10 KiB) or a side file read;
 * anything larger is not ours.
 */
#define SIDE_MAX		(1U << 20)
#define SIDE_MAX_TEXT		"1 MiB"
/* A loss range bounded by no packet on that side (see trace_read.h). */
#define LOSS_OPEN_BEGIN		0
#define LOSS_OPEN_END		UINT64_MAX
/* Streams a damaged-packets warning names, the most damaged first. */
#define WARN_STREAMS		8

#define EV_HEADER_SIZE		sizeof(struct trace_event_header)
#define EV_TS_OFF		offsetof(struct trace_event_header, timestamp)
#define PKT_CONTEXT_OFF		sizeof(struct trace_packet_header)

struct loss_range {
	uint64_t begin, end, lost;
};

struct stream {
	int fd;
	unsigned int index;		/* N of stream_N: its CPU */
	bool eof;			/* nothing more to read */

	uint8_t *buf;
	size_t chunk;			/* bytes asked of each read() */
	size_t len;			/* whole packets in buf, bytes */
	size_t next_pkt;		/* offset in buf of the next packet */
	uint64_t buf_off;		/* file offset of buf[0] */
	size_t tail;			/* bytes of a torn packet after len */

	/* The current packet's events: *ev is the next one to return. */
	const uint8_t *ev, *ev_end;
	uint64_t ts;			/* timestamp of *ev */

	uint64_t discarded;		/* events_discarded last seen */
	uint64_t prev_end;		/* end of the last packet with events */
	bool had_events;
	uint64_t damaged;		/* packets skipped */
	struct loss_range *loss;
	unsigned int nr_loss;
};

/* Words for the first problem of each kind, for its warning. */
#define FIRST_LEN		512

struct trace_reader {
	char *dir;
	bool strict;
	bool any_order;
	uint8_t uuid[16];
	struct stream *streams;
	unsigned int nr_streams;
	struct stream **heap;
	unsigned int heap_len;
	bool started;
	bool failed;

	struct trace_vm *vms;		/* in vms.tsv order */
	unsigned int nr_vms;
	const struct trace_vm **by_pid, **by_id;
	struct vmm_map devices;		/* vmm-map.tsv, sorted */

	struct trace_info info;
	uint64_t odd[TRACE_NR_ODD];	/* implausible events per rule */
	char first_damage[FIRST_LEN];
	char first_odd[FIRST_LEN];
	char first_unread[FIRST_LEN];
	char side_warn[FIRST_LEN];
	char err[512];
};

/* ---- errors and problems ---- */

static int fail(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->failed = true;
	return -1;
}

/*
 * A problem of one kind (a damaged packet, an implausible event, a stream
 * not read): with TRACE_STRICT an error, -1; else 0, and its words kept
 * in FIRST if it is the first of its kind. The caller counts it.
 */
static int problem(struct trace_reader *r, char *first, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int problem(struct trace_reader *r, char *first, const char *fmt, ...)
{
	char msg[FIRST_LEN];
	va_list ap;

	if (!r->strict && *first)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (r->strict)
		return fail(r, "%s", msg);
	memcpy(first, msg, sizeof(msg));
	return 0;
}

/* Side files have one warning: the last said (vms.tsv is the only one). */
static void side_warning(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void side_warning(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->side_warn, sizeof(r->side_warn), fmt, ap);
	va_end(ap);
}

const char *trace_error(const struct trace_reader *r)
{
	return r->err;
}

/* Room for one more than N elements of SIZE in *ARR, *CAP of them. */
static int grow(struct trace_reader *r, void **arr, unsigned int n,
		unsigned int *cap, size_t size)
{
	void *p;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 16;
	p = realloc(*arr, (size_t)*cap * size);
	if (!p)
		return fail(r, "out of memory");
	*arr = p;
	return 0;
}

/* ---- side files ---- */

static const char not_regular[] = "not a regular file";
static const char too_large[] = "larger than " SIDE_MAX_TEXT;

/*
 * PATH opened for reading if it is a regular file, its stat in *ST; else
 * -1 and WHY (errno ENOENT when it does not exist). Anything else is
 * never opened (a device may act on open) nor, racing a rename, read:
 * fstat() after a non-blocking open (a FIFO does not block that).
 */
static int open_regular(const char *path, struct stat *st, const char **why)
{
	int fd;

	if (stat(path, st)) {
		*why = strerror(errno);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		*why = not_regular;
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		*why = not_regular;
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * The whole of PATH, NUL-terminated after *LENP bytes, if it is a
 * regular file of at most SIDE_MAX bytes; else NULL and WHY.
 */
static char *read_side(const char *path, size_t *lenp, const char **why)
{
	struct stat st;
	size_t n = 0, cap;
	int err = 0, fd = open_regular(path, &st, why);
	char *buf;

	if (fd < 0)
		return NULL;
	if (st.st_size > SIDE_MAX) {
		close(fd);
		*why = too_large;
		errno = EFBIG;
		return NULL;
	}
	cap = st.st_size;
	buf = malloc(cap + 2);
	if (!buf) {
		close(fd);
		*why = strerror(ENOMEM);
		return NULL;
	}
	/* One byte more than its size: the file must not have grown. */
	while (n < cap + 1) {
		ssize_t got = read(fd, buf + n, cap + 1 - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err = errno;
		if (got <= 0)
			break;
		n += got;
	}
	close(fd);
	if (err || n != cap) {
		*why = err ? strerror(err) : n > cap ?
		       "it grew while being read" : "it shrank while being read";
		free(buf);
		errno = err ? err : EIO;
		return NULL;
	}
	buf[n] = '\0';
	*lenp = n;
	return buf;
}

/* ---- metadata ---- */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" at S, up to the closing quote. */
static bool parse_uuid(const char *s, uint8_t *uuid)
{
	unsigned int n = 0;

	for (; *s && *s != '"'; s++) {
		int hi, lo;

		if (*s == '-')
			continue;
		hi = hex_digit(s[0]);
		lo = hi < 0 ? -1 : hex_digit(s[1]);
		if (lo < 0 || n == 16)
			return false;
		uuid[n++] = hi << 4 | lo;
		s++;
	}
	return *s == '"' && n == 16;
}

/*
 * Find `uuid = "..."` inside the `trace { ... };` block. The writer's
 * TSDL has no nested blocks there but the packet.header struct, whose
 * "};" would end a naive scan early, so search to the first "\n};".
 */
static bool metadata_uuid(const char *text, uint8_t *uuid)
{
	const char *t = strstr(text, "\ntrace {");
	const char *end, *u;

	if (!t)
		return false;
	end = strstr(t, "\n};");
	u = strstr(t, "uuid = \"");
	if (!u || (end && u > end))
		return false;
	return parse_uuid(u + strlen("uuid = \""), uuid);
}

/* hvtrace_format in the env block; 1 for traces from before it existed. */
static int metadata_format(const char *text)
{
	const char *f = strstr(text, "\n\thvtrace_format = ");
	long v;

	if (!f)
		return 1;
	v = strtol(f + strlen("\n\thvtrace_format = "), NULL, 10);
	return v > 0 && v < 1000 ? (int)v : -1;
}

static int load_metadata(struct trace_reader *r)
{
	static const char first[] = "/* CTF 1.8 */\n";
	char path[4096];
	const char *why;
	size_t len;
	char *text;
	int ret = 0, format;

	snprintf(path, sizeof(path), "%s/metadata", r->dir);
	text = read_side(path, &len, &why);
	if (!text && errno == ENOENT)
		return fail(r, "not an hvtrace trace (no metadata): %s",
			    r->dir);
	if (!text && (why == not_regular || why == too_large))
		return fail(r, "not an hvtrace trace (%s is %s)", path, why);
	if (!text)
		return fail(r, "reading %s: %s", path, why);
	if (strncmp(text, first, strlen(first)))
		ret = fail(r, "not an hvtrace trace (%s is not CTF 1.8 text metadata)",
			   path);
	else if (!strstr(text, "tracer_name = \"hvtrace\";"))
		ret = fail(r, "not an hvtrace trace (%s names another tracer)",
			   path);
	else if ((format = metadata_format(text)) < 1)
		ret = fail(r, "%s: hvtrace_format is not a version number",
			   path);
	else if (format < TRACE_FORMAT_OLDEST || format > TRACE_FORMAT)
		ret = fail(r, "%s: trace format %d, from %s hvctl; this one "
			   "reads formats %d to %d (babeltrace2 reads any)",
			   r->dir, format, format < TRACE_FORMAT ?
			   "an older (before ABI 2)" : "a newer",
			   TRACE_FORMAT_OLDEST, TRACE_FORMAT);
	else if (!metadata_uuid(text, r->uuid))
		ret = fail(r, "%s: no trace uuid", path);
	free(text);
	return ret;
}

/* ---- vms.tsv ---- */

/* "pid<TAB>vm_id<TAB>name[<TAB>uuid]": false when LINE is not that. */
static bool parse_vm_line(char *line, struct trace_vm *vm)
{
	unsigned long pid, id;
	char *p = line, *end;

	line[strcspn(line, "\r\n")] = '\0';
	errno = 0;
	pid = strtoul(p, &end, 10);
	if (end == p || *end != '\t' || errno || pid > UINT32_MAX)
		return false;
	p = end + 1;
	id = strtoul(p, &end, 10);
	if (end == p || *end != '\t' || errno || id > UINT32_MAX)
		return false;
	vm->pid = pid;
	vm->vm_id = id;
	p = end + 1;
	end = p + strcspn(p, "\t");
	snprintf(vm->name, sizeof(vm->name), "%.*s", (int)(end - p), p);
	/* Traces before 0.2 have no UUID column. */
	snprintf(vm->uuid, sizeof(vm->uuid), "%s", *end ? end + 1 : "");
	return true;
}

bool trace_side_vm(const char *dir, uint32_t vm_id, struct trace_vm *vm)
{
	char *text, *line, *save = NULL;
	const char *why;
	bool found = false;
	size_t len;

	text = trace_read_side(dir, "vms.tsv", &len, &why);
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = parse_vm_line(line, vm) && vm->vm_id == vm_id;
	free(text);
	return found;
}

static int cmp_by_pid(const void *a, const void *b)
{
	const struct trace_vm *x = *(const struct trace_vm *const *)a;
	const struct trace_vm *y = *(const struct trace_vm *const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x < y ? -1 : x > y;	/* the first listed wins */
}

static int cmp_by_id(const void *a, const void *b)
{
	const struct trace_vm *x = *(const struct trace_vm *const *)a;
	const struct trace_vm *y = *(const struct trace_vm *const *)b;

	if (x->vm_id != y->vm_id)
		return x->vm_id < y->vm_id ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int index_vms(struct trace_reader *r)
{
	unsigned int n = r->nr_vms;

	r->by_pid = malloc((n + 1) * sizeof(*r->by_pid));
	r->by_id = malloc((n + 1) * sizeof(*r->by_id));
	if (!r->by_pid || !r->by_id)
		return fail(r, "out of memory");
	for (unsigned int i = 0; i < n; i++)
		r->by_pid[i] = r->by_id[i] = &r->vms[i];
	qsort(r->by_pid, n, sizeof(*r->by_pid), cmp_by_pid);
	qsort(r->by_id, n, sizeof(*r->by_id), cmp_by_id);
	return 0;
}

char *trace_read_side(const char *dir, const char *name, size_t *lenp,
		      const char **why)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/" TRACE_SIDE_DIR "/%s", dir, name);
	return read_side(path, lenp, why);
}

/*
 * VM names only decorate the output: a missing or unreadable file, or a
 * line that does not parse (a name with a newline in it), must not make
 * the trace unreadable; each is a warning. Traces recorded before the side
 * files moved to TRACE_SIDE_DIR have vms.tsv beside the streams.
 */
static int load_vms(struct trace_reader *r)
{
	unsigned int cap = 0, lines = 0, bad = 0, first_bad = 0;
	char path[4096], *text, *line, *end, *nl = NULL;
	struct trace_vm vm;
	const char *why;
	size_t len;

	snprintf(path, sizeof(path), "%s/" TRACE_SIDE_DIR "/vms.tsv", r->dir);
	text = read_side(path, &len, &why);
	if (!text && errno == ENOENT) {
		char old[4096];

		snprintf(old, sizeof(old), "%s/vms.tsv", r->dir);
		text = read_side(old, &len, &why);
		if (text || errno != ENOENT)
			memcpy(path, old, sizeof(path));
	}
	if (!text && errno == ENOENT)
		side_warning(r, "no %s (was the recording cut short?): VMs "
			     "are shown by id", path);
	else if (!text)
		side_warning(r, "%s: %s, not read: VMs are shown by id", path,
			     why);
	end = text ? text + len : NULL;
	for (line = text; text && line < end; line = nl ? nl + 1 : end) {
		nl = memchr(line, '\n', end - line);
		if (nl)
			*nl = '\0';
		lines++;
		if (parse_vm_line(line, &vm)) {
			if (grow(r, (void **)&r->vms, r->nr_vms, &cap,
				 sizeof(*r->vms))) {
				free(text);
				return -1;
			}
			r->vms[r->nr_vms++] = vm;
		} else if (!bad++) {
			first_bad = lines;
		}
	}
	free(text);
	if (bad)
		side_warning(r, "%s: %u line%s not understood, skipped (the "
			     "first: line %u)", path, bad, bad == 1 ? "" : "s",
			     first_bad);
	return index_vms(r);
}

/* The devices of the VMMs record was given (vmm_map.h), if any. */
static int load_devices(struct trace_reader *r)
{
	char path[4096], *text;
	const char *why;
	size_t len;
	int bad;

	snprintf(path, sizeof(path), "%s/" TRACE_SIDE_DIR "/vmm-map.tsv",
		 r->dir);
	text = read_side(path, &len, &why);
	/* None asked for; or no hvtrace/ (vms.tsv's warning says so). */
	if (!text && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	if (!text) {
		side_warning(r, "%s: %s, not read: devices are not named",
			     path, why);
		return 0;
	}
	bad = vmm_map_add_tsv(&r->devices, text);
	free(text);
	if (bad < 0)
		return fail(r, "out of memory");
	if (bad)
		side_warning(r, "%s: %d line%s not understood, skipped", path,
			     bad, bad == 1 ? "" : "s");
	vmm_map_sort(&r->devices);
	return 0;
}

const char *trace_device(const struct trace_reader *r, uint32_t pid,
			 uint64_t gpa)
{
	const struct vmm_region *d = r ? vmm_map_find(&r->devices, pid, gpa) :
				     NULL;

	return d ? d->name : NULL;
}

unsigned int trace_devices_in(const struct trace_reader *r, uint64_t start,
			      uint64_t end, char *buf, size_t len)
{
	unsigned int n = 0;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int i = 0; r && i < r->devices.nr; i++) {
		const struct vmm_region *d = &r->devices.r[i];
		bool seen = false;

		if (d->end < start || d->start > end)
			continue;
		/* Named once: the same device in several VMMs. */
		for (unsigned int j = 0; j < i && !seen; j++) {
			const struct vmm_region *e = &r->devices.r[j];

			seen = e->end >= start && e->start <= end &&
			       !strcmp(e->name, d->name);
		}
		if (seen)
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s", n ? "|" : "", d->name);
		n++;
	}
	return n;
}

static const struct trace_vm *vm_search(const struct trace_vm *const *v,
					unsigned int n, uint32_t key,
					bool by_pid)
{
	unsigned int lo = 0, hi = n;

	/* Lower bound, so the first listed of equal keys is found. */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		uint32_t k = by_pid ? v[mid]->pid : v[mid]->vm_id;

		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && (by_pid ? v[lo]->pid : v[lo]->vm_id) == key)
		return v[lo];
	return NULL;
}

const struct trace_vm *trace_vm_by_pid(const struct trace_reader *r,
				       uint32_t pid)
{
	return vm_search(r->by_pid, r->nr_vms, pid, true);
}

const struct trace_vm *trace_vm_by_id(const struct trace_reader *r,
				      uint32_t vm_id)
{
	return vm_search(r->by_id, r->nr_vms, vm_id, false);
}

const char *trace_vm_label(const struct trace_reader *r, uint32_t vm_id,
			   uint32_t pid, char *buf, size_t len)
{
	const struct trace_vm *vm = r ? trace_vm_by_id(r, vm_id) : NULL;

	if (!vm && r)
		vm = trace_vm_by_pid(r, pid);
	if (vm && vm->name[0])
		return vm->name;
	snprintf(buf, len, "vm%" PRIu32, vm_id);
	return buf;
}

unsigned int trace_nr_vms(const struct trace_reader *r)
{
	return r->nr_vms;
}

const struct trace_vm *trace_vm_at(const struct trace_reader *r,
				   unsigned int i)
{
	return i < r->nr_vms ? &r->vms[i] : NULL;
}

const char *trace_comm(const struct trace_record *e, char *buf)
{
	unsigned int i;

	for (i = 0; i < TRACE_COMM_LEN && e->preempt_comm[i]; i++) {
		unsigned char c = e->preempt_comm[i];

		buf[i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	buf[i] = '\0';
	return buf;
}

/* ---- opening ---- */

/* N from "stream_N" (decimal, no sign, no leading zeros); -1 otherwise. */
static long stream_number(const char *name)
{
	const char *p;
	unsigned long n;
	char *end;

	if (strncmp(name, "stream_", 7))
		return -1;
	p = name + 7;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1]))
		return -1;
	errno = 0;
	n = strtoul(p, &end, 10);
	if (*end || errno || n > 65535)
		return -1;
	return (long)n;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct stream *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int add_stream(struct trace_reader *r, unsigned int index,
		      unsigned int *cap)
{
	if (grow(r, (void **)&r->streams, r->nr_streams, cap,
		 sizeof(*r->streams)))
		return -1;
	r->streams[r->nr_streams] = (struct stream){
		.fd = -1,
		.index = index,
	};
	r->nr_streams++;
	return 0;
}

static int find_streams(struct trace_reader *r)
{
	unsigned int cap = 0;
	struct dirent *d;
	DIR *dir;

	dir = opendir(r->dir);
	if (!dir)
		return fail(r, "reading %s: %s", r->dir, strerror(errno));
	while ((d = readdir(dir))) {
		long n = stream_number(d->d_name);

		if (n >= 0 && add_stream(r, n, &cap)) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	if (!r->nr_streams)
		return fail(r, "not an hvtrace trace (no stream_* files): %s",
			    r->dir);
	qsort(r->streams, r->nr_streams, sizeof(*r->streams), cmp_stream);
	return 0;
}

static int open_streams(struct trace_reader *r)
{
	size_t per = READ_BUDGET / r->nr_streams / TRACE_PACKET_SIZE;
	char path[4096];
	struct stat st;
	const char *why;

	if (per < 1)
		per = 1;
	if (per > READ_MAX_PACKETS)
		per = READ_MAX_PACKETS;
	for (unsigned int i = 0; i < r->nr_streams; i++) {
		struct stream *s = &r->streams[i];

		snprintf(path, sizeof(path), "%s/stream_%u", r->dir, s->index);
		s->fd = open_regular(path, &st, &why);
		if (s->fd < 0) {
			if (problem(r, r->first_unread, "%s: %s", path, why))
				return -1;
			r->info.bad_streams++;
			s->eof = true;
			continue;
		}
		posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
		s->chunk = per * TRACE_PACKET_SIZE;
		s->buf = aligned_alloc(TRACE_PACKET_SIZE, s->chunk);
		s->loss = malloc(MAX_LOSS_RANGES * sizeof(*s->loss));
		if (!s->buf || !s->loss)
			return fail(r, "out of memory");
	}
	r->heap = malloc(r->nr_streams * sizeof(*r->heap));
	if (!r->heap)
		return fail(r, "out of memory");
	r->info.nr_streams = r->nr_streams;
	return 0;
}

struct trace_reader *trace_open(const char *dir, unsigned int flags,
				char *err, size_t errlen)
{
	struct trace_reader *r = calloc(1, sizeof(*r));
	struct stat st;

	if (r)
		r->dir = strdup(dir);
	if (!r || !r->dir) {
		snprintf(err, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->strict = flags & TRACE_STRICT;
	r->any_order = flags & TRACE_ANY_ORDER;
	if (stat(dir, &st))
		fail(r, "cannot open trace %s: %s", dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		fail(r, "not an hvtrace trace (not a directory): %s", dir);
	else if (!load_metadata(r) && !find_streams(r) && !open_streams(r) &&
		 !load_vms(r))
		load_devices(r);
	if (r->failed) {
		snprintf(err, errlen, "%s", r->err);
		trace_close(r);
		return NULL;
	}
	return r;
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	for (unsigned int i = 0; i < r->nr_streams; i++) {
		if (r->streams[i].fd >= 0)
			close(r->streams[i].fd);
		free(r->streams[i].buf);
		free(r->streams[i].loss);
	}
	free(r->streams);
	free(r->heap);
	free(r->vms);
	free(r->by_pid);
	free(r->by_id);
	vmm_map_free(&r->devices);
	free(r->dir);
	free(r);
}

/* ---- losses ---- */

/*
 * The two neighbours closest in time become one range: the least time
 * wrongly shown as lost. Of equal gaps the shortest result, so evenly
 * spread losses merge evenly instead of into one ever longer range.
 */
static void merge_closest(struct stream *s)
{
	uint64_t gap = UINT64_MAX, span = UINT64_MAX;
	unsigned int best = 0;

	for (unsigned int i = 0; i + 1 < s->nr_loss; i++) {
		const struct loss_range *a = &s->loss[i], *b = &s->loss[i + 1];
		uint64_t g = b->begin > a->end ? b->begin - a->end : 0;
		uint64_t sp = b->end - a->begin;

		if (g < gap || (g == gap && sp < span)) {
			gap = g;
			span = sp;
			best = i;
		}
	}
	s->loss[best].end = s->loss[best + 1].end;
	s->loss[best].lost += s->loss[best + 1].lost;
	memmove(&s->loss[best + 1], &s->loss[best + 2],
		(s->nr_loss - best - 2) * sizeof(*s->loss));
	s->nr_loss--;
}

static void add_loss(struct stream *s, uint64_t begin, uint64_t end,
		     uint64_t lost)
{
	struct loss_range *last = s->nr_loss ? &s->loss[s->nr_loss - 1] : NULL;

	/* Packets in a row that all lost events: one range. */
	if (last && last->end >= begin) {
		if (end > last->end)
			last->end = end;
		last->lost += lost;
		return;
	}
	if (s->nr_loss == MAX_LOSS_RANGES)
		merge_closest(s);
	s->loss[s->nr_loss++] = (struct loss_range){ begin, end, lost };
}

/*
 * A packet's events_discarded is a running count: growth since the
 * previous packet happened between that packet's end and this one's. A
 * packet without events (news flushed at the end) has no end of its own;
 * its range stays open until the stream's next events, if any.
 */
static void account_loss(struct stream *s, uint64_t discarded, bool events,
			 uint64_t begin, uint64_t end)
{
	struct loss_range *last = s->nr_loss ? &s->loss[s->nr_loss - 1] : NULL;

	if (events && last && last->end == LOSS_OPEN_END)
		last->end = begin;
	if (discarded > s->discarded)
		add_loss(s, s->had_events ? s->prev_end : LOSS_OPEN_BEGIN,
			 events ? end : LOSS_OPEN_END, discarded - s->discarded);
	s->discarded = discarded;
}

void trace_for_each_loss(const struct trace_reader *r,
			 void (*fn)(unsigned int cpu, uint64_t begin,
				    uint64_t end, uint64_t lost, void *arg),
			 void *arg)
{
	for (unsigned int i = 0; i < r->nr_streams; i++) {
		const struct stream *s = &r->streams[i];

		for (unsigned int j = 0; j < s->nr_loss; j++) {
			const struct loss_range *l = &s->loss[j];
			uint64_t b = l->begin, e = l->end;

			if (b == LOSS_OPEN_BEGIN)
				b = r->info.first_ts;
			if (e == LOSS_OPEN_END)
				e = r->info.last_ts > b ? r->info.last_ts : b;
			fn(s->index, b, e, l->lost, arg);
		}
	}
}

void trace_get_info(const struct trace_reader *r, struct trace_info *info)
{
	*info = r->info;
	info->discarded = 0;
	for (unsigned int i = 0; i < r->nr_streams; i++)
		info->discarded += r->streams[i].discarded;
}

/* ---- packets ---- */

/*
 * Read the next chunk of S. Returns 1 with whole packets in buf, 0 at
 * the end of the stream, -1 on error. A partial packet at the end of the
 * file is one a killed or still running writer left: counted, not read.
 * After a read error the stream ends there (a problem: TRACE_STRICT).
 */
static int stream_fill(struct trace_reader *r, struct stream *s)
{
	size_t n = 0;

	s->buf_off += s->len + s->tail;
	s->len = s->tail = 0;
	s->next_pkt = 0;
	if (s->eof)
		return 0;
	while (n < s->chunk) {
		ssize_t got = pread(s->fd, s->buf + n, s->chunk - n,
				    s->buf_off + n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			if (problem(r, r->first_unread, "%s/stream_%u: reading "
				    "at offset %" PRIu64 ": %s", r->dir,
				    s->index, s->buf_off + n, strerror(errno)))
				return -1;
			r->info.bad_streams++;
			s->eof = true;
			s->len = n - n % TRACE_PACKET_SIZE;
			return s->len ? 1 : 0;
		}
		if (!got) {
			s->eof = true;
			break;
		}
		n += got;
	}
	s->len = n - n % TRACE_PACKET_SIZE;
	s->tail = n % TRACE_PACKET_SIZE;
	if (s->tail)
		r->info.torn_packets++;
	return s->len ? 1 : 0;
}

/* The packet at P (offset OFF) holds implausible events: note them. */
static int note_odd(struct trace_reader *r, const struct stream *s,
		    const uint8_t *p, uint64_t off,
		    const struct trace_odd_tally *odd)
{
	const uint8_t *ev = p + TRACE_PACKET_HEAD +
			    (size_t)odd->first * TRACE_EVENT_SIZE;
	char why[256];

	if (r->strict || !r->first_odd[0]) {
		trace_odd_describe(ev, s->index, why, sizeof(why));
		if (problem(r, r->first_odd, "%s/stream_%u: event at offset %"
			    PRIu64 " (packet %" PRIu64 "): implausible: %s",
			    r->dir, s->index, off + (ev - p),
			    off / TRACE_PACKET_SIZE, why))
			return -1;
	}
	r->info.implausible += odd->events;
	for (int k = 0; k < TRACE_NR_ODD; k++)
		r->odd[k] += odd->count[k];
	return 0;
}

/*
 * Take in the packet at P, file offset OFF: check it whole (trace_check.c),
 * note its facts, point at its events. 1 when it has events to return, 0
 * when not (none, or damaged and skipped), -1 on an error.
 */
static int open_packet(struct trace_reader *r, struct stream *s,
		       const uint8_t *p, uint64_t off)
{
	struct trace_pkt_expect x = {
		.uuid = r->uuid, .cpu = s->index, .after = s->prev_end,
	};
	struct trace_packet_context c;
	struct trace_odd_tally odd;
	char why[256];
	size_t body;
	bool events;

	if (!trace_check_packet(p, &x, &odd, why, sizeof(why))) {
		if (problem(r, r->first_damage, "%s/stream_%u: packet %" PRIu64
			    " (offset %" PRIu64 "): %s", r->dir, s->index,
			    off / TRACE_PACKET_SIZE, off, why))
			return -1;
		s->damaged++;
		r->info.damaged_packets++;
		return 0;
	}
	if (odd.events && note_odd(r, s, p, off, &odd))
		return -1;
	memcpy(&c, p + PKT_CONTEXT_OFF, sizeof(c));
	body = c.content_size / 8;
	events = body > TRACE_PACKET_HEAD;
	r->info.packets++;
	account_loss(s, c.events_discarded, events, c.timestamp_begin,
		     c.timestamp_end);
	if (!events)
		return 0;
	s->ev = p + TRACE_PACKET_HEAD;
	s->ev_end = p + body;
	s->ts = c.timestamp_begin;	/* its first event's (checked) */
	if (!r->info.first_ts || c.timestamp_begin < r->info.first_ts)
		r->info.first_ts = c.timestamp_begin;
	if (c.timestamp_end > r->info.last_ts)
		r->info.last_ts = c.timestamp_end;
	s->prev_end = c.timestamp_end;
	s->had_events = true;
	return 1;
}

/*
 * Step S to the first event of its next good packet that has any: 1, 0
 * at the end of the stream, -1 on error.
 */
static int next_packet(struct trace_reader *r, struct stream *s)
{
	for (;;) {
		const uint8_t *p;
		int ret;

		if (s->next_pkt == s->len) {
			ret = stream_fill(r, s);
			if (ret <= 0)
				return ret;
		}
		p = s->buf + s->next_pkt;
		s->next_pkt += TRACE_PACKET_SIZE;
		ret = open_packet(r, s, p, s->buf_off + (p - s->buf));
		if (ret)
			return ret;
	}
}

/* ---- the merge ---- */

static inline bool before(const struct stream *a, const struct stream *b)
{
	/* Equal times: the lower stream first, so output is stable. */
	return a->ts < b->ts || (a->ts == b->ts && a->index < b->index);
}

static void sift_down(struct stream **heap, unsigned int n, unsigned int i)
{
	struct stream *s = heap[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && before(heap[c + 1], heap[c]))
			c++;
		if (!before(heap[c], s))
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = s;
}

static int start(struct trace_reader *r)
{
	r->started = true;
	for (unsigned int i = 0; i < r->nr_streams; i++) {
		struct stream *s = &r->streams[i];
		int ret = next_packet(r, s);

		if (ret < 0)
			return -1;
		if (ret)
			r->heap[r->heap_len++] = s;
	}
	for (unsigned int i = r->heap_len / 2; i-- > 0;)
		sift_down(r->heap, r->heap_len, i);
	return 0;
}

int trace_next(struct trace_reader *r, struct trace_event *ev)
{
	struct stream *s;
	int ret = 1;

	if (r->failed)
		return -1;
	if (!r->started && start(r))
		return -1;
	if (!r->heap_len)
		return 0;
	/* Its packet passed trace_check_packet(): no checks left here. */
	s = r->heap[0];
	memcpy(&ev->id, s->ev, sizeof(ev->id));
	ev->ts_ns = s->ts;
	ev->cpu = s->index;
	memcpy(&ev->e, s->ev + EV_HEADER_SIZE, sizeof(ev->e));
	r->info.events++;
	s->ev += TRACE_EVENT_SIZE;
	if (s->ev < s->ev_end)
		memcpy(&s->ts, s->ev + EV_TS_OFF, sizeof(s->ts));
	else
		ret = next_packet(r, s);
	/*
	 * EV is good even if what follows it is not: return it, and the
	 * error (r->failed) on the next call.
	 */
	if (ret < 0)
		return 1;
	if (!ret)
		r->heap[0] = r->heap[--r->heap_len];
	if (r->heap_len && !r->any_order)
		sift_down(r->heap, r->heap_len, 0);
	return 1;
}

/* ---- warnings ---- */

struct damage_count {
	uint64_t n;
	unsigned int index;
};

static int cmp_damage(const void *a, const void *b)
{
	const struct damage_count *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* "stream_1: 2, stream_0: 1": the most damaged streams first. */
static void print_damaged_streams(const struct trace_reader *r, FILE *f)
{
	struct damage_count *d = calloc(r->nr_streams, sizeof(*d));
	unsigned int n = 0;

	if (!d)
		return;
	for (unsigned int i = 0; i < r->nr_streams; i++)
		if (r->streams[i].damaged)
			d[n++] = (struct damage_count){ r->streams[i].damaged,
							r->streams[i].index };
	qsort(d, n, sizeof(*d), cmp_damage);
	for (unsigned int i = 0; i < n && i < WARN_STREAMS; i++)
		fprintf(f, "%sstream_%u: %" PRIu64, i ? ", " : "", d[i].index,
			d[i].n);
	if (n > WARN_STREAMS)
		fprintf(f, ", %u more streams", n - WARN_STREAMS);
	free(d);
}

void trace_print_warnings(const struct trace_reader *r, FILE *f)
{
	const struct trace_info *i = &r->info;
	const char *sep = "";

	if (i->damaged_packets) {
		fprintf(f, "hvctl: warning: skipped %" PRIu64 " damaged packet%s (",
			i->damaged_packets, i->damaged_packets == 1 ? "" : "s");
		print_damaged_streams(r, f);
		fprintf(f, "); the first: %s\n", r->first_damage);
	}
	if (i->implausible) {
		fprintf(f, "hvctl: warning: %" PRIu64 " implausible event%s, "
			"used as they are (", i->implausible,
			i->implausible == 1 ? "" : "s");
		for (int k = 0; k < TRACE_NR_ODD; k++) {
			if (!r->odd[k])
				continue;
			fprintf(f, "%s%s: %" PRIu64, sep, trace_odd_names[k],
				r->odd[k]);
			sep = ", ";
		}
		fprintf(f, "); the first: %s\n", r->first_odd);
	}
	if (i->bad_streams)
		fprintf(f, "hvctl: warning: %u stream%s not read, or not to "
			"the end; the first: %s\n", i->bad_streams,
			i->bad_streams == 1 ? "" : "s", r->first_unread);
	if (r->side_warn[0])
		fprintf(f, "hvctl: warning: %s\n", r->side_warn);
}
