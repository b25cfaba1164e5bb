// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/exit_reasons.c against the kernel's own view of exit reasons: the
 * installed <asm/vmx.h> and <asm/svm.h> (linux-libc-dev).  The constant
 * lists come from the preprocessor (see the Makefile), the trace strings
 * from the headers' VMX_EXIT_REASONS / SVM_EXIT_REASONS, so a newer
 * header with a reason our tables lack fails here.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <asm/kvm.h>	/* DE_VECTOR etc., used by SVM_EXIT_REASONS */
#include <asm/vmx.h>
#include <asm/svm.h>

#include "exit_reasons.h"
#include "unit.h"
#include "util.h"

struct kname {
	uint32_t code;
	const char *name;
};

/* Every constant, named as its macro without the prefix. */
static const struct kname k_vmx_consts[] = {
#include "kconsts_vmx.inc"
};

static const struct kname k_svm_consts[] = {
#include "kconsts_svm.inc"
};

/* What the kvm_exit tracepoint prints. */
static const struct kname k_vmx_trace[] = { VMX_EXIT_REASONS };
static const struct kname k_svm_trace[] = { SVM_EXIT_REASONS };

/* Does S parse to a list that includes (ISA, CODE)? */
static bool parses_to(const char *s, unsigned int isa, uint32_t code)
{
	struct exit_reason_ref r[EXIT_REASON_MAX_MATCHES];
	int i, n = exit_reason_parse(s, r, EXIT_REASON_MAX_MATCHES);

	for (i = 0; i < n; i++)
		if (r[i].isa == isa && r[i].code == code)
			return true;
	return false;
}

static void test_tables_well_formed(void)
{
	static const unsigned int isas[] = { HV_ISA_VMX, HV_ISA_SVM };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(isas); k++) {
		unsigned int isa = isas[k];
		int i, j, n = exit_reason_count(isa);

		CHECK(n > 50);
		for (i = 0; i < n; i++) {
			const struct exit_reason_entry *e =
				exit_reason_at(isa, i);
			const char *p;
			bool clean = e->name[0] != '\0';

			/* sorted and unique, for the binary search */
			if (i)
				CHECK_MSG(exit_reason_at(isa, i - 1)->code <
					  e->code, "isa %u: %s out of order",
					  isa, e->name);
			for (p = e->name; *p; p++)
				if (!isupper((unsigned char)*p) &&
				    !isdigit((unsigned char)*p) && *p != '_')
					clean = false;
			CHECK_MSG(clean, "isa %u: bad name '%s'", isa,
				  e->name);
			for (j = 0; j < i; j++)
				if (!strcmp(exit_reason_at(isa, j)->name,
					    e->name))
					break;
			CHECK_MSG(j == i, "isa %u: %s twice", isa, e->name);
		}
		CHECK(exit_reason_at(isa, -1) == NULL);
		CHECK(exit_reason_at(isa, n) == NULL);
	}
	CHECK_INT(exit_reason_count(0), 0);
	CHECK_INT(exit_reason_count(3), 0);
	CHECK(exit_reason_at(3, 0) == NULL);
}

/* The important one: every uapi VMX constant, under its own name. */
static void test_vmx_complete(void)
{
	size_t i;

	CHECK(ARRAY_SIZE(k_vmx_consts) >= 60);	/* the sed worked */
	for (i = 0; i < ARRAY_SIZE(k_vmx_consts); i++) {
		const struct kname *k = &k_vmx_consts[i];

		CHECK_STR(exit_reason_name(HV_ISA_VMX, k->code), k->name);
	}
	CHECK_INT(ARRAY_SIZE(k_vmx_trace) > 60, 1);
	for (i = 0; i < ARRAY_SIZE(k_vmx_trace); i++) {
		const struct kname *k = &k_vmx_trace[i];

		CHECK_STR(exit_reason_name(HV_ISA_VMX, k->code), k->name);
		CHECK_MSG(parses_to(k->name, HV_ISA_VMX, k->code),
			  "'%s' does not parse to VMX %u", k->name, k->code);
	}
}

