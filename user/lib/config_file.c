// SPDX-License-Identifier: GPL-2.0
/*
 * hvtrace.conf(5) read into a struct hvc_conf, and the module's
 * configuration written as such a file (config_file.h). Each value goes
 * to the parser of the option it stands for (hvc_change_*(),
 * hvc_watch_conf_set(), ...); their messages are kept and said again
 * after "FILE:LINE: KEY:". The whole file is read before anything is
 * used, and every line checked, so one pass says all that is wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "config_file.h"
#include "duration.h"
#include "number.h"
#include "time_parts.h"
#include "util.h"
#include "watch_conf.h"

/* The keys: the module's, then the watch's and the exporter's. */
enum conf_key {
	K_THRESHOLD,
	K_ON,
	K_HALT,
	K_PREEMPT,
	K_IRQ,
	K_REASON_THR,
	K_PID,
	K_VCPU,
	K_CPU,
	K_REASON,
	K_RIP,
	K_BUFFER_SIZE,
	K_BUFFER_MODE,
	K_WATCH,				/* + HVC_WK_* */
	K_EXPORTER = K_WATCH + HVC_WK_NR,	/* + HVC_EK_* */
	K_NR = K_EXPORTER + HVC_EK_NR
};

struct key {
	const char *name;
	const char *takes;	/* its value, for "needs" */
};

static const struct key module_keys[K_WATCH] = {
	[K_THRESHOLD] = { "threshold", "a DURATION" },
	[K_ON] = { "threshold.on", "a PART (" THRESHOLD_ON_NAMES ")" },
	[K_HALT] = { "threshold.halt", "include or exclude" },
	[K_PREEMPT] = { "threshold.preemptions", "a DURATION" },
	[K_IRQ] = { "threshold.interrupts", "a DURATION or off" },
	[K_REASON_THR] = { "threshold.reason",
			   "an exit reason NAME and a DURATION" },
	[K_PID] = { "filter.pid", "a PID or any" },
	[K_VCPU] = { "filter.vcpu", "a LIST or any" },
	[K_CPU] = { "filter.cpu", "a LIST or any" },
	[K_REASON] = { "filter.reason", "NAMES or any" },
	[K_RIP] = { "filter.rip", "MIN-MAX or any" },
	[K_BUFFER_SIZE] = { "buffer.size", "a SIZE" },
	[K_BUFFER_MODE] = { "buffer.mode", "discard or overwrite" },
};

static const char *const watch_takes[HVC_WK_NR] = {
	[HVC_WK_EXIT] = "a DURATION",
	[HVC_WK_ON] = "a PART (" THRESHOLD_ON_NAMES ")",
	[HVC_WK_HALT] = "include or exclude",
	[HVC_WK_STALL] = "X/Y",
	[HVC_WK_PREEMPTED] = "a DURATION",
	[HVC_WK_IRQ_LATENCY] = "a DURATION",
	[HVC_WK_GUEST_MARK] = "any or a PID",
	[HVC_WK_HISTORY] = "a number",
	[HVC_WK_POST] = "a DURATION",
	[HVC_WK_RATE] = "a number",
	[HVC_WK_RATE_TOTAL] = "a number",
	[HVC_WK_VM] = "a PID",
	[HVC_WK_VCPU] = "a LIST or any",
	[HVC_WK_DIR] = "a DIR",
	[HVC_WK_KEEP] = "a number",
	[HVC_WK_MAX_SIZE] = "a SIZE",
};

static const struct key exporter_keys[HVC_EK_NR] = {
	[HVC_EK_LISTEN] = { "exporter.listen", "ADDR:PORT" },
	[HVC_EK_TEXTFILE] = { "exporter.textfile", "a DIR" },
	[HVC_EK_INTERVAL] = { "exporter.interval", "a DURATION" },
};

#define WATCH_PREFIX	"watch."

/* One file being read. */
struct parse {
	struct hvc_conf *conf;
	const char *name;	/* as messages name the file */
	const char *base;	/* its last part, in what the module refuses */
	unsigned int line, errors;
	unsigned int key_line[K_NR];	/* where each key was, 0: nowhere */
	/* The line of each per-reason threshold, by change entry. */
	unsigned int thr_line[HVC_MAX_REASONS];
	char key[32];		/* the key being read, as written */
	char opt[64];		/* "BASE:LINE: KEY", for the change's typed */
	char msg[1024];		/* the last message of a value's parser */
};

