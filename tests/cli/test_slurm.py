"""`lbbench sweep --slurm` against a real Slurm: slurmctld and slurmd started on localhost
for the test, a 4-run sweep submitted as a job array, followed with --status, merged with
--collect. Each run starts its 2 ranks with srun inside the allocation.

Skipped when Slurm's daemons are not installed or the test is not root (slurmd needs it).

Environment: LBBENCH, LBBENCH_SOURCE_DIR.
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from test_cli import LBBENCH, SCENARIOS

DAEMONS = all(shutil.which(p) for p in ("slurmctld", "slurmd", "sbatch", "squeue", "sinfo"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_conf(root):
    return f"""ClusterName=lbbench-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc={root}/jobcomp.txt
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000
PartitionName=debug Nodes=localhost Default=YES State=UP MaxTime=INFINITE
"""


@unittest.skipUnless(DAEMONS, "Slurm (slurm-wlm) is not installed")
@unittest.skipUnless(os.geteuid() == 0, "slurmd must run as root")
class SlurmLocalhost(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for d in ("state", "spool"):
            (self.root / d).mkdir()
        conf = self.root / "slurm.conf"
        conf.write_text(slurm_conf(self.root))
        self.env = dict(os.environ, SLURM_CONF=str(conf))
        self.daemons = [
            subprocess.Popen(["slurmctld", "-D", "-i"], env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
            subprocess.Popen(["slurmd", "-D", "-N", "localhost"], env=self.env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL),
        ]
        deadline = time.time() + 60
        while time.time() < deadline:
            state = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
            if state.stdout.strip() == "idle":
                return
            time.sleep(0.5)
        self.tearDown()
        self.fail(f"the localhost Slurm did not come up; see {self.root}/slurmctld.log")

    def tearDown(self):
        subprocess.run(["scancel", "--user=root"], env=self.env, capture_output=True)
        for d in self.daemons:
            d.terminate()
        for d in self.daemons:
            try:
                d.wait(timeout=20)
            except subprocess.TimeoutExpired:
                d.kill()
        self.tmp.cleanup()

    def lbbench(self, *args):
        result = subprocess.run([LBBENCH, *map(str, args)], env=self.env, capture_output=True, text=True,
                                timeout=300, cwd=self.root)
        self.assertEqual(result.returncode, 0, f"{args}:\n{result.stdout}\n{result.stderr}")
        return result.stdout

    def test_a_four_run_sweep_completes_and_every_record_arrives(self):
        sweep = self.root / "four.yaml"
        sweep.write_text(f"name: four\nscenario: {SCENARIOS / 'quickstart.yaml'}\nrepetitions: 2\n"
                         "set: {ranks: 2, steps: 3, mesh.nx: 32, mesh.ny: 32}\n"
                         "axes: {balancer: [none, greedy]}\n"
                         "slurm: {time: '00:10:00', partition: debug}\n")
        results = self.root / "results"
        submitted = self.lbbench("sweep", sweep, "--slurm", "--results", results)
        self.assertRegex(submitted, r"submitted job \d+: 4 runs in 4 array tasks")
        deadline = time.time() + 600
        while "no longer in the queue" not in (status := self.lbbench("sweep", sweep, "--status", "--results", results)):
            self.assertLess(time.time(), deadline, f"the job did not finish in 10 minutes:\n{status}")
            time.sleep(1)
        self.assertIn("4 runs: 4 recorded, 0 failed", status)
        collected = self.lbbench("sweep", sweep, "--collect", "--results", results)
        self.assertIn("merged 4 records", collected)
        records = [json.loads(line) for line in (results / "runs.jsonl").read_text().splitlines()]
        self.assertEqual(len(records), 4)
        self.assertEqual(len({r["sweep"]["id"] for r in records}), 4)
        self.assertTrue(all(r["schema"] == "lbbench.run/1" and r["ranks"] == 2 for r in records))
        self.assertIn("srun", records[0]["provenance"]["command"] + (results / "logs" /
                      f"{records[0]['sweep']['id']}.log").read_text())
        self.assertFalse(any((results / "tasks").iterdir()))  # merged task files are removed
        # Collecting again adds nothing, and a local resume has nothing left to run.
        self.assertIn("merged 0 records", self.lbbench("sweep", sweep, "--collect", "--results", results))
        self.assertIn("every run of sweep four is recorded",
                      self.lbbench("sweep", sweep, "--slurm", "--results", results))

    def test_a_job_measures_the_machine_into_a_preset_that_a_simulated_run_accepts(self):
        script = self.root / "calibrate.sh"
        preset = self.root / "host.yaml"
        script.write_text("#!/bin/bash\n#SBATCH --ntasks=2\n#SBATCH --time=00:10:00\nset -e\n"
                          f"LBBENCH_CACHE_DIR={self.root / 'cache'} "
                          f"srun --mpi=pmix -n 2 {LBBENCH} calibrate --preset-out {preset} --quick\n")
        job = subprocess.run(["sbatch", "--wait", "-o", str(self.root / "calibrate.out"), str(script)], env=self.env,
                             capture_output=True, text=True, timeout=600, cwd=self.root)
        self.assertEqual(job.returncode, 0, f"{job.stdout}{job.stderr}{(self.root / 'calibrate.out').read_text()}")
        text = preset.read_text()
        self.assertIn("name: host", text)
        self.assertIn("cores: 2  # the ranks the job ran on a node", text)
        out = self.root / "model.jsonl"
        self.lbbench("run", SCENARIOS / "quickstart.yaml", "--engine", "model", "--machine", preset, "--ranks", "4",
                     "--set", "steps=3", "--out", out)
        record = json.loads(out.read_text().splitlines()[-1])
        self.assertEqual((record["engine"], record["machine"]), ("model", "host"))


if __name__ == "__main__":
    unittest.main()
