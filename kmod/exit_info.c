// SPDX-License-Identifier: GPL-2.0
/*
 * Exit reasons. kvm_exit does not pass the reason; KVM asks the vendor's
 * get_exit_info, reachable only through the unexported kvm_x86_ops. We go
 * to the vendor function itself: a disabled kprobe resolves its address
 * (kprobes may look up any text symbol), sprint_symbol proves it is that
 * function in that module, and on IBT kernels its first instruction must
 * be ENDBR64, so our indirect call can never fault.
 *
 * A module notifier follows the vendor module: resolved when it goes
 * live, dropped (and every probe run finished) before it goes away.
 * Meanwhile exits are counted with an unknown reason (but SVM's where
 * the build reads the VMCB itself: exit_info.h). The pointer is read on
 * every use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kvm_host.h>
#include <linux/module.h>

#include "compat/kvm_symbols.h"
#include "exit_info.h"

struct hvt_vendor {
	const char *module;
	const char *func;
	u8 isa;
};

static const struct hvt_vendor vendors[] = {
	{ "kvm_amd", HVT_SYM_SVM_EXIT_INFO, HVTRACE_ISA_SVM },
	{ "kvm_intel", HVT_SYM_VMX_EXIT_INFO, HVTRACE_ISA_VMX },
};

hvt_exit_info_fn hvt_exit_info_fn_ptr;
static const struct hvt_vendor *vendor;
static DEFINE_MUTEX(vendor_lock);

#define ENDBR64 0xfa1e0ff3U	/* f3 0f 1e fa */

/*
 * Address of FUNC in MODULE, proven by kallsyms, or 0; *found is false
 * only when kprobes does not know the symbol (the vendor is not loaded).
 */
static unsigned long resolve(const struct hvt_vendor *v, bool *found)
{
	struct kprobe kp = {
		.symbol_name = v->func,
		.flags = KPROBE_FLAG_DISABLED,
	};
	/* Static: too big for the stack; vendor_lock serializes us. */
	static char sym[KSYM_SYMBOL_LEN], want[KSYM_NAME_LEN + 8];
	unsigned long addr, off;
	u32 insn;
	char *p;
	int err;

	err = register_kprobe(&kp);
	*found = err != -ENOENT;
	if (err)
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	/* "svm_get_exit_info+0x4/0x60 [kvm_amd]": the kprobe may sit past
	 * an ENDBR64; the offset takes us back to the entry.
	 */
	sprint_symbol(sym, addr);
	snprintf(want, sizeof(want), "%s+", v->func);
	if (strncmp(sym, want, strlen(want)))
		return 0;
	p = sym + strlen(want);
	if (sscanf(p, "%lx/", &off) != 1 || off > 16)
		return 0;
	snprintf(want, sizeof(want), "[%s]", v->module);
	if (!strstr(sym, want))
		return 0;
	addr -= off;

	memcpy(&insn, (void *)addr, sizeof(insn));
	if (cpu_feature_enabled(X86_FEATURE_IBT) && insn != ENDBR64) {
		pr_warn("%s has no ENDBR64: exit reasons unavailable\n",
			v->func);
		return 0;
	}
	return addr;
}

/* QUIET: the vendor may well not be loaded; say nothing if it is not. */
static void attach(const struct hvt_vendor *v, bool quiet)
{
	bool found;
	unsigned long addr = resolve(v, &found);

	if (!addr) {
		if (found || !quiet)
			pr_warn("cannot find %s in %s: exit reasons unavailable\n",
				v->func, v->module);
		return;
	}
	WRITE_ONCE(vendor, v);
	WRITE_ONCE(hvt_exit_info_fn_ptr, (hvt_exit_info_fn)addr);
	pr_info("exit reasons from %s\n", v->module);
}

static void detach(void)
{
	WRITE_ONCE(hvt_exit_info_fn_ptr, NULL);
	/* Probes run with preemption off: after this none is in the call. */
	synchronize_rcu();
	WRITE_ONCE(vendor, NULL);
}

static const struct hvt_vendor *vendor_of(const struct module *mod)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vendors); i++)
		if (!strcmp(mod->name, vendors[i].module))
			return &vendors[i];
	return NULL;
}

static int module_event(struct notifier_block *nb, unsigned long state,
			void *data)
{
	const struct hvt_vendor *v = vendor_of(data);

	if (!v)
		return NOTIFY_DONE;
	mutex_lock(&vendor_lock);
	if (state == MODULE_STATE_LIVE && !hvt_exit_info_fn_ptr)
		attach(v, false);
	else if (state == MODULE_STATE_GOING && vendor == v)
		detach();
	mutex_unlock(&vendor_lock);
	return NOTIFY_OK;
}

static struct notifier_block module_nb = {
	.notifier_call = module_event,
};

int hvt_exit_info_init(void)
{
	unsigned int i;
	int err;

	err = register_module_notifier(&module_nb);
	if (err)
		return err;
	mutex_lock(&vendor_lock);
	/* One lookup each: every unregister_kprobe waits for RCU. */
	for (i = 0; i < ARRAY_SIZE(vendors) && !hvt_exit_info_fn_ptr; i++)
		attach(&vendors[i], true);
	mutex_unlock(&vendor_lock);
	return 0;
}

void hvt_exit_info_exit(void)
{
	unregister_module_notifier(&module_nb);
}

const char *hvt_exit_info_vendor(void)
{
	const struct hvt_vendor *v = READ_ONCE(vendor);

	return v && READ_ONCE(hvt_exit_info_fn_ptr) ? v->module : "";
}