/* KEY's name into BUF (32 bytes), returned. */
static const char *key_name(enum conf_key k, char *buf)
{
	if (k < K_WATCH)
		return module_keys[k].name;
	if (k >= K_EXPORTER)
		return exporter_keys[k - K_EXPORTER].name;
	snprintf(buf, 32, WATCH_PREFIX "%s", hvc_watch_key_names[k - K_WATCH]);
	return buf;
}

static const char *key_takes(enum conf_key k)
{
	if (k < K_WATCH)
		return module_keys[k].takes;
	if (k >= K_EXPORTER)
		return exporter_keys[k - K_EXPORTER].takes;
	return watch_takes[k - K_WATCH];
}

/* The key named S, or -1. */
static int find_key(const char *s)
{
	char buf[32];

	if (!strncmp(s, WATCH_PREFIX, strlen(WATCH_PREFIX))) {
		int w = hvc_watch_key(s + strlen(WATCH_PREFIX));

		return w < 0 ? -1 : K_WATCH + w;
	}
	for (int k = 0; k < K_NR; k++)
		if ((k < K_WATCH || k >= K_EXPORTER) &&
		    !strcmp(s, key_name(k, buf)))
			return k;
	return -1;
}

/* "FILE:LINE: " and the message, to the sink; -EINVAL. */
__attribute__((format(printf, 3, 4)))
static int line_err(struct parse *p, unsigned int line, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->errors++ < HVC_CONF_MAX_ERRORS)
		hvc_err(EINVAL, "%s:%u: %s", p->name, line, msg);
	return -EINVAL;
}

static void keep_msg(const char *msg, void *data)
{
	snprintf(data, sizeof(((struct parse *)NULL)->msg), "%s", msg);
}

/* "NPF" or "ept_violation,npf": its first entry already with a threshold. */
static int reason_taken(struct parse *p, const char *name)
{
	const struct hvc_change *ch = &p->conf->change;
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES];
	char label[EXIT_LABEL_LEN];
	int n = hvc_parse_reason(name, refs, ARRAY_SIZE(refs));

	for (int i = 0; i < n; i++)
		for (unsigned int j = 0; j < ch->nr_thresholds; j++)
			if (ch->thresholds[j].isa == refs[i].isa &&
			    ch->thresholds[j].code == refs[i].code)
				return hvc_err(EINVAL, "%s has a threshold "
					       "already (line %u)",
					       exit_reason_label(label,
								 sizeof(label),
								 refs[i].isa,
								 refs[i].code),
					       p->thr_line[j]);
	return n < 0 ? n : 0;
}

static int set_reason_threshold(struct parse *p, char **v)
{
	struct hvc_change *ch = &p->conf->change;
	unsigned int first = ch->nr_thresholds;
	uint64_t ns;
	int ret;

	ret = reason_taken(p, v[0]);
	if (!ret)
		ret = hvc_parse_threshold(v[1], &ns);
	if (!ret)
		ret = hvc_change_reason_threshold(ch, p->opt, v[0], ns);
	for (unsigned int i = first; !ret && i < ch->nr_thresholds; i++)
		p->thr_line[i] = p->line;
	return ret;
}

/*
 * A threshold key's value into *NS, typed for ATTR; only late interrupt
 * records' can be off.
 */
static int set_threshold(struct parse *p, uint16_t attr, const char *v,
			 uint64_t *ns)
{
	if (attr == HVTRACE_CFG_IRQ_THRESHOLD_NS ?
	    hvc_parse_irq_threshold(v, ns) : hvc_parse_threshold(v, ns))
		return -EINVAL;
	hvc_change_typed(&p->conf->change, attr, p->opt, v);
	return 0;
}

