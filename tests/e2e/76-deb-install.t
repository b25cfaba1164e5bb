# The Debian packages as a host gets them: dpkg -i of build/deb's
# hvtrace-dkms and hvtrace (tests/deb/run builds them, and build/deb-next,
# the same at VERSION+next1) on the running stock kernel with its headers.
# DKMS builds and installs the module for it; hvtrace.service's commands,
# the exporter's and the watch's run as their units run them (the user,
# capabilities and no-new-privs of the installed unit: setpriv; PID 1
# here is no systemd); a real Prometheus scrapes the packaged exporter
# and its count of a guest's exits is hvctl stat's; with
# HVT_DEB_INSTALL=upgrade, an upgrade with the module loaded leaves it
# loaded and installs the new one; purging leaves nothing behind.
# On Debian's stock 6.12 only: the packaging does not differ by kernel,
# the debug kernel has no headers package, and DKMS's builds under
# emulation take most of the test's time: 465 s and 481 s (install,
# upgrade) of 1101 s, measured once (December 2026). make check runs the install
# (HVT_DEB_INSTALL=install), make check-deb the upgrade too;
# tests/deb/run builds for 6.1 and 6.12 on the host, the second as a
# kernel arriving on a host with the package installed.
. "$(dirname "$0")/lib.sh"

rel=$(uname -r)
# A DKMS build under emulation takes 8 minutes: a VM of its own runs it
# (make check, make check-deb); the suites of the others skip it.
case "${HVT_DEB_INSTALL:-}" in
install | upgrade) ;;
*)	skip "a VM of its own runs it (HVT_DEB_INSTALL=install|upgrade)" ;;
esac
case "$HVT_KERNEL_KIND $rel" in
"stock 6.12."*) ;;
*)	skip "make check runs it on Debian's stock 6.12" ;;
esac
ver=$(sed -n 's/^HVTRACE_VERSION := //p' "$HVT_ROOT/Makefile")
new=$ver+next1
DEB=$HVT_ROOT/build/deb
NEXT=$HVT_ROOT/build/deb-next
debs=("$DEB/hvtrace-dkms_${ver}_all.deb" "$DEB/hvtrace_${ver}_amd64.deb")
[ "$HVT_DEB_INSTALL" = upgrade ] &&
	debs+=("$NEXT/hvtrace-dkms_${new}_all.deb" "$NEXT/hvtrace_${new}_amd64.deb")
for f in "${debs[@]}"; do
	[ -f "$f" ] || fail "no $f: run tests/deb/run on the host first"
done
headers=/usr/src/linux-headers-$rel
[ -f "$headers/Makefile" ] || fail "no headers for $rel at $headers"
units=/lib/systemd/system
wants=/etc/systemd/system/multi-user.target.wants

# A host with this kernel alone: the others' trees and /boot hidden (DKMS
# would build for the newest too), and its headers where the headers
# package puts the link. Its modules are those loaded now, but the
# harness's hvtrace: depmod, which DKMS runs at each install and removal,
# takes two minutes over the whole tree under emulation, a second over
# these. Undone at the end, the harness's module loaded again for the
# tests after this one.
loaded=$(awk '$1 != "hvtrace" { print $1 }' /proc/modules |
	 xargs -r -n 1 modinfo -n) || fail "modinfo of the loaded modules"
