// SPDX-License-Identifier: GPL-2.0
/*
 * The trace writer: CTF 1.8 metadata describing trace_format.h, and one
 * stream per CPU made of whole, page-sized packets.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exit_reasons.h"
#include "err.h"
#include "event_fields.h"
#include "output.h"
#include "trace_format.h"
#include "trace_write.h"
#include "util.h"

/*
 * A stream's packets are built in a batch of TRACE_BATCH_PACKETS and
 * written together: one system call every few hundred events, not every
 * 24 (under `hvctl record` beside a storm the write's entry and page-cache
 * work per call was a tenth of hvctl's cost an event). The batch comes
 * with the stream's first packet, so only CPUs that record hold one.
 *
 *   batch  [ packet 0 | packet 1 | ... | packet done | ... ]
 *            finished, not yet written   ^ being filled (used bytes)
 */
#define TRACE_BATCH_PACKETS	16

struct stream {
	int fd;
	unsigned int cpu;
	uint64_t discarded;
	uint64_t stamped;		/* discarded as last finished */
	uint64_t first_ts, last_ts;
	unsigned int used;		/* bytes in the packet, headers included */
	unsigned int nr;		/* events in the packet */
	unsigned int done;		/* packets finished in the batch */
	uint8_t *batch;			/* NULL until the first packet */
	uint64_t size;			/* bytes written to the file */
};

struct trace_writer {
	char *dir;
	uint8_t uuid[16];
	unsigned int nr_cpus;
	uint64_t events, bytes;
	uint64_t skipped;		/* records of an unknown type */
	struct stream *streams;
	bool made_dir;			/* trace_create() made it */
	int err;			/* the first failure: nothing after it */
};

static void uuid_text(const uint8_t *u, char *out)
{
	sprintf(out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3], u[4], u[5],
		u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
		u[15]);
}

/* A TSDL string literal: the characters TSDL cannot hold are dropped. */
static void tsdl_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++)
		if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			fputc(*s, f);
	fputc('"', f);
}

/* The vendor's exit reasons by name, as CTF enum TYPE of CONTAINER. */
static void write_reason_enum(FILE *f, const char *type,
			      const char *container, unsigned int isa)
{
	fprintf(f, "enum %s : %s {\n", type, container);
	for (int i = 0; i < exit_reason_count(isa); i++) {
		const struct exit_reason_entry *e = exit_reason_at(isa, i);

		fprintf(f, "\t\"%s\" = %" PRIu32 ",\n", e->name, e->code);
	}
	fprintf(f, "};\n\n");
}

/* A late interrupt's source, one HVTRACE_VCPU_IRQ_* bit, by name. */
static void write_source_enum(FILE *f)
{
	static const unsigned int bits[] = {
		HVTRACE_VCPU_IRQ_LOCAL, HVTRACE_VCPU_IRQ_IPI,
		HVTRACE_VCPU_IRQ_DEVICE, HVTRACE_VCPU_IRQ_TIMER,
	};

	fprintf(f, "enum irq_source_t : uint64_t {\n");
	for (size_t i = 0; i < ARRAY_SIZE(bits); i++)
		fprintf(f, "\t\"%s\" = %u,\n", event_irq_source(bits[i]),
			bits[i]);
	fprintf(f, "};\n\n");
}

/*
 * The fields of the record where the kinds differ (trace_format.h):
 * exits, preemptions and late interrupts hold the time split there,
 * marks their clocks; then what info1 and info2 hold, and the reason.
 */
static const char *const split_fields[] = {
	"uint64_t vmm_ns", "uint64_t halt_ns", "uint64_t runnable_ns",
	"uint64_t other_ns",
};
static const char *const mark_fields[] = {
	"uint64_t host_tsc", "hex64_t tsc_offset", "hex64_t tsc_ratio",
	"uint64_t tsc_frac_bits",
};

struct event_class {
	const char *name;
	unsigned int id;
	const char *const *x;		/* split_fields or mark_fields */
	const char *info1, *info2;	/* their declarations */
	const char *reason;
};

