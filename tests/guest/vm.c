// SPDX-License-Identifier: GPL-2.0
/*
 * The VMM's KVM calls: /dev/kvm, one VM with one memslot (two with
 * --touch) and its vCPUs in 32-bit flat protected mode, the MSR filter,
 * the in-kernel irqchip of --halt, --lapic, --ipi and --timer, KVM's
 * binary statistics, and the VM's destruction.  What runs in the VM is
 * program.c's business; running it, run.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hvguest.h"

const char *const stat_name[NR_STATS] = {
	"exits", "io_exits", "mmio_exits", "halt_exits",
	"irq_exits", "signal_exits", "halt_wakeup", "insn_emulation",
	"halt_wait_ns", "halt_poll_success_ns", "halt_poll_fail_ns",
	"halt_successful_poll", "halt_attempted_poll", "halt_poll_invalid",
	"blocking",
};

int kvm_fd, vm_fd;
size_t run_size;
uint8_t *guest_mem;
static uint8_t *touch_mem;	/* --touch's memslot */
uint64_t tsc_khz;
struct vcpu vcpus[MAX_VCPUS];

/* ------------------------------------------------------------- VM setup */

static void check_cap(int cap, const char *name)
{
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, cap) <= 0)
		die(EXIT_SKIP, "KVM lacks %s", name);
}

