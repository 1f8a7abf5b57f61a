"""harness/langer_kale.py's tables: each strategy's step against no balancing and gossip,
its migrations against prefix, and tree's rounds and longest list, before and after.
Made from records written here, so the test needs no build.

Environment: LBBENCH_SOURCE_DIR.
"""
import os
import sys
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LBBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SOURCE / "harness"))

import langer_kale  # noqa: E402


def record(balancer, ranks, steps_ms, migrations=0, rounds=None, largest_list=None):
    """A run of `ranks` ranks whose steps took steps_ms, balanced once after step 1."""
    lb = [{"step": 1, "imbalance_after": 0.01, "migrations": migrations}]
    if rounds is not None:
        lb[0]["protocol"] = {"rounds": rounds, "largest_list": largest_list}
    return {"schema": "lbbench.run/1", "balancer": balancer, "ranks": ranks, "migrations": migrations,
            "lb_time_s": 0.002, "migration_time_s": 0.001, "lb_invocations": 1, "total_time_s": sum(steps_ms) / 1e3,
            "lb": lb if balancer != "none" else [], "per_step": {"wall_max_s": [x / 1e3 for x in steps_ms]}}


def row(text, ranks, strategy):
    line = next(line for line in text.splitlines() if line.startswith(f"| {ranks:,} | {strategy} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


class PosterTable(unittest.TestCase):
    def setUp(self):
        # none's steps after the call average 10 ms; tree's 6.5, gossip's 13, prefix's 6.
        self.records = [record("none", 64, [10, 10, 10, 10]),
                        record("tree", 64, [10, 10, 6, 7], migrations=50, rounds=30, largest_list=9),
                        record("gossip", 64, [10, 10, 13, 13], migrations=60),
                        record("prefix", 64, [10, 10, 6, 6], migrations=1000)]

    def test_improvements_are_against_the_baselines_of_the_same_rank_count(self):
        text = langer_kale.poster_table(self.records + [record("none", 128, [1, 1, 1, 1])])
        tree = row(text, 64, "tree")
        self.assertEqual(tree[2], "6.500")
        self.assertEqual(tree[3], "+35.0%")  # 1 - 6.5 / 10
        self.assertEqual(tree[4], "+50.0%")  # 1 - 6.5 / 13
        self.assertEqual(tree[6], "+95.0%")  # 1 - 50 / 1000
        self.assertEqual(tree[9:], ["30", "9"])
        self.assertEqual(row(text, 64, "prefix")[6], "–")
        self.assertEqual(row(text, 128, "none")[3], "–")

    def test_a_record_set_without_a_baseline_leaves_its_column_empty(self):
        text = langer_kale.poster_table([r for r in self.records if r["balancer"] != "gossip"])
        self.assertEqual(row(text, 64, "tree")[4], "–")


class ListsTable(unittest.TestCase):
    def test_before_and_after_share_a_row_per_rank_count(self):
        before = [record("tree", 1024, [1, 1], rounds=80, largest_list=20),
                  record("tree", 4096, [1, 1], rounds=140, largest_list=22)]
        after = [record("tree", 1024, [1, 1], rounds=40, largest_list=9), record("none", 1024, [1, 1])]
        text = langer_kale.lists_table(before, after)
        self.assertIn("| 1,024 | 5 | 10 | 80 | 40 | 20 | 9 |", text)
        self.assertIn("| 4,096 | 6 | 12 | 140 | – | 22 | – |", text)

    def test_depth_is_the_tree_balancers(self):
        self.assertEqual([langer_kale.tree_depth(p) for p in (1, 5, 6, 21, 22, 262144)], [0, 1, 2, 2, 3, 9])


if __name__ == "__main__":
    unittest.main()
