// SPDX-License-Identifier: GPL-2.0
/* user/lib/vm_ident.c: a VM's name and UUID from QEMU's command line. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "fake_vmm.h"
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
	char args[200], want[VM_NAME_MAX];
	struct vm_ident id;

	/* Control characters cannot break vms.tsv's lines. */
	id = parse("qemu|-name|a\tb\nc");
	CHECK_STR(id.name, "a?b?c");
	/* Cut, and marked so: 60 bytes and U+2026, 63 in all. */
	strcpy(args, "qemu|-name|");
	memset(args + strlen(args), 'n', 100);
	args[11 + 100] = '\0';
	id = parse(args);
	memset(want, 'n', 60);
	strcpy(want + 60, "\xe2\x80\xa6");
	CHECK_STR(id.name, want);
	CHECK_INT((int)strlen(id.name), VM_NAME_MAX - 1);
	/* 63 bytes fit whole: no mark. */
	args[11 + 63] = '\0';
	id = parse(args);
	CHECK_INT((int)strlen(id.name), 63);
	CHECK_INT(id.name[62], 'n');
	/* 64 do not. */
	args[11 + 63] = 'n';
	args[11 + 64] = '\0';
	id = parse(args);
	CHECK_STR(id.name, want);
	/* Never half a character: "é" (2 bytes) across byte 60 goes whole. */
	strcpy(args, "qemu|-name|");
	memset(args + 11, 'n', 59);
	strcpy(args + 11 + 59, "\xc3\xa9xxxxxxxx");
	id = parse(args);
	memset(want, 'n', 59);
	strcpy(want + 59, "\xe2\x80\xa6");
	CHECK_STR(id.name, want);
}

static char last_err[256];

static void sink(const char *msg, void *data)
{
	(void)data;
	snprintf(last_err, sizeof(last_err), "%s", msg);
}

/* The one rule: decimal digits alone are a pid, anything else a name. */
static void test_check(void)
{
	char name[VM_NAME_MAX + 1];
	pid_t pid = 1;

	hvc_set_err_sink(sink, NULL);
	CHECK_INT(vm_ident_check("--vm", "4242", &pid), 0);
	CHECK_INT(pid, 4242);
	CHECK_INT(vm_ident_check("--vm", "2147483647", &pid), 0);
	CHECK_INT(pid, 2147483647);
	CHECK_INT(vm_ident_check("--vm", "0x10", &pid), 0);
	CHECK_INT(pid, 0);
	CHECK_INT(vm_ident_check("--vm", "+5", &pid), 0);
	CHECK_INT(pid, 0);
	CHECK_INT(vm_ident_check("--vm", "010", &pid), 0);
	CHECK_INT(pid, 10);
	last_err[0] = '\0';
	CHECK_INT(vm_ident_check("--vm", "0", &pid), -EINVAL);
	CHECK_STR(last_err, "--vm takes the VMM's pid, not '0'");
	CHECK_INT(vm_ident_check("--vm", "2147483648", &pid), -EINVAL);
	CHECK_STR(last_err, "--vm takes the VMM's pid, not '2147483648'");
	CHECK_INT(vm_ident_check("--vm", "99999999999999999999999", &pid),
		  -EINVAL);
	CHECK_STR(last_err, "--vm takes the VMM's pid, not "
		  "'99999999999999999999999'");
	CHECK_INT(vm_ident_check("--vm", "", &pid), -EINVAL);
	CHECK_STR(last_err, "--vm takes the VMM's pid, a VM's name or UUID, "
		  "not ''");
	/* The longest name there can be, and one byte more. */
	memset(name, 'a', VM_NAME_MAX - 1);
	name[VM_NAME_MAX - 1] = '\0';
	CHECK_INT(vm_ident_check("--vm", name, &pid), 0);
	strcat(name, "b");
	CHECK_INT(vm_ident_check("--vm", name, &pid), -EINVAL);
	CHECK_STR(last_err, "--vm aaaaaaaaaaaaaaaa...: 64 bytes, but VM names "
		  "are at most 63 here (a longer one is cut, shown ending in "
		  "'\xe2\x80\xa6'): give its pid or UUID");
}

