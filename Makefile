# The front door. The real build is CMake's; this file names the commands.
BUILD ?= build
CMAKE ?= cmake
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# nvcc is found on PATH, else in the toolkit's usual place.
NVCC := $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)

.PHONY: all build configure test run format clean

all: build

# BUILD is configured with exactly what CONFIGURATION says: the compiler,
# CMAKE_FLAGS, and where mpicc and python3 are (so installing MPI or Python
# later brings their programs and tests in). It is kept in
# $(BUILD)/make-configuration; when it changes, BUILD is configured again
# from scratch (cmake --fresh), so a flag left out goes back to its default
# instead of lingering in CMake's cache.
CONFIGURATION := $(strip -DCMAKE_CUDA_COMPILER=$(NVCC) $(CMAKE_FLAGS) \
  mpicc=$(shell command -v mpicc 2>/dev/null) python3=$(shell command -v python3 2>/dev/null))
CONFIGURED := $(strip $(file <$(BUILD)/make-configuration))

configure: export CB_CONFIGURATION = $(CONFIGURATION)
configure:
ifeq ($(CONFIGURATION)$(wildcard $(BUILD)/CMakeCache.txt),$(CONFIGURED)$(BUILD)/CMakeCache.txt)
	@:
else
	@echo "make: configuring $(BUILD) ($(if $(CONFIGURED),its configuration changed,first time)): $(CONFIGURATION)"
	$(CMAKE) --fresh -S . -B $(BUILD) -DCMAKE_CUDA_COMPILER=$(NVCC) $(CMAKE_FLAGS)
	@printf '%s\n' "$$CB_CONFIGURATION" > $(BUILD)/make-configuration
endif

build: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# The CPU test suite (what CI runs). Its last line names any suite that
# could not run here and the one command that brings it in.
test: build
	@(cd $(BUILD) && ctest --output-on-failure); rc=$$?; \
	  tests/suites_not_run.sh $(BUILD); exit $$rc

# The default sweep on every GPU of this node, one process. Without a GPU
# (nvidia-smi lists none) the program says so itself: no -g 0.
NGPUS ?= $(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU')
run: build
	NCCL_NVLS_ENABLE=0 $(BUILD)/all_reduce_perf -b 8 -e 1G -f 2$(if $(filter-out 0,$(NGPUS)), -g $(NGPUS))

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD)
