// SPDX-License-Identifier: GPL-2.0
/* VM names and UUIDs from the VMM's command line (see vm_ident.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "err.h"
#include "vm_ident.h"

/* Longer command lines are cut here: QEMU's -name comes early. */
#define CMDLINE_MAX	(64 * 1024)

/*
 * The value of key KEY in QEMU option text OPTS ("a=1,b=2"); IMPLIED is
 * the key of a first element without '=' (QEMU's implied key).
 */
static void opt_value(const char *opts, const char *key, const char *implied,
		      char *out, size_t len)
{
	const char *p = opts;
	bool first = true;

	*out = '\0';
	while (*p) {
		const char *eq = NULL, *val, *q = p;
		size_t n = 0;
		bool match;

		/* One element: up to a single comma; ",," is a comma. */
		while (*q && !(q[0] == ',' && q[1] != ',')) {
			if (q[0] == ',')
				q++;
			else if (q[0] == '=' && !eq)
				eq = q;
			q++;
		}
		if (eq) {
			match = (size_t)(eq - p) == strlen(key) &&
				!strncmp(p, key, eq - p);
			val = eq + 1;
		} else {
			match = first && implied && !strcmp(key, implied);
			val = p;
		}
		if (match) {
			for (; val < q && n + 1 < len; val++) {
				if (val[0] == ',' && val[1] == ',')
					val++;
				out[n++] = iscntrl((unsigned char)*val) ?
					   '?' : *val;
			}
			out[n] = '\0';
		}
		first = false;
		p = *q ? q + 1 : q;
	}
}

static bool is_uuid(const char *s)
{
	for (int i = 0; i < VM_UUID_LEN; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return false;
	}
	return s[VM_UUID_LEN] == '\0';
}

static bool is_opt(const char *arg, const char *name)
{
	if (arg[0] != '-')
		return false;
	arg += arg[1] == '-' ? 2 : 1;
	return !strcmp(arg, name);
}

void vm_ident_parse(const char *args, size_t len, struct vm_ident *id)
{
	const char *end = args + len, *p;

	memset(id, 0, sizeof(*id));
	for (p = args; p < end; p += strnlen(p, end - p) + 1) {
		const char *v = p + strnlen(p, end - p) + 1;

		if (v >= end)
			break;
		/* The last one counts, as QEMU takes it; its value is none. */
		if (is_opt(p, "name")) {
			opt_value(v, "guest", "guest", id->name,
				  sizeof(id->name));
			p = v;
		} else if (is_opt(p, "uuid")) {
			snprintf(id->uuid, sizeof(id->uuid), "%s",
				 is_uuid(v) ? v : "");
			p = v;
		}
	}
}

int vm_ident_read(pid_t pid, struct vm_ident *id)
{
	char path[64], *args;
	size_t n;
	FILE *f;

	memset(id, 0, sizeof(*id));
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	args = malloc(CMDLINE_MAX);
	if (!args) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(args, 1, CMDLINE_MAX - 1, f);
	fclose(f);
	args[n] = '\0';
	vm_ident_parse(args, n, id);
	free(args);
	return 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int vm_ident_find(const char *opt, const char *s, pid_t *pid)
{
	unsigned int found = 0;
	pid_t first = 0, second = 0;
	struct dirent *d;
	DIR *proc;

	if (all_digits(s)) {
		unsigned long v;

		errno = 0;
		v = strtoul(s, NULL, 10);
		if (v == 0 || v > 0x3fffffff || errno == ERANGE)
			return hvc_err(EINVAL, "%s %s: not a process id", opt, s);
		*pid = v;
		return 0;
	}
	if (!*s || strlen(s) >= VM_NAME_MAX)
		return hvc_err(EINVAL, "%s '%s': not a pid, VM name or UUID",
			       opt, s);
	proc = opendir("/proc");
	if (!proc)
		return hvc_err(errno, "%s %s: cannot read /proc", opt, s);
	while ((d = readdir(proc))) {
		struct vm_ident id;

		if (!all_digits(d->d_name) ||
		    vm_ident_read(atoi(d->d_name), &id))
			continue;
		if (strcmp(id.name, s) && strcasecmp(id.uuid, s))
			continue;
		if (found++)
			second = atoi(d->d_name);
		else
			first = atoi(d->d_name);
	}
	closedir(proc);
	if (!found)
		return hvc_err(ESRCH, "%s %s: no running VM of that name or "
			       "UUID (nor a pid)", opt, s);
	if (found > 1)
		return hvc_err(EEXIST, "%s %s: %u running VMs of that name "
			       "(pids %d, %d%s): give the pid", opt, s, found,
			       (int)first, (int)second,
			       found > 2 ? ", ..." : "");
	*pid = first;
	return 0;
}
