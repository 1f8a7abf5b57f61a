#!/usr/bin/env python3
"""The replay's own floor against Task Bench's, measured interleaved on this host.

    harness/task_bench.py --task-bench PATH/TO/task-bench/mpi/nonblock [--repetitions 4] [--out DIR]

Task Bench (Slaughter et al., SC'20) rates a runtime by METG(50%): the smallest task
granularity (elapsed time x cores / tasks) at which a run still does half the useful work
per second that it does with large tasks. This script measures it for three loops on the
same graph, a chain of one task per rank with 16-byte messages (Task Bench's stencil_1d
with width = ranks):

- the replay and the bare loop, from `lbbench calibrate --overhead` (see the README);
- Task Bench's own MPI "nonblock" binary, built by the user from its sources, with its
  compute_bound kernel at 1, 2, 4, ... iterations per task up to about 1 ms, and its
  empty kernel for the per-step floor.

Each repetition runs both, lbbench first in even repetitions and Task Bench first in odd
ones, so that whatever else the host does falls on both alike. Each loop's efficiency is
relative to its own peak (the median rate of its four largest tasks): do_work's useful work
is its target time, Task Bench's is FLOPs, so the two rates are not one quantity. The 50%
crossing is interpolated on a log scale, as `calibrate --overhead` does. The per-step
floor is the time per step with no work: the replay's and the bare loop's at work 0,
Task Bench's with its empty kernel.

It prints a markdown table (and, with --out, writes it with every point as JSON), with the
load average before and after, and the replay's ratios to Task Bench computed within each
repetition, whose spread shows how much the host drifted.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PEAK_POINTS = 4
LEVEL = 0.5
PROBE_ITERATIONS = 1 << 14


def parse_task_bench(stdout):
    """Elapsed seconds, total tasks and total FLOPs from a Task Bench run's output."""
    found = {}
    for key, pattern in (("elapsed_s", r"Elapsed Time (\S+) seconds"), ("tasks", r"Total Tasks (\d+)"),
                         ("flops", r"Total FLOPs (\S+)")):
        match = re.search(pattern, stdout)
        if not match:
            raise ValueError(f"no '{pattern.split(' (')[0]}' in Task Bench's output:\n{stdout}")
        found[key] = float(match.group(1))
    return found


def crossing(points, level=LEVEL):
    """The granularity at which efficiency first reaches `level`, going up from the smallest
    task; interpolated on log granularity with the point before it. `points` are
    (granularity_s, efficiency) in order of growing work. None where even the smallest task
    reaches it, or none does."""
    below = None
    for granularity, efficiency in points:
        if efficiency >= level:
            if below is None:
                return None
            f = (level - below[1]) / (efficiency - below[1])
            return math.exp(below[0] + f * (math.log(granularity) - below[0]))
        below = (math.log(granularity), efficiency)
    return None


def peak(rates):
    return statistics.median(rates[-PEAK_POINTS:])


def mpiexec(args, command):
    return [args.mpiexec, "-np", str(args.np), *command]


def run_lbbench(args, json_path):
    command = [args.lbbench, "calibrate", "--overhead", "--repetitions", "1", "--json", str(json_path)]
    if args.quick:
        command.append("--quick")
    subprocess.run(mpiexec(args, command), check=True, stdout=subprocess.DEVNULL)
    return json.loads(Path(json_path).read_text())


def run_task_bench(args, kernel, iterations, steps):
    command = [args.task_bench, "-steps", str(steps), "-width", str(args.np), "-type", "stencil_1d", "-kernel", kernel,
               "-iter", str(iterations), "-output", "16"]
    out = subprocess.run(mpiexec(args, command), check=True, capture_output=True, text=True).stdout
    return parse_task_bench(out)


def steps_for(per_step_s, seconds):
    return int(min(200_000, max(100, seconds / per_step_s)))


