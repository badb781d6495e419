# Axon — a synthesizing superoptimizer for tensor programs.
#
#   make          build build/axgen and build/axonc (generated code in build/gen/)
#   make demo     install what is missing, build, run the main job on an example
#   make check    install what is missing, build under ASan+UBSan, run every test
#   make gen      regenerate build/gen/ for reading
#   make lint     the architecture check: runtime/ names no op or instruction
#   make bench    the size sweep through axonc compile, bench/RESULTS.md (~12 min on 2 cores)
#   make bench-quick  a subset of it in about 10 s, bench/quick/RESULTS.md
#   make check-slurm  compile --slurm through a real one-node Slurm cluster (root; apt installs
#                 Debian's slurm packages when missing; about 1.5 min)
#   make bench-slurm  Phase 2 wall time of one compile locally and through that cluster
#
# Every target directory under targets/ is generated into build/gen/<name>/
# and linked into axonc; nothing generated is committed.
#
#   DEFAULT_TARGET=NAME   the target axonc uses when no --target is given
#                         (default trainium; must be a directory under targets/:
#                         a new target directory never becomes the default by itself)

CC      ?= cc
BUILD   ?= build
SAN     ?=
OPT     ?= -O1
JOBS    ?= 2
BUDGET  ?=
CFLAGS  := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g $(OPT)
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
LDLIBS  := -lz3 -ltcc -ldl -lm

