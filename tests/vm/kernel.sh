# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm/run: resolve, fetch and prepare a stock Debian kernel.
#
# Kernels are unpacked (dpkg -x, never installed) under $HVT_CACHE/kernels,
# with a modules.dep made by depmod so modprobe works inside the VM. Headers
# are installed with apt, since the module must build against them.

# Meta package whose dependency names the current image of each series.
kernel_meta() {
	case "$1" in
	6.1)	echo linux-image-amd64 ;;
	6.12)	echo linux-image-6.12-amd64 ;;
	*)	echo "unknown kernel series '$1' (want 6.1 or 6.12)" >&2
		return 1 ;;
	esac
}

# Print the kernel release (e.g. 6.1.0-57-amd64) the series resolves to.
kernel_release() {
	local meta pkg

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

# Make sure image, modules and headers of release $1 are ready.
kernel_fetch() {
	local rel=$1 dir="$HVT_CACHE/kernels/$1" tmp

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