/* By kind; VENDOR is the type of the reason ("enum vmx_reason_t"). */
#define EXIT_CLASS(name, id, vendor) \
	{ name, id, split_fields, "hex64_t info1", "hex64_t info2", \
	  vendor " reason" }
#define MARK_CLASS(name, id, vendor) \
	{ name, id, mark_fields, "uint64_t mark_id", "uint64_t guest_tsc", \
	  vendor " reason" }
/* A vector, not an exit reason; the last exit's reason is 64 bits. */
#define IRQ_CLASS(name, id, vendor64) \
	{ name, id, split_fields, "enum irq_source_t source", \
	  vendor64 " last_exit_reason", "hex32_t vector" }

/*
 * Every event class, by kind and vendor, in id order. Every class shares
 * one layout (trace_format.h): the time split (a mark's clocks) next to
 * the duration, the preemptor last.
 */
static const struct event_class event_classes[] = {
	EXIT_CLASS("kvm_exit_vmx", TRACE_EV_EXIT_VMX, "enum vmx_reason_t"),
	EXIT_CLASS("kvm_exit_svm", TRACE_EV_EXIT_SVM, "enum svm_reason_t"),
	EXIT_CLASS("kvm_exit", TRACE_EV_EXIT_UNKNOWN, "uint32_t"),
	EXIT_CLASS("vcpu_preempt_vmx", TRACE_EV_PREEMPT_VMX,
		   "enum vmx_reason_t"),
	EXIT_CLASS("vcpu_preempt_svm", TRACE_EV_PREEMPT_SVM,
		   "enum svm_reason_t"),
	EXIT_CLASS("vcpu_preempt", TRACE_EV_PREEMPT_UNKNOWN, "uint32_t"),
	MARK_CLASS("guest_mark_vmx", TRACE_EV_MARK_VMX, "enum vmx_reason_t"),
	MARK_CLASS("guest_mark_svm", TRACE_EV_MARK_SVM, "enum svm_reason_t"),
	MARK_CLASS("guest_mark", TRACE_EV_MARK_UNKNOWN, "uint32_t"),
	IRQ_CLASS("vcpu_irq_vmx", TRACE_EV_IRQ_VMX, "enum vmx_reason64_t"),
	IRQ_CLASS("vcpu_irq_svm", TRACE_EV_IRQ_SVM, "enum svm_reason64_t"),
	IRQ_CLASS("vcpu_irq", TRACE_EV_IRQ_UNKNOWN, "uint64_t"),
};

static void write_event_class(FILE *f, const struct event_class *c)
{
	fprintf(f,
		"event {\n"
		"\tname = \"%s\";\n"
		"\tid = %u;\n"
		"\tstream_id = 0;\n"
		"\tfields := struct {\n"
		"\t\tuint64_t seq;\n"
		"\t\tuint64_t duration_ns;\n"
		"\t\tuint64_t handling_ns;\n"
		"\t\t%s;\n\t\t%s;\n\t\t%s;\n\t\t%s;\n"
		"\t\tuint64_t guest_ns;\n"
		"\t\t%s;\n\t\t%s;\n"
		"\t\thex64_t addr;\n"
		"\t\thex64_t rip;\n"
		"\t\t%s;\n"
		"\t\thex32_t intr_info;\n"
		"\t\thex32_t error_code;\n"
		"\t\tuint32_t vcpu_id;\n"
		"\t\tuint32_t vm_id;\n"
		"\t\tuint32_t vm_pid;\n"
		"\t\tuint32_t tid;\n"
		"\t\tuint16_t cpu_exit;\n"
		"\t\tuint16_t cpu_entry;\n"
		"\t\tuint8_t isa;\n"
		"\t\tuint8_t type;\n"
		"\t\thex16_t flags;\n"
		"\t\tuint32_t preempt_pid;\n"
		"\t\tuint64_t preempt_ns;\n"
		"\t\tchar_t preempt_comm[%u];\n"
		"\t};\n"
		"};\n\n", c->name, c->id, c->x[0], c->x[1], c->x[2], c->x[3],
		c->info1, c->info2, c->reason, TRACE_COMM_LEN);
}

