// SPDX-License-Identifier: GPL-2.0
/*
 * VM-exit reason tables for both vendors.  The kernel's uapi headers carry
 * the reasons KVM knows; the tables here also hold the rest of the SDM's
 * and APM's reasons, so a reason a newer CPU or kernel produces still gets
 * a name.  tests/unit/exit_reasons_test.c checks the tables against every
 * constant of the installed <asm/vmx.h> and <asm/svm.h>.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exit_reasons.h"
#include "util.h"


/*
 * Intel SDM vol. 3 appendix C, "VMX Basic Exit Reasons"; sorted.  Names
 * are the kernel's (up to NOTIFY in 6.1; SEAMCALL, TDCALL and the
 * MSR_*_IMM pair are from later kernels); the reasons KVM never defined
 * (IO_SMI, GETSEC, RSM, PCONFIG ...) are named in the same style after
 * the SDM's descriptions.
 */
static const struct exit_reason_entry vmx_reasons[] = {
	{ 0, "EXCEPTION_NMI" },
	{ 1, "EXTERNAL_INTERRUPT" },
	{ 2, "TRIPLE_FAULT" },
	{ 3, "INIT_SIGNAL" },
	{ 4, "SIPI_SIGNAL" },
	{ 5, "IO_SMI" },
	{ 6, "OTHER_SMI" },
	{ 7, "INTERRUPT_WINDOW" },
	{ 8, "NMI_WINDOW" },
	{ 9, "TASK_SWITCH" },
	{ 10, "CPUID" },
	{ 11, "GETSEC" },
	{ 12, "HLT" },
	{ 13, "INVD" },
	{ 14, "INVLPG" },
	{ 15, "RDPMC" },
	{ 16, "RDTSC" },
	{ 17, "RSM" },
	{ 18, "VMCALL" },
	{ 19, "VMCLEAR" },
	{ 20, "VMLAUNCH" },
	{ 21, "VMPTRLD" },
	{ 22, "VMPTRST" },
	{ 23, "VMREAD" },
	{ 24, "VMRESUME" },
	{ 25, "VMWRITE" },
	{ 26, "VMOFF" },
	{ 27, "VMON" },
	{ 28, "CR_ACCESS" },
	{ 29, "DR_ACCESS" },
	{ 30, "IO_INSTRUCTION" },
	{ 31, "MSR_READ" },
	{ 32, "MSR_WRITE" },
	{ 33, "INVALID_STATE" },
	{ 34, "MSR_LOAD_FAIL" },
	{ 36, "MWAIT_INSTRUCTION" },
	{ 37, "MONITOR_TRAP_FLAG" },
	{ 39, "MONITOR_INSTRUCTION" },
	{ 40, "PAUSE_INSTRUCTION" },
	{ 41, "MCE_DURING_VMENTRY" },
	{ 43, "TPR_BELOW_THRESHOLD" },
	{ 44, "APIC_ACCESS" },
	{ 45, "EOI_INDUCED" },
	{ 46, "GDTR_IDTR" },
	{ 47, "LDTR_TR" },
	{ 48, "EPT_VIOLATION" },
	{ 49, "EPT_MISCONFIG" },
	{ 50, "INVEPT" },
	{ 51, "RDTSCP" },
	{ 52, "PREEMPTION_TIMER" },
	{ 53, "INVVPID" },
	{ 54, "WBINVD" },
	{ 55, "XSETBV" },
	{ 56, "APIC_WRITE" },
	{ 57, "RDRAND" },
	{ 58, "INVPCID" },
	{ 59, "VMFUNC" },
	{ 60, "ENCLS" },
	{ 61, "RDSEED" },
	{ 62, "PML_FULL" },
	{ 63, "XSAVES" },
	{ 64, "XRSTORS" },
	{ 65, "PCONFIG" },
	{ 66, "SPP" },
	{ 67, "UMWAIT" },
	{ 68, "TPAUSE" },
	{ 69, "LOADIWKEY" },
	{ 70, "ENCLV" },
	{ 72, "ENQCMD_PASID_FAIL" },
	{ 73, "ENQCMDS_PASID_FAIL" },
	{ 74, "BUS_LOCK" },
	{ 75, "NOTIFY" },
	{ 76, "SEAMCALL" },
	{ 77, "TDCALL" },
	{ 78, "RDMSRLIST" },
	{ 79, "WRMSRLIST" },
	{ 80, "URDMSR" },
	{ 81, "UWRMSR" },
	{ 84, "MSR_READ_IMM" },
	{ 85, "MSR_WRITE_IMM" },
};

#define SVM_EXCP(vector)	(0x40 + (vector))

/*
 * AMD APM vol. 2 appendix C, "SVM Intercept Exit Codes", plus the SEV-ES
 * software exit codes KVM copies from the GHCB into exit_code (sev.c), so
 * they show up in kvm_exit.  Sorted.  Names are the <asm/svm.h> constants
 * without SVM_EXIT_ (SVM_ for VMGEXIT_*); the header defines only some CR
 * and DR numbers and none of INVLPGB..TLBSYNC, which follow its pattern.
 */
