# SPDX-License-Identifier: GPL-2.0
#
# hvctl's layers, one folder and one archive each. A layer includes its
# own headers and those of the layers below it, nothing else (the -I
# flags below), so a call upwards has no declaration and fails to build
# with WERROR=1; scripts/check-layers (make check) checks the archives'
# symbols too:
#
#   hvctl/   the commands: option parsing, usage, printing    libcli.a
#   report/  the report engine and its renderers              libreport.a
#   trace/   the trace on disk: layout, writer, reader        libtrace.a
#   lib/     the client library and the output vocabulary     libhvc.a
#
# hvctl/hvctl.c (main) is in no archive. Included by the top Makefile and
# by the test Makefiles, which set:
#   USER_DIR     this folder
#   USER_OUT     where the objects and archives go
#   USER_CFLAGS  the compiler's flags
# and get USER_LIBS (the archives, in link order) and USER_INCLUDES (every
# layer's -I, for tests).

# The archives' rules come first in the file: the includer's default
# goal (`all`, even when defined below the include) stays its default.
USER_SAVED_GOAL := $(.DEFAULT_GOAL)

USER_LAYERS := hvctl report trace lib
USER_ARCHIVE_hvctl := libcli.a
USER_ARCHIVE_report := libreport.a
USER_ARCHIVE_trace := libtrace.a
USER_ARCHIVE_lib := libhvc.a
USER_BELOW_hvctl := hvctl report trace lib
USER_BELOW_report := report trace lib
USER_BELOW_trace := trace lib
USER_BELOW_lib := lib

USER_MAIN := $(USER_DIR)/hvctl/hvctl.c
USER_LIBS := $(foreach l,$(USER_LAYERS),$(USER_OUT)/$(USER_ARCHIVE_$(l)))
USER_INCLUDES := $(foreach l,$(USER_LAYERS),-I$(USER_DIR)/$(l))

define user_layer
USER_OBJS_$(1) := $$(patsubst $(USER_DIR)/%.c,$(USER_OUT)/%.o, \
	$$(filter-out $(USER_MAIN),$$(wildcard $(USER_DIR)/$(1)/*.c)))
$(USER_OUT)/$(1)/%.o: $(USER_DIR)/$(1)/%.c
	@mkdir -p $$(@D)
	$$(CC) $$(USER_CFLAGS) -MMD -MP \
		$$(foreach l,$$(USER_BELOW_$(1)),-I$(USER_DIR)/$$(l)) -c -o $$@ $$<
# New flags rebuild the objects; a file added to or removed from the
# folder (its mtime) rebuilds the archive, so no stale member stays in it.
$$(USER_OBJS_$(1)): $(firstword $(MAKEFILE_LIST)) $(USER_DIR)/layers.mk
$(USER_OUT)/$(USER_ARCHIVE_$(1)): $$(USER_OBJS_$(1)) $(USER_DIR)/$(1)
	@rm -f $$@
	$$(AR) rcs $$@ $$(USER_OBJS_$(1))
-include $$(USER_OBJS_$(1):.o=.d)
endef
$(foreach l,$(USER_LAYERS),$(eval $(call user_layer,$(l))))

.DEFAULT_GOAL := $(USER_SAVED_GOAL)
