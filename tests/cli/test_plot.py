"""harness/plot.py draws every plot from fixture records, as non-blank PNGs and PDFs, and
says which plots the records cannot support. Run with a Python that has matplotlib.

Environment: LBBENCH_SOURCE_DIR.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import matplotlib.image

SOURCE = Path(os.environ.get("LBBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
PLOT = SOURCE / "harness" / "plot.py"
PLOTS = ["improvement", "latency", "bars", "vector", "predicted", "imbalance"]


def record(scenario, balancer, total, axes=None, steps=10, vector=False, prediction=None):
    lb_steps = [] if balancer == "none" else [4]
    imbalance = [0.5] * 5 + ([0.5] * 5 if balancer == "none" else [0.1] * 5)
    r = {
        "schema": "lbbench.run/1", "scenario": scenario, "engine": "smpi", "machine": "bgq", "ranks": 64,
        "balancer": balancer, "balancer_params": {}, "steps": steps, "total_time_s": total,
        "lb_time_s": 0.01 * len(lb_steps), "migration_time_s": 0.02 * len(lb_steps),
        "migrations": 100 * len(lb_steps), "imbalance_after": [0.1] * len(lb_steps),
        "lb": [{"step": s, "decision_s": 0.001 if balancer == "greedy" else 0.01} for s in lb_steps],
        "per_step": {"wall_max_s": [total / steps] * steps, "imbalance": imbalance},
        "sweep": {"id": f"{scenario}-{balancer}-{json.dumps(axes)}", "status": "ok",
                  "axes": dict(axes or {}, balancer=balancer)},
    }
    if vector:
        r["load_vector"] = {"objective_per_step_s": [total / steps] * steps, "perfect_per_step_s": [0.05] * steps}
    if prediction:
        r["prediction"] = prediction
    return r


def fixture_records(with_predictions):
    rs = []
    for k, scenario in enumerate(["hotspot", "drift", "amr"]):
        for balancer, factor in (("none", 1.0), ("greedy", 0.7 + 0.1 * k), ("metis", 0.8)):
            rs.append(record(scenario, balancer, 2.0 * factor, vector=scenario == "amr"))
        if with_predictions:
            rs.append(record(scenario, "auto", 1.5, prediction={
                "chosen": "greedy", "candidates": {"none": {"total_s": 2.1}, "greedy": {"total_s": 1.5},
                                                   "metis": {"total_s": 1.7}}}))
    for latency in (0.001, 0.004, 0.016, 0.064):
        for balancer, base in (("none", 1.2), ("greedy", 1.0), ("grid-metis", 0.8)):
            rs.append(record("koenig-kale", balancer, base + 10 * latency, axes={"machine.wan_latency": latency}))
    return rs


class Plots(unittest.TestCase):
    def draw(self, records, *extra):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        folder = Path(self.tmp.name)
        (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        out = folder / "plots"
        result = subprocess.run([sys.executable, str(PLOT), str(folder), "--out", str(out), *extra],
                                capture_output=True, text=True, timeout=300)
        self.assertEqual(result.returncode, 0, result.stderr)
        return out, result.stdout

    def assert_drawn(self, png):
        self.assertTrue(png.exists(), png)
        self.assertGreater(png.stat().st_size, 10_000)
        pixels = matplotlib.image.imread(str(png))
        self.assertGreater(pixels.std(), 0.05, f"{png} is blank")
        self.assertTrue(png.with_suffix(".pdf").exists())

    def test_every_plot_is_drawn(self):
        out, printed = self.draw(fixture_records(with_predictions=True))
        for name in PLOTS:
            with self.subTest(plot=name):
                self.assert_drawn(out / f"{name}.png")
        self.assertNotIn("skipped", printed)

    def test_plots_the_records_cannot_support_are_skipped_by_name(self):
        out, printed = self.draw(fixture_records(with_predictions=False))
        self.assertIn("skipped predicted: no records carry the cost model's predictions", printed)
        self.assertFalse((out / "predicted.png").exists())
        self.assert_drawn(out / "latency.png")

    def test_too_many_cases_for_bars_leave_them_to_the_improvement_curve(self):
        rs = [record(f"case-{k}", b, t) for k in range(13) for b, t in (("none", 2.0), ("greedy", 1.5 + 0.01 * k))]
        out, printed = self.draw(rs)
        self.assertIn("skipped bars: 13 cases, more than 12 for one row of bars", printed)
        self.assertFalse((out / "bars.png").exists())
        self.assert_drawn(out / "improvement.png")

    def test_the_readmes_command_works_as_written(self):
        # `python3 harness/plot.py results/ --out plots/` from a checkout, with whatever
        # python3 the PATH gives, and with a Python that cannot import matplotlib (-S
        # leaves out the site packages where Debian installs it).
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            (folder / "harness").symlink_to(SOURCE / "harness")
            (folder / "results").mkdir()
            records = "".join(json.dumps(r) + "\n" for r in fixture_records(with_predictions=False))
            (folder / "results" / "runs.jsonl").write_text(records)
            for python in (["python3"], [sys.executable, "-S"]):
                with self.subTest(python=python):
                    result = subprocess.run([*python, "harness/plot.py", "results/", "--out", "plots/"], cwd=folder,
                                            capture_output=True, text=True, timeout=300)
                    self.assertEqual(result.returncode, 0, result.stderr)
                    self.assert_drawn(folder / "plots" / "latency.png")
                    (folder / "plots" / "latency.png").unlink()

    def test_no_records_is_an_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = subprocess.run([sys.executable, str(PLOT), tmp], capture_output=True, text=True)
            self.assertNotEqual(result.returncode, 0)
            self.assertIn("no run records", result.stderr)


if __name__ == "__main__":
    unittest.main()