static int write_metadata(struct trace_writer *w, const struct trace_env *env)
{
	char uuid[40], path[4096];
	int64_t off = env->clock_offset_ns;
	size_t i;
	FILE *f;

	f = trace_open_file(w, "metadata");
	if (!f)
		return -EIO;	/* reported */
	uuid_text(w->uuid, uuid);
	fprintf(f,
		"/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; base = 16; } := hex16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; base = 16; } := hex32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; base = 16; } := hex64_t;\n"
		/* An array of these is a string to babeltrace2. */
		"typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;\n\n"
		"trace {\n"
		"\tmajor = 1;\n"
		"\tminor = 8;\n"
		"\tuuid = \"%s\";\n"
		"\tbyte_order = le;\n"
		"\tpacket.header := struct {\n"
		"\t\tuint32_t magic;\n"
		"\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n"
		"\t};\n"
		"};\n\n", uuid);
	fprintf(f, "env {\n\ttracer_name = \"hvtrace\";\n"
		"\thvtrace_format = %d;\n\thostname = ", TRACE_FORMAT);
	tsdl_str(f, env->hostname);
	fprintf(f, ";\n\tkernel_release = ");
	tsdl_str(f, env->kernel);
	fprintf(f, ";\n\tcpu_vendor = ");
	tsdl_str(f, env->cpu_vendor);
	fprintf(f, ";\n\thvtrace_version = ");
	tsdl_str(f, env->hvtrace_version);
	fprintf(f, ";\n};\n\n");
	fprintf(f,
		"clock {\n"
		"\tname = \"monotonic\";\n"
		"\tdescription = \"kernel local_clock(), ns since boot; event time = vCPU re-entry (preemption: switch-in; late interrupt: injection), start = time - duration_ns\";\n"
		"\tfreq = 1000000000;\n"
		"\toffset_s = %" PRId64 ";\n"
		"\toffset = %" PRId64 ";\n"
		"};\n\n"
		"typealias integer { size = 64; align = 8; signed = false;\n"
		"\tmap = clock.monotonic.value; } := uint64_clock_t;\n\n"
		"stream {\n"
		"\tid = 0;\n"
		"\tpacket.context := struct {\n"
		"\t\tuint64_clock_t timestamp_begin;\n"
		"\t\tuint64_clock_t timestamp_end;\n"
		"\t\tuint64_t content_size;\n"
		"\t\tuint64_t packet_size;\n"
		"\t\tuint64_t events_discarded;\n"
		"\t\tuint32_t cpu_id;\n"
		"\t};\n"
		"\tevent.header := struct {\n"
		"\t\tuint16_t id;\n"
		"\t\tuint64_clock_t timestamp;\n"
		"\t};\n"
		"};\n\n", off / 1000000000, off % 1000000000);
	write_reason_enum(f, "vmx_reason_t", "uint32_t", HV_ISA_VMX);
	write_reason_enum(f, "svm_reason_t", "uint32_t", HV_ISA_SVM);
	/* A late interrupt's last exit: in a 64-bit field (info2). */
	write_reason_enum(f, "vmx_reason64_t", "uint64_t", HV_ISA_VMX);
	write_reason_enum(f, "svm_reason64_t", "uint64_t", HV_ISA_SVM);
	write_source_enum(f);
	for (i = 0; i < ARRAY_SIZE(event_classes); i++)
		write_event_class(f, &event_classes[i]);
	if (fflush(f) || ferror(f)) {
		snprintf(path, sizeof(path), "%s/metadata", w->dir);
		int ret = hvc_err(errno, "writing %s: %s", path,
				  strerror(errno));

		fclose(f);
		return ret;
	}
	if (fclose(f))
		return hvc_err(errno, "writing %s/metadata: %s", w->dir,
			       strerror(errno));
	return 0;
}

/*
 * Files are created here only, never opened if there (O_EXCL): the
 * directory was new or empty, so nothing of someone else's is written
 * through, not even a symbolic link planted since.
 */