static int set_module(struct parse *p, enum conf_key k, char **v)
{
	struct hvc_change *ch = &p->conf->change;
	int on;

	switch (k) {
	case K_THRESHOLD:
		return set_threshold(p, HVTRACE_CFG_THRESHOLD_NS, v[0],
				     &ch->threshold_ns);
	case K_PREEMPT:
		return set_threshold(p, HVTRACE_CFG_PREEMPT_THRESHOLD_NS, v[0],
				     &ch->preempt_threshold_ns);
	case K_IRQ:
		return set_threshold(p, HVTRACE_CFG_IRQ_THRESHOLD_NS, v[0],
				     &ch->irq_threshold_ns);
	case K_ON:
		on = threshold_on_parse(v[0]);
		if (on < 0)
			return hvc_err(EINVAL, "unknown part '%s' (%s)", v[0],
				       THRESHOLD_ON_NAMES);
		ch->threshold_on = on;
		hvc_change_typed(ch, HVTRACE_CFG_THRESHOLD_ON, p->opt, v[0]);
		return 0;
	case K_HALT:
		if (strcmp(v[0], "include") && strcmp(v[0], "exclude"))
			return hvc_err(EINVAL, "include or exclude, not '%s'",
				       v[0]);
		ch->halt_triggers = !strcmp(v[0], "include");
		hvc_change_typed(ch, HVTRACE_CFG_HALT_TRIGGERS, p->opt, v[0]);
		return 0;
	case K_REASON_THR:
		return set_reason_threshold(p, v);
	case K_BUFFER_SIZE:
		return hvc_change_buffer_size(ch, p->opt, v[0]);
	case K_BUFFER_MODE:
		return hvc_change_mode(ch, p->opt, v[0]);
	default:
		/* filter.KIND: hvc_change_filter()'s kinds. */
		return hvc_change_filter(ch, p->opt, p->key + strlen("filter."),
					 v[0]);
	}
}

static int set_exporter(struct parse *p, enum hvc_exporter_key k,
			const char *v)
{
	struct hvc_exporter_conf *e = &p->conf->exporter;
	char min[DURATION_LEN];
	const char *err;

	switch (k) {
	case HVC_EK_LISTEN:
		if (hvc_check_listen(p->key, v))
			return -EINVAL;
		snprintf(e->listen, sizeof(e->listen), "%s", v);
		break;
	case HVC_EK_TEXTFILE:
		if (strlen(v) >= sizeof(e->textfile))
			return hvc_err(ENAMETOOLONG, "the path is longer than "
				       "%zu bytes", sizeof(e->textfile) - 1);
		snprintf(e->textfile, sizeof(e->textfile), "%s", v);
		break;
	default:
		if (duration_parse(v, &e->interval_ns, &err))
			return hvc_err(EINVAL, "%s", err);
		if (e->interval_ns < HVC_EXPORTER_INTERVAL_MIN_NS)
			return hvc_err(EINVAL, "%s must be at least %s", p->key,
				       duration_exact_str(min,
						HVC_EXPORTER_INTERVAL_MIN_NS));
	}
	e->given |= 1U << k;
	return 0;
}

static int set_key(struct parse *p, enum conf_key k, char **v)
{
	if (k < K_WATCH)
		return set_module(p, k, v);
	if (k < K_EXPORTER)
		return hvc_watch_conf_set(&p->conf->watch, k - K_WATCH, p->key,
					  v[0]);
	return set_exporter(p, k - K_EXPORTER, v[0]);
}

/* MSG of the value's parser at LINE, after "KEY: " unless it names KEY. */
static int value_err(struct parse *p, unsigned int line, const char *key,
		     const char *msg)
{
	size_t n = strlen(key);

	if (!strncmp(msg, key, n) && (msg[n] == ' ' || msg[n] == ':'))
		return line_err(p, line, "%s", msg);
	return line_err(p, line, "%s: %s", key, msg);
}

/* Set key K from V, the parsers' messages said after FILE:LINE. */
static int take_value(struct parse *p, enum conf_key k, char **v)
{
	hvc_err_sink sink;
	void *data;
	int ret;

	snprintf(p->opt, sizeof(p->opt), "%s:%u: %s", p->base, p->line,
		 p->key);
	p->msg[0] = '\0';
	hvc_get_err_sink(&sink, &data);
	hvc_set_err_sink(keep_msg, p->msg);
	ret = set_key(p, k, v);
	hvc_set_err_sink(sink, data);
	/* The module filters by pid: a VM not running yet has none. */
	if (ret == -ESRCH && k == K_PID)
		snprintf(p->msg + strlen(p->msg), sizeof(p->msg) -
			 strlen(p->msg), ": a name is resolved to its VMM's "
			 "pid once, when the file is applied (apply it again "
			 "once the VM runs)");
	return ret ? value_err(p, p->line, p->key, p->msg) : 0;
}

#define BLANKS " \t\r\v\f\n"

/*
 * The words of LINE, up to MAX into W: how many (MAX when there are
 * more). '#' at the start of a word starts a comment to the line's end.
 */
