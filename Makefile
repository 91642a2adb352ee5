# memgate: every entry point. `make` builds; `make verify` runs the main
# job; `make check` runs the tests; `make bench` measures.

# ARCH picks the architecture to build and test: the host's by default,
# i386 (gcc -m32, runs natively on x86-64), aarch64, riscv64 or armhf
# (clang cross builds, run under qemu-user). The host's build lives in build/, others in
# build/ARCH/. RUN is what runs a program built for ARCH.
HOST_ARCH := $(patsubst i%86,i386,$(shell uname -m))
ARCH_ORIGIN := $(origin ARCH)
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst i%86,i386,$(ARCH))
CC ?= cc
RUN :=
ifeq ($(ARCH),$(HOST_ARCH))
BUILD := build
else
BUILD := build/$(ARCH)
ifeq ($(ARCH),i386)
override CC := $(CC) -m32
else ifeq ($(ARCH),aarch64)
# gcc-aarch64-linux-gnu conflicts with the i386 multilib packages; clang
# cross-compiles with the arm64-cross libc and binutils instead.
override CC := clang --target=aarch64-linux-gnu
else ifeq ($(ARCH),riscv64)
# clang 14's ld.lld cannot link Debian's riscv64 libc (R_RISCV_ALIGN needs
# linker relaxation it lacks): binutils-riscv64-linux-gnu's ld links. The
# C code is rv64gc; only assembly may use the vector extension (RVV_ASFLAGS),
# and the routines that declare a bit-manipulation extension, that one.
# (The link flags are unused when compiling, which clang would warn of.)
override CC := clang --target=riscv64-linux-gnu -fuse-ld=bfd --ld-path=/usr/bin/riscv64-linux-gnu-ld \
	-Wno-unused-command-line-argument
else ifeq ($(ARCH),armhf)
# 32-bit Arm, hard float (ARMv7-A, VFPv3-D16: Debian's armhf baseline),
# linked by lld against the armhf-cross libc. The C code is ARM state;
# NEON only in the assembly of routines that declare it.
override CC := clang --target=arm-linux-gnueabihf -march=armv7-a -mfpu=vfpv3-d16 -marm -fuse-ld=lld \
	-Wno-unused-command-line-argument
endif
# Natively where the kernel can, else under qemu-user: scripts/arch-probe
# says which (and why not, when it cannot).
RUN = $(shell scripts/arch-probe $(ARCH))
endif
OBJ := $(BUILD)/obj
# Every architecture `make verify` and `make check` cover, the host's first;
# ARCH=... on the command line narrows them to one.
ifeq ($(filter command line environment,$(ARCH_ORIGIN)),)
ARCHES := $(HOST_ARCH) $(filter-out $(HOST_ARCH),x86_64 i386 aarch64 riscv64 armhf)
else
ARCHES := $(ARCH)
endif

# -fno-builtin (and gcc's loop-pattern switch) keep byte loops as loops:
# the references must not become calls to what they check.
NO_LIBCALLS := -fno-builtin
ifeq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n1)),)
NO_LIBCALLS += -fno-tree-loop-distribute-patterns
endif

WARN := -Wall -Wextra -Werror
# Large-file interfaces: a 32-bit stat() fails on 64-bit inode numbers.
BASE_CFLAGS := -std=c11 -O2 -g -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN)
# The harness, by layer, each using only those before it: engine/ (a case,
# its sandbox, the judge), arch/ (the engine's per-ISA parts: trampolines,
# CPU features, fault decoding; arch/ISA/ is picked by ARCH), fuzz/ (the
# input encoding and coverage cells), report/ (findings and records), run/
# (sweeps, verify, tallies, isolation), cli/ (the memgate commands, and the
# option parsing every program shares). Every .c in a layer's directory is
# built: a new file needs no Makefile line.
LAYERS := engine fuzz report run cli
ifneq ($(filter x86_64 i386,$(ARCH)),)
ISA := x86
else ifeq ($(ARCH),aarch64)
ISA := aarch64
else ifeq ($(ARCH),riscv64)
ISA := riscv64
else ifeq ($(ARCH),armhf)
ISA := armhf
else
$(error memgate: unknown ARCH '$(ARCH)' (valid: x86_64, i386, aarch64, riscv64, armhf))
endif
ARCH_INCLUDES := -Iharness/arch -Iharness/arch/$(ISA)
INCLUDES := $(addprefix -Iharness/,$(LAYERS)) $(ARCH_INCLUDES) -Ireference -Itests/bad -Itargets
HARNESS_CFLAGS := $(BASE_CFLAGS) -pthread $(INCLUDES)
PLAIN_CFLAGS := $(BASE_CFLAGS) $(NO_LIBCALLS)
# Two memgate commands may build in one tree at once (a gate beside make
# verify, two gates started together): each recipe writes its file under a
# name of its own (PART) and renames it onto its target (KEEP), so that no
# compiler or linker ever reads a file another one is still writing. The
# dependency file too (KEEP_DEP): its part is not named *.d, so that
# DEP_FILES never includes one half written.
PART = $@.part$$$$
KEEP = mv -f $@.part$$$$ $@
DEPFLAGS = -MMD -MP -MT $@ -MF $(@:.o=.d).part$$$$
KEEP_DEP = mv -f $(@:.o=.d).part$$$$ $(@:.o=.d) && $(KEEP)