/*
 * Every uapi SVM constant: its name is ours, except the two range markers
 * EXCP_BASE and LAST_EXCP, whose codes have per-vector names and which
 * must parse instead.
 */
static void test_svm_complete(void)
{
	char prefixed[80];
	size_t i;

	CHECK(ARRAY_SIZE(k_svm_consts) >= 90);
	for (i = 0; i < ARRAY_SIZE(k_svm_consts); i++) {
		const struct kname *k = &k_svm_consts[i];

		snprintf(prefixed, sizeof(prefixed), "SVM_EXIT_%s", k->name);
		if (!strcmp(k->name, "EXCP_BASE") ||
		    !strcmp(k->name, "LAST_EXCP")) {
			CHECK_MSG(parses_to(prefixed, HV_ISA_SVM, k->code),
				  "%s does not parse", prefixed);
			continue;
		}
		CHECK_STR(exit_reason_name(HV_ISA_SVM, k->code), k->name);
	}
	CHECK_INT(exit_reason_name(HV_ISA_SVM, (uint32_t)SVM_EXIT_ERR) != NULL,
		  1);
}

/* The kernel's SVM trace strings are spelt differently; all must parse. */
static void test_svm_trace_strings(void)
{
	size_t i;

	CHECK(ARRAY_SIZE(k_svm_trace) > 90);
	for (i = 0; i < ARRAY_SIZE(k_svm_trace); i++) {
		const struct kname *k = &k_svm_trace[i];

		CHECK_MSG(exit_reason_name(HV_ISA_SVM, k->code) != NULL,
			  "SVM 0x%x (%s) has no name", k->code, k->name);
		CHECK_MSG(parses_to(k->name, HV_ISA_SVM, k->code),
			  "'%s' does not parse to SVM 0x%x", k->name, k->code);
	}
}

/* Each of our names parses back, with and without its prefix. */
static void test_round_trip(void)
{
	char buf[96];
	int i;

	for (i = 0; i < exit_reason_count(HV_ISA_VMX); i++) {
		const struct exit_reason_entry *e =
			exit_reason_at(HV_ISA_VMX, i);
		struct exit_reason_ref r[EXIT_REASON_MAX_MATCHES];
		int n, j;

		CHECK(parses_to(e->name, HV_ISA_VMX, e->code));
		snprintf(buf, sizeof(buf), "exit_reason_%s", e->name);
		n = exit_reason_parse(buf, r, EXIT_REASON_MAX_MATCHES);
		CHECK_MSG(n >= 1, "%s", buf);
		for (j = 0; j < n; j++)
			CHECK_INT(r[j].isa, HV_ISA_VMX);
	}
	for (i = 0; i < exit_reason_count(HV_ISA_SVM); i++) {
		const struct exit_reason_entry *e =
			exit_reason_at(HV_ISA_SVM, i);

		CHECK(parses_to(e->name, HV_ISA_SVM, e->code));
		snprintf(buf, sizeof(buf), "svm:%s", e->name);
		CHECK(parses_to(buf, HV_ISA_SVM, e->code));
		CHECK(!parses_to(buf, HV_ISA_VMX, e->code));
	}
}

