// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl exporter --textfile DIR --once against canned replies: the
 * module's figures as they come through the client into the file (the
 * writer's lines in detail are metrics_test.c's), the file written whole
 * and renamed (mode 0644 whatever the umask, no temporary left, a file
 * someone left under the old temporary's name untouched), an unloaded
 * module as hvtrace_up 0, and each bad command line refused before the
 * module is asked or a file is written.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "config_file.h"
#include "exporter.h"
#include "fake_nl.h"

static char dir[] = "/tmp/hvtrace-exporter-test.XXXXXX";
static char prom[sizeof(dir) + 32], tmp[sizeof(dir) + 32];

/* Vm 3 (pid 777) vCPU 1's nest, destroyed or not, COUNT exits. */
static struct nlattr *vcpu_start(struct nlmsghdr *nlh, bool gone,
				 uint64_t count)
{
	struct nlattr *n = mnl_attr_nest_start(nlh, HVTRACE_A_VCPU);

	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_ID, 3);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_VM_PID, 777);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_ID, 1);
	if (gone)
		mnl_attr_put_u8(nlh, HVTRACE_VCPU_GONE, 1);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_COUNT, count);
	return n;
}

/* The module's ABI in the canned status. */
static uint32_t reply_abi = 3;

static void put_replies(void)
{
	struct hvtrace_hist_bucket b[] = { { .index = 40, .count = 3 },
					   { .index = 300, .count = 1 } };
	struct hvtrace_vcpu_reason vr = { .code = 0x072,
					  .isa = HVTRACE_ISA_SVM,
					  .count = 4, .total_ns = 3000000 };
	struct nlmsghdr *nlh;
	struct nlattr *n;

	fake_reset();
	nlh = fake_reply(HVTRACE_CMD_GET_STATUS);
	mnl_attr_put_strz(nlh, HVTRACE_A_VERSION, "0.1.0");
	mnl_attr_put_u32(nlh, HVTRACE_A_ABI, reply_abi);
	mnl_attr_put_u64(nlh, HVTRACE_A_STATS_AGE_NS, 7000000000);
	n = mnl_attr_nest_start(nlh, HVTRACE_A_ACCT);
	mnl_attr_put_u64(nlh, HVTRACE_ACCT_SEEN, 4);
	mnl_attr_put_u64(nlh, HVTRACE_ACCT_LOST, 4);
	mnl_attr_nest_end(nlh, n);

	/* CPUID: 4 exits, 3 in bucket 40 ([64, 65] ns), 1 in 300. */
	nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	n = mnl_attr_nest_start(nlh, HVTRACE_A_REASON);
	mnl_attr_put_u8(nlh, HVTRACE_RSN_ISA, HVTRACE_ISA_SVM);
	mnl_attr_put_u32(nlh, HVTRACE_RSN_CODE, 0x072);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_COUNT, 4);
	mnl_attr_put_u64(nlh, HVTRACE_RSN_TOTAL_NS, 3000000);
	mnl_attr_put(nlh, HVTRACE_RSN_HIST, sizeof(b), b);
	mnl_attr_nest_end(nlh, n);
	nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	n = vcpu_start(nlh, false, 4);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_GUEST_NS, 1000000000);
	mnl_attr_put_u8(nlh, HVTRACE_VCPU_EXIT_ISA, HVTRACE_ISA_SVM);
	mnl_attr_put_u32(nlh, HVTRACE_VCPU_EXIT_REASON, 0x07b);
	mnl_attr_put_u64(nlh, HVTRACE_VCPU_EXIT_NS, 1500000000);
	mnl_attr_put_u8(nlh, HVTRACE_VCPU_EXIT_STATE, HVTRACE_VCPU_IN_VMM);
	/* Its exits per reason (the exporter asks for them): the 4 CPUIDs. */
	mnl_attr_put(nlh, HVTRACE_VCPU_REASONS, sizeof(vr), &vr);
	mnl_attr_nest_end(nlh, n);
}

/* PATH's whole text, "" when there is none; the caller frees it. */
static char *file_text(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	size_t len = fd >= 0 && !fstat(fd, &st) ? st.st_size : 0;
	char *s = calloc(1, len + 1);

	if (len && read(fd, s, len) != (ssize_t)len)
		s[0] = '\0';
	if (fd >= 0)
		close(fd);
	return s;
}