FILE *trace_open_file(const struct trace_writer *w, const char *name)
{
	char path[4096];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", w->dir, name);
	if (strchr(name, '/')) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/%s", w->dir, TRACE_SIDE_DIR);
		if (mkdir(sub, 0700) && errno != EEXIST) {
			hvc_err(errno, "creating %s: %s", sub, strerror(errno));
			return NULL;
		}
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		hvc_err(errno, "creating %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	/* A failed write's errno is what trace_close_file() reports. */
	errno = 0;
	return f;
}

int trace_close_file(FILE *f)
{
	int failed = errno, err;

	/* stdio keeps no errno: a write that failed left it (ENOSPC...). */
	err = fflush(f) ? errno : ferror(f) ? (failed ? failed : EIO) : 0;
	if (fclose(f) && !err)
		err = errno;
	return err;
}

int trace_write_host(const struct trace_writer *w, const struct trace_env *env)
{
	FILE *f = trace_open_file(w, TRACE_SIDE_DIR "/host.json");
	static const char *const keys[] = {
		"hostname", "kernel", "cpu_vendor", "hvtrace_version",
	};
	const char *values[] = {
		env->hostname, env->kernel, env->cpu_vendor,
		env->hvtrace_version,
	};
	struct out o;
	int err;

	if (!f)
		return -EIO;	/* reported */
	out_init(&o, f, true);
	out_open_object(&o, NULL);
	/* A host may be called anything: every string goes escaped. */
	for (unsigned int i = 0; i < ARRAY_SIZE(keys); i++)
		out_str(&o, keys[i], NULL, values[i] ? values[i] : "");
	out_i64(&o, "clock_offset_ns", NULL, env->clock_offset_ns);
	out_close_object(&o);
	out_end(&o);
	err = trace_close_file(f);
	if (err)
		return hvc_err(err, "writing %s/" TRACE_SIDE_DIR "/host.json: %s",
			       w->dir, strerror(err));
	return 0;
}

static void packet_reset(struct stream *s)
{
	s->used = TRACE_PACKET_HEAD;
	s->nr = 0;
}

/*
 * The packet being filled; NULL, reported and the writer's failure, when
 * out of memory (a full batch is written before: never past it).
 */
static uint8_t *packet_buf(struct trace_writer *w, struct stream *s)
{
	if (!s->batch)
		s->batch = aligned_alloc(TRACE_PACKET_SIZE,
					 TRACE_BATCH_PACKETS * TRACE_PACKET_SIZE);
	if (!s->batch) {
		w->err = hvc_err(ENOMEM, "out of memory for %s/stream_%u",
				 w->dir, s->cpu);
		return NULL;
	}
	if (s->done >= TRACE_BATCH_PACKETS) {
		w->err = hvc_err(EIO, "%s/stream_%u: batch full (a bug)",
				 w->dir, s->cpu);
		return NULL;
	}
	return s->batch + (size_t)s->done * TRACE_PACKET_SIZE;
}

static void streams_free(struct trace_writer *w)
{
	for (unsigned int i = 0; w->streams && i < w->nr_cpus; i++)
		free(w->streams[i].batch);
	free(w->streams);
}

/*
 * The finished packets, in one write of whole pages at a page offset.
 * A write cut short (a full disk) is taken up where it stopped, so the
 * error is the system's; after a failure the stream is cut back to its
 * last whole packet: a reader finds only complete packets.
 */
static int batch_write(struct trace_writer *w, struct stream *s)
{
	size_t len = (size_t)s->done * TRACE_PACKET_SIZE, off = 0;
	ssize_t n;

	while (off < len) {
		n = write(s->fd, s->batch + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;

			off -= off % TRACE_PACKET_SIZE;
			if (ftruncate(s->fd, s->size + off) == 0)
				s->size += off;
			w->err = hvc_err(err, "writing %s/stream_%u: %s",
					 w->dir, s->cpu, strerror(err));
			return w->err;
		}
		off += n;
	}
	s->size += len;
	w->bytes += len;
	s->done = 0;
	return 0;
}

/*
 * Finish the packet being filled; FORCE: even an empty one with news of
 * lost events, and write the batch out now.
 */
static int packet_write(struct trace_writer *w, struct stream *s, bool force)
{
	struct trace_packet_header h = {
		.magic = TRACE_MAGIC,
		.stream_id = 0,
	};
	struct trace_packet_context c = {
		.timestamp_begin = s->first_ts,
		.timestamp_end = s->last_ts,
		.content_size = (uint64_t)s->used * 8,
		.packet_size = TRACE_PACKET_SIZE * 8,
		.events_discarded = s->discarded,
		.cpu_id = s->cpu,
	};
	uint8_t *buf;

	if (w->err)
		return w->err;
	if (!s->nr && !(force && s->discarded != s->stamped))
		return force ? batch_write(w, s) : 0;
	buf = packet_buf(w, s);
	if (!buf)
		return -ENOMEM;
	if (!s->nr)	/* news of losses only: no time of its own */
		c.timestamp_begin = c.timestamp_end = s->last_ts;
	memcpy(h.uuid, w->uuid, sizeof(h.uuid));
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &c, sizeof(c));
	memset(buf + s->used, 0, TRACE_PACKET_SIZE - s->used);
	s->done++;
	s->stamped = s->discarded;
	packet_reset(s);
	if (force || s->done == TRACE_BATCH_PACKETS)
		return batch_write(w, s);
	return 0;
}

