# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm/run: resolve, fetch and prepare the kernel of a series.
#
# Series: 6.1 and 6.12 (Debian's stock kernels), 6.12-rt (Debian's
# PREEMPT_RT kernel) and debug (built from Debian's linux-source-6.12 with
# KASAN, lockdep, KMEMLEAK, ... by tests/debug-kernel/build).
# Stock kernels are unpacked (dpkg -x, never installed) under
# $HVT_CACHE/kernels, with a modules.dep made by depmod so modprobe works
# inside the VM. Their headers are installed with apt, since the module
# must build against them. The debug kernel's build tree serves as its
# headers.

KERNEL_SERIES="6.1, 6.12, 6.12-rt or debug"
KERNEL_SH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Meta package whose dependency names the current image of each series.
kernel_meta() {
	case "$1" in
	6.1)	echo linux-image-amd64 ;;
	6.12)	echo linux-image-6.12-amd64 ;;
	6.12-rt) echo linux-image-6.12-rt-amd64 ;;
	*)	echo "unknown kernel series '$1' (want $KERNEL_SERIES)" >&2
		return 1 ;;
	esac
}

kernel_is_debug() {
	case "$1" in
	*-hvtdebug-*)	return 0 ;;
	esac
	return 1
}

# Print the kernel release (e.g. 6.1.0-57-amd64) the series resolves to.
# For debug, builds the debug kernel first if it is not in the cache.
kernel_release() {
	local meta pkg dir

	if [ "$1" = debug ]; then
		dir=$("$KERNEL_SH_DIR/../debug-kernel/build") || return 1
		cat "$dir/release"
		return
	fi
	meta=$(kernel_meta "$1") || return 1
	pkg=$(apt-cache depends "$meta" 2>/dev/null |
	      sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
	if [ -z "$pkg" ]; then
		apt-get update -qq >/dev/null 2>&1
		pkg=$(apt-cache depends "$meta" 2>/dev/null |
		      sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' |
		      head -n 1)
	fi
	[ -n "$pkg" ] || { echo "cannot resolve $meta" >&2; return 1; }
	pkg=${pkg#linux-image-}
	echo "${pkg%-unsigned}"
}

# The directory holding boot/vmlinuz-$1 and lib/modules/$1.
kernel_root() {
	if kernel_is_debug "$1"; then
		echo "$HVT_CACHE/debug-kernel/${1##*-hvtdebug-}/root"
	else
		echo "$HVT_CACHE/kernels/$1"
	fi
}

# The build tree to build modules for release $1 against (KDIR).
kernel_build_dir() {
	if kernel_is_debug "$1"; then
		echo "$HVT_CACHE/debug-kernel/${1##*-hvtdebug-}/obj"
	else
		echo "/usr/src/linux-headers-$1"
	fi
}

# The Debian source version a stock image of release $1 was built from,
# from its changelog (the signed packages name the source they sign).
kernel_source_version() {
	local log

	log=$(zcat "$HVT_CACHE/kernels/$1"/usr/share/doc/linux-image-*/changelog.gz \
		2>/dev/null | head -n 5)
	case "$log" in
	linux-signed-*)	sed -n 's/^ *\* Sign kernel from linux[^ ]* \([^ ]*\)$/\1/p' \
				<<<"$log" | head -n 1 ;;
	*)		sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' <<<"$log" ;;
	esac
}

# "ROOT RELEASE": whose image and kvm.ko hold the BTF that the module's
# KVM probes are checked against (kmod/compat/kvm-btf.sh). A
# stock kernel's own. The debug kernel has no BTF (DEBUG_INFO_BTF would
# need full DWARF in every object and pahole, doubling its build): it
# borrows that of the stock 6.12 image built from the same Debian source
# version. The three tracepoints' prototypes (a struct kvm_vcpu pointer
# and scalars) and the order of struct vcpu_svm's first members do not
# depend on the configuration, so the checks hold (the VMCB pointer's
# offset does: kvm-btf.sh states it only from the target's own BTF).
kernel_btf() {
	local rel=$1 stock want got

	if ! kernel_is_debug "$rel"; then
		echo "$(kernel_root "$rel") $rel"
		return
	fi
	want=$(cat "$HVT_CACHE/debug-kernel/${rel##*-hvtdebug-}/source-version" \
		2>/dev/null)
	stock=$(kernel_release 6.12) && kernel_fetch "$stock" ||
		{ echo "vm: cannot fetch the stock 6.12 kernel for its BTF" >&2
		  return 1; }
	got=$(kernel_source_version "$stock")
	if [ -z "$want" ] || [ "$want" != "$got" ]; then
		echo "vm: the debug kernel's source (${want:-unknown}) is not that of" \
		     "$stock (${got:-unknown}): no BTF to check the probes against;" \
		     "update linux-source-6.12 and linux-image-6.12-amd64 together" >&2
		return 1
	fi
	echo "$(kernel_root "$stock") $stock"
}

# QEMU's machine and CPU for release $1: an AMD CPU with SVM and nested
# paging, so KVM works inside. PREEMPT_RT kernels refuse to load KVM
# without a constant TSC; on AMD, 6.12 sets X86_FEATURE_CONSTANT_TSC only
# from CPUID 0x80000007 EDX bit 8 (invtsc), which QEMU's TCG does not
# offer, whatever the CPU family. What sets it is the kernel's VMware
# platform code (arch/x86/kernel/cpu/vmware.c: a VMware guest's TSC is
# constant, as TCG's is): without the hypervisor CPUID bit it checks the
# DMI serial number for "VMware" and the VMware backdoor I/O port, which
# QEMU's vmport device implements. So RT guests run on that.
kernel_qemu_args() {
	case "$1" in
	*-rt-*)	echo "-machine q35,vmport=on -cpu qemu64,+svm,+npt,-hypervisor" \
		     "-smbios type=1,serial=VMware-hvtrace-test" ;;
	*)	echo "-machine q35 -cpu qemu64,+svm,+npt" ;;
	esac
}

# Make sure image, modules and headers of release $1 are ready.
kernel_fetch() {
	local rel=$1 dir="$HVT_CACHE/kernels/$1" tmp

	if kernel_is_debug "$rel"; then
		[ -f "$(kernel_root "$rel")/boot/vmlinuz-$rel" ] &&
			[ -f "$(kernel_build_dir "$rel")/Makefile" ]
		return
	fi
	if [ ! -f "$dir/.ready" ]; then
		echo "vm: fetching linux-image-$rel" >&2
		tmp=$(mktemp -d "$HVT_CACHE/dl.XXXXXX")
		( cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "linux-image-$rel" >&2 ) ||
			{ rm -rf "$tmp"; return 1; }
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg -x "$tmp"/linux-image-*.deb "$dir" || return 1
		rm -rf "$tmp"
		depmod -b "$dir" "$rel" || return 1
		touch "$dir/.ready"
	fi
	if [ ! -f "/usr/src/linux-headers-$rel/Makefile" ]; then
		echo "vm: installing linux-headers-$rel" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "linux-headers-$rel" >&2 ||
			return 1
	fi
}