/* The names in DIR but . and .., sorted, one a line. */
static char *dir_names(void)
{
	struct dirent **e;
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	int n = scandir(dir, &e, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		if (strcmp(e[i]->d_name, ".") && strcmp(e[i]->d_name, ".."))
			fprintf(f, "%s\n", e[i]->d_name);
		free(e[i]);
	}
	free(n >= 0 ? e : NULL);
	fclose(f);
	return s;
}

/* Run exporter ARGS...; its exit status, and its output in *OUT. */
#define RUN(out, ...) ({						\
	int _rc;							\
	fake_capture_begin();						\
	_rc = FAKE_RUN(hvctl_cmd_exporter, "exporter", __VA_ARGS__);	\
	*(out) = fake_capture_end();					\
	_rc;								\
})

static void test_once(void)
{
	struct stat st;
	mode_t old = umask(077);
	char *out, *text;
	int fd;

	put_replies();
	/*
	 * A file under the name the temporary once had (a killed run's, or
	 * one left to be written into): neither opened nor chmod'ed.
	 */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK_INT(write(fd, "mine\n", 5), 5);
	close(fd);
	CHECK_INT(RUN(&out, "--textfile", dir, "--once", NULL), 0);
	umask(old);
	CHECK_STR(out, "");
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATUS][0], 2);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	CHECK_INT(stat(prom, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0644);
	CHECK_INT(stat(tmp, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0600);
	text = file_text(tmp);
	CHECK_STR(text, "mine\n");
	free(text);
	/* No temporary of ours left. */
	text = dir_names();
	CHECK_STR(text, ".hvtrace.prom.tmp\nhvtrace.prom\n");
	free(text);
	unlink(tmp);
	text = file_text(prom);
	CHECK_HAS(text, "\nhvtrace_up 1\n");
	CHECK_HAS(text, "\nhvtrace_build_info{version=\"0.1.0\",abi=\"3\",kernel=\"");
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"3\",pid=\"777\",reason=\"CPUID\"} 4\n");
	CHECK_HAS(text, "\nhvtrace_exit_seconds_total{vm=\"3\",pid=\"777\",reason=\"CPUID\"} 0.003\n");
	CHECK_HAS(text, "\nhvtrace_exit_duration_seconds_bucket{reason=\"CPUID\","
		  "le=\"0.000000255\"} 3\n");
	CHECK_HAS(text, "\nhvtrace_exit_duration_seconds_bucket{reason=\"CPUID\","
		  "le=\"+Inf\"} 4\n");
	CHECK_HAS(text, "\nhvtrace_vcpu_seconds_total{vm=\"3\",pid=\"777\","
		  "vcpu=\"1\",state=\"guest\"} 1\n");
	CHECK_HAS(text, "\nhvtrace_vcpu_exit_in_progress_seconds{vm=\"3\","
		  "pid=\"777\",vcpu=\"1\",state=\"in_vmm\"} 1.5\n");
	CHECK_HAS(text, "\nhvtrace_recording_outcomes_total{kind=\"exit\","
		  "outcome=\"lost\"} 4\n");
	CHECK_HAS(text, "\nhvtrace_stats_age_seconds 7\n");
	free(text);
	free(out);
}

/* No module: the file says so, and the log once why. */
static void test_unloaded(void)
{
	char *out, *text;

	put_replies();
	fake_open_err = -ENOENT;
	CHECK_INT(RUN(&out, "--textfile", dir, "--once", NULL), 0);
	CHECK_HAS(out, "hvctl: warning: the module cannot be read (fake: "
		  "cannot open (-2)): hvtrace_up is 0\n");
	CHECK_INT(fake_requests, 0);
	text = file_text(prom);
	CHECK_HAS(text, "# TYPE hvtrace_up gauge\nhvtrace_up 0\n");
	CHECK_HASNT(text, "hvtrace_exits_total");
	free(text);
	free(out);
}

/*
 * A vCPU destroyed while the dump ran comes twice, live then destroyed:
 * counted once, as it ended, in its vCPU's series and its VM's.
 */
