"""Recorded runs through the command line: the shared vt trace replayed alike on the simulated
and the modeled machine, on real MPI with its ranks mapped, written out and replayed again,
LBAF's own output replayed, every export accepted by vt's validator, and clear errors for
bad traces.

The shared traces are read from ../shared/traces next to the project, vt's validator from
../shared/tools/vt-lbdatafile-validator (run with Debian's /usr/bin/python3, which has
python3-schema and python3-brotli); the tests that need them are skipped, with that reason,
where they are absent.

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
VALIDATOR = (SOURCE / ".." / "shared" / "tools" / "vt-lbdatafile-validator").resolve()
VALIDATOR_PYTHON = "/usr/bin/python3"


def validator_missing():
    """Why vt's validator cannot run here, or None."""
    if not (VALIDATOR / "JSON_data_files_validator.py").is_file():
        return f"{VALIDATOR} is absent: vt's LBDatafile validator cannot judge the exports here"
    probe = subprocess.run([VALIDATOR_PYTHON, "-c", "import schema, brotli"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{VALIDATOR_PYTHON} lacks schema or brotli (apt-get install python3-schema python3-brotli)"
    return None


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

    @unittest.skipUnless((TRACES / "lbaf-balanced-32ranks").is_dir(), f"{TRACES} is absent: LBAF's output cannot be replayed here")
    def test_lbafs_balanced_output_replays_with_a_note_and_lbafs_imbalance(self):
        out = self.dir / "lbaf.jsonl"
        result = run("--trace", str(TRACES / "lbaf-balanced-32ranks"), "--engine", "model", "--machine", "bgq",
                     "--set", "balancer.name=none", "--out", str(out))
        # LBAF's rewritten homes are taken, said once for the whole set.
        homes = [line for line in result.stderr.splitlines() if "change home between phases" in line]
        self.assertEqual(len(homes), 1, result.stderr)
        self.assertTrue(homes[0].startswith("lbbench: note: "), homes[0])
        self.assertIn("35 of the 480 tasks", homes[0])
        # LBAF's placement is read, and its imbalance said: 4.2845 as LBAF reported it.
        moves = [line for line in result.stderr.splitlines() if "run on another rank in a later phase" in line]
        self.assertEqual(len(moves), 1, result.stderr)
        self.assertIn("4.9467 at phase 1, 4.2845 at phase 2", moves[0])
        # The replay starts from the first phase's placement: its first step's imbalance is
        # LBAF's for phase 1 (max/avg - 1 of rank work, 4.94672).
        record = json.loads(out.read_text().splitlines()[-1])
        self.assertEqual(record["steps"], 2)
        self.assertAlmostEqual(record["per_step"]["imbalance"][0], 4.94672, delta=5e-5)

    def validate(self, folder, files):
        """vt's validator on every file of an export folder: each one valid, none skipped."""
        written = sorted(folder.glob("data.*.json"))
        self.assertEqual(len(written), files)
        # --validate_comm_links: every communication names a task of the phase (no run here
        # has a node end, which vt names by its rank and this check does not know).
        result = subprocess.run([VALIDATOR_PYTHON, str(VALIDATOR / "JSON_data_files_validator.py"), "--dir_path",
                                 str(folder), "--validate_comm_links"], capture_output=True, text=True, timeout=300)
        log = result.stdout + result.stderr
        self.assertEqual(result.returncode, 0, log)
        self.assertNotIn("ERROR", log)
        self.assertNotIn("Invalid", log)
        valid = [line for line in log.splitlines() if "Valid JSON schema in" in line]
        self.assertEqual(len(valid), files, log)
        return [json.loads(f.read_text()) for f in written]

    def test_vts_validator_accepts_every_export(self):
        missing = validator_missing()
        if missing:
            self.skipTest(missing)
        # Small grids: the validator's schema check takes seconds per megabyte.
        small = ["--set", "mesh.nx=24", "--set", "mesh.ny=24"]
        model = ["--engine", "model", "--machine", "bgq", "--ranks", "4", *small]
        with self.subTest(run="scalar"):
            export = self.dir / "scalar"
            self.record("scalar", str(SCENARIOS / "quickstart.yaml"), *model, "--set", "steps=3", "--set",
                        "balancer.name=none", "--lbdatafile-out", str(export))
            self.validate(export, 4)
        with self.subTest(run="vector with subphases"):
            export = self.dir / "vector"
            self.record("vector", str(SCENARIOS / "vector.yaml"), *model, "--set", "steps=2", "--lbdatafile-out",
                        str(export))
            tasks = [t for f in self.validate(export, 4) for p in f["phases"] for t in p["tasks"]]
            self.assertEqual(len(tasks), 2 * 24 * 24)  # every vertex, both steps
            self.assertTrue(all(len(t["subphases"]) == 2 for t in tasks))
        with self.subTest(run="with LB calls"):
            export = self.dir / "balanced"
            record = self.record("balanced", str(SCENARIOS / "quickstart.yaml"), *model, "--set", "steps=4",
                                 "--set", "balancer.period=2", "--lbdatafile-out", str(export))
            self.assertGreater(sum(e["migrations"] for e in record["lb"]), 0)
            self.validate(export, 4)
        with self.subTest(run="real MPI, measured loads, LB calls"):
            export = self.dir / "mpi"
            mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), *small, "--set", "steps=4", "--set",
                   "balancer.period=2", "--lbdatafile-out", str(export))
            self.validate(export, 2)
        for name in ("lbaf-vt-16ranks", "lbaf-balanced-32ranks"):
            with self.subTest(run=f"replay of {name}, pinned objects"):
                if not (TRACES / name).is_dir():
                    self.skipTest(f"{TRACES / name} is absent: no trace with pinned objects to replay here")
                export = self.dir / name
                self.record(name, "--trace", str(TRACES / name), "--engine", "model", "--machine", "bgq", "--set",
                            "steps=2", "--set", "balancer=tree", "--set", "balancer.period=1", "--lbdatafile-out",
                            str(export))
                tasks = [t for f in self.validate(export, 32) for p in f["phases"] for t in p["tasks"]]
                self.assertTrue(any(not t["entity"]["migratable"] for t in tasks))

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
