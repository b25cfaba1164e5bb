// SPDX-License-Identifier: GPL-2.0
/*
 * --halt's timer thread: each of vCPU 0's halts ends with HALT_IRQ, raised
 * USEC after the vCPU blocked in KVM (see hvguest.c's header).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

#include "hvguest.h"

/*
 * --halt timer: vCPU 0 posts 'armed' at each ARM_PORT exit; the thread
 * raises HALT_IRQ at 'due', USEC after vCPU 0 blocked, and posts 'idle'
 * once the line is low again.
 */
struct halt_timer halt_timer;

/*
 * At vCPU 0's ARM_PORT exit: waits until the previous interrupt's line is
 * low again (so that its KVM_IRQ_LINE cannot kick the coming halt), then
 * sets the deadline.  The guest executes "sti; hlt" once this returns.
 */
void halt_timer_arm(void)
{
	while (sem_wait(&halt_timer.idle) && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &halt_timer.armed_at);
	sem_post(&halt_timer.armed);
}

static void wait_blocking(void)
{
	for (uint32_t waited = 0; !stat_read(&vcpus[0], ST_BLOCKING); waited += 50) {
		if (waited > 10000000)
			die(EXIT_MISMATCH, "vcpu 0 did not block in HLT within "
			    "10 s");
		sleep_usec(50);
	}
}

/*
 * Raises an edge on HALT_IRQ USEC after KVM's 'blocking' stat first says
 * that vCPU 0 sleeps in kvm_vcpu_block(), so every halt blocks for at
 * least USEC, however long the vCPU thread took from the ARM_PORT exit to
 * HLT (under a loaded host, now and then longer than USEC).  Were the
 * interrupt pending before the block, HLT would still count as a halt exit
 * but not block, or end a halt-poll.  A vCPU woken before the deadline
 * (a signal, a request to all vCPUs) is waited for again: 'late'.
 */
static void *halt_timer_thread(void *arg)
{
	struct timespec now;
	uint64_t due;

	(void)arg;
	for (;;) {
		while (sem_wait(&halt_timer.armed) && errno == EINTR)
			;
		if (halt_timer.quit)
			return NULL;
		wait_blocking();
		clock_gettime(CLOCK_MONOTONIC, &now);
		due = ts_ns(&now) + cfg.halt_usec * 1000;
		halt_timer.due.tv_sec = due / 1000000000;
		halt_timer.due.tv_nsec = due % 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
				       &halt_timer.due, NULL) == EINTR)
			;
		if (!stat_read(&vcpus[0], ST_BLOCKING)) {
			halt_timer.late++;
			wait_blocking();
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		halt_timer.armed_ns += ts_ns(&now) - ts_ns(&halt_timer.armed_at);
		irq_line(1);
		irq_line(0);
		sem_post(&halt_timer.idle);
	}
}

/* A fresh timer for the round's VM. */
void halt_timer_start(void)
{
	int err;

	memset(&halt_timer, 0, sizeof(halt_timer));
	sem_init(&halt_timer.armed, 0, 0);
	sem_init(&halt_timer.idle, 0, 1);
	err = pthread_create(&halt_timer.thread, NULL, halt_timer_thread, NULL);
	if (err)
		die(EXIT_MISMATCH, "pthread_create: %s", strerror(err));
}

/*
 * Once the vCPU threads are gone: waits for the last interrupt's
 * bookkeeping, then ends the thread, which uses the VM fd.
 */
void halt_timer_stop(void)
{
	while (sem_wait(&halt_timer.idle) && errno == EINTR)
		;
	halt_timer.quit = true;
	sem_post(&halt_timer.armed);
	pthread_join(halt_timer.thread, NULL);
	sem_destroy(&halt_timer.armed);
	sem_destroy(&halt_timer.idle);
}
