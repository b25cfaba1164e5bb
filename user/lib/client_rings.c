// SPDX-License-Identifier: GPL-2.0
/*
 * Draining in place: each CPU's ring mapped read-only from /dev/hvtrace
 * (the protocol is in the uapi header, HVTRACE_IOC_RING). A record is
 * handed to the caller where the module wrote it; one ioctl a CPU and
 * pass gives the slots back and brings the CPU's loss counters.
 *
 *   slot of position P = P & mask; committed when seq == P + 1
 *
 *   tail                          first uncommitted (seq != P + 1)
 *    |  read, handed over, counted   |
 *    v                               v
 *   [P+1][P+2][P+3] ... [P+k]       [ 0 ] ...
 *    ^---------- consumed = taken = k --^  (discard mode)
 *
 * In overwrite mode a writer may lap the reader: a seq above P + 1
 * means P is gone (and with it every position older than seq - slots);
 * a committed record is copied, then its seq read again, so a record
 * torn by a lapping writer is counted as overwritten, never handed over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

#define DEVICE_PATH	"/dev/" HVTRACE_DEVICE_NAME
#define RETRY_NS	1000000000ULL	/* a CPU without a ring, asked again */

struct ring_map {
	const struct hvtrace_event *slots;	/* NULL: not mapped */
	uint64_t tail;
	uint64_t mask;
	size_t bytes;
	bool overwrite;
};

