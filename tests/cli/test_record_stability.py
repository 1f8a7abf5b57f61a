"""Records do not drift: simulated runs recorded by an earlier build are run again, and the
new records must equal the old ones field by field, apart from provenance, the
simulation's own wall time and memory, and the times `auto` measures on its own code.
The console summary and the per-step table must come out as they did.

The runs use `--code-charge none`, so that simulated time is only do_work's and the
network's: then every number is a pure function of the scenario, and a difference is a
change of behaviour, not noise. Times (fields in seconds)
may differ by a part per million or a microsecond: SimGrid charges every MPI_Wtime call a
few nanoseconds of simulated time, so code that reads the simulated clock more or less
often moves them by that much. Everything else must be equal.

Fixtures: tests/fixtures/smpi-records/<case>.{record.json,summary.txt,steps.csv} and
cases.json (the command line of each case). To record them again after an intended change
of behaviour, run this file with LBBENCH_RECORD_FIXTURES=1 and say why in the commit.

Environment: LBBENCH, LBBENCH_SOURCE_DIR.
"""
import json
import math
import os
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

from test_cli import LBBENCH, SOURCE

FIXTURES = SOURCE / "tests" / "fixtures" / "smpi-records"
SMPI_BUILT = (Path(LBBENCH).parent / "lbbench-smpi").exists()

# Fields that describe where and when a record was made, not what happened.
IGNORED = {"provenance", "simulation.wall_s", "simulation.peak_rss_mb"}
# `auto` prices a candidate it has not called yet with that candidate's solve timed on the
# host, on a sample of the objects (balancers/model/auto/sampling.cpp), so what it weighs a
# candidate's call at (`cost_s`), the bank that decides whether it may try one (`bank_s`)
# and what its calls spent (`spent_s`) follow the host's clock. The choice itself, the
# loads and the moves are compared exactly.
AUTO_TIMED = {"cost_s", "bank_s", "spent_s"}


# Fields a newer record may add (the record contract is only ever extended), without the
# indices of the lists they are in.
ADDED = {"per_step.compute_avg_s", "per_step.wait_avg_s", "lb.owners_digest", "machine_preset.eager_bytes", "lb_points",
         "lb.prediction.points_kept_by_looks", "balancer_params.nonblocking_look", "config.balancer.params.nonblocking_look",
         "prediction.points", "lb.prediction.step", "regrid.events.decision_s", "regrid.events.rebuild_s"}


TIME_TOLERANCE = 1e-6


def is_time(path):
    """A field in seconds: its name ends in _s, or it is an entry of a per-step series of times."""
    leaf = path.rsplit(".", 1)[-1]
    return leaf.split("[")[0].endswith("_s")


def under_prediction(path):
    return path.startswith("prediction.") or ".prediction." in path


def differences(old, new, path=""):
    """Every place where `new` differs from `old`, as readable lines."""
    if path in IGNORED:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for key in sorted(set(old) | set(new)):
            sub = f"{path}.{key}" if path else key
            if under_prediction(sub) and key in AUTO_TIMED:
                continue
            if key not in new:
                out.append(f"{sub}: missing from the new record")
            elif key not in old:
                if re.sub(r"\[\d+\]", "", sub) not in ADDED and sub not in IGNORED:
                    out.append(f"{sub}: not in the old record")
            else:
                out += differences(old[key], new[key], sub)
        return out
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return [f"{path}: {len(old)} entries became {len(new)}"]
        return [d for i, (a, b) in enumerate(zip(old, new)) for d in differences(a, b, f"{path}[{i}]")]
    leaf = path.rsplit(".", 1)[-1].split("[")[0]
    if under_prediction(path) and leaf in AUTO_TIMED:
        return []
    if isinstance(old, float) or isinstance(new, float):
        rel, abs_ = (TIME_TOLERANCE, 1e-6) if is_time(path) else (1e-12, 1e-15)
        if isinstance(old, (int, float)) and isinstance(new, (int, float)) and math.isclose(old, new, rel_tol=rel,
                                                                                              abs_tol=abs_):
            return []
    elif old == new and type(old) is type(new):
        return []
    return [f"{path}: {old!r} became {new!r}"]


