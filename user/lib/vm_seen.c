// SPDX-License-Identifier: GPL-2.0
/* The VMs a recording saw (see vm_seen.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "grow.h"
#include "vm_seen.h"

static unsigned int slot_of(uint32_t vm_id, unsigned int nr_slots)
{
	return (vm_id * 2654435761u) & (nr_slots - 1);
}

/* The slot holding VM_ID, or the empty one where it would go. */
static uint32_t *find(const struct vm_seen *s, uint32_t vm_id)
{
	unsigned int i = slot_of(vm_id, s->nr_slots);

	while (s->slots[i] && s->vms[s->slots[i] - 1].vm_id != vm_id)
		i = (i + 1) & (s->nr_slots - 1);
	return &s->slots[i];
}

static int rehash(struct vm_seen *s)
{
	unsigned int n = s->nr_slots ? 2 * s->nr_slots : 64;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return hvc_err(ENOMEM, "out of memory");
	free(s->slots);
	s->slots = slots;
	s->nr_slots = n;
	for (unsigned int i = 0; i < s->nr; i++)
		*find(s, s->vms[i].vm_id) = i + 1;
	return 0;
}

int vm_seen_note(struct vm_seen *s, uint32_t vm_id, pid_t pid)
{
	struct vm_seen_entry *e;
	uint32_t *slot;

	if (s->last && s->vms[s->last - 1].vm_id == vm_id)
		return 0;
	if (2 * (s->nr + 1) > s->nr_slots && rehash(s))
		return -ENOMEM;
	slot = find(s, vm_id);
	if (!*slot) {
		if (grow(&s->vms, s->nr, sizeof(*s->vms)))
			return -ENOMEM;
		e = &s->vms[s->nr];
		e->vm_id = vm_id;
		e->pid = pid;
		vm_ident_read(pid, &e->id);
		*slot = ++s->nr;
	}
	s->last = *slot;
	return 0;
}

void vm_seen_write(const struct vm_seen *s, FILE *f)
{
	for (unsigned int i = 0; i < s->nr; i++) {
		const struct vm_seen_entry *e = &s->vms[i];

		fprintf(f, "%d\t%u\t%s\t%s\n", (int)e->pid, e->vm_id,
			e->id.name, e->id.uuid);
	}
}

void vm_seen_free(struct vm_seen *s)
{
	free(s->vms);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}
