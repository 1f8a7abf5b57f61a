#!/usr/bin/env python3
"""Keller et al.'s Table 1 on this machine: the reorder scenario run for real with every
reorder method, on equal and unequal numbers of processes per core, as runtime ratios
to the optimal (exact) plan.

    harness/reorder_table.py [--lbbench build/lbbench] [--repetitions 5] [--out DIR]

do_work is calibrated once, by one process per core, before any oversubscribed launch:
each of 16 processes calibrating while they share 2 cores measured the kernel about 3.5
times too fast, and differently each time. The runs then read that calibration (cached per
host and per number of ranks reading at once, which is one per core when they take turns).
Runs are interleaved (every method once, then again) so drifts in machine load touch
every method alike; the table gives each method's median ratio to the exact plan's run of
the same repetition, with the range over the repetitions. Records go to
DIR/reorder.jsonl and the table to DIR/table.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from runs import portable

HERE = Path(__file__).resolve().parent.parent
METHODS = ["exact", "ours", "paper", "dist", "identity", "random", "worst"]
LAYOUTS = {"8 per core": "cores=2", "6 and 10 per core": "cores=[6, 10]"}


def run(lbbench, scenario, ranks, out, sets):
    cmd = ["mpirun", "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    cmd += ["-np", str(ranks), portable(lbbench), "run", portable(scenario), "--out", portable(out)]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600)
    with open(out) as f:
        return json.loads(f.readlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lbbench", default=str(HERE / "build" / "lbbench"))
    ap.add_argument("--scenario", default=str(HERE / "scenarios" / "reorder.yaml"))
    ap.add_argument("--ranks", type=int, default=16)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--out", default="reorder-results")
    args = ap.parse_args()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    records = out_dir / "reorder.jsonl"

    # One calibration, by one process per core on an idle host, for every run to read.
    readers = min(args.ranks, os.cpu_count() or 1)
    launcher = ["mpirun"] + (["--allow-run-as-root"] if os.geteuid() == 0 else []) + ["-np", str(readers)]
    subprocess.run(launcher + [args.lbbench, "calibrate", "--quick"], check=True, capture_output=True, text=True,
                   timeout=600)
    times = {(layout, m): [] for layout in LAYOUTS for m in METHODS}
    create = {(layout, m): [] for layout in LAYOUTS for m in METHODS}
    planned = {}
    for rep in range(args.repetitions):
        for layout, cores in LAYOUTS.items():
            for m in METHODS:
                r = run(args.lbbench, args.scenario, args.ranks, records, [cores, f"reorder={m}"])
                times[(layout, m)].append(r["total_time_s"])
                create[(layout, m)].append(r["reorder"]["create_s"])
                planned[(layout, m)] = r["reorder"]["max_core_load_after_s"]
                print(f"rep {rep + 1}/{args.repetitions}  {layout:>18}  {m:>8}  {r['total_time_s']:.3f} s",
                      file=sys.stderr)

    unit = min(planned.values()) / 18 if planned else 1  # the example's unit of load
    lines = [f"Wall time of {args.repetitions} runs, {args.ranks} processes on 2 cores, as ratios to the exact plan's "
             "run of the same repetition: median [lowest, highest]; in brackets after them the maximum core load "
             "the plan predicts, in the paper's units.", "",
             "| processes per core | " + " | ".join(METHODS) + " |", "|---|" + "---|" * len(METHODS)]
    for layout in LAYOUTS:
        cells = []
        for m in METHODS:
            ratios = [t / e for t, e in zip(times[(layout, m)], times[(layout, "exact")])]
            cells.append(f"{statistics.median(ratios):.3f} [{min(ratios):.3f}, {max(ratios):.3f}] "
                         f"({planned[(layout, m)] / unit:.0f})")
        lines.append(f"| {layout} | " + " | ".join(cells) + " |")
    exact_s = {layout: round(statistics.median(times[(layout, "exact")]), 3) for layout in LAYOUTS}
    lines += ["", f"Median seconds (exact): {exact_s}", "", "Median time of the create call (ms):", "",
              "| processes per core | " + " | ".join(METHODS) + " |", "|---|" + "---|" * len(METHODS)]
    for layout in LAYOUTS:
        lines.append(f"| {layout} | " + " | ".join(f"{1e3 * statistics.median(create[(layout, m)]):.2f}"
                                                for m in METHODS) + " |")
    text = "\n".join(lines) + "\n"
    (out_dir / "table.md").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
