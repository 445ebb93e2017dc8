# SPDX-License-Identifier: GPL-2.0
#
# schedscan: one entry point for build, deps, check, vmcheck, bench, demo,
# install. Modelled on bcc's libbpf-tools Makefile: clang builds each
# tools/X/X.bpf.c into a BPF object, bpftool turns it into a skeleton
# header, and the frontend X.c links against lib/ and Debian's libbpf.

TOOLS      := sisscan idlebal numascan
WORKLOADS  := pingpong spinner memtouch wakeloop
BUILD      ?= build
OBJ        := $(BUILD)/obj
ARCH       ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
VMLINUX_H  := vmlinux/$(ARCH)/vmlinux.h
PREFIX     ?= /usr/local
DESTDIR    ?=
VERSION    := 0.1.0

CC         ?= gcc
CLANG      ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL    ?= bpftool

ifeq ($(V),1)
Q   :=
msg :=
else
Q   := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARNINGS   := -Wall -Wextra -Werror -Wmissing-prototypes -Wno-unused-parameter
CFLAGS     ?= -g -O2
CFLAGS     += -std=gnu11 $(WARNINGS) -Ilib -I$(OBJ) -DSCHEDSCAN_VERSION='"$(VERSION)"'
LDLIBS     := -lbpf -lelf -lz
STATIC_LDLIBS := -static -lbpf -lelf -lz -lzstd -lpthread
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) \
              -I$(dir $(VMLINUX_H)) -Ilib/bpf -Ilib
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all

LIB_SRCS   := $(wildcard lib/*.c)
BPF_HDRS   := $(wildcard lib/bpf/*.h)
LIB_HDRS   := $(wildcard lib/*.h) $(BPF_HDRS)
LIB_OBJS   := $(patsubst lib/%.c,$(OBJ)/lib/%.o,$(LIB_SRCS))
SAN_OBJS   := $(patsubst lib/%.c,$(OBJ)/san/%.o,$(LIB_SRCS))
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))
TOOL_BINS  := $(addprefix $(BUILD)/,$(TOOLS))
# kstat prints the kernel's own counters (lib/schedstat.c, lib/vmstat.c).
STATIC_BINS := $(addprefix $(BUILD)/static/,$(TOOLS)) \
               $(addprefix $(BUILD)/static/workloads/,$(WORKLOADS) kstat)
WORKLOAD_BINS := $(addprefix $(BUILD)/workloads/,$(WORKLOADS) kstat)

ifeq ($(STATIC),1)
DEFAULT_TARGETS := $(STATIC_BINS)
else
DEFAULT_TARGETS := $(TOOL_BINS) $(WORKLOAD_BINS)
endif

.PHONY: all static deps check unit live vmcheck demo bench install clean \
        vmlinux lint
.DELETE_ON_ERROR:
.SECONDARY:
.SECONDEXPANSION:

all: $(DEFAULT_TARGETS)

static: $(STATIC_BINS)

$(OBJ) $(OBJ)/lib $(OBJ)/san $(BUILD)/tests/unit $(BUILD)/workloads \
$(BUILD)/static $(BUILD)/static/workloads:
	@mkdir -p $@

# BPF object -> skeleton. Debug info is stripped from the embedded object
# (the kernel only needs BTF, which llvm-strip -g keeps).
$(OBJ)/%.bpf.o: tools/$$*/$$*.bpf.c tools/$$*/$$*.h $(BPF_HDRS) $(VMLINUX_H) | $(OBJ)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itools/$* -c tools/$*/$*.bpf.c -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OBJ)/%.skel.h: $(OBJ)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(addprefix $(OBJ)/,$(addsuffix .o,$(TOOLS))): $(OBJ)/%.o: tools/$$*/$$*.c $(OBJ)/%.skel.h tools/$$*/$$*.h $(LIB_HDRS) | $(OBJ)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itools/$* -c $< -o $@

$(OBJ)/lib/%.o: lib/%.c $(LIB_HDRS) | $(OBJ)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/san/%.o: lib/%.c $(LIB_HDRS) | $(OBJ)/san
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -c $< -o $@

$(TOOL_BINS): $(BUILD)/%: $(OBJ)/%.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(addprefix $(BUILD)/static/,$(TOOLS)): $(BUILD)/static/%: $(OBJ)/%.o $(LIB_OBJS) | $(BUILD)/static
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(STATIC_LDLIBS) -o $@

$(BUILD)/workloads/kstat: tests/workloads/kstat.c $(LIB_OBJS) | $(BUILD)/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/static/workloads/kstat: tests/workloads/kstat.c $(LIB_OBJS) | $(BUILD)/static/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(STATIC_LDLIBS) -o $@

$(BUILD)/workloads/%: tests/workloads/%.c | $(BUILD)/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $< -lpthread -o $@

$(BUILD)/static/workloads/%: tests/workloads/%.c | $(BUILD)/static/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -lpthread -o $@

# Unit tests link every lib/ object, built with ASan+UBSan.
$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/unit.h $(SAN_OBJS) | $(BUILD)/tests/unit
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -Itests/unit $< $(SAN_OBJS) $(LDLIBS) -o $@

# The frontends with sanitizers, for the live option tests.
$(addprefix $(BUILD)/san/,$(TOOLS)): $(BUILD)/san/%: $(OBJ)/%.c.san.o $(SAN_OBJS)
	@mkdir -p $(dir $@)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) $^ $(LDLIBS) -o $@

$(addprefix $(OBJ)/,$(addsuffix .c.san.o,$(TOOLS))): $(OBJ)/%.c.san.o: tools/$$*/$$*.c $(OBJ)/%.skel.h tools/$$*/$$*.h $(LIB_HDRS) | $(OBJ)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -Itools/$* -c $< -o $@

SAN_TOOLS := $(addprefix $(BUILD)/san/,$(TOOLS))

deps:
	@scripts/deps.sh

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_H).tmp
	mv $(VMLINUX_H).tmp $(VMLINUX_H)

unit: $(UNIT_BINS)
	@tests/run-suites.sh unit

live: $(TOOL_BINS) $(WORKLOAD_BINS) $(SAN_TOOLS)
	@tests/run-suites.sh live

vmcheck: $(STATIC_BINS)
	@tests/run-suites.sh vm

# check = deps + build + every suite; the last line is "N passed, N failed".
check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS) $(SAN_TOOLS) $(STATIC_BINS)
	@tests/run-suites.sh unit live vm

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all
	@scripts/bench.sh

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
	  --std=c11 --suppress=unknownMacro -Ilib -Itests/unit \
	  lib $(filter-out %.bpf.c,$(wildcard tools/*/*.c)) tests/unit tests/workloads

install: $(TOOL_BINS)
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/sbin/
ifneq ($(wildcard docs/man/*.8),)
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 $(wildcard docs/man/*.8) $(DESTDIR)$(PREFIX)/share/man/man8/
endif

clean:
	rm -rf $(OBJ) $(BUILD)/tests $(BUILD)/san $(BUILD)/static $(BUILD)/workloads $(TOOL_BINS)
