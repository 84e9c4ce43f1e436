# locus: the two commands (make demo, make test) and the benchmarks (make bench, make bench-train).
# Each target installs what is missing (scripts/install-deps), configures, builds, then runs.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps configure build demo test bench bench-train bench-dist clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@grep -E "^-- locus" $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The demo: the devices, then the Fashion-MNIST CNN trained on the best one (locus-train's default
# recipe: 6 epochs, cosine schedule), with the curves and a checkpoint written next to the build.
demo: build
	@$(BUILD)/locus-info
	@$(BUILD)/locus-train --device auto --plot $(BUILD)/demo.svg --save $(BUILD)/demo.safetensors

test: build
	@cd $(BUILD) && POCL_DEVICES="pthread pthread" ctest --output-on-failure -j $(JOBS) --timeout 600

bench:
	@scripts/install-deps bench
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DLOCUS_BUILD_BENCH=ON > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@cmake --build $(BUILD) -j $(JOBS)
	@bench/run $(BUILD)

# One Fashion-MNIST training epoch (MLP and CNN) in PyTorch and in locus (cpu, and opencl:0 when
# there), against the issue's targets; configured as for bench, but only the two tools it runs are
# built. docs/benchmarks.md.
bench-train:
	@scripts/install-deps bench
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DLOCUS_BUILD_BENCH=ON > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@cmake --build $(BUILD) -j $(JOBS) --target locus-train locus-info
	@bench/run-train $(BUILD)

# all_reduce bus bandwidth through locus vs the same MPI call made directly (1 KiB to 64 MiB) and a
# DDP step at 2 ranks with the share of all-reduce time hidden behind backward (docs/distributed.md).
bench-dist: configure
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DLOCUS_BUILD_BENCH=ON > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@cmake --build $(BUILD) -j $(JOBS) --target dist_bench
	@bench/run-dist $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
