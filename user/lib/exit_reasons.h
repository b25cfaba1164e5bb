/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of VM-exit reasons for Intel VMX and AMD SVM, parsing of the names
 * an operator types, and a short decode of the exit information.
 *
 * Canonical names are the kernel's uapi constants without their prefix
 * (EXIT_REASON_IO_INSTRUCTION -> "IO_INSTRUCTION", SVM_EXIT_IOIO -> "IOIO",
 * SVM_VMGEXIT_PSC -> "VMGEXIT_PSC"), so one spelling works for both
 * vendors and matches what people grep for in the kernel.  SVM exception
 * intercepts are "DE_EXCP" ... "XF_EXCP" after the kernel's "DE excp"
 * trace strings, "EXCPn" where the vector has no mnemonic.
 */
#ifndef HVCTL_EXIT_REASONS_H
#define HVCTL_EXIT_REASONS_H

#include <stddef.h>
#include <stdint.h>

/* Values of the kvm_exit tracepoint's isa argument (KVM_ISA_VMX/SVM). */
enum hv_isa { HV_ISA_VMX = 1, HV_ISA_SVM = 2 };

/* Bits above the basic reason in a raw VMX exit reason. */
#define HV_VMX_BASIC_REASON_MASK	0xffffu
#define HV_VMX_FAILED_VMENTRY		0x80000000u	/* bit 31 */
#define HV_VMX_ENCLAVE_MODE		0x08000000u	/* bit 27 */

/* SVM_EXIT_ERR (-1): VMRUN found invalid guest state. */
#define HV_SVM_EXIT_ERR			0xffffffffu

struct exit_reason_entry {
	uint32_t code;
	const char *name;
};

struct exit_reason_ref {
	unsigned int isa;
	uint32_t code;
};

/*
 * exit_reason_parse() never yields more matches than this (the largest
 * group is "exception": VMX EXCEPTION_NMI plus 32 SVM vectors), so an
 * OUT array this big never truncates.
 */
#define EXIT_REASON_MAX_MATCHES		64

/*
 * Name of a raw exit reason, e.g. "NPF"; NULL when unknown.  For VMX only
 * the basic reason (low 16 bits) is looked up.
 */
const char *exit_reason_name(unsigned int isa, uint32_t reason);

/*
 * How every output names an exit reason, into BUF (snprintf semantics),
 * returned: "NPF"; a code without a name with its vendor, "VMX 0x1234" or
 * "SVM 0x1234"; a VMX reason with bits above the basic reason (failed
 * entry, enclave) its name and the whole code, "INVALID_STATE 0x80000021";
 * "unknown" when the vendor is not known.
 */
const char *exit_reason_label(char *buf, size_t len, unsigned int isa,
			      uint32_t reason);
/* Room for every label exit_reason_label() writes: the longest is 36. */
#define EXIT_LABEL_LEN	48

