# The front door. The real build is CMake's; this file names the commands.
# nccl-tests' BUILDDIR names the build directory too.
#
# SANITIZE=1: the host code (C, and the host side of the .cu files; device code
# unchanged) built with AddressSanitizer and UndefinedBehaviorSanitizer, programs
# and tests linked with them (CMake's COLLBENCH_SANITIZE), in a build directory
# of its own, build-asan, unless BUILD or BUILDDIR names one: `make SANITIZE=1
# test` runs the CPU test suite under the sanitizers, beside the plain build.
SANITIZE ?=
SANITIZED := $(filter 1,$(SANITIZE))
BUILD ?= $(or $(BUILDDIR),$(if $(SANITIZED),build-asan,build))
CMAKE ?= cmake
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Tests at once in `make test`: twice the build's jobs, since many tests
# spend most of their time waiting (MPI's start, a program's child), not on a core.
TEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
CMAKE_FLAGS ?=

# Where the toolkits are, as nccl-tests' Makefile takes them (on make's
# command line or from the environment): CUDA_HOME (its nvcc), NCCL_HOME
# (nccl.h, libnccl), MPI_HOME (MPI's compiler wrapper, headers and libraries).
# Without CUDA_HOME, nvcc is found on PATH, else in the toolkit's usual place.
NVCC := $(if $(CUDA_HOME),$(CUDA_HOME)/bin/nvcc,$(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc))
# nccl-tests' MPI=1 needs MPI (the build fails without it); MPI=0 builds
# without it; unset, MPI is used when it is found.
MPI_SWITCH := $(if $(filter 1,$(MPI)),-DCOLLBENCH_REQUIRE_MPI=ON,$(if $(filter 0,$(MPI)),-DCOLLBENCH_WITH_MPI=OFF))
# The python3 CMake is given (the CPU tests' interpreter; they need only its
# standard library): the first python3 on PATH outside any virtual environment
# (a bin/ whose parent holds pyvenv.cfg), so that activating one, such as the
# scripts' .venv, or leaving it neither configures nor rebuilds anything. The
# scripts' tests pick their Python, the venv's included, when they run
# (tests/run_script_tests.sh).
PYTHON3 := $(shell IFS=:; for d in $$PATH; do \
  if [ -x "$${d:-.}/python3" ] && [ ! -f "$${d:-.}/../pyvenv.cfg" ]; then echo "$${d:-.}/python3"; break; fi; \
  done)
TOOLKITS := $(if $(CUDA_HOME),-DCUDAToolkit_ROOT=$(CUDA_HOME)) \
  $(if $(NCCL_HOME),-DNCCL_HOME=$(NCCL_HOME)) $(if $(MPI_HOME),-DMPI_HOME=$(MPI_HOME)) \
  $(MPI_SWITCH) $(if $(NAME_SUFFIX),-DCOLLBENCH_NAME_SUFFIX=$(NAME_SUFFIX)) \
  $(if $(SANITIZED),-DCOLLBENCH_SANITIZE=ON)

# The GPU architectures to build for (CMake's CUDA_ARCHITECTURES, a ;-list
# such as 80;90): CUDA_ARCH when given; else those nccl-tests' NVCC_GENCODE
# names (code=sm_90 gives 90, code=compute_90 gives 90-virtual, PTX); else
# those of the GPUs nvidia-smi lists here; else 90 (Hopper), which is what a
# machine without a GPU (CI) builds. CMAKE_FLAGS=-DCMAKE_CUDA_ARCHITECTURES=...
# still wins.
comma := ,
GENCODE_ARCHS := $(patsubst code=sm_%,%,$(filter code=sm_%,$(subst $(comma), ,$(NVCC_GENCODE)))) \
  $(patsubst code=compute_%,%-virtual,$(filter code=compute_%,$(subst $(comma), ,$(NVCC_GENCODE))))
GPU_ARCHS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | \
  grep -E '^ *[0-9]+\.[0-9]+ *$$' | tr -d ' .' | sort -u)
empty :=
space := $(empty) $(empty)
ARCH_LIST = $(subst $(space),;,$(strip $(1)))
CUDA_ARCHS := $(or $(CUDA_ARCH),$(call ARCH_LIST,$(GENCODE_ARCHS)),$(call ARCH_LIST,$(GPU_ARCHS)),90)

.PHONY: all build configure test run format docs clean

all: build