static void test_sent_twice(void)
{
	struct hvtrace_vcpu_reason vr = { .code = 0x072,
					  .isa = HVTRACE_ISA_SVM,
					  .count = 9, .total_ns = 5000000 };
	struct nlmsghdr *nlh;
	struct nlattr *n;
	char *out, *text;

	put_replies();
	nlh = fake_dump(HVTRACE_CMD_GET_STATS);
	n = vcpu_start(nlh, true, 9);
	mnl_attr_put(nlh, HVTRACE_VCPU_REASONS, sizeof(vr), &vr);
	mnl_attr_nest_end(nlh, n);
	CHECK_INT(RUN(&out, "--textfile", dir, "--once", NULL), 0);
	CHECK_STR(out, "");
	text = file_text(prom);
	CHECK_HAS(text, "\nhvtrace_vcpu_exits_total{vm=\"3\",pid=\"777\","
		  "vcpu=\"1\"} 9\n");
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"3\",pid=\"777\","
		  "reason=\"CPUID\"} 9\n");
	free(text);
	free(out);
}

/*
 * A module before ABI 4 (loaded before an upgrade) does not know the
 * request for counters since load: those since its last clear, and the
 * log says so once. A module of ABI 4 that refuses it is an error.
 */
static void test_old_module(void)
{
	char *out, *text;

	put_replies();
	fake_unknown_attr = HVTRACE_A_SINCE_LOAD;
	CHECK_INT(RUN(&out, "--textfile", dir, "--once", NULL), 0);
	CHECK_STR(out, "hvctl: warning: the module (0.1.0, ABI 3) keeps no "
		  "counters since load (ABI 4): until it is reloaded, hvctl "
		  "clear sets the metrics' counters back, and "
		  "hvtrace_exits_total and hvtrace_exit_seconds_total have no "
		  "samples\n");
	text = file_text(prom);
	CHECK_HAS(text, "\nhvtrace_up 1\n");
	CHECK_HAS(text, "\nhvtrace_exit_duration_seconds_bucket{reason=\"CPUID\","
		  "le=\"+Inf\"} 4\n");
	free(text);
	free(out);

	reply_abi = 4;
	put_replies();
	fake_unknown_attr = HVTRACE_A_SINCE_LOAD;
	CHECK_INT(RUN(&out, "--textfile", dir, "--once", NULL), 0);
	CHECK_STR(out, "hvctl: warning: the module cannot be read (the "
		  "module (ABI 4) refused the counters since load): "
		  "hvtrace_up is 0\n");
	text = file_text(prom);
	CHECK_HAS(text, "\nhvtrace_up 0\n");
	free(text);
	free(out);
	reply_abi = 3;
}

/* A name and a port, HVC_LISTEN_LEN bytes: one more than allowed. */
static char long_listen[HVC_LISTEN_LEN + 1];

