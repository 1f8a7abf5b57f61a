"""The smpi engine: every preset simulated end to end, the same decisions as real MPI, and
the launcher's errors. Skipped when lbbench-smpi was not built.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_cli import LBBENCH, SCENARIOS, mpirun

SMPI_BUILT = (Path(LBBENCH).parent / "lbbench-smpi").exists()


def simulate(*args, check=True):
    result = subprocess.run([LBBENCH, "run", "--engine", "smpi", *args], capture_output=True, text=True, timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


@unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
class SimulatedMachines(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = Path(self.tmp.name) / "runs.jsonl"

    def tearDown(self):
        self.tmp.cleanup()

    def records(self):
        return [json.loads(line) for line in self.out.read_text().splitlines()]

    def test_every_preset_runs_end_to_end(self):
        for preset, ranks in (("bgp", 16), ("bgq", 48), ("cluster-ib", 40), ("grid-2site", 8)):
            with self.subTest(preset=preset):
                platform = Path(self.tmp.name) / preset
                result = simulate(str(SCENARIOS / "quickstart.yaml"), "--machine", preset, "--ranks", str(ranks),
                                  "--set", "steps=4", "--set", "balancer.period=2", "--out", str(self.out),
                                  "--platform-dir", str(platform))
                self.assertIn(f"{ranks} ranks", result.stdout)
                record = self.records()[-1]
                self.assertEqual(record["engine"], "smpi")
                self.assertEqual(record["machine"], preset)
                self.assertEqual(record["ranks"], ranks)
                self.assertEqual(record["lb_invocations"], 1)
                self.assertGreater(record["total_time_s"], 0)
                # Setup is simulated too (it sends messages); the wall time is this host's.
                self.assertGreater(record["simulation"]["setup_s"], 0)
                self.assertGreater(record["simulation"]["wall_s"], 0)
                hosts = (platform / "hostfile").read_text().split()
                self.assertEqual(len(hosts), ranks)

    def test_a_look_keeps_none_where_the_loads_stay_as_they_were(self):
        # Even loads: the look at each point, reduced without waiting, shows no imbalance to
        # remove, so `auto` keeps every point without a call. Were the look's totals wrong
        # (each rank's own share), the loads would look imbalanced and the point a call.
        simulate(str(SCENARIOS / "quickstart.yaml"), "--machine", "bgq", "--ranks", "16", "--set", "steps=9",
                 "--set", "balancer.period=3", "--set", "workload.weights={model: uniform}",
                 "--set", "workload.evolution=static", "--set", "balancer.name=auto",
                 "--set", "balancer.params={candidates: [none, tree], budget: 1}", "--out", str(self.out))
        record = self.records()[-1]
        self.assertEqual(record["lb_points"], 2)
        self.assertEqual(record["lb_invocations"], 0)
        self.assertEqual(record["prediction"]["chosen"], "none")
        self.assertEqual(record["prediction"]["calls"], {"none": 2, "tree": 0})

    def test_a_deterministic_balancer_decides_the_same_on_both_engines(self):
        # Compute weights only: the two machines' networks differ, and with them `weights`.
        common = ["--set", "balancer.name=metis", "--set", "model=weights-no-comm", "--set", "steps=9",
                  "--set", "balancer.period=3", "--out", str(self.out)]
        mpirun(2, "run", str(SCENARIOS / "hotspot.yaml"), *common)
        simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "cluster-ib", "--ranks", "2", *common)
        real, simulated = self.records()
        self.assertEqual((real["engine"], simulated["engine"]), ("mpi", "smpi"))
        self.assertEqual(len(real["lb"]), 2)
        for a, b in zip(real["lb"], simulated["lb"]):
            self.assertEqual(a["migrations"], b["migrations"])
            self.assertEqual(a["after"]["edge_cut"], b["after"]["edge_cut"])
            self.assertAlmostEqual(a["model_imbalance_predicted_after"], b["model_imbalance_predicted_after"], places=9)

    def test_load_metrics_of_the_model_match_the_measurement_when_the_weights_are_the_truth(self):
        # Simulated compute is weight x unit_seconds, exactly what `model: weights-no-comm` tells the
        # balancer, so Pearce's metrics of the two must agree (up to the framework's own
        # simulated time around the kernel, well under 1%) and the ranks correlate fully.
        simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", "--ranks", "16", "--set",
                 "model=weights-no-comm", "--out", str(self.out))
        (record,) = self.records()
        for call in record["lb"]:
            model = call["metrics"]["model"]
            self.assertAlmostEqual(model["imbalance_pct"], 100 * call["model_imbalance_before"], places=9)
        # At the first call one rank holds the hot spot; later calls see a balanced load,
        # whose shape is only the framework's noise.
        first = record["lb"][0]["metrics"]
        for key in ("imbalance_pct", "sigma", "skewness", "kurtosis"):
            self.assertAlmostEqual(first["model"][key] / first["measured"][key], 1, delta=0.01, msg=key)
        # Ranks far from the hot spot carry nearly equal loads, so that noise may swap a pair
        # of them (one swap among 16 ranks costs about 0.01); a wrong model falls far lower.
        self.assertGreater(first["rank_correlation"], 0.95)
        self.assertGreater(first["model"]["imbalance_pct"], 100)
        self.assertGreater(first["model"]["skewness"], 0.3)  # few ranks above the mean

    def test_wrong_application_models_show_in_the_metrics(self):
        # Counts only: on a block distribution every rank holds as many vertices, so the model
        # sees no imbalance while the hot spot makes one rank far slower.
        simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", "--ranks", "16", "--set", "model=counts",
                 "--set", "balancer.name=greedy", "--set", "balancer.period=4", "--out", str(self.out))
        # Heavy noise and a third of the vertices left out of the weights.
        simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", "--ranks", "16", "--set", "model=weights",
                 "--set", "model_error={noise: 2, omit: 0.3}", "--set", "balancer.name=greedy",
                 "--set", "balancer.period=4", "--out", str(self.out))
        counts, noisy = self.records()
        self.assertEqual(counts["model"], "counts")
        first = counts["lb"][0]["metrics"]
        self.assertLess(first["model"]["imbalance_pct"], 1)
        self.assertGreater(first["measured"]["imbalance_pct"], 100)
        self.assertIsNone(first["rank_correlation"])  # equal counts order no ranks
        self.assertEqual(noisy["config"]["model_error"], {"noise": 2.0, "omit": 0.3})
        first = noisy["lb"][0]["metrics"]
        self.assertGreater(abs(first["model"]["sigma"] / first["measured"]["sigma"] - 1), 0.05)

    def reorder_scenario(self):
        # scenarios/reorder.yaml without `cores` (real pinning): ranks 0-4 carry 4 units,
        # 5-9 carry 2 and 10-15 carry 1. On bgp (4 cores a node) with 2 processes per core,
        # node 0 runs ranks 0-7 (26 units) and node 1 ranks 8-15 (10 units).
        text = (SCENARIOS / "reorder.yaml").read_text()
        lines = [line for line in text.splitlines() if not line.startswith("cores:")]
        scenario = Path(self.tmp.name) / "reorder.yaml"
        scenario.write_text("\n".join(lines).replace("file: reorder/", f"file: {SCENARIOS}/reorder/") + "\n")
        return scenario

    def test_the_rank_reorder_balances_simulated_nodes_whose_ranks_share_cores(self):
        scenario = self.reorder_scenario()
        for method in ("identity", "exact"):
            result = simulate(str(scenario), "--machine", "bgp", "--set", "machine.processes_per_core=2",
                              "--set", f"reorder={method}", "--set", "steps=4", "--out", str(self.out))
            self.assertIn(f"reorder {method} on 2 simulated nodes", result.stdout)
        identity, exact = self.records()
        unit = identity["reorder"]["max_core_load_before_s"] / 26
        self.assertAlmostEqual(identity["reorder"]["max_core_load_after_s"], 26 * unit, places=9)
        self.assertAlmostEqual(exact["reorder"]["max_core_load_after_s"], 18 * unit, places=9)
        self.assertEqual(exact["reorder"]["processes_per_core"], [8, 8])  # the node is the reorder's core
        # SimGrid shares each node's 4 cores among its 8 ranks, so the node with 26 units
        # paces every step; after the reorder both nodes carry 18.
        self.assertLess(exact["total_time_s"], 0.95 * identity["total_time_s"])
        self.assertEqual(exact["config"]["machine"]["processes_per_core"], 2)

    def test_the_launcher_says_what_is_missing(self):
        no_machine = simulate(str(SCENARIOS / "hotspot.yaml"), "--ranks", "4", check=False)
        self.assertEqual(no_machine.returncode, 2)
        self.assertIn("the smpi engine simulates a machine, and machine local is the real hosts", no_machine.stderr)
        self.assertIn("lbbench calibrate --preset-out host.yaml`, then --machine host.yaml", no_machine.stderr)
        self.assertNotIn("local,", no_machine.stderr.split("(", 1)[1])
        no_ranks = simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", check=False)
        self.assertEqual(no_ranks.returncode, 2)
        self.assertIn("needs a rank count", no_ranks.stderr)
        # Refused before the simulation starts, also as a candidate of auto.
        zoltan = simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", "--ranks", "4", "--set",
                          "balancer.name=zoltan", check=False)
        self.assertEqual(zoltan.returncode, 2)
        self.assertIn("zoltan cannot run under the smpi engine", zoltan.stderr)
        self.assertNotIn("smpirun", zoltan.stderr)
        candidate = simulate(str(SCENARIOS / "hotspot.yaml"), "--machine", "bgq", "--ranks", "4", "--set",
                             "balancer={name: auto, params: {candidates: [none, zoltan]}}", check=False)
        self.assertEqual(candidate.returncode, 2)
        self.assertIn("zoltan cannot run under the smpi engine", candidate.stderr)

    def test_code_is_charged_as_asked(self):
        # A centralized METIS decision: its solve is charged by its own CPU time (explicit),
        # with all code SimGrid benchmarks (simulator), or not at all (none: only messages).
        common = ["--machine", "bgq", "--ranks", "4", "--set", "balancer.name=metis", "--set", "steps=3",
                  "--set", "balancer.period=2", "--out", str(self.out)]
        for charge in ("explicit", "simulator", "none"):
            simulate(str(SCENARIOS / "hotspot.yaml"), *common, "--code-charge", charge)
        explicit, simulator, none = self.records()
        self.assertLess(none["lb_time_s"], explicit["lb_time_s"] / 2)
        self.assertLess(none["lb_time_s"], simulator["lb_time_s"] / 2)
        # Code that is free repeats exactly.
        simulate(str(SCENARIOS / "hotspot.yaml"), *common, "--code-charge", "none")
        self.assertEqual(self.records()[-1]["total_time_s"], none["total_time_s"])
        twice = simulate(str(SCENARIOS / "hotspot.yaml"), *common, "--smpi-cfg", "smpi/simulate-computation:yes",
                         check=False)
        self.assertEqual(twice.returncode, 2)
        self.assertIn("give --code-charge simulator", twice.stderr)
        bad = simulate(str(SCENARIOS / "hotspot.yaml"), *common, "--smpi-cfg", "no-colon", check=False)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("expected KEY:VALUE", bad.stderr)


class WanDelayOnRealMpi(unittest.TestCase):
    def test_messages_between_sites_take_at_least_the_wan_latency(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "runs.jsonl"
            for latency in ("0", "0.04"):
                mpirun(2, "run", str(SCENARIOS / "hotspot.yaml"), "--machine", "grid-2site", "--set",
                       f"machine.wan_latency={latency}", "--set", "steps=6", "--set", "balancer=none",
                       "--set", "workload.unit_seconds=1e-7", "--out", str(out))
            fast, slow = [json.loads(line) for line in out.read_text().splitlines()]
            # Ranks 0 and 1 are on different sites: every step waits for a 40 ms message.
            self.assertGreaterEqual(slow["total_time_s"], 6 * 0.04)
            self.assertLess(fast["total_time_s"], 6 * 0.04)
            self.assertEqual(slow["cross_site_messages_per_step"], 2)

    def test_ranks_belong_to_mpirun_on_the_mpi_engine(self):
        result = subprocess.run([LBBENCH, "run", str(SCENARIOS / "hotspot.yaml"), "--ranks", "4"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 2)
        self.assertIn("start the ranks with mpirun -np N", result.stderr)


if __name__ == "__main__":
    unittest.main()