static const struct exit_reason_entry svm_reasons[] = {
	{ 0x000, "READ_CR0" },
	{ 0x001, "READ_CR1" },
	{ 0x002, "READ_CR2" },
	{ 0x003, "READ_CR3" },
	{ 0x004, "READ_CR4" },
	{ 0x005, "READ_CR5" },
	{ 0x006, "READ_CR6" },
	{ 0x007, "READ_CR7" },
	{ 0x008, "READ_CR8" },
	{ 0x009, "READ_CR9" },
	{ 0x00a, "READ_CR10" },
	{ 0x00b, "READ_CR11" },
	{ 0x00c, "READ_CR12" },
	{ 0x00d, "READ_CR13" },
	{ 0x00e, "READ_CR14" },
	{ 0x00f, "READ_CR15" },
	{ 0x010, "WRITE_CR0" },
	{ 0x011, "WRITE_CR1" },
	{ 0x012, "WRITE_CR2" },
	{ 0x013, "WRITE_CR3" },
	{ 0x014, "WRITE_CR4" },
	{ 0x015, "WRITE_CR5" },
	{ 0x016, "WRITE_CR6" },
	{ 0x017, "WRITE_CR7" },
	{ 0x018, "WRITE_CR8" },
	{ 0x019, "WRITE_CR9" },
	{ 0x01a, "WRITE_CR10" },
	{ 0x01b, "WRITE_CR11" },
	{ 0x01c, "WRITE_CR12" },
	{ 0x01d, "WRITE_CR13" },
	{ 0x01e, "WRITE_CR14" },
	{ 0x01f, "WRITE_CR15" },
	{ 0x020, "READ_DR0" },
	{ 0x021, "READ_DR1" },
	{ 0x022, "READ_DR2" },
	{ 0x023, "READ_DR3" },
	{ 0x024, "READ_DR4" },
	{ 0x025, "READ_DR5" },
	{ 0x026, "READ_DR6" },
	{ 0x027, "READ_DR7" },
	{ 0x028, "READ_DR8" },
	{ 0x029, "READ_DR9" },
	{ 0x02a, "READ_DR10" },
	{ 0x02b, "READ_DR11" },
	{ 0x02c, "READ_DR12" },
	{ 0x02d, "READ_DR13" },
	{ 0x02e, "READ_DR14" },
	{ 0x02f, "READ_DR15" },
	{ 0x030, "WRITE_DR0" },
	{ 0x031, "WRITE_DR1" },
	{ 0x032, "WRITE_DR2" },
	{ 0x033, "WRITE_DR3" },
	{ 0x034, "WRITE_DR4" },
	{ 0x035, "WRITE_DR5" },
	{ 0x036, "WRITE_DR6" },
	{ 0x037, "WRITE_DR7" },
	{ 0x038, "WRITE_DR8" },
	{ 0x039, "WRITE_DR9" },
	{ 0x03a, "WRITE_DR10" },
	{ 0x03b, "WRITE_DR11" },
	{ 0x03c, "WRITE_DR12" },
	{ 0x03d, "WRITE_DR13" },
	{ 0x03e, "WRITE_DR14" },
	{ 0x03f, "WRITE_DR15" },
	{ SVM_EXCP(0), "DE_EXCP" },
	{ SVM_EXCP(1), "DB_EXCP" },
	{ SVM_EXCP(2), "EXCP2" },	/* NMI is its own exit, 0x61 */
	{ SVM_EXCP(3), "BP_EXCP" },
	{ SVM_EXCP(4), "OF_EXCP" },
	{ SVM_EXCP(5), "BR_EXCP" },
	{ SVM_EXCP(6), "UD_EXCP" },
	{ SVM_EXCP(7), "NM_EXCP" },
	{ SVM_EXCP(8), "DF_EXCP" },
	{ SVM_EXCP(9), "EXCP9" },
	{ SVM_EXCP(10), "TS_EXCP" },
	{ SVM_EXCP(11), "NP_EXCP" },
	{ SVM_EXCP(12), "SS_EXCP" },
	{ SVM_EXCP(13), "GP_EXCP" },
	{ SVM_EXCP(14), "PF_EXCP" },
	{ SVM_EXCP(15), "EXCP15" },
	{ SVM_EXCP(16), "MF_EXCP" },
	{ SVM_EXCP(17), "AC_EXCP" },
	{ SVM_EXCP(18), "MC_EXCP" },
	{ SVM_EXCP(19), "XF_EXCP" },	/* the kernel's spelling of #XM */
	{ SVM_EXCP(20), "VE_EXCP" },
	{ SVM_EXCP(21), "CP_EXCP" },
	{ SVM_EXCP(22), "EXCP22" },
	{ SVM_EXCP(23), "EXCP23" },
	{ SVM_EXCP(24), "EXCP24" },
	{ SVM_EXCP(25), "EXCP25" },
	{ SVM_EXCP(26), "EXCP26" },
	{ SVM_EXCP(27), "EXCP27" },
	{ SVM_EXCP(28), "HV_EXCP" },
	{ SVM_EXCP(29), "VC_EXCP" },
	{ SVM_EXCP(30), "SX_EXCP" },
	{ SVM_EXCP(31), "EXCP31" },
	{ 0x060, "INTR" },
	{ 0x061, "NMI" },
	{ 0x062, "SMI" },
	{ 0x063, "INIT" },
	{ 0x064, "VINTR" },
	{ 0x065, "CR0_SEL_WRITE" },
	{ 0x066, "IDTR_READ" },
	{ 0x067, "GDTR_READ" },
	{ 0x068, "LDTR_READ" },
	{ 0x069, "TR_READ" },
	{ 0x06a, "IDTR_WRITE" },
	{ 0x06b, "GDTR_WRITE" },
	{ 0x06c, "LDTR_WRITE" },
	{ 0x06d, "TR_WRITE" },
	{ 0x06e, "RDTSC" },
	{ 0x06f, "RDPMC" },
	{ 0x070, "PUSHF" },
	{ 0x071, "POPF" },
	{ 0x072, "CPUID" },
	{ 0x073, "RSM" },
	{ 0x074, "IRET" },
	{ 0x075, "SWINT" },
	{ 0x076, "INVD" },
	{ 0x077, "PAUSE" },
	{ 0x078, "HLT" },
	{ 0x079, "INVLPG" },
	{ 0x07a, "INVLPGA" },
	{ 0x07b, "IOIO" },
	{ 0x07c, "MSR" },
	{ 0x07d, "TASK_SWITCH" },
	{ 0x07e, "FERR_FREEZE" },
	{ 0x07f, "SHUTDOWN" },
	{ 0x080, "VMRUN" },
	{ 0x081, "VMMCALL" },
	{ 0x082, "VMLOAD" },
	{ 0x083, "VMSAVE" },
	{ 0x084, "STGI" },
	{ 0x085, "CLGI" },
	{ 0x086, "SKINIT" },
	{ 0x087, "RDTSCP" },
	{ 0x088, "ICEBP" },
	{ 0x089, "WBINVD" },
	{ 0x08a, "MONITOR" },
	{ 0x08b, "MWAIT" },
	{ 0x08c, "MWAIT_COND" },
	{ 0x08d, "XSETBV" },
	{ 0x08e, "RDPRU" },
	{ 0x08f, "EFER_WRITE_TRAP" },
	{ 0x090, "CR0_WRITE_TRAP" },
	{ 0x091, "CR1_WRITE_TRAP" },
	{ 0x092, "CR2_WRITE_TRAP" },
	{ 0x093, "CR3_WRITE_TRAP" },
	{ 0x094, "CR4_WRITE_TRAP" },
	{ 0x095, "CR5_WRITE_TRAP" },
	{ 0x096, "CR6_WRITE_TRAP" },
	{ 0x097, "CR7_WRITE_TRAP" },
	{ 0x098, "CR8_WRITE_TRAP" },
	{ 0x099, "CR9_WRITE_TRAP" },
	{ 0x09a, "CR10_WRITE_TRAP" },
	{ 0x09b, "CR11_WRITE_TRAP" },
	{ 0x09c, "CR12_WRITE_TRAP" },
	{ 0x09d, "CR13_WRITE_TRAP" },
	{ 0x09e, "CR14_WRITE_TRAP" },
	{ 0x09f, "CR15_WRITE_TRAP" },
	{ 0x0a0, "INVLPGB" },
	{ 0x0a1, "INVLPGB_ILLEGAL" },
	{ 0x0a2, "INVPCID" },
	{ 0x0a3, "MCOMMIT" },
	{ 0x0a4, "TLBSYNC" },
	{ 0x0a5, "BUS_LOCK" },
	{ 0x0a6, "IDLE_HLT" },
	{ 0x400, "NPF" },
	{ 0x401, "AVIC_INCOMPLETE_IPI" },
	{ 0x402, "AVIC_UNACCELERATED_ACCESS" },
	{ 0x403, "VMGEXIT" },
	{ 0x80000001, "VMGEXIT_MMIO_READ" },
	{ 0x80000002, "VMGEXIT_MMIO_WRITE" },
	{ 0x80000003, "VMGEXIT_NMI_COMPLETE" },
	{ 0x80000004, "VMGEXIT_AP_HLT_LOOP" },
	{ 0x80000005, "VMGEXIT_AP_JUMP_TABLE" },
	{ 0x80000010, "VMGEXIT_PSC" },
	{ 0x80000011, "VMGEXIT_GUEST_REQUEST" },
	{ 0x80000012, "VMGEXIT_EXT_GUEST_REQUEST" },
	{ 0x80000013, "VMGEXIT_AP_CREATION" },
	{ 0x80000018, "VMGEXIT_SNP_RUN_VMPL" },
	{ 0x8000001a, "VMGEXIT_SAVIC" },
	{ 0x8000fffd, "VMGEXIT_HV_FEATURES" },
	{ 0x8000fffe, "VMGEXIT_TERM_REQUEST" },
	{ 0x8000ffff, "VMGEXIT_UNSUPPORTED_EVENT" },
	{ 0xf0000000, "SW" },	/* reserved for hypervisor software */
	{ HV_SVM_EXIT_ERR, "ERR" },
};