# BUILD is configured with exactly what CONFIGURATION says: the compiler,
# CMAKE_FLAGS, and where mpicc and python3 (PYTHON3, above) are (so installing
# MPI or Python later brings their programs and tests in). It is kept in
# $(BUILD)/make-configuration; when it changes, BUILD is configured again
# from scratch (cmake --fresh), so a flag left out goes back to its default
# instead of lingering in CMake's cache.
CONFIGURATION := $(strip -DCMAKE_CUDA_COMPILER=$(NVCC) -DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS) \
  $(TOOLKITS) $(CMAKE_FLAGS) \
  mpicc=$(shell command -v $(if $(MPI_HOME),$(MPI_HOME)/bin/mpicc,mpicc) 2>/dev/null) \
  python3=$(PYTHON3))
CONFIGURED := $(strip $(file <$(BUILD)/make-configuration))

configure: export CB_CONFIGURATION = $(CONFIGURATION)
configure:
ifeq ($(CONFIGURATION)$(wildcard $(BUILD)/CMakeCache.txt),$(CONFIGURED)$(BUILD)/CMakeCache.txt)
	@:
else
	@echo "make: configuring $(BUILD) ($(if $(CONFIGURED),its configuration changed,first time)): $(CONFIGURATION)"
	$(CMAKE) --fresh -S . -B $(BUILD) -DCMAKE_CUDA_COMPILER=$(NVCC) \
	  '-DCMAKE_CUDA_ARCHITECTURES=$(CUDA_ARCHS)' $(TOOLKITS) \
	  $(if $(PYTHON3),'-DPython3_EXECUTABLE=$(PYTHON3)') $(CMAKE_FLAGS)
	@printf '%s\n' "$$CB_CONFIGURATION" > $(BUILD)/make-configuration
endif

build: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# The CPU test suite (what CI runs). It ends naming any test that was
# skipped, then, last, any suite that could not run here and the one command
# that brings it in. COLLBENCH_REQUIRE_ALL_SUITES=1 (CI sets it) makes a suite
# that could not run a failure, in whichever BUILD this is: the scripts'
# tests fail rather than skip (run_script_tests.sh) and suites_not_run.sh
# fails. ctest runs without this make's variables (MAKEFLAGS), as by hand.
#
# Under SANITIZE=1 the suite runs with the sanitizers' options below: a leak
# or a memory error fails the program, an undefined behaviour stops it, each
# with its stack. Leaks of the libraries we call are not ours to report: Open
# MPI (and what it loads) keeps what MPI_Init allocated; they are suppressed
# by the library they were allocated from, which only a full stack names
# (fast_unwind_on_malloc=0: those libraries keep no frame pointers). The
# scripts' tests (test_scripts_*), which run no program of the build, run in
# the plain build only. The tests run TEST_JOBS at a time (ctest -j).
REQUIRE_ALL := $(filter 1,$(COLLBENCH_REQUIRE_ALL_SUITES))
LSAN_SUPPRESSIONS := $(BUILD)/lsan-suppressions.txt
LIBRARIES_WE_CALL := libmpi.so libopen-pal.so libopen-rte.so libhwloc.so libevent libpmix
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:protect_shadow_gap=0 \
  LSAN_OPTIONS=suppressions=$(abspath $(LSAN_SUPPRESSIONS)):print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
WRITE_SUPPRESSIONS = printf 'leak:%s\n' $(LIBRARIES_WE_CALL) >$(LSAN_SUPPRESSIONS)
test: build
	@$(if $(SANITIZED),$(WRITE_SUPPRESSIONS);) \
	  (cd $(BUILD) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	  $(if $(REQUIRE_ALL),COLLBENCH_REQUIRE_SCRIPT_TESTS=ON) $(if $(SANITIZED),$(SANITIZER_ENV)) \
	  ctest --output-on-failure -j $(TEST_JOBS) $(if $(SANITIZED),-E '^test_scripts_')); rc=$$?; \
	  tests/suites_not_run.sh $(if $(REQUIRE_ALL),--require-all) $(BUILD) || [ $$rc -ne 0 ] || rc=1; \
	  exit $$rc

# The default sweep on every GPU of this node, one process. Without a GPU
# (nvidia-smi lists none) the program says so itself: no -g 0.
NGPUS ?= $(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU')
run: build
	$(if $(SANITIZED),@$(WRITE_SUPPRESSIONS))
	NCCL_NVLS_ENABLE=0 $(if $(SANITIZED),$(SANITIZER_ENV) )$(BUILD)/all_reduce_perf$(NAME_SUFFIX) -b 8 -e 1G -f 2$(if $(filter-out 0,$(NGPUS)), -g $(NGPUS))

# The kernel tables of README.md and docs/kernels.md, written anew from the
# kernels' registrations (tools/kernel_tables.c); `make test` checks them.
docs: configure
	$(CMAKE) --build $(BUILD) -j $(JOBS) --target docs

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD)
