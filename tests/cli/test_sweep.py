"""`lbbench sweep` and `lbbench report` end to end: records, resume, failures, a sweep killed
mid-way, Ctrl-C, the Slurm batch script, and the report's tables. The runs are small
simulated ones (SMPI) so the sweeps take seconds; one runs real MPI with mpirun.

Environment: LBBENCH, LBBENCH_SOURCE_DIR, LBBENCH_MPIEXEC.
"""
import csv
import io
import json
import os
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from test_cli import LBBENCH, SCENARIOS

SMPI_BUILT = (Path(LBBENCH).parent / "lbbench-smpi").exists()


def sweep_file(folder, body, name="s"):
    path = Path(folder) / f"{name}.yaml"
    path.write_text(f"name: {name}\nscenario: {SCENARIOS / 'quickstart.yaml'}\n" + body)
    return path


SIMULATED = "set: {engine: smpi, machine: bgq, ranks: 8, steps: 4, mesh.nx: 32, mesh.ny: 32}\n"


def lbbench(*args, check=True, timeout=600):
    result = subprocess.run([LBBENCH, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"{args} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def records(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def wait_for_lines(path, count, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and path.read_text().count("\n") >= count:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} did not reach {count} lines")


@unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
class LocalSweeps(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.results = self.dir / "results"
        self.runs = self.results / "runs.jsonl"

    def tearDown(self):
        self.tmp.cleanup()

    def test_records_every_run_once_and_resumes_without_redoing_any(self):
        s = sweep_file(self.dir, SIMULATED + "repetitions: 2\naxes: {balancer: [none, greedy]}\n")
        listed = lbbench("sweep", s, "--list", "--results", self.results).stdout.splitlines()
        self.assertEqual(len(listed), 4)
        self.assertTrue(all("pending" in line for line in listed))
        lbbench("sweep", s, "--results", self.results)
        first = self.runs.read_text()
        rs = records(self.runs)
        self.assertEqual(len(rs), 4)
        self.assertEqual(len({r["sweep"]["id"] for r in rs}), 4)
        self.assertEqual(sorted(r["balancer"] for r in rs), ["greedy", "greedy", "none", "none"])
        self.assertTrue(all(r["sweep"]["status"] == "ok" and r["engine"] == "smpi" for r in rs))
        # The ids the listing shows are the ids recorded.
        self.assertEqual({line.split()[1] for line in listed}, {r["sweep"]["id"] for r in rs})
        again = lbbench("sweep", s, "--results", self.results)
        self.assertIn("4 already recorded, 0 to run", again.stderr)
        self.assertEqual(self.runs.read_text(), first)
        # --fresh sets the records aside rather than deleting them.
        lbbench("sweep", s, "--results", self.results, "--fresh")
        self.assertEqual(len(records(self.runs)), 4)
        old = list(self.results.glob("runs.*.jsonl.old"))
        self.assertEqual(len(old), 1)
        self.assertEqual(old[0].read_text(), first)

    def test_a_failed_run_is_recorded_and_the_sweep_goes_on(self):
        # 2 x 2 vertices cannot be spread over 8 ranks: the run itself stops with exit 2.
        s = sweep_file(self.dir, SIMULATED.replace("mesh.nx: 32, mesh.ny: 32", "mesh.nx: 2") + "axes: {mesh.ny: [2, 32]}\n")
        result = lbbench("sweep", s, "--results", self.results, check=False)
        self.assertEqual(result.returncode, 1, result.stderr)
        rs = records(self.runs)
        self.assertEqual(len(rs), 2)
        failed = [r for r in rs if r["schema"] == "lbbench.failure/1"]
        self.assertEqual(len(failed), 1)
        self.assertEqual(failed[0]["exit_code"], 2)
        self.assertEqual(failed[0]["sweep"]["status"], "failed")
        self.assertTrue(any("the mesh has 4 vertices but the job has 8 ranks" in line for line in failed[0]["error_tail"]),
                        failed[0]["error_tail"])
        self.assertEqual(failed[0]["config"]["mesh"]["ny"], 2)
        # A resume tries the failed run again, and only that one.
        again = lbbench("sweep", s, "--results", self.results, check=False)
        self.assertIn("1 already recorded, 1 to run (1 failed before)", again.stderr)
        report = lbbench("report", self.results).stdout
        self.assertIn("## Failed runs", report)
        self.assertIn(failed[0]["sweep"]["id"], report)

    def test_a_run_over_its_time_limit_is_stopped_and_recorded(self):
        s = sweep_file(self.dir, SIMULATED.replace("steps: 4", "steps: 100000") + "timeout: 1\n")
        result = lbbench("sweep", s, "--results", self.results, check=False)
        self.assertEqual(result.returncode, 1)
        (r,) = records(self.runs)
        self.assertEqual(r["reason"], "timed out after 1 s")
        self.assertLess(r["elapsed_s"], 30)

    def test_a_sweep_killed_mid_way_loses_nothing_and_resumes(self):
        s = sweep_file(self.dir, SIMULATED + "axes: {balancer: [none, greedy, refine, diffusion, tree, prefix]}\n")
        proc = subprocess.Popen([LBBENCH, "sweep", s, "--results", self.results], stderr=subprocess.DEVNULL)
        wait_for_lines(self.runs, 2)
        proc.kill()  # SIGKILL: no chance to clean up
        proc.wait()
        before = self.runs.read_text()
        self.assertTrue(before.endswith("\n"))
        done = [json.loads(line)["sweep"]["id"] for line in before.splitlines()]
        # A crash of the machine in the middle of an append leaves a partial line.
        with open(self.runs, "a") as f:
            f.write('{"schema": "lbbench.run/1", "scenario": "quick')
        resumed = lbbench("sweep", s, "--results", self.results)
        self.assertIn("cut an incomplete last line", resumed.stderr)
        self.assertIn(f"{len(done)} already recorded", resumed.stderr)
        after = self.runs.read_text()
        self.assertTrue(after.startswith(before))  # finished records untouched
        ids = [r["sweep"]["id"] for r in records(self.runs)]
        self.assertEqual(len(ids), 6)
        self.assertEqual(len(set(ids)), 6)
        self.assertEqual(ids[:len(done)], done)

    def test_ctrl_c_stops_the_run_and_does_not_record_it(self):
        s = sweep_file(self.dir, SIMULATED + "axes: {balancer: [none, greedy, refine]}\n")
        proc = subprocess.Popen([LBBENCH, "sweep", s, "--results", self.results], stderr=subprocess.PIPE, text=True)
        wait_for_lines(self.runs, 1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("interrupted", err)
        rs = records(self.runs)
        self.assertLess(len(rs), 3)
        self.assertTrue(all(r["sweep"]["status"] == "ok" for r in rs))
        lbbench("sweep", s, "--results", self.results)
        self.assertEqual(len(records(self.runs)), 3)

    def test_report_tables(self):
        s = sweep_file(self.dir, SIMULATED + "axes: {balancer: [none, greedy]}\n")
        lbbench("sweep", s, "--results", self.results)
        rs = {r["balancer"]: r for r in records(self.runs)}
        md = lbbench("report", self.results, "--csv", self.dir / "t.csv").stdout
        self.assertIn("## quickstart · smpi · bgq · 8 ranks", md)
        self.assertRegex(md, r"\| none \| 1 \| 0 \| [0-9.]+ \| baseline \|")
        rows = {row["balancer"]: row for row in csv.DictReader(io.StringIO((self.dir / "t.csv").read_text()))}
        self.assertEqual(set(rows), {"none", "greedy"})
        expected = rs["none"]["total_time_s"] / rs["greedy"]["total_time_s"]
        self.assertAlmostEqual(float(rows["greedy"]["speedup"]), expected, places=4)
        self.assertEqual(float(rows["greedy"]["migrations"]), rs["greedy"]["migrations"])
        printed = lbbench("report", self.runs, "--format-csv", "--baseline", "greedy").stdout
        rows = {row["balancer"]: row for row in csv.DictReader(io.StringIO(printed))}
        self.assertAlmostEqual(float(rows["none"]["speedup"]), 1 / expected, places=4)

    def test_the_slurm_batch_script(self):
        s = sweep_file(self.dir, "set: {ranks: 2, steps: 3}\nrepetitions: 3\naxes: {balancer: [none, greedy]}\n"
                                 "slurm: {partition: debug, runs_per_task: 2}\n")
        script = lbbench("sweep", s, "--results", self.results, "--slurm", "--dry-run", "--time", "00:05:00",
                         "--sbatch-arg=--qos=short").stdout
        self.assertIn("#SBATCH --array=0-2\n", script)  # 6 runs, 2 per task
        self.assertIn("#SBATCH --partition=debug\n", script)
        self.assertIn("#SBATCH --time=00:05:00\n", script)
        self.assertIn("#SBATCH --qos=short\n", script)
        self.assertIn("#SBATCH --ntasks=2\n", script)
        self.assertIn('--task "$SLURM_ARRAY_TASK_ID"', script)
        self.assertIn("srun --mpi=pmix -n RANKS", script)
        self.assertFalse(self.results.exists())  # a dry run writes nothing


class RealMpiSweep(unittest.TestCase):
    def test_runs_with_mpirun(self):
        with tempfile.TemporaryDirectory() as tmp:
            s = sweep_file(tmp, "set: {ranks: 2, steps: 3, mesh.nx: 32, mesh.ny: 32}\naxes: {balancer: [none, greedy]}\n")
            lbbench("sweep", s, "--results", Path(tmp) / "r")
            rs = records(Path(tmp) / "r" / "runs.jsonl")
            self.assertEqual([(r["engine"], r["ranks"]) for r in rs], [("mpi", 2), ("mpi", 2)])
            self.assertTrue((Path(tmp) / "r" / "logs" / f"{rs[0]['sweep']['id']}.log").exists())


if __name__ == "__main__":
    unittest.main()