# Per-arch harness parts, by directory: every .c of harness/arch/ISA/ (CPU
# detection, fault decoding, the ABI rules) and the ABI trampoline of ARCH
# (an ISA may have several ABIs: x86 has x86_64 and i386).
# What an ISA does not have, it takes from harness/arch/none/: no
# single-step (the interrupt situation n/a, with the reason its trampoline
# header gives), no exception table, no vector length to choose.
ARCH_NONE_x86 := vl
ARCH_NONE_aarch64 := step
ARCH_NONE_riscv64 := step extable vl
ARCH_NONE_armhf := step extable vl
ARCH_HARNESS := $(wildcard harness/arch/$(ISA)/*.c) harness/arch/$(ISA)/trampoline_$(ARCH).S \
	$(patsubst %,harness/arch/none/%.c,$(ARCH_NONE_$(ISA)))
EXTABLE_SRC := harness/arch/$(if $(filter extable,$(ARCH_NONE_$(ISA))),none,$(ISA))/extable.c

# memgate speed's parts (harness/cli/speed/) are commands' code too.
SPEED_SRC := $(wildcard harness/cli/speed/*.c)
HARNESS_SRC := $(wildcard $(patsubst %,harness/%/*.c,$(LAYERS))) $(SPEED_SRC) $(ARCH_HARNESS)
REF_SRC := $(wildcard reference/*.c)
IMPL_SRC := $(wildcard impls/generic/*.c impls/$(ARCH)/*.c impls/$(ARCH)/*.S)
# tests/bad/x86/: broken variants written once for x86-64 and i386.
BAD_SRC := $(wildcard tests/bad/generic/*.c tests/bad/$(ARCH)/*.c tests/bad/$(ARCH)/*.S \
	$(if $(filter x86,$(ISA)),tests/bad/x86/*.S))

objs = $(patsubst %,$(OBJ)/%.o,$(basename $(1)))
HARNESS_OBJ := $(call objs,$(HARNESS_SRC))
# The memgate commands; the rest (ENGINE_SRC) is every program's.
CLI_SRC := harness/cli/main.c $(wildcard harness/cli/cmd_*.c) $(SPEED_SRC)
ENGINE_SRC := $(filter-out $(CLI_SRC),$(HARNESS_SRC))
ENGINE_OBJ := $(call objs,$(ENGINE_SRC))
REF_OBJ := $(call objs,$(REF_SRC))
IMPL_OBJ := $(call objs,$(IMPL_SRC))
BAD_OBJ := $(call objs,$(BAD_SRC))

MEMGATE := $(BUILD)/memgate
TEST_REFERENCE := $(BUILD)/test-reference
# The same test with a broken ref_memmove: proves the test can fail.
TEST_REFERENCE_BROKEN := $(BUILD)/test-reference-broken

# Replays saved fuzz inputs with no fuzzer linked in (targets/replay.c).
REPLAY := $(BUILD)/replay
# Seeded random cases through the fuzz decoder, for arches with no fuzzer.
RANDOM := $(BUILD)/random

VERIFY_FLAGS ?=

.PHONY: all verify verify-arch check check-all check-groups bench deps clean format fuzz-build fuzz bench-fuzz valgrind gate-shared gate-build print-cc \
	oss-fuzz-build zoo install deb
TEST_DECODE := $(BUILD)/test-decode
# The records' JSON writer (harness/engine/json.c).
TEST_JSON := $(BUILD)/test-json
# The standalone reproducer's fixed part (targets/standalone.c) with a
# sample case: built with -Werror, run by the tests.
TEST_STANDALONE := $(BUILD)/test-standalone
# The same for a user copy's program (targets/standalone_user.c), put
# together from both files' sections as emit_c.c puts it together.
TEST_STANDALONE_USER := $(BUILD)/test-standalone-user
# riscv64 and armhf under qemu-user: the plugin that reports misaligned loads and
# stores (targets/qemu_misaligned.c), a host object qemu loads, built with
# the host's compiler whatever ARCH is.
HOST_CC ?= cc
ifneq ($(filter riscv64 armhf,$(ARCH)),)
ifneq ($(ARCH),$(HOST_ARCH))
QEMU_MISALIGNED := $(BUILD)/qemu-misaligned.so
endif
endif
all: $(MEMGATE) $(TEST_REFERENCE) $(TEST_REFERENCE_BROKEN) $(REPLAY) $(TEST_DECODE) $(RANDOM) \
	$(TEST_JSON) $(TEST_STANDALONE) $(TEST_STANDALONE_USER) $(QEMU_MISALIGNED)

$(BUILD)/qemu-misaligned.so: targets/qemu_misaligned.c
	@mkdir -p $(dir $@)
	$(HOST_CC) -std=c11 -O2 -g -D_GNU_SOURCE $(WARN) -shared -fPIC -pthread -o $(PART) $< && $(KEEP)

# --emit-c writes targets/standalone.c's sections: emit_c.c includes them as
# strings, which scripts/c-sections cuts out of it.
GEN := $(BUILD)/gen
$(GEN)/standalone_text.h: targets/standalone.c scripts/c-sections
	@mkdir -p $(dir $@)
	scripts/c-sections $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(GEN)/standalone_user_text.h: targets/standalone_user.c scripts/c-sections
	@mkdir -p $(dir $@)
	scripts/c-sections $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(GEN)/standalone_threads_text.h: targets/standalone_threads.c scripts/c-sections
	@mkdir -p $(dir $@)
	scripts/c-sections $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(GEN)/standalone_huge_text.h: targets/standalone_huge.c scripts/c-sections
	@mkdir -p $(dir $@)
	scripts/c-sections $< >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(OBJ)/targets/emit_c.o: $(GEN)/standalone_text.h $(GEN)/standalone_user_text.h \
	$(GEN)/standalone_threads_text.h $(GEN)/standalone_huge_text.h
# The emitted program's build line: this arch's compiler and its flags for
# C variants (its run line takes the replay lines' runner, case.c's).
$(OBJ)/targets/emit_c.o: HARNESS_CFLAGS += -I$(GEN) -DMG_EMIT_CC='"$(CC)"' \
	-DMG_EMIT_FLAGS='"$(NO_LIBCALLS)"'

$(TEST_STANDALONE): targets/standalone.c tests/standalone_case.h
	$(CC) $(filter-out -D_GNU_SOURCE,$(PLAIN_CFLAGS)) -Itests -o $(PART) $< && $(KEEP)

$(GEN)/standalone_user_sample.c: targets/standalone.c targets/standalone_user.c scripts/c-sections
	@mkdir -p $(dir $@)
	{ scripts/c-sections raw=includes targets/standalone.c && \
	  echo '#include "standalone_user_case.h"' && \
	  scripts/c-sections raw='setup signals report compare' targets/standalone.c && \
	  scripts/c-sections raw=user targets/standalone_user.c; } >$@.tmp.$$$$ && mv $@.tmp.$$$$ $@
$(TEST_STANDALONE_USER): $(GEN)/standalone_user_sample.c tests/standalone_user_case.h \
		$(EXTABLE_SRC) harness/engine/extable.h
	$(CC) $(filter-out -D_GNU_SOURCE,$(PLAIN_CFLAGS)) -Itests -Iharness/engine $(ARCH_INCLUDES) \
		-o $(PART) $< $(EXTABLE_SRC) && $(KEEP)

$(RANDOM): $(OBJ)/targets/random.o $(ENGINE_OBJ) $(REF_OBJ) $(IMPL_OBJ) $(BAD_OBJ)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)

# Replay lines printed by a foreign build start with what runs it, and its
# findings' repro commands name the arch.
ifneq ($(ARCH),$(HOST_ARCH))
$(OBJ)/harness/engine/case.o: HARNESS_CFLAGS += -DMG_RUNNER='"$(RUN)"' -DMG_PROGRAM='"$(MEMGATE)"'
# The runner is part of those lines: $(BUILD)/runner holds it and changes
# only when the probe picks another (a faster qemu installed since,
# MEMGATE_I386_RUNNER), so that the objects printing it are built again.
RUNNER_FILE := $(BUILD)/runner
$(shell r=$$(scripts/arch-probe $(ARCH)) && mkdir -p $(BUILD) && \
	{ [ "$$(cat $(RUNNER_FILE) 2>/dev/null)" = "$$r" ] || echo "$$r" >$(RUNNER_FILE); })
$(OBJ)/harness/engine/case.o: $(RUNNER_FILE)
$(RUNNER_FILE):
	@mkdir -p $(@D) && touch $@
$(OBJ)/harness/report/finding.o: HARNESS_CFLAGS += -DMG_FOREIGN_ARCH='"$(ARCH)"'
endif

$(TEST_DECODE): $(OBJ)/tests/test_decode.o $(ENGINE_OBJ) $(REF_OBJ) $(IMPL_OBJ) $(BAD_OBJ)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)

$(TEST_JSON): $(OBJ)/tests/test_json.o $(OBJ)/harness/engine/json.o
	$(CC) -o $(PART) $^ && $(KEEP)

$(REPLAY): $(call objs,targets/replay.c targets/emit_c.c targets/emit_convention.c) $(ENGINE_OBJ) $(REF_OBJ) $(IMPL_OBJ) \
		$(BAD_OBJ)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)

# memgate run --emit-c writes the program of a huge-length case (emit_c.c).
EMIT_OBJ := $(call objs,targets/emit_c.c targets/emit_convention.c)
$(MEMGATE): $(HARNESS_OBJ) $(EMIT_OBJ) $(REF_OBJ) $(IMPL_OBJ) $(BAD_OBJ)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)

$(TEST_REFERENCE): $(OBJ)/tests/test_reference.o $(REF_OBJ)
	$(CC) -o $(PART) $^ && $(KEEP)

$(TEST_REFERENCE_BROKEN): $(OBJ)/tests/test_reference.o $(OBJ)/tests/ref_memcpy_as_memmove.o \
		$(filter-out %/ref_memmove.o,$(REF_OBJ))
	$(CC) -o $(PART) $^ && $(KEEP)

# The broken oracle: the forward byte loop of ref_memcpy, standing in for
# ref_memmove, which is wrong when dst overlaps the source from above.
$(OBJ)/tests/ref_memcpy_as_memmove.o: reference/ref_memcpy.c
	@mkdir -p $(dir $@)
	$(CC) $(PLAIN_CFLAGS) -Ireference -Dref_memcpy=ref_memmove -c -o $(PART) $< && $(KEEP)

$(OBJ)/harness/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c -o $(PART) $< && $(KEEP_DEP)

$(OBJ)/targets/%.o: targets/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c -o $(PART) $< && $(KEEP_DEP)

$(OBJ)/tests/test_%.o: tests/test_%.c
	@mkdir -p $(dir $@)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c -o $(PART) $< && $(KEEP_DEP)

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PLAIN_CFLAGS) -Ireference $(DEPFLAGS) -c -o $(PART) $< && $(KEEP_DEP)

# Assembly includes the ABI record's layout (harness/arch/abi.h). On
# riscv64 it may use the vector extension: a routine that does declares
# it (MG_FEAT_V) and runs only where the CPU has V; the trampoline
# touches vector state only there. The C code stays rv64gc, so that the
# compiler never vectorises the harness. A routine that declares a
# bit-manipulation extension is assembled with it, and only that routine:
# with Zbb or Zbs the assembler builds the constants of `li` with their
# instructions, which an RV64GC CPU lacks (the harness's own `li` died of
# SIGILL under the gate's RV64GC model).
ifeq ($(ARCH),riscv64)
RVV_ASFLAGS := -march=rv64gcv
$(OBJ)/impls/riscv64/memcpy_zb.o: RVV_ASFLAGS := -march=rv64gcv_zba_zbb
endif
$(OBJ)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(RVV_ASFLAGS) $(ARCH_INCLUDES) $(DEPFLAGS) -c -o $(PART) $< && $(KEEP_DEP)

# Fuzz targets, one per operation family, in three builds of the same
# sources (build/fuzz/FLAVOR/fuzz_FAMILY):
#   libfuzzer       clang -fsanitize=fuzzer
#   libfuzzer-asan  the same, with ASan and UBSan on the harness's C code
#   afl             afl-clang-fast with AFL++'s libFuzzer driver
# Variants and references get coverage but no sanitizer: the sandbox, not
# ASan, is what watches their accesses. fuzz_empty is a target that does
# nothing, built the same way, for `make bench-fuzz` to compare against.
FUZZ_FAMILIES := memcpy memmove memset page usercopy
# The user copies have variants on x86-64, i386 and aarch64 (docs/usercopy.md).
SEED_DIRS := $(addprefix corpus/,$(filter-out $(if $(filter x86_64 i386 aarch64,$(ARCH)),,usercopy),$(FUZZ_FAMILIES)))
FUZZ_FLAVORS := libfuzzer libfuzzer-asan afl
FUZZ_CC_libfuzzer := clang
FUZZ_CC_libfuzzer-asan := clang
FUZZ_CC_afl := afl-clang-fast
FUZZ_COV_libfuzzer := -fsanitize=fuzzer-no-link
FUZZ_COV_libfuzzer-asan := -fsanitize=fuzzer-no-link
# The harness's own compares tell the fuzzer nothing about variants and cost
# time on every input; the decoder's do help it, so they stay traced.
FUZZ_NOCMP_libfuzzer := -fno-sanitize-coverage=trace-cmp
FUZZ_NOCMP_libfuzzer-asan := -fno-sanitize-coverage=trace-cmp
# The engine's own branches (sandbox, judge, reports) tell the fuzzer
# nothing that the coverage cells (harness/fuzz/cells.c) and the variant's
# own edges do not, and libFuzzer pays for every counter an input touches:
# its feature bookkeeping was most of fuzz_memcpy's time. So in the
# libFuzzer builds only the decoder, the targets, the references and the
# variants are instrumented (FUZZ_HARNESS_COV: the engine's coverage flags).
FUZZ_HARNESS_COV_oss = $(FUZZ_COV_oss) $(FUZZ_NOCMP_oss)
FUZZ_SAN_libfuzzer-asan := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LINK_libfuzzer := -fsanitize=fuzzer
FUZZ_LINK_libfuzzer-asan := -fsanitize=fuzzer,address,undefined
FUZZ_LINK_afl := /usr/lib/afl/libAFLDriver.a -rdynamic -ldl
FUZZ_TARGETS := $(foreach f,$(FUZZ_FLAVORS),$(foreach t,$(FUZZ_FAMILIES) empty,$(BUILD)/fuzz/$(f)/fuzz_$(t)))

# The ClusterFuzzLite / OSS-Fuzz build (.clusterfuzzlite/build.sh runs
# `make oss-fuzz-build`) is one more flavor, with the compilers and flags
# OSS-Fuzz's compile step gives: CC, CXX, CFLAGS, CXXFLAGS (sanitizer and
# coverage flags included, applied to every C file as OSS-Fuzz expects),
# LIB_FUZZING_ENGINE and FUZZING_ENGINE; no -Werror (its compilers vary).
# OSS_DIR is where it builds (one directory per set of flags).
OSS_DIR ?= $(BUILD)/fuzz/oss
FUZZING_ENGINE ?= libfuzzer
FUZZ_DIR_oss = $(OSS_DIR)
FUZZ_CC_oss = $(CC)
FUZZ_LD_oss = $(CXX) $(CXXFLAGS)
FUZZ_BASE_oss = -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -pthread
FUZZ_COV_oss = $(CFLAGS)
FUZZ_NOCMP_oss = $(if $(filter libfuzzer,$(FUZZING_ENGINE)),-fno-sanitize-coverage=trace-cmp)
FUZZ_LINK_oss = $(LIB_FUZZING_ENGINE)

# fuzz_flavor NAME: the rules of one flavor, from its FUZZ_*_NAME settings
# (the directory, base flags and linker default to the Makefile's own).
define fuzz_flavor
$(1)_DIR := $(or $(FUZZ_DIR_$(1)),$(BUILD)/fuzz/$(1))
$(1)_BASE := $(or $(FUZZ_BASE_$(1)),$(BASE_CFLAGS))
$(1)_LD := $(or $(FUZZ_LD_$(1)),$(FUZZ_CC_$(1)))
$(1)_OBJ := $$($(1)_DIR)/obj
$(1)_COMMON := $$(patsubst %,$$($(1)_OBJ)/%.o,$$(basename $(ENGINE_SRC) $(REF_SRC) $(IMPL_SRC) \
	$(BAD_SRC) targets/fuzz_entry.c))

$$($(1)_OBJ)/harness/%.o: harness/%.c
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC_$(1)) $$($(1)_BASE) -pthread $(INCLUDES) $(FUZZ_SAN_$(1)) \
		$$(if $$(filter %/decode.o,$$@),$$(FUZZ_COV_$(1)),$$(FUZZ_HARNESS_COV_$(1))) \
		$$(DEPFLAGS) -c -o $$(PART) $$< && $$(KEEP_DEP)

$$($(1)_OBJ)/targets/%.o: targets/%.c
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC_$(1)) $$($(1)_BASE) $(INCLUDES) $(FUZZ_COV_$(1)) $(FUZZ_SAN_$(1)) \
		$$(DEPFLAGS) -c -o $$(PART) $$< && $$(KEEP_DEP)

$$($(1)_OBJ)/%.o: %.c
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC_$(1)) $$($(1)_BASE) -fno-builtin -Ireference $(FUZZ_COV_$(1)) $$(DEPFLAGS) \
		-c -o $$(PART) $$< && $$(KEEP_DEP)

$$($(1)_OBJ)/%.o: %.S
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC_$(1)) $(ARCH_INCLUDES) $$(DEPFLAGS) -c -o $$(PART) $$< && $$(KEEP_DEP)

$$($(1)_DIR)/fuzz_empty: $$($(1)_OBJ)/targets/fuzz_empty.o
	$$($(1)_LD) -o $$(PART) $$^ $(FUZZ_LINK_$(1)) && $$(KEEP)

$$($(1)_DIR)/fuzz_%: $$($(1)_OBJ)/targets/fuzz_%.o $$($(1)_COMMON)
	$$($(1)_LD) -pthread -o $$(PART) $$^ $(FUZZ_LINK_$(1)) && $$(KEEP)
endef
$(foreach f,$(FUZZ_FLAVORS) oss,$(eval $(call fuzz_flavor,$(f))))

# The OSS-Fuzz flavor's targets (no deps: OSS-Fuzz's image has its tools).
oss-fuzz-build:
	@$(MAKE) --no-print-directory $(addprefix $(OSS_DIR)/fuzz_,$(FUZZ_FAMILIES))

# scripts/gate: the harness with one submitted routine added, in $(GATE)/
# (a directory of its own per gate run, build/gate/NAME-XXXXXX, so that
# concurrent runs never share a file). $(GATE)/submitted.def names it (see
# harness/engine/table.c); $(GATE)/sources lists its files (the gate's copies,
# under names without spaces), compiled as impls/ is, without the stack
# protector (a call into libc the routine did not write), and merged and
# renamed by scripts/gate-compile, which adds the tree flags of $(GATE)/cflags
# (-I, -D, --cflags). $(GATE)/contract-cflags adds what the contract
# asks (x86-64 kernel code: -mgeneral-regs-only, as the kernel builds it).
ifneq ($(GATE),)
GATE_SOURCES := $(shell cat $(GATE)/sources 2>/dev/null)
GATE_CONTRACT_CFLAGS := $(shell cat $(GATE)/contract-cflags 2>/dev/null)
GATE_SYMBOL := $(shell cat $(GATE)/symbol 2>/dev/null)
GATE_FAMILY := $(shell cat $(GATE)/family 2>/dev/null)
GATE_DEF := -DMG_SUBMITTED_DEF='"$(abspath $(GATE))/submitted.def"'
GATE_FLAVORS := plain libfuzzer $(if $(shell command -v afl-clang-fast),afl)
GATE_CC_plain := $(CC)
GATE_CFLAGS_plain := $(PLAIN_CFLAGS) -fno-stack-protector -Ireference $(ARCH_INCLUDES)
GATE_TABLE_FLAGS_plain := $(HARNESS_CFLAGS)
GATE_FUZZ ?= yes
# The random-case driver: the fuzz check where no coverage-guided fuzzer runs.
GATE_RANDOM ?= yes
GATE_PROGRAMS := $(GATE)/memgate $(GATE)/replay $(if $(filter yes,$(GATE_RANDOM)),$(GATE)/random) \
	$(if $(filter yes,$(GATE_FUZZ)), \
	$(foreach f,$(filter-out plain,$(GATE_FLAVORS)),$(foreach t,$(GATE_FAMILY),$(GATE)/fuzz/$(f)/fuzz_$(t))))

define gate_flavor
GATE_CC_$(1) ?= $(FUZZ_CC_$(1))
GATE_CFLAGS_$(1) ?= $(BASE_CFLAGS) -fno-builtin -fno-stack-protector -Ireference $(ARCH_INCLUDES) $(FUZZ_COV_$(1))
GATE_TABLE_FLAGS_$(1) ?= $(BASE_CFLAGS) -pthread $(INCLUDES) $(FUZZ_COV_$(1))
$(GATE)/$(1).o: $(GATE_SOURCES) $(GATE)/sources $(wildcard $(GATE)/cflags) $(wildcard $(GATE)/contract-cflags)
	scripts/gate-compile $$@ $(GATE_SYMBOL) "$$(GATE_CC_$(1))" "$$(GATE_CFLAGS_$(1)) $(GATE_CONTRACT_CFLAGS)" \
		$(GATE_SOURCES)
$(GATE)/table-$(1).o: harness/engine/table.c $(GATE)/submitted.def
	$$(GATE_CC_$(1)) $$(GATE_TABLE_FLAGS_$(1)) $(GATE_DEF) -c -o $$(PART) $$< && $$(KEEP)
endef
$(foreach f,$(GATE_FLAVORS),$(eval $(call gate_flavor,$(f))))

GATE_PLAIN := $(filter-out %/table.o,$(ENGINE_OBJ)) $(REF_OBJ) $(IMPL_OBJ) $(BAD_OBJ) \
	$(GATE)/table-plain.o $(GATE)/plain.o
$(GATE)/memgate: $(call objs,$(CLI_SRC)) $(EMIT_OBJ) $(GATE_PLAIN)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)
$(GATE)/replay: $(call objs,targets/replay.c targets/emit_c.c targets/emit_convention.c) $(GATE_PLAIN)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)
# Seeded random cases on the submitted variant: the gate's fuzz check on an
# arch where no coverage-guided fuzzer runs.
$(GATE)/random: $(OBJ)/targets/random.o $(GATE_PLAIN)
	$(CC) -pthread -o $(PART) $^ && $(KEEP)
# One fuzz target per family of the submission's entry points (GATE_FAMILY
# lists them: several entries may need memcpy's and memmove's).
define gate_fuzz_target
$(GATE)/fuzz/%/fuzz_$(1): $(BUILD)/fuzz/%/obj/targets/fuzz_$(1).o $(GATE)/table-%.o $(GATE)/%.o
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC_$$*) -pthread -o $$(PART) $$(filter-out %/harness/engine/table.o,$$^) $$(FUZZ_LINK_$$*) && $$(KEEP)
$(GATE)/fuzz/libfuzzer/fuzz_$(1): $(libfuzzer_COMMON)
$(GATE)/fuzz/afl/fuzz_$(1): $(afl_COMMON)
endef
$(foreach t,$(GATE_FAMILY),$(eval $(call gate_fuzz_target,$(t))))
endif

# What every gate build shares (the tree's objects and the fuzz targets'
# common parts): scripts/gate builds it under a lock (build/gate/.lock).
gate-shared:
	@$(MAKE) --no-print-directory all $(if $(filter yes,$(GATE_FUZZ)),$(foreach f,libfuzzer afl, \
		$(if $(filter $(f),$(GATE_FLAVORS)),$($(f)_COMMON) \
		$(foreach t,$(GATE_FAMILY),$(BUILD)/fuzz/$(f)/obj/targets/fuzz_$(t).o))))
# This run's own programs, in $(GATE)/ only (after gate-shared).
gate-build:
	@$(MAKE) --no-print-directory $(GATE_PROGRAMS)
# The compiler the gate's plain flavor uses, for scripts/gate's checks.
print-cc:
	@echo '$(CC)'

# Keep every object: the pattern chains would otherwise delete them.
.SECONDARY:

fuzz-build: deps
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS)

# Fuzzing for a time budget, on every core: scripts/fuzz (see its header),
# e.g. make fuzz FUZZ_FLAGS="--seconds=600 --engine=afl".
FUZZ_FLAGS ?=
ifeq ($(ARCH),$(HOST_ARCH))
fuzz: deps
	@$(MAKE) --no-print-directory -s $(FUZZ_TARGETS) $(REPLAY)
	MEMGATE_FUZZ_NO_BUILD=1 scripts/fuzz $(FUZZ_FLAGS)
else
# No fuzzer runs on a foreign arch here (libFuzzer's runtime is x86-64
# only): the seed corpus on every correct variant, each regression of a
# variant built for this arch, then seeded random cases through the same
# decoder for a time budget (targets/random.c; RANDOM_FLAGS, e.g.
# RANDOM_FLAGS="--seconds=600 --variant=memcpy_ldp").
RANDOM_FLAGS ?= --seconds=60
ARCH_VARIANTS := $(notdir $(basename $(IMPL_SRC) $(BAD_SRC)))
ARCH_REGRESSIONS := $(strip $(foreach d,$(wildcard corpus/regressions/*/*), \
	$(if $(filter $(notdir $(d)),$(ARCH_VARIANTS)),$(d))))
