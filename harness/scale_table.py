#!/usr/bin/env python3
"""Simulated and modeled runs at scale: scenarios/scale.yaml (a 64^3 grid, 262,144 vertices,
one LB call) under SimGrid SMPI or the model engine at several rank counts, one balancer per
family, with the run's wall time and peak memory on this host next to the simulated times.

    harness/scale_table.py [--ranks 1024 4096] [--balancers none tree ...] [--machine bgq]
                           [--engine smpi|model] [--set KEY=VALUE ...] [--scenario FILE]
                           [--timeout 3600] [--out scale-results] [--smpi-cfg KEY:VALUE ...]

Each run appends its record to OUT/scale.jsonl and a row to OUT/scale.csv (wall seconds and
peak RSS from /usr/bin/time, or why it did not finish). Rows already in the CSV are skipped,
so the table can be grown over several sittings; the table of every row is printed at the
end and written to OUT/scale.md. A run that exceeds --timeout is recorded as such and the
next one starts. --smpi-cfg passes SimGrid settings to every run, and --set scenario
settings (a larger mesh for more ranks, say); like the engine, they are part of the row
(and of what makes it done), and the table names them. The rank-reorder family has
two rows, reorder-identity and reorder-dist: 4 ranks per simulated core, the ranks kept
or permuted at start-up by the distributed reorder.
"""
import argparse
import csv
import sys
from pathlib import Path

from runs import portable, timed_run

HERE = Path(__file__).resolve().parent.parent
FAMILIES = {"none": "baseline", "greedy": "global", "refine": "global", "metis": "global",
            "diffusion": "diffusive", "tree": "tree", "gossip": "gossip", "prefix": "prefix",
            "multi-greedy": "vector", "norm": "vector", "vector-refine": "vector", "metis-vector": "vector",
            "reorder-identity": "reorder", "reorder-dist": "reorder"}
# The rank-reorder family permutes the ranks at start-up instead of moving vertices; it
# needs ranks that share cores, here 4 per simulated core. reorder-identity is its baseline.
STARTUP_REORDER = {"reorder-identity": "identity", "reorder-dist": "dist"}
PROCESSES_PER_CORE = 4
FIELDS = ["ranks", "balancer", "family", "status", "wall_s", "peak_rss_gb", "total_s", "lb_s", "migration_s",
          "migrations", "smpi_cfg", "engine", "settings"]
# Columns a table made before them lacks, and what its rows had.
ADDED_COLUMNS = {"smpi_cfg": "", "engine": "smpi", "settings": ""}


def run_one(args, ranks, balancer, records):
    cmd = [portable(args.lbbench), "run", portable(args.scenario), "--engine", args.engine, "--machine", args.machine,
           "--ranks", str(ranks), "--out", portable(records)]
    if balancer in STARTUP_REORDER:
        cmd += ["--set", "balancer.name=none", "--set", f"reorder={STARTUP_REORDER[balancer]}",
                "--set", f"machine.processes_per_core={PROCESSES_PER_CORE}"]
    else:
        cmd += ["--set", f"balancer.name={balancer}"]
    for setting in args.smpi_cfg:
        cmd += ["--smpi-cfg", setting]
    for setting in args.set:
        cmd += ["--set", setting]
    row = {"ranks": ranks, "balancer": balancer, "family": FAMILIES.get(balancer, "?"),
           "smpi_cfg": " ".join(args.smpi_cfg), "engine": args.engine, "settings": " ".join(args.set)}
    status, wall, rss, r = timed_run(cmd, records, args.timeout)
    if status != "ok":
        return {**row, "status": status}
    # The reorder decides once, before the replay: its create call is its LB time.
    lb_s = r["reorder"]["create_s"] if "reorder" in r else r["lb_time_s"]
    return {**row, "status": "ok", "wall_s": wall, "peak_rss_gb": rss, "total_s": r["total_time_s"], "lb_s": lb_s,
            "migration_s": r["migration_time_s"], "migrations": r["migrations"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lbbench", default=str(HERE / "build" / "lbbench"))
    ap.add_argument("--scenario", default=str(HERE / "scenarios" / "scale.yaml"))
    ap.add_argument("--machine", default="bgq")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--balancers", nargs="+", default=list(FAMILIES))
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default="scale-results")
    ap.add_argument("--smpi-cfg", action="append", default=[], metavar="KEY:VALUE")
    ap.add_argument("--engine", choices=["smpi", "model"], default="smpi")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args()
    if args.smpi_cfg and args.engine != "smpi":
        ap.error("--smpi-cfg is for --engine smpi")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table = out / "scale.csv"
    rows = read_rows(table)
    key = (" ".join(args.smpi_cfg), args.engine, " ".join(args.set))
    done = {(int(r["ranks"]), r["balancer"], r["smpi_cfg"], r["engine"], r["settings"]) for r in rows}
    for ranks in args.ranks:
        for balancer in args.balancers:
            if (ranks, balancer, *key) in done:
                continue
            print(f"{ranks:>7} ranks  {balancer:<13} {args.engine}", end=" ", file=sys.stderr, flush=True)
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


def read_rows(table):
    """The table's rows; a table from before a column gets it, with what its rows had."""
    if not table.exists():
        return []
    with table.open() as f:
        reader = csv.DictReader(f)
        rows = [{k: v or "" for k, v in r.items()} for r in reader]
        old_header = reader.fieldnames != FIELDS
    for r in rows:
        for column, value in ADDED_COLUMNS.items():
            r.setdefault(column, value)
    if old_header:
        with table.open("w", newline="") as f:
            w = csv.DictWriter(f, FIELDS)
            w.writeheader()
            w.writerows(rows)
    return rows


def markdown_table(rows):
    lines = ["| engine | ranks | balancer | family | wall (s) | peak RSS (GB) | simulated total (s) | LB (s) "
             "| migration (s) | migrations |", "|---|---:|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(rows, key=lambda r: (r["engine"], int(r["ranks"]), r["family"], r["balancer"], r["smpi_cfg"],
                                         r["settings"])):
        settings = " ".join(x for x in (r["smpi_cfg"], r["settings"]) if x)
        name = f"{r['balancer']} ({settings})" if settings else r["balancer"]
        if r["status"] != "ok":
            lines.append(f"| {r['engine']} | {r['ranks']} | {name} | {r['family']} | {r['status']} | | | | | |")
            continue
        lines.append(f"| {r['engine']} | {r['ranks']} | {name} | {r['family']} | {float(r['wall_s']):.0f} | "
                     f"{float(r['peak_rss_gb']):.2f} | {float(r['total_s']):.3f} | {float(r['lb_s']):.3f} | "
                     f"{float(r['migration_s']):.3f} | {r['migrations']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