void open_kvm(void)
{
	const char *own = getenv("HVT_I_OWN_THIS_HOST");

	/*
	 * A development machine's own /dev/kvm is not ours to load: only
	 * the test VM (tests/vm/guest-setup) or a host its owner offers
	 * (make check-host) runs guests.
	 */
	if (!getenv("HVT_IN_TEST_VM") && !(own && !strcmp(own, "yes")))
		die(2, "runs guests only inside the test VM "
		    "(tests/vm/run) or with HVT_I_OWN_THIS_HOST=yes on a host "
		    "you own");
	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0)
		die(EXIT_SKIP, "cannot open /dev/kvm: %s", strerror(errno));
	if (ioctl(kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		die(EXIT_SKIP, "unexpected KVM API version");
	check_cap(KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY");
	check_cap(KVM_CAP_BINARY_STATS_FD, "KVM_CAP_BINARY_STATS_FD");
	if (cfg.count[K_RDMSR] || cfg.count[K_WRMSR]) {
		check_cap(KVM_CAP_X86_USER_SPACE_MSR, "KVM_CAP_X86_USER_SPACE_MSR");
		check_cap(KVM_CAP_X86_MSR_FILTER, "KVM_CAP_X86_MSR_FILTER");
	}
	if (cfg.irqchip)
		check_cap(KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP");
	if (cfg.spin_ms || cfg.ipi_count || cfg.timer_count)
		check_cap(KVM_CAP_GET_TSC_KHZ, "KVM_CAP_GET_TSC_KHZ");
	if (cfg.ipi_via_msi)
		check_cap(KVM_CAP_SIGNAL_MSI, "KVM_CAP_SIGNAL_MSI");
	if (ioctl(kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS) < (int)cfg.vcpus)
		die(EXIT_SKIP, "KVM supports fewer than %" PRIu64 " vCPUs", cfg.vcpus);
	run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if ((long)run_size < (long)sizeof(struct kvm_run))
		die(EXIT_MISMATCH, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
}

/*
 * Denies exactly one MSR for reads and writes and asks KVM to report
 * filter denials to userspace, so each access becomes one
 * KVM_EXIT_X86_RDMSR/WRMSR.  All other MSRs stay allowed.
 */
static void setup_msr_filter(void)
{
	struct kvm_enable_cap cap = {
		.cap = KVM_CAP_X86_USER_SPACE_MSR,
		.args[0] = KVM_MSR_EXIT_REASON_FILTER,
	};
	/* KVM copies whole longs of bitmap, even for a single MSR. */
	static uint64_t deny_bitmap;
	struct kvm_msr_filter filter = {
		.flags = KVM_MSR_FILTER_DEFAULT_ALLOW,
		.ranges[0] = {
			.flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE,
			.nmsrs = 1,
			.base = cfg.msr,
			.bitmap = (uint8_t *)&deny_bitmap,
		},
	};

	if (ioctl(vm_fd, KVM_ENABLE_CAP, &cap) < 0)
		die(EXIT_SKIP, "KVM_CAP_X86_USER_SPACE_MSR: %s", strerror(errno));
	if (ioctl(vm_fd, KVM_X86_SET_MSR_FILTER, &filter) < 0)
		die(EXIT_MISMATCH, "KVM_X86_SET_MSR_FILTER: %s", strerror(errno));
}

/* The --touch pages of every vCPU, N each */
static size_t touch_size(void)
{
	return cfg.vcpus * cfg.count[K_TOUCH] * TOUCH_STRIDE;
}

/*
 * --touch's memslot: small pages only (MADV_NOHUGEPAGE, where the
 * kernel has huge pages), so that each page the guest writes after
 * touch_drop() faults on its own.
 */
static void create_touch_slot(void)
{
	struct kvm_userspace_memory_region region = {
		.slot = TOUCH_SLOT,
		.guest_phys_addr = TOUCH_GPA,
		.memory_size = touch_size(),
	};
	uint8_t *mem;

	mem = mmap(NULL, touch_size(), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		die(EXIT_MISMATCH, "mmap --touch memory: %s", strerror(errno));
	/* EINVAL: a kernel without huge pages (debug, PREEMPT_RT). */
	if (madvise(mem, touch_size(), MADV_NOHUGEPAGE) && errno != EINVAL)
		die(EXIT_MISMATCH, "madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	touch_mem = mem;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die(EXIT_MISMATCH, "KVM_SET_USER_MEMORY_REGION %d: %s", TOUCH_SLOT,
		    strerror(errno));
}

/*
 * At the vCPU's DONE_PORT exit, while no vCPU is in the guest (run.c's
 * touch_together()): checks that the iteration wrote each of its --touch
 * pages, then drops them, so that KVM zaps their mappings and the next
 * iteration's writes fault again.
 */
void touch_drop(const struct vcpu *v)
{
	size_t len = cfg.count[K_TOUCH] * TOUCH_STRIDE;
	uint8_t *mem = touch_mem + v->id * len;

	for (uint64_t i = 0; i < cfg.count[K_TOUCH]; i++)
		if (mem[i * TOUCH_STRIDE] != TOUCH_DATA)
			vcpu_fail(v, "--touch: page %" PRIu64 " (GPA 0x%" PRIx64
				  ") not written", i, TOUCH_GPA + v->id * len +
				  i * TOUCH_STRIDE);
	if (madvise(mem, len, MADV_DONTNEED))
		vcpu_fail(v, "madvise(MADV_DONTNEED): %s", strerror(errno));
}

void create_vm(void)
{
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = MEM_SIZE,
	};
	uint8_t *mem;

	vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);
	if (vm_fd < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_VM: %s", strerror(errno));
	/* --halt, --lapic, --ipi, --timer only: HLT ends otherwise, LAPICs */
	if (cfg.irqchip && ioctl(vm_fd, KVM_CREATE_IRQCHIP, 0) < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_IRQCHIP: %s", strerror(errno));
	mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED)
		die(EXIT_MISMATCH, "mmap guest memory: %s", strerror(errno));
	guest_mem = mem;
	load_program();
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm_fd, KVM_SET_USER_MEMORY_REGION, &region) < 0)
		die(EXIT_MISMATCH, "KVM_SET_USER_MEMORY_REGION: %s", strerror(errno));
	if (cfg.count[K_TOUCH])
		create_touch_slot();
	if (cfg.count[K_RDMSR] || cfg.count[K_WRMSR])
		setup_msr_filter();
}

static void flat_segment(struct kvm_segment *s, uint16_t sel, uint8_t type)
{
	*s = (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
		.present = 1, .dpl = 0, .db = 1, .s = 1, .l = 0, .g = 1,
	};
}

/*
 * 32-bit flat protected mode, paging off, interrupts off, RIP at the entry
 * point, EDI = this vCPU's --halt count, EBP = the GPA of its --touch
 * pages (its own, after the lower vCPUs'), ESP = the top of its own stack
 * (with --halt and --ipi, vCPUs 0 and 1 take interrupts at once).
 */
static void init_vcpu_state(struct vcpu *v)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = {
		.rip = guest_rip(guest_entry),
		.rdi = v->halts,
		.rbp = cfg.count[K_TOUCH] ?
		       TOUCH_GPA + v->id * cfg.count[K_TOUCH] * TOUCH_STRIDE : 0,
		.rflags = 0x2,
		.rsp = MEM_SIZE - v->id * VCPU_STACK_SIZE,
	};

	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		die(EXIT_MISMATCH, "KVM_GET_SREGS: %s", strerror(errno));
	flat_segment(&sregs.cs, 0x08, 0xb);
	flat_segment(&sregs.ds, 0x10, 0x3);
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	sregs.gdt.base = GDT_GPA;
	sregs.gdt.limit = 3 * 8 - 1;
	sregs.idt.base = idt_gpa();
	sregs.idt.limit = idt_limit();
	sregs.cr0 = 0x11;		/* PE | ET */
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		die(EXIT_MISMATCH, "KVM_SET_SREGS: %s", strerror(errno));
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		die(EXIT_MISMATCH, "KVM_SET_REGS: %s", strerror(errno));
}

/*
 * With an in-kernel irqchip only the BSP starts runnable; the others wait
 * for INIT/SIPI, which this guest never sends, so start them directly.
 * --halt's PIC interrupt reaches vCPU 0 only through its LVT0, which KVM
 * resets to ExtINT, unmasked (KVM_X86_QUIRK_LINT0_REENABLED): check that.
 */
static void init_vcpu_irqchip(struct vcpu *v)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_lapic_state lapic;
	uint32_t lvt0;

	if (v->id != 0) {
		if (ioctl(v->fd, KVM_SET_MP_STATE, &mp) < 0)
			die(EXIT_MISMATCH, "vcpu %d: KVM_SET_MP_STATE: %s", v->id,
			    strerror(errno));
		return;
	}
	if (!cfg.halt_usec)
		return;
	if (ioctl(v->fd, KVM_GET_LAPIC, &lapic) < 0)
		die(EXIT_MISMATCH, "KVM_GET_LAPIC: %s", strerror(errno));
	memcpy(&lvt0, lapic.regs + 0x350, 4);
	if ((lvt0 & 0x10700) != 0x700)		/* masked bit, delivery mode */
		die(EXIT_SKIP, "vcpu 0: LVT0 0x%x is not unmasked ExtINT, PIC "
		    "interrupts cannot reach it", lvt0);
}

