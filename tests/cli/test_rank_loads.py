"""`lbbench run --rank-loads FILE`: every rank's load around each LB call and at a stride,
the same figures the per-step table reduces, laid out on the machine by `plot.py ranks`.
Run with a Python that has NumPy, matplotlib and brotli (Debian's).

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import csv
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import matplotlib.image
import numpy as np

SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])
LBBENCH = os.environ["LBBENCH"]
MPIEXEC = os.environ.get("LBBENCH_MPIEXEC", "mpirun")
sys.path.insert(0, str(SOURCE / "harness"))
import rank_loads  # noqa: E402

SCENARIOS = SOURCE / "scenarios"
# Calls after steps 4 and 9; a row every third step.
SHORT = ["--set", "steps=12", "--set", "balancer.period=5", "--rank-loads-stride", "3"]


def run(args):
    result = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def compute_max_per_step(path):
    with open(path) as f:
        return {int(r["step"]): float(r["compute_max_s"]) for r in csv.DictReader(f)}


class RankLoads(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def check_rows_agree_with_the_steps(self, loads_file, steps_csv, ranks):
        header, node, site, loads = rank_loads.read(loads_file)
        self.assertEqual(header["ranks"], ranks)
        labels = {label: r["step"] for r in header["rows"] for label in r["labels"]}
        self.assertEqual((labels["before LB 1"], labels["after LB 1"]), (4, 5))
        self.assertEqual((labels["before LB 2"], labels["after LB 2"]), (9, 10))
        self.assertEqual([r["step"] for r in header["rows"] if "stride" in r["labels"]], [0, 3, 6, 9])
        # The slowest rank's compute of each recorded step is the per-step table's.
        per_step = compute_max_per_step(steps_csv)
        for i, r in enumerate(header["rows"]):
            self.assertAlmostEqual(float(loads[i].sum(axis=1).max()), per_step[r["step"]],
                                   delta=1e-6 * per_step[r["step"]] + 1e-9, msg=f"step {r['step']}")
        # The call moved load: its ranks' loads spread less after it.
        before, after = header["rows"].index(next(r for r in header["rows"] if "before LB 1" in r["labels"])), \
            header["rows"].index(next(r for r in header["rows"] if "after LB 1" in r["labels"]))
        self.assertLess(loads[after].sum(axis=1).std(), loads[before].sum(axis=1).std())
        return header, node, site, loads

    def test_the_model_engine_writes_every_ranks_load_on_the_torus(self):
        out, table = self.dir / "model.bin", self.dir / "model.csv"
        run([LBBENCH, "run", str(SCENARIOS / "quickstart.yaml"), "--engine", "model", "--machine", "bgq", "--ranks",
             "256", "--rank-loads", str(out), "--steps-csv", str(table), *SHORT])
        header, node, site, _ = self.check_rows_agree_with_the_steps(out, table, 256)
        self.assertEqual(header["machine"]["topology"], "torus")
        self.assertEqual(header["machine"]["ranks_per_node"], 16)
        self.assertTrue((node == np.arange(256) // 16).all())
        row, col, shape = rank_loads.layout(header, node, site)
        self.assertEqual(len(set(zip(row, col))), 256, "two ranks on one pixel")
        self.assertEqual(shape[0] * shape[1], 256)

    def test_real_ranks_write_theirs_after_the_run(self):
        out, table = self.dir / "mpi.bin", self.dir / "mpi.csv"
        cmd = [MPIEXEC, "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
        run(cmd + ["-np", "2", LBBENCH, "run", str(SCENARIOS / "quickstart.yaml"), "--rank-loads", str(out),
                   "--steps-csv", str(table), *SHORT])
        header, *_ = self.check_rows_agree_with_the_steps(out, table, 2)
        self.assertEqual(header["engine"], "mpi")

    def test_two_sites_are_two_bands_and_a_vector_load_has_its_components(self):
        out = self.dir / "grid.bin"
        run([LBBENCH, "run", str(SCENARIOS / "vector.yaml"), "--engine", "model", "--machine", "grid-2site",
             "--ranks", "32", "--rank-loads", str(out), "--set", "steps=4", "--set", "balancer.period=2"])
        header, node, site, loads = rank_loads.read(out)
        self.assertEqual(loads.shape[2], len(header["components"]))
        self.assertGreater(loads.shape[2], 1)
        row, col, shape = rank_loads.layout(header, node, site)
        self.assertEqual(len(set(zip(row, col))), 32)
        self.assertLess(row[site == 0].max(), row[site == 1].min(), "site 1's band is below site 0's")

    def test_plot_ranks_draws_the_machine_and_the_timeline(self):
        out = self.dir / "spot.bin"
        run([LBBENCH, "run", str(SCENARIOS / "quickstart.yaml"), "--engine", "model", "--machine", "bgq", "--ranks",
             "64", "--rank-loads", str(out), *SHORT])
        figures = self.dir / "figures"
        done = run([sys.executable, str(SOURCE / "harness" / "plot.py"), "ranks", str(out), "--out", str(figures)])
        self.assertIn("wrote spot-machine, spot-timeline", done.stdout)
        for name in ("spot-machine", "spot-timeline"):
            picture = matplotlib.image.imread(figures / f"{name}.png")
            self.assertGreater(picture[..., :3].std(), 0.05, f"{name}.png is blank")
            self.assertTrue((figures / f"{name}.pdf").stat().st_size > 1000)


if __name__ == "__main__":
    unittest.main()