def task_bench_iterations(args):
    """1, 2, 4, ... iterations per task up to about --top seconds per step, from one probe
    of the compute_bound kernel's time per iteration."""
    probe = run_task_bench(args, "compute_bound", PROBE_ITERATIONS, 200)
    per_iteration = probe["elapsed_s"] / 200 / PROBE_ITERATIONS
    top = max(1, round(math.log2(args.top / per_iteration)))
    return [1 << k for k in range(top + 1)], per_iteration


def task_bench_sweep(args, iterations, per_iteration, floor_s):
    """One run of the empty kernel and one per iteration count: seconds per step and
    FLOP/s."""
    steps = steps_for(floor_s, args.seconds)
    empty = run_task_bench(args, "empty", 0, steps)
    rows = [{"iterations": 0, "kernel": "empty", "steps": steps, "step_s": empty["elapsed_s"] * args.np / empty["tasks"],
             "rate": None}]
    for n in iterations:
        steps = steps_for(floor_s + n * per_iteration, args.seconds)
        run = run_task_bench(args, "compute_bound", n, steps)
        rows.append({"iterations": n, "kernel": "compute_bound", "steps": steps,
                     "step_s": run["elapsed_s"] * args.np / run["tasks"], "rate": run["flops"] / run["elapsed_s"]})
    return rows


def load_average():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def lbbench_summary(repetitions):
    """Per point, the median over repetitions; then each loop's METG and floor, against one
    peak for both as `calibrate --overhead` has it."""
    points = []
    for i, first in enumerate(repetitions[0]):
        points.append({"work_s": first["work_s"],
                       "replay_step_s": statistics.median(r[i]["replay_step_s"] for r in repetitions),
                       "bare_step_s": statistics.median(r[i]["bare_step_s"] for r in repetitions)})
    worked = [p for p in points if p["work_s"] > 0]
    top = worked[-PEAK_POINTS:]
    rate = statistics.median([p["work_s"] / p[loop] for p in top for loop in ("replay_step_s", "bare_step_s")])
    out = {"points": points}
    for loop in ("replay", "bare"):
        key = f"{loop}_step_s"
        out[loop] = {"metg_s": crossing([(p[key], p["work_s"] / p[key] / rate) for p in worked]),
                     "floor_s": points[0][key]}
    return out


def task_bench_summary(repetitions):
    rows = []
    for i, first in enumerate(repetitions[0]):
        rates = [r[i]["rate"] for r in repetitions]
        rows.append({"iterations": first["iterations"], "step_s": statistics.median(r[i]["step_s"] for r in repetitions),
                     "rate": statistics.median(rates) if first["rate"] is not None else None})
    worked = [r for r in rows if r["rate"] is not None]
    top = peak([r["rate"] for r in worked])
    return {"points": rows, "metg_s": crossing([(r["step_s"], r["rate"] / top) for r in worked]),
            "floor_s": rows[0]["step_s"]}


def paired_ratios(lbbench_runs, task_bench_runs):
    """Per repetition, the replay's METG and floor over Task Bench's of the same repetition,
    which ran next to it: the host's drift between sittings falls on both alike."""
    metg, floor = [], []
    for mine, theirs in zip(lbbench_runs, task_bench_runs):
        replay, other = lbbench_summary([mine])["replay"], task_bench_summary([theirs])
        if replay["metg_s"] is not None and other["metg_s"] is not None:
            metg.append(replay["metg_s"] / other["metg_s"])
        floor.append(replay["floor_s"] / other["floor_s"])
    return {"metg": metg, "floor": floor}


def spread(ratios):
    if not ratios:
        return "–"
    return f"median {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f}, {len(ratios)} repetitions)"


def microseconds(s):
    return "below the smallest task" if s is None else f"{s * 1e6:.3f}"


def ratio(a, b):
    return "–" if a is None or b is None else f"{a / b:.2f}"


