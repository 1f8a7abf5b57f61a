"""Strategies from outside the tree: lbbench installed to a fresh prefix, the template built
against it in another folder and run on every engine, then swept and reported; each shape
on the engines it runs on; and every way a plugin can be wrong, with its exit code and
message.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC, LBBENCH_BUILD_DIR.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_cli import LBBENCH, MPIEXEC, SCENARIOS, SOURCE

BUILD = Path(os.environ["LBBENCH_BUILD_DIR"])
TEST_PLUGINS = BUILD / "test-plugins"
SMPI_BUILT = (BUILD / "lbbench-smpi").exists()
HAVE_SMPICXX = shutil.which("smpicxx") is not None

# A small drifting spot, fast on every engine.
SMALL = ["--set", "steps=6", "--set", "balancer.period=2", "--set", "mesh.nx=32", "--set", "mesh.ny=32"]


def run(args, check=True, cwd=None, timeout=300):
    result = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def mpirun(binary, ranks, *args, check=True, cwd=None):
    cmd = [MPIEXEC, "--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return run(cmd + ["-np", str(ranks), binary, *args], check=check, cwd=cwd)


def plugin(name):
    return str(TEST_PLUGINS / f"{name}.so")


def records(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


class AnInstalledLbbenchBuildsAndRunsAStrategyOutsideTheTree(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        root = Path(cls.tmp.name)
        cls.prefix = root / "prefix"
        run(["cmake", "--install", str(BUILD), "--prefix", str(cls.prefix)])
        # The template copied as a user copies it: from the installed tree, built in a folder
        # of its own that knows only the prefix.
        cls.work = root / "work"
        shutil.copytree(cls.prefix / "share" / "lbbench" / "balancer-template", cls.work / "my_lb")
        run(["cmake", "-S", str(cls.work / "my_lb"), "-B", str(cls.work / "my_lb" / "build"),
             f"-DCMAKE_PREFIX_PATH={cls.prefix}"], cwd=cls.work)
        run(["cmake", "--build", str(cls.work / "my_lb" / "build")], cwd=cls.work)
        cls.library = cls.work / "my_lb" / "build" / "my_balancer.so"
        cls.lbbench = str(cls.prefix / "bin" / "lbbench")
        cls.scenario = cls.work / "spot.yaml"
        shutil.copy(SCENARIOS / "quickstart.yaml", cls.scenario)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def args(self, *more):
        return ["run", str(self.scenario), "--plugin", str(self.library), "--set", "balancer.name=my-balancer",
                *SMALL, *more]

    def test_the_package_installs_the_sdk_the_cmake_package_and_both_binaries(self):
        self.assertTrue((self.prefix / "include" / "lbbench" / "balancers" / "sdk" / "plugin.hpp").is_file())
        self.assertTrue((self.prefix / "lib" / "cmake" / "lbbench" / "lbbenchConfig.cmake").is_file())
        self.assertTrue((self.prefix / "share" / "lbbench" / "machines" / "bgq.yaml").is_file())
        if SMPI_BUILT:
            self.assertTrue((self.prefix / "bin" / "lbbench-smpi").is_file())
        self.assertTrue(self.library.is_file())

    def test_it_runs_on_real_mpi_and_its_record_keeps_the_library(self):
        out = self.work / "mpi.jsonl"
        mpirun(self.lbbench, 2, *self.args("--out", str(out)), cwd=self.work)
        record = records(out)[-1]
        self.assertEqual(record["balancer"], "my-balancer")
        self.assertEqual(record["balancer_params"], {"tolerance": 0.05})
        [loaded] = record["provenance"]["plugins"]
        self.assertEqual(loaded["name"], "my-balancer")
        self.assertEqual(loaded["path"], str(self.library.resolve()))
        self.assertEqual(loaded["sha256"], hashlib.sha256(self.library.read_bytes()).hexdigest())

    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built (no SimGrid)")
    def test_it_runs_on_a_simulated_machine_from_any_folder(self):
        out = self.work / "smpi.jsonl"
        run([self.lbbench, *self.args("--engine", "smpi", "--machine", "bgq", "--ranks", "16", "--out", str(out))],
            cwd=self.work)
        record = records(out)[-1]
        self.assertEqual((record["engine"], record["balancer"]), ("smpi", "my-balancer"))
        self.assertGreater(record["lb_invocations"], 0)

    def test_it_runs_on_a_modeled_machine_and_moves_load_where_the_spot_is(self):
        out = self.work / "model.jsonl"
        run([self.lbbench, *self.args("--engine", "model", "--machine", "bgq", "--ranks", "64", "--out", str(out))],
            cwd=self.work)
        record = records(out)[-1]
        self.assertEqual((record["engine"], record["balancer"]), ("model", "my-balancer"))
        self.assertGreater(record["migrations"], 0)
        self.assertLess(record["imbalance_after"][0], record["imbalance_before"][0])

    def test_a_two_value_sweep_with_it_makes_a_report(self):
        sweep = self.work / "mine.yaml"
        sweep.write_text(
            "name: mine\nscenario: spot.yaml\nplugins: [my_lb/build/my_balancer.so]\n"
            "set: {engine: model, machine: bgq, ranks: 32, steps: 6, balancer.period: 2, mesh.nx: 32, mesh.ny: 32}\n"
            "axes:\n  balancer: [none, my-balancer]\n")
        results = self.work / "results"
        run([self.lbbench, "sweep", str(sweep), "--results", str(results)], cwd=self.work)
        report = run([self.lbbench, "report", str(results)], cwd=self.work).stdout
        self.assertIn("my-balancer", report)
        self.assertIn("none", report)


class EachShapeRunsWhereItsCodeCan(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = Path(self.tmp.name) / "runs.jsonl"

    def tearDown(self):
        self.tmp.cleanup()

    def args(self, name, library, *more):
        return ["run", str(SCENARIOS / "quickstart.yaml"), "--plugin", library, "--set", f"balancer.name={name}",
                *SMALL, "--out", str(self.out), *more]

    def test_a_protocol_runs_on_every_engine_alike(self):
        mpirun(LBBENCH, 2, *self.args("test-protocol", plugin("protocol_keep")))
        run([LBBENCH, *self.args("test-protocol", plugin("protocol_keep"), "--engine", "model", "--machine", "bgq",
                                 "--ranks", "8")])
        if SMPI_BUILT:
            run([LBBENCH, *self.args("test-protocol", plugin("protocol_keep"), "--engine", "smpi", "--machine", "bgq",
                                     "--ranks", "8")])
        rs = records(self.out)
        for r in rs:
            self.assertEqual(r["balancer"], "test-protocol")
            self.assertGreater(r["migrations"], 0)
            self.assertEqual(r["balancer_params"], {"rounds": 1, "verbose": False, "label": "none"})
        if SMPI_BUILT:
            # The serial reference the model engine runs and SMPI's MPI run move the same units.
            self.assertEqual(rs[1]["migrations"], rs[2]["migrations"])

    @unittest.skipUnless(SMPI_BUILT and HAVE_SMPICXX, "no SimGrid: the general shape's smpi variant is not built")
    def test_the_general_shape_runs_on_mpi_and_under_smpi_its_own_variant(self):
        self.assertTrue(Path(plugin("general_shift-smpi")).is_file())
        mpirun(LBBENCH, 2, *self.args("test-shift", plugin("general_shift")))
        run([LBBENCH, *self.args("test-shift", plugin("general_shift"), "--engine", "smpi", "--machine", "bgq",
                                 "--ranks", "8")])
        mpi, smpi = records(self.out)
        self.assertGreater(mpi["migrations"], 0)
        self.assertGreater(smpi["migrations"], 0)
        self.assertTrue(smpi["provenance"]["plugins"][0]["path"].endswith("general_shift-smpi.so"))

    def test_the_model_engine_refuses_the_general_shape_saying_why(self):
        result = run([LBBENCH, *self.args("test-shift", plugin("general_shift"), "--engine", "model", "--machine",
                                          "bgq", "--ranks", "8")], check=False)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("general shape, whose plan() calls MPI, and the model engine runs no MPI", result.stderr)

    def test_list_shows_a_plugin_strategy_with_its_declared_params(self):
        listed = run([LBBENCH, "list", "balancers", "--plugin", plugin("protocol_keep")]).stdout
        self.assertRegex(listed, r"test-protocol\s+diffusive\s+test: one reduction")
        self.assertIn("rounds (integer, default 1): unused", listed)
        self.assertIn("label (text, default none): unused", listed)

    def test_a_plugin_strategy_is_one_of_autos_candidates(self):
        run([LBBENCH, "run", str(SCENARIOS / "quickstart.yaml"), "--plugin", plugin("protocol_keep"),
             "--set", "balancer.name=auto", "--set", "balancer.params={candidates: [none, test-protocol]}", *SMALL,
             "--engine", "model", "--machine", "bgq", "--ranks", "8", "--out", str(self.out)])
        [record] = records(self.out)
        candidates = [c["name"] for c in record["balancer_params"]["candidates"]]
        self.assertEqual(candidates, ["none", "test-protocol"])

    def test_a_slurm_job_loads_the_sweeps_plugins(self):
        folder = Path(self.tmp.name)
        shutil.copy(SCENARIOS / "quickstart.yaml", folder / "spot.yaml")
        shutil.copy(plugin("protocol_keep"), folder / "keep.so")
        sweep = folder / "s.yaml"
        sweep.write_text("name: s\nscenario: spot.yaml\nplugins: [keep.so]\nset: {engine: model, machine: bgq, ranks: 8}\n"
                         "axes:\n  balancer: [none, test-protocol]\n")
        script = run([LBBENCH, "sweep", str(sweep), "--slurm", "--dry-run", "--results", str(folder / "r")]).stdout
        self.assertIn(f"--plugin {folder / 'keep.so'}", script.replace("'", ""))

    def test_a_scenario_loads_its_plugins_from_beside_it(self):
        folder = Path(self.tmp.name)
        shutil.copy(plugin("protocol_keep"), folder / "keep.so")
        scenario = folder / "s.yaml"
        scenario.write_text((SCENARIOS / "quickstart.yaml").read_text().replace(
            "balancer:\n  name: refine", "plugins: [keep.so]\nbalancer:\n  name: test-protocol"))
        normalized = run([LBBENCH, "validate", str(scenario)]).stdout
        self.assertIn("plugins: [keep.so]", normalized)
        self.assertIn("name: test-protocol", normalized)


class ABadPluginGetsAClearErrorAndNothingIsLost(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def run_with(self, *libraries, name="none", engine=("--engine", "model", "--machine", "bgq", "--ranks", "8"),
                 extra=()):
        loads = [arg for lib in libraries for arg in ("--plugin", lib)]
        return run([LBBENCH, "run", str(SCENARIOS / "quickstart.yaml"), *loads, "--set", f"balancer.name={name}",
                    *SMALL, *engine, *extra], check=False)

    def expect(self, result, code, *parts):
        self.assertEqual(result.returncode, code, result.stdout + result.stderr)
        for part in parts:
            self.assertIn(part, result.stderr)

    def test_a_missing_file(self):
        missing = str(Path(self.tmp.name) / "nothing.so")
        self.expect(self.run_with(missing), 2, missing, "no plugin library there")

    def test_a_library_without_the_registration_symbol(self):
        self.expect(self.run_with(plugin("no_symbol")), 2, plugin("no_symbol"), "not an lbbench plugin",
                    "lbbench_plugin_abi_version")

    def test_a_library_built_against_another_sdk_version_is_refused_before_it_is_used(self):
        declaration = (SOURCE / "balancers" / "sdk" / "plugin_declaration.hpp").read_text()
        version = re.search(r"kAbiVersion = (\d+);", declaration).group(1)
        self.expect(self.run_with(plugin("other_abi")), 2, plugin("other_abi"), "ABI version 999",
                    f"this lbbench has version {version}")

    def test_a_name_a_built_in_strategy_has(self):
        self.expect(self.run_with(plugin("greedy_clash")), 2, plugin("greedy_clash"), "'greedy'",
                    "a built-in strategy's name")

    def test_a_name_another_plugin_has(self):
        self.expect(self.run_with(plugin("twin_a"), plugin("twin_b")), 2, plugin("twin_b"), "'twin'",
                    f"also registered by {plugin('twin_a')}")

    def test_an_unknown_or_ill_typed_param_is_a_scenario_error(self):
        unknown = self.run_with(plugin("protocol_keep"), name="test-protocol", extra=("--set", "balancer.params.round=2"))
        self.expect(unknown, 2, "balancer.params.round", "unknown key 'round'", "Did you mean 'rounds'?")
        typed = self.run_with(plugin("protocol_keep"), name="test-protocol",
                              extra=("--set", "balancer.params.rounds=many"))
        self.expect(typed, 2, "balancer.params.rounds")

    def test_a_strategy_that_throws_stops_the_run_naming_it(self):
        self.expect(self.run_with(plugin("throws"), name="test-throws"), 3,
                    f"plugin strategy 'test-throws' ({plugin('throws')})", "the strategy gave up on purpose")
        on_mpi = mpirun(LBBENCH, 2, "run", str(SCENARIOS / "quickstart.yaml"), "--plugin", plugin("throws"),
                        "--set", "balancer.name=test-throws", *SMALL, check=False)
        self.assertEqual(on_mpi.returncode, 3, on_mpi.stderr)
        self.assertIn("plugin strategy 'test-throws'", on_mpi.stderr)

    def test_an_assignment_that_breaks_the_invariants_stops_the_run(self):
        self.expect(self.run_with(plugin("bad_rank"), name="test-bad-rank"), 3, "plugin strategy 'test-bad-rank'",
                    "on rank 8, and the ranks are 0..7")
        self.expect(self.run_with(plugin("lost_object"), name="test-lost"), 3, "plugin strategy 'test-lost'",
                    "owners for", "an object would be lost")

    def test_a_sweep_records_the_failed_run_and_goes_on(self):
        folder = Path(self.tmp.name)
        shutil.copy(SCENARIOS / "quickstart.yaml", folder / "spot.yaml")
        sweep = folder / "bad.yaml"
        sweep.write_text(
            f"name: bad\nscenario: spot.yaml\nplugins: [{plugin('throws')}]\n"
            "set: {engine: model, machine: bgq, ranks: 8, steps: 4, balancer.period: 2, mesh.nx: 32, mesh.ny: 32}\n"
            "axes:\n  balancer: [test-throws, none]\n")
        results = folder / "results"
        run([LBBENCH, "sweep", str(sweep), "--results", str(results)], check=False)
        rs = records(results / "runs.jsonl")
        by_balancer = {r["balancer"]: r for r in rs}
        self.assertEqual(set(by_balancer), {"test-throws", "none"})
        self.assertEqual(by_balancer["test-throws"]["sweep"]["status"], "failed")
        self.assertEqual(by_balancer["test-throws"]["exit_code"], 3)
        self.assertNotIn("status", {k for k, v in by_balancer["none"].get("sweep", {}).items() if v == "failed"})


DEBIAN_PYTHON = "/usr/bin/python3"  # the interpreter lbbench embeds, with python3-numpy
HILBERT = SOURCE / "balancers" / "examples" / "hilbert_sfc.py"

# A static hot spot on a 16 x 16 grid whose loads are the weights (no timing noise), and one
# call of the Hilbert curve partition after step 1.
HILBERT_SCENARIO = f"""name: hilbert
seed: 3
steps: 3
mesh: {{generator: grid2d, nx: 16, ny: 16}}
workload:
  unit_seconds: 1.0e-4
  weights: {{model: hotspot, base: 1, peak: 9, radius: 0.2, center: [0.3, 0.6]}}
