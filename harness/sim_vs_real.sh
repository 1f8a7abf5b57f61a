#!/usr/bin/env bash
# The simulated engines checked against real runs on this machine (results/sim-vs-real/):
#   1. measure this machine into a preset (lbbench calibrate --preset-out, 2 real ranks);
#   2. run scenarios/sweeps/sim-vs-real.yaml on 2 real ranks, 5 repetitions, each measuring
#      the do_work rate afresh (the sweep's `recalibrate`), on that preset: a real run
#      under `local` knows no network, and a balancer that prices its calls (`auto`)
#      would price them at an assumed alpha and beta the simulators do not use;
#   3. run the same sweep on the measured preset under SMPI and on the model engine, once
#      each (both repeat themselves exactly);
#   4. report the three side by side (lbbench report --engines mpi).
# On a cluster, run step 1 under srun across the nodes a run will use, and step 2 with
# `--launcher srun` inside the allocation.
#
#   harness/sim_vs_real.sh [OUT]      default results/sim-vs-real; LBBENCH=build/lbbench
#
# vt-trace.yaml reads LBAF's vt run from LBBENCH_TRACES_DIR (LBAF's data folder).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-$here/results/sim-vs-real}")"
lbbench="${LBBENCH:-$here/build/lbbench}"
sweep="$here/scenarios/sweeps/sim-vs-real.yaml"
mpirun=(mpirun --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then mpirun+=(--allow-run-as-root); fi
"$here/harness/require_clean_build.sh" "$lbbench"

mkdir -p "$out"
# The preset by a path relative to the source tree where it is inside it, so that the
# records name it the same on every machine.
cd "$here"
preset="$(realpath -m --relative-base="$here" "$out/host.yaml")"
"${mpirun[@]}" -np 2 "$lbbench" calibrate --preset-out "$preset"
# Record files over 2 MiB are committed gzipped; the sweep resumes from the plain file.
if [[ -f "$out/runs.jsonl.gz" && ! -f "$out/runs.jsonl" ]]; then gunzip -k "$out/runs.jsonl.gz"; fi
"$lbbench" sweep "$sweep" --results "$out" --set engine=mpi --set "machine=$preset"
for engine in smpi model; do
  "$lbbench" sweep "$sweep" --results "$out" --set engine=$engine --set "machine=$preset" --repetitions 1
done
"$lbbench" report "$out" --engines mpi > "$out/report.md"
echo "wrote $out/report.md"
