// SPDX-License-Identifier: GPL-2.0
/* Text or JSON output, chosen per writer (struct out). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "json_escape.h"
#include "output.h"

/*
 * Why flushing standard output failed: glibc drops the buffer and errno.
 * The process's standard output, not a writer's state.
 */
static int stdout_errno;

void out_init(struct out *o, FILE *f, bool json)
{
	o->f = f;
	o->json = json;
	o->depth = 0;
	o->has_member[0] = false;
}

static void json_key(struct out *o, const char *key)
{
	if (o->has_member[o->depth])
		fputc(',', o->f);
	o->has_member[o->depth] = true;
	if (key)
		fprintf(o->f, "\"%s\":", key);
}

/*
 * S as a JSON string: quotes, backslashes and control characters escaped,
 * and bytes that are not UTF-8 (a host or task may name itself anything)
 * as U+FFFD, so the document stays valid JSON.
 */
void out_json_str(FILE *f, const char *s)
{
	char buf[OUT_JSON_CHAR_MAX];
	int used;

	fputc('"', f);
	while (*s) {
		fwrite(buf, 1, out_json_char(buf, s, &used), f);
		s += used;
	}
	fputc('"', f);
}

static void open_container(struct out *o, const char *key, char bracket)
{
	if (!o->json)
		return;
	json_key(o, key);
	fputc(bracket, o->f);
	if (o->depth + 1 < OUT_MAX_DEPTH)
		o->has_member[++o->depth] = false;
}

static void close_container(struct out *o, char bracket)
{
	if (!o->json)
		return;
	fputc(bracket, o->f);
	if (o->depth > 0)
		o->depth--;
}

void out_open_object(struct out *o, const char *key)
{
	open_container(o, key, '{');
}

void out_close_object(struct out *o)
{
	close_container(o, '}');
}

void out_open_array(struct out *o, const char *key)
{
	open_container(o, key, '[');
}

void out_close_array(struct out *o)
{
	close_container(o, ']');
}

void out_u64(struct out *o, const char *key, const char *fmt, uint64_t v)
{
	if (o->json) {
		json_key(o, key);
		fprintf(o->f, "%" PRIu64, v);
	} else if (fmt) {
		fprintf(o->f, fmt, v);
	}
}

void out_i64(struct out *o, const char *key, const char *fmt, int64_t v)
{
	if (o->json) {
		json_key(o, key);
		fprintf(o->f, "%" PRId64, v);
	} else if (fmt) {
		fprintf(o->f, fmt, v);
	}
}

void out_str(struct out *o, const char *key, const char *fmt, const char *v)
{
	if (o->json) {
		json_key(o, key);
		out_json_str(o->f, v);
	} else if (fmt) {
		fprintf(o->f, fmt, v);
	}
}

void out_bool(struct out *o, const char *key, const char *fmt, bool v)
{
	if (o->json) {
		json_key(o, key);
		fputs(v ? "true" : "false", o->f);
	} else if (fmt) {
		fprintf(o->f, fmt, v ? "yes" : "no");
	}
}

void out_null(struct out *o, const char *key)
{
	if (!o->json)
		return;
	json_key(o, key);
	fputs("null", o->f);
}

void out_ran_instead(struct out *o, const char *key, uint32_t pid,
		     const char *comm, bool vcpu, uint64_t ns)
{
	if (!pid) {
		out_null(o, key);
		return;
	}
	out_open_object(o, key);
	out_u64(o, "pid", NULL, pid);
	out_str(o, "comm", NULL, comm);
	out_bool(o, "vcpu", NULL, vcpu);
	out_u64(o, "ns", NULL, ns);
	out_close_object(o);
}

void out_heading(struct out *o, const struct out_col *cols, unsigned int n)
{
	const char *sep = "";

	if (o->json)
		return;
	for (unsigned int i = 0; i < n; i++) {
		if (!cols[i].head)
			continue;
		if (!(cols[i].flags & OUT_JOIN))
			fputs(sep, o->f);
		fprintf(o->f, "%*s", cols[i].width, cols[i].head);
		sep = " ";
	}
	fputc('\n', o->f);
}

static void json_cell(struct out *o, const struct out_col *c,
		      const struct out_cell *v)
{
	switch (c->kind) {
	case OUT_STR:
		out_str(o, c->key, NULL, v->s);
		break;
	case OUT_RATE:
		out_u64(o, c->key, NULL, (uint64_t)(v->d + 0.5));
		break;
	case OUT_PCT:
		break;
	case OUT_BOOL:
		out_bool(o, c->key, NULL, v->u);
		break;
	default:
		out_u64(o, c->key, NULL, v->u);
	}
}

static void text_cell(struct out *o, const struct out_col *c,
		      const struct out_cell *v)
{
	char d[DURATION_LEN];
	int w = c->width;

	if (c->flags & OUT_LABEL)
		fprintf(o->f, "%s ", c->head);
	if (v->absent) {
		fprintf(o->f, "%*s", w, "-");
		return;
	}
	switch (c->kind) {
	case OUT_STR:
		if (c->prec)
			fprintf(o->f, "%*.*s", w, c->prec, v->s);
		else
			fprintf(o->f, "%*s", w, v->s);
		break;
	case OUT_U64:
		fprintf(o->f, "%*" PRIu64, w, v->u);
		break;
	case OUT_DUR:
		fprintf(o->f, "%*s", w, duration_str(d, v->u));
		break;
	case OUT_RATE:
		fprintf(o->f, "%*.0f", w, v->d);
		break;
	case OUT_PCT:
		fprintf(o->f, "%*.*f%%", w < 0 ? w + 1 : w - 1, c->prec, v->d);
		break;
	case OUT_BOOL:
		fprintf(o->f, "%*s", w, v->u ? "yes" : "no");
		break;
	}
}

void out_cells(struct out *o, const struct out_col *cols,
	       const struct out_cell *cells, unsigned int n)
{
	const char *sep = "";

	for (unsigned int i = 0; i < n; i++) {
		if (o->json) {
			if (cols[i].key && !cells[i].absent)
				json_cell(o, &cols[i], &cells[i]);
		} else if (cols[i].head) {
			if (!(cols[i].flags & OUT_JOIN))
				fputs(sep, o->f);
			text_cell(o, &cols[i], &cells[i]);
			sep = " ";
		}
	}
}

void out_fit(struct out_col *c, const char *s)
{
	int len = strlen(s);

	if (len > abs(c->width))
		c->width = c->width < 0 ? -len : len;
}

void out_end(struct out *o)
{
	/* The next object is a new document. */
	o->has_member[0] = false;
	o->depth = 0;
	if (o->json)
		fputc('\n', o->f);
	if (fflush(o->f) && o->f == stdout && !stdout_errno)
		stdout_errno = errno;
}

int out_check_stdout(void)
{
	int err = stdout_errno;

	if (fflush(stdout) && !err)
		err = errno;
	if (!err && ferror(stdout))
		err = EIO;
	return -err;
}
