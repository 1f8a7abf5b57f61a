"""Recorded runs through the command line: the shared vt trace replayed alike on the simulated
and the modeled machine, on real MPI with its ranks mapped, written out and replayed again,
LBAF's own output replayed, every export accepted by vt's validator, vt's own statistics
(LBStatsfile) beside a trace printed and recorded beside the replay's imbalance, and clear
errors for bad traces.

The shared traces are read from ../shared/traces next to the project, vt's validator from
../shared/tools/vt-lbdatafile-validator (run with Debian's /usr/bin/python3, which has
python3-schema and python3-brotli); the tests that need them are skipped, with that reason,
where they are absent.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import json
import math
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


# A small recorded run with vt's statistics beside it: RANKS ranks, PHASES phases, two tasks
# a rank, one hot rank a phase; vt's name for its statistics file (uncompressed).
RANKS = 4
PHASES = 6
STATS_NAME = "vt_lb_statistics.2024-05-06-07-08-09.json"
QUANTITIES = ("avg", "car", "imb", "kur", "max", "min", "npr", "skw", "std", "sum", "var")


def phase_loads(phase):
    """Each rank's summed task times in the phase: 20 ms, and more on the phase's hot rank."""
    return [0.02 + (0.005 * (1 + phase) if r == phase % RANKS else 0.0) for r in range(RANKS)]


def task_times(phase, rank):
    load = phase_loads(phase)[rank]
    return [0.25 * load, 0.75 * load]


def imbalance(values):
    """vt's imb: max/avg - 1."""
    avg = sum(values) / len(values)
    return max(values) / avg - 1.0 if avg > 0 else 0.0


def statistic(values):
    """The eleven quantities vt writes of a statistic over these values, floats as its schema asks."""
    n = len(values)
    avg = sum(values) / n if n else 0.0
    var = sum((x - avg) ** 2 for x in values) / n if n else 0.0
    std = math.sqrt(var)
    skw = sum((x - avg) ** 3 for x in values) / n / std ** 3 if std > 0 else 0.0
    kur = sum((x - avg) ** 4 for x in values) / n / var ** 2 - 3.0 if var > 0 else 0.0
    return {"avg": float(avg), "car": float(n), "imb": float(imbalance(values) if values else 0.0),
            "kur": float(kur), "max": float(max(values, default=0.0)), "min": float(min(values, default=0.0)),
            "npr": float(RANKS), "skw": float(skw), "std": float(std), "sum": float(sum(values)), "var": float(var)}


def stats_document():
    """vt's LBStatsfile of the small run: per phase, the pre-LB statistics of its loads."""
    phases = []
    for p in range(PHASES):
        ranks = phase_loads(p)
        objects = [t for r in range(RANKS) for t in task_times(p, r)]
        comm = statistic([1024.0] * RANKS)
        pre = {"Object_comm": comm, "Object_load_modeled": statistic(objects), "Object_load_raw": statistic(objects),
               "Rank_comm": comm, "Rank_load_modeled": statistic(ranks), "Rank_load_raw": statistic(ranks)}
        phases.append({"id": p, "migration count": 0, "pre-LB": pre})
    return {"metadata": {"type": "LBStatsfile"}, "phases": phases}


