# SPDX-License-Identifier: GPL-2.0
# Sourced by the e2e tests (after tests/e2e/lib.sh): a real Linux guest,
# booted by the host's qemu-system-x86_64 under this machine's KVM (in
# the test VM: nested, on its emulated SVM), with hvmark in its
# initramfs (this folder's Makefile, `make guest`). The guest runs
# `/hvmark -n N -i 20ms ID` (init.c) and powers off. Its kernel is the
# one running here: the test VM's image (tests/vm/run exports it), or on
# a real host /boot's.
#
#   qlg_boot OUT N ID      boot it and wait for its power-off, a hung boot
#                          retried (below): 0; 2 when every boot hung or
#                          panicked before hvmark; 1 with what else went
#                          wrong.
#                          QLG_PID is the QEMU pid of the boot that ran
#                          (hvctl's `filter pid`, --vm filters), QLG_PIDS
#                          every attempt's, QLG_SECS its seconds from
#                          start to power-off, OUT its serial console
#   qlg_start OUT N ID [SECS]  the same, one attempt, in the background:
#                          QLG_PID at once (to watch the guest while it
#                          runs); killed after SECS (60; debug kernel: 180)
#   qlg_wait               until qlg_start's guest powers off: 0, 2 when
#                          it hung (killed at its deadline) or panicked
#                          before hvmark started, 1 on any other
#                          failure, said; sets QLG_SECS
#   qlg_marks OUT          its hvmark lines, as hvmark printed them
#
# The guest is named QLG_NAME with UUID QLG_UUID (QEMU's -name, -uuid).
#
# The guest is a PC with no default devices, a serial port only, and no
# PMU (its kernel's perf MSR writes are noise in KVM's log); the kernel
# is told to skip what it would probe in vain (the i8042) and not to use
# kvmclock. Under the test VM's emulation (2 cores, other VMs beside) a
# boot takes 10 to 30 s to power-off on 6.12 (hvmark starts 4 to 10 s
# into the guest kernel's time) and 20 to 45 s on 6.1; 2 minutes on the
# debug kernel. Most boots hang, at any point of the kernel's start
# (December 2026, 6.12, hvtrace not loaded, the console at loglevel 7:
# 3 of 5 alone, 5 of 6 with -cpu qemu64, 6 of 6 with transparent huge
# pages off in the test VM, 5 of 5 with two busy loops on the host; 6.1
# with hvtrace, alone: 12 of 13): the guest's one vCPU spins with interrupts off in
# native_queued_spin_lock_slowpath (seen with nokaslr and the running
# kernel's kallsyms), and the debug kernel's lockdep reports first; not
# hvmark, which has not started then (nested SVM under QEMU's TCG is the
# suspect; neither mitigations=off nor turning KVM's paravirtual
# features off helps). Some panic instead (6.1: a fault storm
# overflowing error_entry's stack at 7.6 s). The debug kernel's boot can
# also panic at 0.1 s, "IO-APIC + timer doesn't work": its check waits a
# few ticks of a timer that, nested and slowed by KASAN, came too late
# (no_timer_check, which skips the check, hung 6 boots of 6 on 6.12: the
# check also finds the timer's working route). A boot that hung or
# panicked before hvmark started is retried: qlg_boot tries up to QLG_TRIES (10) times, each given 50 s
# (booting takes 10 to 25 s, 45 under load), and shows a hung boot's
# console; make check runs the test with no other VM beside
# (tests/check). QLG_CPU (the -cpu model) and QLG_APPEND (more of the
# kernel's command line) are for such experiments; QLG_QEMU_ARGS are
# more of QEMU's (a device, a monitor: 79-qemu-mmio-device.t).

QLG_INITRD=$HVT_ROOT/build/qemu-linux-guest/initramfs.cpio
# The VM's name and UUID, as libvirt passes them (hvctl shows them).
QLG_NAME=qlg-guest
QLG_UUID=5eed0c1e-7a2b-4c3d-9e8f-0123456789ab
QLG_TRIES=${QLG_TRIES:-10}
QLG_PID=
QLG_PIDS=
QLG_SECS=

# qlg_kernel: the image of the kernel running here.
qlg_kernel() {
	local img=${HVT_KERNEL_IMAGE:-/boot/vmlinuz-$(uname -r)}

	[ -r "$img" ] || { echo "qlg: no readable kernel image at $img" >&2; return 1; }
	echo "$img"
}

