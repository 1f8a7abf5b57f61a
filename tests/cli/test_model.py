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

    def test_runs_far_more_ranks_than_a_simulation_could(self):
        # 16,384 ranks of the scale scenario took SMPI over half an hour here.
        record = self.record("model", str(SCENARIOS / "scale.yaml"), "--machine", "bgq", "--ranks", "16384",
                             "--set", "balancer.name=tree")
        self.assertEqual(record["ranks"], 16384)
        self.assertEqual(record["lb_invocations"], 1)
        self.assertGreater(record["lb"][0]["migrations"], 0)
        self.assertLess(record["lb"][0]["model_imbalance_predicted_after"], record["lb"][0]["model_imbalance_before"])
        self.assertGreater(record["simulation"]["peak_rss_mb"], 0)

    def test_auto_skips_the_calls_that_cannot_pay_for_their_reduction(self):
        # Two sites 16 ms apart: the call's totals alone choose `none`, and a later call's
        # reduction (32 ms) costs more than 5% of the run, so no later call is taken.
        args = [str(SCENARIOS / "accuracy" / "droplets-amr.yaml"), "--ranks", "128", "--set", "ranks=128",
                "--set", "machine.preset=grid-2site", "--set", "balancer.period=3", "--set", "balancer.name=auto"]
        blocking = ["--set", "balancer.params.nonblocking_look=false"]
        skipping = self.record("model", *args, *blocking)
        first = skipping["lb"][0]["prediction"]
        self.assertEqual(first["chosen"], "none")
        self.assertEqual(first["skips_next_calls"], first["later_calls"])
        self.assertGreater(first["later_calls"], 0)
        self.assertEqual(skipping["lb_invocations"], 1)
        self.assertEqual(len(skipping["lb"]), 1)
        self.assertEqual(skipping["lb_points"], 1 + first["later_calls"])
        # With the budget for every call and no look between points, every LB point is a
        # call, and each costs time.
        looking = self.record("model", *args, *blocking, "--set", "balancer.params.look_budget=1000")
        self.assertEqual(looking["lb_invocations"], 1 + first["later_calls"])
        self.assertTrue(all(c["prediction"].get("skips_next_calls", 0) == 0 for c in looking["lb"]))
        self.assertLess(skipping["total_time_s"], looking["total_time_s"])
        # With looks (the default), the first point is looked at too, before any call: its
        # totals keep `none` with no call at all, the record's prediction is the look's, and
        # the run waits for about half of the reduction (started one 16 ms step before the
        # point) where the blocking first call waited for all of it.
        looks = self.record("model", *args)
        self.assertEqual(looks["lb_invocations"], 0)
        self.assertEqual(looks["lb_points"], 1 + first["later_calls"])
        decided = looks["prediction"]["look_decision"]
        self.assertEqual((decided["chosen"], decided["by_look"]), ("none", True))
        self.assertEqual(decided["skips_next_calls"], first["later_calls"])
        self.assertEqual(looks["prediction"]["at_step"], skipping["prediction"]["at_step"])
        none = self.record("model", *args[:-2], "--set", "balancer.name=none")
        self.assertLess(looks["total_time_s"] - none["total_time_s"],
                        0.55 * (skipping["total_time_s"] - none["total_time_s"]))
        # With the budget for every look, each later point's look keeps `none` too.
        every = self.record("model", *args, "--set", "balancer.params.look_budget=1000")
        self.assertEqual(every["lb_invocations"], 0)
        self.assertLess(every["total_time_s"], looking["total_time_s"])

    def test_auto_prices_the_steps_after_a_call_along_the_loads_trends(self):
        # The quickstart's hot spot drifts. Tree keeps it together on a few ranks, which grow
        # slowest again before the next call; greedy scatters it. Priced at the slowest rank
        # just after the call, tree's run was predicted 9% short of its own run.
        args = [str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "32", "--set", "distribution=block",
                "--set", "balancer.period=8"]
        chooser = self.record("model", *args, "--set", "balancer.name=auto")
        first = chooser["lb"][0]["prediction"]
        self.assertEqual(first["load_trends"]["origin_step"], -3.5)  # the middle of the 8 steps measured
        # The spot moves: load leaves some ranks as it reaches others, and no step is forecast
        # past the slowest rank.
        self.assertTrue(first["load_trends"]["moving"])
        self.assertGreater(first["load_trends"]["cancelled_share"], 0.5)
        self.assertEqual(first["load_trends"]["capped_at_s"], first["lmax_before_s"])
        tree, greedy = first["candidates"]["tree"], first["candidates"]["greedy"]
        self.assertGreater(tree["step_lmax_s"], 1.1 * tree["lmax_after_s"])
        self.assertLess(greedy["step_lmax_s"], 1.05 * greedy["lmax_after_s"])
        alone = self.record("model", *args, "--set", "balancer.name=tree")
        predicted = chooser["prediction"]["candidates"]["tree"]["total_s"]
        self.assertLess(abs(predicted - alone["total_time_s"]) / alone["total_time_s"], 0.03)

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
