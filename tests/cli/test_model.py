"""The model engine: the same decisions as the simulated machine, times close to it, and
clear refusals of what it cannot run.

Environment: LBBENCH, LBBENCH_SOURCE_DIR.
"""
import json
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_cli import LBBENCH, SCENARIOS

SMPI_BUILT = (Path(LBBENCH).parent / "lbbench-smpi").exists()


def run(engine, *args, check=True):
    result = subprocess.run([LBBENCH, "run", "--engine", engine, *args], capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"{engine} {args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


class ModelEngine(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, engine, *args):
        out = self.dir / f"{engine}.jsonl"
        run(engine, *args, "--out", str(out))
        return json.loads(out.read_text().splitlines()[-1])

    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
    def test_decides_and_moves_as_the_simulated_machine_does(self):
        # The same host clock for both, so code is charged alike.
        for balancer in ("tree", "metis", "diffusion", "gossip"):
            with self.subTest(balancer=balancer):
                args = [str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "32", "--set", "steps=6",
                        "--set", "balancer.period=2", "--set", f"balancer.name={balancer}", "--host-ghz", "2.0"]
                simulated = self.record("smpi", *args)
                modeled = self.record("model", *args)
                self.assertEqual(modeled["engine"], "model")
                self.assertEqual(len(modeled["lb"]), len(simulated["lb"]))
                for a, b in zip(modeled["lb"], simulated["lb"]):
                    self.assertEqual(a["migrations"], b["migrations"])
                    self.assertEqual(a["migrated_bytes"], b["migrated_bytes"])
                    self.assertEqual(a["elements_moved_max"], b["elements_moved_max"])
                    self.assertEqual(a["owners_digest"], b["owners_digest"])  # every vertex on the same rank
                    self.assertEqual(a["after"], b["after"])
                    self.assertAlmostEqual(a["model_imbalance_predicted_after"], b["model_imbalance_predicted_after"],
                                           places=9)
                    if "protocol" in b:
                        for key in ("rounds", "messages", "bytes", "largest_list"):
                            self.assertEqual(a["protocol"][key], b["protocol"][key])
                # Compute is do_work's, the same on both; the steps' imbalance with it.
                for x, y in zip(modeled["per_step"]["imbalance"], simulated["per_step"]["imbalance"]):
                    self.assertAlmostEqual(x, y, delta=1e-3)
                self.assertAlmostEqual(modeled["compute_time_s"], simulated["compute_time_s"],
                                       delta=1e-3 * simulated["compute_time_s"])
                self.assertIn("measured", modeled["modeling"]["decision_costs"])

    @unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
    def test_a_scattered_placements_exchange_shares_the_nodes_links_as_under_smpi(self):
        # 32 bgq ranks are two nodes. Scattered at random, every rank sends across the one
        # link between them, and that link, not each message, sets the step: its time is
        # several times the compute.
        args = [str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "32", "--set", "steps=3",
                "--set", "distribution=random", "--set", "balancer.name=none", "--set", "workload.edge_bytes=16384",
                "--host-ghz", "2.0"]
        simulated = self.record("smpi", *args)
        modeled = self.record("model", *args)
        self.assertGreater(simulated["total_time_s"], 3 * simulated["compute_time_max_s"])
        self.assertAlmostEqual(modeled["total_time_s"], simulated["total_time_s"],
                               delta=0.05 * simulated["total_time_s"])

    def test_runs_far_more_ranks_than_a_simulation_could(self):
        # 16,384 ranks of the scale scenario took SMPI over half an hour here.
        record = self.record("model", str(SCENARIOS / "scale.yaml"), "--machine", "bgq", "--ranks", "16384",
                             "--set", "balancer.name=tree")
        self.assertEqual(record["ranks"], 16384)
        self.assertEqual(record["lb_invocations"], 1)
        self.assertGreater(record["lb"][0]["migrations"], 0)
        self.assertLess(record["lb"][0]["model_imbalance_predicted_after"], record["lb"][0]["model_imbalance_before"])
        self.assertGreater(record["simulation"]["peak_rss_mb"], 0)

    def test_auto_tries_no_candidate_whose_cost_its_bank_cannot_cover(self):
        # Two sites 16 ms apart: every call gathers or reduces across the wide-area link. With
        # no budget `auto` tries nothing, and with the default it looks less and less often
        # at points where nothing pays, so it looks at fewer points than there are.
        args = [str(SCENARIOS / "accuracy" / "droplets-amr.yaml"), "--ranks", "128", "--set", "ranks=128",
                "--set", "machine.preset=grid-2site", "--set", "balancer.period=3", "--set", "balancer.name=auto"]
        closed = self.record("model", *args, "--set", "balancer.params.budget=0")
        self.assertEqual(closed["lb_invocations"], 0)
        self.assertEqual(closed["prediction"]["chosen"], "none")
        looked = sum(closed["prediction"]["calls"].values())
        self.assertGreater(looked, 0)
        self.assertLess(looked, closed["lb_points"])

    def test_auto_credits_each_call_with_what_the_steps_after_it_measured(self):
        # The quickstart's hot spot drifts: `auto` calls, and its record sums what the
        # windows after its calls gained against what it predicted and what they cost.
        args = [str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "32", "--set", "distribution=block",
                "--set", "balancer.period=8"]
        chooser = self.record("model", *args, "--set", "balancer.name=auto")
        self.assertGreater(chooser["lb_invocations"], 0)
        credited = [c["prediction"]["credited"] for c in chooser["lb"][1:] if c["prediction"]["credited"]]
        prediction = chooser["prediction"]
        self.assertGreater(prediction["predicted_gain_s"], 0)
        self.assertGreater(prediction["delivered_gain_s"], 0)
        self.assertGreater(prediction["spent_s"], 0)
        # What a call is charged is what the engine charged it.
        first = chooser["lb"][0]
        charged = [c for c in credited if "cost_s" in c]
        if charged:
            self.assertAlmostEqual(charged[0]["cost_s"], first["decision_s"] + first["migration_s"], delta=1e-12)
        none = self.record("model", *args, "--set", "balancer.name=none")
        self.assertLess(chooser["total_time_s"], none["total_time_s"])

    def test_refuses_what_it_cannot_run(self):
        for args, message in (
                ([str(SCENARIOS / "hotspot.yaml"), "--ranks", "4"], "the model engine simulates a machine"),
                ([str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq"], "needs a rank count"),
                ([str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", "--ranks", "4", "--set", "balancer.name=zoltan"],
                 "zoltan cannot run under the model engine"),
                ([str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "64", "--set", "reorder=dist"],
                 "no start-up rank reorder"),
                ([str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "100000"],
                 "the mesh has 16384 vertices but the run has 100000 ranks")):
            with self.subTest(message=message):
                result = run("model", *args, check=False)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn(message, result.stderr)


if __name__ == "__main__":
    unittest.main()
