// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report --html: the report as one page that works offline and
 * forever. Charts are SVG written here, tables plain HTML, style inline;
 * no script at all (so none can fail) and a Content-Security-Policy that
 * forbids fetching anything, so the page cannot leak or break when
 * mailed around. Where exit time went shows as a stacked bar per reason
 * and per vCPU; the preemptors and the hot spots they stalled as tables,
 * and so the late interrupts with their why.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "gpa_class.h"
#include "report_capture.h"
#include "report_html.h"
#include "report_late_irqs.h"
#include "report_split.h"
#include "time_parts.h"
#include "util.h"

/* Colours by a reason's rank in time; later reasons share the last. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#86bcb6", "#d37295", "#bab0ac",
};
#define NR_COLORS	ARRAY_SIZE(palette)

/* The parts of exit time, enum rep_part order: runnable stands out. */
static const char *const part_colors[REP_NR_PARTS] = {
	"#4e79a7", "#59a14f", "#bab0ac", "#e15759", "#edc948",
};

/* Histogram and timeline geometry, px. */
#define HW	440
#define HH	150
#define HM	24		/* left/right margin: room for tick labels */
#define HT	8		/* top */
#define HB	22		/* bottom: tick labels */
#define TW	960
#define TH	280
#define TL	64
#define TR	12
#define TT	10
#define TB	30
/* Split bars: a row each, label | bar | total. */
#define BW	960
#define BRH	20
#define BL	190
#define BR	110

struct page {
	FILE *f;
	const struct report *rep;
	const struct rep_summary *sum;
	unsigned int order[REP_MAX_REASONS + 1];	/* reasons by time */
	unsigned int nr;
	unsigned int rank[REP_MAX_REASONS + 1];		/* inverse */
	unsigned int top;
	const struct rep_capture *cap;	/* a capture's trace; NULL: none */
};

static const char *entity(char c)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return "&#39;";
	}
	return NULL;
}

/* S as HTML text: VM names and paths are whatever their owners chose. */
static void text(FILE *f, const char *s)
{
	for (; *s; s++) {
		const char *e = entity(*s);

		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

static const char *color(const struct page *p, unsigned int reason)
{
	unsigned int r = reason <= REP_MAX_REASONS ? p->rank[reason] :
						     NR_COLORS - 1;

	return palette[r < NR_COLORS ? r : NR_COLORS - 1];
}

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;"
	"background:#fff;max-width:1100px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;"
	"border-bottom:1px solid #ddd;padding-bottom:4px}"
	".dir{font-family:monospace;color:#555;margin:0 0 12px}"
	"dl{display:grid;grid-template-columns:max-content auto;gap:2px 16px;"
	"margin:0}dt{color:#666}dd{margin:0}"
	"table{border-collapse:collapse;font-size:13px}"
	"th,td{padding:2px 8px;text-align:right;white-space:nowrap}"
	"th{border-bottom:1px solid #999;font-weight:600}"
	"td.l,th.l{text-align:left}tr:nth-child(even) td{background:#f6f6f6}"
	"td.n{font-family:monospace}.sw{display:inline-block;width:10px;"
	"height:10px;margin-right:6px;border-radius:2px}"
	".grid{display:flex;flex-wrap:wrap;gap:12px}"
	"figure{margin:0;border:1px solid #e4e4e4;border-radius:4px;"
	"padding:6px;width:440px}figcaption{font-size:12px;margin-bottom:2px;"
	"min-height:2.8em}"
	"svg text{font:11px system-ui,sans-serif;fill:#444}"
	".note{color:#666;font-size:12px}.legend span{margin-right:14px;"
	"font-size:12px;white-space:nowrap}";

static void head(struct page *p, const char *dir)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'\">"
	      "<title>hvtrace report: ", p->f);
	text(p->f, dir);
	fprintf(p->f, "</title><style>%s</style></head><body>\n", style);
}

static void summary(struct page *p, const char *dir)
{
	const struct report *rep = p->rep;
	const struct trace_info *i = &p->sum->info;
	uint64_t span = report_span_ns(rep);
	struct rep_table_info vt, ct;
	char a[16], b[16];

	report_table_info(rep, REP_T_VMS, &vt);
	report_table_info(rep, REP_T_VCPUS, &ct);
	fputs("<header id=\"summary\"><h1>hvtrace report</h1><p class=\"dir\">",
	      p->f);
	text(p->f, dir);
	fprintf(p->f, "</p><dl><dt>span</dt><dd>%s (%" PRIu64 " to %" PRIu64
		" ns, host monotonic clock)</dd>", duration_str(a, span), i->first_ts,
		i->last_ts);
	fprintf(p->f, "<dt>exits</dt><dd>%" PRIu64 " (%.0f/s), %s in exits "
		"(max %s)</dd>", p->sum->events,
		span ? (double)p->sum->events * 1e9 / (double)span : 0.0,
		duration_str(a, p->sum->all_ns), duration_str(b, p->sum->max_ns));
	fprintf(p->f, "<dt>preemptions</dt><dd>%" PRIu64 " records of vCPU "
		"threads off CPU inside KVM, %s; %" PRIu64 " exits name the "
		"task that ran instead</dd>", p->sum->preempts,
		duration_str(a, p->sum->preempt_ns), p->sum->pre_noted);
	fprintf(p->f, "<dt>where</dt><dd>%u CPUs, %u%s VMs, %u%s vCPUs</dd>",
		i->nr_streams, vt.used, vt.other.count ? "+" : "",
		ct.used, ct.other.count ? "+" : "");
	fprintf(p->f, "<dt>lost</dt><dd>%" PRIu64 " events discarded; "
		"%.2f%% of the traced CPU time fully covered (%s in loss "
		"ranges)%s</dd>", i->discarded, 100.0 * report_coverage(rep),
		duration_str(a, p->sum->lost_ns),
		i->torn_packets ? "; torn packets ignored" : "");
	if (i->damaged_packets || i->implausible || i->bad_streams)
		fprintf(p->f, "<dt>damage</dt><dd>%" PRIu64 " damaged packets "
			"skipped (their events are not here), %" PRIu64
			" implausible events counted as they are, %u streams "
			"not read or not to the end</dd>", i->damaged_packets,
			i->implausible, i->bad_streams);
	fprintf(p->f, "<dt>memory</dt><dd>%.1f MiB of aggregates, fixed "
		"whatever the trace's size; full tables count the rest as "
		"&ldquo;other&rdquo;</dd></dl></header>\n",
		(double)report_memory(rep) / (1 << 20));
}

