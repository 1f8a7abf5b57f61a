"""Command-line tests: the README's commands and the user-facing contracts, run for real.

Environment: LBBENCH (the binary), LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import csv
import json
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

LBBENCH = os.environ["LBBENCH"]
SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])
MPIEXEC = os.environ.get("LBBENCH_MPIEXEC", "mpirun")
SCENARIOS = SOURCE / "scenarios"

CONTRACT_FIELDS = {
    "schema": str, "scenario": str, "scenario_sha256": str, "balancer": str, "balancer_params": dict,
    "engine": str, "machine": str, "ranks": int, "vertices": int, "edges": int, "steps": int, "seed": int,
    "total_time_s": float, "compute_time_s": float, "lb_time_s": float, "migration_time_s": float,
    "migrations": int, "migrated_bytes": int, "lb_invocations": int, "imbalance_before": list,
    "imbalance_after": list, "edge_cut": int, "provenance": dict,
}


def mpirun(ranks, *args, check=True, env=None):
    cmd = [MPIEXEC, "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += ["-np", str(ranks), LBBENCH, *args]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"{cmd} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def lbbench(*args):
    return subprocess.run([LBBENCH, *args], capture_output=True, text=True, timeout=120)


class RunCommand(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = Path(self.tmp.name) / "runs.jsonl"

    def tearDown(self):
        self.tmp.cleanup()

    def records(self):
        return [json.loads(line) for line in self.out.read_text().splitlines()]

    def test_quickstart_prints_the_summary_and_appends_one_record_per_run(self):
        first = mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), "--out", str(self.out))
        self.assertRegex(first.stdout, r"perfect balance would take \d+\.\d+ s \(-?\d+\.\d% less\)")
        self.assertRegex(first.stdout, r"LB 1 after step 4: imbalance")
        mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), "--out", str(self.out), "--set", "steps=6")
        self.assertTrue(self.out.read_text().endswith("\n"))
        records = self.records()
        self.assertEqual(len(records), 2)
        for record in records:
            for field, kind in CONTRACT_FIELDS.items():
                self.assertIn(field, record)
                self.assertIsInstance(record[field], kind if kind is not float else (int, float), field)
            self.assertEqual(record["schema"], "lbbench.run/1")
            self.assertEqual(record["ranks"], 2)
            self.assertEqual(len(record["imbalance_before"]), record["lb_invocations"])
            self.assertIn("prediction", record)
            for key in ("git", "host", "mpi_library", "start_time"):
                self.assertIn(key, record["provenance"])
        # --version names the commit the records name, as reference.sh reads it.
        self.assertEqual(lbbench("--version").stdout.strip(), records[0]["provenance"]["git"])
        self.assertEqual(records[0]["lb_invocations"], 3)
        self.assertEqual(records[1]["steps"], 6)
        self.assertNotEqual(records[0]["scenario_sha256"], records[1]["scenario_sha256"])

    def test_a_run_asks_mpi_for_threads_only_where_zoltan_may_run(self):
        # Open MPI locks every call in its multiple-thread mode, which Zoltan's PT-Scotch
        # needs and nothing else does.
        small = ["--set", "steps=2", "--set", "balancer.period=1", "--out", str(self.out)]
        mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), *small)
        mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), *small, "--set", "balancer.name=zoltan")
        levels = [r["provenance"]["mpi_thread_level"] for r in self.records()]
        self.assertEqual(levels, ["funneled", "multiple"])

    def test_greedy_lowers_imbalance_on_the_hotspot_scenario(self):
        # The scenario's own weights as the model, so the check does not depend on how
        # busy the machine is: measured imbalance is for benchmarks, not for tests.
        mpirun(2, "run", str(SCENARIOS / "hotspot.yaml"), "--set", "model=weights", "--out", str(self.out), "--verify")
        record = self.records()[0]
        call = record["lb"][0]
        before, after = call["model_imbalance_before"], call["model_imbalance_predicted_after"]
        # The hot spot sits in one rank's half: the imbalance starts large.
        self.assertGreater(before, 0.3)
        self.assertLess(after, before / 2)
        self.assertGreater(record["migrations"], 0)

    def test_the_weights_model_adds_each_message_at_the_machines_alpha_and_beta(self):
        # A slow network, so the messages dwarf rounding: α = 0.1 ms, β = 1 µs per byte.
        network = ["--set", "machine.latency=1e-4", "--set", "machine.bandwidth=1e6", "--set", "steps=6"]
        for messages in ("per-neighbor", "per-edge"):
            for model in ("weights", "weights-no-comm"):
                mpirun(2, "run", str(SCENARIOS / "hotspot.yaml"), *network, "--set", f"model={model}",
                       "--set", f"workload.messages={messages}", "--out", str(self.out))
        records = self.records()
        self.assertEqual([r["config"]["model"] for r in records], ["weights", "weights-no-comm"] * 2)
        self.assertEqual(records[0]["config"]["machine"], {"preset": "local", "latency": 1e-4, "bandwidth": 1e6})
        for with_comm, without in (records[0:2], records[2:4]):
            before = with_comm["lb"][0]["before"]
            total = lambda r: r["ranks"] * r["lb"][0]["metrics"]["model"]["mean_s"]
            # Every message costs α once, and every cut edge's bytes travel both ways.
            expected = before["messages_per_step"] * 1e-4 + 2 * before["edge_cut_bytes"] * 1e-6
            self.assertGreater(expected, 0)
            self.assertAlmostEqual(total(with_comm) - total(without), expected, delta=1e-9 * expected)

    def test_the_network_calibration_gives_alpha_and_beta_for_a_scenario(self):
        result = mpirun(2, "calibrate", "--network", "--quick")
        self.assertIn("ping-pong between rank 0 and rank 1", result.stdout)
        sets = re.search(r"or: (--set machine.latency=(\S+) --set machine.bandwidth=(\S+))", result.stdout)
        self.assertIsNotNone(sets, result.stdout)
        self.assertGreaterEqual(float(sets.group(2)), 0)
        self.assertGreater(float(sets.group(3)), 0)
        normalized = subprocess.run([LBBENCH, "validate", str(SCENARIOS / "hotspot.yaml"), *sets.group(1).split()],
                                    capture_output=True, text=True, check=True).stdout
        self.assertIn(f"latency: {sets.group(2)}", normalized)
        alone = subprocess.run([LBBENCH, "calibrate", "--network"], capture_output=True, text=True)
        self.assertEqual(alone.returncode, 2)
        self.assertIn("a ping-pong needs two ranks", alone.stderr)

    def test_the_overhead_calibration_measures_the_replays_floor_against_a_bare_loop(self):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, LBBENCH_CACHE_DIR=cache, LBBENCH_WORK_ARRAY_MB="64")
            table = Path(cache) / "overhead.json"
            out = mpirun(2, "calibrate", "--overhead", "--quick", "--json", str(table), env=env).stdout
            written = json.loads(table.read_text())
        self.assertIn("2 ranks, a chain of one task per rank, 16-byte messages", out)
        rows = re.findall(r"(?m)^\s+([\d.]+) us\s+(\d+)\s+([\d.]+) us\s+([\d.]+) us\s+(-|[\d.]+%)\s+(-|[\d.]+%)$", out)
        self.assertEqual(len(rows), 16, out)  # no work, then 1/16 us doubling to 1 ms
        self.assertEqual([float(r[0]) for r in rows[:3]], [0.0, 0.0625, 0.125])
        for _, steps, replay, bare, _, _ in rows:
            self.assertGreaterEqual(int(steps), 100)
            self.assertGreater(float(replay), 0)
            self.assertGreater(float(bare), 0)
        self.assertRegex(out, r"METG\(50%\): replay .+, bare loop .+")
        floor = re.search(r"per-step floor \(no work\): replay ([\d.]+) us, bare loop ([\d.]+) us", out)
        self.assertAlmostEqual(float(floor.group(1)), float(rows[0][2]), places=3)
        self.assertRegex(out, r"clock reads \d x [\d.]+ ns")
        self.assertRegex(out, r"load average [\d.]+ [\d.]+ [\d.]+")
        # The same table for scripts (harness/task_bench.py).
        self.assertEqual(written["schema"], "lbbench.overhead/1")
        self.assertRegex(written["git"], r"^[\w.-]+$")  # the binary's git describe, for a result's provenance
        self.assertEqual(written["ranks"], 2)
        self.assertEqual([p["steps"] for p in written["points"]], [int(r[1]) for r in rows])
        for point, row in zip(written["points"], rows):
            self.assertAlmostEqual(point["replay_step_s"] * 1e6, float(row[2]), places=3)
            self.assertAlmostEqual(point["bare_step_s"] * 1e6, float(row[3]), places=3)
        metg = re.search(r"METG\(50%\): replay ([\d.]+) us", out)
        if metg:
            self.assertAlmostEqual(written["metg_s"]["replay"] * 1e6, float(metg.group(1)), places=3)
        else:
            self.assertIsNone(written["metg_s"]["replay"])
        nowhere = mpirun(2, "calibrate", "--overhead", "--quick", "--json", "/nonexistent/overhead.json", check=False)
        self.assertEqual(nowhere.returncode, 2)
        self.assertEqual(nowhere.stderr.count("cannot write '/nonexistent/overhead.json'"), 1, nowhere.stderr)
        self.assertNotIn("METG", nowhere.stdout)
        alone = mpirun(1, "calibrate", "--json", str(table), check=False)
        self.assertNotEqual(alone.returncode, 0)
        self.assertIn("--json requires --overhead", alone.stderr + alone.stdout)

    def test_costs_fitted_from_runs_make_a_costs_file_for_that_platform_only(self):
        # Two balancers on two sizes, then their fits as a costs file.
        small = ["--set", "steps=5", "--set", "balancer.period=2", "--set", "workload.unit_seconds=1e-6"]
        for balancer in ("greedy", "tree"):
            for n in (32, 48):
                mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), *small, "--set", f"balancer.name={balancer}",
                       "--set", f"mesh.nx={n}", "--set", f"mesh.ny={n}", "--out", str(self.out))
        costs = Path(self.tmp.name) / "costs.json"
        report = lbbench("report", str(self.out), "--costs-out", str(costs))
        self.assertEqual(report.returncode, 0, report.stderr)
        self.assertIn("## Migration cost", report.stdout)
        fitted = json.loads(costs.read_text())
        self.assertEqual(fitted["schema"], "lbbench.costs/1")
        [platform] = fitted["platforms"]
        self.assertEqual((platform["engine"], platform["machine"]), ("mpi", "local"))
        self.assertEqual(sorted(platform["decision"]), ["greedy", "tree"])
        self.assertEqual(platform["migration"]["calls"], 8)
        # Under another engine the file has no fits: a clear error, not a silent fallback.
        if (Path(LBBENCH).parent / "lbbench-smpi").exists():
            other = lbbench("run", str(SCENARIOS / "quickstart.yaml"), "--engine", "smpi", "--machine", "bgq",
                            "--ranks", "4", *small, "--set", f"machine.costs={costs}")
            self.assertNotEqual(other.returncode, 0)
            self.assertIn("has no fits for smpi · bgq (it has: mpi · local)", other.stderr + other.stdout)

    def test_per_step_table(self):
        csv = Path(self.tmp.name) / "steps.csv"
        mpirun(1, "run", str(SCENARIOS / "hotspot.yaml"), "--steps-csv", str(csv), "--set", "steps=3")
        lines = csv.read_text().splitlines()
        self.assertEqual(lines[0], "step,wall_max_s,compute_max_s,compute_avg_s,wait_avg_s,imbalance,lb")
        self.assertEqual(len(lines), 4)

    def test_a_rank_count_other_than_the_scenarios_is_a_clear_error(self):
        result = mpirun(2, "run", str(SCENARIOS / "hotspot.yaml"), "--set", "ranks=3", check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("the scenario says ranks: 3, but the job has 2 MPI ranks", result.stderr)
        self.assertEqual(result.stderr.count("lbbench: error"), 1, "one message, from rank 0")

    def test_a_misspelled_key_fails_with_line_column_and_suggestion(self):
        bad = Path(self.tmp.name) / "bad.yaml"
        bad.write_text((SCENARIOS / "hotspot.yaml").read_text().replace("  edge_bytes:", "  edge_bytse:"))
        for result in (lbbench("validate", str(bad)), mpirun(2, "run", str(bad), check=False)):
            self.assertEqual(result.returncode, 2)
            self.assertRegex(result.stderr, re.escape(str(bad)) + r":\d+:3: workload\.edge_bytse: unknown key "
                             r"'edge_bytse'\. Did you mean 'edge_bytes'\?")


class MemoryCheck(unittest.TestCase):
    """A run that cannot fit is refused before it allocates, with its estimate and what to change."""

    def assert_refused(self, result, *expected):
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr.count("lbbench: error"), 1, result.stderr)
        self.assertRegex(result.stderr, r"this run needs about [\d.]+ [MGT]B of memory")
        for text in expected:
            self.assertIn(text, result.stderr)

    def test_a_mesh_of_a_hundred_billion_vertices_is_refused_on_every_engine(self):
        quickstart = str(SCENARIOS / "quickstart.yaml")
        huge = ("--set", "mesh.nx=1000000000")
        self.assert_refused(mpirun(2, "run", quickstart, *huge, check=False), "mesh.nx", "on one node")
        simulated = ("--machine", "bgq", "--ranks", "256")
        self.assert_refused(lbbench("run", quickstart, *huge, "--engine", "smpi", *simulated),
                            "for 256 ranks in one process", "use fewer ranks")
        self.assert_refused(lbbench("run", quickstart, *huge, "--engine", "model", *simulated), "TB of memory")

    def test_gossip_with_whole_lists_at_blue_gene_scale_is_told_how_to_keep_less(self):
        result = lbbench("run", str(SCENARIOS / "scale.yaml"), "--engine", "model", "--machine", "bgq", "--ranks",
                         "131072", "--set", "balancer.name=gossip", "--max-memory", "8GB")
        self.assert_refused(result, "TB of memory", "balancer.params.info_limit=64")
        limited = lbbench("run", str(SCENARIOS / "scale.yaml"), "--engine", "model", "--machine", "bgq", "--ranks",
                          "131072", "--set", "balancer.name=gossip", "--set", "balancer.params.info_limit=64",
                          "--max-memory", "1")
        self.assert_refused(limited, "GB of memory")
        self.assertNotIn("info_limit", limited.stderr)

    def test_the_limit_can_be_given_and_the_estimate_is_told_part_by_part(self):
        # SimGrid alone needs more than 100 MB; the quickstart fits in what this host has.
        result = lbbench("run", str(SCENARIOS / "quickstart.yaml"), "--engine", "smpi", "--machine", "bgq", "--ranks",
                         "256", "--max-memory", "100MB")
        self.assert_refused(result, "more than the 100 MB allowed here (--max-memory)", "engine 481 MB")
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "runs.jsonl"
            fits = lbbench("run", str(SCENARIOS / "quickstart.yaml"), "--engine", "model", "--machine", "bgq",
                           "--ranks", "256", "--out", str(out))
            self.assertEqual(fits.returncode, 0, fits.stderr)
            self.assertEqual(len(out.read_text().splitlines()), 1)


    def test_the_estimate_is_near_the_peaks_measured_at_scale(self):
        # Every run of scale.yaml whose peak resident size was measured (harness/scale_table.py,
        # kept as a fixture), asked again with a limit of one byte: the refusal tells the estimate.
        table = SOURCE / "tests" / "fixtures" / "scale-peaks.csv"
        ratios = []
        with table.open() as rows:
            runs = list(csv.DictReader(rows))
        for row in runs:
            if not row["peak_rss_gb"] or row["balancer"].startswith("reorder-"):
                continue
            sets = [f"balancer.name={row['balancer']}", *row["settings"].split()]
            args = ["run", str(SCENARIOS / "scale.yaml"), "--engine", row["engine"] or "smpi", "--ranks", row["ranks"],
                    "--max-memory", "1"]
            for setting in sets:
                args += ["--set", setting]
            result = lbbench(*args)
            self.assertEqual(result.returncode, 2, result.stderr)
            size, unit = re.search(r"needs about ([\d.]+) ([MGT]B)", result.stderr).groups()
            estimate = float(size) * {"MB": 1e-3, "GB": 1, "TB": 1e3}[unit]
            ratios.append((estimate / float(row["peak_rss_gb"]), row["engine"], row["ranks"], row["balancer"]))
        self.assertGreater(len(ratios), 30)
        for ratio, *case in ratios:
            self.assertTrue(2 / 3 <= ratio <= 3 / 2, f"{case}: estimate / peak = {ratio:.2f}")


class OtherCommands(unittest.TestCase):
    def test_validate_prints_a_normalized_scenario_that_validates_again(self):
        first = lbbench("validate", str(SCENARIOS / "phases.yaml"))
        self.assertEqual(first.returncode, 0, first.stderr)
        sha = re.search(r"sha256 ([0-9a-f]{64})", first.stdout).group(1)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(first.stdout)
        try:
            again = lbbench("validate", f.name)
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertIn(sha, again.stdout)
            self.assertIn("messages: per-neighbor", again.stdout)
        finally:
            os.unlink(f.name)

    def test_list_balancers(self):
        result = lbbench("list", "balancers")
        self.assertEqual(result.returncode, 0)
        self.assertRegex(result.stdout, r"(?m)^none\s+baseline\s+")
        self.assertRegex(result.stdout, r"(?m)^greedy\s+global\s+centralized LPT")

    def test_calibrate_reports_error_and_spread(self):
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, LBBENCH_CACHE_DIR=cache, LBBENCH_WORK_ARRAY_MB="64")
            result = subprocess.run([LBBENCH, "calibrate", "--quick"], capture_output=True, text=True, env=env,
                                    timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertRegex(result.stdout, r"random reads per second")
            rows = re.findall(r"(?m)^\s+(0\.0\d+)\s+\d+\s+[\d.]+\s+-?[\d.]+%\s+[\d.]+%\s+([\d.]+)\s+([\d.]+)"
                              r"\s+([\d.]+)\s+(-?[\d.]+)%$", result.stdout)
            self.assertEqual(len(rows), 5)  # 1 us to 10 ms
            for target, p5, p95, median, median_error in ((float(x) for x in row) for row in rows):
                # The median call lies between the 5th and 95th percentiles, and its error is
                # against the target.
                self.assertLessEqual(p5, median)
                self.assertLessEqual(median, p95)
                if target >= 1e-2:  # printed with enough digits to recompute the error
                    self.assertAlmostEqual(median_error, 100 * (median - target) / target, delta=0.01)
            cached = json.loads(next(Path(cache).glob("calibration-*.json")).read_text())
            self.assertGreater(cached["accesses_per_second"], 0)
            self.assertEqual(cached["array_bytes"], 64 << 20)
            self.assertEqual(cached["ranks_per_node"], 1)

    def test_a_calibration_holds_only_for_as_many_ranks_per_node(self):
        # Ranks on one host share its memory system, so a run with two ranks there must not
        # use the rate one rank measured alone, and uses the one two ranks measured together.
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, LBBENCH_CACHE_DIR=cache, LBBENCH_WORK_ARRAY_MB="64")
            out = Path(cache) / "runs.jsonl"

            def work_of_a_run():
                out.unlink(missing_ok=True)
                mpirun(2, "run", str(SCENARIOS / "quickstart.yaml"), "--set", "steps=2", "--out", str(out), env=env)
                return json.loads(out.read_text().splitlines()[0])["provenance"]["work"]

            def calibrate(ranks):
                return mpirun(ranks, "calibrate", "--quick", env=env).stdout

            self.assertIn("1 rank of this host reading at once", calibrate(1))
            work = work_of_a_run()
            self.assertEqual((work["source"], work["ranks_per_node"]), ("measured", 2))
            self.assertIn("2 ranks of this host reading at once", calibrate(2))
            files = sorted(p.name for p in Path(cache).glob("calibration-*.json"))
            self.assertEqual(len(files), 2, files)
            self.assertTrue(files[0].endswith("-2-per-node.json"), files)
            self.assertEqual(json.loads((Path(cache) / files[0]).read_text())["ranks_per_node"], 2)
            work = work_of_a_run()
            self.assertEqual((work["source"], work["ranks_per_node"]), ("cached", 2))


if __name__ == "__main__":
    unittest.main()
