#!/usr/bin/env bash
# The sanitizer build: lbbench and its tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, compiled by clang, which also builds the fuzz targets
# (tests/fuzz), in build-sanitize/. Then the tests labelled `sanitize`: the unit tests, the
# MPI tests at 1 and 2 ranks, and every fuzz target for LBBENCH_FUZZ_SECONDS (20) each.
#
#   scripts/sanitize.sh              build and test (CI runs this after the main suite)
#   scripts/sanitize.sh --no-test    build only
#
# Needs the packages scripts/setup.sh installs (clang, libclang-rt-14-dev among them).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LBBENCH_SANITIZE_BUILD_DIR:-$here/build-sanitize}"

cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLBBENCH_SANITIZE=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DLBBENCH_FUZZ_SECONDS="${LBBENCH_FUZZ_SECONDS:-20}"
cmake --build "$build_dir" -j "$(nproc)"
[ "${1:-}" = "--no-test" ] && exit 0
# The leak check leaves Open MPI's and PT-Scotch's process-long allocations alone (their
# components stay loaded and stacks are unwound whole, so that it can tell them apart).
export LSAN_OPTIONS="suppressions=$here/tests/sanitize/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export UBSAN_OPTIONS="print_stacktrace=1"
export OMPI_MCA_mca_base_component_disable_dlclose=1
ctest --test-dir "$build_dir" -L sanitize --output-on-failure -j "$(nproc)"
