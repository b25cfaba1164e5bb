// SPDX-License-Identifier: GPL-2.0
/*
 * The event filter of report, dump and export (trace_filter.h). Lists
 * are short (a few VMs, vCPUs, reasons, CPUs): a linear scan per event
 * costs less than anything cleverer.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/hvtrace.h>

#include "duration.h"
#include "err.h"
#include "trace_filter.h"
#include "vm_ident.h"

/*
 * "1.5s" (a unit: from the start), "120.000010" (seconds, as dump
 * prints them) or "120000010412" (ns, as the JSON does).
 */
static int parse_time(const char *opt, const char *s,
		      struct trace_filter_time *t)
{
	const char *err, *dot = NULL, *p;
	uint64_t ns = 0, scale = 1000000000ULL;

	if (*s == '-')
		return hvc_err(EINVAL, "%s: negative time '%s'", opt, s);
	if (*s == '+')
		s++;
	for (p = s; isdigit((unsigned char)*p) || (*p == '.' && !dot); p++)
		if (*p == '.')
			dot = p;
	t->set = true;
	if (*p || p == s) {
		/* A unit: relative to the trace's start. */
		if (duration_parse(s, &t->ns, &err))
			return hvc_err(EINVAL, "%s: %s", opt, err);
		return 0;
	}
	t->abs = true;
	for (p = s; *p && *p != '.'; p++) {
		if (ns > (UINT64_MAX - 9) / 10)
			return hvc_err(EINVAL, "%s: '%s' is too large",
					       opt, s);
		ns = ns * 10 + (*p - '0');
	}
	if (!dot) {
		t->ns = ns;
		return 0;
	}
	if (ns > UINT64_MAX / scale)
		return hvc_err(EINVAL, "%s: '%s' is too large", opt, s);
	t->ns = ns * scale;
	for (p = dot + 1; *p; p++) {
		scale /= 10;
		if (!scale)
			return hvc_err(EINVAL, "%s: '%s' is finer than 1ns",
					       opt, s);
		t->ns += (uint64_t)(*p - '0') * scale;
	}
	return 0;
}

/* "1,2,7" into IDS; each below LIMIT. */
static int parse_ids(const char *opt, const char *s, uint32_t *ids,
		     unsigned int *n, uint64_t limit)
{
	while (*s) {
		unsigned long long v;
		char *end;

		errno = 0;
		v = isdigit((unsigned char)*s) ? strtoull(s, &end, 0) : 0;
		if (!isdigit((unsigned char)*s) || errno || v >= limit ||
		    (*end && *end != ','))
			return hvc_err(EINVAL, "%s: '%s' is not a number "
					       "below %llu", opt, s,
					       (unsigned long long)limit);
		if (*n == TRACE_FILTER_MAX)
			return hvc_err(EINVAL, "%s: at most %u values", opt,
					       TRACE_FILTER_MAX);
		ids[(*n)++] = v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_reasons(struct trace_filter *f)
{
	char buf[128], *tok, *save = NULL;
	struct exit_reason_ref ref[EXIT_REASON_MAX_MATCHES];

	if (strlen(f->reason) >= sizeof(buf))
		return hvc_err(EINVAL, "--reason: too long");
	strcpy(buf, f->reason);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int n = exit_reason_parse(tok, ref, EXIT_REASON_MAX_MATCHES);
		char msg[512];

		if (n <= 0) {
			exit_reason_unknown(msg, sizeof(msg), tok);
			return hvc_err(EINVAL, "--reason: %s", msg);
		}
		for (int i = 0; i < n; i++) {
			if (f->nr_reasons == TRACE_FILTER_MAX)
				return hvc_err(EINVAL, "--reason: matches "
						       "more than %u reasons",
						       TRACE_FILTER_MAX);
			f->reasons[f->nr_reasons++] = ref[i];
		}
	}
	return 0;
}

int trace_filter_parse(struct trace_filter *f)
{
	int ret = 0;

	f->active = f->since || f->until || f->vm || f->vcpu || f->reason ||
		    f->cpu;
	if (f->since)
		ret = parse_time("--since", f->since, &f->from);
	if (!ret && f->until)
		ret = parse_time("--until", f->until, &f->to);
	if (!ret && f->vcpu)
		ret = parse_ids("--vcpu", f->vcpu, f->vcpus, &f->nr_vcpus,
				1ULL << 32);
	if (!ret && f->cpu)
		ret = parse_ids("--cpu", f->cpu, f->cpus, &f->nr_cpus,
				1U << 16);
	if (!ret && f->reason)
		ret = parse_reasons(f);
	if (ret)
		return ret;
	if (f->from.set && f->to.set && f->from.abs == f->to.abs &&
	    f->to.ns <= f->from.ns)
		return hvc_err(EINVAL, "--until must come after --since");
	return 0;
}

int trace_filter_bind(struct trace_filter *f, const struct trace_reader *r)
{
	char buf[128], *tok, *save = NULL;

	if (!f->vm)
		return 0;
	if (strlen(f->vm) >= sizeof(buf))
		return hvc_err(EINVAL, "--vm: more than %zu bytes",
			       sizeof(buf) - 1);
	strcpy(buf, f->vm);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		bool named = false;
		char *end;
		unsigned long v;

		/*
		 * A name first: a VM may well be called "1". Every VM of
		 * that name or UUID: a VM restarted is a new VMM, the same
		 * name.
		 */
		for (unsigned int i = 0; i < trace_nr_vms(r); i++) {
			const struct trace_vm *vm = trace_vm_at(r, i);

			if (strcmp(vm->name, tok) && strcasecmp(vm->uuid, tok))
				continue;
			if (f->nr_vms == TRACE_FILTER_MAX)
				return hvc_err(EINVAL, "--vm: at most %u VMs",
					       TRACE_FILTER_MAX);
			f->vms[f->nr_vms++] = vm->vm_id;
			named = true;
		}
		if (named)
			continue;
		if (f->nr_vms == TRACE_FILTER_MAX)
			return hvc_err(EINVAL, "--vm: at most %u VMs",
				       TRACE_FILTER_MAX);
		errno = 0;
		v = strtoul(tok, &end, 0);
		/* vms.tsv's names are cut, marked (vm_ident.h): not this. */
		if ((!isdigit((unsigned char)*tok) || *end) &&
		    strlen(tok) >= VM_NAME_MAX)
			return hvc_err(EINVAL, "--vm %.16s...: %zu bytes, but "
				       "VM names are at most %d (a longer one "
				       "is cut, shown ending in '" VM_NAME_CUT
				       "'): give its id or UUID", tok,
				       strlen(tok), VM_NAME_MAX - 1);
		if (!isdigit((unsigned char)*tok) || *end || errno ||
		    v > UINT32_MAX)
			return hvc_err(EINVAL, "--vm: no VM '%s' in this trace (an "
					 "id, or a name or UUID from vms.tsv)", tok);
		f->vms[f->nr_vms++] = v;
	}
	return 0;
}

