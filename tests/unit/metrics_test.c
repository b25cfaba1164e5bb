// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics writer (user/lib/metrics.h) on canned structs
 * (metrics_canned.h): every sample line exactly, each family's HELP and
 * TYPE before its samples and the family in one piece, the histogram's
 * cumulative counts against sums of the kernel's buckets computed here,
 * label escaping, seconds as exact decimals, an unreadable module.
 */
#include <inttypes.h>

#include "metrics.h"
#include "metrics_canned.h"
#include "prom_text.h"
#include "unit.h"

#define HIST "hvtrace_exit_duration_seconds"

/* The exposition of STATUS and STATS (NULL: none), malloc'd. */
static char *exposition(const struct hvc_status *status,
			const struct hvc_stats *stats)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret = metrics_write(f, &(struct metrics_in){
		.status = status, .stats = stats, .kernel = "6.12.0-test",
	});

	fclose(f);
	CHECK_INT(ret, 0);
	return text;
}

/* The canned figures' exposition; S keeps the stats (hvc_stats_free()). */
static char *canned(struct hvc_stats *s)
{
	struct hvc_status st;

	canned_status(&st);
	canned_stats(s);
	return exposition(&st, s);
}

/* Every sample line but the histogram's, in the writer's order. */
static const char *const samples[] = {
	"hvtrace_up 1",
	"hvtrace_build_info{version=\"0.1.0\",abi=\"3\",kernel=\"6.12.0-test\"} 1",
	/* By VM, then label; vm 1's NPF from three vCPU rows added up. */
	"hvtrace_exits_total{vm=\"1\",pid=\"4242\",reason=\"HLT\"} 1",
	"hvtrace_exits_total{vm=\"1\",pid=\"4242\",reason=\"NPF\"} 6",
	"hvtrace_exits_total{vm=\"2\",pid=\"5000\",reason=\"other SVM\"} 4",
	"hvtrace_exit_seconds_total{vm=\"1\",pid=\"4242\",reason=\"HLT\"} 0.000005",
	"hvtrace_exit_seconds_total{vm=\"1\",pid=\"4242\",reason=\"NPF\"} 0.0000045",
	"hvtrace_exit_seconds_total{vm=\"2\",pid=\"5000\",reason=\"other SVM\"} 0.0000004",
	/* vm 1 vcpu 1: the destroyed row and the live one added up. */
	"hvtrace_vcpu_exits_total{vm=\"1\",pid=\"4242\",vcpu=\"0\"} 1000",
	"hvtrace_vcpu_exits_total{vm=\"1\",pid=\"4242\",vcpu=\"1\"} 2500",
	"hvtrace_vcpu_exits_total{vm=\"2\",pid=\"5000\",vcpu=\"0\"} 3000",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"guest\"} 0.005",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"handling\"} 0.0004",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"vmm\"} 0.0001",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"halt\"} 0.0002",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"runnable\"} 0.0003",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"other\"} 0",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",state=\"guest\"} 0.0125",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",state=\"handling\"} 0.001",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",state=\"vmm\"} 0.00025",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",state=\"halt\"} 0.0005",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",state=\"runnable\"} 0.00075",
	"hvtrace_vcpu_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",state=\"other\"} 0",
	"hvtrace_vcpu_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",state=\"guest\"} 0.015",
	"hvtrace_vcpu_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",state=\"handling\"} 0.0012",
	"hvtrace_vcpu_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",state=\"vmm\"} 0.0003",
	"hvtrace_vcpu_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",state=\"halt\"} 0.0006",
	"hvtrace_vcpu_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",state=\"runnable\"} 0.0009",
	"hvtrace_vcpu_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",state=\"other\"} 0",
	"hvtrace_vcpu_preemptions_total{vm=\"1\",pid=\"4242\",vcpu=\"0\"} 10",
	"hvtrace_vcpu_preemptions_total{vm=\"1\",pid=\"4242\",vcpu=\"1\"} 25",
	"hvtrace_vcpu_preemptions_total{vm=\"2\",pid=\"5000\",vcpu=\"0\"} 30",
	"hvtrace_vcpu_preempted_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\"} 0.00025",
	"hvtrace_vcpu_preempted_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\"} 0.000625",
	"hvtrace_vcpu_preempted_seconds_total{vm=\"2\",pid=\"5000\",vcpu=\"0\"} 0.00075",
	/* Only the live vCPU out of the guest; the destroyed one's is old. */
	"hvtrace_vcpu_exit_in_progress_seconds{vm=\"1\",pid=\"4242\",vcpu=\"0\",state=\"blocked\"} 0.002",
	/* By vCPU, then vector, the other row last; vm 1 vcpu 1's added up. */
	"hvtrace_irq_deliveries_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\"} 5",
	"hvtrace_irq_deliveries_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"251\"} 2",
	"hvtrace_irq_deliveries_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"other\"} 4",
	"hvtrace_irq_deliveries_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\"} 5",
	"hvtrace_irq_deliveries_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"251\"} 1",
	"hvtrace_irq_deliveries_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"other\"} 1",
	"hvtrace_irq_delivery_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\"} 0.00005",
	"hvtrace_irq_delivery_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"251\"} 0.000003",
	"hvtrace_irq_delivery_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"other\"} 0.000008",
	"hvtrace_irq_delivery_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\"} 0.000005",
	"hvtrace_irq_delivery_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"251\"} 0.000001",
	"hvtrace_irq_delivery_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"other\"} 0.0000005",
	/* Split rows only; handling the rest; vm 1 vcpu 1's added up. */
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\",state=\"guest\"} 0.00001",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\",state=\"handling\"} 0.000005",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\",state=\"vmm\"} 0",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\",state=\"halt\"} 0.000005",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\",state=\"runnable\"} 0.00003",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",vector=\"236\",state=\"other\"} 0",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\",state=\"guest\"} 0.0000015",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\",state=\"handling\"} 0.000001",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\",state=\"vmm\"} 0",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\",state=\"halt\"} 0.000001",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\",state=\"runnable\"} 0.0000015",
	"hvtrace_irq_wait_seconds_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",vector=\"236\",state=\"other\"} 0",
	/* Every vCPU's, zeros too: all three probes attached. */
	"hvtrace_irq_not_timed_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",why=\"unmatched\"} 7",
	"hvtrace_irq_not_timed_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",why=\"reinjected\"} 0",
	"hvtrace_irq_not_timed_total{vm=\"1\",pid=\"4242\",vcpu=\"0\",why=\"posted\"} 0",
	"hvtrace_irq_not_timed_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",why=\"unmatched\"} 0",
	"hvtrace_irq_not_timed_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",why=\"reinjected\"} 2",
	"hvtrace_irq_not_timed_total{vm=\"1\",pid=\"4242\",vcpu=\"1\",why=\"posted\"} 6",
	"hvtrace_irq_not_timed_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",why=\"unmatched\"} 0",
	"hvtrace_irq_not_timed_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",why=\"reinjected\"} 0",
	"hvtrace_irq_not_timed_total{vm=\"2\",pid=\"5000\",vcpu=\"0\",why=\"posted\"} 0",
	/* By comm (kworker/0:1's two pids added up), the 10 heaviest. */
	"hvtrace_preemptor_seconds{comm=\"kworker/0:1\"} 0.000055",
	"hvtrace_preemptor_seconds{comm=\"bad\xef\xbf\xbd" "byte\"} 0.000045",
	"hvtrace_preemptor_seconds{comm=\"say \\\"hi\\\\\\\"\\nok\"} 0.00004",
	"hvtrace_preemptor_seconds{comm=\"task8\"} 0.000018",
	"hvtrace_preemptor_seconds{comm=\"task7\"} 0.000017",
	"hvtrace_preemptor_seconds{comm=\"task6\"} 0.000016",
	"hvtrace_preemptor_seconds{comm=\"task5\"} 0.000015",
	"hvtrace_preemptor_seconds{comm=\"task4\"} 0.000014",
	"hvtrace_preemptor_seconds{comm=\"task3\"} 0.000013",
	"hvtrace_preemptor_seconds{comm=\"task2\"} 0.000012",
	"hvtrace_preemptor_stretches{comm=\"kworker/0:1\"} 5",
	"hvtrace_preemptor_stretches{comm=\"bad\xef\xbf\xbd" "byte\"} 1",
	"hvtrace_preemptor_stretches{comm=\"say \\\"hi\\\\\\\"\\nok\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task8\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task7\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task6\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task5\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task4\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task3\"} 1",
	"hvtrace_preemptor_stretches{comm=\"task2\"} 1",
	"hvtrace_recording_seen_total{kind=\"exit\"} 100",
	"hvtrace_recording_seen_total{kind=\"preemption\"} 8",
	"hvtrace_recording_seen_total{kind=\"mark\"} 9",
	"hvtrace_recording_seen_total{kind=\"irq\"} 15",
	"hvtrace_recording_outcomes_total{kind=\"exit\",outcome=\"filtered\"} 10",
	"hvtrace_recording_outcomes_total{kind=\"exit\",outcome=\"below_threshold\"} 60",
	"hvtrace_recording_outcomes_total{kind=\"exit\",outcome=\"recorded\"} 25",
	"hvtrace_recording_outcomes_total{kind=\"exit\",outcome=\"lost\"} 5",
	"hvtrace_recording_outcomes_total{kind=\"preemption\",outcome=\"filtered\"} 1",
	"hvtrace_recording_outcomes_total{kind=\"preemption\",outcome=\"below_threshold\"} 2",
	"hvtrace_recording_outcomes_total{kind=\"preemption\",outcome=\"recorded\"} 4",
	"hvtrace_recording_outcomes_total{kind=\"preemption\",outcome=\"lost\"} 1",
	"hvtrace_recording_outcomes_total{kind=\"mark\",outcome=\"filtered\"} 1",
	"hvtrace_recording_outcomes_total{kind=\"mark\",outcome=\"limited\"} 2",
	"hvtrace_recording_outcomes_total{kind=\"mark\",outcome=\"recorded\"} 5",
	"hvtrace_recording_outcomes_total{kind=\"mark\",outcome=\"lost\"} 1",
	"hvtrace_recording_outcomes_total{kind=\"irq\",outcome=\"filtered\"} 2",
	"hvtrace_recording_outcomes_total{kind=\"irq\",outcome=\"below_threshold\"} 7",
	"hvtrace_recording_outcomes_total{kind=\"irq\",outcome=\"recorded\"} 5",
	"hvtrace_recording_outcomes_total{kind=\"irq\",outcome=\"lost\"} 1",
	"hvtrace_records_overwritten_total 2",
	"hvtrace_records_drained_total 20",
	"hvtrace_exits_unpaired_total 3",
	"hvtrace_exits_no_entry_total 4",
	"hvtrace_recording 1",
	"hvtrace_stats_age_seconds 2.5",
	"hvtrace_vcpus 3",
	"hvtrace_vcpus_max 1024",
	"hvtrace_vms 2",
	"hvtrace_memory_bytes 1048576",
	"hvtrace_exits_since_load_total 123456",
	"hvtrace_exits_untraced_since_load_total 7",
	"hvtrace_vcpus_created_since_load_total 5",
	"hvtrace_vcpus_refused_since_load_total 1",
	"hvtrace_watch_armed 1",
	"hvtrace_watch_captures_total 6",
	"hvtrace_watch_captures_dropped_total 1",
	"hvtrace_watch_suppressed_total{cause=\"busy\"} 2",
	"hvtrace_watch_suppressed_total{cause=\"rate\"} 3",
	"hvtrace_watch_suppressed_total{cause=\"rate_total\"} 4",
	"hvtrace_watch_no_history_total 0",
	"hvtrace_watch_memory_bytes 4096",
};