model: weights-no-comm
distribution: block
balancer:
  name: python
  period: 2
  params: {{module: {HILBERT}, args: {{bits: 4}}}}
"""

# What the test computes itself with NumPy: each task's owner from the module's solve on the
# grid's coordinates and the loads the export recorded, and whether the curve only ever
# steps to a neighboring cell.
REFERENCE = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import hilbert_sfc
loads = json.loads(sys.argv[2])
ranks = int(sys.argv[3])
ids = np.array(sorted(int(i) for i in loads))
coords = np.stack([ids % 16, ids // 16], axis=1).astype(float)
problem = {"nranks": ranks, "coords": coords, "load": np.array([loads[str(i)] for i in ids]),
           "rank_speed": np.ones(ranks)}
owners = hilbert_sfc.solve(problem, bits=4)
cells = np.array([[x, y] for y in range(8) for x in range(8)], dtype=float)
path = cells[np.argsort(hilbert_sfc.hilbert_index(cells, bits=3))]
steps = np.abs(np.diff(path, axis=0)).sum(axis=1)
print(json.dumps({"owners": {str(i): int(o) for i, o in zip(ids, owners)}, "unit_steps": bool((steps == 1).all())}))
"""


def phases_by_task(folder):
    """Per recorded phase: each task's id -> (the rank whose file holds it, its time)."""
    out = {}
    for data in sorted(Path(folder).glob("data.*.json")):
        rank = int(data.name.split(".")[1])
        for phase in json.loads(data.read_text())["phases"]:
            for task in phase["tasks"]:
                out.setdefault(phase["id"], {})[task["entity"]["id"]] = (rank, task["time"])
    return out


