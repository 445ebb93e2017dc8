# SPDX-License-Identifier: GPL-2.0
#
# schedscan: one entry point for build, deps, check, vmcheck, bench, demo,
# install. Modelled on bcc's libbpf-tools Makefile: clang builds each
# tools/X/X.bpf.c into a BPF object, bpftool turns it into a skeleton
# header, and the frontend X.c links against lib/ and Debian's libbpf.

TOOLS      := sisscan idlebal numascan
WORKLOADS  := pingpong spinner memtouch wakeloop numaremote ownvmas
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
LDLIBS     := -lbpf -lelf -lz -lm
STATIC_LDLIBS := -static -lbpf -lelf -lz -lzstd -lpthread -lm
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) \
              -I$(dir $(VMLINUX_H)) -Ilib/bpf -Ilib
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer \
              -fno-sanitize-recover=all
# Test builds (sanitizer tools, unit tests, build/test/, build/static-test/) honour
# SCHEDSCAN_MUTATION (lib/mutation.h); release builds do not.
TEST_BUILD := -DSCHEDSCAN_TEST_BUILD

# lib/ is linked as an archive, so a binary gets only the objects it uses.
# lib/bpf/: *.bpf.h are BPF-only; plain *.h are shared with user space.
LIB_SRCS   := $(wildcard lib/*.c)
BPF_HDRS   := $(wildcard lib/bpf/*.h)
LIB_HDRS   := $(wildcard lib/*.h) $(BPF_HDRS)
LIB_OBJS   := $(patsubst lib/%.c,$(OBJ)/lib/%.o,$(LIB_SRCS))
SAN_OBJS   := $(patsubst lib/%.c,$(OBJ)/san/%.o,$(LIB_SRCS))
LIB_A      := $(OBJ)/libschedscan.a
SAN_LIB_A  := $(OBJ)/libschedscan-san.a
# A tool is tools/X/*.c (X.c has main()) plus one BPF object, X.bpf.c,
# which may include any header of its directory.
tool_srcs   = $(filter-out %.bpf.c,$(wildcard tools/$(1)/*.c))
tool_objs   = $(patsubst tools/$(1)/%.c,$(OBJ)/$(1)/%.o,$(call tool_srcs,$(1)))
tool_san    = $(patsubst tools/$(1)/%.c,$(OBJ)/$(1)/%.san.o,$(call tool_srcs,$(1)))
tool_hdrs   = $(wildcard tools/$(1)/*.h)
TOOL_INCS  := $(addprefix -Itools/,$(TOOLS))
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))
# Unit tests of BPF code: tests/unit/<name>.bpf.c, loaded by test_<name>.
UNIT_BPF   := $(patsubst tests/unit/%.bpf.c,%,$(wildcard tests/unit/*.bpf.c))
TOOL_BINS  := $(addprefix $(BUILD)/,$(TOOLS))
# kstat prints the kernel's own counters (lib/schedstat.c, lib/vmstat.c).
# check: the check runner (tests/check), for the host and the guests.
STATIC_BINS := $(addprefix $(BUILD)/static/,$(TOOLS) check) \
               $(addprefix $(BUILD)/static/workloads/,$(WORKLOADS) kstat)
WORKLOAD_BINS := $(addprefix $(BUILD)/workloads/,$(WORKLOADS) kstat)
BENCH_BINS := $(BUILD)/bench/floor

ifeq ($(STATIC),1)
DEFAULT_TARGETS := $(STATIC_BINS)
else
DEFAULT_TARGETS := $(TOOL_BINS) $(WORKLOAD_BINS)
endif

.PHONY: all static deps check unit live robustness fuzz vmcheck mutation demo bench install clean kernels-doc \
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
$(OBJ)/%.bpf.o: tools/$$*/$$*.bpf.c $$(call tool_hdrs,$$*) $(BPF_HDRS) $(VMLINUX_H) | $(OBJ)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itools/$* -c tools/$*/$*.bpf.c -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OBJ)/%.skel.h: $(OBJ)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@

$(OBJ)/tests/%.bpf.o: tests/unit/%.bpf.c $(BPF_HDRS) $(VMLINUX_H)
	@mkdir -p $(dir $@)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

# Every object of tool X sees its skeleton and its headers.
define tool_rules
$(OBJ)/$(1)/%.o: tools/$(1)/%.c $(OBJ)/$(1).skel.h $(call tool_hdrs,$(1)) $(LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call msg,CC,$$@)
	$$(Q)$$(CC) $$(CFLAGS) -Itools/$(1) -c $$< -o $$@

