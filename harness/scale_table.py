#!/usr/bin/env python3
"""Simulated runs at scale: scenarios/scale.yaml (a 64^3 grid, 262,144 vertices, one LB call)
under SimGrid SMPI at several rank counts, one balancer per family, with the simulation's
wall time and peak memory on this host next to the simulated times.

    harness/scale_table.py [--ranks 1024 4096] [--balancers none tree ...] [--machine bgq]
                           [--timeout 3600] [--out scale-results]

Each run appends its record to OUT/scale.jsonl and a row to OUT/scale.csv (wall seconds and
peak RSS from /usr/bin/time, or why it did not finish). Rows already in the CSV are skipped,
so the table can be grown over several sittings; the table of every row is printed at the
end and written to OUT/scale.md. A run that exceeds --timeout is recorded as such and the
next one starts.
"""
import argparse
import csv
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
FAMILIES = {"none": "baseline", "greedy": "global", "refine": "global", "metis": "global",
            "diffusion": "diffusive", "tree": "tree", "gossip": "gossip", "prefix": "prefix",
            "multi-greedy": "vector", "norm": "vector", "vector-refine": "vector", "metis-vector": "vector"}
FIELDS = ["ranks", "balancer", "family", "status", "wall_s", "peak_rss_gb", "total_s", "lb_s", "migration_s",
          "migrations"]


def run_one(args, ranks, balancer, records):
    cmd = ["/usr/bin/time", "-f", "%e %M", args.lbbench, "run", str(args.scenario), "--engine", "smpi",
           "--machine", args.machine, "--ranks", str(ranks), "--set", f"balancer.name={balancer}",
           "--out", str(records)]
    row = {"ranks": ranks, "balancer": balancer, "family": FAMILIES.get(balancer, "?")}
    before = records.read_text().count("\n") if records.exists() else 0
    # Its own process group, so that a run over time goes with smpirun and the simulation.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=args.timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {**row, "status": f"not finished in {args.timeout:.0f} s"}
    done = subprocess.CompletedProcess(cmd, proc.returncode, "", stderr)
    timing = done.stderr.strip().splitlines()[-1].split() if done.stderr.strip() else []
    if done.returncode != 0 or len(timing) != 2:
        tail = " ".join(done.stderr.strip().splitlines()[-2:])[:200]
        return {**row, "status": f"failed ({done.returncode}): {tail}"}
    lines = records.read_text().splitlines()
    if len(lines) <= before:
        return {**row, "status": "no record"}
    r = json.loads(lines[-1])
    return {**row, "status": "ok", "wall_s": float(timing[0]), "peak_rss_gb": int(timing[1]) / 1e6,
            "total_s": r["total_time_s"], "lb_s": r["lb_time_s"], "migration_s": r["migration_time_s"],
            "migrations": r["migrations"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lbbench", default=str(HERE / "build" / "lbbench"))
    ap.add_argument("--scenario", default=str(HERE / "scenarios" / "scale.yaml"))
    ap.add_argument("--machine", default="bgq")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--balancers", nargs="+", default=list(FAMILIES))
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default="scale-results")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table = out / "scale.csv"
    rows = list(csv.DictReader(table.open())) if table.exists() else []
    done = {(int(r["ranks"]), r["balancer"]) for r in rows}
    for ranks in args.ranks:
        for balancer in args.balancers:
            if (ranks, balancer) in done:
                continue
            print(f"{ranks:>6} ranks  {balancer:<13}", end=" ", file=sys.stderr, flush=True)
            row = run_one(args, ranks, balancer, out / "scale.jsonl")
            print(row["status"], row.get("wall_s", ""), file=sys.stderr, flush=True)
            new = not table.exists()
            with table.open("a", newline="") as f:
                w = csv.DictWriter(f, FIELDS)
                if new:
                    w.writeheader()
                w.writerow(row)
            rows.append({k: str(v) for k, v in row.items()})

    text = markdown_table(rows)
    (out / "scale.md").write_text(text)
    print(text, end="")


def markdown_table(rows):
    lines = ["| ranks | balancer | family | wall (s) | peak RSS (GB) | simulated total (s) | LB (s) | migration (s) "
             "| migrations |", "|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(rows, key=lambda r: (int(r["ranks"]), r["family"], r["balancer"])):
        if r["status"] != "ok":
            lines.append(f"| {r['ranks']} | {r['balancer']} | {r['family']} | {r['status']} | | | | | |")
            continue
        lines.append(f"| {r['ranks']} | {r['balancer']} | {r['family']} | {float(r['wall_s']):.0f} | "
                     f"{float(r['peak_rss_gb']):.2f} | {float(r['total_s']):.3f} | {float(r['lb_s']):.3f} | "
                     f"{float(r['migration_s']):.3f} | {r['migrations']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