@unittest.skipUnless(Path(DEBIAN_PYTHON).exists(), "no Debian python3 with NumPy to compute the reference")
class APythonStrategyRunsOnEveryEngine(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.scenario = Path(self.tmp.name) / "hilbert.yaml"
        self.scenario.write_text(HILBERT_SCENARIO)

    def tearDown(self):
        self.tmp.cleanup()

    def check_against_the_reference(self, export, ranks):
        phases = phases_by_task(export)
        loads = {str(task): time for task, (_, time) in phases[0].items()}
        done = run([DEBIAN_PYTHON, "-c", REFERENCE, str(HILBERT.parent), json.dumps(loads), str(ranks)])
        reference = json.loads(done.stdout)
        self.assertTrue(reference["unit_steps"], "the Hilbert curve jumps between cells that are not neighbors")
        after = {str(task): rank for task, (rank, _) in phases[2].items()}
        self.assertEqual(after, reference["owners"])
        self.assertNotEqual(after, {str(task): rank for task, (rank, _) in phases[0].items()})

    def test_its_owners_match_a_numpy_reference_on_the_model_engine(self):
        export = Path(self.tmp.name) / "model"
        run([LBBENCH, "run", str(self.scenario), "--engine", "model", "--machine", "bgq", "--ranks", "4",
             "--lbdatafile-out", str(export)])
        self.check_against_the_reference(export, 4)

    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built (no SimGrid)")
    def test_its_owners_match_a_numpy_reference_under_smpi(self):
        export = Path(self.tmp.name) / "smpi"
        run([LBBENCH, "run", str(self.scenario), "--engine", "smpi", "--machine", "bgq", "--ranks", "4",
             "--lbdatafile-out", str(export)])
        self.check_against_the_reference(export, 4)

    def test_its_owners_match_a_numpy_reference_on_real_mpi(self):
        export = Path(self.tmp.name) / "mpi"
        mpirun(LBBENCH, 2, "run", str(self.scenario), "--lbdatafile-out", str(export))
        self.check_against_the_reference(export, 2)

    def test_a_python_exception_ends_the_run_with_its_traceback(self):
        module = Path(self.tmp.name) / "broken.py"
        module.write_text("def solve(problem):\n    return 1 // 0\n")
        result = run([LBBENCH, "run", str(self.scenario), "--engine", "model", "--machine", "bgq", "--ranks", "4",
                      "--set", f"balancer.params={{module: {module}}}"], check=False)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn(f"python strategy {module}:solve raised", result.stderr)
        self.assertIn("ZeroDivisionError", result.stderr)
        self.assertIn("broken.py(2): solve", result.stderr)

    def test_its_params_are_checked_like_any_strategy(self):
        result = run([LBBENCH, "validate", str(self.scenario), "--set", "balancer.params.functoin=solve"],
                     check=False)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("unknown key 'functoin'", result.stderr)
        self.assertIn("Did you mean 'function'?", result.stderr)
        missing = run([LBBENCH, "validate", str(self.scenario), "--set", "balancer.params.module=nowhere.py"],
                      check=False)
        self.assertEqual(missing.returncode, 2, missing.stderr)
        self.assertIn("no Python file at", missing.stderr)


if __name__ == "__main__":
    unittest.main()
