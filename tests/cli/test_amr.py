"""A block mesh that regrids (scenarios/amr3d.yaml) on all three engines: real MPI, the
simulated machine and the modeled one, kept small. The mesh's evolution is the same on
every engine and rank count; the simulated and the modeled machine decide and move alike.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import json
import tempfile
import unittest
from pathlib import Path

from test_cli import SCENARIOS, mpirun
from test_model import SMPI_BUILT, run

AMR3D = str(SCENARIOS / "amr3d.yaml")
SMALL = ["--set", "steps=12", "--set", "balancer.period=4"]


class BlockMesh(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, engine, *args):
        out = self.dir / f"{engine}.jsonl"
        result = run(engine, AMR3D, *SMALL, *args, "--out", str(out))
        return json.loads(out.read_text().splitlines()[-1]), result.stdout

    def check_regrids(self, r):
        """What every engine's record of amr3d must say of its regrids."""
        steps = r["steps"]
        live = r["per_step"]["vertices"]
        self.assertEqual(len(live), steps)
        regrid = r["regrid"]
        self.assertEqual(regrid["period"], 2)
        self.assertEqual([e["step"] for e in regrid["events"]], list(range(1, steps - 1, 2)))
        for e in regrid["events"]:
            self.assertEqual(e["vertices_before"], live[e["step"]])
            self.assertEqual(e["vertices_after"], live[e["step"] + 1])
            self.assertEqual(e["vertices_after"] - e["vertices_before"], e["created"] - e["destroyed"])
            self.assertEqual(e["created"], 8 * e["refined"] + e["merged"])
            self.assertEqual(e["destroyed"], e["refined"] + 8 * e["merged"])
            self.assertGreater(e["time_s"], 0)
            self.check_parts(e, exact=r["engine"] == "model")
            self.assertEqual(r["per_step"]["regrid_bytes"][e["step"]], e["bytes"] + e["migrated_bytes"])
        self.assertGreater(sum(e["refined"] for e in regrid["events"]), 0, "the growing sphere splits blocks")
        self.assertGreater(live[-1], live[0])
        self.assertAlmostEqual(regrid["time_s"], sum(e["time_s"] for e in regrid["events"]), places=9)
        # The balancer saw the blocks as they were at each call, and tree balances counts.
        for call in r["lb"]:
            self.assertLessEqual(call["model_imbalance_predicted_after"], call["model_imbalance_before"])

    def check_parts(self, e, exact):
        """A regrid's parts (deciding, gathering, rebuilding), each its slowest rank's: each
        within the whole, and together at least the whole; the model engine prices one
        busiest rank, whose parts are the whole."""
        parts = [e["decision_s"], e["migration_s"], e["rebuild_s"]]
        where = f"the regrid after step {e['step']}: parts {parts}, time_s {e['time_s']}"
        self.assertGreater(e["decision_s"], 0, where)
        self.assertGreater(e["rebuild_s"], 0, where)
        for part in parts:
            self.assertLessEqual(part, e["time_s"] * (1 + 1e-9), where)
        if exact:
            self.assertAlmostEqual(sum(parts), e["time_s"], delta=1e-9 * e["time_s"], msg=where)
        else:
            self.assertGreaterEqual(sum(parts), e["time_s"] * (1 - 1e-9), where)

    def test_the_model_engine_regrids_and_balances_the_blocks(self):
        r, summary = self.record("model", "--machine", "bgq", "--ranks", "64")
        self.check_regrids(r)
        self.assertGreater(sum(e["migrations"] for e in r["regrid"]["events"]), 0,
                           "at 64 ranks some merging families straddle ranks")
        self.assertGreater(r["regrid"]["messages"], 0)
        self.assertIn("regrid every 2 steps", summary)
        self.assertEqual(r["lb_invocations"], 2)
        self.assertGreater(r["lb"][0]["model_imbalance_before"], 0.2, "the split blocks sit on a few ranks")
        self.assertLess(r["lb"][0]["model_imbalance_predicted_after"], 0.05)

    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
    def test_the_simulated_and_the_modeled_machine_regrid_and_move_alike(self):
        args = ["--machine", "bgq", "--ranks", "16", "--host-ghz", "2.0"]
        simulated, _ = self.record("smpi", *args)
        modeled, _ = self.record("model", *args)
        self.check_regrids(simulated)
        self.assertEqual(simulated["per_step"]["vertices"], modeled["per_step"]["vertices"])
        for a, b in zip(simulated["regrid"]["events"], modeled["regrid"]["events"]):
            for key in ("refined", "merged", "rounds", "split_rounds", "messages", "bytes", "migrations",
                        "migrated_bytes", "elements_moved_max", "owners_digest", "after"):
                self.assertEqual(a[key], b[key], f"{key} of the regrid after step {a['step']}")
        self.assertEqual(len(simulated["lb"]), len(modeled["lb"]))
        for a, b in zip(simulated["lb"], modeled["lb"]):
            for key in ("migrations", "migrated_bytes", "owners_digest", "before", "after"):
                self.assertEqual(a[key], b[key], f"{key} of the call after step {a['step']}")

    def test_real_mpi_regrids_at_two_ranks_with_every_check(self):
        out = self.dir / "mpi.jsonl"
        mpirun(2, "run", AMR3D, *SMALL, "--verify", "--out", str(out))
        r = json.loads(out.read_text().splitlines()[-1])
        self.assertEqual(r["engine"], "mpi")
        self.check_regrids(r)
        modeled, _ = self.record("model", "--machine", "bgq", "--ranks", "2")
        self.assertEqual(r["per_step"]["vertices"], modeled["per_step"]["vertices"])

    def test_what_a_block_mesh_cannot_do_is_refused_by_name(self):
        result = run("model", AMR3D, *SMALL, "--machine", "bgq", "--ranks", "4", "--lbdatafile-out", str(self.dir / "x"), check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--lbdatafile-out writes a fixed set of tasks", result.stderr)
        result = run("model", AMR3D, "--set", "mesh.front.sped=0.1", "--machine", "bgq", "--ranks", "4", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("mesh.front.sped: unknown key 'sped'. Did you mean 'speed'?", result.stderr)


if __name__ == "__main__":
    unittest.main()
