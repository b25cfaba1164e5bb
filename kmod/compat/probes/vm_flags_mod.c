// SPDX-License-Identifier: GPL-2.0
/*
 * Since 6.3 a VMA's flags change only through vm_flags_set/clear/mod
 * (the per-VMA lock); before, they were written directly.
 */
#include <linux/mm.h>

static void __maybe_unused probe(struct vm_area_struct *vma)
{
	vm_flags_mod(vma, VM_DONTEXPAND, VM_MAYWRITE);
}
