"""This machine measured into a preset (`lbbench calibrate --preset-out`), and the preset
used: validated, and run by the simulated engines with `--machine FILE` or a scenario's
`machine: {preset: FILE}`. Nothing here is timed: what the preset says is checked for its
form and its sources, not for its figures.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import json
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_cli import LBBENCH, MPIEXEC, SCENARIOS

SMPI_BUILT = (Path(LBBENCH).parent / "lbbench-smpi").exists()


def run(args, check=True, cwd=None, env=None):
    result = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


class APresetOfThisMachine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.preset = cls.dir / "box.yaml"
        cmd = [MPIEXEC, "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
        # The preset's do_work rate is cached as `calibrate` caches it: here, not in the user's cache.
        cls.cache = cls.dir / "cache"
        cls.written = run(cmd + ["-np", "2", LBBENCH, "calibrate", "--preset-out", str(cls.preset), "--quick"],
                          env=dict(os.environ, LBBENCH_CACHE_DIR=str(cls.cache)))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_it_says_what_it_measured_and_where_each_figure_came_from(self):
        self.assertIn(f"machine preset 'box' written to {self.preset}", self.written.stdout)
        text = self.preset.read_text()
        self.assertRegex(text, r"# Measured by `lbbench calibrate --preset-out` .* with 2 rank\(s\) on each of 1 node")
        self.assertIn("name: box", text)
        self.assertIn("cores: 2  # the ranks the job ran on a node", text)
        self.assertRegex(text, r"loopback_latency: [0-9.e+-]+  # its alpha")
        self.assertRegex(text, r"core_ghz: [0-9.]+  # a chain of dependent adds")
        self.assertIn("link_bandwidth:", text)
        self.assertIn("not measured (one node): the figure within it", text)

    def test_the_real_runs_read_the_rate_the_preset_says(self):
        if (os.cpu_count() or 1) < 2:
            self.skipTest("2 ranks on one core take turns while measuring, and such a rate is not cached")
        self.assertIn("do_work's rate cached in", self.written.stdout)
        rate = float(re.search(r"# do_work read ([0-9.e+-]+) random words per second", self.preset.read_text())[1])
        cached = [json.loads(f.read_text()) for f in self.cache.glob("calibration-*.json")]
        self.assertEqual(len(cached), 1, f"expected one cached calibration in {self.cache}")
        self.assertEqual(cached[0]["ranks_per_node"], 2)
        self.assertAlmostEqual(cached[0]["accesses_per_second"] / rate, 1, delta=1e-3)  # the preset prints 4 digits

    def test_a_scenario_names_it_and_validation_reads_it(self):
        scenario = self.dir / "s.yaml"
        scenario.write_text((SCENARIOS / "hotspot.yaml").read_text().replace("machine: local", "machine: {preset: box.yaml}"))
        normalized = run([LBBENCH, "validate", str(scenario)]).stdout
        self.assertIn("preset: box.yaml", normalized)
        broken = self.dir / "broken.yaml"
        broken.write_text(self.preset.read_text().replace("core_ghz:", "core_gzh:"))
        bad = run([LBBENCH, "validate", str(scenario), "--set", f"machine.preset={broken}"], check=False)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("unknown key 'core_gzh'", bad.stderr)
        missing = run([LBBENCH, "validate", str(scenario), "--set", "machine.preset=nowhere.yaml"], check=False)
        self.assertEqual(missing.returncode, 2)
        self.assertIn("calibrate --preset-out FILE", missing.stderr)

    def test_the_model_engine_runs_it(self):
        out = self.dir / "model.jsonl"
        run([LBBENCH, "run", str(SCENARIOS / "hotspot.yaml"), "--engine", "model", "--machine", str(self.preset),
             "--ranks", "2", "--out", str(out)])
        record = json.loads(out.read_text().splitlines()[-1])
        self.assertEqual((record["engine"], record["machine"], record["ranks"]), ("model", "box", 2))
        self.assertEqual(record["machine_preset"]["cores"], 2)

    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built (no SimGrid)")
    def test_smpi_runs_it_given_relative_to_the_working_folder(self):
        out = self.dir / "smpi.jsonl"
        run([LBBENCH, "run", str(SCENARIOS / "hotspot.yaml"), "--engine", "smpi", "--machine", "box.yaml", "--ranks",
             "2", "--out", str(out)], cwd=self.dir)
        record = json.loads(out.read_text().splitlines()[-1])
        self.assertEqual((record["engine"], record["machine"]), ("smpi", "box"))

    def test_a_sweep_given_it_with_set_finds_it_from_the_working_folder(self):
        # As harness/sim_vs_real.sh gives it: a path from where the user stands, not from
        # the scenario's folder.
        sweep = self.dir / "sweep.yaml"
        sweep.write_text(f"name: preset-sweep\nscenario: [{SCENARIOS / 'hotspot.yaml'}]\nset:\n  ranks: 2\n  steps: 2\n"
                         "axes:\n  balancer: [none]\n")
        results = self.dir / "sweep-results"
        run([LBBENCH, "sweep", str(sweep), "--results", str(results), "--set", "engine=model", "--set",
             "machine=box.yaml"], cwd=self.dir)
        record = json.loads((results / "runs.jsonl").read_text().splitlines()[-1])
        self.assertEqual((record["engine"], record["machine"]), ("model", "box"))
        elsewhere = run([LBBENCH, "validate", str(SCENARIOS / "hotspot.yaml"), "--set", "machine=box.yaml"],
                        check=False, cwd=SCENARIOS)
        self.assertEqual(elsewhere.returncode, 2)
        self.assertIn("no machine preset file at box.yaml", elsewhere.stderr)

    def test_machine_local_on_a_simulated_engine_says_how_to_make_a_preset(self):
        refused = run([LBBENCH, "run", str(SCENARIOS / "hotspot.yaml"), "--engine", "model", "--ranks", "2"],
                      check=False)
        self.assertEqual(refused.returncode, 2)
        self.assertIn("machine local is the real hosts, which only the mpi engine runs", refused.stderr)
        self.assertIn("mpirun -np N lbbench calibrate --preset-out host.yaml`, then --machine host.yaml",
                      refused.stderr)
        self.assertIsNone(re.search(r"\(local|, local", refused.stderr))


if __name__ == "__main__":
    unittest.main()
