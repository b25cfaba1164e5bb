/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One call prints a value as text or as JSON (-j), so commands describe
 * their output once. A writer's state is a struct out: a printer takes
 * the writer it writes to, and a snapshot written to a file is the same
 * printer given a JSON writer on that file.
 */
#ifndef HVCTL_OUTPUT_H
#define HVCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define OUT_MAX_DEPTH 16

struct out {
	FILE *f;
	bool json;
	int depth;
	/* Whether the container at each depth already holds a member. */
	bool has_member[OUT_MAX_DEPTH];
};

/* A writer to F, JSON or text. */
void out_init(struct out *o, FILE *f, bool json);

void out_open_object(struct out *o, const char *key); /* NULL: anonymous */
void out_close_object(struct out *o);
void out_open_array(struct out *o, const char *key);
void out_close_array(struct out *o);

/* FMT is the text-mode format; JSON mode prints "key": value. */
void out_u64(struct out *o, const char *key, const char *fmt, uint64_t v);
void out_i64(struct out *o, const char *key, const char *fmt, int64_t v);
void out_str(struct out *o, const char *key, const char *fmt, const char *v);
/* JSON true/false; text prints FMT with "yes" or "no". */
void out_bool(struct out *o, const char *key, const char *fmt, bool v);
/* JSON null: a member that has no value in this row; text nothing. */
void out_null(struct out *o, const char *key);
/*
 * JSON: KEY, the object {"pid", "comm", "vcpu", "ns"} of a task that ran
 * instead of a vCPU thread for NS (stat's and report's interrupt waits),
 * or null for PID 0: nobody noted. Text: nothing.
 */
void out_ran_instead(struct out *o, const char *key, uint32_t pid,
		     const char *comm, bool vcpu, uint64_t ns);
/*
 * S as a JSON string literal to F: escaped, and whatever is not UTF-8
 * replaced (U+FFFD). For documents written without the calls above.
 */
void out_json_str(FILE *f, const char *s);
/*
 * A row described once for text and JSON: a table of columns, and a row
 * of cells in the table's order. JSON writes each cell with a key as a
 * member, in that order; text writes each cell with a heading, a space
 * apart, at the column's width. A column without a heading is JSON only,
 * one without a key text only (a row printed without a heading line may
 * give its text-only columns the heading "").
 */
enum out_kind {
	OUT_STR,	/* .s */
	OUT_U64,	/* .u */
	OUT_DUR,	/* .u nanoseconds; text: "312.4us" (duration_format()) */
	OUT_RATE,	/* .d per second; JSON: rounded to an integer */
	OUT_PCT,	/* .d percent; text only: "12.3%", .prec decimals */
	OUT_BOOL,	/* .u; JSON true/false, text "yes"/"no" */
};

/* Text: the heading before the value, "vm 2", for rows without headings. */
#define OUT_LABEL	0x1
/* Text: no space before the cell: a suffix, "" when there is none. */
#define OUT_JOIN	0x2

struct out_col {
	const char *key;	/* JSON member; NULL: text only */
	const char *head;	/* text heading; NULL: JSON only */
	int width;		/* text: negative left-aligns */
	enum out_kind kind;
	/*
	 * Text, as printf's precision: OUT_STR's most bytes (0: all),
	 * OUT_PCT's decimals.
	 */
	int prec;
	unsigned int flags;	/* OUT_LABEL, OUT_JOIN */
};

struct out_cell {
	union {
		uint64_t u;
		double d;
		const char *s;
	};
	bool absent;		/* JSON: no member; text: "-" */
};

/* Text: the headings of the N columns COLS and a newline; JSON: nothing. */
void out_heading(struct out *o, const struct out_col *cols, unsigned int n);
/* The N CELLS of COLS (no newline: the caller ends the text line). */
void out_cells(struct out *o, const struct out_col *cols,
	       const struct out_cell *cells, unsigned int n);
/*
 * Text: widen C to hold S, for a column sized to the rows printed (C is
 * the printer's copy of the table's column).
 */
void out_fit(struct out_col *c, const char *s);

/* Finish the document (JSON: closing newline); the next is a new one. */
void out_end(struct out *o);
/*
 * All written to standard output got out: 0, or the negative errno of the
 * first failure. main() asks after every command.
 */
int out_check_stdout(void);

#endif /* HVCTL_OUTPUT_H */