# A boot's deadline: 50 s, or 180 s on the debug kernel (KASAN and all,
# several times slower).
qlg_secs() {
	if [ "${HVT_KERNEL_KIND:-}" = debug ]; then echo 180; else echo 50; fi
}

qlg_start() {
	local out=$1 n=$2 id=$3 secs=${4:-$(qlg_secs)} kernel

	kernel=$(qlg_kernel) || return 1
	[ -r "$QLG_INITRD" ] ||
		{ echo "qlg: no $QLG_INITRD (make guest)" >&2; return 1; }
	[ -c /dev/kvm ] || { echo "qlg: no /dev/kvm" >&2; return 1; }
	QLG_OUT=$out
	QLG_DEADLINE=$((SECONDS + secs))
	QLG_T0=$(date +%s.%N) QLG_SECS=
	: >"$out"
	qemu-system-x86_64 -enable-kvm -cpu "${QLG_CPU:-host,pmu=off}" -m 256 -smp 1 \
		-name "guest=$QLG_NAME,debug-threads=on" -uuid "$QLG_UUID" \
		-machine pc -nodefaults -no-user-config -display none \
		-no-reboot -serial "file:$out" \
		-kernel "$kernel" -initrd "$QLG_INITRD" \
		-append "console=ttyS0 quiet panic=-1 no-kvmclock i8042.nokbd i8042.noaux i8042.nopnp ${QLG_APPEND:+$QLG_APPEND }hvmark.n=$n hvmark.id=$id" \
		${QLG_QEMU_ARGS:-} </dev/null >"$out.qemu" 2>&1 &
	QLG_PID=$!
	QLG_PIDS+="${QLG_PIDS:+ }$QLG_PID"
}

# qlg_before_hvmark: 2 (try again) when the failed boot's hvmark had not
# started; after that its marks are in the host's trace, and a failure
# there could be hvtrace's (the marks are its exits): 1, said.
qlg_before_hvmark() {
	grep -aq '^QLG-INIT: /hvmark' "$QLG_OUT" || return 2
	echo "qlg: guest $QLG_PID failed after hvmark started: not retried" >&2
	return 1
}

qlg_wait() {
	local rc

	while kill -0 "$QLG_PID" 2>/dev/null; do
		if [ "$SECONDS" -ge "$QLG_DEADLINE" ]; then
			kill -KILL "$QLG_PID" 2>/dev/null
			wait "$QLG_PID" 2>/dev/null
			echo "qlg: guest $QLG_PID did not power off in time; its console ends:" >&2
			# A kernel's report (lockdep: the debug kernel) in full.
			tr -d '\r' <"$QLG_OUT" | grep -v '^$' | tail -n 60 |
				sed 's/^/qlg:   /' >&2
			qlg_before_hvmark
			return
		fi
		sleep 0.2
	done
	wait "$QLG_PID"
	rc=$?
	QLG_SECS=$(echo "$(date +%s.%N) - $QLG_T0" | bc)
	if [ "$rc" != 0 ]; then
		echo "qlg: qemu exited $rc: $(cat "$QLG_OUT.qemu")" >&2
		return 1
	fi
	if grep -aq "IO-APIC + timer doesn't work" "$QLG_OUT"; then
		echo "qlg: guest $QLG_PID panicked, its timer's check too slow:" >&2
		grep -a -m1 'Kernel panic' "$QLG_OUT" | sed 's/^/qlg:   /' >&2
		return 2
	fi
	# The emulation failing the guest's kernel another way (above).
	if grep -aq 'Kernel panic' "$QLG_OUT"; then
		echo "qlg: guest $QLG_PID panicked:" >&2
		tr -d '\r' <"$QLG_OUT" | grep -a -m3 -e 'BUG:' -e 'RIP:' -e 'Kernel panic' |
			sed 's/^/qlg:   /' >&2
		qlg_before_hvmark
		return
	fi
	grep -aq '^QLG-INIT: hvmark exit' "$QLG_OUT" || {
		echo "qlg: the guest's init did not finish; its console:" >&2
		tail -n 20 "$QLG_OUT" >&2
		return 1
	}
}

qlg_boot() {
	local try rc=2

	QLG_PIDS=
	for ((try = 1; try <= QLG_TRIES && rc == 2; try++)); do
		qlg_start "$@" || return 1
		qlg_wait
		rc=$?
	done
	return $rc
}

qlg_marks() {
	grep -a '^hvmark: mark ' "$1" | tr -d '\r'
}