/*
 * Parse a user-given reason into (isa, code) pairs; returns how many were
 * stored in OUT (at most MAX), 0 when S means nothing.
 *
 * Accepted, case-insensitive, '-' and ' ' taken as '_':
 *  - a canonical name of either ISA ("hlt" gives both vendors' HLT);
 *  - a prefixed constant: "EXIT_REASON_HLT" (VMX only), "SVM_EXIT_HLT",
 *    "SVM_VMGEXIT_PSC" (SVM only), also SVM_EXIT_EXCP_BASE/LAST_EXCP;
 *  - the kernel's SVM trace strings where they differ ("hypercall",
 *    "read_rt", "DE excp", "invalid_guest_state", "idle-halt", ...);
 *  - "EXCPn" (n 0..31): the SVM exception intercept for vector n;
 *  - a number, decimal or 0x hex: both ISAs (VMX only when it fits the
 *    16-bit basic reason), known to the tables or not, so filters work
 *    for reasons newer than this table;
 *  - a vendor hint "vmx:" / "intel:" or "svm:" / "amd:" in front of any
 *    of the above keeps only that ISA's matches;
 *  - operator words that mean the same exit on both vendors:
 *      io, pio              IO_INSTRUCTION / IOIO
 *      msr                  MSR_READ, MSR_WRITE, MSR_READ_IMM,
 *                           MSR_WRITE_IMM / MSR
 *      rdmsr, wrmsr         the VMX direction / MSR (SVM has one reason
 *                           for both; the direction is in info1)
 *      ept, npf             EPT_VIOLATION, EPT_MISCONFIG / NPF: all
 *                           nested-paging exits, since SVM reports
 *                           ordinary and MMIO faults alike as NPF
 *      mmio                 EPT_MISCONFIG / NPF (on SVM also the non-MMIO
 *                           faults; only info1's RSVD bit tells them apart)
 *      hypercall, vmcall, vmmcall   VMCALL / VMMCALL
 *      irq, intr, interrupt, extint EXTERNAL_INTERRUPT / INTR
 *      irq_window           INTERRUPT_WINDOW / VINTR
 *      halt                 HLT / HLT, IDLE_HLT
 *      pause, mwait, monitor        the *_INSTRUCTION / plain names
 *      cr, dr               CR_ACCESS / every CR read, write and write
 *                           trap; DR_ACCESS / every DR read and write
 *      exception, excp      EXCEPTION_NMI / all 32 exception intercepts
 *      shutdown             TRIPLE_FAULT / SHUTDOWN
 * Duplicates are dropped; VMX pairs come before SVM pairs.
 */
int exit_reason_parse(const char *s, struct exit_reason_ref *out, int max);

/*
 * For an unknown name: store up to MAX close matches (the input as a
 * prefix or part of a name, or a few edits away), best first, in OUT;
 * returns how many.  The strings are static.
 */
int exit_reason_suggest(const char *s, const char **out, int max);
/*
 * The one message for a name S that is no reason, into BUF: "unknown
 * exit reason 'S' (did you mean: A, B?); 'hvctl reasons' lists them".
 */
void exit_reason_unknown(char *buf, size_t len, const char *s);

/*
 * What a reason's exit information holds, decided by the reason's
 * canonical name in the tables (so a renumbered or new vendor code
 * cannot be mistaken for it).
 */
enum exit_reason_class {
	EXIT_CLASS_NONE,
	EXIT_CLASS_PORT_IO,		/* info1 bits 31:16: the I/O port */
};
enum exit_reason_class exit_reason_class(unsigned int isa, uint32_t reason);

/* Iterate a whole table, sorted by code (for `hvctl reasons`). */
int exit_reason_count(unsigned int isa);
const struct exit_reason_entry *exit_reason_at(unsigned int isa, int i);

/*
 * Short text for the exit information of the kvm_exit tracepoint, e.g.
 * "port 0x80 out 1B", "read", "gpa 0xfee00000 write", "cr3 write";
 * empty when there is nothing worth showing.  Returns the length the text
 * has (snprintf semantics: >= LEN means it was truncated).
 *
 * What KVM puts in info1/info2 (kvm_exit, via get_exit_info):
 *  VMX: info1 = exit qualification; info2 = IDT-vectoring info, NOT a
 *       guest-physical address.  The EPT GPA is only in the VMCS
 *       (kvm_page_fault tracepoint), so EPT_VIOLATION decodes the access
 *       but prints no address.  MSR_READ/MSR_WRITE have no qualification:
 *       the MSR index is the guest's RCX, which the caller must supply
 *       (this prints "read"/"write" only).
 *  SVM: info1/info2 = VMCB EXITINFO1/EXITINFO2.  For MSR, info1 is 0 read,
 *       1 write, the index again in RCX.  For NPF, info1 is the page-fault
 *       error code and info2 the GPA.
 */
int exit_reason_qualifier(char *buf, size_t len, unsigned int isa,
			  uint32_t reason, uint64_t info1, uint64_t info2);

#endif /* HVCTL_EXIT_REASONS_H */
