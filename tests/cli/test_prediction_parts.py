"""harness/prediction_parts.py: `auto`'s picks re-scored with parts of its prediction
replaced by what the candidates' runs measured. Made from records written here, so the
test needs no build.

Environment: LBBENCH_SOURCE_DIR.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LBBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SOURCE / "harness"))

import prediction_parts  # noqa: E402

CASE = {"scenario": "drift", "machine": "bgq", "ranks": 32, "lb_period": 4,
        "config": {"distribution": {"kind": "block"}}}


def run(balancer, total, steps, calls=()):
    """A candidate's run: its total, the maxima of its steps, its calls' (decision, migration)."""
    return {**CASE, "balancer": balancer, "total_time_s": total, "per_step": {"wall_max_s": list(steps)},
            "lb": [{"decision_s": d, "migration_s": m} for d, m in calls]}


def auto_run(candidates, later_calls=1, steps_left=2):
    prediction = {"later_calls": later_calls, "steps_left": steps_left, "candidates": candidates}
    return {**CASE, "balancer": "auto", "total_time_s": 1.0, "lb": [{"prediction": prediction}]}


def priced(first, later_call, repeat, steps, later_calls=1):
    decision, migration = first
    return {"decision_s": decision, "migration_s": migration, "later_call_s": later_call, "repeat_s": repeat,
            "to_end_s": decision + migration + later_calls * later_call + steps}


def row(tally, way):
    correct, near, picks = tally[way]
    return correct, near, picks


class PredictionParts(unittest.TestCase):
    def test_steps_predicted_short_cost_the_pick_and_measuring_them_wins_it_back(self):
        # Tree is predicted at 2 balanced steps of 1.0 where its runs took 1.5 each; none
        # at 1.4 each, as measured. None is the faster run.
        records = [
            run("none", 3.0, [1.4, 1.4, 1.4]),
            run("tree", 3.3, [1.4, 1.5, 1.5], calls=[(0.05, 0.05), (0.05, 0.05)]),
            auto_run({"none": priced((0, 0), 0, 0, 2.8), "tree": priced((0.05, 0.05), 0.1, 0.05, 2.0)}),
        ]
        tally = prediction_parts.score(records)
        self.assertEqual(row(tally, "as predicted"), (0, 0, 1))
        self.assertEqual(row(tally, "later calls measured"), (0, 0, 1))
        self.assertEqual(row(tally, "steps measured"), (1, 1, 1))
        self.assertEqual(row(tally, "both measured"), (1, 1, 1))

    def test_later_calls_at_their_fixed_costs_use_the_repeat_price(self):
        # Greedy's later call moves as much as its first (0.5), tree's nothing; priced at
        # their fixed costs greedy's later call drops to 0.01 and greedy wins the pick,
        # which its runs do not bear out.
        records = [
            run("greedy", 3.2, [1.0, 1.0, 1.0], calls=[(0.01, 0.5), (0.01, 0.5)]),
            run("tree", 2.9, [1.0, 1.0, 1.0], calls=[(0.05, 0.2), (0.05, 0.05)]),
            auto_run({"greedy": priced((0.01, 0.5), 0.51, 0.01, 2.0), "tree": priced((0.05, 0.2), 0.25, 0.05, 2.3)}),
        ]
        tally = prediction_parts.score(records)
        self.assertEqual(row(tally, "as predicted"), (1, 1, 1))
        self.assertEqual(row(tally, "later calls at their fixed costs"), (0, 0, 1))

    def test_a_call_decided_on_its_totals_alone_picks_none(self):
        records = [run("none", 1.0, [0.5, 0.5]), run("tree", 1.2, [0.5, 0.5], calls=[(0.1, 0.1)]),
                   auto_run({"none": {"to_end_s": 1.0}})]
        tally = prediction_parts.score(records)
        self.assertEqual(row(tally, "as predicted"), (1, 1, 1))

    def test_a_look_that_kept_none_before_any_call_is_the_first_decision(self):
        # No call at all: the look's decision (none) is scored; without it nothing would be.
        looked = {**CASE, "balancer": "auto", "total_time_s": 1.0, "lb": [],
                  "prediction": {"chosen": "none",
                                 "look_decision": {"later_calls": 1, "steps_left": 2,
                                                   "candidates": {"none": {"to_end_s": 1.0}}}}}
        records = [run("none", 1.0, [0.5, 0.5]), run("tree", 1.2, [0.5, 0.5], calls=[(0.1, 0.1)]), looked]
        self.assertEqual(row(prediction_parts.score(records), "as predicted"), (1, 1, 1))
        records[-1] = {**looked, "prediction": None}
        self.assertEqual(row(prediction_parts.score(records), "as predicted"), (0, 0, 0))

    def test_each_candidates_own_total_in_the_same_repetition_is_the_noises_ceiling(self):
        # Tree is the faster median (3.0 against 3.1), but in repetition 1 none ran faster:
        # knowing that repetition's totals exactly still picks none there.
        def rep(record, i):
            return {**record, "sweep": {"repetition": i}}
        records = [rep(run("none", t, [1.0]), i) for i, t in enumerate((3.1, 2.9, 3.2))]
        records += [rep(run("tree", t, [1.0]), i) for i, t in enumerate((3.0, 3.0, 3.0))]
        records += [rep(auto_run({"none": {"to_end_s": 3.0}, "tree": {"to_end_s": 2.0}}), i) for i in range(3)]
        tally = prediction_parts.score(records)
        self.assertEqual(row(tally, prediction_parts.SAME_REPETITION), (2, 3, 3))
        self.assertEqual(row(tally, "as predicted"), (3, 3, 3))

    def test_the_command_reads_gzipped_records_and_says_when_there_is_nothing_to_score(self):
        records = [run("none", 3.0, [1.4, 1.4, 1.4]), run("tree", 3.3, [1.4, 1.5, 1.5], calls=[(0.05, 0.05)] * 2),
                   auto_run({"none": priced((0, 0), 0, 0, 2.8), "tree": priced((0.05, 0.05), 0.1, 0.05, 2.0)})]
        script = str(SOURCE / "harness" / "prediction_parts.py")
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "runs.jsonl.gz"
            with gzip.open(path, "wt") as f:
                f.write("".join(json.dumps(r) + "\n" for r in records))
            result = subprocess.run([sys.executable, script, str(path)], capture_output=True, text=True)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn("| steps measured | 1 | 1 | 1 |", result.stdout)
            empty = Path(tmp) / "empty.jsonl"
            empty.write_text(json.dumps(records[0]) + "\n")
            result = subprocess.run([sys.executable, script, str(empty)], capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("no `auto` run with a prediction", result.stderr)


if __name__ == "__main__":
    unittest.main()