static bool in(const uint32_t *ids, unsigned int n, uint32_t v)
{
	for (unsigned int i = 0; i < n; i++)
		if (ids[i] == v)
			return true;
	return false;
}

/* A late interrupt goes by its last exit: its vector is no exit reason. */
static bool reason_in(const struct trace_filter *f,
		      const struct trace_event *ev)
{
	uint32_t code = trace_exit_reason(ev);
	unsigned int isa = ev->e.isa;

	if (isa == HV_ISA_VMX)
		code &= HV_VMX_BASIC_REASON_MASK;
	for (unsigned int i = 0; i < f->nr_reasons; i++)
		if (f->reasons[i].isa == isa && f->reasons[i].code == code)
			return true;
	return false;
}

static uint64_t at(const struct trace_filter_time *t, uint64_t start,
		   uint64_t none)
{
	if (!t->set)
		return none;
	if (t->abs)
		return t->ns;
	return t->ns > UINT64_MAX - start ? UINT64_MAX : start + t->ns;
}

/* trace_filter_match() with a filter given. */
bool trace_filter_match_active(struct trace_filter *f,
			       const struct trace_reader *r,
			       const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;
	uint64_t t;

	if (!f->resolved) {
		struct trace_info info;

		/* Every stream's first packet is in: the start is known. */
		trace_get_info(r, &info);
		f->lo = at(&f->from, info.first_ts, 0);
		f->hi = at(&f->to, info.first_ts, UINT64_MAX);
		f->resolved = true;
	}
	t = trace_exit_ns(ev);
	if (t < f->lo || t >= f->hi)
		return false;
	if (f->nr_vms && !in(f->vms, f->nr_vms, e->vm_id))
		return false;
	if (f->nr_vcpus && !in(f->vcpus, f->nr_vcpus, e->vcpu_id))
		return false;
	if (f->nr_cpus && !in(f->cpus, f->nr_cpus, ev->cpu))
		return false;
	return !f->nr_reasons || reason_in(f, ev);
}

bool trace_filter_window(const struct trace_filter *f, uint64_t *lo,
			 uint64_t *hi)
{
	if (!f->resolved || (!f->from.set && !f->to.set))
		return false;
	*lo = f->lo;
	*hi = f->hi;
	return true;
}
