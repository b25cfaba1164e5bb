// SPDX-License-Identifier: GPL-2.0
/* hvctl reasons: the exit reasons hvctl knows, both vendors. */
#include <inttypes.h>
#include <stdio.h>

#include "exit_reasons.h"
#include "hvctl.h"
#include "output.h"

static int reasons_run(int argc, char **argv)
{
	struct out out, *o = &out;

	if (hvctl_want_help(&hvctl_cmd_reasons, argc, argv))
		return 0;
	if (hvctl_no_args(&hvctl_cmd_reasons, argc, argv))
		return 2;
	out_init(o, stdout, hvctl_json);
	out_open_array(o, NULL);
	for (unsigned int isa = HV_ISA_VMX; isa <= HV_ISA_SVM; isa++) {
		for (int i = 0; i < exit_reason_count(isa); i++) {
			const struct exit_reason_entry *e = exit_reason_at(isa, i);

			out_open_object(o, NULL);
			out_str(o, "isa", "%s", isa == HV_ISA_VMX ? "vmx" : "svm");
			out_u64(o, "code", " 0x%04" PRIx64, e->code);
			out_str(o, "name", " %s\n", e->name);
			out_close_object(o);
		}
	}
	out_close_array(o);
	out_end(o);
	return 0;
}

const struct hvctl_cmd hvctl_cmd_reasons = {
	.name = "reasons",
	.run = reasons_run,
	.usage = "",
	.summary = "list the exit reasons hvctl knows, both vendors",
};
