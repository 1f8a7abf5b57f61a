#!/usr/bin/env bash
# Re-makes the committed reference results: the sweeps of scenarios/sweeps/ on simulated
# machines (SimGrid SMPI, so their figures repeat up to the balancers' own timed code), on
# modeled ones (langer-kale, at up to 131,072 ranks) and with real MPI on 2 ranks (whose
# figures depend on the machine), their reports, and the plots. Then Pearce et al.'s model on this machine: the candidates' platform costs fitted
# from a calibration sweep, and `auto` scored with them on the model-accuracy sweep.
#
#   harness/reference.sh [RESULTS_DIR]      (default: results/, about 2 hours on 2 cores)
#
# Runs already recorded in RESULTS_DIR are skipped; move the folder away to start over.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
# Relative to the source tree, so that the costs file's path, which is part of every
# model-accuracy run's scenario and so of its id, is the same wherever the tree is.
out="${1:-results}"
lbbench="${LBBENCH:-$here/build/lbbench}"
python="${PYTHON:-/usr/bin/python3}"

sweep() {  # SWEEP FOLDER [--set ...]: run what is not recorded yet, then report
  local name=$1 folder=$2
  shift 2
  # Record files over 2 MiB are committed gzipped; the sweep resumes from the plain file.
  if [[ -f "$out/$folder/runs.jsonl.gz" && ! -f "$out/$folder/runs.jsonl" ]]; then
    gunzip -k "$out/$folder/runs.jsonl.gz"
  fi
  "$lbbench" sweep "scenarios/sweeps/$name.yaml" --results "$out/$folder" "$@"
  "$lbbench" report "$out/$folder" --csv "$out/$folder/report.csv" > "$out/$folder/report.md"
}
plot() { "$python" harness/plot.py "$out/$1" --out "$out/plots/$1"; }

for name in balancers koenig-kale-fig2 vector real-2ranks langer-kale; do
  sweep "$name" "$name"
  plot "$name"
done
# A recorded application run (LBAF's vt data set), found in LBBENCH_TRACES_DIR.
if [[ -d "${LBBENCH_TRACES_DIR:-}/lbaf-vt-16ranks" ]]; then
  sweep vt-trace vt-trace
  plot vt-trace
else
  echo "reference.sh: skipping vt-trace: LBBENCH_TRACES_DIR does not hold lbaf-vt-16ranks" >&2
fi

smpi=(--set engine=smpi --set machine=bgq --set ranks=32)
sweep cost-calibration cost-calibration/mpi-2ranks
sweep cost-calibration cost-calibration/smpi-bgq-32 "${smpi[@]}"
"$lbbench" report "$out/cost-calibration" --csv "$out/cost-calibration/report.csv" \
  --costs-out "$out/cost-calibration/costs.json" > "$out/cost-calibration/report.md"

costs=(--set "machine.costs=$out/cost-calibration/costs.json")
sweep model-accuracy model-accuracy-2ranks "${costs[@]}"
# Simulated runs repeat: one repetition each.
sweep model-accuracy model-accuracy-smpi --repetitions 1 "${smpi[@]}" "${costs[@]}"
sweep model-accuracy model-accuracy-smpi-long --repetitions 1 "${smpi[@]}" --set workload.unit_seconds=2.0e-4 "${costs[@]}"
for folder in model-accuracy-2ranks model-accuracy-smpi model-accuracy-smpi-long; do plot "$folder"; done
