#!/usr/bin/env bash
# Makes the committed reference results (results/README.md names the commit they were made
# at): the sweeps of scenarios/sweeps/, their reports and plots, and the harness's tables.
#
#   harness/reference.sh [--out DIR] [PART ...]      (default: results/, every part)
#
# Parts, in the order they run (hours on 2 cores in all; `scale` and `model-vs-smpi` are
# most of it):
#   auto           `auto` and its candidates on the three accuracy sweeps, model engine and SMPI
#   langer-kale    Langer & Kalé's poster: scale.yaml's hot spot and AMR3D's blocks, modeled
#                  BG/Q up to 262,144 ranks, and tree's lists and rounds up to 1,048,576
#   papers         balancers, Koenig & Kalé's Figure 2, Buch's vector, the vt trace, plugins
#   real           real Open MPI on 2 ranks: bootstrap intervals, the cost fits, Keller's table,
#                  the replay's METG against Task Bench's
#   sim-vs-real    the simulated engines against real runs on this host's measured preset
#   model-vs-smpi  the model engine against SMPI at 256 to 4,096 ranks (AMR3D at 1,024)
#   scale          the simulation's wall time and memory, up to 1,048,576 ranks
# Runs already recorded are skipped, so an interrupted part resumes; move DIR away to start
# over. vt-trace and the accuracy sweeps need LBBENCH_TRACES_DIR (LBAF's data folder);
# model-accuracy-2 needs LBBENCH_MESHES_DIR (METIS's graphs); task-bench needs
# LBBENCH_TASK_BENCH (Task Bench's MPI nonblock binary, built from its sources).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
out=results
if [[ "${1:-}" == "--out" ]]; then
  out=$2
  shift 2
fi
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(auto langer-kale papers real sim-vs-real model-vs-smpi scale)
lbbench="${LBBENCH:-$here/build/lbbench}"
python="${PYTHON:-/usr/bin/python3}"
"$here/harness/require_clean_build.sh" "$lbbench"

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

part_auto() {
  local model=(--set engine=model)
  local bgq32=(--set machine=bgq --set ranks=32 --repetitions 1)
  sweep model-accuracy model-accuracy/1-model "${model[@]}" "${bgq32[@]}"
  sweep model-accuracy-2 model-accuracy/2-model "${model[@]}"
  sweep model-accuracy-3 model-accuracy/3-model "${model[@]}"
  # SMPI's short steps; model-accuracy-2's 128 ranks on SMPI take hours, so only the model's.
  sweep model-accuracy model-accuracy/1-smpi --set engine=smpi "${bgq32[@]}"
  sweep model-accuracy-3 model-accuracy/3-smpi
}

part_langer_kale() {
  sweep langer-kale langer-kale/scale
  sweep langer-kale-amr3d langer-kale/amr3d
  sweep tree-lists-amr3d langer-kale/tree-lists
  for folder in scale amr3d; do
    "$python" harness/langer_kale.py "$out/langer-kale/$folder" --out "$out/langer-kale/$folder/poster.md"
    plot "langer-kale/$folder"
  done
  "$python" harness/langer_kale.py "$out/langer-kale/tree-lists" --out "$out/langer-kale/tree-lists/poster.md"
}

part_papers() {
  for name in balancers koenig-kale-fig2 vector; do
    sweep "$name" "$name"
    plot "$name"
  done
  if [[ -d "${LBBENCH_TRACES_DIR:-}/lbaf-vt-16ranks" ]]; then
    sweep vt-trace vt-trace
    plot vt-trace
  else
    echo "reference.sh: skipping vt-trace: LBBENCH_TRACES_DIR does not hold lbaf-vt-16ranks" >&2
  fi
  sweep plugins plugins
  plot plugins
}

part_real() {
  sweep real-2ranks real-2ranks
  plot real-2ranks
  sweep cost-calibration cost-calibration/mpi-2ranks
  sweep cost-calibration cost-calibration/smpi-bgq-32 --set engine=smpi --set machine=bgq --set ranks=32
  "$lbbench" report "$out/cost-calibration" --csv "$out/cost-calibration/report.csv" \
    --costs-out "$out/cost-calibration/costs.json" > "$out/cost-calibration/report.md"
  "$python" harness/reorder_table.py --repetitions 3 --out "$out/reorder-table"
  if [[ ! -x "${LBBENCH_TASK_BENCH:-}" ]]; then
    echo "reference.sh: skipping task-bench: LBBENCH_TASK_BENCH is not Task Bench's mpi/nonblock" >&2
  elif [[ ! -f "$out/task-bench/task-bench.json" ]]; then  # one measurement, interleaved: no resuming
    "$python" harness/task_bench.py --task-bench "$LBBENCH_TASK_BENCH" --lbbench "$lbbench" --repetitions 8 \
      --out "$out/task-bench"
  fi
}

part_sim_vs_real() { LBBENCH="$lbbench" harness/sim_vs_real.sh "$out/sim-vs-real"; }

part_model_vs_smpi() {
  local mvs=("$python" harness/model_vs_smpi.py --lbbench "$lbbench" --set machine.eager_bytes=0 --out "$out/model-vs-smpi")
  "${mvs[@]}" --ranks 256
  "${mvs[@]}" --ranks 1024 --balancers none tree prefix diffusion metis gossip
  "${mvs[@]}" --ranks 4096 --scenarios scenarios/scale.yaml --balancers none prefix diffusion tree
  # AMR3D's blocks, sized for tens of blocks a rank. Only 1,024 ranks: at 4,096 one SMPI run
  # of these takes hours. No gossip: SimGrid 3.32's sharing solver aborts on its rounds
  # ("Cannot saturate more a constraint that has no active element").
  "${mvs[@]}" --ranks 1024 --scenarios scenarios/amr3d.yaml --balancers none tree prefix diffusion \
    --set mesh.min_level=5 --set mesh.max_level=8 --set steps=12 --set balancer.period=4
}

part_scale() {
  local scale=("$python" harness/scale_table.py --lbbench "$lbbench" --engine model --out "$out/scale")
  local grid=(--set mesh.nx=256 --set mesh.ny=256 --set mesh.nz=128)
  local amr3d=(--scenario scenarios/amr3d.yaml --set mesh.min_level=5 --set mesh.max_level=10
    --set mesh.front.radius=0.2 --set mesh.front.speed=0.00025 --set steps=8 --set balancer.period=4)
  # Gossip's messages carry at most 64 known ranks, as in langer-kale.yaml.
  local gossip=(--balancers gossip --set balancer.params.info_limit=64)
  for ranks in 8192 32768 131072 262144 1048576; do
    "${scale[@]}" --ranks "$ranks" --balancers none tree prefix diffusion "${grid[@]}"
    "${scale[@]}" --ranks "$ranks" "${gossip[@]}" "${grid[@]}"
  done
  for ranks in 262144 1048576; do
    "${scale[@]}" --ranks "$ranks" --balancers none tree prefix diffusion "${amr3d[@]}"
    "${scale[@]}" --ranks "$ranks" "${gossip[@]}" "${amr3d[@]}"
  done
}

for part in "${parts[@]}"; do
  case "$part" in
    auto | langer-kale | papers | real | sim-vs-real | model-vs-smpi | scale) "part_${part//-/_}" ;;
    *)
      echo "reference.sh: no part '$part' (auto, langer-kale, papers, real, sim-vs-real, model-vs-smpi, scale)" >&2
      exit 2
      ;;
  esac
done