/*
 * Other spellings.  A word may appear several times; each row adds the
 * codes FIRST..LAST of one ISA.  Rows with one ISA are vendor spellings
 * (mostly the kernel's SVM trace strings, normalised as parse does);
 * words with rows for both ISAs are the vendor-neutral operator words
 * listed in exit_reasons.h.
 */
struct alias {
	const char *word;
	unsigned int isa;
	uint32_t first, last;
};

#define V(w, c)		{ w, HV_ISA_VMX, c, c }
#define S(w, c)		{ w, HV_ISA_SVM, c, c }
#define SR(w, f, l)	{ w, HV_ISA_SVM, f, l }

static const struct alias aliases[] = {
	/* SVM_EXIT_REASONS strings that differ from the constant names */
	S("INTERRUPT", 0x060),
	S("READ_IDTR", 0x066), S("READ_GDTR", 0x067),
	S("READ_LDTR", 0x068), S("READ_RT", 0x069),
	S("WRITE_IDTR", 0x06a), S("WRITE_GDTR", 0x06b),
	S("WRITE_LDTR", 0x06c), S("WRITE_RT", 0x06d),
	S("IO", 0x07b),
	S("HYPERCALL", 0x081),
	S("WRITE_EFER_TRAP", 0x08f), S("WRITE_CR0_TRAP", 0x090),
	S("WRITE_CR4_TRAP", 0x094), S("WRITE_CR8_TRAP", 0x098),
	S("BUSLOCK", 0x0a5),
	S("IDLE_HALT", 0x0a6),
	S("VMGEXIT_PAGE_STATE_CHANGE", 0x80000010),
	S("VMGEXIT_HYPERVISOR_FEATURE", 0x8000fffd),
	S("INVALID_GUEST_STATE", HV_SVM_EXIT_ERR),
	/* the range markers of <asm/svm.h>, and #XM by its SDM name */
	S("EXCP_BASE", SVM_EXCP(0)),
	S("LAST_EXCP", SVM_EXCP(31)),
	S("XM_EXCP", SVM_EXCP(19)),

	/* operator words, vendor-neutral */
	V("IO", 30),
	V("PIO", 30), S("PIO", 0x07b),
	V("MSR", 31), V("MSR", 32), V("MSR", 84), V("MSR", 85),
	V("RDMSR", 31), V("RDMSR", 84), S("RDMSR", 0x07c),
	V("WRMSR", 32), V("WRMSR", 85), S("WRMSR", 0x07c),
	V("EPT", 48), V("EPT", 49), S("EPT", 0x400),
	V("NPF", 48), V("NPF", 49),
	V("MMIO", 49), S("MMIO", 0x400),
	V("HYPERCALL", 18),
	V("VMCALL", 18), S("VMCALL", 0x081),
	V("VMMCALL", 18),
	V("IRQ", 1), S("IRQ", 0x060),
	V("INTR", 1),
	V("INTERRUPT", 1),
	V("EXTINT", 1), S("EXTINT", 0x060),
	S("EXTERNAL_INTERRUPT", 0x060),
	V("IRQ_WINDOW", 7), S("IRQ_WINDOW", 0x064),
	S("INTERRUPT_WINDOW", 0x064),
	V("VINTR", 7),
	V("HALT", 12), S("HALT", 0x078), S("HALT", 0x0a6),
	V("PAUSE", 40),
	S("PAUSE_INSTRUCTION", 0x077),
	V("MWAIT", 36), S("MWAIT", 0x08c), S("MWAIT_INSTRUCTION", 0x08b),
	S("MWAIT_INSTRUCTION", 0x08c),
	V("MONITOR", 39), S("MONITOR_INSTRUCTION", 0x08a),
	V("CR", 28), SR("CR", 0x000, 0x01f), SR("CR", 0x090, 0x09f),
	V("DR", 29), SR("DR", 0x020, 0x03f),
	V("EXCEPTION", 0), SR("EXCEPTION", SVM_EXCP(0), SVM_EXCP(31)),
	V("EXCP", 0), SR("EXCP", SVM_EXCP(0), SVM_EXCP(31)),
	V("SHUTDOWN", 2), S("TRIPLE_FAULT", 0x07f),
};

