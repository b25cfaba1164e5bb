// SPDX-License-Identifier: GPL-2.0
/* user/lib/vm_seen.c: every VM a recording saw, once, in order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"
#include "vm_seen.h"

static void test_many(void)
{
	struct vm_seen s = { 0 };
	char *text = NULL, want[64];
	unsigned int failed = 0;
	size_t len = 0;
	FILE *f;

	/* 5000 VMs, each seen 3 times, interleaved; ids far apart. */
	for (int round = 0; round < 3; round++)
		for (uint32_t i = 0; i < 5000; i++)
			failed += vm_seen_note(&s, i * 65537 + 1,
					       0x3fffff00 + i % 7) != 0;
	CHECK_INT(failed, 0);
	CHECK_INT(s.nr, 5000);
	CHECK_INT(s.vms[4321].vm_id, 4321 * 65537 + 1);
	f = open_memstream(&text, &len);
	vm_seen_write(&s, f);
	fclose(f);
	/* pids of no process: no name, no UUID, the columns still there. */
	snprintf(want, sizeof(want), "%d\t%u\t\t\n", 0x3fffff00 + 4321 % 7,
		 4321 * 65537 + 1);
	CHECK(strstr(text, want) != NULL);
	CHECK_INT((int)(strchr(text, '\n') - text) + 1,
		  (int)strlen("1073741568\t1\t\t\n"));
	free(text);
	vm_seen_free(&s);
	CHECK_INT(s.nr, 0);
}

static void test_self(void)
{
	struct vm_seen s = { 0 };

	/* This process has no -name: noted with an empty name. */
	CHECK_INT(vm_seen_note(&s, 7, getpid()), 0);
	CHECK_INT(vm_seen_note(&s, 7, getpid()), 0);
	CHECK_INT(s.nr, 1);
	CHECK_STR(s.vms[0].id.name, "");
	vm_seen_free(&s);
}

int main(void)
{
	test_many();
	test_self();
	return unit_report();
}