struct hvc_rings {
	int fd;
	unsigned int nr_cpus;
	uint64_t retry_at;	/* CLOCK_MONOTONIC: unmapped CPUs next asked */
	uint32_t cpus_traced;	/* as the module last said */
	bool new_cpu;		/* it said more: ask the unmapped at once */
	struct ring_map cpu[];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int ring_ioctl(struct hvc_rings *rs, struct hvtrace_ring *p)
{
	if (ioctl(rs->fd, HVTRACE_IOC_RING, p))
		return -errno;
	if (p->cpus_traced > rs->cpus_traced)
		rs->new_cpu = true;
	rs->cpus_traced = p->cpus_traced;
	return 0;
}

/* Map CPU's ring: 0, -ENODEV (no ring there yet), or an error reported. */
static int ring_map(struct hvc_rings *rs, unsigned int cpu)
{
	struct ring_map *m = &rs->cpu[cpu];
	struct hvtrace_ring p = { .cpu = cpu };
	void *addr;
	int ret;

	ret = ring_ioctl(rs, &p);
	if (ret == -ENODEV)
		return ret;
	if (ret)
		return hvc_err(-ret, "%s: CPU %u's ring: %s", DEVICE_PATH, cpu,
			       strerror(-ret));
	if (!p.slots || (p.slots & (p.slots - 1)) ||
	    p.bytes < p.slots * sizeof(struct hvtrace_event))
		return hvc_err(EPROTO, "%s: CPU %u's ring: %llu slots in %llu bytes",
			       DEVICE_PATH, cpu, (unsigned long long)p.slots,
			       (unsigned long long)p.bytes);
	addr = mmap(NULL, p.bytes, PROT_READ, MAP_SHARED, rs->fd, p.offset);
	if (addr == MAP_FAILED)
		return hvc_err(errno, "%s: mapping CPU %u's ring: %s",
			       DEVICE_PATH, cpu, strerror(errno));
	*m = (struct ring_map){
		.slots = addr, .tail = p.tail, .mask = p.slots - 1,
		.bytes = p.bytes, .overwrite = p.mode == HVTRACE_MODE_OVERWRITE,
	};
	return 0;
}

int hvc_rings_open(struct hvc_rings **out, unsigned int nr_cpus)
{
	struct hvc_rings *rs;
	int ret;

	*out = NULL;
	rs = calloc(1, sizeof(*rs) + (size_t)nr_cpus * sizeof(rs->cpu[0]));
	if (!rs)
		return hvc_err(ENOMEM, "out of memory");
	rs->nr_cpus = nr_cpus;
	rs->fd = open(DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	if (rs->fd < 0) {
		ret = -errno;
		free(rs);
		if (ret == -ENOENT)	/* the caller decides: no message */
			return ret;
		if (ret == -EBUSY)
			return hvc_err(-ret, "the buffers are owned by another reader (is an hvctl record running?) or being cleared or resized");
		if (ret == -EPERM || ret == -EACCES)
			return hvc_err(-ret, "%s: reading the rings needs CAP_SYS_ADMIN (and the device's permission)",
				       DEVICE_PATH);
		return hvc_err(-ret, "%s: %s", DEVICE_PATH, strerror(-ret));
	}
	for (unsigned int cpu = 0; cpu < nr_cpus; cpu++) {
		ret = ring_map(rs, cpu);
		if (ret && ret != -ENODEV) {
			hvc_rings_close(rs);
			return ret;
		}
	}
	rs->retry_at = now_ns() + RETRY_NS;
	rs->new_cpu = false;
	*out = rs;
	return 0;
}

void hvc_rings_close(struct hvc_rings *rs)
{
	if (!rs)
		return;
	for (unsigned int cpu = 0; cpu < rs->nr_cpus; cpu++)
		if (rs->cpu[cpu].slots)
			munmap((void *)rs->cpu[cpu].slots, rs->cpu[cpu].bytes);
	close(rs->fd);
	free(rs);
}

/*
 * Position T's record, when committed: in discard mode where it lies
 * (the writer waits for our release), in overwrite mode a copy in BUF
 * checked untorn. NULL with *SKIP set: T was lost to a lapping writer,
 * go on from *SKIP. NULL alone: not written yet.
 */
static const struct hvtrace_event *ring_at(const struct ring_map *m,
					   uint64_t t,
					   struct hvtrace_event *buf,
					   uint64_t *skip)
{
	const struct hvtrace_event *ev = &m->slots[t & m->mask];
	uint64_t seq = __atomic_load_n(&ev->seq, __ATOMIC_ACQUIRE);

	*skip = 0;
	if (seq == t + 1) {
		if (!m->overwrite)
			return ev;
		memcpy(buf, ev, sizeof(*buf));
		/* The copy is done before the second look at the mark. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ev->seq, __ATOMIC_RELAXED) == seq)
			return buf;
		*skip = t + 1;
		return NULL;
	}
	/* The writer reached seq - 1: older than a ring before it is gone. */
	if (seq > t + 1)
		*skip = seq - 1 - m->mask > t + 1 ? seq - 1 - m->mask : t + 1;
	return NULL;
}

/*
 * One pass over CPU's ring: two rings' worth of slots looked at, at most,
 * a jump over lapped positions counting as one: after a stopped writer
 * lapped the reader, a ring's worth of jumps lands on its oldest record
 * and a ring's worth of reads takes them all (as a netlink dump does).
 */
static int ring_drain(struct hvc_rings *rs, unsigned int cpu,
		      const struct hvc_drain_ops *ops)
{
	struct ring_map *m = &rs->cpu[cpu];
	struct hvtrace_ring p = { .cpu = cpu };
	uint64_t t = m->tail, taken = 0, looked;
	struct hvtrace_event buf;
	int err = 0, ret;

	for (looked = 0; looked < 2 * (m->mask + 1); looked++) {
		const struct hvtrace_event *ev;
		uint64_t skip;

		ev = ring_at(m, t, &buf, &skip);
		if (!ev && !skip)
			break;
		if (!ev) {
			t = skip;
			continue;
		}
		/* A record the caller refused stays for the next reader. */
		err = ops->event(ev, ops->data);
		if (err)
			break;
		taken++;
		t++;
	}
	p.consumed = t - m->tail;
	p.taken = taken;
	ret = ring_ioctl(rs, &p);
	if (ret)
		return hvc_err(-ret, "%s: giving back CPU %u's slots: %s",
			       DEVICE_PATH, cpu, strerror(-ret));
	m->tail = p.tail;
	if (ops->cpu)
		ops->cpu(cpu, p.lost, p.overwritten, ops->data);
	return err;
}

int hvc_rings_drain(struct hvc_rings *rs, const struct hvc_drain_ops *ops)
{
	bool retry = rs->new_cpu || now_ns() >= rs->retry_at;
	int ret;

	rs->new_cpu = false;
	for (unsigned int cpu = 0; cpu < rs->nr_cpus; cpu++) {
		if (!rs->cpu[cpu].slots) {
			if (!retry)
				continue;
			ret = ring_map(rs, cpu);
			if (ret == -ENODEV)
				continue;
			if (ret)
				return ret;
		}
		ret = ring_drain(rs, cpu, ops);
		if (ret)
			return ret;
	}
	if (retry)
		rs->retry_at = now_ns() + RETRY_NS;
	return 0;
}