#define N_SAMPLES (sizeof(samples) / sizeof(samples[0]))

static void test_samples(void)
{
	struct hvc_stats s;
	char *text = canned(&s), *line, *save = NULL;
	unsigned int n = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || !strncmp(line, HIST "_", strlen(HIST) + 1))
			continue;
		if (n < N_SAMPLES)
			CHECK_STR(line, samples[n]);
		n++;
	}
	CHECK_INT(n, N_SAMPLES);
	free(text);
	hvc_stats_free(&s);
}

/* The family of a sample line: its name less a histogram's suffix. */
static void family_of(const char *line, char *fam, size_t len)
{
	size_t n = strcspn(line, "{ ");

	snprintf(fam, len, "%.*s", (int)n, line);
	if (!strncmp(fam, HIST "_", strlen(HIST) + 1))
		snprintf(fam, len, "%s", HIST);
}

/*
 * Each family: "# HELP NAME ..." then "# TYPE NAME TYPE" then its samples,
 * all together; no family twice; the type as its name says.
 */
static void test_families(void)
{
	struct hvc_stats s;
	char *text = canned(&s), *line, *save = NULL;
	char fam[128], cur[128] = "", seen[64][128];
	unsigned int nfam = 0, bad = 0;
	bool want_type = false;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# HELP ", 7)) {
			family_of(line + 7, cur, sizeof(cur));
			for (unsigned int i = 0; i < nfam; i++)
				bad += !strcmp(seen[i], cur);
			if (nfam < 64)
				snprintf(seen[nfam++], sizeof(seen[0]), "%s", cur);
			want_type = true;
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			const char *type = line + 7 + strlen(cur) + 1;

			CHECK_MSG(want_type && !strncmp(line + 7, cur, strlen(cur)),
				  "TYPE without its HELP: %s", line);
			if (strstr(cur, "_total"))
				CHECK_STR(type, "counter");
			want_type = false;
			continue;
		}
		family_of(line, fam, sizeof(fam));
		if (strcmp(fam, cur)) {
			bad++;
			fprintf(stderr, "sample outside its family: %s\n", line);
		}
	}
	CHECK_INT(bad, 0);
	CHECK_INT(nfam, 39);
	free(text);
	hvc_stats_free(&s);
}