/* Refused, with the reason, before the module is asked. */
static void test_refused(void)
{
	static const struct {
		int status;
		const char *err, *args[5];
	} cases[] = {
		{ 2, "--once writes the textfile once: it needs --textfile DIR",
		  { "--once" } },
		{ 2, "--once writes the textfile and exits: it serves no --listen",
		  { "--once", "--textfile", dir, "--listen", "127.0.0.1:1" } },
		{ 2, "--interval is how often the textfile is written: it "
		  "needs --textfile DIR", { "--interval", "5s" } },
		{ 2, "--interval must be at least", { "--textfile", dir,
		  "--interval", "10ms" } },
		{ 2, "--listen 'localhost': ADDR:PORT wanted",
		  { "--listen", "localhost" } },
		{ 2, "--listen '127.0.0.1:65536': port '65536' is no number "
		  "from 0 to 65535", { "--listen", "127.0.0.1:65536" } },
		{ 2, "port '' is no number", { "--listen", "127.0.0.1:" } },
		{ 2, "port '-1' is no number", { "--listen", "127.0.0.1:-1" } },
		{ 2, "--listen '[::1': not an address", { "--listen", "[::1:80" } },
		/* ADDR quoted as typed, brackets and all. */
		{ 2, "--listen '[a[b]': not an address",
		  { "--listen", "[a[b]:80" } },
		{ 2, "--listen '[zz]': not an address",
		  { "--listen", "[zz]:80" } },
		{ 2, "--listen '[::1]x': not an address",
		  { "--listen", "[::1]x:80" } },
		{ 2, "--listen 'aaaaaaaaaaaaaaaaaaaaaaaa...' is 64 bytes "
		  "long: at most 63", { "--listen", long_listen } },
		{ 2, "--listen: address 'no.such.host.invalid'",
		  { "--listen", "no.such.host.invalid:9655" } },
		{ 1, "--textfile /nonexistent/dir: No such file or directory",
		  { "--textfile", "/nonexistent/dir", "--once" } },
		{ 1, "--textfile /dev/null: not a directory",
		  { "--textfile", "/dev/null", "--once" } },
		{ 1, "/nonexistent.conf", { "--config", "/nonexistent.conf",
		  "--textfile", dir, "--once" } },
		{ 2, "unexpected argument", { "now" } },
	};

	memset(long_listen, 'a', HVC_LISTEN_LEN - 5);
	strcpy(long_listen + HVC_LISTEN_LEN - 5, ":9655");
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = { "exporter" }, *out;
		int argc = 1, rc;

		for (int a = 0; a < 5 && cases[i].args[a]; a++)
			argv[argc++] = (char *)cases[i].args[a];
		put_replies();
		unlink(prom);
		fake_capture_begin();
		rc = hvctl_cmd_exporter.run(argc, argv);
		out = fake_capture_end();
		CHECK_MSG(rc == cases[i].status, "%s: exit %d, not %d", argv[1],
			  rc, cases[i].status);
		CHECK_MSG(strstr(fake_err, cases[i].err), "%s: '%s', not '%s'",
			  argv[1], fake_err, cases[i].err);
		CHECK_INT(fake_opens + fake_requests, 0);
		CHECK(access(prom, F_OK) && errno == ENOENT);
		free(out);
	}
}

/* A write that fails (the name taken by a directory): no temporary left. */
static void test_write_fails(void)
{
	char *out, *text;

	put_replies();
	unlink(prom);
	CHECK_INT(mkdir(prom, 0755), 0);
	CHECK_INT(RUN(&out, "--textfile", dir, "--once", NULL), 1);
	CHECK_HAS(fake_err, "hvtrace.prom: Is a directory");
	text = dir_names();
	CHECK_STR(text, "hvtrace.prom\n");
	free(text);
	free(out);
	rmdir(prom);
}

/* A configuration file's exporter.* keys, under the command line's. */
static void test_config(void)
{
	char conf[sizeof(dir) + 32], *out, *text;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/hvtrace.conf", dir);
	f = fopen(conf, "w");
	/* --once serves nothing: the file's listen is not taken. */
	fprintf(f, "# the exporter\nexporter.listen 127.0.0.1:1\n"
		"exporter.textfile %s\nexporter.interval 30s\n", dir);
	fclose(f);
	put_replies();
	unlink(prom);
	CHECK_INT(RUN(&out, "--config", conf, "--once", NULL), 0);
	CHECK_STR(out, "");
	text = file_text(prom);
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"3\",pid=\"777\",reason=\"CPUID\"} 4\n");
	free(text);
	free(out);

	/* A bad line, any key's: nothing is asked, nothing written. */
	f = fopen(conf, "w");
	fprintf(f, "exporter.textfile %s\nexporter.interval 10ms\n", dir);
	fclose(f);
	put_replies();
	unlink(prom);
	CHECK_INT(RUN(&out, "--config", conf, "--once", NULL), 1);
	CHECK_HAS(fake_err, "hvtrace.conf:2: exporter.interval");
	CHECK_INT(fake_opens + fake_requests, 0);
	CHECK(access(prom, F_OK) && errno == ENOENT);
	free(out);
	unlink(conf);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	snprintf(prom, sizeof(prom), "%s/hvtrace.prom", dir);
	snprintf(tmp, sizeof(tmp), "%s/.hvtrace.prom.tmp", dir);
	test_once();
	test_unloaded();
	test_old_module();
	test_sent_twice();
	test_write_fails();
	test_refused();
	test_config();
	unlink(prom);
	rmdir(dir);
	return unit_report();
}
