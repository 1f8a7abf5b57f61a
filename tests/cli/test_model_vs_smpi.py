"""harness/model_vs_smpi.py's table: the criteria it checks, and the near-ties it reports
apart from the strict order. Made from records written here, so the test needs neither
SimGrid nor a build.

Environment: LBBENCH_SOURCE_DIR.
"""
import os
import sys
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LBBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(SOURCE / "harness"))

import model_vs_smpi  # noqa: E402


def record(total, decision, migrations=10, digest="ab"):
    return {"total_time_s": total, "migrations": migrations,
            "lb": [{"migrations": migrations, "elements_moved_max": 3, "owners_digest": digest,
                    "imbalance_after": 0.05, "decision_s": decision, "migration_s": 0.001}]}


def found_for(ranks, totals):
    """Records of one case: totals[balancer] = (smpi total, model total), decisions 1 ms alike."""
    found = {}
    for balancer, (smpi, model) in totals.items():
        found[("scale", ranks, balancer, "smpi")] = [record(smpi, 0.001)]
        found[("scale", ranks, balancer, "model")] = [record(model, 0.001)]
    return found


def criterion(text, name):
    line = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
    met, _, of = line.split("|")[2].strip().split()
    return int(met), int(of)


class ModelVsSmpiTable(unittest.TestCase):
    def test_a_near_tie_swapped_fails_the_strict_order_only(self):
        found = found_for(1024, {"tree": (1.000, 1.010), "prefix": (1.010, 1.000), "none": (1.500, 1.500)})
        text = model_vs_smpi.markdown(found, [])
        self.assertEqual(criterion(text, "same ordering by total"), (0, 1))
        self.assertEqual(criterion(text, "same ordering but near-ties (within 2% under SMPI)"), (1, 1))
        self.assertIn("Swapped: prefix and tree (1.0% apart under SMPI).", text)

    def test_a_clear_swap_fails_both_orders(self):
        found = found_for(256, {"tree": (1.00, 1.10), "prefix": (1.05, 1.00)})
        text = model_vs_smpi.markdown(found, [])
        self.assertEqual(criterion(text, "same ordering by total"), (0, 1))
        self.assertEqual(criterion(text, "same ordering but near-ties (within 2% under SMPI)"), (0, 1))
        self.assertIn("prefix and tree (5.0% apart under SMPI)", text)

    def test_the_same_order_lists_no_swap(self):
        found = found_for(256, {"tree": (1.0, 1.0), "prefix": (2.0, 2.1)})
        text = model_vs_smpi.markdown(found, [])
        self.assertEqual(criterion(text, "same ordering by total"), (1, 1))
        self.assertNotIn("Swapped", text)

    def test_decisions_are_counted_apart_from_1024_ranks_on(self):
        found = found_for(256, {"tree": (1.0, 1.0)})
        found.update(found_for(4096, {"tree": (1.0, 1.0)}))
        found[("scale", 4096, "tree", "model")][0]["lb"][0]["decision_s"] = 0.0005  # 50% short
        text = model_vs_smpi.markdown(found, [])
        self.assertEqual(criterion(text, "decision within 20% (balancers that decide)"), (1, 2))
        self.assertEqual(criterion(text, "decision within 20%, 1,024 ranks and more"), (0, 1))

    def test_several_runs_are_compared_by_their_medians(self):
        found = found_for(1024, {"tree": (1.0, 1.0)})
        found[("scale", 1024, "tree", "smpi")] = [record(1.0, d) for d in (0.0030, 0.0011, 0.0010)]
        found[("scale", 1024, "tree", "model")] = [record(1.0, d) for d in (0.0012, 0.0011)]
        text = model_vs_smpi.markdown(found, [])
        # Medians 1.1 and 1.15 ms: the slow SMPI run alone would have failed it.
        self.assertEqual(criterion(text, "decision within 20%, 1,024 ranks and more"), (1, 1))
        self.assertIn("| 0.0011 (0.0010–0.0030) | 0.0011 (0.0011–0.0012) | +4.5% |", text)
        self.assertIn("| 3 / 2 |", text)

    def test_a_run_that_placed_differently_is_caught_among_several(self):
        found = found_for(256, {"tree": (1.0, 1.0)})
        found[("scale", 256, "tree", "model")].append(record(1.0, 0.001, digest="cd"))
        text = model_vs_smpi.markdown(found, [])
        self.assertEqual(criterion(text, "moves and owners identical"), (0, 1))

    def test_a_block_mesh_shows_where_each_engine_spends_its_regrids(self):
        found = found_for(1024, {"none": (1.0, 1.0), "tree": (1.0, 1.0)})

        def regrids(decision, rebuild):
            return {"events": [{"decision_s": decision, "migration_s": 0.001, "rebuild_s": rebuild,
                                "time_s": decision + 0.001 + rebuild}] * 2}

        for balancer in ("none", "tree"):
            found[("scale", 1024, balancer, "smpi")][0]["regrid"] = regrids(0.003, 0.002)
            found[("scale", 1024, balancer, "model")][0]["regrid"] = regrids(0.001, 0.002)
        del found[("scale", 1024, "tree", "model")][0]["regrid"]["events"][1]["rebuild_s"]  # an older record
        text = model_vs_smpi.markdown(found, [])
        self.assertIn("| none | 0.0060 / 0.0020 | 0.0020 / 0.0020 | 0.0040 / 0.0040 | 0.0120 / 0.0080 |", text)
        self.assertNotIn("| tree | 0.0060", text)

    def test_a_mesh_that_never_regrids_has_no_regrid_table(self):
        text = model_vs_smpi.markdown(found_for(256, {"tree": (1.0, 1.0)}), [])
        self.assertNotIn("Regrids", text)


if __name__ == "__main__":
    unittest.main()