static void test_names(void)
{
	CHECK_STR(exit_reason_name(HV_ISA_VMX, 30), "IO_INSTRUCTION");
	CHECK_STR(exit_reason_name(HV_ISA_VMX, 48), "EPT_VIOLATION");
	/* flags above the basic reason are ignored */
	CHECK_STR(exit_reason_name(HV_ISA_VMX, 0x80000021), "INVALID_STATE");
	CHECK_STR(exit_reason_name(HV_ISA_VMX, 30 | 1u << 27),
		  "IO_INSTRUCTION");
	CHECK_STR(exit_reason_name(HV_ISA_VMX, 84), "MSR_READ_IMM");
	CHECK(exit_reason_name(HV_ISA_VMX, 35) == NULL);
	CHECK(exit_reason_name(HV_ISA_VMX, 0xffff) == NULL);

	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x400), "NPF");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x07b), "IOIO");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x081), "VMMCALL");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x040), "DE_EXCP");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x04e), "PF_EXCP");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x053), "XF_EXCP");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x049), "EXCP9");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x005), "READ_CR5");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0x03f), "WRITE_DR15");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0xa6), "IDLE_HLT");
	CHECK_STR(exit_reason_name(HV_ISA_SVM, 0xffffffff), "ERR");
	/* SVM codes are full 32 bits: nothing is masked */
	CHECK(exit_reason_name(HV_ISA_SVM, 0x10078) == NULL);
	CHECK(exit_reason_name(HV_ISA_SVM, 0x404) == NULL);

	CHECK(exit_reason_name(0, 12) == NULL);
	CHECK(exit_reason_name(3, 12) == NULL);
}

/* Parse S; check the result is exactly the N (isa, code) PAIRS, in order. */
static void check_parse(int line, const char *s, int n, const uint64_t *pairs)
{
	struct exit_reason_ref r[EXIT_REASON_MAX_MATCHES];
	int got = exit_reason_parse(s, r, EXIT_REASON_MAX_MATCHES);
	int i;

	if (!unit_check(got == n, __FILE__, line,
			"parse '%s': %d matches, want %d",
			s ? s : "(null)", got, n))
		return;
	for (i = 0; i < n; i++)
		unit_check(r[i].isa == pairs[2 * i] &&
			   r[i].code == pairs[2 * i + 1], __FILE__, line,
			   "parse '%s' #%d: (%u, 0x%x), want (%u, 0x%x)", s, i,
			   r[i].isa, r[i].code, (unsigned int)pairs[2 * i],
			   (unsigned int)pairs[2 * i + 1]);
}

#define X HV_ISA_VMX
#define A HV_ISA_SVM
/* PARSE("io", 2, X, 30, A, 0x7b): "io" gives VMX 30, then SVM 0x7b. */
#define PARSE(s, n, ...) do {						\
	static const uint64_t _v[] = { 0, ##__VA_ARGS__ };		\
	check_parse(__LINE__, s, n, _v + 1);				\
} while (0)

static void test_parse_names(void)
{
	PARSE("hlt", 2, X, 12, A, 0x78);
	PARSE("HLT", 2, X, 12, A, 0x78);
	PARSE("  Hlt\t", 2, X, 12, A, 0x78);
	PARSE("EXIT_REASON_HLT", 1, X, 12);
	PARSE("exit_reason_hlt", 1, X, 12);
	PARSE("SVM_EXIT_HLT", 1, A, 0x78);
	PARSE("vmx:hlt", 1, X, 12);
	PARSE("intel:HLT", 1, X, 12);
	PARSE("svm:hlt", 1, A, 0x78);
	PARSE("amd:hlt", 1, A, 0x78);
	PARSE("svm:EXIT_REASON_HLT", 0);
	PARSE("vmx:SVM_EXIT_NPF", 0);
	PARSE("EPT_VIOLATION", 1, X, 48);
	PARSE("ept-violation", 1, X, 48);
	PARSE("ioio", 1, A, 0x7b);
	PARSE("SVM_VMGEXIT_PSC", 1, A, 0x80000010);
	PARSE("vmgexit_page_state_change", 1, A, 0x80000010);
	PARSE("DE excp", 1, A, 0x40);
	PARSE("de_excp", 1, A, 0x40);
	PARSE("excp14", 1, A, 0x4e);
	PARSE("EXCP31", 1, A, 0x5f);
	PARSE("excp32", 0);
	PARSE("read_rt", 1, A, 0x69);
	PARSE("idle-halt", 1, A, 0xa6);
	PARSE("invalid_guest_state", 1, A, 0xffffffff);
	PARSE("err", 1, A, 0xffffffff);
	PARSE("nmi", 1, A, 0x61);
	PARSE("bogus", 0);
	PARSE("", 0);
	PARSE("   ", 0);
	PARSE("vmx:", 0);
	PARSE("#PF", 0);
	PARSE("a_name_that_is_far_too_long_to_be_any_exit_reason_at_all_xxxxxxxx", 0);
	PARSE(NULL, 0);
}

