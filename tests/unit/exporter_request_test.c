// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl exporter's request parser (http_request_status(), exporter.h):
 * what each request head is answered, and when it is not complete yet.
 */
#include "exporter.h"
#include "unit.h"

static int status_of(const char *s)
{
	return http_request_status(s, strlen(s));
}

static void test_requests(void)
{
	static const struct { const char *req; int status; } cases[] = {
		{ "GET /metrics HTTP/1.1\r\nHost: h:9655\r\n\r\n", 200 },
		{ "GET /metrics HTTP/1.0\r\n\r\n", 200 },
		{ "GET /metrics?name[]=up HTTP/1.1\r\n\r\n", 200 },
		{ "GET /metrics HTTP/1.1\n\n", 200 },		/* bare LF */
		{ "\r\n\nGET /metrics HTTP/1.1\r\n\r\n", 200 },	/* empty lines first */
		/* What comes after the head is not looked at. */
		{ "GET /metrics HTTP/1.1\r\n\r\nGET /x HTTP/1.1\r\n\r\n", 200 },
		{ "GET /other HTTP/1.1\r\n\r\n", 404 },
		{ "GET / HTTP/1.1\r\n\r\n", 404 },
		{ "GET /metrics/ HTTP/1.1\r\n\r\n", 404 },
		{ "GET /metricsx HTTP/1.1\r\n\r\n", 404 },
		{ "GET http://h/metrics HTTP/1.1\r\n\r\n", 404 },
		{ "POST /other HTTP/1.1\r\n\r\n", 404 },	/* no such thing */
		{ "POST /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 405 },
		{ "HEAD /metrics HTTP/1.1\r\n\r\n", 405 },
		{ "get /metrics HTTP/1.1\r\n\r\n", 405 },	/* methods are exact */
		{ "GETX /metrics HTTP/1.1\r\n\r\n", 405 },
		{ "GET /metrics HTTP/2.0\r\n\r\n", 505 },
		{ "GET /metrics HTTP/0.9\r\n\r\n", 505 },
		{ "GET /metrics HTTP/1.1x\r\n\r\n", 400 },
		{ "GET /metrics http/1.1\r\n\r\n", 400 },
		{ "GET /metrics\r\n\r\n", 400 },
		{ "GET  /metrics HTTP/1.1\r\n\r\n", 400 },	/* empty target */
		{ "GET /metrics  HTTP/1.1\r\n\r\n", 400 },
		{ " GET /metrics HTTP/1.1\r\n\r\n", 400 },
		{ "G\x01T /metrics HTTP/1.1\r\n\r\n", 400 },
		{ "GET /met\x7frics HTTP/1.1\r\n\r\n", 400 },
		{ "hello world\r\n\r\n", 400 },
		{ "\r\r\n\r\n", 400 },
		/* Not complete yet: no empty line. */
		{ "", 0 },
		{ "GET /metr", 0 },
		{ "GET /metrics HTTP/1.1\r\n", 0 },
		{ "GET /metrics HTTP/1.1\r\nHost: h\r\n\r", 0 },
		{ "\r\n\r\n", 0 },
	};

	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_MSG(status_of(cases[i].req) == cases[i].status,
			  "'%s': %d, not %d", cases[i].req,
			  status_of(cases[i].req), cases[i].status);
}

/* As a slow client sends it: nothing until its last byte. */
static void test_byte_by_byte(void)
{
	const char *req = "GET /metrics HTTP/1.1\r\nUser-Agent: slow\r\n\r\n";
	size_t len = strlen(req), early = 0;

	for (size_t n = 0; n < len; n++)
		early += http_request_status(req, n) != 0;
	CHECK_INT(early, 0);
	CHECK_INT(http_request_status(req, len), 200);
}

/* EXPORTER_MAX_REQUEST bytes of head at most; more is 431. */
static void test_size(void)
{
	char *buf = malloc(EXPORTER_MAX_REQUEST + 2);
	const char *line = "GET /metrics HTTP/1.1\r\nX: ";
	size_t n = strlen(line);

	memcpy(buf, line, n);
	memset(buf + n, 'a', EXPORTER_MAX_REQUEST + 2 - n);
	CHECK_INT(http_request_status(buf, EXPORTER_MAX_REQUEST - 1), 0);
	CHECK_INT(http_request_status(buf, EXPORTER_MAX_REQUEST), 431);
	/* A whole head of just the limit is served; a byte more is not. */
	memcpy(buf + EXPORTER_MAX_REQUEST - 4, "\r\n\r\n", 4);
	CHECK_INT(http_request_status(buf, EXPORTER_MAX_REQUEST), 200);
	memset(buf + EXPORTER_MAX_REQUEST - 4, 'a', 4);
	memcpy(buf + EXPORTER_MAX_REQUEST - 3, "\r\n\r\n", 4);
	CHECK_INT(http_request_status(buf, EXPORTER_MAX_REQUEST + 1), 431);
	free(buf);
}

int main(void)
{
	test_requests();
	test_byte_by_byte();
	test_size();
	return unit_report();
}