/* The seconds text of an le back to nanoseconds, exactly. */
static uint64_t le_ns(const char *s)
{
	uint64_t sec = strtoull(s, NULL, 10), frac = 0;
	const char *dot = strchr(s, '.');
	int digits = 0;

	if (dot)
		for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++, digits++)
			frac = frac * 10 + (*p - '0');
	while (digits++ < 9)
		frac *= 10;
	return sec * 1000000000 + frac;
}

/*
 * Reason LABEL's buckets: edges 2^k - 1 ns for k = 8..32, each the last
 * nanosecond of a kernel bucket, each count the sum of the kernel
 * buckets wholly at or below it, as computed here from the rows of
 * ROWS (NROWS); then +Inf, _sum and _count.
 */
static void check_hist(const char *text, const char *label,
		       const struct hvc_reason_row *const *rows,
		       unsigned int nrows, const char *sum)
{
	char prefix[128], want[128];
	const char *p = text;
	unsigned int k = METRICS_LE_FIRST;
	uint64_t total = 0;

	snprintf(prefix, sizeof(prefix), HIST "_bucket{reason=\"%s\",le=\"",
		 label);
	for (unsigned int r = 0; r < nrows; r++)
		total += rows[r]->hist.count;
	while ((p = strstr(p, prefix))) {
		const char *v = p + strlen(prefix);
		uint64_t edge, got, sum_b = 0;

		p = strchr(v, '\n');
		if (!strncmp(v, "+Inf\"", 5)) {
			CHECK_INT(k, METRICS_LE_LAST + 1);
			CHECK_U64(strtoull(v + 7, NULL, 10), total);
			continue;
		}
		edge = le_ns(v);
		CHECK_U64(edge, (1ULL << k) - 1);
		/* 2^k starts a bucket: the edge ends the one before it. */
		CHECK_U64(hist_lower(hist_index(edge + 1)), edge + 1);
		for (unsigned int r = 0; r < nrows; r++)
			for (unsigned int i = 0; i < HVTRACE_HIST_BUCKETS &&
			     hist_upper(i) <= edge; i++)
				sum_b += rows[r]->hist.bucket[i];
		got = strtoull(strstr(v, "} ") + 2, NULL, 10);
		CHECK_U64(got, sum_b);
		k++;
	}
	CHECK_INT(k, METRICS_LE_LAST + 1);
	snprintf(want, sizeof(want), "\n" HIST "_sum{reason=\"%s\"} %s\n",
		 label, sum);
	CHECK_MSG(strstr(text, want), "no line %s", want + 1);
	snprintf(want, sizeof(want), "\n" HIST "_count{reason=\"%s\"} %" PRIu64
		 "\n", label, total);
	CHECK_MSG(strstr(text, want), "no line %s", want + 1);
}

