// SPDX-License-Identifier: GPL-2.0
/* A VMM's memory map of devices (vmm_map.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "vmm_map.h"

static struct vmm_region *region_new(struct vmm_map *m)
{
	if (m->nr == m->cap) {
		unsigned int cap = m->cap ? 2 * m->cap : 64;
		struct vmm_region *r = realloc(m->r, cap * sizeof(*r));

		if (!r)
			return errno = ENOMEM, NULL;
		m->r = r;
		m->cap = cap;
	}
	return memset(&m->r[m->nr++], 0, sizeof(*m->r));
}

static void drop_pid(struct vmm_map *m, uint32_t pid)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < m->nr; i++)
		if (m->r[i].pid != pid)
			m->r[n++] = m->r[i];
	m->nr = n;
}

/*
 * "  START-END (prio P, KIND): NAME[ @OFFSET][ KVM]" into *R: false when
 * LINE (up to its newline) is no region's line.
 */
static bool parse_region(const char *text, struct vmm_region *r)
{
	/*
	 * One line, terminated (sscanf would measure the whole text), less
	 * the monitor's line end ("\r\n").
	 */
	char line[256];
	const char *p, *name;
	size_t len = strcspn(text, "\r\n");
	int n = 0;

	if (len >= sizeof(line))
		return false;
	memcpy(line, text, len);
	line[len] = '\0';
	if (sscanf(line, " %" SCNx64 "-%" SCNx64 " (prio %*d, %7[^)]): %n",
		   &r->start, &r->end, r->kind, &n) != 3 || !n ||
	    r->end < r->start)
		return false;
	name = line + n;
	len = strlen(name);
	/* QEMU's notes after the name: an alias's offset, KVM's slot. */
	if (len > 4 && !memcmp(name + len - 4, " KVM", 4))
		len -= 4;
	p = memchr(name, '@', len);
	if (p && p > name && p[-1] == ' ')
		len = p - 1 - name;
	snprintf(r->name, sizeof(r->name), "%.*s", (int)len, name);
	return true;
}

int vmm_map_add_mtree(struct vmm_map *m, uint32_t pid, const char *mtree)
{
	const char *view = strstr(mtree, "\n AS \"memory\",");
	const char *line;
	int added = 0;

	if (!view && !strncmp(mtree, " AS \"memory\",", 13))
		view = mtree;
	if (!view)
		return errno = EINVAL, -1;
	drop_pid(m, pid);
	/* The view's lines run to the next "FlatView" (or the end). */
	for (line = strchr(view + 1, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		struct vmm_region r = { .pid = pid }, *slot;

		if (!strncmp(line + 1, "FlatView", 8))
			break;
		if (!parse_region(line + 1, &r) || !strcmp(r.kind, "ram"))
			continue;
		slot = region_new(m);
		if (!slot)
			return -1;
		*slot = r;
		added++;
	}
	return added;
}

int vmm_map_add_tsv(struct vmm_map *m, char *text)
{
	char *line, *save = NULL;
	int bad = 0;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct vmm_region r = { 0 }, *slot;
		int n = 0;

		if (sscanf(line, "%" SCNu32 "\t%" SCNx64 "\t%" SCNx64
			   "\t%7[^\t]\t%n", &r.pid, &r.start, &r.end, r.kind,
			   &n) != 4 || !n || r.end < r.start) {
			bad++;
			continue;
		}
		snprintf(r.name, sizeof(r.name), "%s", line + n);
		slot = region_new(m);
		if (!slot)
			return -1;
		*slot = r;
	}
	return bad;
}

static int cmp_region(const void *a, const void *b)
{
	const struct vmm_region *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

void vmm_map_sort(struct vmm_map *m)
{
	if (m->nr)
		qsort(m->r, m->nr, sizeof(*m->r), cmp_region);
}

void vmm_map_write(const struct vmm_map *m, FILE *f)
{
	for (unsigned int i = 0; i < m->nr; i++)
		fprintf(f, "%" PRIu32 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t%s\t%s\n",
			m->r[i].pid, m->r[i].start, m->r[i].end, m->r[i].kind,
			m->r[i].name);
}

const struct vmm_region *vmm_map_find(const struct vmm_map *m, uint32_t pid,
				      uint64_t gpa)
{
	unsigned int lo = 0, hi = m->nr;

	/* The last region of PID that starts at or below GPA. */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct vmm_region *r = &m->r[mid];

		if (r->pid < pid || (r->pid == pid && r->start <= gpa))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || m->r[lo - 1].pid != pid || m->r[lo - 1].end < gpa)
		return NULL;
	return &m->r[lo - 1];
}

void vmm_map_free(struct vmm_map *m)
{
	free(m->r);
	*m = (struct vmm_map){ 0 };
}
