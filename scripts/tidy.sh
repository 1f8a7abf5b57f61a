#!/usr/bin/env bash
# clang-tidy with the root .clang-tidy over lbbench's own sources (benchmark, balancers,
# meshes, harness), every finding an error; CI runs it after the test suite. Needs the build
# that scripts/setup.sh makes (its compile_commands.json).
#
#   scripts/tidy.sh [FILE-REGEX]     (default: every source of those folders)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LBBENCH_BUILD_DIR:-$here/build}"
[ -f "$build_dir/compile_commands.json" ] || {
  echo "tidy.sh: no $build_dir/compile_commands.json (run scripts/setup.sh first)" >&2
  exit 2
}
files="${1:-^$here/(benchmark|balancers|meshes|harness)/}"
run-clang-tidy -p "$build_dir" -j "$(nproc)" -quiet "$files"