orig=/tmp/deb-orig-modules
mounted=()
fd_link=
PROM_PID=
pdir=
restore() {
	local m

	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null
	[ -n "$pdir" ] && rm -rf "$pdir"
	modprobe -r hvtrace 2>/dev/null
	dpkg --purge hvtrace hvtrace-dkms >/dev/null 2>&1
	[ -n "$fd_link" ] && rm -f /dev/fd
	for ((m = ${#mounted[@]} - 1; m >= 0; m--)); do
		umount "${mounted[m]}"
	done
	modprobe hvtrace || echo "FAIL: the harness's hvtrace does not load again" >&2
}
trap restore EXIT
modprobe -r hvtrace || fail "cannot unload the harness's hvtrace"
mkdir -p "$orig"
mount --bind "/lib/modules/$rel" "$orig" || fail "bind $orig"
mounted+=("$orig")
mount -t tmpfs tmpfs /lib/modules || fail "tmpfs on /lib/modules"
mounted+=(/lib/modules)
mount -t tmpfs tmpfs /boot || fail "tmpfs on /boot"
mounted+=(/boot)
# DKMS reads its own output through /dev/fd (bash's <(...)), the link
# udev makes on a host.
if [ ! -e /dev/fd ]; then
	ln -s /proc/self/fd /dev/fd || fail "cannot link /dev/fd"
	fd_link=1
fi
mkdir -p "/lib/modules/$rel"
cp "$orig"/modules.{order,builtin,builtin.modinfo} "/lib/modules/$rel/"
for m in $loaded; do
	m=${m#/lib/modules/$rel/}
	mkdir -p "/lib/modules/$rel/$(dirname "$m")"
	cp -L "$orig/$m" "/lib/modules/$rel/$m" || fail "copy $m"
done
ln -s "$headers" "/lib/modules/$rel/build"
t=$SECONDS
depmod "$rel" || fail "depmod"
echo "  depmod: $((SECONDS - t))s"
modinfo hvtrace >/dev/null 2>&1 && fail "an hvtrace.ko is left: $(modinfo -n hvtrace)"
echo "  modules: $(echo "$loaded" | wc -w) ($(echo "$loaded" | xargs -r -n 1 basename | tr '\n' ' '))"

# ---- install ------------------------------------------------------------

# install_debs DIR VERSION: dpkg -i of DIR's two packages of VERSION,
# timed; DKMS then holds VERSION alone, installed for this kernel.
install_debs() {
	local t=$SECONDS

	dpkg -i "$1/hvtrace-dkms_$2_all.deb" "$1/hvtrace_$2_amd64.deb" \
		>/tmp/deb-install.out 2>&1 ||
		fail "dpkg -i of $2 failed: $(tail -n 30 /tmp/deb-install.out)"
	echo "  dpkg -i of $2, DKMS's build included: $((SECONDS - t))s"
	expect_eq "dkms status" "hvtrace/$2, $rel, x86_64: installed" \
		"$(dkms status hvtrace 2>/dev/null)"
}

install_debs "$DEB" "$ver"
expect_eq "the module DKMS installed" \
	"/lib/modules/$rel/updates/dkms/hvtrace.ko.xz $ver" \
	"$(modinfo -n hvtrace) $(modinfo -F version hvtrace)"
expect_eq "enabled: hvtrace, the exporter; not the watch" \
	"hvtrace-exporter.service hvtrace.service" \
	"$(cd "$wants" && echo hvtrace*)"

# ---- the units' commands, as the units run them -------------------------

# unit_key UNIT KEY: the values of KEY= in the installed UNIT, one a line.
unit_key() {
	sed -n "s/^$2=//p" "$units/$1"
}

# unit_priv UNIT: PRIV, setpriv's options for UNIT's user (DynamicUser:
# a uid of its own), bounding set, ambient capabilities, no-new-privs.
unit_priv() {
	local caps amb

	caps=$(unit_key "$1" CapabilityBoundingSet | tr 'A-Z ' 'a-z\n' |
	       sed -n 's/^cap_\(.*\)/+\1/p' | paste -sd,)
	amb=$(unit_key "$1" AmbientCapabilities | tr 'A-Z ' 'a-z\n' |
	      sed -n 's/^cap_\(.*\)/+\1/p' | paste -sd,)
	PRIV=(--bounding-set="-all${caps:+,$caps}")
	[ -n "$amb" ] && PRIV+=(--inh-caps="-all,$amb" --ambient-caps="-all,$amb")
	[ "$(unit_key "$1" DynamicUser)" = yes ] &&
		PRIV+=(--reuid=61976 --regid=61976 --clear-groups)
	[ "$(unit_key "$1" NoNewPrivileges)" = yes ] && PRIV+=(--no-new-privs)
}

# The administrator's configuration: thresholds for apply, a trigger for
# the watch, the exporter's port (hvtrace.conf(5)).
cat >/etc/hvtrace/hvtrace.conf <<'EOF'
# 76-deb-install
threshold 50us
watch.exit 20ms
exporter.listen 127.0.0.1:9655
EOF
conf_sum=$(sha256sum </etc/hvtrace/hvtrace.conf)

echo "# hvtrace.service: $(unit_key hvtrace.service ExecStart | paste -sd';')"
unit_priv hvtrace.service
while read -r cmd; do
	# shellcheck disable=SC2086
	setpriv "${PRIV[@]}" -- $cmd || fail "hvtrace.service: '$cmd' failed"
done < <(unit_key hvtrace.service ExecStart)
expect_eq "loaded: DKMS's build, $ver" "$ver" "$(cat /sys/module/hvtrace/version)"
expect_eq "applied: the threshold" 50000 \
	"$(/usr/sbin/hvctl -j config | py "d['threshold_ns']")"
/usr/sbin/hvctl status >/dev/null || fail "hvctl status failed"

echo "# hvtrace-exporter.service, a user of its own with CAP_PERFMON"
unit_priv hvtrace-exporter.service
# shellcheck disable=SC2046
setpriv "${PRIV[@]}" -- $(unit_key hvtrace-exporter.service ExecStart) \
	>/tmp/deb-exporter.out 2>&1 &
epid=$!
up=
for _ in $(seq 100); do
	m=$(curl -sf http://127.0.0.1:9655/metrics 2>/dev/null) &&
		up=$(echo "$m" | sed -n 's/^hvtrace_up //p') && break
	kill -0 "$epid" 2>/dev/null ||
		fail "the exporter ended: $(cat /tmp/deb-exporter.out)"
	sleep 0.2
done
expect_eq "the exporter reads the module: hvtrace_up" 1 "$up"
# A real Prometheus scraping it: a guest's CPUID exits there are hvctl
# stat's.
PROM=$HVT_ROOT/tests/e2e/prom.py
pdir=$(mktemp -d /tmp/deb-prom.XXXXXX)
prometheus_start 127.0.0.1:9655 "$pdir"
guest --cpuid 76 >/dev/null || exit 1
cpuid=$(/usr/sbin/hvctl -j stat | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')")
[ "$cpuid" -ge 76 ] || fail "hvctl stat counts $cpuid CPUID exits, the guest made 76"
"$PYTHON" "$PROM" wait "$prom" 'sum(hvtrace_exits_total{reason="CPUID"})' \
	"$cpuid" 60 || fail "Prometheus's CPUID exits are not hvctl stat's $cpuid"
kill -TERM "$PROM_PID"
wait "$PROM_PID"
PROM_PID=
rm -rf "$pdir"
pdir=
kill -TERM "$epid"
wait "$epid" || fail "the exporter exited $? on SIGTERM: $(cat /tmp/deb-exporter.out)"

echo "# hvtrace-watch.service, its StateDirectory, CAP_SYS_ADMIN alone"
install -d -m "$(unit_key hvtrace-watch.service StateDirectoryMode)" \
	"/var/lib/$(unit_key hvtrace-watch.service StateDirectory)"
unit_priv hvtrace-watch.service
# shellcheck disable=SC2046
setpriv "${PRIV[@]}" -- $(unit_key hvtrace-watch.service ExecStart) \
	>/tmp/deb-watch.out 2>&1 &
wpid=$!
wait_armed "$wpid" /tmp/deb-watch.out /usr/sbin/hvctl
guest --pio 40 --slow 1:30000 >/dev/null || exit 1
caps=/var/lib/hvtrace/captures
for _ in $(seq 100); do
	[ -n "$(find "$caps" -mindepth 1 -maxdepth 1 -name '2*' 2>/dev/null)" ] && break
	sleep 0.1
done
kill -TERM "$wpid"
wait "$wpid" || fail "the watch exited $? on SIGTERM: $(cat /tmp/deb-watch.out)"
n=$(find "$caps" -mindepth 1 -maxdepth 1 -name '2*' | wc -l)
expect_eq "captures of the slow exit under $caps (0700)" "yes 700" \
	"$([ "$n" -ge 1 ] && echo yes || echo "no: $n") $(stat -c %a "$caps")"

# ---- upgrade, the module loaded ------------------------------------------

if [ "$HVT_DEB_INSTALL" = upgrade ]; then
	install_debs "$NEXT" "$new"
	expect_eq "installed: $new; loaded still: $ver" "$new $ver" \
		"$(modinfo -F version hvtrace) $(cat /sys/module/hvtrace/version)"
	/usr/sbin/hvctl status >/dev/null || fail "hvctl status after the upgrade failed"
	expect_eq "the administrator's hvtrace.conf kept" "$conf_sum" \
		"$(sha256sum </etc/hvtrace/hvtrace.conf)"
	modprobe -r hvtrace && modprobe hvtrace || fail "reloading hvtrace failed"
	expect_eq "reloaded: $new" "$new" "$(cat /sys/module/hvtrace/version)"
fi

# ---- purge -----------------------------------------------------------------

modprobe -r hvtrace || fail "cannot unload hvtrace"
dpkg --purge hvtrace hvtrace-dkms >/tmp/deb-purge.out 2>&1 ||
	fail "purge failed: $(tail -n 30 /tmp/deb-purge.out)"
expect_eq "dkms status after purge" "" "$(dkms status hvtrace 2>/dev/null)"
left=$(ls -d /var/lib/dkms/hvtrace /usr/src/hvtrace-* /etc/hvtrace \
	/var/lib/hvtrace "$units"/hvtrace*.service /etc/systemd/system/*/hvtrace* \
	/usr/sbin/hvctl /usr/bin/hvmark 2>/dev/null
      find "/lib/modules/$rel/" -name 'hvtrace.ko*')
expect_eq "left behind after purge" "" "$left"
expect_eq "dpkg: either package but not-installed" "" \
	"$(dpkg-query -W -f '${Package} ${Status}\n' hvtrace hvtrace-dkms 2>/dev/null | grep -v ' not-installed$')"
