# memgate: every entry point. `make` builds; `make verify` runs the main
# job; `make check` runs the tests; `make bench` measures.

ARCH ?= $(shell uname -m)
CC ?= cc
BUILD := build
OBJ := $(BUILD)/obj

# -fno-builtin (and gcc's loop-pattern switch) keep byte loops as loops:
# the references must not become calls to what they check.
NO_LIBCALLS := -fno-builtin
ifeq ($(findstring clang,$(shell $(CC) --version 2>/dev/null | head -n1)),)
NO_LIBCALLS += -fno-tree-loop-distribute-patterns
endif

WARN := -Wall -Wextra -Werror
BASE_CFLAGS := -std=c11 -O2 -g -D_GNU_SOURCE $(WARN)
INCLUDES := -Iharness -Ireference -Itests/bad
HARNESS_CFLAGS := $(BASE_CFLAGS) -pthread $(INCLUDES)
PLAIN_CFLAGS := $(BASE_CFLAGS) $(NO_LIBCALLS)
DEPFLAGS = -MMD -MP

# Per-arch harness parts: CPU detection, fault decoding, the ABI trampoline.
ifneq ($(filter x86_64 i386 i686,$(ARCH)),)
ARCH_HARNESS := harness/cpu_x86.c harness/fault_x86.c harness/abi_x86.c harness/abi_$(ARCH).S
endif

HARNESS_SRC := $(filter-out harness/cpu_%.c harness/fault_%.c harness/abi_%.c,$(wildcard harness/*.c)) \
	$(ARCH_HARNESS)
REF_SRC := $(wildcard reference/*.c)
IMPL_SRC := $(wildcard impls/generic/*.c impls/$(ARCH)/*.c impls/$(ARCH)/*.S)
BAD_SRC := $(wildcard tests/bad/generic/*.c tests/bad/$(ARCH)/*.c tests/bad/$(ARCH)/*.S)

objs = $(patsubst %,$(OBJ)/%.o,$(basename $(1)))
HARNESS_OBJ := $(call objs,$(HARNESS_SRC))
REF_OBJ := $(call objs,$(REF_SRC))
IMPL_OBJ := $(call objs,$(IMPL_SRC))
BAD_OBJ := $(call objs,$(BAD_SRC))

MEMGATE := $(BUILD)/memgate
TEST_REFERENCE := $(BUILD)/test-reference
# The same test with a broken ref_memmove: proves the test can fail.
TEST_REFERENCE_BROKEN := $(BUILD)/test-reference-broken

VERIFY_FLAGS ?=

.PHONY: all verify check bench deps clean format
all: $(MEMGATE) $(TEST_REFERENCE) $(TEST_REFERENCE_BROKEN)

$(MEMGATE): $(HARNESS_OBJ) $(REF_OBJ) $(IMPL_OBJ) $(BAD_OBJ)
	$(CC) -pthread -o $@ $^

$(TEST_REFERENCE): $(OBJ)/tests/test_reference.o $(REF_OBJ)
	$(CC) -o $@ $^

$(TEST_REFERENCE_BROKEN): $(OBJ)/tests/test_reference.o $(OBJ)/tests/ref_memcpy_as_memmove.o \
		$(filter-out %/ref_memmove.o,$(REF_OBJ))
	$(CC) -o $@ $^

# The broken oracle: the forward byte loop of ref_memcpy, standing in for
# ref_memmove, which is wrong when dst overlaps the source from above.
$(OBJ)/tests/ref_memcpy_as_memmove.o: reference/ref_memcpy.c
	@mkdir -p $(dir $@)
	$(CC) $(PLAIN_CFLAGS) -Ireference -Dref_memcpy=ref_memmove -c -o $@ $<

$(OBJ)/harness/%.o: harness/%.c
	@mkdir -p $(dir $@)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(OBJ)/tests/test_reference.o: tests/test_reference.c
	@mkdir -p $(dir $@)
	$(CC) $(HARNESS_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PLAIN_CFLAGS) -Ireference $(DEPFLAGS) -c -o $@ $<

$(OBJ)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(DEPFLAGS) -c -o $@ $<

# The README's commands must work on a fresh Debian 12 machine: as root,
# scripts/install-deps installs whatever is missing first.
deps:
	@scripts/install-deps

verify: deps
	@$(MAKE) --no-print-directory all
	$(MEMGATE) verify $(VERIFY_FLAGS)

check: deps
	@$(MAKE) --no-print-directory all
	tests/run

bench: deps
	@$(MAKE) --no-print-directory all
	$(MEMGATE) bench

format:
	clang-format -i harness/*.[ch] reference/*.[ch] impls/*/*.c tests/*.c tests/bad/*/*.c

clean:
	rm -rf $(BUILD)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
