#!/usr/bin/env bash
# A fuzzing campaign: every fuzz target of the sanitizer build (scripts/sanitize.sh) for
# SECONDS each (default 600), one after the other, from the committed seeds and what
# earlier campaigns found (build-sanitize/tests/fuzz/corpus/). A crash stops the campaign
# and leaves its input as crash-* in build-sanitize/fuzz-findings/.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 3600 fuzz_lbdatafile
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${LBBENCH_SANITIZE_BUILD_DIR:-$here/build-sanitize}"
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(fuzz_scenario fuzz_metis fuzz_chaco fuzz_matrix_market fuzz_costs fuzz_sweep fuzz_lbdatafile)
fi

"$here/scripts/sanitize.sh" --no-test
findings="$build_dir/fuzz-findings"
mkdir -p "$findings"
export LSAN_OPTIONS="suppressions=$here/tests/sanitize/lsan.supp:print_suppressions=0:fast_unwind_on_malloc=0"
export OMPI_MCA_mca_base_component_disable_dlclose=1
for target in "${targets[@]}"; do
  corpus="${target#fuzz_}"
  found="$build_dir/tests/fuzz/corpus/$corpus"
  mkdir -p "$found"
  echo "== $target: $seconds s"
  "$build_dir/tests/fuzz/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 \
    -print_final_stats=1 -artifact_prefix="$findings/$target-" "$found" "$here/tests/fuzz/corpus/$corpus"
done