/* DIR is a directory with nothing in it (errno kept EEXIST). */
static bool empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = d != NULL;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	if (d)
		closedir(d);
	errno = EEXIST;
	return empty;
}

/*
 * Nobody else may plant a symbolic link in the trace (we may be root):
 * an empty directory we were given must be ours and writable by us alone.
 */
static bool dir_is_ours(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		hvc_err(errno, "%s: %s", dir, strerror(errno));
		return false;
	}
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		hvc_err(EPERM, "recording into %s: it is %s (record into a "
			"new directory, or one of yours that only you can "
			"write)", dir, st.st_uid != geteuid() ?
			"another user's" : "writable by others");
		return false;
	}
	return true;
}

struct trace_writer *trace_create(const char *dir, unsigned int nr_cpus,
				  const struct trace_env *env)
{
	struct trace_writer *w;
	char path[4096];
	bool made = !mkdir(dir, 0700), meta = false;
	int err;

	if (!made && (errno != EEXIST || !empty_dir(dir))) {
		if (errno == EEXIST)
			hvc_err(EEXIST, "creating %s: it exists and is not an "
				"empty directory (record into a new or empty "
				"one)", dir);
		else
			hvc_err(errno, "creating %s: %s", dir, strerror(errno));
		return NULL;
	}
	if (!dir_is_ours(dir))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w || !(w->dir = strdup(dir)) ||
	    !(w->streams = calloc(nr_cpus, sizeof(*w->streams)))) {
		hvc_err(ENOMEM, "out of memory");
		goto fail;
	}
	w->nr_cpus = nr_cpus;
	w->made_dir = made;
	for (unsigned int i = 0; i < nr_cpus; i++)
		w->streams[i].fd = -1;
	if (getrandom(w->uuid, sizeof(w->uuid), 0) != sizeof(w->uuid)) {
		hvc_err(errno, "getrandom: %s", strerror(errno));
		goto fail;
	}
	w->uuid[6] = (w->uuid[6] & 0x0f) | 0x40;	/* version 4 */
	w->uuid[8] = (w->uuid[8] & 0x3f) | 0x80;
	for (unsigned int i = 0; i < nr_cpus; i++) {
		struct stream *s = &w->streams[i];

		snprintf(path, sizeof(path), "%s/stream_%u", dir, i);
		s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
		if (s->fd < 0) {
			hvc_err(errno, "creating %s: %s%s", path,
				strerror(errno), errno == EEXIST ?
				" (record into a new or empty directory)" : "");
			goto fail;
		}
		s->cpu = i;
		s->discarded = 0;
		s->stamped = 0;
		s->first_ts = s->last_ts = 0;
		packet_reset(s);
	}
	meta = true;
	if (write_metadata(w, env))
		goto fail;
	return w;

