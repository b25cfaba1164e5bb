// SPDX-License-Identifier: GPL-2.0
/* JSON text of one character (json_escape.h). */
#include <string.h>

#include "json_escape.h"

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

int out_json_char(char *dst, const char *s, int *used)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char c = *s;
	int n = c < 0x80 ? 1 : out_utf8_len((const unsigned char *)s);

	*used = n ? n : 1;
	if (c == '"' || c == '\\') {
		dst[0] = '\\';
		dst[1] = c;
		return 2;
	}
	if (c < 0x20) {
		memcpy(dst, "\\u00", 4);
		dst[4] = digits[c >> 4];
		dst[5] = digits[c & 0xf];
		return 6;
	}
	if (n) {
		memcpy(dst, s, n);
		return n;
	}
	memcpy(dst, "\\ufffd", 6);
	return 6;
}
