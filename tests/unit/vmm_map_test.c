// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/vmm_map.[ch]: QEMU's `info mtree -f` into the regions that
 * are no RAM, vmm-map.tsv out and back, and a GPA's device by VMM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "vmm_map.h"

/*
 * QEMU 7.2's answer (Debian 12) for -M pc -device edu, cut; the I/O
 * space first, as QEMU prints it, KVM's notes as under KVM, and the
 * monitor's "\r\n" line ends on some lines.
 */
static const char mtree[] =
	"FlatView #0\n"
	" AS \"I/O\", root: io\n"
	" Root memory region: io\n"
	"  0000000000000000-0000000000000007 (prio 0, i/o): dma-chan\n"
	"  0000000000000070-0000000000000070 (prio 0, i/o): rtc-index\n"
	"\n"
	"FlatView #3\n"
	" AS \"memory\", root: system\n"
	" AS \"cpu-memory-0\", root: system\n"
	" Root memory region: system\n"
	"  0000000000000000-000000000009ffff (prio 0, ram): pc.ram KVM\n"
	"  00000000000a0000-00000000000bffff (prio 1, i/o): vga-lowmem\n"
	"  00000000000c0000-00000000000cafff (prio 0, rom): pc.ram @00000000000c0000 KVM\n"
	"  0000000000100000-0000000007ffffff (prio 0, ram): pc.ram @0000000000100000 KVM\n"
	"  00000000fea00000-00000000feafffff (prio 1, i/o): edu-mmio\r\n"
	"  00000000feb70180-00000000feb703ff (prio 1, i/o): vga.mmio @0000000000000180\n"
	"  00000000feb70500-00000000feb70515 (prio 0, i/o): bochs dispi interface\n"
	"  00000000fee00000-00000000feefffff (prio 4096, i/o): kvm-apic-msi\r\n"
	"\n"
	"FlatView #4\n"
	" AS \"e1000\", root: bus master container\n"
	"  00000000fea00000-00000000feafffff (prio 1, i/o): not-this-one\n";

static void test_mtree(void)
{
	struct vmm_map m = { 0 };
	const struct vmm_region *r;

	CHECK_INT(vmm_map_add_mtree(&m, 4100, mtree), 6);
	vmm_map_sort(&m);
	CHECK_STR(m.r[0].name, "vga-lowmem");
	CHECK_STR(m.r[0].kind, "i/o");
	/* ROM: an alias's offset and KVM's note are not the name. */
	CHECK_STR(m.r[1].name, "pc.ram");
	CHECK_STR(m.r[1].kind, "rom");
	r = vmm_map_find(&m, 4100, 0xfea00004);
	CHECK(r && !strcmp(r->name, "edu-mmio"));
	CHECK(r && r->start == 0xfea00000 && r->end == 0xfeafffff);
	r = vmm_map_find(&m, 4100, 0xfeb70510);
	CHECK(r && !strcmp(r->name, "bochs dispi interface"));
	r = vmm_map_find(&m, 4100, 0xfeb70400);	/* between two regions */
	CHECK(r == NULL);
	CHECK(vmm_map_find(&m, 4100, 0x1000) == NULL);	/* RAM */
	CHECK(vmm_map_find(&m, 4101, 0xfea00004) == NULL);	/* another VMM */
	CHECK(vmm_map_find(&m, 4100, 0xffffffffffffffffULL) == NULL);
	/* Asked again (record's end): the VMM's regions replaced. */
	CHECK_INT(vmm_map_add_mtree(&m, 4100, mtree), 6);
	CHECK_INT(m.nr, 6);
	CHECK_INT(vmm_map_add_mtree(&m, 4100, "no map here"), -1);
	CHECK_INT(m.nr, 6);
	vmm_map_free(&m);
	CHECK_INT(m.nr, 0);
}

static void test_tsv(void)
{
	struct vmm_map m = { 0 }, back = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_INT(vmm_map_add_mtree(&m, 4100, mtree), 6);
	CHECK_INT(vmm_map_add_mtree(&m, 17, mtree), 6);
	vmm_map_sort(&m);
	CHECK_INT(m.r[0].pid, 17);
	f = open_memstream(&text, &len);
	vmm_map_write(&m, f);
	fclose(f);
	CHECK_HAS(text, "4100\t0xfea00000\t0xfeafffff\ti/o\tedu-mmio\n");
	/* Back, with a line that is not one: skipped and counted. */
	text = realloc(text, len + 64);
	strcat(text, "4100\tnot a number\n");
	CHECK_INT(vmm_map_add_tsv(&back, text), 1);
	vmm_map_sort(&back);
	CHECK_INT(back.nr, 12);
	for (unsigned int i = 0; i < m.nr; i++)
		CHECK(back.r[i].pid == m.r[i].pid &&
		      back.r[i].start == m.r[i].start &&
		      back.r[i].end == m.r[i].end &&
		      !strcmp(back.r[i].kind, m.r[i].kind) &&
		      !strcmp(back.r[i].name, m.r[i].name));
	CHECK_STR(vmm_map_find(&back, 17, 0xfee00000)->name, "kvm-apic-msi");
	free(text);
	vmm_map_free(&m);
	vmm_map_free(&back);
}

int main(void)
{
	test_mtree();
	test_tsv();
	return unit_report();
}