static void swatch(const struct page *p, unsigned int reason)
{
	fprintf(p->f, "<span class=\"sw\" style=\"background:%s\"></span>",
		color(p, reason));
}

static void reasons(struct page *p)
{
	const struct report *rep = p->rep;
	char b[6][16];

	fputs("<section id=\"reasons\"><h2>Exit reasons, by time</h2><table>"
	      "<tr><th class=\"l\">reason</th><th>count</th><th>rate/s</th>"
	      "<th>time</th><th>share</th><th>min</th><th>p50</th><th>p99</th>"
	      "<th>p99.9</th><th>max</th></tr>\n", p->f);
	for (unsigned int i = 0; i < p->nr; i++) {
		const struct rep_reason *rr = report_reason(rep, p->order[i]);
		uint64_t span = report_span_ns(rep);

		fputs("<tr><td class=\"l\">", p->f);
		swatch(p, p->order[i]);
		text(p->f, rr->name);
		fprintf(p->f, "</td><td>%" PRIu64 "</td><td>%.0f</td><td>%s</td>"
			"<td>%.2f%%</td><td>%s</td><td>%s</td><td>%s</td>"
			"<td>%s</td><td>%s</td></tr>\n", rr->s.count,
			span ? (double)rr->s.count * 1e9 / (double)span : 0.0,
			duration_str(b[0], rr->s.total_ns),
			p->sum->all_ns ? 100.0 * (double)rr->s.total_ns /
				      (double)p->sum->all_ns : 0.0,
			duration_str(b[1], rr->s.min_ns),
			duration_str(b[2], report_percentile(rr, 50)),
			duration_str(b[3], report_percentile(rr, 99)),
			duration_str(b[4], report_percentile(rr, 99.9)),
			duration_str(b[5], rr->s.max_ns));
	}
	fputs("</table></section>\n", p->f);
}

/* Log-scale time axis of a histogram: decades LO..HI (10^lo ns). */
struct axis {
	double lo, hi;
};

static double hx(const struct axis *a, double ns)
{
	double v = log10(ns < 1 ? 1 : ns);

	if (v < a->lo)
		v = a->lo;
	return HM + (v - a->lo) / (a->hi - a->lo) * (HW - 2 * HM);
}

static const char *decade_label(char *buf, size_t len, int d)
{
	static const char *const names[] = {
		"1ns", "10ns", "100ns", "1us", "10us", "100us", "1ms", "10ms",
		"100ms",
	};

	if (d >= 0 && d < 9)
		return names[d];
	snprintf(buf, len, "%.0fs", pow(10, d - 9));
	return buf;
}