static void test_parse_aliases(void)
{
	PARSE("io", 2, X, 30, A, 0x7b);
	PARSE("IO", 2, X, 30, A, 0x7b);
	PARSE("pio", 2, X, 30, A, 0x7b);
	PARSE("io_instruction", 1, X, 30);
	PARSE("msr", 5, X, 31, X, 32, X, 84, X, 85, A, 0x7c);
	PARSE("svm:msr", 1, A, 0x7c);
	PARSE("rdmsr", 3, X, 31, X, 84, A, 0x7c);
	PARSE("wrmsr", 3, X, 32, X, 85, A, 0x7c);
	PARSE("msr_read", 1, X, 31);
	PARSE("ept", 3, X, 48, X, 49, A, 0x400);
	PARSE("npf", 3, X, 48, X, 49, A, 0x400);
	PARSE("vmx:npf", 2, X, 48, X, 49);
	PARSE("mmio", 2, X, 49, A, 0x400);
	PARSE("hypercall", 2, X, 18, A, 0x81);
	PARSE("vmcall", 2, X, 18, A, 0x81);
	PARSE("vmmcall", 2, X, 18, A, 0x81);
	PARSE("irq", 2, X, 1, A, 0x60);
	PARSE("intr", 2, X, 1, A, 0x60);
	PARSE("interrupt", 2, X, 1, A, 0x60);
	PARSE("external_interrupt", 2, X, 1, A, 0x60);
	PARSE("irq_window", 2, X, 7, A, 0x64);
	PARSE("halt", 3, X, 12, A, 0x78, A, 0xa6);
	PARSE("pause", 2, X, 40, A, 0x77);
	PARSE("mwait", 3, X, 36, A, 0x8b, A, 0x8c);
	PARSE("shutdown", 2, X, 2, A, 0x7f);
	PARSE("cpuid", 2, X, 10, A, 0x72);
	PARSE("excp_base", 1, A, 0x40);
}

static void test_parse_groups(void)
{
	struct exit_reason_ref r[EXIT_REASON_MAX_MATCHES];
	int n, i;

	n = exit_reason_parse("cr", r, EXIT_REASON_MAX_MATCHES);
	CHECK_INT(n, 1 + 32 + 16);
	CHECK(r[0].isa == HV_ISA_VMX && r[0].code == 28);
	CHECK(parses_to("cr", HV_ISA_SVM, 0x13));	/* WRITE_CR3 */
	CHECK(parses_to("cr", HV_ISA_SVM, 0x94));	/* CR4_WRITE_TRAP */
	CHECK(!parses_to("cr", HV_ISA_SVM, 0x8f));	/* EFER is no CR */
	CHECK_INT(exit_reason_parse("dr", r, EXIT_REASON_MAX_MATCHES), 33);
	n = exit_reason_parse("exception", r, EXIT_REASON_MAX_MATCHES);
	CHECK_INT(n, 33);
	for (i = 1; i < n; i++)
		CHECK(r[i].isa == HV_ISA_SVM && r[i].code == 0x40 + i - 1u);

	/* MAX truncates, keeping the first (VMX) matches */
	CHECK_INT(exit_reason_parse("msr", r, 2), 2);
	CHECK(r[0].code == 31 && r[1].code == 32);
	CHECK_INT(exit_reason_parse("msr", r, 0), 0);
	CHECK_INT(exit_reason_parse("msr", NULL, 4), 0);
}

