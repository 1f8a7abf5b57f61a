#!/usr/bin/env python3
"""Which part of `auto`'s prediction costs it its picks: its picks re-scored with parts of
each candidate's predicted time replaced by what that candidate's own runs measured.

    harness/prediction_parts.py RECORDS [RECORDS ...]

RECORDS are sweep records (runs.jsonl, or runs.jsonl.gz as results/ keeps them) holding
`auto`'s runs and its candidates' runs of the same cases. At its first LB call `auto`
prices each candidate to the end of the run (balancers/model/auto.hpp):

    to_end = first call + later_calls x later call + steps_left x predicted step

and picks the least. Here each pick is made again with:
- the later calls priced at their fixed costs (decision and idle migration, `repeat_s`);
- the later calls as the candidate's runs measured them (the median over repetitions of
  the sum of their decisions and migrations after the first call);
- the steps as the sum of the measured steps' maxima over the last `steps_left` steps,
  which is what the paper's model would give with a perfect forecast of the loads;
- both measured;
- no prediction at all: each candidate's own total in the same repetition as `auto`'s
  run. That is a perfect forecast of one repetition, so how often it misses the fastest
  median is the platform's own noise: no prediction can do better on average.

A pick is correct where it names the candidate with the least median total over its
runs, and near where that candidate's median is within 5% of the least. Where measuring
a part makes many more picks correct, that part is what the prediction misses. The sum
of the steps' maxima is not a run's total: without LB calls nothing synchronizes the
ranks, and a rank that was slowest at one step can make up time at the next.
"""
import argparse
import gzip
import json
import statistics
import sys
from collections import defaultdict

from runs import case_key

NEAR = 0.05
WAYS = ("as predicted", "later calls at their fixed costs", "later calls measured", "steps measured", "both measured")
SAME_REPETITION = "each candidate's own total, same repetition"


def read_records(paths):
    records = []
    for path in paths:
        opener = gzip.open if str(path).endswith(".gz") else open
        with opener(path, "rt") as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


def first_decision(record):
    """`auto`'s first decision: a look's that kept its point before any call decided, else
    the first call's."""
    look = (record.get("prediction") or {}).get("look_decision")
    if look:
        return look
    return record["lb"][0].get("prediction") if record.get("lb") else None


def later_calls_measured(runs):
    return statistics.median(sum(c["decision_s"] + c["migration_s"] for c in r["lb"][1:]) for r in runs)


def steps_measured(runs, steps_left):
    return statistics.median(sum(r["per_step"]["wall_max_s"][-steps_left:]) for r in runs) if steps_left else 0.0


def priced(prediction, candidates, runs_of):
    """Each way of pricing: {way: {candidate: predicted time from the first call on}}."""
    later, left = prediction["later_calls"], prediction["steps_left"]
    ways = defaultdict(dict)
    for name, c in candidates.items():
        # A candidate priced without parts (`none` where the totals ruled out the others)
        # is all steps.
        first = c.get("decision_s", 0.0) + c.get("migration_s", 0.0)
        later_call = c.get("later_call_s", 0.0)
        steps = c["to_end_s"] - first - later * later_call
        runs = runs_of.get(name, [])
        ways["as predicted"][name] = c["to_end_s"]
        ways["later calls at their fixed costs"][name] = first + later * c.get("repeat_s", 0.0) + steps
        if runs:
            measured_later = later_calls_measured(runs)
            measured_steps = steps_measured(runs, left)
            ways["later calls measured"][name] = first + measured_later + steps
            ways["steps measured"][name] = first + later * later_call + measured_steps
            ways["both measured"][name] = first + measured_later + measured_steps
    return ways


def repetition(record):
    return record.get("sweep", {}).get("repetition")


def own_totals(runs_of, rep):
    """Each candidate's total in repetition `rep`, or None where one has no run there."""
    totals = {}
    for name, runs in runs_of.items():
        same = [r["total_time_s"] for r in runs if repetition(r) == rep]
        if not same:
            return None
        totals[name] = same[0]
    return totals


def tally_pick(t, pick, measured, fastest):
    t[0] += pick == fastest
    t[1] += pick in measured and measured[pick] <= (1 + NEAR) * measured[fastest]
    t[2] += 1


def score(records):
    """{way: [correct, near, picks]} over every `auto` run whose first call predicted."""
    autos = defaultdict(list)
    runs = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r.get("status", "ok") != "ok" or "total_time_s" not in r:
            continue
        if r["balancer"] == "auto":
            autos[case_key(r)].append(r)
        else:
            runs[case_key(r)][r["balancer"]].append(r)
    tally = defaultdict(lambda: [0, 0, 0])
    for case, auto_runs in autos.items():
        measured = {name: statistics.median(r["total_time_s"] for r in rs) for name, rs in runs[case].items()}
        if not measured:
            continue
        fastest = min(measured, key=measured.get)
        for a in auto_runs:
            prediction = first_decision(a)
            if not prediction:
                continue
            # Candidates ruled out before they ran carry no price; `none` is the pick where
            # the call's totals ruled out every other.
            candidates = {n: c for n, c in prediction.get("candidates", {}).items() if "to_end_s" in c}
            ways = priced(prediction, candidates, runs[case])
            for way in WAYS:
                prices = ways.get(way, {})
                if len(prices) < len(candidates):  # a candidate without runs: not comparable
                    continue
                pick = min(prices, key=prices.get) if prices else "none"
                tally_pick(tally[way], pick, measured, fastest)
            own = own_totals(runs[case], repetition(a)) if repetition(a) is not None else None
            if own:
                tally_pick(tally[SAME_REPETITION], min(own, key=own.get), measured, fastest)
    return tally


def markdown(tally):
    lines = ["| priced as | correct | within 5% of the fastest | picks |", "|---|---:|---:|---:|"]
    for way, (correct, near, picks) in tally.items():
        lines.append(f"| {way} | {correct} | {near} | {picks} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", nargs="+")
    args = ap.parse_args()
    tally = score(read_records(args.records))
    if not tally:
        sys.exit("no `auto` run with a prediction and its candidates' runs in these records")
    print(markdown(tally), end="")


if __name__ == "__main__":
    main()
