// SPDX-License-Identifier: GPL-2.0
/* Text or JSON output, chosen by the global -j flag. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hvctl.h"
#include "output.h"

/* JSON state: whether the current container already holds a member. */
#define MAX_DEPTH 16
static bool has_member[MAX_DEPTH];
static int depth;
static FILE *of;
/* Why flushing standard output failed: glibc drops the buffer and errno. */
static int stdout_errno;

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

int out_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/*
 * S as a JSON string: quotes, backslashes and control characters escaped,
 * and bytes that are not UTF-8 (a host or task may name itself anything)
 * as U+FFFD, so the document stays valid JSON.
 */
void out_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (*p) {
		unsigned char c = *p;
		int n;

		n = c < 0x80 ? 1 : out_utf8_len(p);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (n)
			fwrite(p, 1, n, f);
		else
			fputs("\\ufffd", f);
		p += n ? n : 1;
	}
	fputc('"', f);
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
		out_json_str(of, v);
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
	if (fflush(of) && of == stdout && !stdout_errno)
		stdout_errno = errno;
}

int out_check_stdout(void)
{
	int err = stdout_errno;

	if (fflush(stdout) && !err)
		err = errno;
	if (!err && ferror(stdout))
		err = EIO;
	if (err)
		return hvctl_err("writing standard output: %s", strerror(err));
	return 0;
}
