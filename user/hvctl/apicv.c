// SPDX-License-Identifier: GPL-2.0
/*
 * The host's interrupt posting (apicv.h): kvm_intel's enable_apicv, or
 * kvm_amd's avic, as the module says it (Y/N or 1/0); and kvm_intel's
 * preemption_timer.
 */
#include <stdio.h>
#include <string.h>

#include "apicv.h"

const char *apicv_sysfs = "/sys";

static const struct {
	const char *module, *param;
} apicv_params[] = {
	{ "kvm_intel", "enable_apicv" },
	{ "kvm_amd", "avic" },
};

bool apicv_on(char *buf, size_t len)
{
	char path[256], v[8];

	for (size_t i = 0; i < sizeof(apicv_params) / sizeof(apicv_params[0]);
	     i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/module/%s/parameters/%s",
			 apicv_sysfs, apicv_params[i].module,
			 apicv_params[i].param);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(v, sizeof(v), f))
			v[0] = '\0';
		fclose(f);
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s %s=%s", apicv_params[i].module,
			 apicv_params[i].param, v);
		return !strcmp(v, "Y") || !strcmp(v, "1");
	}
	if (len)
		buf[0] = '\0';
	return false;
}

int vmx_preemption_timer(void)
{
	char path[256], v[8];
	FILE *f;

	snprintf(path, sizeof(path),
		 "%s/module/kvm_intel/parameters/preemption_timer", apicv_sysfs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	v[strcspn(v, "\n")] = '\0';
	return !strcmp(v, "Y") || !strcmp(v, "1");
}
