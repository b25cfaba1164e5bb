// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's request parser (exporter.h): the request line decides
 * (RFC 9112: method SP target SP HTTP/1.x); headers are only counted
 * toward the size limit, since every answer closes the connection.
 */
#include <stdbool.h>
#include <string.h>

#include "exporter.h"

/* A line ends in LF or CRLF; empty lines before the request are skipped. */
static const char *skip_empty(const char *p, const char *end)
{
	while (p < end && (*p == '\n' || (*p == '\r' && p + 1 < end &&
					  p[1] == '\n')))
		p += *p == '\n' ? 1 : 2;
	return p;
}

/* The end of the head: just past its empty line; NULL: not yet. */
static const char *head_end(const char *buf, size_t len)
{
	const char *p = skip_empty(buf, buf + len), *end = buf + len, *nl;

	while ((nl = memchr(p, '\n', end - p))) {
		p = nl + 1;
		if (p < end && *p == '\n')
			return p + 1;
		if (p + 1 < end && p[0] == '\r' && p[1] == '\n')
			return p + 2;
	}
	return NULL;
}

/* RFC 9110's tchar: what a method is made of. */
static bool is_tchar(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* A printable, space-free run of LEN bytes (a target). */
static bool is_visible(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return len > 0;
}

/* The request line at P, LEN bytes without its line end. */
static int request_line(const char *p, size_t len)
{
	const char *end = p + len, *sp1, *sp2, *v;
	size_t mlen, tlen, plen;

	sp1 = memchr(p, ' ', len);
	if (!sp1 || sp1 == p)
		return 400;
	for (const char *c = p; c < sp1; c++)
		if (!is_tchar(*c))
			return 400;
	sp2 = memchr(sp1 + 1, ' ', end - sp1 - 1);
	if (!sp2)
		return 400;
	mlen = sp1 - p;
	tlen = sp2 - sp1 - 1;
	if (!is_visible(sp1 + 1, tlen))
		return 400;
	v = sp2 + 1;
	if (end - v != 8 || memcmp(v, "HTTP/", 5) || v[5] < '0' ||
	    v[5] > '9' || v[6] != '.' || v[7] < '0' || v[7] > '9')
		return 400;
	if (v[5] != '1')
		return 505;
	/* The path is the target up to its query. */
	plen = tlen;
	for (size_t i = 0; i < tlen; i++) {
		if (sp1[1 + i] == '?') {
			plen = i;
			break;
		}
	}
	if (plen != strlen("/metrics") || memcmp(sp1 + 1, "/metrics", plen))
		return 404;
	if (mlen != 3 || memcmp(p, "GET", 3))
		return 405;
	return 200;
}

int http_request_status(const char *buf, size_t len)
{
	const char *end = head_end(buf, len), *p, *nl;

	if (!end)
		return len >= EXPORTER_MAX_REQUEST ? 431 : 0;
	if (end - buf > EXPORTER_MAX_REQUEST)
		return 431;
	/* The head has a line before its empty one: the request line. */
	p = skip_empty(buf, end);
	nl = memchr(p, '\n', end - p);
	return request_line(p, nl - p - (nl > p && nl[-1] == '\r'));
}
