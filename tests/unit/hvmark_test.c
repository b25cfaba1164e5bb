// SPDX-License-Identifier: GPL-2.0
/*
 * user/hvmark (libhvmark.a): its options, every refusal naming the bad
 * argument, the mark's line to the byte, and the trace_marker's choice
 * and writes, on files of the test's own. The CPU's part (cpu.h) is not
 * here: tests/e2e/72-qemu-linux-guest.t runs it in a guest.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hvmark.h"
#include "unit.h"

#define MAX_ARGS 8

/* Parse the words of LINE ("hvmark" first), as the shell would split it. */
static int parse(const char *line, struct hvmark_opts *o, char *err)
{
	static char buf[256];
	char *argv[MAX_ARGS + 1];
	int argc = 0;

	snprintf(buf, sizeof(buf), "hvmark %s", line);
	for (char *w = strtok(buf, " "); w && argc < MAX_ARGS; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	err[0] = '\0';
	return hvmark_parse(argc, argv, o, err);
}

static void check_ok(int line, const char *args, uint32_t id, uint32_t count,
		     uint64_t interval_ns, bool quiet, bool marker)
{
	char err[HVMARK_ERR_LEN];
	struct hvmark_opts o;

	if (!unit_check(parse(args, &o, err) == 0, __FILE__, line,
			"'%s' refused: %s", args, err))
		return;
	unit_check(o.action == HVMARK_RUN && o.id == id && o.count == count &&
		   o.interval_ns == interval_ns && o.quiet == quiet &&
		   o.trace_marker == marker, __FILE__, line,
		   "'%s': action %d id %" PRIu32 " count %" PRIu32 " interval %"
		   PRIu64 " quiet %d marker %d", args, o.action, o.id, o.count,
		   o.interval_ns, o.quiet, o.trace_marker);
}

/* Refused, with exactly the message WANT. */
static void check_bad(int line, const char *args, const char *want)
{
	char err[HVMARK_ERR_LEN];
	struct hvmark_opts o;

	if (!unit_check(parse(args, &o, err) == -1, __FILE__, line,
			"'%s' accepted", args))
		return;
	unit_check(!strcmp(err, want), __FILE__, line,
		   "'%s': \"%s\", want \"%s\"", args, err, want);
}

#define OK(args, ...)	check_ok(__LINE__, args, __VA_ARGS__)
#define BAD(args, m)	check_bad(__LINE__, args, m)

static void test_parse_good(void)
{
	OK("", 1, 1, 0, false, true);
	OK("200", 200, 1, 0, false, true);
	OK("0", 0, 1, 0, false, true);
	OK("0x10", 16, 1, 0, false, true);
	OK("4294967295", UINT32_MAX, 1, 0, false, true);
	OK("-n 5 -i 20ms 100", 100, 5, 20000000, false, true);
	OK("100 -n 5 -i 20ms", 100, 5, 20000000, false, true);
	OK("--count 3 --interval 1s -q --no-trace-marker 7", 7, 3,
	   1000000000, true, false);
	OK("--count=3 --interval=1.5ms", 1, 3, 1500000, false, true);
	OK("-qn2", 1, 2, 0, true, true);
	OK("-i 0", 1, 1, 0, false, true);
	OK("-- 9", 9, 1, 0, false, true);
	OK("4294967294 -n 2", 4294967294U, 2, 0, false, true);
	OK("-n 4294967295 0", 0, UINT32_MAX, 0, false, true);
}

static void test_parse_bad(void)
{
	BAD("-n 0", "-n: '0' is not a count (1 to 4294967295)");
	BAD("-n abc", "-n: 'abc' is not a count (1 to 4294967295)");
	BAD("-n -1", "-n: '-1' is not a count (1 to 4294967295)");
	BAD("-n 4294967296", "-n: '4294967296' is not a count (1 to 4294967295)");
	BAD("-n", "-n needs a value");
	BAD("--count", "--count needs a value");
	BAD("-i 10", "-i: missing unit in '10' (use ns, us, ms or s)");
	BAD("-i", "-i needs a value");
	BAD("-z", "bad option '-z'");
	BAD("-qz", "bad option '-z'");
	BAD("--foo", "bad option '--foo'");
	BAD("--quiet=1", "bad option '--quiet=1'");
	BAD("x", "ID: 'x' is not a mark id (0 to 4294967295)");
	BAD("12x", "ID: '12x' is not a mark id (0 to 4294967295)");
	BAD("0x", "ID: '0x' is not a mark id (0 to 4294967295)");
	BAD("-- -1", "ID: '-1' is not a mark id (0 to 4294967295)");
	BAD("4294967296", "ID: '4294967296' is not a mark id (0 to 4294967295)");
	BAD("1 2", "one ID only: '2' is one more");
	BAD("4294967295 -n 2",
	    "ID 4294967295 and -n 2: the last id would pass 4294967295");
}

static void test_parse_actions(void)
{
	char err[HVMARK_ERR_LEN];
	struct hvmark_opts o;

	CHECK(parse("--help", &o, err) == 0 && o.action == HVMARK_HELP);
	CHECK(parse("--version", &o, err) == 0 && o.action == HVMARK_VERSION);
	CHECK(parse("-n 2 --help x", &o, err) == 0 && o.action == HVMARK_HELP);
	/* getopt starts over: a second call sees its own arguments only. */
	CHECK(parse("-q -n 4 9", &o, err) == 0);
	OK("", 1, 1, 0, false, true);
}

static void test_line(void)
{
	char buf[HVMARK_LINE_LEN];
	size_t n;

	n = hvmark_line(buf, 100, 123456789012ULL, 987654321);
	CHECK_STR(buf, "hvmark: mark 100 tsc 123456789012 monotonic_ns 987654321\n");
	CHECK_INT(n, strlen(buf));
	/* The longest line fits, whole. */
	n = hvmark_line(buf, UINT32_MAX, UINT64_MAX, UINT64_MAX);
	CHECK_STR(buf, "hvmark: mark 4294967295 tsc 18446744073709551615 "
		  "monotonic_ns 18446744073709551615\n");
	CHECK_INT(n, strlen(buf));
	CHECK(n < HVMARK_LINE_LEN);
	n = hvmark_line(buf, 0, 0, 0);
	CHECK_STR(buf, "hvmark: mark 0 tsc 0 monotonic_ns 0\n");
}

static void test_marker(void)
{
	char dir[] = "/tmp/hvmark-test.XXXXXX", missing[64], file[64], ro[64];
	const char *line = "hvmark: mark 1 tsc 2 monotonic_ns 3\n", *path = NULL;
	char got[64] = "";
	int fd;

	if (!CHECK(mkdtemp(dir) != NULL))
		return;
	snprintf(missing, sizeof(missing), "%s/tracing/trace_marker", dir);
	snprintf(file, sizeof(file), "%s/trace_marker", dir);
	snprintf(ro, sizeof(ro), "%s/ro_marker", dir);
	close(open(file, O_CREAT | O_WRONLY, 0600));
	close(open(ro, O_CREAT | O_WRONLY, 0400));

	/* None there: no descriptor, no error. */
	const char *none[] = { missing, NULL };

	CHECK_INT(hvmark_marker_open(none, &path), -1);
	CHECK(path == NULL);
	/* The first that exists. */
	const char *two[] = { missing, file, NULL };

	fd = hvmark_marker_open(two, &path);
	CHECK(fd >= 0);
	CHECK_STR(path, file);
	CHECK_INT(hvmark_marker_write(fd, line, strlen(line)), HVMARK_MARKER_OK);
	close(fd);
	fd = open(file, O_RDONLY);
	CHECK_INT(read(fd, got, sizeof(got) - 1), (long long)strlen(line));
	CHECK_STR(got, line);
	close(fd);
	/*
	 * EBADF is what tracing_on 0 gives (the descriptor is open for
	 * writing: nothing else does): OFF, not a failure.
	 */
	CHECK_INT(hvmark_marker_write(fd, line, strlen(line)), HVMARK_MARKER_OFF);
	/* A write the kernel refuses: FAILED, errno kept for the message. */
	fd = open("/dev/full", O_WRONLY);
	if (fd >= 0) {
		CHECK_INT(hvmark_marker_write(fd, line, strlen(line)),
			  HVMARK_MARKER_FAILED);
		CHECK_INT(errno, ENOSPC);
		close(fd);
	}
	/* Not writable (root may write anyway: then it is chosen). */
	const char *ro_only[] = { ro, NULL };

	path = NULL;
	fd = hvmark_marker_open(ro_only, &path);
	CHECK(geteuid() == 0 ? fd >= 0 : fd == -1 && path == NULL);
	if (fd >= 0)
		close(fd);
	unlink(file);
	unlink(ro);
	rmdir(dir);
}

int main(void)
{
	test_parse_good();
	test_parse_bad();
	test_parse_actions();
	test_line();
	test_marker();
	return unit_report();
}