static int split(char *line, char **w, int max)
{
	char *s = line;
	int n = 0;

	while (n < max) {
		s += strspn(s, BLANKS);
		if (!*s || *s == '#')
			break;
		w[n++] = s;
		s += strcspn(s, BLANKS);
		if (*s)
			*s++ = '\0';
	}
	return n;
}

/* One line: a key and its values, or nothing. 0, or -EINVAL reported. */
static int parse_line(struct parse *p, char *line)
{
	char *w[4];
	int n = split(line, w, ARRAY_SIZE(w)), k, want;

	if (!n)
		return 0;
	k = find_key(w[0]);
	if (k < 0 && strchr(w[0], '='))
		return line_err(p, p->line, "unknown key '%s' (KEY VALUE, with "
				"a blank between them)", w[0]);
	if (k < 0)
		return line_err(p, p->line, "unknown key '%s'", w[0]);
	snprintf(p->key, sizeof(p->key), "%s", w[0]);
	want = k == K_REASON_THR ? 2 : 1;
	if (n - 1 < want)
		return line_err(p, p->line, "%s needs %s", p->key,
				key_takes(k));
	if (n - 1 > want)
		return line_err(p, p->line, "%s: unexpected '%s' after the "
				"value", p->key, w[want + 1]);
	if (p->key_line[k] && k != K_REASON_THR)
		return line_err(p, p->line, "%s given twice (first at line %u)",
				p->key, p->key_line[k]);
	if (!p->key_line[k])
		p->key_line[k] = p->line;
	return take_value(p, k, w + 1);
}

/* What the keys mean together; each error at the line that is wrong. */
static void check_together(struct parse *p)
{
	const struct hvc_change *ch = &p->conf->change;
	enum hvc_watch_key bad;
	hvc_err_sink sink;
	void *data;
	char name[32];
	int ret;

	if (p->key_line[K_HALT] && ch->threshold_on != HVTRACE_ON_TOTAL)
		line_err(p, p->key_line[K_HALT], "threshold.halt goes with "
			 "threshold.on total only, not %s (line %u)",
			 threshold_on_name(ch->threshold_on),
			 p->key_line[K_ON]);
	if (p->key_line[K_EXPORTER + HVC_EK_INTERVAL] &&
	    !p->key_line[K_EXPORTER + HVC_EK_TEXTFILE])
		line_err(p, p->key_line[K_EXPORTER + HVC_EK_INTERVAL],
			 "exporter.interval is how often the textfile is "
			 "written: it needs exporter.textfile DIR");
	if (!p->conf->watch.given)
		return;
	hvc_get_err_sink(&sink, &data);
	hvc_set_err_sink(keep_msg, p->msg);
	ret = hvc_watch_conf_check(&p->conf->watch, false, &bad);
	hvc_set_err_sink(sink, data);
	if (ret)
		value_err(p, p->key_line[K_WATCH + bad],
			  key_name(K_WATCH + bad, name), p->msg);
}

/* The module's defaults: what the file does not name goes back to them. */
static void change_defaults(struct parse *p)
{
	struct hvc_change *ch = &p->conf->change;
	char s[64];

	ch->threshold_on = HVTRACE_ON_TOTAL;
	ch->irq_threshold_ns = HVTRACE_IRQ_THRESHOLD_OFF;
	ch->buffer_kb = HVTRACE_BUFFER_KB_DEFAULT;
	ch->mode = HVTRACE_MODE_DISCARD;
	snprintf(s, sizeof(s), "sets no buffer.size: the default %uK",
		 HVTRACE_BUFFER_KB_DEFAULT);
	hvc_change_typed(ch, HVTRACE_CFG_BUFFER_KB, p->base, s);
	hvc_change_typed(ch, HVTRACE_CFG_MODE, p->base,
			 "sets no buffer.mode: the default discard");
}

/* The whole configuration in one request, what it does not set cleared. */
static void change_whole(struct hvc_change *ch)
{
	ch->set |= HVC_CH_THRESHOLD | HVC_CH_PREEMPT | HVC_CH_IRQ |
		   HVC_CH_HALT | HVC_CH_CLEAR_THRESHOLDS |
		   HVC_CH_CLEAR_FILTERS | HVC_CH_BUFFER_KB | HVC_CH_MODE;
}

int hvc_conf_parse(FILE *f, const char *name, unsigned int resolve,
		   struct hvc_conf *conf)
{
	struct parse *p = calloc(1, sizeof(*p));
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int ret;

