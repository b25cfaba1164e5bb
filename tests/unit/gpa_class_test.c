// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/gpa_class.[ch]: what a GPA fault hit, from a record's flags,
 * as the outputs say it, and a report row's sum of its exits.
 */
#include <string.h>

#include "gpa_class.h"
#include "unit.h"

#define LEN(n)	((uint64_t)(n) << HVTRACE_EVF_MMIO_LEN_SHIFT)
#define GPA	(HVTRACE_EVF_ADDR_GPA | HVTRACE_EVF_GPA_CLASS)
#define CLS	HVTRACE_EVF_GPA_CLASS
#define RD	HVTRACE_EVF_MMIO_READ
#define WR	HVTRACE_EVF_MMIO_WRITE
#define VMM	HVTRACE_EVF_MMIO_VMM

static void test_class(void)
{
	CHECK_INT(gpa_class_of(0), GPA_NONE);
	CHECK_INT(gpa_class_of(HVTRACE_EVF_RIP_VALID), GPA_NONE);
	CHECK_INT(gpa_class_of(GPA), GPA_RAM);
	CHECK_INT(gpa_class_of(GPA | WR | LEN(4)), GPA_KERNEL_MMIO);
	CHECK_INT(gpa_class_of(GPA | RD | VMM | LEN(4)), GPA_VMM_MMIO);
	/* A device access without a GPA (an emulated instruction). */
	CHECK_INT(gpa_class_of(CLS | WR | LEN(2)), GPA_KERNEL_MMIO);
	/* Not followed (an older module): nothing said, whatever the bits. */
	CHECK_INT(gpa_class_of(HVTRACE_EVF_ADDR_GPA), GPA_NONE);
	CHECK_INT(gpa_class_of(HVTRACE_EVF_ADDR_GPA | WR | VMM | LEN(4)),
		  GPA_NONE);
	CHECK(mmio_access_name(HVTRACE_EVF_ADDR_GPA | WR) == NULL);
	/* KVM_EXIT_MMIO alone says nothing of an access: as no access. */
	CHECK_INT(gpa_class_of(GPA | VMM), GPA_RAM);
	CHECK(gpa_class_name(GPA_NONE) == NULL);
	CHECK_STR(gpa_class_name(GPA_RAM), "ram");
	CHECK_STR(gpa_class_name(GPA_KERNEL_MMIO), "kernel-mmio");
	CHECK_STR(gpa_class_name(GPA_VMM_MMIO), "vmm-mmio");
	CHECK(mmio_access_name(GPA | VMM) == NULL);
	CHECK_STR(mmio_access_name(CLS | RD), "read");
	CHECK_STR(mmio_access_name(CLS | WR), "write");
	CHECK_STR(mmio_access_name(CLS | RD | WR), "read-write");
	/* The length's bits, and no more of the flags. */
	CHECK_INT(mmio_len(GPA | WR | LEN(15) | (1U << 14)), 15);
	CHECK_INT(mmio_len(GPA | WR), 0);
	CHECK_INT(HVTRACE_EVF_MMIO_LEN & __HVTRACE_EVF_ALL,
		  HVTRACE_EVF_MMIO_LEN);
	CHECK_INT(HVTRACE_EVF_MMIO_LEN & (GPA | RD | WR | VMM), 0);
}

static const char *hits_text(uint32_t hits)
{
	static char buf[64];

	return gpa_hits_text(buf, sizeof(buf), hits);
}

static void test_hits(void)
{
	uint32_t h;

	CHECK_STR(hits_text(0), "");
	CHECK_STR(hits_text(gpa_hits(GPA)), "ram");
	CHECK_STR(hits_text(gpa_hits(GPA | WR | VMM | LEN(4))),
		  "vmm-mmio w4");
	CHECK_STR(hits_text(gpa_hits(GPA | RD | LEN(4))), "kernel-mmio r4");
	/* Every length a bit of its own; the rest named as such. */
	h = gpa_hits(GPA | RD | LEN(1)) | gpa_hits(GPA | WR | LEN(2)) |
	    gpa_hits(GPA | RD | LEN(8)) | gpa_hits(GPA | RD | LEN(3)) |
	    gpa_hits(GPA | WR | LEN(0)) | gpa_hits(GPA | RD | LEN(12));
	CHECK_STR(hits_text(h), "kernel-mmio rw1/2/8/*/?");
	/* Exits not followed: nothing alone, "+unknown" beside others. */
	CHECK_STR(hits_text(gpa_hits(HVTRACE_EVF_ADDR_GPA)), "");
	CHECK_STR(hits_text(gpa_hits(HVTRACE_EVF_ADDR_GPA) | gpa_hits(GPA)),
		  "ram+unknown");
	/* Classes in a fixed order, whatever the exits' order. */
	h = gpa_hits(GPA | WR | VMM | LEN(4)) | gpa_hits(GPA) |
	    gpa_hits(GPA | WR | LEN(4));
	CHECK_STR(hits_text(h), "ram+kernel-mmio+vmm-mmio w4");
	/* A short buffer: cut, terminated, nothing written past it. */
	{
		char small[8];

		memset(small, 'x', sizeof(small));
		gpa_hits_text(small, 6, h);
		CHECK_STR(small, "ram+k");
		CHECK_INT(small[6], 'x');
	}
}

int main(void)
{
	test_class();
	test_hits();
	return unit_report();
}