TARGET_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard targets/*/*.ax))))
TARGET_NAMES := $(notdir $(TARGET_DIRS))
DEFAULT_TARGET ?= trainium
TOY_DIR := tests/targets/toy
SPEC_FILES := $(sort $(wildcard specs/*.ax))

GEN_SRCS := gen/main.c gen/util.c gen/diag.c gen/ast.c gen/sema.c gen/sema_expr.c gen/emit.c gen/emit_op.c gen/emit_expr.c gen/emit_buf.c
GEN_HDRS := $(wildcard gen/*.h)
# the runtime's stages, one folder each, in the order data flows (runtime/README.md)
RT_STAGES := core proof front search back measure
RT_SRCS  := $(foreach d,$(RT_STAGES),$(sort $(wildcard runtime/$(d)/*.c)))
RT_HDRS  := $(wildcard runtime/*/*.h)
RT_INC   := $(foreach d,$(RT_STAGES) cli,-Iruntime/$(d))
CLI_SRCS := $(sort $(wildcard runtime/cli/*.c))
GEN_OBJS := $(patsubst gen/%.c,$(BUILD)/obj/gen/%.o,$(GEN_SRCS)) $(BUILD)/obj/gen/spec.tab.o $(BUILD)/obj/gen/spec.lex.o \
            $(BUILD)/obj/rt/core/diag.o
RT_OBJS  := $(patsubst runtime/%.c,$(BUILD)/obj/rt/%.o,$(RT_SRCS)) $(BUILD)/obj/rt/prog.tab.o $(BUILD)/obj/rt/prog.lex.o
CLI_OBJS := $(patsubst runtime/%.c,$(BUILD)/obj/rt/%.o,$(CLI_SRCS))

.PHONY: all deps demo check asan check-slurm test build-tests gen lint clean bench bench-quick bench-slurm fuzz-equiv fuzz-compile FORCE
all: $(BUILD)/axgen $(BUILD)/axonc

deps:
	@sh tools/deps.sh

# ---- axgen ----------------------------------------------------------------
$(BUILD)/gen/spec.tab.c $(BUILD)/gen/spec.tab.h &: grammar/spec.y
	@mkdir -p $(BUILD)/gen
	bison -Wall -Werror -o $(BUILD)/gen/spec.tab.c --header=$(BUILD)/gen/spec.tab.h $<
$(BUILD)/gen/spec.lex.c: grammar/spec.l
	@mkdir -p $(BUILD)/gen
	flex -o $@ $<
$(BUILD)/obj/gen/spec.tab.o: $(BUILD)/gen/spec.tab.c $(GEN_HDRS) $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Igen $(RT_INC) -I$(BUILD)/gen -c $< -o $@
$(BUILD)/obj/gen/spec.lex.o: $(BUILD)/gen/spec.lex.c $(BUILD)/gen/spec.tab.h $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-sign-compare -Igen $(RT_INC) -I$(BUILD)/gen -c $< -o $@
$(BUILD)/obj/gen/%.o: gen/%.c $(GEN_HDRS) $(RT_HDRS) $(BUILD)/gen/spec.tab.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Igen $(RT_INC) -I$(BUILD)/gen -c $< -o $@
$(BUILD)/axgen: $(GEN_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

# ---- generated targets ------------------------------------------------------
# target_rules(dir): build/gen/<name>/target.c from specs/ plus that directory
define target_rules
$(BUILD)/gen/$(notdir $(1))/target.c: $(BUILD)/axgen $(SPEC_FILES) $(wildcard specs/numpy.py $(1)/*.ax $(1)/numpy.py)
	@mkdir -p $$(@D)
	$(BUILD)/axgen -o $$(@D) specs $(1)
$(BUILD)/obj/target_$(notdir $(1)).o: $(BUILD)/gen/$(notdir $(1))/target.c $(RT_HDRS)
	@mkdir -p $$(@D)
	$(CC) $(CFLAGS) -Wno-unused-parameter $(RT_INC) -I$(BUILD)/gen/$(notdir $(1)) -c $$< -o $$@
endef
$(foreach t,$(TARGET_DIRS) $(TOY_DIR),$(eval $(call target_rules,$(t))))

# the registry: the targets linked into axonc and the default among them.  Its
# arguments are kept in registry.args, rewritten only when they change, so a
# new target directory or another DEFAULT_TARGET regenerates it.
REGISTRY_ARGS := --default $(DEFAULT_TARGET) $(TARGET_NAMES)
$(BUILD)/gen/registry.args: FORCE
	@mkdir -p $(@D)
	@echo '$(REGISTRY_ARGS)' | cmp -s - $@ || echo '$(REGISTRY_ARGS)' >$@
FORCE:
$(BUILD)/gen/registry.c: $(BUILD)/axgen $(BUILD)/gen/registry.args Makefile
	$(BUILD)/axgen --registry $@ $(REGISTRY_ARGS)
$(BUILD)/gen/registry_toy.c: $(BUILD)/axgen Makefile
	$(BUILD)/axgen --registry $@ --default toy toy
$(BUILD)/obj/registry.o: $(BUILD)/gen/registry.c $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RT_INC) -c $< -o $@
$(BUILD)/obj/registry_toy.o: $(BUILD)/gen/registry_toy.c $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RT_INC) -c $< -o $@

gen: $(foreach n,$(TARGET_NAMES),$(BUILD)/gen/$(n)/target.c)

# ---- axonc -------------------------------------------------------------------
$(BUILD)/gen/prog.tab.c $(BUILD)/gen/prog.tab.h &: grammar/prog.y
	@mkdir -p $(BUILD)/gen
	bison -Wall -Werror -o $(BUILD)/gen/prog.tab.c --header=$(BUILD)/gen/prog.tab.h $<
$(BUILD)/gen/prog.lex.c: grammar/prog.l
	@mkdir -p $(BUILD)/gen
	flex -o $@ $<
$(BUILD)/obj/rt/prog.tab.o: $(BUILD)/gen/prog.tab.c $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RT_INC) -I$(BUILD)/gen -c $< -o $@
$(BUILD)/obj/rt/prog.lex.o: $(BUILD)/gen/prog.lex.c $(BUILD)/gen/prog.tab.h $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-sign-compare $(RT_INC) -I$(BUILD)/gen -c $< -o $@
$(BUILD)/obj/rt/%.o: runtime/%.c $(RT_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RT_INC) -c $< -o $@
$(BUILD)/axonc: $(CLI_OBJS) $(RT_OBJS) $(foreach n,$(TARGET_NAMES),$(BUILD)/obj/target_$(n).o) $(BUILD)/obj/registry.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# the toy target alone: proves a target directory needs nothing outside itself
$(BUILD)/toy/axonc: $(CLI_OBJS) $(RT_OBJS) $(BUILD)/obj/target_toy.o $(BUILD)/obj/registry_toy.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# ---- tests -------------------------------------------------------------------
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/test/%,$(wildcard tests/unit/*.c))
$(BUILD)/test/%: tests/unit/%.c tests/unit/check.h $(RT_OBJS) $(foreach n,$(TARGET_NAMES),$(BUILD)/obj/target_$(n).o) $(BUILD)/obj/registry.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(RT_INC) -o $@ $< $(filter %.o,$^) $(LDFLAGS) $(LDLIBS)

build-tests: all $(BUILD)/toy/axonc $(UNIT_TESTS)

test: build-tests
	@BUILD=$(BUILD) sh tests/run.sh

# the build on both cores, then the tests (their compiles use every core themselves)
check: deps
	$(MAKE) -j2 build-tests
	$(MAKE) test

# AddressSanitizer and UBSan: axgen and axonc through every stage (tests/asan.sh; CI runs it
# beside make check, whose whole suite under the sanitizers took over 90 minutes on 2 cores)
asan: deps
	$(MAKE) -j2 BUILD=build/asan SAN=1 build-tests
	@BUILD=build/asan sh tests/asan.sh

# compile --slurm through a one-node Slurm cluster started and stopped by tests/slurm/check.sh
# (as root: it installs slurmctld, slurmd, slurm-client and munge with apt when missing)
check-slurm: deps
	$(MAKE) -j2 BUILD=build/asan SAN=1 all
	sh tests/slurm/check.sh build/asan/axonc

lint: $(BUILD)/axgen
	@BUILD=$(BUILD) sh tests/arch.sh

# speed is measured here, never asserted in a test (OPT=-O2 build in build/bench)
# make bench: every example at every size of its sweep through axonc compile (selection by the
# model, numerical validation), the ablation, the timings of the parts (bench/RESULTS.md,
# results.json, speedup.svg); JOBS=2 compiles at a time, BUDGET=5000 candidates per compile
bench: deps
	$(MAKE) BUILD=build/bench OPT=-O2 build/bench/bench_equiv build/bench/axonc build/bench/test/test_model
	@JOBS=$(JOBS) BUDGET=$(BUDGET) sh bench/run.sh build/bench

# make bench-quick: a few examples at two sizes each through axonc compile, about 10 s (bench/quick/)
bench-quick: deps
	$(MAKE) BUILD=build/bench OPT=-O2 build/bench/axonc
	/usr/bin/python3 bench/sweep.py --quick --axonc build/bench/axonc --jobs $(JOBS) --budget $(or $(BUDGET),1000) --out bench/quick

# make bench-slurm: Phase 2 wall time of one compile with the model as a --measure command, on the
# local cores and through a one-node Slurm cluster (bench/slurm_phase2.sh; PROG=, DIMS=, BUDGET=)
bench-slurm: deps
	$(MAKE) BUILD=build/bench OPT=-O2 build/bench/axonc
	@sh bench/slurm_phase2.sh build/bench/axonc $(if $(PROG),--prog $(PROG)) $(if $(DIMS),--dims $(DIMS)) $(if $(BUDGET),--budget $(BUDGET)) >bench/slurm_phase2.md.new
	@mv bench/slurm_phase2.md.new bench/slurm_phase2.md && cat bench/slurm_phase2.md

$(BUILD)/bench_equiv: bench/bench_equiv.c $(RT_OBJS) $(foreach n,$(TARGET_NAMES),$(BUILD)/obj/target_$(n).o) $(BUILD)/obj/registry.o
	$(CC) $(CFLAGS) $(RT_INC) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# the randomized soundness test of the checker, longer than make check's run
# (its summary goes to bench/fuzz_equiv.md, which make bench puts into bench/RESULTS.md)
fuzz-equiv: all
	@/usr/bin/python3 tests/fuzz_equiv.py $(BUILD)/axonc $${SECONDS_BUDGET:-0} $${SEED:-1} --pairs $${PAIRS:-10000} \
		| tee $(BUILD)/fuzz_equiv.log; \
	{ echo "Measured on $$(date -u +%Y-%m-%d), $$(nproc) cores: \`make fuzz-equiv\` (seed $${SEED:-1})."; echo; \
	  echo '```'; sed -n '/^fuzz-equiv: /,$$p' $(BUILD)/fuzz_equiv.log; echo '```'; } > bench/fuzz_equiv.md; \
	grep -q ' 0 failed$$' $(BUILD)/fuzz_equiv.log

# generative fuzzing of compile, longer than make check's run: random programs compiled, their
# kernels run against NumPy; new failures shrunk into tests/fuzz_compile/regress/
fuzz-compile: all
	@/usr/bin/python3 tests/fuzz_compile.py $(BUILD)/axonc --seed $${SEED:-1} --seconds $${SECONDS_BUDGET:-900} --shrink

demo: deps
	$(MAKE) all
	@echo "== Axon on RMSNorm+MatMul, stage by stage (every latency below is modelled, not measured)"
	@echo "== the program as a graph of spec'd ops with symbolic shapes"
	$(BUILD)/axonc graph examples/rmsnorm_matmul.py
	@echo "== run with the generated reference kernels (M=4, K=8, N=3)"
	$(BUILD)/axonc run examples/rmsnorm_matmul.py --dims M=4,K=8,N=3 --seed 1 -o $(BUILD)/demo_out.npy
	@echo "   wrote $(BUILD)/demo_out.npy"
	@echo "== a reordering, proved for every size: (X * r) @ W = (X @ W) * r"
	$(BUILD)/axonc equiv tests/equiv/pos_rmsnorm_matmul.py lhs rhs
	@echo "== every reordering operator propagation finds, as NumPy"
	$(BUILD)/axonc variants examples/rmsnorm_matmul.py
	@echo "== every variant tiled, and run tile by tile against the whole ops (M=7, K=9, N=5)"
	$(BUILD)/axonc tile examples/rmsnorm_matmul.py --dims M=7,K=9,N=5
	@echo "== every tile operation lowered to proved instruction sequences, with data movement"
	$(BUILD)/axonc synth examples/rmsnorm_matmul.py
	@echo "== instruction fusion found by depth-1 synthesis"
	$(BUILD)/axonc fuse examples/rmsnorm_matmul.py
	@echo "== the performance model of one NeuronCore-v2 at M=N=K=2048: roofline, naive lowering, candidates ranked"
	$(BUILD)/axonc model examples/rmsnorm_matmul.py --dims M=2048,K=2048,N=2048
	@echo "== the fastest proved NKI kernel for M=256, K=512, N=1024: structures validated, candidates modelled"
	$(BUILD)/axonc compile examples/rmsnorm_matmul.py --dims M=256,K=512,N=1024 -o $(BUILD)/demo_kernel.py --report $(BUILD)/demo_report.json
	@echo "   report: $(BUILD)/demo_report.json"
	@cat $(BUILD)/demo_kernel.py
	@echo "== ... run by the NumPy implementation of NKI against the program in NumPy"
	/usr/bin/python3 tests/nki/run_kernel.py $(BUILD)/demo_kernel.py examples/rmsnorm_matmul.py --dims M=256,K=512,N=1024

clean:
	rm -rf build