/*
 * A name is looked up among the VMMs the module reports only: a process
 * that writes "-name web01" on its command line is no VM.
 */
static void test_find(void)
{
	const char *const web[] = { "-name", "guest=unit-web01", "-uuid",
				    UUID, NULL };
	const char *const twin[] = { "-name", "unit-web01", NULL };
	struct fake_vmm a, b;
	pid_t pid = 0;

	hvc_set_err_sink(fake_sink, NULL);
	CHECK(fake_vmm_spawn(&a, "unit-web01", web));
	CHECK(fake_vmm_spawn(&b, "unit-web01", twin));

	/* A pid is a pid: the module is not asked. */
	fake_reset();
	CHECK_INT(vm_ident_find("--vm", "4242", &pid), 0);
	CHECK_INT(pid, 4242);
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 0);

	/* The module knows no VMM: the spoofer is not matched. */
	fake_reset();
	CHECK_INT(vm_ident_find("--vm", "unit-web01", &pid), -ESRCH);
	CHECK_STR(fake_err, "--vm unit-web01: no running VM of that name or "
		  "UUID (nor a pid)");
	CHECK_INT(fake_asked[HVTRACE_CMD_GET_STATS][1], 1);
	/* Nor when the module knows other VMMs. */
	fake_vmm_row(4100, 1, false);
	CHECK_INT(vm_ident_find("--vm", "unit-web01", &pid), -ESRCH);

	/* A reported VMM is: by name, by UUID in either case. */
	fake_reset();
	fake_vmm_row(4100, 1, false);
	fake_vmm_row(a.pid, 2, false);
	fake_vmm_row(a.pid, 2, false);		/* its second vCPU */
	pid = 0;
	CHECK_INT(vm_ident_find("--vm", "unit-web01", &pid), 0);
	CHECK_INT(pid, a.pid);
	pid = 0;
	CHECK_INT(vm_ident_find("filter.pid",
				"6F0C2A4E-1B2C-4D3E-8F90-A1B2C3D4E5F6", &pid),
		  0);
	CHECK_INT(pid, a.pid);

	/* Both: two VMs of one name. */
	fake_vmm_row(b.pid, 3, false);
	CHECK_INT(vm_ident_find("--vm", "unit-web01", &pid), -EEXIST);
	snprintf(last_err, sizeof(last_err), "--vm unit-web01: 2 running VMs "
		 "of that name (pids %d, %d): give the pid", (int)a.pid,
		 (int)b.pid);
	CHECK_STR(fake_err, last_err);

	/* A destroyed vCPU's pid is no VMM's any more. */
	fake_reset();
	fake_vmm_row(a.pid, 2, true);
	CHECK_INT(vm_ident_find("--vm", "unit-web01", &pid), -ESRCH);

	/* What looks like a number is a name, and is told so. */
	fake_reset();
	CHECK_INT(vm_ident_find("--pid", "0x10", &pid), -ESRCH);
	CHECK_STR(fake_err, "--pid 0x10: no running VM of that name or UUID "
		  "(nor a pid, which is decimal digits only)");
	/* A UUID may start with a digit: no word on pids then. */
	fake_reset();
	CHECK_INT(vm_ident_find("--pid", "6a1e5c4e-0074-4000-8000-000000000074",
				&pid), -ESRCH);
	CHECK_STR(fake_err, "--pid 6a1e5c4e-0074-4000-8000-000000000074: no "
		  "running VM of that name or UUID (nor a pid)");

	/* Without the module, no name: why, in one message. */
	fake_reset();
	fake_open_err = -ENOENT;
	CHECK_INT(vm_ident_find("--vm", "unit-web01", &pid), -ENOENT);
	CHECK_STR(fake_err, "--vm unit-web01: a VM's name is looked up among "
		  "the VMs the module sees: fake: cannot open (-2)");
	fake_reset();
	fake_vmm_end(&a);
	fake_vmm_end(&b);
}

int main(void)
{
	test_forms();
	test_none();
	test_cut_and_clean();
	test_check();
	test_find();
	return unit_report();
}