/* --spin, --ipi, --timer: the guest's TSC frequency, their times in ticks */
static void get_tsc_khz(struct vcpu *v)
{
	int khz = ioctl(v->fd, KVM_GET_TSC_KHZ, 0);

	if (khz <= 0)
		die(EXIT_SKIP, "KVM_GET_TSC_KHZ: %s", khz ? strerror(errno) :
		    "guest TSC frequency unknown");
	tsc_khz = khz;
	set_tsc_khz(khz);
}

/* ---------------------------------------------------------------- stats */

/* Maps the stat names we want to file offsets of their values. */
static void stats_open(struct vcpu *v)
{
	struct kvm_stats_header h;
	struct kvm_stats_desc *d;
	size_t dsize;
	char *descs;

	v->stats_fd = ioctl(v->fd, KVM_GET_STATS_FD, NULL);
	if (v->stats_fd < 0)
		die(EXIT_SKIP, "KVM_GET_STATS_FD: %s", strerror(errno));
	if (pread(v->stats_fd, &h, sizeof(h), 0) != sizeof(h))
		die(EXIT_MISMATCH, "reading stats header: %s", strerror(errno));
	dsize = sizeof(*d) + h.name_size;
	descs = calloc(h.num_desc, dsize);
	if (!descs)
		die(EXIT_MISMATCH, "out of memory");
	if (pread(v->stats_fd, descs, h.num_desc * dsize, h.desc_offset) !=
	    (ssize_t)(h.num_desc * dsize))
		die(EXIT_MISMATCH, "reading stats descriptors: %s", strerror(errno));
	for (int s = 0; s < NR_STATS; s++) {
		uint32_t type = s == ST_BLOCKING ? KVM_STATS_TYPE_INSTANT :
				KVM_STATS_TYPE_CUMULATIVE;

		v->stat_off[s] = -1;
		for (uint32_t i = 0; i < h.num_desc; i++) {
			d = (struct kvm_stats_desc *)(descs + i * dsize);
			if ((d->flags & KVM_STATS_TYPE_MASK) != type ||
			    strncmp(d->name, stat_name[s], h.name_size))
				continue;
			v->stat_off[s] = h.data_offset + d->offset;
			break;
		}
		if (s < NR_CHECKED_STATS && v->stat_off[s] < 0)
			die(EXIT_SKIP, "KVM has no '%s' vCPU statistic", stat_name[s]);
	}
	/* The --halt timer needs it to tell a halt that began too late. */
	if (cfg.halt_usec && v->stat_off[ST_BLOCKING] < 0)
		die(EXIT_SKIP, "KVM has no 'blocking' vCPU statistic");
	free(descs);
}