static void test_hist(void)
{
	struct hvc_stats s;
	char *text = canned(&s);

	check_hist(text, "NPF", (const struct hvc_reason_row *[]){
		   &s.reasons[0] }, 1, "0.001010181");
	check_hist(text, "HLT", (const struct hvc_reason_row *[]){
		   &s.reasons[1] }, 1, "68.589954591");
	check_hist(text, "other SVM", (const struct hvc_reason_row *[]){
		   &s.reasons[3] }, 1, "0.000003");
	check_hist(text, "unknown", (const struct hvc_reason_row *[]){
		   &s.reasons[4], &s.reasons[5] }, 2, "0.0001031");
	/* By hand, at a few edges: NPF's exits on either side of them. */
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"NPF\",le=\"0.000000255\"} 2\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"NPF\",le=\"0.000000511\"} 4\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"NPF\",le=\"0.000001023\"} 6\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"NPF\",le=\"0.000002047\"} 8\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"NPF\",le=\"0.001048575\"} 10\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"HLT\",le=\"2.147483647\"} 1\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"HLT\",le=\"4.294967295\"} 2\n"));
	CHECK(strstr(text, "\n" HIST "_bucket{reason=\"HLT\",le=\"+Inf\"} 4\n"));
	/* The shared overflow histogram: no series for IOIO. */
	CHECK(!strstr(text, HIST "_bucket{reason=\"IOIO\""));
	free(text);
	hvc_stats_free(&s);
}

