# SPDX-License-Identifier: GPL-2.0
#
# make                 hvctl, hvmark (static, for guests), and hvtrace.ko
#                      for the running kernel if its headers are installed
#                      (not the test tools)
# make module KDIR=D   hvtrace.ko for the kernel whose build tree is D
# make guest           the test tools (tests/guest: hvguest, hvhog; tests/fuzz:
#                      nlfuzz; tests/pyfork: pyfork; tests/e2e/qemu-linux-guest:
#                      a Linux guest's initramfs with hvmark)
# make install         hvctl, hvmark, their man pages and hvctl's bash
#                      completion (PREFIX=/usr, SBINDIR, BINDIR, MANDIR,
#                      BASHCOMPDIR, DESTDIR)
# make check           every test (unit, KUnit, the VM suite on 6.1 and 6.12,
#                      part of it on the debug kernel and 6.12-rt, DKMS);
#                      installs the Debian packages it needs
# make check-matrix    the whole VM suite on the debug kernel and 6.12-rt,
#                      the nested Linux guest on 6.1, hvctl watch's soak
#                      (SOAK_MINUTES, 30) on 6.12 (about 2 hours)
# make demo            boot a VM with hvtrace loaded and run a workload
# make fuzz            nlfuzz's long run in a 6.12 VM: a million netlink
#                      messages (FUZZ_SEEDS, FUZZ_COUNT a run, FUZZ_SENDERS,
#                      FUZZ_KERNEL), its figures
# make check-style     checkpatch and sparse on the module
# make check-spec      docs/hvtrace.yaml and the uapi header agree (names,
#                      values, types, the header's attribute drawing)
# make dkms-install    register, build and install with DKMS
# make deb             the Debian packages hvtrace-dkms and hvtrace into
#                      build/deb/ (debian/, scripts/deb-build)
# make check-deb       them checked, then installed, upgraded and purged
#                      in the test VM (18 minutes; make check leaves out
#                      the upgrade)
# sudo make check-host the e2e suite on a real KVM host (never on a dev box)
#
# WERROR=1 makes warnings errors (make check sets it; a user's newer
# compiler must not break the build). CFLAGS, CPPFLAGS and LDFLAGS are the
# builder's and come on top of hvctl's own flags.

HVTRACE_VERSION := 0.1.0
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
BUILD := $(CURDIR)/build
# The module builds out of tree in build/<kernel release>/ (a tree of
# symlinks), so several kernels can be built side by side.
KREL = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MODDIR = $(BUILD)/$(KREL)

CC ?= gcc
CFLAGS ?= -O2 -g
# Warnings are errors where we choose the compiler (make check sets
# WERROR=1), not in a user's build with a newer one. Kept apart from
# CFLAGS so that `make CFLAGS=...` (a packager's flags) still builds.
HVCTL_CFLAGS := -std=gnu11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) \
	  -Iinclude/uapi -D_GNU_SOURCE \
	  -DHVTRACE_VERSION=\"$(HVTRACE_VERSION)\"
PREFIX ?= /usr
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MNL_CFLAGS := $(shell pkg-config --cflags libmnl 2>/dev/null)
MNL_LIBS := $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl)

