#!/usr/bin/env bash
# Re-makes the committed reference results: three sweeps on simulated machines (SimGrid
# SMPI, so their figures are deterministic), one with real MPI on 2 ranks (whose figures
# depend on the machine), their reports, and the plots.
#
#   harness/reference.sh [RESULTS_DIR]      (default: results/)
#
# Runs already recorded in RESULTS_DIR are skipped; move the folder away to start over.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/results}"
lbbench="${LBBENCH:-$here/build/lbbench}"
for sweep in balancers koenig-kale-fig2 vector real-2ranks; do
  "$lbbench" sweep "$here/scenarios/sweeps/$sweep.yaml" --results "$out/$sweep"
  "$lbbench" report "$out/$sweep" --csv "$out/$sweep/report.csv" > "$out/$sweep/report.md"
done
"${PYTHON:-/usr/bin/python3}" "$here/harness/plot.py" "$out" --out "$out/plots"
