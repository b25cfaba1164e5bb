/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON escaper: the writer (output.c) and the line buffers of
 * dump and export (put.h) all write strings through out_json_char().
 */
#ifndef HVCTL_JSON_ESCAPE_H
#define HVCTL_JSON_ESCAPE_H

/* The longest text out_json_char() writes for one character. */
#define OUT_JSON_CHAR_MAX 6
/*
 * The JSON text of the character at S (not NUL) into DST, which has room
 * for OUT_JSON_CHAR_MAX: returns the bytes written and sets *USED to the
 * bytes of S it stands for. The one escaper: out_json_str() and dump's
 * line buffer both write through it.
 */
int out_json_char(char *dst, const char *s, int *used);
/*
 * Length of the UTF-8 sequence at S (whose first byte is 0x80 or more),
 * 0 when it is none: a lone continuation byte, an overlong form, a
 * surrogate or beyond U+10FFFF (RFC 3629). Reads no further than a NUL.
 */
int out_utf8_len(const unsigned char *s);

#endif /* HVCTL_JSON_ESCAPE_H */