$(OBJ)/$(1)/%.san.o: tools/$(1)/%.c $(OBJ)/$(1).skel.h $(call tool_hdrs,$(1)) $(LIB_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call msg,CC,$$@)
	$$(Q)$$(CC) $$(CFLAGS) -O1 $$(SAN_FLAGS) -Itools/$(1) -c $$< -o $$@

$(BUILD)/$(1): $(call tool_objs,$(1)) $(LIB_A)
	$$(call msg,LINK,$$@)
	$$(Q)$$(CC) $$(CFLAGS) $$^ $$(LDLIBS) -lpthread -o $$@

$(BUILD)/static/$(1): $(call tool_objs,$(1)) $(LIB_A) | $(BUILD)/static
	$$(call msg,LINK,$$@)
	$$(Q)$$(CC) $$(CFLAGS) $$^ $$(STATIC_LDLIBS) -o $$@

# The host's mutation selftest: the release build with the switch.
$(BUILD)/test/$(1): $(call tool_objs,$(1)) $(OBJ)/test/mutation.o $(LIB_A)
	@mkdir -p $$(dir $$@)
	$$(call msg,LINK,$$@)
	$$(Q)$$(CC) $$(CFLAGS) $$^ $$(LDLIBS) -lpthread -o $$@

$(BUILD)/static-test/$(1): $(call tool_objs,$(1)) $(OBJ)/test/mutation.o $(LIB_A)
	@mkdir -p $$(dir $$@)
	$$(call msg,LINK,$$@)
	$$(Q)$$(CC) $$(CFLAGS) $$^ $$(STATIC_LDLIBS) -o $$@

# The frontends with sanitizers, for the live option tests.
$(BUILD)/san/$(1): $(call tool_san,$(1)) $(SAN_LIB_A)
	@mkdir -p $$(dir $$@)
	$$(call msg,LINK,$$@)
	$$(Q)$$(CC) $$(CFLAGS) -O1 $$(SAN_FLAGS) $$^ $$(LDLIBS) -lpthread -o $$@
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rules,$(t))))

$(OBJ)/lib/%.o: lib/%.c $(LIB_HDRS) | $(OBJ)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/san/%.o: lib/%.c $(LIB_HDRS) | $(OBJ)/san
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) $(TEST_BUILD) -c $< -o $@

# The static tools of the guest's mutation selftest: the release objects
# and lib/ with only the mutation switch built in.
$(OBJ)/test/mutation.o: lib/mutation.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TEST_BUILD) -c $< -o $@