# hvctl's layers, an archive each (user/layers.mk).
USER_DIR := user
USER_OUT := $(BUILD)/user
USER_CFLAGS = $(HVCTL_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(MNL_CFLAGS)
# A DKMS source tree holds the module only (dkms.conf): no user/.
ifneq ($(wildcard user/layers.mk),)
include user/layers.mk
include user/hvmark/hvmark.mk
endif

.PHONY: all hvctl hvmark module module-or-hint guest check demo check-style \
	check-spec dkms-install check-host clean install fuzz check-matrix deb \
	check-deb \
	user-libs

all: hvctl hvmark module-or-hint

hvctl: $(BUILD)/bin/hvctl

hvmark: $(BUILD)/bin/hvmark

user-libs: $(USER_LIBS)

$(BUILD)/bin/hvctl: $(USER_OUT)/hvctl/hvctl.o $(USER_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(MNL_LIBS) -lm

# The Makefile too: new flags rebuild main as they do the layers.
$(USER_OUT)/hvctl/hvctl.o: Makefile user/layers.mk
-include $(USER_OUT)/hvctl/hvctl.d

# Static: guests run it from an initramfs or a minimal image as it is
# (glibc's libc.a, from libc6-dev). Of libhvc.a only duration.o comes in.
$(BUILD)/bin/hvmark: $(HVMARK_MAIN_OBJ) $(HVMARK_LIB) $(USER_OUT)/libhvc.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -static -o $@ $^

# The programs the test VM runs: hvguest, hvhog, nlfuzz, pyfork, and the
# initramfs of a Linux guest that runs hvmark.
guest: hvmark
	$(MAKE) -C tests/guest
	$(MAKE) -C tests/fuzz
	$(MAKE) -C tests/pyfork
	$(MAKE) -C tests/e2e/qemu-linux-guest

module-or-hint:
	@if [ -f $(KDIR)/Makefile ]; then \
		$(MAKE) --no-print-directory module; \
	else \
		echo "hvtrace.ko not built: no kernel headers at $(KDIR)."; \
		echo "Install them (apt-get install linux-headers-$(KVER))" \
		     "or run: make module KDIR=/path/to/kernel/build"; \
	fi

module:
	@test -f $(KDIR)/Makefile || \
		{ echo "no kernel build tree at KDIR=$(KDIR)"; exit 1; }
	@mkdir -p $(MODDIR)
	@cp -rsf $(CURDIR)/Kbuild $(CURDIR)/kmod $(CURDIR)/include $(MODDIR)/
	@find $(MODDIR) -xtype l -delete
	$(MAKE) -C $(KDIR) M=$(MODDIR) HVTRACE_VERSION=$(HVTRACE_VERSION) \
		$(if $(W),W=$(W)) $(if $(C),C=$(C)) modules
	@echo "built $(MODDIR)/hvtrace.ko"

check:
	tests/check

# What make check leaves out to fit CI's time (tests/check-matrix).
check-matrix:
	tests/deps
	$(MAKE) all guest
	tests/ynl-prepare
	tests/check-matrix

# From nothing: the Debian packages come first (hvctl needs libmnl-dev).
demo:
	tests/deps
	$(MAKE) all
	tests/demo

FUZZ_KERNEL ?= 6.12
FUZZ_SEEDS ?= 1,2,3,4
FUZZ_COUNT ?= 42000
FUZZ_SENDERS ?= root,nobody,nocaps,netns,perfmon,userns
fuzz: hvctl guest
	tests/vm/run --kernel $(FUZZ_KERNEL) --timeout 14400 -- env \
		NLFUZZ_SEEDS=$(FUZZ_SEEDS) NLFUZZ_COUNT=$(FUZZ_COUNT) \
		NLFUZZ_SENDERS=$(FUZZ_SENDERS) tests/fuzz/soak

check-style:
	scripts/check-style $(KDIR)

check-spec:
	scripts/check-spec

dkms-install:
	scripts/dkms-install $(HVTRACE_VERSION)

deb:
	scripts/deb-build $(BUILD)/deb

# The packages checked, then installed, upgraded and purged in the test
# VM (tests/e2e/76-deb-install.t: 18 minutes; make check installs and
# purges, without the upgrade's second DKMS build).
check-deb: all guest
	tests/deps
	tests/deb/run
	tests/vm/run --kernel 6.12 --timeout 3000 -- env HVT_DEB_INSTALL=upgrade \
		tests/e2e/suite 76-deb-install

check-host:
	tests/check-host

install: hvctl hvmark
	install -D -m 0755 $(BUILD)/bin/hvctl $(DESTDIR)$(SBINDIR)/hvctl
	install -D -m 0644 docs/hvctl.8 $(DESTDIR)$(MANDIR)/man8/hvctl.8
	install -D -m 0644 docs/hvtrace.conf.5 $(DESTDIR)$(MANDIR)/man5/hvtrace.conf.5
	install -D -m 0755 $(BUILD)/bin/hvmark $(DESTDIR)$(BINDIR)/hvmark
	install -D -m 0644 docs/hvmark.1 $(DESTDIR)$(MANDIR)/man1/hvmark.1
	install -D -m 0644 scripts/hvctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/hvctl

# A DKMS or package source tree has no tests/.
clean:
	rm -rf $(BUILD)
	$(if $(wildcard tests/guest/Makefile),$(MAKE) -C tests/guest clean)