def csv_differences(old, new):
    """The per-step tables as records: the same columns, and each cell as the record compares it."""
    def rows(text):
        lines = text.splitlines()
        header = lines[0].split(",")
        return header, [dict(zip(header, (float(x) for x in line.split(",")))) for line in lines[1:]]
    old_header, old_rows = rows(old)
    new_header, new_rows = rows(new)
    if old_header != new_header:
        return [f"columns {old_header} became {new_header}"]
    return differences({"steps": old_rows}, {"steps": new_rows})


def cases():
    return json.loads((FIXTURES / "cases.json").read_text())


@unittest.skipUnless(SMPI_BUILT, "lbbench-smpi was not built")
class RecordsOfTheSameRunStayTheSame(unittest.TestCase):
    maxDiff = None
    def run_case(self, case, folder):
        out = folder / f"{case['name']}.jsonl"
        csv = folder / f"{case['name']}.csv"
        result = subprocess.run(
            [LBBENCH, "run", "--engine", "smpi", *case["args"], "--code-charge", "none",
             "--out", str(out), "--steps-csv", str(csv)],
            capture_output=True, text=True, timeout=600, cwd=SOURCE)
        self.assertEqual(result.returncode, 0, f"{case['name']}:\n{result.stdout}\n{result.stderr}")
        summary = "".join(line + "\n" for line in result.stdout.splitlines() if "record appended" not in line)
        return json.loads(out.read_text()), summary, csv.read_text()

    def test_every_case_records_what_it_recorded_before(self):
        record_fixtures = os.environ.get("LBBENCH_RECORD_FIXTURES") == "1"
        with tempfile.TemporaryDirectory() as tmp:
            for case in cases():
                with self.subTest(case=case["name"]):
                    record, summary, csv = self.run_case(case, Path(tmp))
                    stem = FIXTURES / case["name"]
                    if record_fixtures:
                        Path(f"{stem}.record.json").write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
                        Path(f"{stem}.summary.txt").write_text(summary)
                        Path(f"{stem}.steps.csv").write_text(csv)
                        continue
                    old = json.loads(Path(f"{stem}.record.json").read_text())
                    self.assertEqual(differences(old, record), [])
                    self.assertEqual(summary, Path(f"{stem}.summary.txt").read_text())
                    self.assertEqual(csv_differences(Path(f"{stem}.steps.csv").read_text(), csv), [])


class TheComparisonCanFail(unittest.TestCase):
    """The comparison itself: it must see a changed number, a lost field and a new one."""

    def test_it_reports_changes_and_ignores_only_what_it_says(self):
        old = {"migrations": 5, "lb": [{"step": 1, "prediction": {"weighed": {"tree": {"cost_s": 0.1}}}}],
               "provenance": {"host": "a"}, "total_time_s": 0.25}
        new = {"migrations": 6, "lb": [{"step": 1, "prediction": {"weighed": {"tree": {"cost_s": 0.2}}}}],
               "provenance": {"host": "b"}, "extra": 1}
        self.assertEqual(differences(old, new), ["extra: not in the old record", "migrations: 5 became 6",
                                                 "total_time_s: missing from the new record"])
        self.assertEqual(differences({"x": 1.0}, {"x": 1.0 + 1e-9}), ["x: 1.0 became 1.000000001"])
        # Times may move by a part per million, no more.
        self.assertEqual(differences({"wall_s": [1.0]}, {"wall_s": [1.0 + 1e-7]}), [])
        self.assertEqual(differences({"wall_s": [1.0]}, {"wall_s": [1.0 + 1e-5]}),
                         ["wall_s[0]: 1.0 became 1.00001"])
        self.assertEqual(differences({"wait_s": 0.01}, {"wait_s": 0.0100005}), [])
        self.assertEqual(differences({"wait_s": 0.01}, {"wait_s": 0.0101}), ["wait_s: 0.01 became 0.0101"])
        self.assertEqual(differences({"x": 1}, {"x": "1"}), ["x: 1 became '1'"])
        # What `auto` weighed a call at and its bank follow the host's clock; its choice does not.
        old = {"lb": [{"prediction": {"chosen": "tree", "bank_s": 0.5, "weighed": {
            "metis": {"cost_s": 0.1, "gain_s": 0.3}}}}]}
        new = {"lb": [{"prediction": {"chosen": "none", "bank_s": 0.4, "weighed": {
            "metis": {"cost_s": 0.2, "gain_s": 0.3}}}}]}
        self.assertEqual(differences(old, new), ["lb[0].prediction.chosen: 'tree' became 'none'"])


if __name__ == "__main__":
    unittest.main()