$(LIB_A): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SAN_LIB_A): $(SAN_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/workloads/kstat: tests/workloads/kstat.c $(LIB_A) | $(BUILD)/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/static/workloads/kstat: tests/workloads/kstat.c $(LIB_A) | $(BUILD)/static/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(STATIC_LDLIBS) -o $@

$(BUILD)/workloads/%: tests/workloads/%.c tests/workloads/workload.h | $(BUILD)/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $< -lpthread -o $@

$(BUILD)/static/workloads/%: tests/workloads/%.c tests/workloads/workload.h | $(BUILD)/static/workloads
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -lpthread -o $@

# Unit tests link the lib/ archive built with ASan+UBSan (and, for a
# test of BPF code, its skeleton).
$(BUILD)/tests/unit/%: tests/unit/%.c tests/unit/unit.h $(LIB_HDRS) $(wildcard tools/*/*.h) $(SAN_LIB_A) | $(BUILD)/tests/unit
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -Itests/unit -I$(OBJ)/tests $(TOOL_INCS) $< $(SAN_LIB_A) $(LDLIBS) -lpthread -o $@

$(foreach b,$(UNIT_BPF),$(eval $(BUILD)/tests/unit/test_$(b): $(OBJ)/tests/$(b).skel.h))

# The check runner: on the host with ASan+UBSan, static in the guests.
CHECK_SRCS := $(wildcard tests/check/*.c)
CHECK_DEPS := $(CHECK_SRCS) $(wildcard tests/check/*.h) $(LIB_HDRS)
CHECK_BIN  := $(BUILD)/tests/check/check
$(CHECK_BIN): $(CHECK_DEPS) $(SAN_LIB_A)
	@mkdir -p $(dir $@)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -O1 $(SAN_FLAGS) -Itests/check $(CHECK_SRCS) $(SAN_LIB_A) -lm -o $@

$(BUILD)/static/check: $(CHECK_DEPS) $(LIB_A) | $(BUILD)/static
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/check $(CHECK_SRCS) $(LIB_A) -static -lm -o $@

# libFuzzer harnesses (tests/fuzz/fuzz_*.c) over lib/ built by clang with
# ASan and UBSan; make check runs each briefly, make fuzz for long.
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS  := $(addprefix $(BUILD)/fuzz/fuzz_,$(FUZZ_NAMES))
FUZZ_SAN   := -g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_OBJS  := $(patsubst lib/%.c,$(OBJ)/fuzz/%.o,$(LIB_SRCS))
FUZZ_LIB_A := $(OBJ)/libschedscan-fuzz.a

$(OBJ)/fuzz/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) -std=gnu11 $(WARNINGS) -Ilib -I$(OBJ) -DSCHEDSCAN_VERSION='"$(VERSION)"' \
		$(FUZZ_SAN) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(FUZZ_LIB_A): $(FUZZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB_HDRS) $(FUZZ_LIB_A)
	@mkdir -p $(dir $@)
	$(call msg,LINK,$@)
	$(Q)$(CLANG) -std=gnu11 $(WARNINGS) -Ilib -Itests/fuzz $(FUZZ_SAN) \
		-fsanitize=fuzzer,address,undefined $< $(FUZZ_LIB_A) $(LDLIBS) -lpthread -lm -o $@

SAN_TOOLS := $(addprefix $(BUILD)/san/,$(TOOLS))
STATIC_TEST_BINS := $(addprefix $(BUILD)/static-test/,$(TOOLS))
TEST_BINS := $(addprefix $(BUILD)/test/,$(TOOLS))

deps:
	@scripts/deps.sh

vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_H).tmp
	mv $(VMLINUX_H).tmp $(VMLINUX_H)

unit: $(UNIT_BINS)
	@tests/run-suites.sh unit

live: $(TOOL_BINS) $(WORKLOAD_BINS) $(SAN_TOOLS) $(BENCH_BINS) $(STATIC_BINS) $(CHECK_BIN)
	@tests/run-suites.sh live

robustness: $(TOOL_BINS) $(WORKLOAD_BINS) $(FUZZ_BINS) $(CHECK_BIN)
	@tests/run-suites.sh robustness

# Long fuzzing (FUZZ_SECONDS per harness, default 300); new coverage is
# merged into the committed corpus, crashes kept as regression inputs.
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@tests/fuzz/run.sh $${FUZZ_SECONDS:-300} --merge

vmcheck: $(STATIC_BINS) $(STATIC_TEST_BINS)
	@tests/run-suites.sh vm

# docs/kernels.md: what each tool measures per kernel and tier, rendered from
# the last full make vmcheck's guest runs (never written by hand).
kernels-doc:
	$(Q)python3 tests/vm/kernels_doc.py $(BUILD)/vm/out > docs/kernels.md.tmp
	$(Q)mv docs/kernels.md.tmp docs/kernels.md
	@echo "docs/kernels.md rendered from $(BUILD)/vm/out"

# Proves the suites fail when a tool miscounts (tests/selftest-mutations.sh).
mutation: $(TOOL_BINS) $(WORKLOAD_BINS) $(CHECK_BIN) $(TEST_BINS) $(STATIC_BINS) $(STATIC_TEST_BINS)
	@tests/run-suites.sh mutation

# check = deps + build + every suite; the last line is
# "N passed, N failed, N skipped".
check: deps
	@$(MAKE) --no-print-directory all $(UNIT_BINS) $(SAN_TOOLS) $(STATIC_BINS) $(CHECK_BIN) \
		$(TEST_BINS) $(STATIC_TEST_BINS) $(FUZZ_BINS) $(BENCH_BINS)
	@tests/run-suites.sh unit live robustness vm mutation

# make bench's floor: empty programs on a tool's hooks (bench/floor.c).
$(OBJ)/bench/floor.bpf.o: bench/floor.bpf.c $(VMLINUX_H)
	@mkdir -p $(dir $@)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(BUILD)/bench/floor: bench/floor.c $(OBJ)/bench/floor.skel.h
	@mkdir -p $(dir $@)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -I$(OBJ)/bench $< $(LDLIBS) -o $@

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BINS) $(STATIC_BINS)
	@python3 bench/bench.py

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
	  --std=c11 --suppress=unknownMacro -Ilib -Itests/unit \
	  lib $(filter-out %.bpf.c,$(wildcard tools/*/*.c)) tests/unit tests/workloads tests/check \
	  bench/floor.c

install: $(TOOL_BINS)
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/sbin/
ifneq ($(wildcard docs/man/*.8),)
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0644 $(wildcard docs/man/*.8) $(DESTDIR)$(PREFIX)/share/man/man8/
endif
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	for t in $(TOOLS); do \
		install -m 0644 completion/schedscan $(DESTDIR)$(PREFIX)/share/bash-completion/completions/$$t; \
	done

clean:
	rm -rf $(OBJ) $(BUILD)/tests $(BUILD)/san $(BUILD)/test $(BUILD)/static $(BUILD)/static-test $(BUILD)/workloads $(TOOL_BINS)
