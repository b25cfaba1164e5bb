// SPDX-License-Identifier: GPL-2.0
/*
 * The threads that run one round's vCPUs.
 *
 * Each vCPU has one thread, th[0], that calls KVM_RUN until the program
 * ends.  With --hop it has two, th[0] and th[1], that take turns: after
 * every return from KVM_RUN the thread that got it checks and handles the
 * exit, does the --vmm-work, and hands the vCPU to the other thread, which
 * makes the next KVM_RUN call.  KVM allows KVM_RUN from any thread, one at
 * a time (it holds vcpu->mutex), and follows the new thread (vcpu->pid);
 * the semaphores below make it one at a time.
 *
 *            KVM_RUN             exit
 *   th[0]  ----[ guest ........ ]--> check, handle, work --> post th[1], wait ...
 *   th[1]  ... wait ............................................... KVM_RUN ----[ guest ...
 *                               |<------------- vmm_ns ----------------->|
 *                        right after the ioctl              right before the ioctl
 *
 * vmm_ns is the VMM's own account of its time: CLOCK_MONOTONIC right after
 * KVM_RUN returns and right before the next KVM_RUN call, summed over each
 * return but the vCPU's last one (EINTR returns included); vmm_exits is
 * their number.  A tracer that times an exit from the VM exit to the next
 * VM entry sees each of these intervals inside one exit's time.  Without
 * --hop it is the same measure on one thread.  hops counts the handovers:
 * one per return of KVM_RUN but the last, so hops = vmm_exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "hvguest.h"

#define RDMSR_VALUE	0x1122334455667788ull	/* what every RDMSR reads */

/* Stop protocol: see finish_iteration(), and end_together(). */
static atomic_int stop_requested;
static pthread_mutex_t target_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t target_iters;
static pthread_barrier_t stop_barrier, ready_barrier, go_barrier;
static pthread_barrier_t end_barrier;
static bool end_stop;

/*
 * --touch, --ipi: every vCPU ends each iteration with the others, out of
 * the guest, between two barriers; one of them reads the stop request
 * for all, so they stop together too.
 * --touch: in between each vCPU drops its pages.  KVM retries a fault
 * that an MMU notifier invalidation (another vCPU's madvise) overlapped,
 * whatever the pages: the guest would fault on the same page again, two
 * NPFs for one touch (about 1% of them with two vCPUs under TCG).
 * --ipi: in between vCPU 0's thread reads the iteration's IPI logs, which
 * neither vCPU writes then.  And the vCPUs must run in step: vCPU 1, an
 * iteration ahead, would wait in the guest for IPIs that vCPU 0, at the
 * stop protocol's barrier, sends only once vCPU 1 got there too.
 */
