#!/usr/bin/env python3
"""The model engine against SimGrid SMPI: the same scenarios, rank counts and balancers on
both engines, and a table of where they agree.

    harness/model_vs_smpi.py [--scenarios scenarios/scale.yaml ...] [--ranks 256 1024 4096]
                             [--balancers none tree ...] [--machine bgq] [--host-ghz G]
                             [--set KEY=VALUE ...] [--timeout 3600] [--out results/model-vs-smpi]
                             [--repetitions N] [--redo-model] [--table-only]

Each run appends its record to OUT/runs.jsonl and a row to OUT/runs.csv (the engine, the
wall time and peak RSS from /usr/bin/time, or why it did not finish). Each (scenario, ranks,
balancer, engine) is run until the CSV has --repetitions rows of it (1 by default), so the
comparison grows over several sittings (settings given with --set
apply to every run: give each set of them its own --out); --redo-model drops the
model engine's rows and records first (they take seconds), to compare a changed model with
the SMPI runs already made. Both engines get the same --host-ghz, so they charge the
balancers' code alike; without it, it is measured once and kept in OUT/host_ghz.

OUT/model-vs-smpi.md has, per scenario and rank count, each balancer's migrations and
placement (equal or not), the largest difference of the imbalance after an LB call, the
total, decision and migration times on both engines (with several runs, each engine's median,
and the range of the decision times), and whether the two engines order the balancers alike
by total time. The criteria it checks: identical migrations and owners,
imbalance after each call within 1 percentage point, total time within 10%, the same
ordering (strictly, and again with pairs within 2% under SMPI left out as near-ties), and
decision times within 20% (over all rank counts, and from 1,024 ranks on).
"""
import argparse
import csv
import json
import statistics
import subprocess
import sys
from pathlib import Path

from runs import portable, timed_run

HERE = Path(__file__).resolve().parent.parent
ENGINES = ["smpi", "model"]
FIELDS = ["scenario", "ranks", "balancer", "engine", "status", "wall_s", "peak_rss_gb"]
IMBALANCE_PP = 1.0
TOTAL_REL = 0.10
DECISION_REL = 0.20
# Two balancers whose SMPI totals are closer than this are a near-tie: the order of a pair
# closer than run-to-run noise is reported, and checked apart from the strict order.
NEAR_TIE_REL = 0.02
# The goal for decision times is at these rank counts and above.
DECISION_GOAL_RANKS = 1024


def measure_host_ghz(args, out):
    """This host's clock as lbbench measures it, once for every run of the comparison."""
    kept = out / "host_ghz"
    if kept.exists():
        return float(kept.read_text())
    probe = out / "host_ghz_probe.jsonl"
    subprocess.run([args.lbbench, "run", str(HERE / "scenarios" / "quickstart.yaml"), "--engine", "model",
                    "--machine", args.machine, "--ranks", "4", "--set", "steps=1", "--out", str(probe)],
                   check=True, capture_output=True, text=True)
    record = json.loads(probe.read_text().splitlines()[-1])
    probe.unlink()
    ghz = record["modeling"]["code_time_scale"] * core_ghz(args.machine)
    kept.write_text(f"{ghz:.4f}\n")
    return float(kept.read_text())


def core_ghz(machine):
    for line in (HERE / "scenarios" / "machines" / f"{machine}.yaml").read_text().splitlines():
        if line.strip().startswith("core_ghz:"):
            return float(line.split(":", 1)[1])
    raise SystemExit(f"model_vs_smpi: no core_ghz in scenarios/machines/{machine}.yaml")


def run_one(args, scenario, ranks, balancer, engine, records):
    cmd = [portable(args.lbbench), "run", portable(scenario), "--engine", engine, "--machine", args.machine,
           "--ranks", str(ranks), "--set", f"balancer.name={balancer}", "--host-ghz",
           str(args.host_ghz), "--out", portable(records)]
    for setting in args.set:
        cmd += ["--set", setting]
    row = {"scenario": scenario.stem, "ranks": ranks, "balancer": balancer, "engine": engine}
    status, wall, rss, _ = timed_run(cmd, records, args.timeout)
    return {**row, "status": status, **({"wall_s": wall, "peak_rss_gb": rss} if status == "ok" else {})}


