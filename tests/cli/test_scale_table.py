"""harness/scale_table.py: one run per (ranks, balancer, SimGrid settings), a row each in a
resumable CSV, the markdown table, and runs over their time limit recorded as such. A
stand-in for lbbench writes the records, so the test needs neither SimGrid nor a build.

Environment: LBBENCH_SOURCE_DIR.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LBBENCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCALE_TABLE = SOURCE / "harness" / "scale_table.py"

# Appends one record per call and logs its arguments; the balancer `slow` sleeps, the
# balancer `broken` fails.
FAKE_LBBENCH = """#!{python}
import json, sys, time
args = sys.argv[1:]
with open({calls!r}, "a") as log:
    log.write(json.dumps(args) + "\\n")
balancer = next(a.split("=", 1)[1] for a in args if a.startswith("balancer.name="))
ranks = int(args[args.index("--ranks") + 1])
if balancer == "slow":
    time.sleep(30)
if balancer == "broken":
    sys.exit("lbbench: error: no such balancer")
record = {{"total_time_s": ranks / 1000, "lb_time_s": 0.25, "migration_time_s": 0.5, "migrations": 7}}
if any(a.startswith("reorder=") for a in args):
    record.update(lb_time_s=0.0, migrations=0, reorder={{"create_s": 0.125}})
with open(args[args.index("--out") + 1], "a") as out:
    out.write(json.dumps(record) + "\\n")
"""


class ScaleTable(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="lbbench-scale-"))
        self.calls = self.dir / "calls.jsonl"
        self.fake = self.dir / "lbbench"
        self.fake.write_text(FAKE_LBBENCH.format(python=sys.executable, calls=str(self.calls)))
        self.fake.chmod(0o755)
        self.out = self.dir / "out"

    def table(self, *args, timeout=120):
        result = subprocess.run([sys.executable, str(SCALE_TABLE), "--lbbench", str(self.fake), "--out",
                                 str(self.out), *args], capture_output=True, text=True, timeout=timeout)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout

    def rows(self):
        with (self.out / "scale.csv").open() as f:
            return list(csv.DictReader(f))

    def calls_made(self):
        return [json.loads(line) for line in self.calls.read_text().splitlines()] if self.calls.exists() else []

    def test_each_run_gets_a_row_with_its_record_and_the_table_lists_them(self):
        text = self.table("--ranks", "64", "128", "--balancers", "none", "tree")
        rows = self.rows()
        self.assertEqual([(r["ranks"], r["balancer"]) for r in rows],
                         [("64", "none"), ("64", "tree"), ("128", "none"), ("128", "tree")])
        for r in rows:
            self.assertEqual(r["status"], "ok")
            self.assertGreater(float(r["wall_s"]), 0)
            self.assertGreater(float(r["peak_rss_gb"]), 0)
            self.assertAlmostEqual(float(r["total_s"]), int(r["ranks"]) / 1000)
        self.assertEqual(rows[1]["family"], "tree")
        self.assertEqual((self.out / "scale.md").read_text(), text)
        self.assertIn("| smpi | 128 | tree | tree |", text)
        self.assertEqual(len((self.out / "scale.jsonl").read_text().splitlines()), 4)

    def test_finished_rows_are_not_run_again_but_other_settings_are(self):
        self.table("--ranks", "64", "--balancers", "none")
        self.table("--ranks", "64", "--balancers", "none", "tree")
        self.assertEqual(len(self.calls_made()), 2)  # none once, then tree
        self.table("--ranks", "64", "--balancers", "none", "--smpi-cfg", "smpi/send-is-detached-thresh:0")
        calls = self.calls_made()
        self.assertEqual(len(calls), 3)
        self.assertIn("smpi/send-is-detached-thresh:0", calls[-1])
        text = (self.out / "scale.md").read_text()
        self.assertIn("| smpi | 64 | none (smpi/send-is-detached-thresh:0) |", text)
        self.assertIn("| smpi | 64 | none |", text)

    def test_the_engine_and_scenario_settings_make_rows_of_their_own(self):
        self.table("--ranks", "64", "--balancers", "none")
        self.table("--ranks", "64", "--balancers", "none", "--engine", "model")
        self.table("--ranks", "64", "--balancers", "none", "--engine", "model", "--set", "mesh.nx=128")
        self.table("--ranks", "64", "--balancers", "none", "--engine", "model", "--set", "mesh.nx=128")
        calls = self.calls_made()
        self.assertEqual(len(calls), 3)
        self.assertEqual([c[c.index("--engine") + 1] for c in calls], ["smpi", "model", "model"])
        self.assertIn("mesh.nx=128", calls[-1])
        self.assertEqual([(r["engine"], r["settings"]) for r in self.rows()],
                         [("smpi", ""), ("model", ""), ("model", "mesh.nx=128")])
        text = (self.out / "scale.md").read_text()
        self.assertIn("| model | 64 | none (mesh.nx=128) |", text)
        result = subprocess.run([sys.executable, str(SCALE_TABLE), "--lbbench", str(self.fake), "--out", str(self.out),
                                 "--engine", "model", "--smpi-cfg", "smpi/host-speed:1f"],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--smpi-cfg is for --engine smpi", result.stderr)

    def test_the_reorder_rows_share_cores_and_permute_the_ranks_instead_of_balancing(self):
        self.table("--ranks", "64", "--balancers", "reorder-identity", "reorder-dist")
        identity, dist = self.calls_made()
        for call, method in ((identity, "identity"), (dist, "dist")):
            self.assertIn("balancer.name=none", call)
            self.assertIn(f"reorder={method}", call)
            self.assertIn("machine.processes_per_core=4", call)
        rows = self.rows()
        self.assertEqual([r["family"] for r in rows], ["reorder", "reorder"])
        self.assertEqual([r["lb_s"] for r in rows], ["0.125", "0.125"])  # the create call

    def test_a_run_over_its_time_limit_or_failing_is_recorded_and_the_next_one_runs(self):
        self.table("--ranks", "64", "--balancers", "slow", "broken", "none", "--timeout", "2")
        rows = {r["balancer"]: r for r in self.rows()}
        self.assertEqual(rows["slow"]["status"], "not finished in 2 s")
        self.assertTrue(rows["broken"]["status"].startswith("failed (1)"), rows["broken"]["status"])
        self.assertIn("no such balancer", rows["broken"]["status"])
        self.assertEqual(rows["none"]["status"], "ok")

    def test_a_table_from_before_the_settings_column_is_upgraded_and_kept(self):
        self.out.mkdir()
        with (self.out / "scale.csv").open("w") as f:
            f.write("ranks,balancer,family,status,wall_s,peak_rss_gb,total_s,lb_s,migration_s,migrations\n"
                    "64,none,baseline,ok,1.5,0.25,0.064,0.0,0.0,0\n")
        self.table("--ranks", "64", "--balancers", "none", "tree")
        self.assertEqual(len(self.calls_made()), 1)  # the old none row counts as done
        rows = self.rows()
        self.assertEqual([(r["balancer"], r["smpi_cfg"], r["engine"], r["settings"]) for r in rows],
                         [("none", "", "smpi", ""), ("tree", "", "smpi", "")])
        self.assertEqual(rows[0]["wall_s"], "1.5")


if __name__ == "__main__":
    unittest.main()