fuzz: deps
	@$(MAKE) --no-print-directory -s all
	$(RUN) $(REPLAY) --each-variant $(SEED_DIRS)
	$(RUN) $(REPLAY) --expect=fail $(ARCH_REGRESSIONS)
	$(RUN) $(RANDOM) $(RANDOM_FLAGS)
endif

# The corpus under valgrind's memcheck, with the plain build: the harness
# (harness/engine/memcheck.c) makes the bytes around each buffer no-access during
# the call, so accesses that stop short of a guard page are caught too.
# First a canary only this mode catches, to prove it is live; then every
# seed on every correct variant, in one process (a child per case costs
# 0.15 s under valgrind), where any memcheck error fails; then each
# regression on its known-bad variant, a child per case (some abort), which
# must fail; memcheck's reports of those go to build/valgrind/. valgrind
# does not emulate MXCSR's FZ/DAZ bits or the x87 precision control, so the
# variants that only change those are left out there. At its default
# optimisation valgrind drops a load whose value is never used, unchecked;
# --vex-iropt-level=0 keeps it (and is no slower on these short runs).
VALGRIND := valgrind -q --partial-loads-ok=no --vex-iropt-level=0 --error-limit=no --leak-check=no
# The user copies are left out: valgrind's signal frames do not hold the
# faulting instruction's state, which their emulation needs (docs/usercopy.md).
VALGRIND_SEEDS := $(filter-out corpus/usercopy,$(SEED_DIRS))
VALGRIND_BLIND := bad_memcpy_changes_mxcsr bad_memcpy_changes_x87_cw
VALGRIND_REGRESSIONS = $(or $(filter-out $(addprefix %/,$(VALGRIND_BLIND)) corpus/regressions/usercopy/%, \
	$(wildcard corpus/regressions/*/*)),corpus/regressions)

valgrind: deps
	@command -v valgrind >/dev/null || { echo "make valgrind: needs valgrind" \
		"(apt-get install valgrind)" >&2; exit 1; }
	@$(MAKE) --no-print-directory all
	@rm -rf $(BUILD)/valgrind && mkdir -p $(BUILD)/valgrind
	@$(VALGRIND) --log-file=$(BUILD)/valgrind/canary-%p.log $(MEMGATE) run --overread=strict \
		--variant=bad_memcpy_overread_src --len=17 --src-align=0 | grep -qF '(memcheck)' || \
		{ echo "make valgrind: the canary over-read was not caught; was" \
		"harness/engine/memcheck.c built without <valgrind/memcheck.h>?" >&2; exit 1; }
	$(VALGRIND) --error-exitcode=99 $(REPLAY) --in-process --each-variant $(VALGRIND_SEEDS)
	@echo "$(VALGRIND) $(REPLAY) --expect=fail corpus/regressions (but $(VALGRIND_BLIND))"
	@MEMGATE_OVERREAD=strict $(VALGRIND) --log-file=$(BUILD)/valgrind/regressions-%p.log \
		$(REPLAY) --expect=fail \
		$(VALGRIND_REGRESSIONS)

# The README's commands must work on a fresh Debian 12 machine: as root,
# scripts/install-deps installs whatever is missing first.
deps:
	@scripts/install-deps

# Every arch in $(ARCHES), each where its programs run: natively, or under
# qemu-user (scripts/arch-probe). One this machine lacks the tools for is
# a SKIP with the reason.
verify: deps
	@scripts/each-arch verify-arch $(ARCHES)

# Under emulation a 4 GiB copy takes 20 s: there the 4 GiB+ check runs only
# its guard-oracle cases (memgate verify --huge=oracle).
# aarch64 under qemu-user runs once per CPU model (qemu's -cpu), which
# differ in DC ZVA block size (max 512 bytes, a64fx 256, cortex-a57 64)
# and cache-line size: qemu's default first, with the usual profile, then
# the others with the quick sweep, their findings in findings/verify/cpu-MODEL/
# (MODEL with its commas as - and its = as _).
# The others sweep only the operations whose aarch64 routines read those
# parameters (CPU_MODEL_OPS: DC ZVA in memset and clear_page, the cache
# line in copy_page), which keeps all three arches' quick sweeps CI-sized;
# scripts/gate runs a submission of any operation under every model.
# Each finding names its model, and its replay line has the -cpu.
# riscv64 runs the same way under qemu's rv64 with V at VLEN 128 (the
# usual profile), without V (the vector routines are n/a there), and with
# V at VLEN 256, 512 and 1024: VLEN is fixed per process, so each is a
# model of its own. The others sweep only the routines that read V and
# VLEN (CPU_MODEL_SELECT: the vector ones), with the smoke profile up to
# 64 KiB (CPU_MODEL_PROFILE, CPU_MODEL_MAX_LEN): a vector strip is at most
# 1 KiB (VLEN 1024, LMUL 8), so these lengths run every split of a length
# into strips that VLEN makes, 64 strips deep; the longer lengths meet the
# thresholds a routine chooses by length, which the first model sweeps.
# qemu runs vector instructions slowly, and the long lengths are the cost,
# not the case count: memmove_rvv took about two minutes a model with
# quick's cases to 8 MiB and with smoke's (a tenth of them), 68 s with
# smoke's to 1 MiB, 13 s to 64 KiB.
ifeq ($(ARCH)-$(filter aarch64,$(HOST_ARCH)),aarch64-)
CPU_MODELS ?= max cortex-a57 a64fx
CPU_MODEL_OPS ?= memset,clear_page,copy_page
else ifeq ($(ARCH)-$(filter riscv64,$(HOST_ARCH)),riscv64-)
RVV_MODEL = rv64,v=true,vlen=$(1),vext_spec=v1.0
CPU_MODELS ?= $(call RVV_MODEL,128) rv64 $(call RVV_MODEL,256) $(call RVV_MODEL,512) \
	$(call RVV_MODEL,1024)
CPU_MODEL_SELECT ?= --variant=memcpy_rvv,memmove_rvv,memset_rvv
CPU_MODEL_PROFILE ?= smoke
CPU_MODEL_MAX_LEN ?= 65536
# Then the misaligned watch (docs/arches.md, "Misaligned accesses"): the
# same table under the first model again, its smoke sweep to 64 KiB, under
# a qemu that loads plugins (Debian's, slower for vector code: 26 s here),
# with qemu's plugin watching each variant: kernel code must make no
# misaligned load or store (scripts/watch-misaligned).
WATCH_RUN = $(shell scripts/arch-probe --plugins riscv64)
WATCH_FLAGS ?= --profile=smoke --max-len=65536 --huge=off
else ifeq ($(ARCH)-$(filter armhf,$(HOST_ARCH)),armhf-)
# armhf runs under a Cortex-A15 (NEON, VFPv4 with d0-d31, the divide
# instructions: qemu's cortex-a7 and max read the same to user code),
# then with the quick sweep under a Cortex-A9 (NEON, VFPv3, no divide, no
# VFPv4) and one with VFPv3-D16 and no NEON (Debian's armhf baseline: its
# vfp-d32 option is bookworm-backports' qemu's, scripts/arch-probe --cpu
# finds it). A variant that uses what its model lacks without requiring
# it dies there of SIGILL; one that requires neon is n/a under the last.
CPU_MODELS ?= cortex-a15 cortex-a9 cortex-a9,neon=off,vfp-d32=off
CPU_MODEL_SELECT ?=
endif
CPU_MODEL_SELECT ?= --op=$(CPU_MODEL_OPS)
CPU_MODEL_PROFILE ?= quick
# Our defaults for verify's flags, less those VERIFY_FLAGS gives (memgate
# refuses a flag given twice).
verify_defaults = $(foreach f,$(1),$(if $(findstring $(firstword $(subst =, ,$(f)))=,$(VERIFY_FLAGS)),,$(f)))
verify-arch:
	@$(MAKE) --no-print-directory all
ifeq ($(strip $(CPU_MODELS)),)
	$(strip $(RUN) $(MEMGATE) verify $(if $(RUN),$(call verify_defaults,--huge=oracle)) $(VERIFY_FLAGS))
else
	@status=0; for model in $(CPU_MODELS); do \
		dir=cpu-$$(echo "$$model" | tr ',=' '-_'); \
		more="$(call verify_defaults,--profile=$(CPU_MODEL_PROFILE) $(if $(CPU_MODEL_MAX_LEN),--max-len=$(CPU_MODEL_MAX_LEN)) $(CPU_MODEL_SELECT) --findings=findings/verify/$$dir)"; \
		[ "$$model" = $(firstword $(CPU_MODELS)) ] && more=; \
		echo "== $(ARCH) -cpu $$model"; \
		if ! run=$$(scripts/arch-probe --cpu "$$model" $(ARCH)); then \
			echo "could not judge under -cpu $$model: $$run"; [ $$status = 1 ] || status=2; continue; \
		fi; \
		MEMGATE_CPU_MODEL=$$model MEMGATE_RUNNER="$$run" $$run -cpu $$model $(MEMGATE) verify $(call verify_defaults,--huge=oracle) $$more $(VERIFY_FLAGS); \
		rc=$$?; [ $$rc = 0 ] || [ $$status = 1 ] || status=$$rc; \
	done; \
	$(if $(WATCH_RUN),model=$(firstword $(CPU_MODELS)); \
		echo "== $(ARCH) -cpu $$model: misaligned accesses (qemu's plugin)"; \
		MEMGATE_CPU_MODEL=$$model scripts/watch-misaligned --findings=findings/verify/misaligned -- \
			$(WATCH_RUN) -cpu $$model $(MEMGATE) verify $(call verify_defaults,$(WATCH_FLAGS)) $(VERIFY_FLAGS); \
		rc=$$?; [ $$rc = 0 ] || [ $$status = 1 ] || status=$$rc;) \
	exit $$status
endif

# tests/run tests the host's build, then each other arch in $(ARCHES)
# (tests/run.d/arch_*.sh). GROUP=NAME[,NAME...] runs only those groups
# (tests/run.d/NAME.sh); `make check-groups` (or GROUP=list) names them.
GROUP ?=
comma := ,
# `make check` is the fast tier, for every change (minutes, and no test
# that depends on the machine's load); `make check-all` every test (CI).
check: deps
	@$(MAKE) --no-print-directory all
	MEMGATE_ARCHES="$(ARCHES)" tests/run --tier=fast $(subst $(comma), ,$(GROUP))

check-all: deps
	@$(MAKE) --no-print-directory all
	MEMGATE_ARCHES="$(ARCHES)" tests/run --tier=all $(subst $(comma), ,$(GROUP))

check-groups:
	@tests/run --list

# The host's bench ends with the quick sweep's time and the gate's wall
# time for a correct x86-64 memmove (scripts/bench-gate; BENCH_GATE=0
# leaves the gate out).
ifeq ($(ARCH),$(HOST_ARCH))
bench: deps
	@$(MAKE) --no-print-directory all
	$(MEMGATE) bench
	scripts/bench-gate
else
# cases/s on ARCH (under qemu-user) next to the host's.
bench: deps
	scripts/bench-arch $(ARCH) $(BENCH_SECONDS)
endif

# exec/s of the fuzz targets and seconds to find each planted bug
# (BENCH_FUZZ_FLAGS: see scripts/bench-fuzz).
bench-fuzz: deps
	scripts/bench-fuzz $(BENCH_FUZZ_FLAGS)

# Every copy, move and clear routine of this machine's glibc, musl and
# linux-source packages through scripts/gate, as a matrix in build/zoo/
# (zoo.txt, zoo.json, zoo.html). ZOO_FLAGS: see scripts/zoo --help.
zoo: deps
	@scripts/install-deps --zoo
	@$(MAKE) --no-print-directory all
	scripts/zoo $(ZOO_FLAGS)

# One `memgate` command with its subcommands, what it builds submissions
# with, the docs and man pages (scripts/install-tree, docs/install.md):
# make install PREFIX=/usr/local DESTDIR=stage. `make deb` builds the
# Debian package (debian/) in build/deb/.
PREFIX ?= /usr/local
DESTDIR ?=
install: all
	@scripts/install-tree "$(DESTDIR)" "$(PREFIX)"

deb:
	@scripts/build-deb build/deb

format:
	clang-format -i harness/*/*.[ch] harness/arch/*/*.[ch] harness/cli/speed/*.[ch] reference/*.[ch] impls/*/*.c targets/*.[ch] tests/*.c tests/bad/*/*.c

clean:
	rm -rf $(BUILD)

# The compilers' dependency files. Each has an empty rule: without one, make
# searches its implicit rules for a way to remake every included file, 0.2 s
# of CPU on each start (scripts/gate runs make 7 times per submission).
DEP_FILES := $(shell find $(OBJ) $(BUILD)/fuzz -name '*.d' 2>/dev/null)
$(DEP_FILES): ;
-include $(DEP_FILES)
