# kvm_amd unloaded and loaded again while hvtrace is loaded and recording:
# no exit reasons meanwhile (status says so), then exact counts again.
# Last in the suite: it stops the harness's idle VMs and starts new ones.
. "$(dirname "$0")/lib.sh"

reset_config
hv start
pkill -f "hvguest --hold"
for _ in $(seq 100); do
	pgrep -f "hvguest --hold" >/dev/null || break
	sleep 0.1
done
modprobe -r kvm_amd || fail "cannot unload kvm_amd: $(lsmod | grep kvm)"
expect_eq "exit reasons without kvm_amd" "unavailable (no kvm_amd/kvm_intel)" \
	"$("$HVCTL" -j status | py 'd["vendor"]')"
modprobe kvm_amd nested=1 || fail "cannot load kvm_amd again"
expect_eq "exit reasons with kvm_amd again" kvm_amd \
	"$("$HVCTL" -j status | py 'd["vendor"]')"
"$HVGUEST" --hold >/tmp/hold.out 2>&1 &
"$HVGUEST" --hold --halt 1:1000 >/tmp/hold-apic.out 2>&1 &
sleep 1
hv clear
line=$(guest --pio 300 --cpuid 200)
hv stop
io=$("$HVCTL" -j stat | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'IOIO')")
cpuid=$("$HVCTL" -j stat | py "sum(r['count'] for r in d['reasons'] if r['reason'] == 'CPUID')")
expect_eq "IOIO after the reload = KVM's io_exits" "$(field kvm_io_exits "$line")" "$io"
expect_eq "CPUID after the reload" "$(field cpuid "$line")" "$cpuid"
check_accounting
reset_config
