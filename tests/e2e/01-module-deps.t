# hvtrace links KVM's exported tracepoints: modprobe pulls kvm in, and
# lsmod shows hvtrace among kvm's users. The family answers.
. "$(dirname "$0")/lib.sh"

lsmod | grep -q '^hvtrace ' || fail "hvtrace is not loaded"
users=$(lsmod | awk '$1 == "kvm" { print $4 }')
case ",$users," in
*,hvtrace,*) echo "  kvm used by: $users" ;;
*) fail "kvm's users are '$users', hvtrace not among them" ;;
esac
"$HVCTL" status || fail "hvctl status failed"

# kvm cannot go while hvtrace holds it.
modprobe -r kvm 2>/dev/null && fail "kvm unloaded under hvtrace"
lsmod | grep -q '^kvm ' || fail "kvm is gone"
