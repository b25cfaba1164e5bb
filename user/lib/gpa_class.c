// SPDX-License-Identifier: GPL-2.0
/* The words of gpa_class.h. */
#include <stdio.h>

#include "gpa_class.h"

_Static_assert(GPA_HIT_CLASSES == (1U << GPA_RAM | 1U << GPA_KERNEL_MMIO |
				   1U << GPA_VMM_MMIO), "the classes' bits");

static const char *const class_names[] = {
	[GPA_RAM] = "ram",
	[GPA_KERNEL_MMIO] = "kernel-mmio",
	[GPA_VMM_MMIO] = "vmm-mmio",
};

const char *gpa_class_name(enum gpa_class c)
{
	return c == GPA_NONE ? NULL : class_names[c];
}

const char *mmio_access_name(uint64_t flags)
{
	if (!(flags & HVTRACE_EVF_GPA_CLASS))
		return NULL;
	switch (flags & HVTRACE_EVF_MMIO) {
	case HVTRACE_EVF_MMIO_READ:
		return "read";
	case HVTRACE_EVF_MMIO_WRITE:
		return "write";
	case HVTRACE_EVF_MMIO:
		return "read-write";
	}
	return NULL;
}

char *gpa_hits_text(char *buf, size_t len, uint32_t hits)
{
	static const char *const lens[] = { "1", "2", "4", "8", "", "*",
					    "?" };
	const char *sep = "";
	size_t n = 0;

#define PUT(...) (n += snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	buf[0] = '\0';
	for (int c = GPA_RAM; c <= GPA_VMM_MMIO; c++)
		if (hits & 1U << c) {
			PUT("%s%s", sep, class_names[c]);
			sep = "+";
		}
	if (*sep && (hits & 1U << GPA_NONE))
		PUT("+unknown");
	if (!(hits & (GPA_HIT_READ | GPA_HIT_WRITE)))
		return buf;
	PUT(" %s%s", hits & GPA_HIT_READ ? "r" : "",
	    hits & GPA_HIT_WRITE ? "w" : "");
	sep = "";
	for (unsigned int i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		if (hits & 1U << (GPA_HIT_LEN_SHIFT + i)) {
			PUT("%s%s", sep, lens[i]);
			sep = "/";
		}
#undef PUT
	return buf;
}