def table(lbbench, task_bench, paired, args, loads):
    tb_metg, tb_floor = task_bench["metg_s"], task_bench["floor_s"]
    lines = [f"{args.np} ranks, a chain of one task per rank (Task Bench: stencil_1d, width {args.np}), "
             f"16-byte messages, {args.repetitions} interleaved repetitions, medians; "
             f"load average {loads[0]} before, {loads[1]} after.", "",
             "| loop | METG(50%) (µs) | per-step floor (µs) | METG / Task Bench's | floor / Task Bench's |",
             "|---|---:|---:|---:|---:|"]
    for name, loop in (("lbbench replay", lbbench["replay"]), ("bare loop (Task Bench's pattern, do_work)",
                                                                lbbench["bare"])):
        lines.append(f"| {name} | {microseconds(loop['metg_s'])} | {microseconds(loop['floor_s'])} | "
                     f"{ratio(loop['metg_s'], tb_metg)} | {ratio(loop['floor_s'], tb_floor)} |")
    lines.append(f"| Task Bench nonblock (compute_bound; empty for the floor) | {microseconds(tb_metg)} | "
                 f"{microseconds(tb_floor)} | 1.00 | 1.00 |")
    lines += ["", "The replay over Task Bench, each repetition against the one next to it: "
              f"METG {spread(paired['metg'])}; floor {spread(paired['floor'])}."]
    return "\n".join(lines) + "\n"


def measure(args):
    loads = [load_average()]
    iterations, per_iteration = task_bench_iterations(args)
    lbbench_runs, task_bench_runs, described = [], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repetitions):
            order = ("lbbench", "task bench") if rep % 2 == 0 else ("task bench", "lbbench")
            for which in order:
                if which == "lbbench":
                    written = run_lbbench(args, Path(tmp) / f"overhead-{rep}.json")
                    lbbench_runs.append(written["points"])
                    described.add((written["git"], written["host"]))
                else:
                    floor = lbbench_runs[-1][0]["bare_step_s"] if lbbench_runs else 0.5e-6
                    task_bench_runs.append(task_bench_sweep(args, iterations, per_iteration, floor))
    loads.append(load_average())
    return (lbbench_summary(lbbench_runs), task_bench_summary(task_bench_runs),
            paired_ratios(lbbench_runs, task_bench_runs), loads, per_iteration,
            [{"git": git, "host": host} for git, host in sorted(described)])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task-bench", required=True, help="Task Bench's MPI nonblock binary")
    parser.add_argument("--lbbench", default=os.environ.get("LBBENCH", "build/lbbench"))
    parser.add_argument("--mpiexec", default=os.environ.get("LBBENCH_MPIEXEC", "mpirun"))
    parser.add_argument("--np", type=int, default=2, help="ranks (one task per rank)")
    parser.add_argument("--repetitions", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=0.15, help="about how long each Task Bench run lasts")
    parser.add_argument("--top", type=float, default=1e-3,
                        help="Task Bench's largest task in seconds (lbbench's largest do_work is about 1 ms)")
    parser.add_argument("--quick", action="store_true", help="lbbench's short measurement (calibrate --quick)")
    parser.add_argument("--out", type=Path, help="write task-bench.md and task-bench.json here")
    args = parser.parse_args(argv)
    if not os.access(args.task_bench, os.X_OK):
        parser.error(f"--task-bench: '{args.task_bench}' is not an executable (build Task Bench's mpi/nonblock)")
    lbbench, task_bench, paired, loads, per_iteration, provenance = measure(args)
    text = table(lbbench, task_bench, paired, args, loads)
    print(text, end="")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "task-bench.md").write_text(text)
        (args.out / "task-bench.json").write_text(json.dumps(
            {"provenance": provenance, "ranks": args.np, "repetitions": args.repetitions, "load_average": loads,
             "task_bench_seconds_per_iteration": per_iteration, "lbbench": lbbench, "task_bench": task_bench,
             "replay_over_task_bench_per_repetition": paired},
            indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