#undef V
#undef S
#undef SR

/* Longest input we look at; every name and alias is far shorter. */
#define NAME_MAX_LEN 64

static const struct exit_reason_entry *table(unsigned int isa, size_t *n)
{
	switch (isa) {
	case HV_ISA_VMX:
		*n = ARRAY_SIZE(vmx_reasons);
		return vmx_reasons;
	case HV_ISA_SVM:
		*n = ARRAY_SIZE(svm_reasons);
		return svm_reasons;
	}
	*n = 0;
	return NULL;
}

static const struct exit_reason_entry *lookup(unsigned int isa, uint32_t code)
{
	size_t lo = 0, hi;
	const struct exit_reason_entry *t = table(isa, &hi);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].code == code)
			return &t[mid];
		if (t[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *exit_reason_name(unsigned int isa, uint32_t reason)
{
	const struct exit_reason_entry *e;

	if (isa == HV_ISA_VMX)
		reason &= HV_VMX_BASIC_REASON_MASK;
	e = lookup(isa, reason);
	return e ? e->name : NULL;
}

const char *exit_reason_label(char *buf, size_t len, unsigned int isa,
			      uint32_t reason)
{
	const char *name = exit_reason_name(isa, reason);

	if (isa != HV_ISA_VMX && isa != HV_ISA_SVM)
		snprintf(buf, len, "unknown");
	else if (!name)
		snprintf(buf, len, "%s 0x%x", isa == HV_ISA_VMX ? "VMX" : "SVM",
			 reason);
	else if (isa == HV_ISA_VMX && reason > HV_VMX_BASIC_REASON_MASK)
		snprintf(buf, len, "%s 0x%x", name, reason);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

enum exit_reason_class exit_reason_class(unsigned int isa, uint32_t reason)
{
	static const struct {
		unsigned int isa;
		const char *name;
		enum exit_reason_class cls;
	} classes[] = {
		{ HV_ISA_VMX, "IO_INSTRUCTION", EXIT_CLASS_PORT_IO },
		{ HV_ISA_SVM, "IOIO", EXIT_CLASS_PORT_IO },
	};
	const char *name = exit_reason_name(isa, reason);

	/* VMX: the basic reason only when no flag bits are set above it. */
	if (!name || (isa == HV_ISA_VMX && reason > HV_VMX_BASIC_REASON_MASK))
		return EXIT_CLASS_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
		if (classes[i].isa == isa && !strcmp(classes[i].name, name))
			return classes[i].cls;
	return EXIT_CLASS_NONE;
}

int exit_reason_count(unsigned int isa)
{
	size_t n;

	table(isa, &n);
	return (int)n;
}

const struct exit_reason_entry *exit_reason_at(unsigned int isa, int i)
{
	size_t n;
	const struct exit_reason_entry *t = table(isa, &n);

	if (i < 0 || (size_t)i >= n)
		return NULL;
	return &t[i];
}

/* ---- parsing ---- */

/* Collects (isa, code) pairs without duplicates. */
struct matches {
	struct exit_reason_ref *out;
	int max;
	int n;
};

static void add_match(struct matches *m, unsigned int isa, uint32_t code)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (m->out[i].isa == isa && m->out[i].code == code)
			return;
	if (m->n >= m->max)
		return;
	m->out[m->n].isa = isa;
	m->out[m->n].code = code;
	m->n++;
}

/*
 * Upper-case S into BUF with '-' and ' ' as '_', so "idle-halt" and
 * "DE excp" compare equal to the kernel's spellings.  False if too long.
 */
static bool normalise(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		if (i + 1 >= len)
			return false;
		if (s[i] == '-' || s[i] == ' ')
			buf[i] = '_';
		else
			buf[i] = toupper((unsigned char)s[i]);
	}
	buf[i] = '\0';
	return true;
}

static bool skip_prefix(const char **s, const char *prefix)
{
	size_t n = strlen(prefix);

	if (strncasecmp(*s, prefix, n))
		return false;
	*s += n;
	return true;
}

/*
 * A vendor hint ("vmx:", "svm:" ...) or a constant's prefix narrows the
 * ISAs a name may match.  Returns a mask of (1 << isa) bits; 0 when the
 * hints contradict each other ("svm:EXIT_REASON_HLT").
 */
static unsigned int strip_hints(const char **s)
{
	unsigned int mask = 1u << HV_ISA_VMX | 1u << HV_ISA_SVM;

	if (skip_prefix(s, "vmx:") || skip_prefix(s, "intel:"))
		mask = 1u << HV_ISA_VMX;
	else if (skip_prefix(s, "svm:") || skip_prefix(s, "amd:"))
		mask = 1u << HV_ISA_SVM;

	if (skip_prefix(s, "EXIT_REASON_"))
		mask &= 1u << HV_ISA_VMX;
	else if (skip_prefix(s, "SVM_EXIT_") || skip_prefix(s, "SVM_"))
		mask &= 1u << HV_ISA_SVM;
	return mask;
}

/* Decimal or 0x hex, the whole string, fitting 32 bits. */
static bool parse_number(const char *s, uint32_t *v)
{
	int base = 10;
	uint64_t n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return false;
		n = n * base + d;
		if (n > UINT32_MAX)
			return false;
	}
	*v = n;
	return true;
}

