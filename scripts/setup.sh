#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: install the packages lbbench needs,
# build it, and run the quickstart scenario on a simulated Blue Gene/Q.
#
#   scripts/setup.sh                 install + build + quickstart
#   scripts/setup.sh --no-run        install + build
#   scripts/setup.sh --deps-only     install packages only
#
# LBBENCH_WERROR=ON builds with warnings as errors (CI does).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LBBENCH_BUILD_DIR:-$here/build}"
mode="${1:-all}"

packages=(
  build-essential cmake pkg-config git clang-format clang-tidy clang libclang-rt-14-dev llvm
  libopenmpi-dev openmpi-bin
  libtrilinos-zoltan-dev libscotch-dev libptscotch-dev
  libmetis-dev libyaml-cpp-dev libbenchmark-dev libgtest-dev libgmock-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev
  libxxhash-dev libssl-dev libeigen3-dev libbrotli-dev libboost-dev
  libsimgrid-dev
  python3 python3-matplotlib python3-numpy python3-yaml time
  pybind11-dev python3-dev libpython3-dev
  python3-schema python3-brotli  # vt's LBDatafile validator, which the trace tests run on the exports
  slurm-wlm
)

install_packages() {
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
}

build() {
  cmake -S "$here" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DLBBENCH_WERROR="${LBBENCH_WERROR:-OFF}"
  cmake --build "$build_dir" -j "$(nproc)"
}

# The main job: the quickstart on a simulated Blue Gene/Q with 256 ranks (SimGrid SMPI).
run_quickstart() {
  "$build_dir/lbbench" run "$here/scenarios/quickstart.yaml" --engine smpi --machine bgq --ranks 256 \
    --out "$build_dir/quickstart.jsonl"
}

install_packages
[ "$mode" = "--deps-only" ] && exit 0
build
[ "$mode" = "--no-run" ] && exit 0
run_quickstart