fail:
	/* What it made goes (the directory was empty), errno stays. */
	err = errno;
	if (w && w->streams)
		for (unsigned int i = 0; i < w->nr_cpus; i++) {
			if (w->streams[i].fd < 0)
				continue;
			close(w->streams[i].fd);
			snprintf(path, sizeof(path), "%s/stream_%u", dir, i);
			unlink(path);
		}
	if (meta) {
		snprintf(path, sizeof(path), "%s/metadata", dir);
		unlink(path);
	}
	if (made)
		rmdir(dir);
	if (w) {
		streams_free(w);
		free(w->dir);
		free(w);
	}
	errno = err;
	return NULL;
}

/*
 * Its event class: by kind, then by vendor (whose enum names the reason):
 * each kind's classes run VMX, SVM, unknown.
 */
static uint16_t event_id(const struct hvtrace_event *ev)
{
	uint16_t first = ev->type == HVTRACE_EV_PREEMPT ? TRACE_EV_PREEMPT_VMX :
			 ev->type == HVTRACE_EV_MARK ? TRACE_EV_MARK_VMX :
			 ev->type == HVTRACE_EV_IRQ ? TRACE_EV_IRQ_VMX :
			 TRACE_EV_EXIT_VMX;

	if (ev->isa == HVTRACE_ISA_VMX)
		return first;
	return ev->isa == HVTRACE_ISA_SVM ? first + 1 : first + 2;
}

/*
 * The parts add up to the duration (ABI): handling is what they leave.
 * A late interrupt's guest time is in its wait too. A mark has no parts
 * (its clocks are there) and no duration.
 */
static uint64_t handling_ns(const struct hvtrace_event *ev)
{
	uint64_t sum = ev->type == HVTRACE_EV_IRQ ? ev->guest_ns : 0;

	if (ev->type == HVTRACE_EV_MARK)
		return 0;
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += ev->part_ns[i];
	return ev->duration_ns > sum ? ev->duration_ns - sum : 0;
}

/*
 * Printable ASCII, NUL-padded: a task may name itself anything, and
 * babeltrace2 prints a broken line for bytes that are not UTF-8.
 */
static void copy_comm(char *to, const char *from)
{
	unsigned int i;

	for (i = 0; i < TRACE_COMM_LEN - 1 && from[i]; i++) {
		unsigned char c = from[i];

		to[i] = c >= 0x20 && c < 0x7f ? c : '?';
	}
	memset(to + i, 0, TRACE_COMM_LEN - i);
}

_Static_assert(sizeof(((struct trace_record *)0)->part_ns) ==
	       sizeof(((struct hvtrace_event *)0)->part_ns),
	       "the metadata names four parts");
_Static_assert(TRACE_COMM_LEN == HVTRACE_COMM_LEN, "comm length");
/*
 * The module's record (kmod/ring.c asserts the same): READ_EVENTS
 * payloads are split by its size. TRACE_FORMAT 2 is a 160-byte record.
 */
_Static_assert(sizeof(struct hvtrace_event) == 160, "ABI: event size");
_Static_assert(offsetof(struct hvtrace_event, part_ns) == 96, "ABI: part_ns");
_Static_assert(offsetof(struct hvtrace_event, preempt_comm) == 144,
	       "ABI: preempt_comm");
_Static_assert(sizeof(struct trace_record) == 160, "trace format 2");
/* A mark's clocks travel where the parts do, in both records. */
_Static_assert(offsetof(struct hvtrace_event, mark.tsc_frac_bits) -
	       offsetof(struct hvtrace_event, part_ns) ==
	       offsetof(struct trace_record, mark.tsc_frac_bits) -
	       offsetof(struct trace_record, part_ns), "mark clocks");