/* "EXCP14": the SVM intercept of exception vector 14. */
static bool parse_excp_vector(const char *name, uint32_t *code)
{
	uint32_t v;

	if (strncmp(name, "EXCP", 4) || !isdigit((unsigned char)name[4]))
		return false;
	if (!parse_number(name + 4, &v) || v > 31)
		return false;
	*code = SVM_EXCP(v);
	return true;
}

static void match_name(struct matches *m, unsigned int isa, const char *name)
{
	const struct exit_reason_entry *t;
	uint32_t code;
	size_t i, n;

	t = table(isa, &n);
	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			add_match(m, isa, t[i].code);

	for (i = 0; i < ARRAY_SIZE(aliases); i++) {
		const struct alias *a = &aliases[i];

		if (a->isa != isa || strcmp(a->word, name))
			continue;
		/* stop at LAST, not after it: LAST may be 0xffffffff */
		for (code = a->first; code != a->last; code++)
			add_match(m, isa, code);
		add_match(m, isa, a->last);
	}

	if (isa == HV_ISA_SVM && parse_excp_vector(name, &code))
		add_match(m, isa, code);
}

static void match_number(struct matches *m, unsigned int isa, uint32_t v)
{
	/* A VMX basic reason is 16 bits; larger numbers can only be SVM. */
	if (isa == HV_ISA_VMX && v > HV_VMX_BASIC_REASON_MASK)
		return;
	add_match(m, isa, v);
}

