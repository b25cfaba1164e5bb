// SPDX-License-Identifier: GPL-2.0
/*
 * hvhog - a CPU competitor with a known identity, to preempt vCPU threads.
 *
 * Pins itself to one CPU, optionally becomes SCHED_FIFO, names itself, and
 * burns CPU for a given wall-clock time.  The start line carries everything
 * a test needs to recognise it in a trace (pid, tid, comm, CPU) and is
 * flushed at once, so the test can read it while the hog runs:
 *   HVHOG pid=P tid=T comm=NAME cpu=C ms=M fifo=PRIO start_ns=S
 *   HVHOG done cpu_ns=X wall_ns=W end_ns=E
 * fifo=0 means SCHED_OTHER.  start_ns/end_ns are CLOCK_MONOTONIC at the
 * start and end of the busy loop; cpu_ns and wall_ns are its CPU time
 * (CLOCK_THREAD_CPUTIME_ID) and wall time.  The start line comes after
 * --start-delay, when the hog begins to burn.  --start-on PATH holds the
 * hog (pinned, SCHED_FIFO, named, asleep) until a byte is written to the
 * named pipe PATH, or its last writer closes it; --start-delay runs from
 * there.  So a test can start the hog early, and make it burn from a point
 * it knows, whatever the start of a process costs.
 *
 * Under RT throttling (sched_rt_runtime_us 950000 of 1000000 by default) a
 * SCHED_FIFO hog leaves the other tasks of its CPU 5% of each second, and
 * none at all for the first 950 ms: that is the point.
 *
 * Exit codes: 0 done, 2 bad arguments or a setting the kernel refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "args.h"

#define COMM_MAX	15	/* TASK_COMM_LEN - 1: longer names get cut */

const char prog_name[] = "hvhog";
const char usage_line[] =
	"usage: hvhog --cpu C --ms M [--fifo PRIO] [--comm NAME] "
	"[--start-on PATH] [--start-delay MS] [--bursts N [--gap MS]]\n";

/* A setting the kernel refused: "hvhog: MESSAGE", exit 2. */
static void __noreturn __printf(1, 2)
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	args_vfail(false, fmt, ap);
}

static void __noreturn usage(void)
{
	fputs(usage_line, stdout);
	fputs("\n"
	      "Burns CPU on one CPU for a known time, to preempt vCPU threads.\n"
	      "  --cpu C             pin to CPU C\n"
	      "  --ms M              busy-loop for M ms of wall-clock time\n"
	      "  --fifo PRIO         run SCHED_FIFO at PRIO (1..99) instead of\n"
	      "                      SCHED_OTHER (needs CAP_SYS_NICE)\n"
	      "  --comm NAME         task name (default hvhog, at most 15 chars)\n"
	      "  --start-on PATH     first wait until a byte is written to the\n"
	      "                      named pipe PATH (or a writer closes it)\n"
	      "  --start-delay MS    sleep MS ms before burning\n"
	      "  --bursts N          burn N times (default 1), sleeping between\n"
	      "  --gap MS            ... MS ms (default 100)\n"
	      "Prints 'HVHOG pid=P tid=T comm=NAME cpu=C ms=M fifo=PRIO start_ns=S'\n"
	      "when it starts to burn and 'HVHOG done cpu_ns=X wall_ns=W end_ns=E'\n"
	      "at the end.  Exit: 0 done, 2 bad arguments or refused setting.\n",
	      stdout);
	exit(0);
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* --start-on: until a writer of the named pipe writes, or closes it. */
static void wait_on(const char *path)
{
	char c;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		fail("--start-on %s: %s", path, strerror(errno));
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	close(fd);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu",	 required_argument, NULL, 'c' },
		{ "ms",		 required_argument, NULL, 'm' },
		{ "fifo",	 required_argument, NULL, 'f' },
		{ "comm",	 required_argument, NULL, 'n' },
		{ "start-delay", required_argument, NULL, 'd' },
		{ "start-on",	 required_argument, NULL, 'o' },
		{ "bursts",	 required_argument, NULL, 'b' },
		{ "gap",	 required_argument, NULL, 'g' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long cpu = -1, ms = -1, fifo = 0, delay = 0, bursts = 1, gap = 100;
	const char *comm = "hvhog", *start_on = NULL;
	uint64_t start, end, cpu0, cpu1, wall = 0;
	struct sched_param sp;
	cpu_set_t set;
	int c;

	opterr = 0;	/* we print our own messages */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cpu = parse_arg(optarg, "cpu", "CPU", 0, CPU_SETSIZE - 1);
			break;
		case 'm':
			ms = parse_arg(optarg, "ms", "MS", 1, 3600000);
			break;
		case 'f':
			fifo = parse_arg(optarg, "fifo", "PRIO",
					 sched_get_priority_min(SCHED_FIFO),
					 sched_get_priority_max(SCHED_FIFO));
			break;
		case 'n':
			comm = optarg;
			if (!*comm || strlen(comm) > COMM_MAX)
				usage_error("--comm: '%s' must be 1..%d characters",
					    comm, COMM_MAX);
			if (strpbrk(comm, " \t\n="))
				usage_error("--comm: '%s' would break the HVHOG line "
					    "(space or '=')", comm);
			break;
		case 'd':
			delay = parse_arg(optarg, "start-delay", "MS", 0, 3600000);
			break;
		case 'o':
			start_on = optarg;
			break;
		case 'b':
			bursts = parse_arg(optarg, "bursts", "N", 1, 100000);
			break;
		case 'g':
			gap = parse_arg(optarg, "gap", "MS", 0, 3600000);
			break;
		case 'h':
			usage();
		default:
			bad_option(c, argv);
		}
	}
	no_operands(argc, argv);
	if (cpu < 0)
		usage_error("--cpu is required");
	if (ms < 0)
		usage_error("--ms is required");

	/* Everything that can be refused is settled before the delay. */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("--cpu %ld: sched_setaffinity: %s", cpu, strerror(errno));
	if (fifo) {
		sp.sched_priority = fifo;
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			fail("--fifo %ld: sched_setscheduler(SCHED_FIFO): %s", fifo,
			     strerror(errno));
	}
	if (prctl(PR_SET_NAME, comm, 0, 0, 0))
		fail("--comm %s: prctl(PR_SET_NAME): %s", comm, strerror(errno));
	if (start_on)
		wait_on(start_on);
	if (delay)
		sleep_ms(delay);

	start = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	printf("HVHOG pid=%d tid=%d comm=%s cpu=%ld ms=%ld fifo=%ld start_ns=%" PRIu64 "\n",
	       getpid(), gettid(), comm, cpu, ms, fifo, start);
	fflush(stdout);
	for (;;) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

		do
			end = clock_ns(CLOCK_MONOTONIC);
		while (end - t0 < (uint64_t)ms * 1000000);
		wall += end - t0;
		if (!--bursts)
			break;
		sleep_ms(gap);
	}
	cpu1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	/* wall_ns: the time burning, all bursts together. */
	printf("HVHOG done cpu_ns=%" PRIu64 " wall_ns=%" PRIu64 " end_ns=%" PRIu64 "\n",
	       cpu1 - cpu0, wall, end);
	return 0;
}
