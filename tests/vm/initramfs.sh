# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm/run: the initramfs of the test VM, cached per kernel.
#
# It holds static busybox, tests/vm/init and, decompressed and in load
# order, the modules needed to mount the host root: virtio PCI, 9p and
# overlayfs (which of them are built in differs between 6.1 and 6.12; the
# kernel's own modules.dep decides).

INITRAMFS_MODULES="virtio_pci 9pnet_virtio 9p overlay"

# Print the path of the initramfs for release $1 unpacked at $2.
initramfs_build() {
	local rel=$1 kdir=$2 key out stage m

	key=$(cat "$ROOT/tests/vm/init" /bin/busybox "$ROOT/tests/vm/initramfs.sh" |
	      sha1sum | cut -c1-12)
	out="$HVT_CACHE/initramfs/$rel-$key.cpio.gz"
	if [ -f "$out" ]; then
		echo "$out"
		return 0
	fi

	stage=$(mktemp -d)
	mkdir -p "$stage"/{bin,dev,proc,sys,modules} "$(dirname "$out")"
	cp /bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	cp "$ROOT/tests/vm/init" "$stage/init"
	for m in $INITRAMFS_MODULES; do
		modprobe -d "$kdir" -S "$rel" --show-depends "$m"
	done |
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		m=$(basename "$path")
		case "$m" in
		*.xz)	xz -dc "$path" > "$stage/modules/${m%.xz}"; m=${m%.xz} ;;
		*.zst)	zstd -qdc "$path" > "$stage/modules/${m%.zst}"; m=${m%.zst} ;;
		*)	cp "$path" "$stage/modules/$m" ;;
		esac
		# --show-depends may name a module twice; load it once.
		grep -qx "$m" "$stage/modules.list" 2>/dev/null ||
			echo "$m" >> "$stage/modules.list"
	done
	touch "$stage/modules.list"
	( cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1 ) > "$out.tmp" &&
		mv "$out.tmp" "$out"
	rm -rf "$stage"
	[ -f "$out" ] && echo "$out"
}