def write_trace_with_stats(folder):
    """The small run's data files and its statistics in `folder`; the statistics' path."""
    folder.mkdir(parents=True)
    for r in range(RANKS):
        phases = []
        for p in range(PHASES):
            tasks = [{"entity": {"type": "object", "id": 100 * r + i, "home": r, "migratable": True}, "node": r,
                      "resource": "cpu", "time": t} for i, t in enumerate(task_times(p, r))]
            to = (r + 1) % RANKS
            comms = [{"type": "SendRecv", "from": {"type": "object", "id": 100 * r, "home": r, "migratable": True},
                      "to": {"type": "object", "id": 100 * to, "home": to, "migratable": True}, "messages": 1,
                      "bytes": 1024.0}]
            phases.append({"id": p, "tasks": tasks, "communications": comms})
        (folder / f"data.{r}.json").write_text(json.dumps({"metadata": {"type": "LBDatafile", "rank": r},
                                                          "phases": phases}))
    stats = folder / STATS_NAME
    stats.write_text(json.dumps(stats_document()))
    return stats


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

    def test_vts_validator_accepts_the_statistics_these_tests_write(self):
        missing = validator_missing()
        if missing:
            self.skipTest(missing)
        folder = self.dir / "stats"
        stats = write_trace_with_stats(folder)
        result = subprocess.run([VALIDATOR_PYTHON, str(VALIDATOR / "JSON_data_files_validator.py"), "--file_path",
                                 str(stats)], capture_output=True, text=True, timeout=300)
        log = result.stdout + result.stderr
        self.assertEqual(result.returncode, 0, log)
        self.assertIn(f"Valid JSON schema in {stats}", log)
        self.assertNotIn("Invalid", log)

    def test_vts_recorded_imbalance_is_printed_beside_the_replays(self):
        folder = self.dir / "stats"
        stats = write_trace_with_stats(folder)
        expected = [imbalance(phase_loads(p)) for p in range(PHASES)]
        self.assertEqual(len(set(round(x, 4) for x in expected)), PHASES)  # a phase out of place would show
        out = self.dir / "stats.jsonl"
        result = run("--trace", str(folder), "--engine", "model", "--machine", "bgq", "--ranks", str(RANKS),
                     "--set", "balancer.name=none", "--out", str(out))
        self.assertNotIn("data sets", result.stderr)
        record = json.loads(out.read_text().splitlines()[-1])
        trace = record["trace"]
        self.assertEqual(trace["files"], RANKS)  # the data files, not the statistics
        self.assertEqual(trace["stats_file"], str(stats))
        self.assertEqual(trace["recorded_statistic"], "Rank_load_raw")
        self.assertEqual([(p["step"], p["phase"]) for p in trace["recorded_imbalance"]],
                         [(k, k) for k in range(PHASES)])
        for p, x in zip(trace["recorded_imbalance"], expected):
            self.assertAlmostEqual(p["imbalance"], x, delta=1e-12)
        # Unbalanced, the replay runs the recorded placement: its imbalance is vt's, step by step.
        for step, x in zip(record["per_step"]["imbalance"], expected):
            self.assertAlmostEqual(step, x, delta=1e-3)
        lines = [line for line in result.stdout.splitlines() if "vt's LBStatsfile" in line]
        self.assertEqual(len(lines), 1, result.stdout)
        recorded = ", ".join(f"{x:.4f} at phase {p}" for p, x in enumerate(expected[:4]))
        self.assertIn(f"vt's LBStatsfile (pre-LB Rank_load_raw imb, max/avg - 1): {recorded}, ...; this replay: ",
                      lines[0])
        replayed = [float(x) for x in lines[0].split("this replay: ")[1].rstrip(", .").split(", ")]
        self.assertEqual(len(replayed), 4)
        for printed, step in zip(replayed, record["per_step"]["imbalance"]):
            self.assertAlmostEqual(printed, step, delta=6e-5)  # printed to 4 decimals
        summary = [line for line in result.stdout.splitlines() if line.startswith(f"  over the {PHASES} phases")]
        self.assertEqual(len(summary), 1, result.stdout)

    def test_the_summary_gives_the_largest_difference_from_vts(self):
        folder = self.dir / "stats"
        write_trace_with_stats(folder)
        out = self.dir / "balanced.jsonl"
        result = run("--trace", str(folder), "--engine", "model", "--machine", "bgq", "--ranks", str(RANKS),
                     "--set", "balancer=greedy", "--set", "balancer.period=1", "--out", str(out))
        record = json.loads(out.read_text().splitlines()[-1])
        steps = record["per_step"]["imbalance"]
        differences = [(abs(steps[p["step"]] - p["imbalance"]), p["phase"]) for p in record["trace"]["recorded_imbalance"]]
        largest, phase = max(differences)
        self.assertGreater(largest, 0.1)  # balanced from the first call on, the replay leaves vt's placement
        self.assertIn(f"  over the {PHASES} phases vt recorded and this run replays: the replay differs by up to "
                      f"{largest:.4f} (phase {phase})", result.stdout)

    def test_statistics_alone_or_broken_are_refused_with_their_file(self):
        alone = self.dir / "alone"
        alone.mkdir()
        stats = alone / STATS_NAME
        stats.write_text(json.dumps(stats_document()))
        result = lbbench("run", "--trace", str(alone), "--engine", "model", "--machine", "bgq")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"{alone}: holds only vt's load statistics (LBStatsfile: {STATS_NAME}) and no LBDatafile",
                      result.stderr)
        broken = self.dir / "broken"
        write_trace_with_stats(broken)
        text = (broken / STATS_NAME).read_text()
        (broken / STATS_NAME).write_text(text.replace('"imb": ', '"imb": "high", "x": ', 1))
        result = lbbench("run", "--trace", str(broken), "--engine", "model", "--machine", "bgq")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"{broken / STATS_NAME}: phases[0].pre-LB.Object_comm.x: unknown key 'x' in a statistic",
                      result.stderr)
        (broken / STATS_NAME).write_text(text[:len(text) // 2])  # cut short, as by a run killed while writing
        result = lbbench("run", "--trace", str(broken), "--engine", "model", "--machine", "bgq")
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn(f"{broken / STATS_NAME}:1:", result.stderr)
        self.assertIn("not valid JSON", result.stderr)

    def test_run_needs_a_scenario_or_a_trace(self):
        result = lbbench("run", "--engine", "model")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--trace", result.stderr)


if __name__ == "__main__":
    unittest.main()