static void test_parse_numbers(void)
{
	PARSE("30", 2, X, 30, A, 30);
	PARSE("0x7b", 2, X, 0x7b, A, 0x7b);
	PARSE("0X7B", 2, X, 0x7b, A, 0x7b);
	PARSE("0", 2, X, 0, A, 0);
	PARSE("010", 2, X, 10, A, 10);		/* decimal, not octal */
	PARSE("vmx:0x30", 1, X, 0x30);
	PARSE("svm:1024", 1, A, 0x400);
	PARSE("0xffff", 2, X, 0xffff, A, 0xffff);
	PARSE("0x10000", 1, A, 0x10000);	/* past the VMX basic reason */
	PARSE("0xffffffff", 1, A, 0xffffffff);
	PARSE("4294967295", 1, A, 0xffffffff);
	PARSE("35", 2, X, 35, A, 35);		/* unknown codes still match */
	PARSE("4294967296", 0);
	PARSE("0x100000000", 0);
	PARSE("0x", 0);
	PARSE("12abc", 0);
	PARSE("0x1g", 0);
	PARSE("-1", 0);
	PARSE("+1", 0);
	PARSE("1.5", 0);
}

static void test_suggest(void)
{
	const char *s[8];
	int n;

	n = exit_reason_suggest("hlr", s, 8);
	CHECK(n >= 1);
	CHECK_STR(n ? s[0] : NULL, "HLT");

	/* A swap of neighbours is one typo. */
	n = exit_reason_suggest("nfp", s, 8);
	CHECK(n >= 1 && !strcmp(s[0], "NPF"));
	n = exit_reason_suggest("EPT_VIOL", s, 8);
	CHECK(n >= 1);
	CHECK_STR(n ? s[0] : NULL, "EPT_VIOLATION");

	n = exit_reason_suggest("msr_raed", s, 8);
	CHECK(n >= 1);
	CHECK_STR(n ? s[0] : NULL, "MSR_READ");

	n = exit_reason_suggest("vmx:cpuidd", s, 8);
	CHECK(n >= 1);
	CHECK_STR(n ? s[0] : NULL, "CPUID");

	n = exit_reason_suggest("violation", s, 8);
	CHECK(n >= 1);
	CHECK_STR(n ? s[0] : NULL, "EPT_VIOLATION");

	n = exit_reason_suggest("hypercal", s, 8);
	CHECK(n >= 1);
	CHECK_STR(n ? s[0] : NULL, "HYPERCALL");

	/* prefix matches come before typos, shorter names first */
	n = exit_reason_suggest("vmgexit_ap", s, 8);
	CHECK(n >= 3);
	CHECK_STR(n ? s[0] : NULL, "VMGEXIT_AP_CREATION");

	/* no duplicate of a name both ISAs have */
	n = exit_reason_suggest("cpui", s, 8);
	CHECK(n >= 1);
	CHECK(n < 2 || strcmp(s[0], s[1]));

	CHECK_INT(exit_reason_suggest("qqqqqqqq", s, 8), 0);
	CHECK_INT(exit_reason_suggest("", s, 8), 0);
	CHECK_INT(exit_reason_suggest(NULL, s, 8), 0);
	CHECK_INT(exit_reason_suggest("msr", s, 0), 0);
	CHECK_INT(exit_reason_suggest("excp", s, 2), 2);
}

/* Decode into a buffer and compare; also checks the returned length. */
static void check_qual(int line, unsigned int isa, uint32_t reason,
		       uint64_t info1, uint64_t info2, const char *want)
{
	char buf[128];
	int n = exit_reason_qualifier(buf, sizeof(buf), isa, reason, info1,
				      info2);

	unit_check(!strcmp(buf, want), __FILE__, line,
		   "qualifier(%u, 0x%x, 0x%llx, 0x%llx): \"%s\", want \"%s\"",
		   isa, reason, (unsigned long long)info1,
		   (unsigned long long)info2, buf, want);
	unit_check(n == (int)strlen(want), __FILE__, line,
		   "qualifier returned %d for \"%s\"", n, want);
}

