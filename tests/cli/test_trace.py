"""Recorded runs through the command line: the shared vt trace replayed alike on the simulated
and the modeled machine, on real MPI with its ranks mapped, written out and replayed again,
and clear errors for bad traces.

The shared traces are read from ../shared/traces next to the project; the tests that need
them are skipped, with that reason, where they are absent.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_cli import LBBENCH, MPIEXEC, SCENARIOS, SOURCE, lbbench

TRACES = (SOURCE / ".." / "shared" / "traces").resolve()
HAVE_TRACES = (TRACES / "lbaf-vt-16ranks").is_dir()
NO_TRACES = f"{TRACES} is absent: the shared vt trace cannot be replayed here"
SMPI_BUILT = (Path(LBBENCH).parent / "lbbench-smpi").exists()


def with_traces():
    env = dict(os.environ)
    env["LBBENCH_TRACES_DIR"] = str(TRACES)
    return env


def mpirun(ranks, *args):
    cmd = [MPIEXEC, "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    result = subprocess.run(cmd + ["-np", str(ranks), LBBENCH, *args], capture_output=True, text=True, timeout=300,
                            env=with_traces())
    if result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def run(*args, check=True):
    result = subprocess.run([LBBENCH, "run", *args], capture_output=True, text=True, timeout=600, env=with_traces())
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


class RecordedRuns(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, name, *args):
        out = self.dir / f"{name}.jsonl"
        run(*args, "--out", str(out))
        return json.loads(out.read_text().splitlines()[-1])

    @unittest.skipUnless(HAVE_TRACES, NO_TRACES)
    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
    def test_the_vt_run_decides_alike_on_the_simulated_and_the_modeled_machine(self):
        for balancer in ("tree", "diffusion", "greedy", "prefix"):
            with self.subTest(balancer=balancer):
                args = [str(SCENARIOS / "vt-trace.yaml"), "--machine", "bgq", "--set", f"balancer.name={balancer}",
                        "--host-ghz", "2.0"]
                simulated = self.record(f"smpi-{balancer}", "--engine", "smpi", *args)
                modeled = self.record(f"model-{balancer}", "--engine", "model", *args)
                for r in (simulated, modeled):
                    self.assertEqual(r["ranks"], 32)  # the trace's own by default
                    self.assertEqual(r["trace"]["tasks"], 480)
                    self.assertEqual(r["trace"]["pinned"], 224)
                    self.assertEqual(r["trace"]["mapping"], "one to one")
                self.assertEqual(len(simulated["lb"]), 3)
                for a, b in zip(modeled["lb"], simulated["lb"]):
                    self.assertEqual(a["owners_digest"], b["owners_digest"])
                    self.assertEqual(a["migrations"], b["migrations"])
                    self.assertLessEqual(a["migrations"], 256)  # the migratable tasks only

    @unittest.skipUnless(HAVE_TRACES, NO_TRACES)
    def test_real_mpi_maps_the_recorded_ranks_by_blocks_and_says_so(self):
        out = self.dir / "mpi.jsonl"
        result = mpirun(2, "run", str(SCENARIOS / "vt-trace.yaml"), "--set", "workload.weights.scale=0.01",
                        "--set", "steps=4", "--out", str(out))
        self.assertIn("ranks mapped by blocks: the 32 recorded ranks onto 2", result.stdout)
        record = json.loads(out.read_text().splitlines()[-1])
        self.assertEqual(record["engine"], "mpi")
        self.assertEqual(record["vertices"], 480)
        self.assertIn("by blocks", record["trace"]["mapping"])

    @unittest.skipUnless(HAVE_TRACES, NO_TRACES)
    def test_an_exported_run_replays_as_the_trace_did(self):
        export = self.dir / "export"
        vt = TRACES / "lbaf-vt-16ranks"
        self.record("balanced", "--trace", str(vt), "--engine", "model", "--machine", "bgq", "--set",
                    "balancer=tree", "--set", "balancer.period=3", "--set", "model=weights-no-comm",
                    "--lbdatafile-out", str(export))
        files = sorted(export.glob("data.*.json"))
        self.assertEqual(len(files), 32)
        first = json.loads(files[0].read_text())
        self.assertEqual(first["metadata"], {"type": "LBDatafile", "rank": 0})
        self.assertEqual(len(first["phases"]), 10)
        # What vt's LBDatafile schema asks of every task and communication: these keys,
        # floats for times and bytes (an integer is not a float there), integers elsewhere.
        for phase in first["phases"]:
            self.assertEqual(set(phase), {"id", "tasks", "communications"})
            for task in phase["tasks"]:
                self.assertEqual(set(task), {"entity", "node", "resource", "time"})
                self.assertIsInstance(task["time"], float)
                self.assertLessEqual({"type", "home", "migratable"}, set(task["entity"]))
                self.assertTrue("id" in task["entity"] or "seq_id" in task["entity"])
            for c in phase["communications"]:
                self.assertEqual(set(c), {"type", "from", "to", "messages", "bytes"})
                self.assertIsInstance(c["bytes"], float)
                self.assertIsInstance(c["messages"], int)
        # Replayed without balancing, the export runs as the trace itself: the same tasks,
        # edges, placement at the start and loads, step by step.
        original = self.record("original", "--trace", str(vt), "--engine", "model", "--machine", "bgq")
        again = self.record("again", "--trace", str(export), "--engine", "model", "--machine", "bgq")
        for key in ("vertices", "edges", "edge_cut_initial", "messages_per_step"):
            self.assertEqual(again[key], original[key], key)
        for x, y in zip(again["per_step"]["compute_max_s"], original["per_step"]["compute_max_s"]):
            self.assertAlmostEqual(x, y, delta=1e-12)
        self.assertAlmostEqual(again["total_time_s"], original["total_time_s"], delta=1e-9)

    def test_a_bad_trace_is_refused_with_its_file_and_json_path(self):
        bad = self.dir / "bad"
        bad.mkdir()
        (bad / "data.0.json").write_text(
            '{"metadata": {"type": "LBDatafile"}, "phases": [{"id": 0, "tasks": [{"entity": {"type": "object", '
            '"id": 1, "home": 0, "migratable": true}, "node": 0, "resource": "cpu", "time": "slow"}]}]}')
        result = lbbench("run", "--trace", str(bad), "--engine", "model", "--machine", "bgq")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"{bad / 'data.0.json'}: phases[0].tasks[0].time: expected a number, got the string \"slow\"",
                      result.stderr)
        missing = lbbench("run", "--trace", str(self.dir / "nowhere"), "--engine", "model")
        self.assertEqual(missing.returncode, 2)
        self.assertIn("no such trace file or folder", missing.stderr)
        scenario = self.dir / "s.yaml"
        scenario.write_text("name: s\nsteps: 2\nmesh: {file: nowhere, format: lbdatafile}\n")
        invalid = lbbench("validate", str(scenario))
        self.assertEqual(invalid.returncode, 2)
        self.assertIn("s.yaml:3:", invalid.stderr)
        self.assertIn("mesh.file: no trace at", invalid.stderr)

    def test_run_needs_a_scenario_or_a_trace(self):
        result = lbbench("run", "--engine", "model")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--trace", result.stderr)


if __name__ == "__main__":
    unittest.main()
