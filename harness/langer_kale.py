#!/usr/bin/env python3
"""Langer & Kale's poster figures from lbbench run records: per rank count, each strategy's
time per step against no balancing and against gossip, its migrations against parallel
prefix, its LB time, and tree's longest list and rounds per call; and, for tree runs at
several rank counts, how its lists and rounds grow with the ranks.

    harness/langer_kale.py RESULTS [RESULTS ...] [--out FILE.md]
    harness/langer_kale.py --lists BEFORE AFTER [--out FILE.md]

RESULTS are record files or folders of them (every *.jsonl below). The first form writes
the poster's table: time per step is the mean wall time of the steps after the first LB
call, as the poster's "time per step" and harness/plot.py's `bars`, so an improvement over
a strategy is 1 - (this step) / (its step), both measured in the same sweep; migrations are
all calls' vertices moved, and the LB time is the calls' decision and migration times
summed. The second form sets the tree runs of two record sets (the code before and after a
change) side by side, rank count by rank count.
"""
import argparse
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from runs import time_per_step_ms

BASELINES = {"none": "no LB", "gossip": "gossip"}


def read_records(paths):
    records = []
    for path in map(Path, paths):
        files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
        for f in files:
            for line in f.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    if r.get("schema") == "lbbench.run/1":
                        records.append(r)
    return records


def tree_depth(ranks, branching=4):
    """Levels below the root of the b-ary tree over `ranks` ranks (rank r's children are
    b*r+1 .. b*r+b), as the tree balancer builds it."""
    depth, last = 0, 0
    while last < ranks - 1:
        last = branching * last + branching
        depth += 1
    return depth


def protocol_calls(r):
    return [c["protocol"] for c in r.get("lb", []) if c.get("protocol")]


def summary(r):
    calls = protocol_calls(r)
    return {
        "step_ms": time_per_step_ms(r),
        "migrations": r.get("migrations", 0),
        "lb_s": r.get("lb_time_s", 0.0) + r.get("migration_time_s", 0.0),
        "decision_s": r.get("lb_time_s", 0.0),
        "calls": r.get("lb_invocations", 0),
        "imbalance_after": [c["imbalance_after"] for c in r.get("lb", [])],
        "rounds": [c["rounds"] for c in calls],
        "largest_list": max((c["largest_list"] for c in calls), default=None),
        "total_s": r["total_time_s"],
    }


def by_ranks(records):
    """ranks -> balancer -> summary of the (median by step time) run."""
    runs = defaultdict(lambda: defaultdict(list))
    for r in records:
        runs[r["ranks"]][r["balancer"]].append(summary(r))
    out = {}
    for ranks, per in runs.items():
        out[ranks] = {}
        for b, ss in per.items():
            ss.sort(key=lambda s: s["step_ms"])
            out[ranks][b] = ss[len(ss) // 2]
    return out


def improvement(mine, theirs):
    return None if not theirs else 1.0 - mine / theirs


def pct(x):
    return "–" if x is None else f"{100 * x:+.1f}%"


def poster_table(records):
    table = by_ranks(records)
    lines = ["| ranks | strategy | step (ms) | vs no LB | vs gossip | migrations | vs prefix | LB time (ms) "
             "| imbalance after | rounds per call | longest list |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    order = ["none", "tree", "gossip", "prefix", "diffusion"]
    for ranks in sorted(table):
        per = table[ranks]
        names = [b for b in order if b in per] + sorted(b for b in per if b not in order)
        for b in names:
            s = per[b]
            none = per.get("none", {}).get("step_ms")
            gossip = per.get("gossip", {}).get("step_ms")
            prefix = per.get("prefix", {}).get("migrations")
            vs_none = improvement(s["step_ms"], none) if b != "none" else None
            vs_gossip = improvement(s["step_ms"], gossip) if b != "gossip" else None
            vs_prefix = improvement(s["migrations"], prefix) if b not in ("prefix", "none") and prefix else None
            imb = f"{100 * statistics.mean(s['imbalance_after']):.1f}%" if s["imbalance_after"] else "–"
            rounds = (f"{min(s['rounds'])}–{max(s['rounds'])}" if len(set(s["rounds"])) > 1 else str(s["rounds"][0])
                      ) if s["rounds"] else "–"
            listed = "–" if s["largest_list"] is None else str(s["largest_list"])
            lines.append(f"| {ranks:,} | {b} | {s['step_ms']:.3f} | {pct(vs_none)} | {pct(vs_gossip)} | "
                         f"{s['migrations']:,} | {pct(vs_prefix)} | {1e3 * s['lb_s']:.1f} | {imb} | {rounds} | "
                         f"{listed} |")
    return "\n".join(lines) + "\n"


def tree_runs(records):
    return {r["ranks"]: summary(r) for r in records if r["balancer"] == "tree"}


def lists_table(before, after):
    old, new = tree_runs(before), tree_runs(after)
    lines = ["| ranks | depth | log2 p | rounds per call, before | after | longest list, before | after |",
             "|---:|---:|---:|---|---|---:|---:|"]

    def rounds(s):
        return "–" if not s or not s["rounds"] else ", ".join(str(x) for x in s["rounds"])

    for ranks in sorted(set(old) | set(new)):
        o, n = old.get(ranks), new.get(ranks)
        lines.append(f"| {ranks:,} | {tree_depth(ranks)} | {math.log2(ranks):.0f} | {rounds(o)} | {rounds(n)} | "
                     f"{o['largest_list'] if o else '–'} | {n['largest_list'] if n else '–'} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="*")
    ap.add_argument("--lists", nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.lists:
        text = lists_table(read_records([args.lists[0]]), read_records([args.lists[1]]))
    elif args.results:
        text = poster_table(read_records(args.results))
    else:
        ap.error("give RESULTS or --lists BEFORE AFTER")
    if args.out:
        Path(args.out).write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