#define QUAL(isa, r, i1, i2, want) check_qual(__LINE__, isa, r, i1, i2, want)

static void test_qualifier_io(void)
{
	/* SVM IOIO: port 31:16, IN bit 0, STR 2, REP 3, SZ8/16/32 bits 4..6 */
	QUAL(A, 0x7b, 0x80ull << 16 | 1 << 4, 0, "port 0x80 out 1B");
	QUAL(A, 0x7b, 0x3f8ull << 16 | 1 << 4 | 1, 0, "port 0x3f8 in 1B");
	QUAL(A, 0x7b, 0x1f0ull << 16 | 1 << 5 | 1 | 4 | 8, 0,
	     "port 0x1f0 in 2B string rep");
	QUAL(A, 0x7b, 0xcfcull << 16 | 1 << 6, 0, "port 0xcfc out 4B");
	QUAL(A, 0x7b, 0xcfcull << 16 | 1 << 6 | 4, 0,
	     "port 0xcfc out 4B string");

	/* VMX: size-1 2:0, IN bit 3, string 4, rep 5, port 31:16 */
	QUAL(X, 30, 0x80ull << 16, 0, "port 0x80 out 1B");
	QUAL(X, 30, 0x3f8ull << 16 | 8 | 1, 0, "port 0x3f8 in 2B");
	QUAL(X, 30, 0xcfcull << 16 | 3, 0, "port 0xcfc out 4B");
	QUAL(X, 30, 0x1f0ull << 16 | 8 | 1 | 0x10 | 0x20, 0,
	     "port 0x1f0 in 2B string rep");
	QUAL(X, 30, 0xffffull << 16, 0, "port 0xffff out 1B");
}

static void test_qualifier_msr(void)
{
	QUAL(A, 0x7c, 0, 0, "read");
	QUAL(A, 0x7c, 1, 0, "write");
	QUAL(X, 31, 0, 0, "read");
	QUAL(X, 32, 0, 0, "write");
	QUAL(X, 84, 0x1b, 0, "msr 0x1b read");
	QUAL(X, 85, 0xc0000080, 0, "msr 0xc0000080 write");
}

static void test_qualifier_paging(void)
{
	/* SVM NPF: info1 #PF error code, info2 GPA */
	QUAL(A, 0x400, 1 | 2 | 4, 0xfee00000, "gpa 0xfee00000 write");
	QUAL(A, 0x400, 1, 0x1000, "gpa 0x1000 read");
	QUAL(A, 0x400, 0x10, 0x7f000, "gpa 0x7f000 fetch not-present");
	QUAL(A, 0x400, 2, 0x2000, "gpa 0x2000 write not-present");
	QUAL(A, 0x400, 1 | 8, 0xfed00000, "gpa 0xfed00000 read rsvd");
	QUAL(A, 0x400, 1ull << 33 | 1ull << 32 | 1 | 2, 0x3000,
	     "gpa 0x3000 write ptwalk");
	QUAL(A, 0x400, 1ull << 32 | 1, 0x100000000ull,
	     "gpa 0x100000000 read");

	/* VMX EPT: access bits 2:0, entry permissions 5:3, GVA bits 7/8 */
	QUAL(X, 48, 2, 0, "write not-present");
	QUAL(X, 48, 1 | 1 << 3, 0, "read");
	QUAL(X, 48, 2 | 1 << 3 | 1 << 7 | 1 << 8, 0, "write");
	QUAL(X, 48, 4 | 1 << 7, 0, "fetch not-present ptwalk");
	QUAL(X, 49, 0, 0, "");
}

