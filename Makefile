# shardc build. `make` builds build/shardc and build/libshardc.a;
# `make check` runs every test suite; `make asan` builds with ASan+UBSan
# into build-asan/ and `make check-asan` runs the suite against it.
CC      ?= cc
# `make MPI=1`: the distributed build (docs/distributed.md) into build-mpi/,
# compiled with MPICH's mpicc and -DSHARDC_MPI; `shardc run --transport=mpi`
# needs it. The default build does not need MPI.
MPI     ?=
ifeq ($(MPI),1)
BUILD   ?= build-mpi
CC      = mpicc
MPIFLAGS = -DSHARDC_MPI
endif
BUILD   ?= build
OPT     ?= -O2
SANITIZE ?=
CFLAGS_WARN = -std=c11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CPPFLAGS_ALL = -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iinclude -Isrc -I$(BUILD)/gen \
               -I/usr/include/x86_64-linux-gnu $(MPIFLAGS)
ifeq ($(SANITIZE),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT = -O1
endif
# libFuzzer builds (make fuzz): the library is instrumented, only the
# fuzz targets link libFuzzer's main. The gcc build enforces -Werror; a
# clang-only warning must not stop a fuzzing run.
ifeq ($(SANITIZE),fuzz)
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined -Wno-error
OPT = -O1
# The flex and bison tables: comparison tracing there reports table
# look-ups, not the input's structure (the dictionaries give the keywords),
# and it took a third of fuzz_parse's time (docs/testing.md, "Fuzzing").
GEN_SANFLAGS = -fno-sanitize-coverage=trace-cmp
endif
CFLAGS_ALL = $(CFLAGS_WARN) $(OPT) -g $(SANFLAGS) $(CFLAGS)
# CBC (coinor-libcbc-dev: its header; coinor-libcbc3 at run time), the
# auto-sharding ILP solver, is opened with dlopen when a solve needs it
# (src/autoshard/ilp.c), and so are OpenBLAS, LAPACKE and FFTW when a
# kernel of a run first calls them (src/kernels/kern_libs.c; their -dev
# packages for the headers): not linked, so no compile pays their start-up.
LDLIBS_ALL = -lyaml -ldl -lpthread -lm $(LDLIBS)

LIB_SRC  = $(wildcard src/*/*.c) $(wildcard passes/*.c) $(filter-out cli/main.c,$(wildcard cli/*.c))
GEN_SRC  = $(BUILD)/gen/parser.c $(BUILD)/gen/lexer.c $(BUILD)/gen/mlir_parser.c $(BUILD)/gen/mlir_lexer.c
GEN_HDR  = $(BUILD)/gen/parser.h $(BUILD)/gen/lexer.h $(BUILD)/gen/mlir_parser.h $(BUILD)/gen/mlir_lexer.h
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(GEN_SRC:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HEADERS  = $(wildcard include/shardc/*.h include/shardc/*.def src/*/*.h src/*/*.def passes/*.h cli/*.h)

.PHONY: all check unit golden asan check-asan clean bench difftest difftest-ci
all: $(BUILD)/shardc $(BUILD)/libshardc.a $(UNIT_BIN) $(BUILD)/shirgen

$(BUILD)/gen/parser.c $(BUILD)/gen/parser.h &: grammar/parser.y
	@mkdir -p $(BUILD)/gen
	bison -Wall -Werror --defines=$(BUILD)/gen/parser.h -o $(BUILD)/gen/parser.c $<

$(BUILD)/gen/lexer.c $(BUILD)/gen/lexer.h &: grammar/lexer.l $(BUILD)/gen/parser.h
	@mkdir -p $(BUILD)/gen
	flex -Cf -8 --header-file=$(BUILD)/gen/lexer.h -o $(BUILD)/gen/lexer.c $<

$(BUILD)/gen/mlir_parser.c $(BUILD)/gen/mlir_parser.h &: grammar/mlir_parser.y
	@mkdir -p $(BUILD)/gen
	bison -Wall -Werror --defines=$(BUILD)/gen/mlir_parser.h -o $(BUILD)/gen/mlir_parser.c $<

$(BUILD)/gen/mlir_lexer.c $(BUILD)/gen/mlir_lexer.h &: grammar/mlir_lexer.l $(BUILD)/gen/mlir_parser.h
	@mkdir -p $(BUILD)/gen
	flex -Cf -8 --header-file=$(BUILD)/gen/mlir_lexer.h -o $(BUILD)/gen/mlir_lexer.c $<

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(GEN_HDR) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) $(GEN_SANFLAGS) -Wno-unused-function -Wno-sign-compare -c $< -o $@

$(BUILD)/obj/%.o: %.c $(HEADERS) $(GEN_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/libshardc.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# `make ALLOC=1`: shardc with tests/alloc/failalloc.c wrapped around every
# allocator (make check-alloc).
ifeq ($(ALLOC),1)
ALLOC_OBJ = $(BUILD)/obj/tests/alloc/failalloc.o
LDFLAGS_ALL = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,--wrap=strndup
endif

$(BUILD)/shardc: $(BUILD)/obj/cli/main.o $(BUILD)/libshardc.a $(ALLOC_OBJ)
	$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libshardc.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(BUILD)/libshardc.a -lcmocka $(LDLIBS_ALL)

check: all
	@bash tests/run.sh $(BUILD)

asan:
	$(MAKE) BUILD=build-asan SANITIZE=1 all

check-asan: asan
	@ASAN_OPTIONS=detect_leaks=1 bash tests/run.sh build-asan

# Allocation-failure injection (docs/testing.md): the ASan build with
# every allocation of shardc's own code failing in turn, over the samples'
# compile and run. Not part of check (about ALLOC_SECONDS... see the script).
.PHONY: check-alloc
check-alloc:
	$(MAKE) BUILD=build-alloc SANITIZE=1 ALLOC=1 build-alloc/shardc
	@bash tests/alloc/run.sh build-alloc

bench: all
	@bash bench/run.sh $(BUILD)

# Shardy's own lit tests against `shardc opt` (docs/conformance.md): a
# report, not part of check: the runner's lines, then the failures by cause
# (scripts/conformance-causes.py), its last line "N passed, N failed".
SHARED ?= ../shared
.PHONY: conformance
conformance: all
	@cd $(SHARED) && bash conformance/run-shardy-lit.sh --json "$(abspath $(BUILD))/conformance.json" \
	    $(CONFORMANCE_FLAGS) "$(abspath $(BUILD))/shardc opt" $(FILTER); \
	status=$$?; cd $(CURDIR) && python3 scripts/conformance-causes.py $(BUILD)/conformance.json; exit $$status

# Fuzzing (docs/testing.md): clang-14 + libFuzzer into build-fuzz/, each
# target for FUZZ_SECONDS. Not part of check.
FUZZ_SECONDS ?= 60
FUZZ_BIN = $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard fuzz/fuzz_*.c))
.PHONY: fuzz fuzz-build valgrind
fuzz:
	@bash fuzz/run.sh toolchain
	$(MAKE) BUILD=build-fuzz CC=clang-14 SANITIZE=fuzz fuzz-build
	@bash fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

fuzz-build: $(FUZZ_BIN)

$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/libshardc.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(FUZZ_EXTRA_$*) $(BUILD)/libshardc.a $(LDLIBS_ALL)

# The fuzzing campaign (docs/testing.md, "Fuzzing"): every target for
# FUZZ_TIME seconds on one core, a table of executions, coverage and
# findings on stdout and in build-fuzz/campaign.md; fails on any finding.
FUZZ_TIME ?= 600
.PHONY: fuzz-campaign
fuzz-campaign:
	@bash fuzz/run.sh toolchain
	$(MAKE) BUILD=build-fuzz CC=clang-14 SANITIZE=fuzz fuzz-build
	@bash fuzz/campaign.sh build-fuzz $(FUZZ_TIME)

# Every sample under valgrind's memcheck, compiled and run (not part of check).
valgrind: all
	@bash scripts/valgrind.sh $(BUILD)

# Random differential testing (docs/testing.md): build/shirgen generates
# random programs from the library's IR builders and printer;
# `make difftest N=100000 SEED=7 [UNEVEN=1] [GENFLAGS=--no=odd_resize]` runs a
# campaign through `shardc run` (UNEVEN=1: shirgen --uneven).
SHIRGEN_SRC = $(wildcard tools/shirgen*.c)
# fuzz_run (fuzz/fuzz_run.c) links the generator without its main.
FUZZ_EXTRA_fuzz_run = $(filter-out tools/shirgen.c,$(SHIRGEN_SRC))
$(BUILD)/fuzz/fuzz_run: $(SHIRGEN_SRC) $(wildcard tools/shirgen*.h)
$(BUILD)/shirgen: $(SHIRGEN_SRC) $(wildcard tools/shirgen*.h) $(BUILD)/libshardc.a $(HEADERS)
	$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $(SHIRGEN_SRC) $(BUILD)/libshardc.a $(LDLIBS_ALL)

N ?= 1000
SEED ?= 1
GENFLAGS ?=
.PHONY: difftest difftest-ci difftest-ops
difftest: all
	@bash tools/difftest.sh -b $(BUILD) -n $(N) -s $(SEED) -- $(GENFLAGS) $(if $(UNEVEN),--uneven)
# How many programs of that campaign use each op of issue 18 (generation only).
difftest-ops: $(BUILD)/shirgen
	@bash tools/difftest_ops.sh -b $(BUILD) -n $(N) -s $(SEED) -- $(GENFLAGS)

# The random differential tests at full size (.ci/run runs them; make check
# runs the first seeds of each, to stay short): plain, uneven, unreduced
# and auto-sharded programs. Each line ends "N programs, 0 mismatches, ...".
difftest-ci: all
	@bash tools/difftest.sh -b $(BUILD) -o $(BUILD)/difftest-ci -n 200 -s 1
	@bash tools/difftest.sh -b $(BUILD) -o $(BUILD)/difftest-ci-uneven -n 200 -s 1 -- --uneven
	@bash tools/difftest.sh -b $(BUILD) -o $(BUILD)/difftest-ci-unreduced -n 100 -s 1 -- --unreduced
	@DIFFTEST_FLAGS=--auto-shard bash tools/difftest.sh -b $(BUILD) -o $(BUILD)/difftest-ci-auto -n 40 -s 1

clean:
	rm -rf build build-asan build-alloc build-fuzz build-mpi
