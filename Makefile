# locus: the two commands (make demo, make test) and the benchmarks.
# Each target installs what is missing (scripts/install-deps), configures, builds, then runs.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps configure build demo test bench bench-train clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@grep -E "^-- locus" $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# Until the Fashion-MNIST demo lands, the demo shows the devices and runs the device-agnostic example.
demo: build
	@$(BUILD)/locus-info
	@$(BUILD)/example_device_agnostic

test: build
	@cd $(BUILD) && POCL_DEVICES="pthread pthread" ctest --output-on-failure -j $(JOBS) --timeout 600

bench:
	@scripts/install-deps bench
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DLOCUS_BUILD_BENCH=ON > $(BUILD).configure.log 2>&1 || (cat $(BUILD).configure.log; exit 1)
	@cmake --build $(BUILD) -j $(JOBS)
	@bench/run $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD).configure.log