static void test_qualifier_cr_dr(void)
{
	/* VMX: CR 3:0, type 5:4 (to, from, clts, lmsw) */
	QUAL(X, 28, 3, 0, "cr3 write");
	QUAL(X, 28, 3 | 1 << 4, 0, "cr3 read");
	QUAL(X, 28, 8 | 1 << 4 | 5 << 8, 0, "cr8 read");
	QUAL(X, 28, 2 << 4, 0, "cr0 clts");
	QUAL(X, 28, 3 << 4, 0, "cr0 lmsw");
	QUAL(X, 28, 4, 0, "cr4 write");
	/* VMX DR: DR 2:0, bit 4 = mov from DR */
	QUAL(X, 29, 7, 0, "dr7 write");
	QUAL(X, 29, 7 | 1 << 4, 0, "dr7 read");
	/* SVM encodes CR/DR and direction in the code */
	QUAL(A, 0x03, 0, 0, "cr3 read");
	QUAL(A, 0x13, 0, 0, "cr3 write");
	QUAL(A, 0x10, 0, 0, "cr0 write");
	QUAL(A, 0x18, 0, 0, "cr8 write");
	QUAL(A, 0x27, 0, 0, "dr7 read");
	QUAL(A, 0x36, 0, 0, "dr6 write");
	QUAL(A, 0x94, 0x1234, 0, "cr4 write");
	QUAL(A, 0x8f, 0, 0, "efer write");
}

static void test_qualifier_other(void)
{
	char buf[8];
	int n;

	QUAL(A, 0x4e, 2, 0xdead000, "addr 0xdead000 ec 0x2");
	QUAL(A, 0x4d, 0x18, 0, "ec 0x18");
	QUAL(A, 0x46, 0, 0, "");
	QUAL(A, 0x402, 0x300 | 1ull << 32, 0, "apic 0x300 write");
	QUAL(A, 0x402, 0x0b0, 0, "apic 0x0b0 read");
	QUAL(A, 0x60, 0, 0, "");
	QUAL(X, 44, 0x1300, 0, "apic 0x300 write");
	QUAL(X, 44, 0x0080, 0, "apic 0x080 read");
	QUAL(X, 56, 0xb0, 0, "apic 0x0b0 write");
	QUAL(X, 45, 0x31, 0, "vector 0x31");
	QUAL(X, 9, 0x28 | 1u << 30, 0, "tss 0x28 iret");
	QUAL(X, 10, 0, 0, "");
	QUAL(X, 0x80000021, 0, 0, "vmentry failed");
	QUAL(X, 30 | 1u << 27, 0x80ull << 16, 0, "port 0x80 out 1B enclave");
	QUAL(X, 12 | 1u << 27, 0, 0, "enclave");
	QUAL(0, 30, 0x80ull << 16, 0, "");
	QUAL(7, 30, 0x80ull << 16, 0, "");

	/* snprintf semantics: full length back, truncated and terminated */
	n = exit_reason_qualifier(buf, 5, A, 0x7b, 0x80ull << 16 | 1 << 4, 0);
	CHECK_INT(n, strlen("port 0x80 out 1B"));
	CHECK_STR(buf, "port");
	n = exit_reason_qualifier(NULL, 0, A, 0x7b, 0x80ull << 16 | 1 << 4, 0);
	CHECK_INT(n, strlen("port 0x80 out 1B"));
	n = exit_reason_qualifier(buf, 1, X, 28, 3, 0);
	CHECK_INT(n, strlen("cr3 write"));
	CHECK_STR(buf, "");
}

int main(void)
{
	test_tables_well_formed();
	test_vmx_complete();
	test_svm_complete();
	test_svm_trace_strings();
	test_round_trip();
	test_names();
	test_parse_names();
	test_parse_aliases();
	test_parse_groups();
	test_parse_numbers();
	test_suggest();
	test_qualifier_io();
	test_qualifier_msr();
	test_qualifier_paging();
	test_qualifier_cr_dr();
	test_qualifier_other();
	return unit_report();
}