def read_rows(table):
    if not table.exists():
        return []
    with table.open() as f:
        return list(csv.DictReader(f))


def write_rows(table, rows):
    with table.open("w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)


def drop_model_runs(out):
    """Forgets the model engine's rows and records, keeping the SMPI ones."""
    table, records = out / "runs.csv", out / "runs.jsonl"
    write_rows(table, [r for r in read_rows(table) if r["engine"] != "model"])
    if records.exists():
        kept = [line for line in records.read_text().splitlines() if json.loads(line).get("engine") != "model"]
        records.write_text("".join(line + "\n" for line in kept))


def all_records(records):
    """Every record of each (scenario, ranks, balancer, engine), in the order they were made."""
    found = {}
    if records.exists():
        for line in records.read_text().splitlines():
            r = json.loads(line)
            found.setdefault((r["scenario"], r["ranks"], r["balancer"], r["engine"]), []).append(r)
    return found


def decision_s(record):
    return sum(c["decision_s"] for c in record["lb"])


def median_total(runs):
    return statistics.median(r["total_time_s"] for r in runs)


def relative(a, b):
    return (a - b) / b if b else float("inf") if a else 0.0


def compare(smpi, model):
    """Where one balancer's runs on the two engines agree: a dict of the table's cells. The
    placements are deterministic, so every run is held to the first SMPI one; the times are
    each engine's medians."""
    first = smpi[0]

    def same_calls(r, key):
        return len(r["lb"]) == len(first["lb"]) and all(
            a.get(key) is not None and a.get(key) == b.get(key) for a, b in zip(first["lb"], r["lb"]))

    others = smpi[1:] + model
    same_moves = all(same_calls(r, "migrations") and same_calls(r, "elements_moved_max") for r in others)
    same_owners = all(same_calls(r, "owners_digest") for r in smpi + model)
    imbalance_pp = max((abs(a["imbalance_after"] - b["imbalance_after"]) * 100
                        for r in others for a, b in zip(first["lb"], r["lb"])), default=0.0)
    decisions = [[decision_s(r) for r in runs] for runs in (smpi, model)]
    migration = [statistics.median(sum(c["migration_s"] for c in r["lb"]) for r in runs) for runs in (smpi, model)]
    return {"migrations": first["migrations"], "same_moves": same_moves, "same_owners": same_owners,
            "imbalance_pp": imbalance_pp, "total": (median_total(smpi), median_total(model)),
            "decision": [statistics.median(d) for d in decisions], "decision_range": decisions,
            "migration": migration, "runs": (len(smpi), len(model))}


def ordering(found, scenario, ranks, balancers, engine):
    runs = [(median_total(found[(scenario, ranks, b, engine)]), b) for b in balancers]
    return [b for _, b in sorted(runs)]


def swapped_pairs(found, scenario, ranks, balancers):
    """The pairs the two engines order differently, each with how far apart SMPI puts them."""
    total = {e: {b: median_total(found[(scenario, ranks, b, e)]) for b in balancers} for e in ENGINES}
    pairs = []
    for i, a in enumerate(balancers):
        for b in balancers[i + 1:]:
            if (total["smpi"][a] < total["smpi"][b]) != (total["model"][a] < total["model"][b]):
                faster, slower = sorted((total["smpi"][a], total["smpi"][b]))
                gap = relative(slower, faster)
                pairs.append((gap, a, b))
    return sorted(pairs)


def decision_cell(c, engine):
    """An engine's decision time: the median, and the range where it ran more than once."""
    runs = c["decision_range"][engine]
    text = f"{c['decision'][engine]:.4f}"
    return text + (f" ({min(runs):.4f}–{max(runs):.4f})" if len(runs) > 1 else "")


REGRID_PARTS = ("decision_s", "migration_s", "rebuild_s", "time_s")


def regrid_parts(runs):
    """A block mesh's regrids, summed over the run, per part (median over the runs); None
    where the records hold no regrids or predate the parts."""
    events = [r["regrid"]["events"] for r in runs if r.get("regrid")]
    if not events or any(part not in e for ev in events for e in ev for part in REGRID_PARTS):
        return None
    return [statistics.median(sum(e[part] for e in ev) for ev in events) for part in REGRID_PARTS]


def regrid_table(found, scenario, ranks, balancers):
    """Where a block mesh's regrid time goes on each engine: deciding, gathering the
    families, rebuilding, and the whole (each part its slowest rank's)."""
    rows = []
    for b in balancers:
        parts = [regrid_parts(found[(scenario, ranks, b, e)]) for e in ENGINES]
        if None not in parts:
            rows.append(f"| {b} | " + " | ".join(f"{s:.4f} / {m:.4f}" for s, m in zip(*parts)) + " |")
    if not rows:
        return []
    return ["Regrids, summed over the run, smpi / model (s):", "",
            "| balancer | deciding | gathering | rebuilding | whole |", "|---|---:|---:|---:|---:|", *rows, ""]


def markdown(found, rows):
    walls = {}
    for r in rows:
        if r["status"] == "ok":
            key = (r["scenario"], int(r["ranks"]), r["balancer"], r["engine"])
            walls.setdefault(key, []).append(float(r["wall_s"]))
    cases = sorted({(s, r) for (s, r, _, _) in found}, key=lambda c: (c[0], c[1]))
    lines = []
    checks = {"moves and owners identical": [0, 0], f"imbalance after within {IMBALANCE_PP:g} pp": [0, 0],
              f"total within {TOTAL_REL:.0%}": [0, 0], "same ordering by total": [0, 0],
              f"same ordering but near-ties (within {NEAR_TIE_REL:.0%} under SMPI)": [0, 0],
              f"decision within {DECISION_REL:.0%} (balancers that decide)": [0, 0],
              f"decision within {DECISION_REL:.0%}, {DECISION_GOAL_RANKS:,} ranks and more": [0, 0]}

    def tick(name, ok):
        checks[name][0] += bool(ok)
        checks[name][1] += 1

    for scenario, ranks in cases:
        both = sorted(b for (s, r, b, e) in found if (s, r, e) == (scenario, ranks, "smpi")
                      and (s, r, b, "model") in found)
        if not both:
            continue
        lines += [f"### {scenario}, {ranks} ranks", "",
                  "| balancer | migrations | moves | owners | Δ imbalance after (pp) | total smpi (s) | total model (s) "
                  "| Δ total | decision smpi (s) | decision model (s) | Δ decision | migration smpi / model (s) "
                  "| wall smpi / model (s) | runs |",
                  "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for b in both:
            c = compare(found[(scenario, ranks, b, "smpi")], found[(scenario, ranks, b, "model")])
            d_total = relative(c["total"][1], c["total"][0])
            d_decision = relative(c["decision"][1], c["decision"][0])
            tick("moves and owners identical", c["same_moves"] and c["same_owners"])
            tick(f"imbalance after within {IMBALANCE_PP:g} pp", c["imbalance_pp"] <= IMBALANCE_PP)
            tick(f"total within {TOTAL_REL:.0%}", abs(d_total) <= TOTAL_REL)
            if b != "none":
                tick(f"decision within {DECISION_REL:.0%} (balancers that decide)", abs(d_decision) <= DECISION_REL)
                if ranks >= DECISION_GOAL_RANKS:
                    tick(f"decision within {DECISION_REL:.0%}, {DECISION_GOAL_RANKS:,} ranks and more",
                         abs(d_decision) <= DECISION_REL)
            wall = [walls.get((scenario, ranks, b, e)) for e in ENGINES]
            wall_text = " / ".join(f"{statistics.median(w):.1f}" if w else "?" for w in wall)
            lines.append(
                f"| {b} | {c['migrations']} | {'same' if c['same_moves'] else 'differ'} | "
                f"{'same' if c['same_owners'] else 'differ'} | {c['imbalance_pp']:.2f} | {c['total'][0]:.4f} | "
                f"{c['total'][1]:.4f} | {d_total:+.1%} | {decision_cell(c, 0)} | {decision_cell(c, 1)} | "
                + (f"{d_decision:+.1%}" if b != "none" else "") +
                f" | {c['migration'][0]:.4f} / {c['migration'][1]:.4f} | {wall_text} | {c['runs'][0]} / {c['runs'][1]} |")
        order = [ordering(found, scenario, ranks, both, e) for e in ENGINES]
        tick("same ordering by total", order[0] == order[1])
        swapped = swapped_pairs(found, scenario, ranks, both)
        tick(f"same ordering but near-ties (within {NEAR_TIE_REL:.0%} under SMPI)",
             all(gap <= NEAR_TIE_REL for gap, _, _ in swapped))
        lines += ["", f"Fastest first: smpi {', '.join(order[0])}; model {', '.join(order[1])}"
                  + (" (the same)." if order[0] == order[1] else "."), ""]
        lines += regrid_table(found, scenario, ranks, both)
        if swapped:
            lines += ["Swapped: " + "; ".join(f"{a} and {b} ({gap:.1%} apart under SMPI)" for gap, a, b in swapped)
                      + ".", ""]
        missing = sorted(r["balancer"] + f" ({r['engine']}: {r['status']})" for r in rows
                         if (r["scenario"], int(r["ranks"])) == (scenario, ranks) and r["status"] != "ok")
        if missing:
            lines += ["Not compared: " + "; ".join(missing) + ".", ""]
    summary = ["| criterion | met |", "|---|---:|"]
    summary += [f"| {name} | {ok} of {n} |" for name, (ok, n) in checks.items()]
    return "\n".join(["## Summary", "", *summary, "", *lines])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lbbench", default=str(HERE / "build" / "lbbench"))
    ap.add_argument("--scenarios", nargs="+", default=[str(HERE / "scenarios" / "scale.yaml"),
                                                        str(HERE / "scenarios" / "scale-drift.yaml")])
    ap.add_argument("--machine", default="bgq")
    ap.add_argument("--ranks", type=int, nargs="+", default=[256, 1024, 4096])
    ap.add_argument("--balancers", nargs="+",
                    default=["none", "tree", "prefix", "diffusion", "gossip", "refine", "metis"])
    ap.add_argument("--host-ghz", type=float)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--repetitions", type=int, default=1,
                    help="runs of each (scenario, ranks, balancer, engine); the table takes medians")
    ap.add_argument("--out", default=str(HERE / "results" / "model-vs-smpi"))
    ap.add_argument("--redo-model", action="store_true")
    ap.add_argument("--table-only", action="store_true")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table, records = out / "runs.csv", out / "runs.jsonl"
    if args.redo_model:
        drop_model_runs(out)
    rows = read_rows(table)
    if not args.table_only:
        args.host_ghz = args.host_ghz or measure_host_ghz(args, out)
        made = {}
        for r in rows:
            key = (r["scenario"], int(r["ranks"]), r["balancer"], r["engine"])
            made[key] = made.get(key, 0) + 1
        # A repetition goes through every case before the next starts, so that a case's runs
        # are minutes apart and a slow spell of the host falls on one run of each, not on all
        # runs of one.
        for repetition in range(args.repetitions):
            for ranks in args.ranks:
                for scenario in map(Path, args.scenarios):
                    for balancer in args.balancers:
                        for engine in ENGINES:
                            if made.get((scenario.stem, ranks, balancer, engine), 0) > repetition:
                                continue
                            print(f"{scenario.stem:<12} {ranks:>6} ranks  {balancer:<10} {engine:<5}", end=" ",
                                  file=sys.stderr, flush=True)
                            row = run_one(args, scenario, ranks, balancer, engine, records)
                            print(row["status"], row.get("wall_s", ""), file=sys.stderr, flush=True)
                            rows.append({k: str(v) for k, v in row.items()})
                            write_rows(table, rows)
    text = markdown(all_records(records), rows)
    (out / "model-vs-smpi.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
