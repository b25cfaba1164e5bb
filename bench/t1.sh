N=20000
measure() {
	tests/guest/hvguest --cpu 1 --cpuid "$1" | {
	local l t0= t1=
	while IFS= read -r l; do
		case $l in
		HVGUEST-START*) t0=${EPOCHREALTIME/./} ;;
		"HVGUEST "*) t1=${EPOCHREALTIME/./} ;;
		esac
	done
	echo "n=$1 $(( (t1 - t0) * 1000 ))"
	}
}
for n in 0 0 0 0 20000 20000 20000 20000 0 20000; do measure $n; done
echo ftrace
echo 1 > /sys/kernel/tracing/events/kvm/kvm_exit/enable
echo 1 > /sys/kernel/tracing/events/kvm/kvm_entry/enable
for n in 0 20000 20000 20000; do measure $n; done
echo 0 > /sys/kernel/tracing/events/kvm/kvm_exit/enable
echo 0 > /sys/kernel/tracing/events/kvm/kvm_entry/enable