static const char *trim(const char *s, char *buf, size_t len)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

int exit_reason_parse(const char *s, struct exit_reason_ref *out, int max)
{
	static const unsigned int isas[] = { HV_ISA_VMX, HV_ISA_SVM };
	struct matches m = { .out = out, .max = max, .n = 0 };
	char trimmed[NAME_MAX_LEN], name[NAME_MAX_LEN];
	unsigned int mask;
	uint32_t v;
	bool number;
	size_t i;

	if (!s || !out || max <= 0)
		return 0;
	s = trim(s, trimmed, sizeof(trimmed));
	if (!s)
		return 0;
	mask = strip_hints(&s);
	if (!*s || !normalise(s, name, sizeof(name)))
		return 0;
	number = isdigit((unsigned char)name[0]);
	if (number && !parse_number(name, &v))
		return 0;

	/* One ISA after the other, so VMX pairs always come first. */
	for (i = 0; i < ARRAY_SIZE(isas); i++) {
		if (!(mask & 1u << isas[i]))
			continue;
		if (number)
			match_number(&m, isas[i], v);
		else
			match_name(&m, isas[i], name);
	}
	return m.n;
}

/* ---- suggestions ---- */

/* Levenshtein distance; both strings are short (NAME_MAX_LEN). */
/*
 * Optimal string alignment distance: insertions, deletions, substitutions
 * and swaps of neighbours each cost 1, so "nfp" is one typo from "NPF".
 */
