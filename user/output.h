/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One call prints a value as text or as JSON (-j), so commands describe
 * their output once.
 */
#ifndef HVCTL_OUTPUT_H
#define HVCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

void out_open_object(const char *key);	/* key NULL: anonymous */
void out_close_object(void);
void out_open_array(const char *key);
void out_close_array(void);

/* FMT is the text-mode format; JSON mode prints "key": value. */
void out_u64(const char *key, const char *fmt, uint64_t v);
void out_str(const char *key, const char *fmt, const char *v);
/* JSON true/false; text prints FMT with "yes" or "no". */
void out_bool(const char *key, const char *fmt, bool v);
/*
 * S as a JSON string literal to F: escaped, and whatever is not UTF-8
 * replaced (U+FFFD). For documents written without the calls above.
 */
void out_json_str(FILE *f, const char *s);
/*
 * Length of the UTF-8 sequence at S (whose first byte is 0x80 or more),
 * 0 when it is none: a lone continuation byte, an overlong form, a
 * surrogate or beyond U+10FFFF (RFC 3629). Reads no further than a NUL.
 */
int out_utf8_len(const unsigned char *s);
/* Where output goes (stdout until told otherwise). */
void out_set_file(FILE *f);
/* Finish the document (JSON: closing newline). */
void out_end(void);
/*
 * All written to standard output got out: 0, or 1 with "Error: writing
 * standard output: <reason>." printed. main() asks after every command.
 */
int out_check_stdout(void);

#endif /* HVCTL_OUTPUT_H */
