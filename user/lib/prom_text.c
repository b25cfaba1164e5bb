// SPDX-License-Identifier: GPL-2.0
/* The Prometheus text exposition format (prom_text.h). */
#include <inttypes.h>
#include <string.h>

#include "json_escape.h"
#include "prom_text.h"

static const char *const type_names[] = {
	[PROM_COUNTER] = "counter",
	[PROM_GAUGE] = "gauge",
	[PROM_HISTOGRAM] = "histogram",
};

/* HELP text: only a backslash and a line feed are escaped. */
static void help_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

void prom_family(FILE *f, const char *name, enum prom_type type,
		 const char *help)
{
	fprintf(f, "# HELP %s ", name);
	help_text(f, help);
	fprintf(f, "\n# TYPE %s %s\n", name, type_names[type]);
}

void prom_label_value(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	int n;

	while (*p) {
		if (*p == '\\' || *p == '"') {
			fputc('\\', f);
			fputc(*p++, f);
		} else if (*p == '\n') {
			fputs("\\n", f);
			p++;
		} else if (*p < 0x80) {
			fputc(*p++, f);
		} else {
			n = out_utf8_len(p);
			if (n)
				fwrite(p, 1, n, f);
			else
				fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			p += n ? n : 1;
		}
	}
}

void prom_sample(FILE *f, const char *name, const struct prom_label *l,
		 unsigned int n, const char *value)
{
	fputs(name, f);
	for (unsigned int i = 0; i < n; i++) {
		fprintf(f, "%c%s=\"", i ? ',' : '{', l[i].name);
		prom_label_value(f, l[i].value);
		fputc('"', f);
	}
	fprintf(f, "%s %s\n", n ? "}" : "", value);
}

void prom_sample_u64(FILE *f, const char *name, const struct prom_label *l,
		     unsigned int n, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	prom_sample(f, name, l, n, buf);
}

void prom_sample_ns(FILE *f, const char *name, const struct prom_label *l,
		    unsigned int n, uint64_t ns)
{
	char buf[PROM_SECONDS_LEN];

	prom_sample(f, name, l, n, prom_seconds(buf, ns));
}

char *prom_seconds(char *buf, uint64_t ns)
{
	uint64_t frac = ns % 1000000000;
	int len = snprintf(buf, PROM_SECONDS_LEN, "%" PRIu64, ns / 1000000000);

	if (frac) {
		/* Nine digits, then no trailing zeros: 1.5, not 1.500000000. */
		len += snprintf(buf + len, PROM_SECONDS_LEN - len, ".%09" PRIu64,
				frac);
		while (buf[len - 1] == '0')
			buf[--len] = '\0';
	}
	return buf;
}