static int edit_distance(const char *a, const char *b)
{
	int rows[3][NAME_MAX_LEN + 1];
	int la = strlen(a), lb = strlen(b);
	int *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
	int i, j;

	if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
		return NAME_MAX_LEN;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			int best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

struct candidate {
	const char *name;
	int score;
};

/*
 * Lower is better.  A name the input starts (1) or is contained in (2)
 * beats a typo: "EPT_VIOL" should offer EPT_VIOLATION before anything an
 * edit distance finds.  Typos score from 3 on; too many edits is no match.
 */
static int score(const char *input, const char *name)
{
	size_t len = strlen(input);
	int limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
	int d;

	if (len >= 2 && !strncmp(name, input, len))
		return 1;
	if (len >= 3 && strstr(name, input))
		return 2;
	d = edit_distance(input, name);
	return d <= limit ? 2 + d : -1;
}

static int cmp_candidate(const void *pa, const void *pb)
{
	const struct candidate *a = pa, *b = pb;
	size_t la, lb;

	if (a->score != b->score)
		return a->score - b->score;
	/* Between equals the shorter, more general name first. */
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void consider(struct candidate *c, size_t *n, const char *input,
		     const char *name)
{
	size_t i;
	int sc;

	for (i = 0; i < *n; i++)
		if (!strcmp(c[i].name, name))
			return;
	sc = score(input, name);
	if (sc < 0)
		return;
	c[*n].name = name;
	c[*n].score = sc;
	(*n)++;
}

int exit_reason_suggest(const char *s, const char **out, int max)
{
	struct candidate c[ARRAY_SIZE(vmx_reasons) + ARRAY_SIZE(svm_reasons) +
			   ARRAY_SIZE(aliases)];
	char trimmed[NAME_MAX_LEN], name[NAME_MAX_LEN];
	size_t i, n = 0;

	if (!s || !out || max <= 0)
		return 0;
	s = trim(s, trimmed, sizeof(trimmed));
	if (!s)
		return 0;
	strip_hints(&s);
	if (!*s || !normalise(s, name, sizeof(name)))
		return 0;

	for (i = 0; i < ARRAY_SIZE(vmx_reasons); i++)
		consider(c, &n, name, vmx_reasons[i].name);
	for (i = 0; i < ARRAY_SIZE(svm_reasons); i++)
		consider(c, &n, name, svm_reasons[i].name);
	for (i = 0; i < ARRAY_SIZE(aliases); i++)
		consider(c, &n, name, aliases[i].word);

	qsort(c, n, sizeof(c[0]), cmp_candidate);
	for (i = 0; i < n && i < (size_t)max; i++)
		out[i] = c[i].name;
	return (int)i;
}

void exit_reason_unknown(char *buf, size_t len, const char *s)
{
	const char *close[5];
	int n = exit_reason_suggest(s, close, 5);
	size_t at = (size_t)snprintf(buf, len, "unknown exit reason '%s'", s);

	for (int i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i ? ", " : " (did you mean: ", close[i]);
	if (n && at < len)
		at += (size_t)snprintf(buf + at, len - at, "?)");
	if (at < len)
		snprintf(buf + at, len - at, "; 'hvctl reasons' lists them");
}

/* ---- qualifier decoding ---- */

/* snprintf that appends and keeps counting past the end of the buffer. */
struct text {
	char *buf;
	size_t len;
	size_t pos;
};

__attribute__((format(printf, 2, 3)))
static void put(struct text *t, const char *fmt, ...)
{
	size_t room = t->pos < t->len ? t->len - t->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? t->buf + t->pos : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->pos += n;
}

static void put_io(struct text *t, unsigned int port, bool in,
		   unsigned int size, bool string, bool rep)
{
	put(t, "port 0x%x %s %uB", port, in ? "in" : "out", size);
	if (string)
		put(t, " string");
	if (rep)
		put(t, " rep");
}

/*
 * x86 page-fault error code bits, which SVM NPF reports in EXITINFO1; the
 * VMX EPT qualification is mapped onto the same words.
 */
#define PFERR_PRESENT	(1ULL << 0)
#define PFERR_WRITE	(1ULL << 1)
#define PFERR_RSVD	(1ULL << 3)
#define PFERR_FETCH	(1ULL << 4)
#define PFERR_GUEST_PAGE (1ULL << 33)	/* during the guest's table walk */

static void put_access(struct text *t, bool fetch, bool write)
{
	put(t, "%s", fetch ? "fetch" : write ? "write" : "read");
}

/* Vectors whose exceptions push an error code (SVM puts it in info1). */
static bool has_error_code(unsigned int vector)
{
	switch (vector) {
	case 8: case 10: case 11: case 12: case 13: case 14: case 17:
	case 21: case 29: case 30:
		return true;
	}
	return false;
}

static void svm_npf(struct text *t, uint64_t info1, uint64_t info2)
{
	put(t, "gpa 0x%llx ", (unsigned long long)info2);
	put_access(t, info1 & PFERR_FETCH, info1 & PFERR_WRITE);
	if (!(info1 & PFERR_PRESENT))
		put(t, " not-present");
	if (info1 & PFERR_RSVD)
		put(t, " rsvd");	/* KVM's MMIO marker */
	if (info1 & PFERR_GUEST_PAGE)
		put(t, " ptwalk");
}

static void svm_exception(struct text *t, unsigned int vector,
			  uint64_t info1, uint64_t info2)
{
	if (vector == 14) {
		/* #PF: EXITINFO1 error code, EXITINFO2 faulting address */
		put(t, "addr 0x%llx ec 0x%llx", (unsigned long long)info2,
		    (unsigned long long)(info1 & 0xffffffff));
	} else if (has_error_code(vector)) {
		put(t, "ec 0x%llx", (unsigned long long)(info1 & 0xffffffff));
	}
}

static void svm_qualifier(struct text *t, uint32_t code, uint64_t info1,
			  uint64_t info2)
{
	if (code <= 0x3f) {
		/* 0x00 read CRn, 0x10 write CRn, 0x20 read DRn, 0x30 write */
		put(t, "%s%u %s", code & 0x20 ? "dr" : "cr", code & 0xf,
		    code & 0x10 ? "write" : "read");
	} else if (code <= 0x5f) {
		svm_exception(t, code - 0x40, info1, info2);
	} else if (code == 0x07b) {
		/* IOIO: port 31:16, IN bit 0, STR 2, REP 3, SZ8/16/32 4..6 */
		put_io(t, info1 >> 16, info1 & 1, (info1 >> 4) & 7,
		       info1 & 4, info1 & 8);
	} else if (code == 0x07c) {
		put(t, "%s", info1 ? "write" : "read");
	} else if (code == 0x08f) {
		put(t, "efer write");
	} else if (code >= 0x090 && code <= 0x09f) {
		put(t, "cr%u write", code - 0x090);
	} else if (code == 0x400) {
		svm_npf(t, info1, info2);
	} else if (code == 0x402) {
		/* AVIC: APIC offset in info1 11:4, write in bit 32 */
		put(t, "apic 0x%03llx %s", (unsigned long long)(info1 & 0xff0),
		    (info1 >> 32) & 1 ? "write" : "read");
	}
}

/* VMX EPT violation qualification bits (SDM table 28-7). */
#define EPT_ACC_READ	(1ULL << 0)
#define EPT_ACC_WRITE	(1ULL << 1)
#define EPT_ACC_FETCH	(1ULL << 2)
#define EPT_PROT_MASK	(7ULL << 3)	/* what the entry allowed */
#define EPT_GVA_VALID	(1ULL << 7)
#define EPT_GVA_FINAL	(1ULL << 8)	/* 0: access to a paging structure */

static void vmx_ept_violation(struct text *t, uint64_t q)
{
	put_access(t, q & EPT_ACC_FETCH, q & EPT_ACC_WRITE);
	if (!(q & EPT_PROT_MASK))
		put(t, " not-present");
	if ((q & EPT_GVA_VALID) && !(q & EPT_GVA_FINAL))
		put(t, " ptwalk");
}

static const char *const apic_access_types[16] = {
	[0] = "read", [1] = "write", [2] = "fetch", [3] = "event",
	[10] = "gpa-event", [15] = "gpa-fetch",
};

static const char *const task_switch_sources[4] = {
	"call", "iret", "jmp", "gate",
};

static void vmx_cr_access(struct text *t, uint64_t q)
{
	/* CR 3:0; type 5:4: mov to cr, mov from cr, clts, lmsw */
	static const char *const type[] = { "write", "read", "clts", "lmsw" };

	put(t, "cr%u %s", (unsigned int)(q & 0xf), type[(q >> 4) & 3]);
}

static void vmx_qualifier(struct text *t, uint32_t reason, uint64_t q)
{
	const char *s;

	switch (reason) {
	case 9:		/* TASK_SWITCH: selector 15:0, source 31:30 */
		put(t, "tss 0x%x %s", (unsigned int)(q & 0xffff),
		    task_switch_sources[(q >> 30) & 3]);
		break;
	case 28:
		vmx_cr_access(t, q);
		break;
	case 29:	/* DR_ACCESS: DR 2:0, bit 4 set = mov from DR */
		put(t, "dr%u %s", (unsigned int)(q & 7),
		    q & 0x10 ? "read" : "write");
		break;
	case 30:	/* size-1 2:0, IN bit 3, string 4, rep 5, port 31:16 */
		put_io(t, (q >> 16) & 0xffff, q & 8, (q & 7) + 1,
		       q & 0x10, q & 0x20);
		break;
	case 31:
	case 32:
		put(t, "%s", reason == 31 ? "read" : "write");
		break;
	case 44:	/* APIC_ACCESS: offset 11:0, access type 15:12 */
		s = apic_access_types[(q >> 12) & 0xf];
		put(t, "apic 0x%03x %s", (unsigned int)(q & 0xfff),
		    s ? s : "?");
		break;
	case 45:	/* EOI_INDUCED: vector 7:0 */
		put(t, "vector 0x%02x", (unsigned int)(q & 0xff));
		break;
	case 48:
		vmx_ept_violation(t, q);
		break;
	case 56:	/* APIC_WRITE: offset 11:0 */
		put(t, "apic 0x%03x write", (unsigned int)(q & 0xfff));
		break;
	case 84:	/* the immediate forms: the qualification is the MSR */
	case 85:
		put(t, "msr 0x%x %s", (unsigned int)q,
		    reason == 84 ? "read" : "write");
		break;
	}
}

int exit_reason_qualifier(char *buf, size_t len, unsigned int isa,
			  uint32_t reason, uint64_t info1, uint64_t info2)
{
	struct text t = { .buf = buf, .len = buf ? len : 0, .pos = 0 };

	if (t.len)
		buf[0] = '\0';
	if (isa == HV_ISA_SVM) {
		svm_qualifier(&t, reason, info1, info2);
	} else if (isa == HV_ISA_VMX) {
		/* The qualification means nothing when entry failed. */
		if (reason & HV_VMX_FAILED_VMENTRY)
			put(&t, "vmentry failed");
		else
			vmx_qualifier(&t, reason & HV_VMX_BASIC_REASON_MASK,
				      info1);
		if (reason & HV_VMX_ENCLAVE_MODE)
			put(&t, "%senclave", t.pos ? " " : "");
	}
	return (int)t.pos;
}
