# The guest workload VMM does exactly what it is asked, by its own checks
# and KVM's statistics: the ground truth for every other test.
. "$(dirname "$0")/lib.sh"

r=$(guest --pio 500:0x80 --mmio 300 --cpuid 400 --rdmsr 200 --wrmsr 100 \
	--hlt 50 --slow 5:2000) || exit 1
echo "  $r"
expect_eq pio 500 "$(field pio "$r")"
expect_eq mmio 300 "$(field mmio "$r")"
expect_eq cpuid 400 "$(field cpuid "$r")"
expect_eq rdmsr 200 "$(field rdmsr "$r")"
expect_eq wrmsr 100 "$(field wrmsr "$r")"
expect_eq hlt 50 "$(field hlt "$r")"
expect_eq slow 5 "$(field slow "$r")"
expect_eq kvm_mmio_exits 300 "$(field kvm_mmio_exits "$r")"

r=$(guest --vcpus 2 --pio 100) || exit 1
echo "  $r"
expect_eq pio 200 "$(field pio "$r")"
expect_eq vcpus 2 "$(field vcpus "$r")"

# Bad arguments: a clear error and exit status 2.
"$HVGUEST" --pio abc >/dev/null 2>&1
expect_eq "exit status for --pio abc" 2 $?
"$HVGUEST" --vcpus 0 >/dev/null 2>&1
expect_eq "exit status for --vcpus 0" 2 $?
