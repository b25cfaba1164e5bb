// SPDX-License-Identifier: GPL-2.0
/* Text or JSON output, chosen by the global -j flag. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "hvctl.h"
#include "output.h"

/* JSON state: whether the current container already holds a member. */
#define MAX_DEPTH 16
static bool has_member[MAX_DEPTH];
static int depth;
static FILE *of;

void out_set_file(FILE *f)
{
	of = f;
	has_member[0] = false;
	depth = 0;
}

__attribute__((constructor)) static void out_init(void)
{
	of = stdout;
}

static void json_key(const char *key)
{
	if (has_member[depth])
		fputc(',', of);
	has_member[depth] = true;
	if (key)
		fprintf(of, "\"%s\":", key);
}

static void json_string(const char *s)
{
	fputc('"', of);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(of, "\\%c", c);
		else if (c < 0x20)
			fprintf(of, "\\u%04x", c);
		else
			fputc(c, of);
	}
	fputc('"', of);
}

static void open_container(const char *key, char bracket)
{
	if (!hvctl_json)
		return;
	json_key(key);
	fputc(bracket, of);
	if (depth + 1 < MAX_DEPTH)
		has_member[++depth] = false;
}

static void close_container(char bracket)
{
	if (!hvctl_json)
		return;
	fputc(bracket, of);
	if (depth > 0)
		depth--;
}

void out_open_object(const char *key)
{
	open_container(key, '{');
}

void out_close_object(void)
{
	close_container('}');
}

void out_open_array(const char *key)
{
	open_container(key, '[');
}

void out_close_array(void)
{
	close_container(']');
}

void out_u64(const char *key, const char *fmt, uint64_t v)
{
	if (hvctl_json) {
		json_key(key);
		fprintf(of, "%" PRIu64, v);
	} else if (fmt) {
		fprintf(of, fmt, v);
	}
}

void out_str(const char *key, const char *fmt, const char *v)
{
	if (hvctl_json) {
		json_key(key);
		json_string(v);
	} else if (fmt) {
		fprintf(of, fmt, v);
	}
}

void out_bool(const char *key, const char *fmt, bool v)
{
	if (hvctl_json) {
		json_key(key);
		fputs(v ? "true" : "false", of);
	} else if (fmt) {
		fprintf(of, fmt, v ? "yes" : "no");
	}
}

void out_end(void)
{
	/* The next object is a new document. */
	has_member[0] = false;
	depth = 0;
	if (hvctl_json)
		fputc('\n', of);
	fflush(of);
}
