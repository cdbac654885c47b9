# The front door. The real build is CMake's; this file names the commands.
BUILD ?= build
CMAKE ?= cmake
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# nvcc is found on PATH, else in the toolkit's usual place.
NVCC := $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)

.PHONY: all build test run format clean

all: build

$(BUILD)/CMakeCache.txt:
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_CUDA_COMPILER=$(NVCC) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	$(CMAKE) --build $(BUILD) -j $(JOBS)

# The CPU test suite (what CI runs).
test: build
	cd $(BUILD) && ctest --output-on-failure

# The default sweep on every GPU of this node, one process.
NGPUS ?= $(shell nvidia-smi -L 2>/dev/null | wc -l)
run: build
	NCCL_NVLS_ENABLE=0 ./$(BUILD)/all_reduce_perf -b 8 -e 1G -f 2 -g $(NGPUS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')

clean:
	rm -rf $(BUILD)