	if (!p)
		return hvc_err(ENOMEM, "out of memory");
	memset(conf, 0, sizeof(*conf));
	conf->change.names_unresolved = !(resolve & HVC_CONF_MODULE);
	conf->watch.names_unresolved = !(resolve & HVC_CONF_WATCH);
	p->conf = conf;
	p->name = name;
	p->base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	change_defaults(p);
	while ((len = getline(&line, &cap, f)) >= 0) {
		p->line++;
		if (strlen(line) != (size_t)len)
			line_err(p, p->line, "a NUL byte: this is no text");
		else
			parse_line(p, line);
	}
	if (ferror(f)) {
		ret = errno ? errno : EIO;
		ret = hvc_err(ret, "cannot read %s: %s", name, strerror(ret));
	} else {
		if (!p->errors)
			check_together(p);
		if (p->errors > HVC_CONF_MAX_ERRORS)
			hvc_err(EINVAL, "%s: %u errors in all, the first %u "
				"said", name, p->errors, HVC_CONF_MAX_ERRORS);
		ret = p->errors ? -EINVAL : 0;
	}
	change_whole(&conf->change);
	free(line);
	free(p);
	return ret;
}

int hvc_conf_read(const char *path, unsigned int resolve,
		  struct hvc_conf *conf)
{
	bool in = !strcmp(path, "-");
	FILE *f = in ? stdin : fopen(path, "r");
	int ret;

	if (!f)
		return hvc_err(errno, "cannot read %s: %s", path,
			       strerror(errno));
	ret = hvc_conf_parse(f, in ? "<stdin>" : path, resolve, conf);
	if (!in)
		fclose(f);
	return ret;
}

/* ---- the file, written ----------------------------------------------- */

void hvc_id_list_put(FILE *f, const uint64_t *w, unsigned int nbits)
{
	bool any = true;

	for (unsigned int i = 0; i < nbits; i++) {
		unsigned int j = i;

		if (!(w[i / 64] >> (i % 64) & 1))
			continue;
		while (j + 1 < nbits && (w[(j + 1) / 64] >> ((j + 1) % 64) & 1))
			j++;
		fprintf(f, j > i ? "%s%u-%u" : "%s%u", any ? "" : ",", i, j);
		any = false;
		i = j;
	}
	if (any)
		fputs("any", f);
}

/* Whether the parser turns S into exactly R, and nothing else. */
static bool names_exactly(const char *s, const struct hvc_reason *r)
{
	struct exit_reason_ref refs[EXIT_REASON_MAX_MATCHES];
	int n = exit_reason_parse(s, refs, ARRAY_SIZE(refs));

	return n == 1 && refs[0].isa == r->isa && refs[0].code == r->code;
}

/*
 * R as a word that means it alone: its name ("EPT_VIOLATION"), with its
 * vendor where the other has the same name ("svm:HLT"), or the vendor and
 * the code ("svm:0x7777").
 */
static void put_reason(FILE *f, const struct hvc_reason *r)
{
	const char *vendor = r->isa == HVTRACE_ISA_VMX ? "vmx" : "svm";
	const char *name = NULL;
	char buf[64];

	/* A VMX code with flags above the basic reason has no name. */
	if (r->isa != HVTRACE_ISA_VMX || r->code <= HV_VMX_BASIC_REASON_MASK)
		name = exit_reason_name(r->isa, r->code);
	if (name && names_exactly(name, r)) {
		fputs(name, f);
		return;
	}
	snprintf(buf, sizeof(buf), "%s:%s", vendor, name ? name : "");
	if (name && names_exactly(buf, r))
		fputs(buf, f);
	else
		fprintf(f, "%s:0x%x", vendor, r->code);
}

static void put_duration(FILE *f, enum conf_key k, uint64_t ns)
{
	char d[DURATION_LEN];

	fprintf(f, "%s %s\n", module_keys[k].name, duration_exact_str(d, ns));
}

/* A bitmap as the module sent it, for the id lists. */
static void put_bitmap(FILE *f, enum conf_key k, const struct hvc_bitmap *b)
{
	fprintf(f, "%s ", module_keys[k].name);
	hvc_id_list_put(f, b->w, b->w ? b->nbits : 0);
	fputc('\n', f);
}

