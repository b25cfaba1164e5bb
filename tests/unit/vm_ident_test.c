// SPDX-License-Identifier: GPL-2.0
/* user/lib/vm_ident.c: a VM's name and UUID from QEMU's command line. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "unit.h"
#include "vm_ident.h"

/* ARGS: arguments separated by '|' (as NULs in /proc/PID/cmdline). */
static struct vm_ident parse(const char *args)
{
	char buf[512];
	size_t n = strlen(args);
	struct vm_ident id;

	memcpy(buf, args, n + 1);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '|')
			buf[i] = '\0';
	vm_ident_parse(buf, n + 1, &id);
	return id;
}

#define UUID "6f0c2a4e-1b2c-4d3e-8f90-a1b2c3d4e5f6"

static void test_forms(void)
{
	struct vm_ident id;

	id = parse("qemu-system-x86_64|-name|web1|-m|1024");
	CHECK_STR(id.name, "web1");
	CHECK_STR(id.uuid, "");
	/* libvirt's */
	id = parse("qemu|-name|guest=db-7,debug-threads=on|-uuid|" UUID);
	CHECK_STR(id.name, "db-7");
	CHECK_STR(id.uuid, UUID);
	/* The implied key first, other keys after. */
	id = parse("qemu|--name|db,process=qemu-db,debug-threads=on");
	CHECK_STR(id.name, "db");
	id = parse("qemu|-name|process=p,guest=g");
	CHECK_STR(id.name, "g");
	/* A doubled comma is a comma of the name. */
	id = parse("qemu|-name|a,,b,debug-threads=on");
	CHECK_STR(id.name, "a,b");
	id = parse("qemu|-name|guest=x,,,,y");
	CHECK_STR(id.name, "x,,y");
	/* The last -name counts, as in QEMU. */
	id = parse("qemu|-name|one|-name|two");
	CHECK_STR(id.name, "two");
	/* Uppercase hex is a UUID too. */
	id = parse("qemu|--uuid|6F0C2A4E-1B2C-4D3E-8F90-A1B2C3D4E5F6");
	CHECK_STR(id.uuid, "6F0C2A4E-1B2C-4D3E-8F90-A1B2C3D4E5F6");
}

static void test_none(void)
{
	struct vm_ident id;

	id = parse("hvguest|--vcpus|2");
	CHECK_STR(id.name, "");
	CHECK_STR(id.uuid, "");
	/* An option without its value, at the end. */
	id = parse("qemu|-name");
	CHECK_STR(id.name, "");
	/* Not a UUID: length, a misplaced dash, a non-hex digit. */
	id = parse("qemu|-uuid|" UUID "0");
	CHECK_STR(id.uuid, "");
	id = parse("qemu|-uuid|6f0c2a4e1-b2c-4d3e-8f90-a1b2c3d4e5f6");
	CHECK_STR(id.uuid, "");
	id = parse("qemu|-uuid|6f0c2a4e-1b2c-4d3e-8f90-a1b2c3d4e5fg");
	CHECK_STR(id.uuid, "");
	/* An option's value is no option: "-name -uuid X" names "-uuid". */
	id = parse("qemu|-name|-uuid|" UUID);
	CHECK_STR(id.name, "-uuid");
	CHECK_STR(id.uuid, "");
	/* -names, -nameX: other options. */
	id = parse("qemu|-names|x|-name=y");
	CHECK_STR(id.name, "");
}

static void test_cut_and_clean(void)
{
	char args[200];
	struct vm_ident id;

	/* Control characters cannot break vms.tsv's lines. */
	id = parse("qemu|-name|a\tb\nc");
	CHECK_STR(id.name, "a?b?c");
	/* Cut to VM_NAME_MAX - 1 bytes. */
	strcpy(args, "qemu|-name|");
	memset(args + strlen(args), 'n', 100);
	args[11 + 100] = '\0';
	id = parse(args);
	CHECK_INT((int)strlen(id.name), VM_NAME_MAX - 1);
}

static char last_err[256];

static void sink(const char *msg, void *data)
{
	(void)data;
	snprintf(last_err, sizeof(last_err), "%s", msg);
}

static void test_find(void)
{
	pid_t pid = 0;

	hvc_set_err_sink(sink, NULL);
	CHECK_INT(vm_ident_find("--vm", "4242", &pid), 0);
	CHECK_INT(pid, 4242);
	CHECK_INT(vm_ident_find("--vm", "0", &pid), -EINVAL);
	CHECK_STR(last_err, "--vm 0: not a process id");
	CHECK_INT(vm_ident_find("--vm", "no-such-vm-name-here", &pid),
		  -ESRCH);
	CHECK_STR(last_err, "--vm no-such-vm-name-here: no running VM of "
		  "that name or UUID (nor a pid)");
	CHECK_INT(vm_ident_find("--vm", "", &pid), -EINVAL);
	CHECK_STR(last_err, "--vm '': not a pid, VM name or UUID");
}

int main(void)
{
	test_forms();
	test_none();
	test_cut_and_clean();
	test_find();
	return unit_report();
}