static bool end_together(struct vcpu *v)
{
	if (pthread_barrier_wait(&end_barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
		end_stop = atomic_load(&stop_requested);
	if (cfg.count[K_TOUCH])
		touch_drop(v);
	if (cfg.ipi_count && v->id == 0)
		ipi_collect(v);
	pthread_barrier_wait(&end_barrier);
	return end_stop;
}

/*
 * Called at the done port; returns true when this vCPU should stop.  Once a
 * stop is requested each vCPU finishes its current iteration and publishes
 * its count; after all have done so (barrier) every vCPU runs on up to the
 * highest count, so all of them complete the same number of iterations.
 * With --touch or --ipi they end every iteration together (end_together()).
 */
static bool finish_iteration(struct vcpu *v)
{
	v->iters++;
	reset_sequence(v);
	/* --timer: vCPU 0's own words, vCPU 0 out of the guest */
	if (cfg.timer_count && v->id == 0)
		timer_collect(v);
	if (cfg.count[K_TOUCH] || cfg.ipi_count)
		return end_together(v);
	if (v->target_known)
		return v->iters >= target_iters;
	if (!atomic_load(&stop_requested))
		return false;
	pthread_mutex_lock(&target_lock);
	if (v->iters > target_iters)
		target_iters = v->iters;
	pthread_mutex_unlock(&target_lock);
	pthread_barrier_wait(&stop_barrier);
	v->target_known = true;
	return v->iters >= target_iters;
}

/* The second field of schedstat: ns spent runnable, waiting for a CPU. */
static bool read_run_delay(pid_t tid, uint64_t *ns)
{
	char path[64];
	unsigned long long run, delay;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fscanf(f, "%llu %llu", &run, &delay);
	fclose(f);
	*ns = delay;
	return n == 2;
}

/*
 * The vCPU's first SPIN_PORT OUT: it has entered the guest, so its
 * threads' run_delay counts from here (see vcpu_thread()).  Said first,
 * so that whatever the line wakes runs before the baseline.  With --hop
 * the other thread's is read too, on its way to its turn.
 */
static void spin_started(struct vcpu *v)
{
	struct vcpu_thread *t;

	if (v->spinning)
		return;
	v->spinning = true;
	printf("HVGUEST-SPIN vcpu=%d\n", v->id);
	fflush(stdout);
	for (int j = 0; j < (cfg.hop ? 2 : 1); j++) {
		t = &v->th[j];
		t->run_delay_ok = read_run_delay(t->tid, &t->run_delay[0]);
	}
}

/*
 * --tsc-step: the vCPU's TSC offset moved on by cfg.tsc_step, as a VMM
 * restoring or migrating a guest does (KVM traces it as
 * kvm_write_tsc_offset); the guest's TSC reads jump by as much.
 */
static void step_tsc_offset(struct vcpu *v)
{
	uint64_t offset;
	struct kvm_device_attr attr = {
		.group = KVM_VCPU_TSC_CTRL,
		.attr = KVM_VCPU_TSC_OFFSET,
		.addr = (uint64_t)(uintptr_t)&offset,
	};

	if (ioctl(v->fd, KVM_GET_DEVICE_ATTR, &attr))
		vcpu_fail(v, "KVM_GET_DEVICE_ATTR(KVM_VCPU_TSC_OFFSET): %s",
			  strerror(errno));
	offset += cfg.tsc_step;
	if (ioctl(v->fd, KVM_SET_DEVICE_ATTR, &attr))
		vcpu_fail(v, "KVM_SET_DEVICE_ATTR(KVM_VCPU_TSC_OFFSET): %s",
			  strerror(errno));
}

/* What the VMM does for an exit of kind k before the next KVM_RUN. */
static void handle_exit(struct vcpu *v, int kind)
{
	switch (kind) {
	case K_RDMSR:
		v->run->msr.data = RDMSR_VALUE;
		v->run->msr.error = 0;
		break;
	case K_WRMSR:
		v->run->msr.error = 0;
		break;
	case K_SLOW:
		sleep_usec(cfg.slow_usec);
		break;
	case K_HALT:
		halt_timer_arm();
		break;
	case K_SPIN:
		spin_started(v);
		break;
	case K_MSI:
		ipi_send_msi(v);
		break;
	case K_MMIO_READ:
		memcpy(v->run->mmio.data, &(uint32_t){ MMIO_READ_DATA }, 4);
		break;
	}
}

/* --vmm-work: the handling of one exit takes this much longer. */
static void vmm_work(void)
{
	uint64_t end;

	if (!cfg.vmm_work_usec)
		return;
	if (!cfg.vmm_work_spin) {
		sleep_usec(cfg.vmm_work_usec);
		return;
	}
	end = now_ns() + cfg.vmm_work_usec * 1000;
	while (now_ns() < end)
		;
}

/* --hop: the other thread makes the next KVM_RUN call. */
static void hand_over(struct vcpu *v, struct vcpu_thread *to)
{
	if (!cfg.hop)
		return;
	v->hops++;
	sem_post(&to->go);
}

/*
 * Runs the vCPU on thread t until its last exit; with --hop, only in t's
 * turns.  ret_ns is 0 until the first KVM_RUN has returned.
 */
static void run_vcpu(struct vcpu *v, struct vcpu_thread *t)
{
	struct vcpu_thread *other = &v->th[!t->idx];
	int kind, r;

	for (;;) {
		if (cfg.hop) {
			while (sem_wait(&t->go) && errno == EINTR)
				;
			if (v->done)
				return;
		}
		if (v->ret_ns) {
			v->vmm_ns += now_ns() - v->ret_ns;
			v->vmm_exits++;
		}
		r = ioctl(v->fd, KVM_RUN, 0);
		v->ret_ns = now_ns();
		if (r < 0) {
			/* A signal (e.g. SIGSTOP from a test driver); retry. */
			if (errno != EINTR)
				vcpu_fail(v, "KVM_RUN: %s", strerror(errno));
			hand_over(v, other);
			continue;
		}
		kind = classify_exit(v);
		handle_exit(v, kind);
		vmm_work();
		if (kind == K_DONE && cfg.tsc_step)
			step_tsc_offset(v);
		if (kind == K_DONE && finish_iteration(v))
			break;
		hand_over(v, other);
	}
	/* the last exit: this vCPU never enters again */
	v->run_ns = now_ns() - v->run_ns;
	v->last_tid = t->tid;
	stats_read(v, v->after);
	v->done = true;
	if (cfg.hop)
		sem_post(&other->go);
}

/*
 * run_delay, the time the thread waited for a CPU, counts from before the
 * first KVM_RUN to after the last exit; with --spin from the vCPU's first
 * SPIN_PORT OUT (spin_started()), so that it leaves out the first
 * KVM_RUN's way to the vCPU's first entry (its setup: slow on a debug
 * kernel), which is in no exit, and so in no tracer's exit time.
 */
static void *vcpu_thread(void *arg)
{
	struct vcpu_thread *t = arg;
	struct vcpu *v = t->v;

	t->tid = gettid();
	if (t->idx == 0)
		stats_read(v, v->before);
	pthread_barrier_wait(&ready_barrier);	/* tid is published */
	pthread_barrier_wait(&go_barrier);	/* HVGUEST-START is out */
	if (!cfg.spin_ms)
		t->run_delay_ok = read_run_delay(t->tid, &t->run_delay[0]);
	if (t->idx == 0)
		v->run_ns = now_ns();
	run_vcpu(v, t);
	t->run_delay_ok &= read_run_delay(t->tid, &t->run_delay[1]);
	return NULL;
}

/*
 * --cpu LIST: vCPU i's thread runs on the i-th CPU of LIST, its --hop
 * thread on the (vcpus + i)-th, cycling through LIST.
 */
static void start_thread(struct vcpu *v, int idx)
{
	struct vcpu_thread *t = &v->th[idx];
	int cpu = cfg.ncpus ? cfg.cpus[(idx * cfg.vcpus + v->id) % cfg.ncpus] : -1;
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	t->v = v;
	t->idx = idx;
	sem_init(&t->go, 0, idx == 0);
	pthread_attr_init(&attr);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(&t->thread, &attr, vcpu_thread, t);
	if (err == EINVAL && cpu >= 0)
		usage_error("--cpu: cannot run on CPU %d", cpu);
	if (err)
		die(EXIT_MISMATCH, "pthread_create: %s", strerror(err));
	pthread_attr_destroy(&attr);
}

/*
 * With --seconds/--forever, SIGINT and SIGTERM are blocked in every thread
 * (the vCPU threads inherit the mask, so KVM_RUN is never interrupted by
 * them) and collected here instead.
 */
sigset_t stop_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	return set;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Returns true if a signal, not the time, asked for the stop. */
static bool wait_for_stop(void)
{
	sigset_t set = stop_signals();
	double left, deadline = now() + cfg.seconds;
	struct timespec ts;
	bool signalled = false;
	int sig;

	if (cfg.forever) {
		sigwait(&set, &sig);
		signalled = true;
	} else if (cfg.seconds > 0) {
		while ((left = deadline - now()) > 0) {
			ts.tv_sec = left;
			ts.tv_nsec = (left - ts.tv_sec) * 1e9;
			if (sigtimedwait(&set, NULL, &ts) > 0) {
				signalled = true;
				break;
			}
		}
	}
	atomic_store(&stop_requested, 1);
	return signalled;
}

/*
 * Runs the round's program on every vCPU until the stop (without
 * --seconds/--forever: one iteration) and joins the threads; returns true
 * if a signal stopped it.
 */
bool run_vcpus(int round)
{
	int per_vcpu = cfg.hop ? 2 : 1, threads = cfg.vcpus * per_vcpu;
	bool signalled;

	atomic_store(&stop_requested, !(cfg.seconds > 0 || cfg.forever));
	target_iters = 0;
	pthread_barrier_init(&ready_barrier, NULL, threads + 1);
	pthread_barrier_init(&go_barrier, NULL, threads + 1);
	pthread_barrier_init(&stop_barrier, NULL, cfg.vcpus);
	pthread_barrier_init(&end_barrier, NULL, cfg.vcpus);
	if (cfg.halt_usec)
		halt_timer_start();
	if (cfg.ipi_count)
		ipi_start();
	if (cfg.timer_count)
		timer_start();
	for (unsigned int i = 0; i < cfg.vcpus; i++) {
		reset_sequence(&vcpus[i]);
		for (int j = 0; j < per_vcpu; j++)
			start_thread(&vcpus[i], j);
	}

	pthread_barrier_wait(&ready_barrier);
	report_start(round);
	pthread_barrier_wait(&go_barrier);

	signalled = wait_for_stop();
	for (unsigned int i = 0; i < cfg.vcpus; i++)
		for (int j = 0; j < per_vcpu; j++) {
			pthread_join(vcpus[i].th[j].thread, NULL);
			sem_destroy(&vcpus[i].th[j].go);
		}
	if (cfg.halt_usec)
		halt_timer_stop();
	pthread_barrier_destroy(&ready_barrier);
	pthread_barrier_destroy(&go_barrier);
	pthread_barrier_destroy(&stop_barrier);
	pthread_barrier_destroy(&end_barrier);
	return signalled;
}