static void put_filters(FILE *f, const struct hvc_config *c)
{
	fprintf(f, "%s ", module_keys[K_PID].name);
	if (c->pid)
		fprintf(f, "%u\n", c->pid);
	else
		fputs("any\n", f);
	put_bitmap(f, K_VCPU, &c->vcpus);
	put_bitmap(f, K_CPU, &c->cpus);
	fprintf(f, "%s ", module_keys[K_REASON].name);
	for (unsigned int i = 0; i < c->nr_reasons; i++) {
		if (i)
			fputc(',', f);
		put_reason(f, &c->reasons[i]);
	}
	fputs(c->nr_reasons ? "\n" : "any\n", f);
	fprintf(f, "%s ", module_keys[K_RIP].name);
	if (!c->rip_min && c->rip_max == UINT64_MAX)
		fputs("any\n", f);
	else
		fprintf(f, "0x%" PRIx64 "-0x%" PRIx64 "\n", c->rip_min,
			c->rip_max);
}

void hvc_conf_write(FILE *f, const struct hvc_config *c)
{
	unsigned int kb = c->buffer_kb;

	fputs("# hvtrace.conf(5): the module's configuration, from "
	      "'hvctl config --save'\n", f);
	put_duration(f, K_THRESHOLD, c->threshold_ns);
	fprintf(f, "%s %s\n", module_keys[K_ON].name,
		threshold_on_name(c->threshold_on));
	/* Halt time counts toward the total only. */
	if (c->threshold_on == HVTRACE_ON_TOTAL)
		fprintf(f, "%s %s\n", module_keys[K_HALT].name,
			c->halt_triggers ? "include" : "exclude");
	put_duration(f, K_PREEMPT, c->preempt_threshold_ns);
	if (c->irq_threshold_ns == HVTRACE_IRQ_THRESHOLD_OFF)
		fprintf(f, "%s off\n", module_keys[K_IRQ].name);
	else
		put_duration(f, K_IRQ, c->irq_threshold_ns);
	for (unsigned int i = 0; i < c->nr_thresholds; i++) {
		char d[DURATION_LEN];

		fprintf(f, "%s ", module_keys[K_REASON_THR].name);
		put_reason(f, &c->thresholds[i]);
		fprintf(f, " %s\n", duration_exact_str(d,
				c->thresholds[i].threshold_ns));
	}
	put_filters(f, c);
	fprintf(f, "%s ", module_keys[K_BUFFER_SIZE].name);
	if (kb && kb % (1024 * 1024) == 0)
		fprintf(f, "%uG\n", kb / (1024 * 1024));
	else if (kb && kb % 1024 == 0)
		fprintf(f, "%uM\n", kb / 1024);
	else
		fprintf(f, "%uK\n", kb);
	fprintf(f, "%s %s\n", module_keys[K_BUFFER_MODE].name,
		c->mode == HVTRACE_MODE_OVERWRITE ? "overwrite" : "discard");
}

/* ---- values of the exporter's keys ------------------------------------ */

/* What an IPv4 address or a host name is made of. */
#define HOST_CHARS	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" \
			"0123456789.-"

int hvc_check_listen(const char *name, const char *s)
{
	const char *colon = strrchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : 0;
	struct in6_addr a6;
	char host[256];
	uint64_t port;

	/* What the file gives is kept in HVC_LISTEN_LEN, never cut. */
	if (strlen(s) >= HVC_LISTEN_LEN)
		return hvc_err(EINVAL, "%s '%.24s...' is %zu bytes long: at "
			       "most %d", name, s, strlen(s),
			       HVC_LISTEN_LEN - 1);
	if (!colon)
		return hvc_err(EINVAL, "%s '%s': ADDR:PORT wanted", name, s);
	if (hvc_parse_decimal(colon + 1, &port) || port > 65535)
		return hvc_err(EINVAL, "%s '%s': port '%s' is no number from 0 "
			       "to 65535", name, s, colon + 1);
	/* "[::1]": an IPv6 address in brackets; a name is the exporter's
	 * to resolve, when it binds (apply may have no DNS). */
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		snprintf(host, sizeof(host), "%.*s", (int)(n - 2), s + 1);
		if (n - 2 < sizeof(host) && inet_pton(AF_INET6, host, &a6) == 1)
			return 0;
	} else if (strspn(s, HOST_CHARS) >= n) {
		return 0;
	}
	return hvc_err(EINVAL, "%s '%.*s': not an address", name, (int)n, s);
}
