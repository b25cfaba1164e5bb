# SPDX-License-Identifier: GPL-2.0
#
# hvmark, the guests' mark tool: a program of its own beside hvctl, on
# the same lowest layer (user/layers.mk), statically linked (a guest's
# initramfs has no libc):
#
#   hvmark/   main (hvmark.o) and the CPU's part (cpu.h)    hvmark
#             options, the mark's line, trace_marker        libhvmark.a
#       |
#   lib/      duration_parse()                              libhvc.a
#
# Included by the top Makefile and by tests/unit/Makefile after
# user/layers.mk, with its USER_DIR, USER_OUT and USER_CFLAGS; gives
# HVMARK_LIB (the archive), HVMARK_INCLUDES (its -I flags) and
# HVMARK_MAIN_OBJ (main's object, for the program's link).

HVMARK_SAVED_GOAL := $(.DEFAULT_GOAL)

HVMARK_DIR := $(USER_DIR)/hvmark
HVMARK_OUT := $(USER_OUT)/hvmark
HVMARK_LIB := $(USER_OUT)/libhvmark.a
HVMARK_INCLUDES := -I$(HVMARK_DIR) -I$(USER_DIR)/lib
HVMARK_MAIN_OBJ := $(HVMARK_OUT)/hvmark.o
HVMARK_OBJS := $(patsubst $(HVMARK_DIR)/%.c,$(HVMARK_OUT)/%.o, \
	$(filter-out $(HVMARK_DIR)/hvmark.c,$(wildcard $(HVMARK_DIR)/*.c)))

$(HVMARK_OUT)/%.o: $(HVMARK_DIR)/%.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -MMD -MP $(HVMARK_INCLUDES) -c -o $@ $<
$(HVMARK_OBJS) $(HVMARK_MAIN_OBJ): $(firstword $(MAKEFILE_LIST)) \
	$(HVMARK_DIR)/hvmark.mk
$(HVMARK_LIB): $(HVMARK_OBJS) $(HVMARK_DIR)
	@rm -f $@
	$(AR) rcs $@ $(HVMARK_OBJS)
-include $(HVMARK_OBJS:.o=.d) $(HVMARK_MAIN_OBJ:.o=.d)

.DEFAULT_GOAL := $(HVMARK_SAVED_GOAL)