/* The module could not be read: hvtrace_up 0, nothing else. */
static void test_down(void)
{
	char *text = exposition(NULL, NULL);

	CHECK_STR(text, "# HELP hvtrace_up 1 when the module answered this "
		  "scrape, 0 when it could not be read (not loaded, or no "
		  "CAP_PERFMON)\n# TYPE hvtrace_up gauge\nhvtrace_up 0\n");
	free(text);
}

/* One scrape of STATS with W kept: the exposition, malloc'd. */
static char *kept(const struct hvc_stats *stats, struct metrics_written *w)
{
	struct hvc_status st;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	canned_status(&st);
	CHECK_INT(metrics_write(f, &(struct metrics_in){
		.status = &st, .stats = stats, .kernel = "6.12.0-test",
		.written = w,
	}), 0);
	fclose(f);
	return text;
}

/*
 * A quit VM's vCPUs leave the module's destroyed ring one at a time:
 * its exits per reason stay as written while one is left, never fall,
 * then its series end; a VM still whole is as read.
 */
static void test_written(void)
{
	struct metrics_written w = { 0 };
	struct hvc_stats s = { 0 };
	struct hvc_vcpu_row *v;
	char *text;

	s.vcpus = calloc(4, sizeof(*s.vcpus));
	for (uint32_t id = 0; id < 2; id++) {
		v = canned_vcpu(&s, 9, 900, id, 1000000);
		v->gone = true;
		canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0x400, true, 5 + id,
				   1000);
	}
	v = canned_vcpu(&s, 9, 900, 1, 1000000);	/* its HLT: vCPU 1's */
	v->gone = true;
	canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0x078, true, 2, 100);
	text = kept(&s, &w);
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"9\",pid=\"900\","
		  "reason=\"NPF\"} 11\n");
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"9\",pid=\"900\","
		  "reason=\"HLT\"} 2\n");
	free(text);
	/* vCPU 1's rows dropped: NPF stays 11, HLT stays 2. */
	free(s.vcpus[1].reasons);
	free(s.vcpus[2].reasons);
	s.nr_vcpus = 1;
	text = kept(&s, &w);
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"9\",pid=\"900\","
		  "reason=\"NPF\"} 11\n");
	CHECK_HAS(text, "\nhvtrace_exit_seconds_total{vm=\"9\",pid=\"900\","
		  "reason=\"NPF\"} 0.000002\n");
	CHECK_HAS(text, "\nhvtrace_exits_total{vm=\"9\",pid=\"900\","
		  "reason=\"HLT\"} 2\n");
	free(text);
	/* None left: the VM's series end, and nothing is kept of it. */
	free(s.vcpus[0].reasons);
	s.nr_vcpus = 0;
	text = kept(&s, &w);
	CHECK_HASNT(text, "vm=\"9\"");
	CHECK_INT(w.nr, 0);
	free(text);
	free(s.vcpus);
	metrics_written_free(&w);
}

/* A module that saw nothing: every family said, no row of stats. */
static void test_empty(void)
{
	struct hvc_stats s = { 0 };
	struct hvc_status st;
	char *text;

	canned_status(&st);
	st.watch.known = false;
	text = exposition(&st, &s);
	CHECK(strstr(text, "\n# TYPE hvtrace_exits_total counter\n# HELP"));
	CHECK(strstr(text, "\nhvtrace_recording_seen_total{kind=\"exit\"} 100\n"));
	CHECK(!strstr(text, "hvtrace_watch"));
	free(text);
}

/*
 * A why is said, 0 included, only where its probe is attached: posted
 * needs kvm_apicv_accept_irq's; a module that does not say, none. The
 * maximum (restarted at each clear) is no metric. Whose raises are timed
 * and whence a LAPIC timer's time (hvctl status) are said in HELP, not in
 * a label.
 */