static void hist_axis(const struct page *p, const struct axis *a)
{
	/* Labels at most every 6 decades' worth of width, or they overlap. */
	int y = HH - HB, step = (int)ceil((a->hi - a->lo) / 6);
	char b[32];

	fprintf(p->f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#888\"/>", HM, y, HW - HM, y);
	for (int d = (int)a->lo; d <= (int)a->hi; d++) {
		for (int m = 1; m < 10; m++) {
			double x = hx(a, m * pow(10, d));

			if (d + log10(m) > a->hi + 1e-9)
				break;
			fprintf(p->f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\" stroke=\"#888\"/>", x, y, x,
				y + (m == 1 ? 5 : 2));
		}
		if ((d - (int)a->lo) % (step ? step : 1))
			continue;
		fprintf(p->f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
			"%s</text>", hx(a, pow(10, d)), y + 16,
			decade_label(b, sizeof(b), d));
	}
}

/*
 * Buckets below 32ns are single values; above, groups of 4 of the 32
 * per octave (8 bars an octave). Returns the group's first bucket after
 * I and its bounds [*lo, *hi) in ns.
 */
static unsigned int bucket_group(unsigned int i, uint64_t max_ns,
				 double *lo, double *hi)
{
	unsigned int sub = 1U << HVTRACE_HIST_SUB_BITS;
	unsigned int next = i < sub ? i + 1 : (i & ~3U) + 4;
	uint64_t up;

	if (next > HVTRACE_HIST_BUCKETS)
		next = HVTRACE_HIST_BUCKETS;
	up = hist_upper(next - 1);
	if (up == UINT64_MAX)
		up = max_ns > hist_lower(i) ? max_ns : hist_lower(i);
	*lo = hist_lower(i < sub ? i : i & ~3U);
	*hi = (double)up + 1;
	if (*lo < 0.5)
		*lo = 0.5;
	return next;
}

static void marker(const struct page *p, const struct axis *a, uint64_t ns,
		   const char *name, const char *stroke, const char *dash)
{
	char b[16];
	double x = hx(a, ns);

	fprintf(p->f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
		"stroke=\"%s\" stroke-dasharray=\"%s\"><title>%s %s</title>"
		"</line>", x, HT, x, HH - HB, stroke, dash, name, duration_str(b, ns));
}

/*
 * One reason's latency histogram. Bars are drawn as density over log
 * time (count / decades covered), so bar area is proportional to the
 * number of exits whatever the bucket's width.
 */
static void hist_svg(const struct page *p, unsigned int reason)
{
	const struct rep_reason *rr = report_reason(p->rep, reason);
	const struct hist *h = &rr->hist;
	double lo, hi, dmax = 0, ph = HH - HB - HT;
	struct axis a;
	char b[4][16];

	a.lo = floor(log10(rr->s.min_ns ? (double)rr->s.min_ns : 1));
	a.hi = ceil(log10((double)rr->s.max_ns + 1));
	if (a.hi <= a.lo)
		a.hi = a.lo + 1;
	for (unsigned int i = 0, n; i < HVTRACE_HIST_BUCKETS; i = n) {
		uint64_t c = 0;

		n = bucket_group(i, rr->s.max_ns, &lo, &hi);
		for (unsigned int j = i; j < n; j++)
			c += h->bucket[j];
		if (c && c / (log10(hi) - log10(lo)) > dmax)
			dmax = c / (log10(hi) - log10(lo));
	}
	fprintf(p->f, "<figure><figcaption>");
	swatch(p, reason);
	text(p->f, rr->name);
	fprintf(p->f, ": %" PRIu64 " exits, p50 %s, p99 %s, p99.9 %s, max %s"
		"</figcaption><svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
		" role=\"img\">", rr->s.count,
		duration_str(b[0], report_percentile(rr, 50)),
		duration_str(b[1], report_percentile(rr, 99)),
		duration_str(b[2], report_percentile(rr, 99.9)),
		duration_str(b[3], rr->s.max_ns), HW, HH, HW, HH);
	for (unsigned int i = 0, n; i < HVTRACE_HIST_BUCKETS && dmax > 0;
	     i = n) {
		uint64_t c = 0;
		double x0, x1, y;

		n = bucket_group(i, rr->s.max_ns, &lo, &hi);
		for (unsigned int j = i; j < n; j++)
			c += h->bucket[j];
		if (!c)
			continue;
		x0 = hx(&a, lo);
		x1 = hx(&a, hi);
		y = c / (log10(hi) - log10(lo)) / dmax * ph;
		fprintf(p->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
			"height=\"%.2f\" fill=\"%s\"><title>%s to %s: %" PRIu64
			" exits</title></rect>", x0, HH - HB - (y < 1 ? 1 : y),
			x1 - x0 < 2 ? 2 : x1 - x0, y < 1 ? 1 : y,
			color(p, reason), duration_str(b[0], (uint64_t)lo),
			duration_str(b[1], (uint64_t)hi), c);
	}
	hist_axis(p, &a);
	marker(p, &a, report_percentile(rr, 50), "p50", "#222", "none");
	marker(p, &a, report_percentile(rr, 99), "p99", "#d62728", "4 2");
	marker(p, &a, report_percentile(rr, 99.9), "p99.9", "#7b2d8e", "1 2");
	fputs("</svg></figure>\n", p->f);
}

static void histograms(struct page *p)
{
	fputs("<section id=\"histograms\"><h2>Latency per reason</h2>"
	      "<p class=\"note\">Log time axis; bar area is proportional to the "
	      "number of exits. Lines: p50 solid, p99 dashed red, p99.9 dotted "
	      "purple (exact to the histogram bucket, within 1.6%).</p>"
	      "<div class=\"grid\">\n", p->f);
	for (unsigned int i = 0; i < p->nr; i++)
		hist_svg(p, p->order[i]);
	fputs("</div></section>\n", p->f);
}

/* A round step (1, 2 or 5 times a power of ten) giving about N ticks. */
static double nice_step(double range, int n)
{
	double raw = range / n, mag, f;

	if (raw <= 0)
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Series of the timeline: the first NR_COLORS - 1 reasons, then the rest. */
static unsigned int series_of(const struct page *p, unsigned int reason)
{
	unsigned int r = p->rank[reason];

	return r < NR_COLORS - 1 ? r : NR_COLORS - 1;
}

static uint64_t bin_count(const struct page *p, unsigned int series,
			  unsigned int bin)
{
	uint64_t c = 0;

	for (unsigned int i = 0; i < p->nr; i++)
		if (series_of(p, p->order[i]) == series)
			c += report_reason(p->rep, p->order[i])->bins[bin];
	return c;
}

static void timeline_axes(const struct page *p, uint64_t cmax,
			  double bin_px)
{
	double ph = TH - TT - TB, bin_ns = (double)(1ULL << p->sum->bin_shift);
	double span = p->sum->nr_bins * bin_ns;
	double ys = nice_step((double)cmax, 4), xs = nice_step(span, 8);
	char b[16];

	fprintf(p->f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		"stroke=\"#888\"/>", TL, TH - TB, TW - TR, TH - TB);
	for (double v = 0; v <= (double)cmax; v += ys) {
		double y = TH - TB - v / (double)cmax * ph;

		fprintf(p->f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
			"stroke=\"#e6e6e6\"/><text x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"end\">%.0f</text>", TL, y, TW - TR, y,
			TL - 6, y + 4, v);
	}
	for (double t = 0; t <= span; t += xs) {
		double x = TL + t / bin_ns * bin_px;

		fprintf(p->f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
			"stroke=\"#888\"/><text x=\"%.1f\" y=\"%d\" "
			"text-anchor=\"middle\">%s%s</text>", x, TH - TB, x,
			TH - TB + 5, x, TH - TB + 18, t > 0 ? "+" : "",
			t > 0 ? duration_str(b, (uint64_t)t) : "0");
	}
	fprintf(p->f, "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" "
		"transform=\"rotate(-90 14 %d)\">exits per bin</text>",
		TT + (TH - TT - TB) / 2, TT + (TH - TT - TB) / 2);
}

/* One path per series: a rectangle per bin, stacked on BASE. */
static void timeline_series(const struct page *p, unsigned int s,
			    uint64_t *base, uint64_t cmax, double bin_px,
			    const char *fill)
{
	double ph = TH - TT - TB;

	fprintf(p->f, "<path fill=\"%s\" d=\"", fill);
	for (unsigned int i = 0; i < p->sum->nr_bins; i++) {
		uint64_t c = bin_count(p, s, i);
		double y0, y1;

		if (!c)
			continue;
		y0 = TH - TB - (double)base[i] / (double)cmax * ph;
		y1 = TH - TB - (double)(base[i] + c) / (double)cmax * ph;
		fprintf(p->f, "M%.2f %.2fH%.2fV%.2fH%.2fZ", TL + i * bin_px, y0,
			TL + (i + 1) * bin_px, y1, TL + i * bin_px);
		base[i] += c;
	}
	fputs("\"/>", p->f);
}

static void timeline(struct page *p)
{
	const struct report *rep = p->rep;
	unsigned int nb = p->sum->nr_bins ? p->sum->nr_bins : 1;
	double bin_px = (double)(TW - TL - TR) / nb;
	unsigned int nseries = p->nr < NR_COLORS ? p->nr : NR_COLORS;
	uint64_t base[REP_BINS] = { 0 }, cmax = 1;
	char b[16];

	for (unsigned int i = 0; i < p->sum->nr_bins; i++) {
		uint64_t c = 0;

		for (unsigned int r = 0; r < p->nr; r++)
			c += report_reason(rep, p->order[r])->bins[i];
		if (c > cmax)
			cmax = c;
	}
	fprintf(p->f, "<section id=\"timeline\"><h2>Exits over time</h2>"
		"<p class=\"note\">Exits per %s bin by the vCPU's re-entry "
		"time, stacked by reason, from the first event.%s</p>"
		"<svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"role=\"img\">", duration_str(b, 1ULL << p->sum->bin_shift),
		p->sum->info.discarded ? " Events were lost (see the summary): "
		"the bins around the losses count short." : "", TW, TH, TW,
		TH);
	timeline_axes(p, cmax, bin_px);
	for (unsigned int s = 0; s < nseries; s++)
		timeline_series(p, s, base, cmax, bin_px,
				palette[s < NR_COLORS ? s : NR_COLORS - 1]);
	/* Invisible bars for the numbers on hover. */
	for (unsigned int i = 0; i < p->sum->nr_bins; i++)
		if (base[i])
			fprintf(p->f, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" "
				"height=\"%d\" fill=\"transparent\"><title>+%s: "
				"%" PRIu64 " exits</title></rect>",
				TL + i * bin_px, TT, bin_px, TH - TT - TB,
				duration_str(b, (uint64_t)i << p->sum->bin_shift),
				base[i]);
	fputs("</svg><div class=\"legend\">", p->f);
	for (unsigned int s = 0; s < nseries; s++) {
		fputs("<span>", p->f);
		swatch(p, p->order[s]);
		if (s == NR_COLORS - 1 && p->nr > NR_COLORS)
			fputs("the other reasons", p->f);
		else
			text(p->f, report_reason(p->rep, p->order[s])->name);
		fputs("</span>", p->f);
	}
	fputs("</div></section>\n", p->f);
}

/* One row of a split chart: LABEL, the parts of TOTAL, the total. */
static void split_bar(const struct page *p, unsigned int row,
		      const char *label, const struct rep_split *s,
		      uint64_t total)
{
	double x = BL, w = BW - BL - BR, y = row * BRH + 2;
	char b[2][16];

	fprintf(p->f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", BL - 8,
		y + 12);
	text(p->f, label);
	fputs("</text>", p->f);
	for (int i = 0; i < REP_NR_PARTS && total; i++) {
		double pw = (double)s->part_ns[i] / (double)total * w;

		if (!s->part_ns[i])
			continue;
		fprintf(p->f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
			"height=\"%d\" fill=\"%s\"><title>", x, y,
			pw < 0.5 ? 0.5 : pw, BRH - 4, part_colors[i]);
		text(p->f, label);
		fprintf(p->f, ": %s %s (%.1f%%)</title></rect>",
			time_part_labels[i], duration_str(b[0], s->part_ns[i]),
			time_share(s->part_ns[i], total));
		x += pw;
	}
	fprintf(p->f, "<text x=\"%d\" y=\"%.1f\">%s</text>", BW - BR + 8,
		y + 12, duration_str(b[1], total));
}

static void split_svg_open(const struct page *p, unsigned int rows)
{
	fprintf(p->f, "<svg width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
		"role=\"img\">", BW, rows * BRH + 4, BW, rows * BRH + 4);
}

static void split_legend(const struct page *p)
{
	fputs("<div class=\"legend\">", p->f);
	for (int i = 0; i < REP_NR_PARTS; i++)
		fprintf(p->f, "<span><span class=\"sw\" style=\"background:%s\">"
			"</span>%s</span>", part_colors[i], time_part_labels[i]);
	fputs("</div>", p->f);
}

static void top_preemptor_cell(const struct page *p,
			       const struct rep_split *s, uint64_t total)
{
	char b[96];

	fputs("<td class=\"l\">", p->f);
	text(p->f, rep_top_text(p->rep, s, total, b, sizeof(b)));
	fputs("</td>", p->f);
}

static void split_reasons(struct page *p)
{
	const struct report *rep = p->rep;
	char b[16];

	fputs("<section id=\"split\"><h2>Where the exit time went</h2>"
	      "<p class=\"note\">Each bar is all the time of a reason's exits, "
	      "exit to re-entry: handling in KVM, the VMM in userspace, halted, "
	      "runnable (waiting for a CPU: preempted, or woken and "
	      "not yet running), blocked elsewhere in the kernel. The top preemptor is "
	      "the task the exits waited on longest (share of all their "
	      "time).</p>", p->f);
	split_legend(p);
	split_svg_open(p, p->nr);
	for (unsigned int i = 0; i < p->nr; i++) {
		const struct rep_reason *rr = report_reason(rep, p->order[i]);

		split_bar(p, i, rr->name, &rr->split, rr->s.total_ns);
	}
	fputs("</svg><table><tr><th class=\"l\">reason</th><th>time</th>",
	      p->f);
	for (int i = 0; i < REP_NR_PARTS; i++)
		fprintf(p->f, "<th>%s</th>", time_part_labels[i]);
	fputs("<th>preemptions</th><th>preempted</th><th class=\"l\">top "
	      "preemptor (share of time)</th></tr>\n", p->f);
	for (unsigned int i = 0; i < p->nr; i++) {
		const struct rep_reason *rr = report_reason(rep, p->order[i]);

		fputs("<tr><td class=\"l\">", p->f);
		swatch(p, p->order[i]);
		text(p->f, rr->name);
		fprintf(p->f, "</td><td>%s</td>", duration_str(b, rr->s.total_ns));
		for (int j = 0; j < REP_NR_PARTS; j++)
			fprintf(p->f, "<td>%.1f%%</td>",
				time_share(rr->split.part_ns[j], rr->s.total_ns));
		fprintf(p->f, "<td>%" PRIu64 "</td><td>%s</td>",
			rr->split.preempts, duration_str(b, rr->split.preempt_ns));
		top_preemptor_cell(p, &rr->split, rr->s.total_ns);
		fputs("</tr>\n", p->f);
	}
	fputs("</table></section>\n", p->f);
}

/* "guest1 vcpu0" */
static const char *vcpu_label(const struct page *p, const struct rep_row *v,
			      char *buf, size_t len)
{
	char name[64];

	snprintf(buf, len, "%s vcpu%u",
		 report_vm_name(p->rep, v->key >> 32, name, sizeof(name)),
		 (uint32_t)v->key);
	return buf;
}

static int split_vcpus(struct page *p)
{
	struct rep_iter it;
	struct rep_row v;
	unsigned int rows;
	char l[96], b[16];

	if (rep_iter_start(&it, p->rep, REP_T_VCPUS, REP_BY_TIME))
		return -1;
	rows = rep_iter_rows(&it) < p->top ? rep_iter_rows(&it) : p->top;
	fputs("<section id=\"split-vcpus\"><h2>Where the vCPUs' time went</h2>"
	      "<p class=\"note\">The same per vCPU, by exit time; guest: time "
	      "in the guest before its exits; preemptions: the preemption records "
	      "of its thread.</p>", p->f);
	split_legend(p);
	split_svg_open(p, rows);
	for (unsigned int i = 0; i < rows && rep_iter_next(&it, &v); i++)
		split_bar(p, i, vcpu_label(p, &v, l, sizeof(l)), v.split,
			  v.total_ns);
	fputs("</svg><table><tr><th class=\"l\">vcpu</th><th>tid</th>"
	      "<th>time</th>", p->f);
	for (int i = 0; i < REP_NR_PARTS; i++)
		fprintf(p->f, "<th>%s</th>", time_part_labels[i]);
	fputs("<th>guest</th><th>preemptions</th><th>preempted</th>"
	      "<th class=\"l\">top preemptor (share of time)</th></tr>\n", p->f);
	rep_iter_rewind(&it);
	for (unsigned int i = 0; i < rows && rep_iter_next(&it, &v); i++) {
		const struct rep_split *s = v.split;

		fputs("<tr><td class=\"l\">", p->f);
		text(p->f, vcpu_label(p, &v, l, sizeof(l)));
		fprintf(p->f, "</td><td>%u</td><td>%s</td>", v.aux,
			duration_str(b, v.total_ns));
		for (int j = 0; j < REP_NR_PARTS; j++)
			fprintf(p->f, "<td>%.1f%%</td>",
				time_share(s->part_ns[j], v.total_ns));
		fprintf(p->f, "<td>%s</td><td>%" PRIu64 "</td>",
			duration_str(b, s->guest_ns), s->preempts);
		fprintf(p->f, "<td>%s</td>", duration_str(b, s->preempt_ns));
		top_preemptor_cell(p, s, v.total_ns);
		fputs("</tr>\n", p->f);
	}
	fputs("</table></section>\n", p->f);
	rep_iter_end(&it);
	return 0;
}

static int preemptors(struct page *p)
{
	const struct rep_summary *sum = p->sum;
	uint64_t runnable = sum->all_split.part_ns[REP_RUNNABLE];
	const struct rep_preemptor *r;
	struct rep_pre_iter it;
	unsigned int i = 0;
	char b[3][16];

	if (rep_pre_iter_start(&it, p->rep))
		return -1;
	fprintf(p->f, "<section id=\"preemptors\"><h2>Top preemptors, by the "
		"vCPU time they stalled</h2><p class=\"note\">Records: the "
		"preemption records naming the task (%s off CPU in all), each "
		"one stretch of a vCPU thread switched out runnable inside KVM; "
		"exits: the exits whose longest runnable stretch it ran in "
		"(share of all exits' runnable time, %s).</p><table><tr>"
		"<th class=\"l\">task (pid)</th><th>records</th><th>stalled</th>"
		"<th>share</th><th>ran</th><th>exits</th><th>noted</th>"
		"<th>share</th></tr>\n", duration_str(b[0], sum->pre_stall_ns),
		duration_str(b[1], runnable));
	while (i++ < p->top && (r = rep_pre_iter_next(&it))) {
		fputs("<tr><td class=\"l\">", p->f);
		if (r->vcpu)
			fputs("vcpu ", p->f);
		text(p->f, r->comm);
		fprintf(p->f, " (%" PRIu32 ")</td><td>%" PRIu64 "</td><td>%s</td>"
			"<td>%.1f%%</td><td>%s</td><td>%" PRIu64 "</td><td>%s"
			"</td><td>%.1f%%</td></tr>\n", r->pid, r->records,
			duration_str(b[0], r->stall_ns),
			time_share(r->stall_ns, sum->pre_stall_ns),
			duration_str(b[1], r->ran_ns), r->noted, duration_str(b[2], r->noted_ns),
			time_share(r->noted_ns, runnable));
	}
	fputs("</table>", p->f);
	if (!it.n)
		fputs("<p class=\"note\">No preemptions in this trace.</p>",
		      p->f);
	fputs("</section>\n", p->f);
	rep_pre_iter_end(&it);
	return 0;
}

static void top_reason_cell(const struct page *p, unsigned int reason,
			    uint64_t ns, uint64_t total)
{
	fputs("<td class=\"l\">", p->f);
	if (reason <= REP_MAX_REASONS && total) {
		swatch(p, reason);
		text(p->f, report_reason_name(p->rep, reason));
		fprintf(p->f, " %.0f%%", 100.0 * (double)ns / (double)total);
	} else {
		fputs("-", p->f);
	}
	fputs("</td>", p->f);
}

static void vm_row(const struct page *p, const char *name, uint64_t id,
		   uint64_t pid, const char *vcpu, const struct rep_row *e)
{
	char b[2][16];

	fputs("<tr><td class=\"l\">", p->f);
	text(p->f, name);
	fprintf(p->f, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s"
		"</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td>", id, pid,
		vcpu, e->count, duration_str(b[0], e->total_ns), duration_str(b[1], e->max_ns));
}

static int vms(struct page *p)
{
	const struct report *rep = p->rep;
	struct rep_iter vms, vcpus;
	struct rep_row vm, v;
	unsigned int nvm, i = 0;
	char name[64], id[16];

	if (rep_iter_start(&vms, rep, REP_T_VMS, REP_BY_TIME) ||
	    rep_iter_start(&vcpus, rep, REP_T_VCPUS, REP_BY_TIME)) {
		rep_iter_end(&vms);
		return -1;
	}
	nvm = rep_iter_rows(&vms);
	fputs("<section id=\"vms\"><h2>VMs and vCPUs, by time</h2><table>"
	      "<tr><th class=\"l\">vm</th><th>id</th><th>pid/tid</th>"
	      "<th>vcpu</th><th>exits</th><th>time</th><th>max</th>"
	      "<th class=\"l\">top reason (share of time)</th></tr>\n", p->f);
	while (i++ < p->top && rep_iter_next(&vms, &vm)) {
		unsigned int shown = 0;

		vm_row(p, report_vm_name(rep, vm.key, name, sizeof(name)),
		       vm.key, vm.aux, "all", &vm);
		top_reason_cell(p, vm.top_reason, vm.top_reason_ns,
				vm.total_ns);
		fputs("</tr>\n", p->f);
		rep_iter_rewind(&vcpus);
		while (shown < p->top && rep_iter_next(&vcpus, &v)) {
			if (v.key >> 32 != vm.key)
				continue;
			shown++;
			snprintf(id, sizeof(id), "%u", (uint32_t)v.key);
			vm_row(p, "", vm.key, v.aux, id, &v);
			top_reason_cell(p, v.top_reason, v.top_reason_ns,
					v.total_ns);
			fputs("</tr>\n", p->f);
		}
	}
	fputs("</table>", p->f);
	if (nvm > p->top)
		fprintf(p->f, "<p class=\"note\">%u more VMs.</p>", nvm - p->top);
	fputs("</section>\n", p->f);
	rep_iter_end(&vms);
	rep_iter_end(&vcpus);
	return 0;
}

/* MEMORY: the rows' aux is gpa_hits(), shown in a column of its own. */
static int top_table(struct page *p, enum rep_table_id id_t, const char *id,
		     const char *title, const char *key, const char *fmt,
		     bool reason, bool memory)
{
	struct rep_table_info t;
	struct rep_iter it;
	struct rep_row e;
	unsigned int n, i = 0;
	char k[48], b[2][16], mem[64];

	if (rep_iter_start(&it, p->rep, id_t, REP_BY_TIME))
		return -1;
	report_table_info(p->rep, id_t, &t);
	n = rep_iter_rows(&it);
	fprintf(p->f, "<section id=\"%s\"><h2>%s, top %u of ", id, title,
		n < p->top ? n : p->top);
	/* A summary held fewer keys than the trace has: more than it holds. */
	if (t.seeded || t.proven)
		fprintf(p->f, "more than %u", t.limit);
	else
		fprintf(p->f, "%u%s", n, t.other.count ? "+" : "");
	fprintf(p->f, " by time</h2>"
		"<table><tr><th class=\"l\">%s</th>%s%s%s<th>exits</th>"
		"<th>time</th><th>max</th><th>runnable</th><th class=\"l\">top "
		"preemptor (share of time)</th></tr>\n", key,
		t.two_keys ? "<th class=\"l\">rip</th>" : "",
		reason ? "<th class=\"l\">reason</th>" : "",
		memory ? "<th class=\"l\">memory</th>" : "");
	while (i++ < p->top && rep_iter_next(&it, &e)) {
		const struct rep_split *s = e.split;

		snprintf(k, sizeof(k), fmt, e.key);
		fprintf(p->f, "<tr><td class=\"l n\">%s</td>", k);
		if (t.two_keys && e.key2 != REP_NO_RIP)
			fprintf(p->f, "<td class=\"l n\">0x%016" PRIx64 "</td>",
				e.key2);
		else if (t.two_keys)
			fputs("<td class=\"l n\">-</td>", p->f);
		if (reason) {
			fputs("<td class=\"l\">", p->f);
			if (e.reason <= REP_MAX_REASONS)
				swatch(p, e.reason);
			text(p->f, report_reason_name(p->rep, e.reason));
			fputs("</td>", p->f);
		}
		if (memory) {
			fputs("<td class=\"l\">", p->f);
			gpa_hits_text(mem, sizeof(mem), e.aux);
			text(p->f, *mem ? mem : "-");
			if (e.device[0]) {
				fputs(" (", p->f);
				text(p->f, e.device);
				fputc(')', p->f);
			}
			fputs("</td>", p->f);
		}
		fprintf(p->f, "<td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
			"<td>%.1f%%</td>", e.count, duration_str(b[0], e.total_ns),
			duration_str(b[1], e.max_ns),
			time_share(s->part_ns[REP_RUNNABLE], e.total_ns));
		top_preemptor_cell(p, s, e.total_ns);
		fputs("</tr>\n", p->f);
	}
	if (t.other.count)
		fprintf(p->f, "<tr><td class=\"l\">other (table full at %u)</td>"
			"%s%s%s<td>%" PRIu64 "</td><td>%s</td><td>%s</td>"
			"<td>%.1f%%</td><td></td></tr>\n", t.limit,
			t.two_keys ? "<td></td>" : "",
			reason ? "<td></td>" : "", memory ? "<td></td>" : "",
			t.other.count,
			duration_str(b[0], t.other.total_ns),
			duration_str(b[1], t.other.max_ns),
			time_share(t.other.split->part_ns[REP_RUNNABLE],
				t.other.total_ns));
	fputs("</table>", p->f);
	if (!n && !t.other.count)
		fputs("<p class=\"note\">None in this trace.</p>", p->f);
	fputs("</section>\n", p->f);
	rep_iter_end(&it);
	return 0;
}

static int preempted_spots(struct page *p)
{
	struct rep_iter it;
	struct rep_row e;
	unsigned int i = 0;
	char line[512];

	if (rep_iter_start(&it, p->rep, REP_T_SPOTS, REP_BY_PREEMPTOR))
		return -1;
	fputs("<section id=\"preempted-spots\"><h2>Preempted hot spots</h2>"
	      "<p class=\"note\">(reason, guest-physical page, RIP) by the "
	      "time one task ran while their exits waited.</p><ul>\n", p->f);
	while (i++ < p->top && rep_iter_next(&it, &e)) {
		fputs("<li>", p->f);
		text(p->f, rep_spot_text(p->rep, &e, line, sizeof(line)));
		fputs("</li>\n", p->f);
	}
	fputs("</ul>", p->f);
	if (!rep_iter_rows(&it))
		fputs("<p class=\"note\">None: no exit with a guest-physical "
		      "address names a preemptor.</p>", p->f);
	fputs("</section>\n", p->f);
	rep_iter_end(&it);
	return 0;
}

/* A late interrupt's line: the list's columns. */
static void late_irq_row(const struct page *p, const struct rep_irq *q)
{
	char t[32], vm[64], exit[EXIT_LABEL_LEN], why[160], d[DURATION_LEN];
	struct irq_wait w;

	rep_irq_wait(&w, q);
	irq_why(why, sizeof(why), &w);
	fprintf(p->f, "<tr><td class=\"n\">%s</td><td class=\"l\">",
		rep_irq_time(t, sizeof(t), p->rep, q->ts_ns));
	text(p->f, report_vm_name(p->rep, q->vm_id, vm, sizeof(vm)));
	fprintf(p->f, "</td><td>%u</td><td class=\"l n\">0x%02x</td>"
		"<td class=\"l\">%s</td><td>%s</td><td class=\"l\">%s</td>"
		"<td class=\"l\">", q->vcpu_id, q->vector,
		irq_source_word(q->source), duration_str(d, q->ns),
		exit_reason_label(exit, sizeof(exit), q->isa, q->exit_reason));
	text(p->f, why);
	fputs("</td></tr>\n", p->f);
}

static void late_irq_vector(const struct page *p, const struct rep_irq_row *r,
			    bool other)
{
	char vm[64], src[IRQ_SOURCES_LEN], b[2][DURATION_LEN];
	struct irq_wait w;
	enum irq_part part;

	rep_irq_row_wait(&w, r);
	part = irq_wait_part(&w);
	fputs("<tr><td class=\"l\">", p->f);
	if (other) {
		fputs("other (table full)</td><td></td><td></td>", p->f);
	} else {
		text(p->f, report_vm_name(p->rep, r->vm_id, vm, sizeof(vm)));
		fprintf(p->f, "</td><td>%u</td><td class=\"l n\">0x%02x</td>",
			r->vcpu_id, r->vector);
	}
	fprintf(p->f, "<td class=\"l\">%s</td><td>%" PRIu64 "</td><td>%s</td>"
		"<td>%s</td><td class=\"l\">%s %.1f%%</td></tr>\n",
		irq_sources_text(src, sizeof(src), r->sources), r->count,
		duration_str(b[0], r->total_ns), duration_str(b[1], r->max_ns),
		irq_part_word(part), time_share(w.part_ns[part], r->total_ns));
}

/* The late interrupts, the longest with their why; per vCPU and vector. */
static void late_irqs(struct page *p)
{
	struct rep_irqs irqs;
	unsigned int shown, rows;
	char d[DURATION_LEN];

	report_irqs(p->rep, &irqs);
	if (!irqs.count)
		return;
	shown = irqs.kept < p->top ? irqs.kept : p->top;
	rows = irqs.nr_rows < p->top ? irqs.nr_rows : p->top;
	fprintf(p->f, "<section id=\"late-irqs\"><h2>Late interrupts, the %u "
		"longest of %" PRIu64 "</h2><p class=\"note\">Raise to "
		"injection; time: the raise, from the trace's start; why: the "
		"part of the wait that holds most of it (in the guest until the "
		"exit whose entry injected it, then that exit's parts).</p>"
		"<table><tr><th>time</th><th class=\"l\">vm</th><th>vcpu</th>"
		"<th class=\"l\">vector</th><th class=\"l\">source</th>"
		"<th>latency</th><th class=\"l\">exit</th><th class=\"l\">why"
		"</th></tr>\n", shown, irqs.count);
	for (unsigned int i = 0; i < shown; i++)
		late_irq_row(p, &irqs.longest[i]);
	fputs("</table>", p->f);
	if (irqs.count > shown)
		fprintf(p->f, "<p class=\"note\">%" PRIu64 " more, none longer "
			"than %s.</p>", irqs.count - shown,
			duration_str(d, shown ? irqs.longest[shown - 1].ns : 0));
	fputs("<table><tr><th class=\"l\">vm</th><th>vcpu</th>"
	      "<th class=\"l\">vector</th><th class=\"l\">sources</th>"
	      "<th>count</th><th>total</th><th>max</th>"
	      "<th class=\"l\">mostly (share of time)</th></tr>\n", p->f);
	for (unsigned int i = 0; i < rows; i++)
		late_irq_vector(p, irqs.rows[i], false);
	if (irqs.other->count)
		late_irq_vector(p, irqs.other, true);
	fputs("</table>", p->f);
	if (irqs.nr_rows > rows)
		fprintf(p->f, "<p class=\"note\">%u more (vCPU, vector) rows."
			"</p>", irqs.nr_rows - rows);
	fputs("</section>\n", p->f);
}

/* A capture's page opens with it: the story, then the evidence. */
static void capture(struct page *p)
{
	char line[1024], *ev = NULL;
	size_t n = 0;
	FILE *m;

	if (!p->cap)
		return;
	capture_story_line(line, sizeof(line), &p->cap->st);
	fputs("<section id=\"capture\"><h2>Capture</h2><p>", p->f);
	text(p->f, line);
	fputs("</p>", p->f);
	m = open_memstream(&ev, &n);
	if (m) {
		capture_story_evidence(m, &p->cap->st);
		fclose(m);
		fputs("<pre>", p->f);
		text(p->f, ev);
		fputs("</pre>", p->f);
		free(ev);
	}
	fputs("</section>\n", p->f);
}

static int body(struct page *p, const char *dir)
{
	summary(p, dir);
	capture(p);
	reasons(p);
	split_reasons(p);
	histograms(p);
	timeline(p);
	if (vms(p) || split_vcpus(p) || preemptors(p) || preempted_spots(p) ||
	    top_table(p, REP_T_RIPS, "top-rips", "Guest RIPs", "rip",
		      "0x%016" PRIx64, true, false) ||
	    top_table(p, REP_T_PAGES, "top-pages",
		      "Guest-physical pages (EPT violation / NPF)", "page",
		      "0x%" PRIx64, true, true) ||
	    top_table(p, REP_T_SPOTS, "top-spots",
		      "Hot spots: (reason, guest-physical page, RIP)", "page",
		      "0x%" PRIx64, true, true) ||
	    top_table(p, REP_T_PORTS, "top-ports", "I/O ports", "port",
		      "0x%04" PRIx64, false, false) ||
	    top_table(p, REP_T_MSRS, "top-msrs", "MSRs", "msr",
		      "0x%08" PRIx64, true, false))
		return -1;
	late_irqs(p);
	fprintf(p->f, "<footer><p class=\"note\">hvctl %s report.</p>"
		"</footer></body></html>\n", HVTRACE_VERSION);
	return 0;
}

int report_html(const struct report *rep, const char *dir, FILE *f,
		unsigned int top, const struct rep_capture *cap)
{
	struct page p = {
		.rep = rep, .sum = report_summary(rep), .top = top, .f = f,
		.cap = cap,
	};

	p.nr = report_reasons_by_time(rep, p.order);
	for (unsigned int i = 0; i < p.nr; i++)
		p.rank[p.order[i]] = i;
	head(&p, dir);
	return body(&p, dir);
}