int trace_append(struct trace_writer *w, const struct hvtrace_event *ev)
{
	struct trace_event_header *h;
	struct trace_record *x;
	struct stream *s;
	uint64_t entry;
	uint8_t *buf;
	int ret;

	if (w->err)
		return w->err;
	if (ev->cpu_entry >= w->nr_cpus)
		return hvc_err(ERANGE, "event from CPU %u, beyond the %u streams",
			       ev->cpu_entry, w->nr_cpus);
	/* A kind this hvctl has no class for: counted, not misfiled. */
	if (ev->type < HVTRACE_EV_EXIT || ev->type > HVTRACE_EV_IRQ) {
		w->skipped++;
		return 0;
	}
	s = &w->streams[ev->cpu_entry];
	if (s->used + TRACE_EVENT_SIZE > TRACE_PACKET_SIZE) {
		ret = packet_write(w, s, false);
		if (ret)
			return ret;
	}
	buf = packet_buf(w, s);
	if (!buf)
		return -ENOMEM;
	/*
	 * The event's time is its end: an exit's entry, a preemption's
	 * switch-in, a late interrupt's injection (just before its entry).
	 * A CPU's records are written in that order, so stream clocks never
	 * go back (exit times can, when a vCPU migrated). The start is
	 * timestamp - duration_ns.
	 */
	entry = ev->ts_ns + ev->duration_ns;
	/* The module keeps entries monotonic per CPU; readers rely on it. */
	if (entry < s->last_ts)
		entry = s->last_ts;
	if (!s->nr)
		s->first_ts = entry;
	s->last_ts = entry;

	/* Written in place: the packet is the only copy hvctl makes. */
	h = (struct trace_event_header *)(buf + s->used);
	x = (struct trace_record *)(buf + s->used + sizeof(*h));
	h->id = event_id(ev);
	h->timestamp = entry;
	x->seq = ev->seq;
	x->duration_ns = ev->duration_ns;
	x->handling_ns = handling_ns(ev);
	memcpy(x->part_ns, ev->part_ns, sizeof(x->part_ns));
	x->guest_ns = ev->guest_ns;
	x->info1 = ev->info1;
	x->info2 = ev->info2;
	x->addr = ev->addr;
	x->rip = ev->rip;
	x->reason = ev->reason;
	x->intr_info = ev->intr_info;
	x->error_code = ev->error_code;
	x->vcpu_id = ev->vcpu_id;
	x->vm_id = ev->vm_id;
	x->vm_pid = ev->vm_pid;
	x->tid = ev->tid;
	x->cpu_exit = ev->cpu_exit;
	x->cpu_entry = ev->cpu_entry;
	x->isa = ev->isa;
	x->type = ev->type;
	x->flags = ev->flags;
	x->preempt_pid = ev->preempt_pid;
	x->preempt_ns = ev->preempt_ns;
	/* A comm only with its task: the module may leave one behind. */
	if (ev->preempt_pid)
		copy_comm(x->preempt_comm, ev->preempt_comm);
	else
		memset(x->preempt_comm, 0, sizeof(x->preempt_comm));
	s->used += TRACE_EVENT_SIZE;
	s->nr++;
	w->events++;
	return 0;
}

void trace_set_discarded(struct trace_writer *w, unsigned int cpu,
			 uint64_t discarded)
{
	if (cpu < w->nr_cpus)
		w->streams[cpu].discarded = discarded;
}

int trace_flush(struct trace_writer *w)
{
	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		int ret = packet_write(w, &w->streams[i], true);

		if (ret)
			return ret;
	}
	return 0;
}

int trace_finish(struct trace_writer *w)
{
	int ret = trace_flush(w);

	for (unsigned int i = 0; i < w->nr_cpus; i++)
		if (close(w->streams[i].fd) && !ret)
			ret = hvc_err(errno, "closing %s/stream_%u: %s", w->dir,
				      i, strerror(errno));
	streams_free(w);
	free(w->dir);
	free(w);
	return ret;
}

void trace_discard(struct trace_writer *w)
{
	char path[4096];

	for (unsigned int i = 0; i < w->nr_cpus; i++) {
		close(w->streams[i].fd);
		snprintf(path, sizeof(path), "%s/stream_%u", w->dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/metadata", w->dir);
	unlink(path);
	if (w->made_dir)
		rmdir(w->dir);
	streams_free(w);
	free(w->dir);
	free(w);
}

uint64_t trace_events(const struct trace_writer *w)
{
	return w->events;
}

uint64_t trace_bytes(const struct trace_writer *w)
{
	return w->bytes;
}

uint64_t trace_skipped(const struct trace_writer *w)
{
	return w->skipped;
}
