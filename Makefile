# dfscope - the two commands of the README quick start, and the rest.
#   make demo   build, then run `dfscope stats` and `dfscope analyze` on a built-in generated sample
#   make test   build and run every test (ctest)
#   make bench  throughput benchmarks (long; writes results under bench/out)
#   make python the Python package (docs/PYTHON.md) in $(BUILD)/python, and a virtual environment
#               $(BUILD)/venv (Debian's python3 with its system packages) where `import dfscope` works
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build

.PHONY: all demo test test-asan build-clang bench fuzz clean deps-build deps-test deps-bench python deps-python

all: $(BUILD)/dfscope

deps-build:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test
deps-bench:
	@scripts/deps.sh bench
deps-python:
	@scripts/deps.sh python

$(BUILD)/dfscope: deps-build FORCE
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory
FORCE:

# The built-in sample: 8 ranks of a DLIO-like UNet3D run as DFTracer v1 traces (64 MiB, seed 1).
$(BUILD)/sample.stamp: | $(BUILD)/dfscope
	@rm -rf sample && mkdir -p sample
	$(BUILD)/dfscope gen -o sample --format v1 --ranks 8 --size 64M --seed 1
	@touch $@

demo: $(BUILD)/dfscope $(BUILD)/sample.stamp
	$(BUILD)/dfscope stats sample
	$(BUILD)/dfscope analyze --views time_range,proc_name sample

test: deps-test
	@cmake -S . -B build-test -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build build-test -j $(JOBS)
	cd build-test && ctest --output-on-failure -j $(JOBS)

test-asan: deps-test
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DDFS_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

build-clang: deps-test
	@CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build build-clang -j $(JOBS)

bench: deps-bench $(BUILD)/dfscope python
	@cmake --build $(BUILD) --target bench_framer -j $(JOBS)
	bench/run.sh $(BUILD)/dfscope
	bench/python.sh $(BUILD)
	bench/interleaved.sh $(BUILD)/dfscope
	bench/mpi.sh $(BUILD)/dfscope

# The package is importable with PYTHONPATH=$(BUILD)/python; the venv sees it through a .pth file.
PYTHON ?= /usr/bin/python3
python: deps-python
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DDFS_PYTHON_EXECUTABLE=$(PYTHON) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target dfscope_cli dfscope_python -- --no-print-directory
	@[ -x $(BUILD)/venv/bin/python ] || $(PYTHON) -m venv --system-site-packages $(BUILD)/venv
	@$(BUILD)/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' | \
		xargs -I{} sh -c 'echo "$(abspath $(BUILD))/python" > {}/dfscope.pth'
	@$(BUILD)/venv/bin/python -c 'import dfscope; print("dfscope", dfscope.__version__, "for", __import__("sys").version.split()[0])'
	@echo "use: $(BUILD)/venv/bin/python, or PYTHONPATH=$(abspath $(BUILD))/python $(PYTHON)"

clean:
	rm -rf build build-test build-asan build-clang sample bench/out

# --- reliability (docs/RELIABILITY.md) ------------------------------------------------------------
#   make fuzz            every libFuzzer target for FUZZ_SECONDS each (default 600), one after the
#                        other; results appended to fuzz/results.md, findings in build-fuzz/fuzz-artifacts
#   make fuzz-long       every target for 10 minutes, whatever FUZZ_SECONDS says (the reliability
#                        round's run, about 80 minutes; not in CI)
#   make fuzz-smoke      the same for 20 s each (CI); skipped when clang's libFuzzer is not available
#   make test-valgrind   the unit tests under valgrind memcheck
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= lines chrome gzip dasf predicate preset cli timeline
.PHONY: fuzz-build fuzz-long fuzz-smoke test-valgrind

fuzz-build: deps-test
	@fuzz/have-libfuzzer.sh
	@CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFS_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))

fuzz: fuzz-build
	fuzz/run.sh build-fuzz $(FUZZ_SECONDS) fuzz/results.md $(FUZZ_TARGETS)

fuzz-long:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=600

fuzz-smoke:
	@if fuzz/have-libfuzzer.sh; then $(MAKE) --no-print-directory fuzz-build && \
		fuzz/run.sh build-fuzz 20 build-fuzz/smoke.md $(FUZZ_TARGETS); \
	else echo "fuzz-smoke: skipped (clang's libFuzzer is not available)"; fi

# Unit tests only (the CLI shell tests run the binary without valgrind), each under memcheck;
# any error or definite leak fails it (tests/valgrind.sh).
test-valgrind: deps-test
	@cmake -S . -B build-valgrind -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build build-valgrind -j $(JOBS)
	tests/valgrind.sh build-valgrind $(JOBS)
