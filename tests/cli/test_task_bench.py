"""harness/task_bench.py: Task Bench's output read right, the 50% crossing, and a whole
comparison against a stand-in for Task Bench whose times follow a known model.

Environment: LBBENCH (the binary), LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ["LBBENCH_SOURCE_DIR"])
sys.path.insert(0, str(SOURCE / "harness"))

import task_bench  # noqa: E402

# Task Bench's MPI nonblock, 2 ranks, as it prints a run (abridged configuration).
OUTPUT = """Running Task Benchmark
  Configuration:
    Task Graph 1:
      Time Steps: 1000
      Max Width: 2
      Dependence Type: stencil_1d
Total Tasks 2000
Total Dependencies 3996
  Unable to estimate local/nonlocal dependencies
Total FLOPs 4224000
Total Bytes 0
Elapsed Time 4.060030e-04 seconds
FLOP/s 1.040386e+10
"""

# Per step: a floor of FLOOR_S and ITERATION_S per kernel iteration, so a task's efficiency
# is n·ITERATION_S / (FLOOR_S + n·ITERATION_S), half at n·ITERATION_S = FLOOR_S, where
# the granularity is 2·FLOOR_S.
FLOOR_S = 0.5e-6
ITERATION_S = 2e-9
STAND_IN = f"""#!/usr/bin/env python3
import os, sys
a = dict(zip(sys.argv[1::2], sys.argv[2::2]))
steps, width, n = int(a["-steps"]), int(a["-width"]), int(a["-iter"])
n = n if a["-kernel"] == "compute_bound" else 0
elapsed = steps * ({FLOOR_S} + n * {ITERATION_S})
tasks = steps * width
flops = tasks * (128 * n + 64) if n else 0
if os.environ.get("OMPI_COMM_WORLD_RANK", "0") == "0":
    print(f"Total Tasks {{tasks}}\\nTotal FLOPs {{flops}}\\nElapsed Time {{elapsed:e}} seconds")
"""


class ReadingAndCrossing(unittest.TestCase):
    def test_a_runs_elapsed_time_tasks_and_flops_are_read(self):
        run = task_bench.parse_task_bench(OUTPUT)
        self.assertEqual(run, {"elapsed_s": 4.060030e-04, "tasks": 2000, "flops": 4224000})

    def test_output_without_an_elapsed_time_is_an_error_that_shows_it(self):
        with self.assertRaisesRegex(ValueError, "no 'Elapsed Time' in Task Bench's output"):
            task_bench.parse_task_bench(OUTPUT.replace("Elapsed Time", "Elapsed"))

    def test_the_crossing_is_interpolated_on_log_granularity(self):
        # Efficiency 0.2 at 1 us and 0.8 at 4 us: half way in efficiency is half way in log.
        self.assertAlmostEqual(task_bench.crossing([(0.5e-6, 0.1), (1e-6, 0.2), (4e-6, 0.8), (8e-6, 0.6)]), 2e-6)

    def test_no_crossing_where_the_smallest_task_is_already_efficient_or_none_is(self):
        self.assertIsNone(task_bench.crossing([(1e-6, 0.6), (2e-6, 0.9)]))
        self.assertIsNone(task_bench.crossing([(1e-6, 0.1), (2e-6, 0.4)]))


class AgainstAStandIn(unittest.TestCase):
    def test_both_loops_and_task_bench_get_a_metg_and_a_floor(self):
        env = dict(os.environ)
        if os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        with tempfile.TemporaryDirectory() as tmp:
            stand_in = Path(tmp) / "nonblock"
            stand_in.write_text(STAND_IN)
            stand_in.chmod(0o755)
            out = Path(tmp) / "out"
            env["LBBENCH_CACHE_DIR"] = tmp
            env["LBBENCH_WORK_ARRAY_MB"] = "64"
            result = subprocess.run(
                [sys.executable, str(SOURCE / "harness" / "task_bench.py"), "--task-bench", str(stand_in),
                 "--repetitions", "2", "--quick", "--seconds", "0.001", "--top", "1e-4", "--out", str(out)],
                capture_output=True, text=True, env=env, timeout=600)
            self.assertEqual(result.returncode, 0, result.stderr)
            written = json.loads((out / "task-bench.json").read_text())
            self.assertEqual((out / "task-bench.md").read_text(), result.stdout)
        self.assertIn("| lbbench replay |", result.stdout)
        [provenance] = written["provenance"]  # both repetitions ran the same binary on one host
        self.assertRegex(provenance["git"], r"^[\w.-]+$")
        self.assertTrue(provenance["host"])
        self.assertRegex(result.stdout, r"load average [\d.]+ [\d.]+ [\d.]+ before")
        stand_in_run = written["task_bench"]
        # The model's floor and crossing: 0.5 us, and 1 us less what the peak of its four
        # largest tasks (32 to 65 us, 94-97% efficient) leaves of the asymptote.
        self.assertAlmostEqual(stand_in_run["floor_s"], FLOOR_S, delta=1e-9)
        self.assertGreater(stand_in_run["metg_s"], 0.8 * 2 * FLOOR_S)
        self.assertLess(stand_in_run["metg_s"], 1.05 * 2 * FLOOR_S)
        iterations = [p["iterations"] for p in stand_in_run["points"]]
        self.assertEqual(iterations[0], 0)  # the empty kernel
        self.assertEqual(iterations[1:], [1 << k for k in range(len(iterations) - 1)])
        self.assertAlmostEqual(math.log2(iterations[-1] * ITERATION_S / 1e-4), 0, delta=0.5)
        for loop in ("replay", "bare"):
            self.assertGreater(written["lbbench"][loop]["floor_s"], 0)
        self.assertEqual(len(written["lbbench"]["points"]), 16)
        paired = written["replay_over_task_bench_per_repetition"]
        self.assertEqual(len(paired["floor"]), 2)
        # Each repetition's replay floor over the stand-in's exact 0.5 us; the median of two
        # is their mean, as is the median floor over both repetitions.
        self.assertAlmostEqual(sum(paired["floor"]) / 2 * FLOOR_S, written["lbbench"]["replay"]["floor_s"],
                               delta=1e-12)
        self.assertRegex(result.stdout, r"floor median [\d.]+ \([\d.]+–[\d.]+, 2 repetitions\)")


if __name__ == "__main__":
    unittest.main()
