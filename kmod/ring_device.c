// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hvtrace: the per-CPU rings mapped read-only into their reader, so
 * a drain copies nothing (hvctl record; the ABI is in the uapi header,
 * HVTRACE_IOC_RING). Netlink's READ_EVENTS copies each record twice on
 * the way out (into a message, into the reader's buffer) and costs a
 * system call every few dozen records; here the reader takes records
 * where the writers left them and gives the slots back with one ioctl a
 * CPU and pass.
 *
 * The open file owns the rings (the lease) and holds the reader slot
 * until it is released, which a mapping delays (it holds the file): no
 * resize or clear can replace or empty the rings under the reader or its
 * mappings, and no netlink drain splits the stream. The mapped pages
 * hold references of their own besides.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/uaccess.h>
#include <uapi/linux/hvtrace.h>

#include "buffers.h"
#include "ring_device.h"
#include "stats.h"

/* Serializes the tails' releases (a file may be shared by threads). */
static DEFINE_MUTEX(release_mutex);

/*
 * As a netlink drain: the task that asks, in the initial user namespace,
 * at open and at each ioctl and mmap, so a file handed to a task without
 * the capability is of no use to it.
 */
static bool may_read(void)
{
	return capable(CAP_SYS_ADMIN);
}

static int ring_open(struct inode *inode, struct file *f)
{
	if (!may_read())
		return -EPERM;
	if (!hvt_lease_take_device())
		return -EBUSY;
	/* A resize, clear or netlink drain under way holds it briefly. */
	if (!hvt_reader_get()) {
		hvt_lease_put_device();
		return -EBUSY;
	}
	return stream_open(inode, f);
}

static int ring_close(struct inode *inode, struct file *f)
{
	hvt_reader_put();
	hvt_lease_put_device();
	return 0;
}

/* CPU's ring: the reader slot (the file's) keeps the set in place. */
static struct hvt_ring *ring_get(u32 cpu)
{
	struct hvt_ring *r;

	if (cpu >= nr_cpu_ids)
		return NULL;
	r = hvt_ring_of(array_index_nospec(cpu, nr_cpu_ids));
	/* Pairs with hvt_ring_init()'s release: a ring that came with a CPU
	 * while the file was open is seen whole (pages, mask, mode).
	 */
	return r && smp_load_acquire(&r->slots) ? r : NULL;
}

static long ring_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct hvtrace_ring __user *up = (void __user *)arg;
	struct hvtrace_ring p;
	struct hvt_ring *r;
	struct hvt_acct a;
	int ret;

	if (cmd != HVTRACE_IOC_RING)
		return -ENOTTY;
	if (!may_read())
		return -EPERM;
	if (copy_from_user(&p, up, sizeof(p)))
		return -EFAULT;
	r = ring_get(p.cpu);
	if (!r)
		return p.cpu < nr_cpu_ids ? -ENODEV : -EINVAL;

	mutex_lock(&release_mutex);
	ret = hvt_ring_release(r, p.consumed, p.taken);
	if (!ret) {
		/* Passed the watermark again: tell the reader again. */
		WRITE_ONCE(r->notified, false);
		p.tail = r->tail;
	}
	mutex_unlock(&release_mutex);
	if (ret)
		return ret;

	hvt_acct_sum(&a, p.cpu, false);
	p.mode = r->mode;
	p.slots = r->mask + 1;
	p.bytes = hvt_buffers_cpu_bytes();
	p.offset = p.bytes * p.cpu;
	p.lost = a.lost;
	p.overwritten = hvt_sub_floor0(r->overwritten, r->overwritten_base);
	p.cpus_traced = cpumask_weight(&hvt_cpus_traced);
	p.pad = 0;
	return copy_to_user(up, &p, sizeof(p)) ? -EFAULT : 0;
}

/* One CPU's ring a mapping, whole, at the offset the ioctl gives. */
static int ring_mmap(struct file *f, struct vm_area_struct *vma)
{
	unsigned long pages = hvt_buffers_cpu_bytes() >> PAGE_SHIFT;
	unsigned long cpu = vma->vm_pgoff / pages;
	unsigned long nr = pages;
	struct hvt_ring *r;
	int ret;

	if (!may_read() || vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	if (vma->vm_pgoff % pages || vma_pages(vma) != pages ||
	    cpu >= nr_cpu_ids)
		return -EINVAL;
	r = ring_get(cpu);
	if (!r)
		return -ENODEV;
	if (r->mem.nr_pages != pages)	/* every ring has the set's size */
		return -EINVAL;
	/* Never writable or executable (no mprotect), not inherited, not
	 * in core dumps.
	 */
	hvt_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY,
			 VM_MAYWRITE | VM_MAYEXEC);
	ret = vm_insert_pages(vma, vma->vm_start, r->mem.pages, &nr);
	return ret ? ret : (nr ? -EFAULT : 0);
}

static const struct file_operations ring_fops = {
	.owner = THIS_MODULE,
	.open = ring_open,
	.release = ring_close,
	.unlocked_ioctl = ring_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = ring_mmap,
};

static struct miscdevice ring_device = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = HVTRACE_DEVICE_NAME,
	.fops = &ring_fops,
	.mode = 0600,
};

int hvt_ring_device_register(void)
{
	return misc_register(&ring_device);
}

void hvt_ring_device_unregister(void)
{
	misc_deregister(&ring_device);
}
