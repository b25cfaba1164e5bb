// SPDX-License-Identifier: GPL-2.0
/* VM names and UUIDs from the VMM's command line (see vm_ident.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client.h"
#include "err.h"
#include "vm_ident.h"

/* Longer command lines are cut here: QEMU's -name comes early. */
#define CMDLINE_MAX	(64 * 1024)

/*
 * The value of key KEY in QEMU option text OPTS ("a=1,b=2"); IMPLIED is
 * the key of a first element without '=' (QEMU's implied key). True when
 * it did not fit in LEN and was cut.
 */
static bool opt_value(const char *opts, const char *key, const char *implied,
		      char *out, size_t len)
{
	const char *p = opts;
	bool first = true, cut = false;

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
			cut = val < q;
		}
		first = false;
		p = *q ? q + 1 : q;
	}
	return cut;
}

/*
 * NAME (VM_NAME_MAX bytes) cut: VM_NAME_CUT in place of its end, after
 * whole UTF-8 characters only (no continuation byte left first).
 */
static void mark_cut(char *name)
{
	size_t n = VM_NAME_MAX - sizeof(VM_NAME_CUT);

	while (n && ((unsigned char)name[n] & 0xc0) == 0x80)
		n--;
	memcpy(name + n, VM_NAME_CUT, sizeof(VM_NAME_CUT));
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
			if (opt_value(v, "guest", "guest", id->name,
				      sizeof(id->name)))
				mark_cut(id->name);
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
	return *s && !s[strspn(s, "0123456789")];
}

int vm_ident_check(const char *opt, const char *s, pid_t *pid)
{
	unsigned long long v;

	*pid = 0;
	if (all_digits(s)) {
		errno = 0;
		v = strtoull(s, NULL, 10);
		if (!v || v > 0x7fffffff || errno)
			return hvc_err(EINVAL, "%s takes the VMM's pid, not "
				       "'%s'", opt, s);
		*pid = v;
		return 0;
	}
	if (!*s)
		return hvc_err(EINVAL, "%s takes the VMM's pid, a VM's name "
			       "or UUID, not ''", opt);
	/* A longer one is no name: names are cut, marked (vm_ident.h). */
	if (strlen(s) >= VM_NAME_MAX)
		return hvc_err(EINVAL, "%s %.16s...: %zu bytes, but VM names "
			       "are at most %d here (a longer one is cut, shown "
			       "ending in '" VM_NAME_CUT "'): give its pid or "
			       "UUID", opt, s, strlen(s), VM_NAME_MAX - 1);
	return 0;
}

/* "0x10", "-1", "+5": meant as a number, unlike a UUID ("6a1e5c4e-..."). */
static bool looks_numeric(const char *s)
{
	return *s && strchr("+-0123456789", *s) &&
	       !s[1 + strspn(s + 1, "0123456789abcdefABCDEFxX")];
}

int vm_ident_match(const char *opt, const char *s, const pid_t *vmms,
		   unsigned int nr, pid_t *pid)
{
	unsigned int found = 0;
	pid_t first = 0, second = 0;
	int ret = vm_ident_check(opt, s, pid);

	if (ret || *pid)
		return ret;
	for (unsigned int i = 0; i < nr; i++) {
		struct vm_ident id;

		if (vm_ident_read(vmms[i], &id) ||
		    (strcmp(id.name, s) && strcasecmp(id.uuid, s)))
			continue;
		if (found++)
			second = vmms[i];
		else
			first = vmms[i];
	}
	/* "0x10", "+5": what looks like a number is a name all the same. */
	if (!found)
		return hvc_err(ESRCH, "%s %s: no running VM of that name or "
			       "UUID (nor a pid%s)", opt, s,
			       looks_numeric(s) ?
			       ", which is decimal digits only" : "");
	if (found > 1)
		return hvc_err(EEXIST, "%s %s: %u running VMs of that name "
			       "(pids %d, %d%s): give the pid", opt, s, found,
			       (int)first, (int)second,
			       found > 2 ? ", ..." : "");
	*pid = first;
	return 0;
}

static void keep_msg(const char *msg, void *data)
{
	snprintf(data, 256, "%s", msg);
}

/*
 * The pids of the VMMs whose vCPUs the module holds alive, each once,
 * into *VMMS (to free). Only the module's: KVM's own record of who made
 * the VM (kvm->userspace_pid), the very pid its filters compare, for the
 * cost of one dump; where a look for a kvm-vm descriptor in every
 * /proc/PID/fd would cost a readlink per descriptor of the host and needs
 * the right to read other users' (CAP_SYS_PTRACE), which the services do
 * not have.
 */
static int module_vmms(pid_t **vmms, unsigned int *nr)
{
	struct hvc_stats st = { 0 };
	struct hvc *c;
	int ret = hvc_open(&c);

	*vmms = NULL;
	*nr = 0;
	/*
	 * Since load: since a clear, a vCPU without an exit yet is not
	 * sent. A module of ABI 3 knows only the since-clear view.
	 */
	if (!ret) {
		ret = hvc_stats_get_since_load(c, &st);
		if (ret == -EINVAL)
			ret = hvc_stats_get(c, &st);
	}
	hvc_close(c);
	if (!ret && st.nr_vcpus) {
		*vmms = calloc(st.nr_vcpus, sizeof(**vmms));
		if (!*vmms)
			ret = hvc_err(ENOMEM, "out of memory");
	}
	for (unsigned int i = 0; !ret && i < st.nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &st.vcpus[i];
		unsigned int j = 0;

		/* A destroyed vCPU's pid may be another process's now. */
		if (v->gone)
			continue;
		while (j < *nr && (*vmms)[j] != (pid_t)v->vm_pid)
			j++;
		if (j == *nr)
			(*vmms)[(*nr)++] = v->vm_pid;
	}
	hvc_stats_free(&st);
	return ret;
}

int vm_ident_find(const char *opt, const char *s, pid_t *pid)
{
	char msg[256] = "";
	unsigned int nr;
	hvc_err_sink sink;
	pid_t *vmms;
	void *data;
	int ret = vm_ident_check(opt, s, pid);

	if (ret || *pid)
		return ret;
	hvc_get_err_sink(&sink, &data);
	hvc_set_err_sink(keep_msg, msg);
	ret = module_vmms(&vmms, &nr);
	hvc_set_err_sink(sink, data);
	if (ret)
		return hvc_err(-ret, "%s %s: a VM's name is looked up among the "
			       "VMs the module sees: %s", opt, s, msg);
	ret = vm_ident_match(opt, s, vmms, nr, pid);
	free(vmms);
	return ret;
}