uint64_t stat_read(const struct vcpu *v, int s)
{
	uint64_t val = 0;

	if (v->stat_off[s] >= 0 &&
	    pread(v->stats_fd, &val, 8, v->stat_off[s]) != 8)
		die(EXIT_MISMATCH, "reading stat %s: %s", stat_name[s],
		    strerror(errno));
	return val;
}

void stats_read(struct vcpu *v, uint64_t *val)
{
	for (int s = 0; s < NR_STATS; s++)
		val[s] = stat_read(v, s);
}

uint64_t stat_delta(const struct vcpu *v, int s)
{
	return v->after[s] - v->before[s];
}

void create_vcpu(struct vcpu *v, int id)
{
	v->id = id;
	v->fd = ioctl(vm_fd, KVM_CREATE_VCPU, id);
	if (v->fd < 0)
		die(EXIT_MISMATCH, "KVM_CREATE_VCPU %d: %s", id, strerror(errno));
	v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      v->fd, 0);
	if (v->run == MAP_FAILED)
		die(EXIT_MISMATCH, "mmap kvm_run: %s", strerror(errno));
	if (cfg.halt_usec && id == 0)
		v->halts = cfg.count[K_HALT];
	init_vcpu_state(v);
	if (cfg.irqchip)
		init_vcpu_irqchip(v);
	if ((cfg.spin_ms || cfg.ipi_count || cfg.timer_count) && id == 0)
		get_tsc_khz(v);
	stats_open(v);
}

/*
 * Drops every reference to the VM that the vCPUs and the VM fd hold: the
 * kvm_run mappings, the stats fds and fds of the vCPUs, then the VM fd
 * (rounds.c closes the spare vCPUs first), and unmaps guest memory.  KVM
 * destroys the VM and every vCPU in it in the last of these close()s,
 * before it returns to us (rounds.c checks that).
 */
void destroy_vm(void)
{
	for (unsigned int i = 0; i < cfg.vcpus; i++) {
		struct vcpu *v = &vcpus[i];

		if (close(v->stats_fd) || munmap(v->run, run_size) || close(v->fd))
			die(EXIT_MISMATCH, "vcpu %d: closing: %s", v->id,
			    strerror(errno));
	}
	if (close(vm_fd) || munmap(guest_mem, MEM_SIZE))
		die(EXIT_MISMATCH, "closing the VM: %s", strerror(errno));
	if (touch_mem && munmap(touch_mem, touch_size()))
		die(EXIT_MISMATCH, "unmapping --touch memory: %s", strerror(errno));
	vm_fd = -1;
	guest_mem = NULL;
	touch_mem = NULL;
}

/*
 * --ipi-via msi: an MSI to the in-kernel local APICs, as a device would
 * write it.  KVM_SIGNAL_MSI returns the number of local APICs that
 * accepted it, 0 if the guest blocked it (e.g. a software-disabled
 * APIC), or -1 with errno (EPERM: no APIC has the destination ID).
 */
int signal_msi(uint32_t address, uint32_t data)
{
	struct kvm_msi msi = { .address_lo = address, .data = data };

	return ioctl(vm_fd, KVM_SIGNAL_MSI, &msi);
}

/* --halt: an edge on HALT_IRQ is irq_line(1) then irq_line(0). */
void irq_line(int level)
{
	struct kvm_irq_level irq = { .irq = HALT_IRQ, .level = level };

	if (ioctl(vm_fd, KVM_IRQ_LINE, &irq) < 0)
		die(EXIT_MISMATCH, "KVM_IRQ_LINE %d: %s", level, strerror(errno));
}