static void test_irq_probes(void)
{
	struct hvc_status st;
	struct hvc_stats s;
	char *text;

	canned_status(&st);
	canned_stats(&s);
	st.irq_probes = HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_INJECT;
	text = exposition(&st, &s);
	CHECK_HAS(text, "\nhvtrace_irq_not_timed_total{vm=\"2\",pid=\"5000\","
		  "vcpu=\"0\",why=\"reinjected\"} 0\n");
	CHECK_HASNT(text, "why=\"posted\"");
	CHECK_HASNT(text, "0.987654321");
	CHECK_HAS(text, "\n# HELP hvtrace_irq_deliveries_total Interrupts "
		  "delivered to a vCPU (injected at a VM entry) from a timed "
		  "raise (by anyone where the module probes KVM's "
		  "__apic_accept_irq, else by a vCPU of its VM), per vector ");
	CHECK_HAS(text, "\n# HELP hvtrace_irq_not_timed_total A vCPU's "
		  "interrupts not timed, by why: unmatched (injected without "
		  "a timed raise: where only vCPUs' raises are timed, the "
		  "VMM's ioctls, irqfds, the in-kernel PIT and IOAPIC), ");
	CHECK_HAS(text, "\n# HELP hvtrace_irq_delivery_seconds_total Their "
		  "time, each from its raise (KVM accepting it into the "
		  "vCPU's local APIC; a LAPIC timer's from its expiry where "
		  "the module probes KVM's apic_timer_fn) to the VM entry ");
	CHECK_HASNT(text, "source=");
	free(text);
	st.irq_probes_known = false;
	text = exposition(&st, &s);
	CHECK_HAS(text, "\n# TYPE hvtrace_irq_not_timed_total counter\n# HELP");
	CHECK_HASNT(text, "\nhvtrace_irq_not_timed_total{");
	free(text);
	hvc_stats_free(&s);
}

/* S as prom_label_value() writes it, into a buffer of the test's. */
static const char *label_text(const char *s)
{
	static char buf[128];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	prom_label_value(f, s);
	fclose(f);
	return buf;
}

static void test_escape(void)
{
	static const struct { const char *in, *out; } cases[] = {
		{ "plain/0:1", "plain/0:1" },
		{ "a\\b", "a\\\\b" },
		{ "say \"x\"", "say \\\"x\\\"" },
		{ "two\nlines", "two\\nlines" },
		{ "tab\tstays", "tab\tstays" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },		/* UTF-8 stays */
		{ "\xff", "\xef\xbf\xbd" },			/* no UTF-8 */
		{ "\xc3", "\xef\xbf\xbd" },			/* cut short */
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },	/* overlong */
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	};
	char buf[PROM_SECONDS_LEN];

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(label_text(cases[i].in), cases[i].out);
	CHECK_STR(prom_seconds(buf, 0), "0");
	CHECK_STR(prom_seconds(buf, 1), "0.000000001");
	CHECK_STR(prom_seconds(buf, 1500000000), "1.5");
	CHECK_STR(prom_seconds(buf, 3000000000ULL), "3");
	CHECK_STR(prom_seconds(buf, 255), "0.000000255");
	CHECK_STR(prom_seconds(buf, UINT64_MAX), "18446744073.709551615");
}

/* Each live VM's name: one info sample, escaped, beside no other. */
static void test_vm_info(void)
{
	static const struct metrics_vm vms[] = {
		{ 3, 4242, "web1", "5eed0c1e-7a2b-4c3d-9e8f-0123456789ab" },
		{ 4, 4300, "a \"b\"\\c", "" },
	};
	struct hvc_status st;
	struct hvc_stats s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	canned_status(&st);
	canned_stats(&s);
	CHECK_INT(metrics_write(f, &(struct metrics_in){
		.status = &st, .stats = &s, .kernel = "6.12.0-test",
		.vms = vms, .nr_vms = 2,
	}), 0);
	fclose(f);
	CHECK(strstr(text, "# TYPE hvtrace_vm_info gauge\n"
		     "hvtrace_vm_info{vm=\"3\",pid=\"4242\",name=\"web1\","
		     "uuid=\"5eed0c1e-7a2b-4c3d-9e8f-0123456789ab\"} 1\n"
		     "hvtrace_vm_info{vm=\"4\",pid=\"4300\","
		     "name=\"a \\\"b\\\"\\\\c\",uuid=\"\"} 1\n# HELP ") != NULL);
	free(text);
	hvc_stats_free(&s);
}

int main(void)
{
	test_samples();
	test_families();
	test_hist();
	test_down();
	test_written();
	test_empty();
	test_irq_probes();
	test_escape();
	test_vm_info();
	return unit_report();
}
