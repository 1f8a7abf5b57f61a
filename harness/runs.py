"""What the harness's scripts share: running one lbbench command under /usr/bin/time with
a time limit, naming paths the way the records should show them, and telling which records
are runs of one case."""
import json
import os
import signal
import statistics
import subprocess
from pathlib import Path


def portable(path):
    """A path as the records will show it: relative to the working folder where it lies
    under it, so that records made in a source tree read the same on every machine."""
    return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd()) else str(path)


def timed_run(cmd, records, timeout):
    """Runs cmd (an lbbench run that appends to records) under /usr/bin/time.

    Returns (status, wall seconds, peak RSS in GB, the new record or None); status is "ok"
    or why the run gave no record."""
    before = records.read_text().count("\n") if records.exists() else 0
    # Its own process group, so that a run over time goes with smpirun and the simulation.
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return f"not finished in {timeout:.0f} s", None, None, None
    lines = stderr.strip().splitlines()
    timing = lines.pop().split() if lines else []
    if proc.returncode != 0 or len(timing) != 2:
        # What the run said, without /usr/bin/time's own lines.
        said = [line for line in lines if not line.startswith(("Command exited", "Command terminated"))]
        return f"failed ({proc.returncode}): {' '.join(said[-2:])[:200]}", None, None, None
    written = records.read_text().splitlines() if records.exists() else []
    if len(written) <= before:
        return "no record", None, None, None
    return "ok", float(timing[0]), int(timing[1]) / 1e6, json.loads(written[-1])


# The axes a case's runs differ by: each balancer, machine, engine and rank count of a case
# is a column of its comparison, not a case of its own.
COLUMN_AXES = {"balancer", "machine", "engine", "ranks"}


def axes_of(r):
    """The sweep axes a record was made with ({} outside a sweep)."""
    return r.get("sweep", {}).get("axes", {})


def case_key(r):
    """The case a record is a run of: its scenario, engine, machine and ranks, and the
    sweep's other axes (the balancer and the repetition aside)."""
    other = tuple(sorted((k, json.dumps(v)) for k, v in axes_of(r).items() if k not in COLUMN_AXES))
    return (r.get("scenario", ""), r.get("engine", ""), r.get("machine", ""), r.get("ranks", 0), other)


def after_first_lb(r, per_step):
    """Mean of a per-step series over the steps after the first LB call."""
    lbs = r.get("lb", [])
    first = lbs[0]["step"] + 1 if lbs and lbs[0]["step"] + 1 < len(per_step) else 0
    return statistics.mean(per_step[first:])


def time_per_step_ms(r):
    """Mean wall time of the steps after the first LB call (of all steps without one), as
    the papers report it: the balanced application's step, without the LB cost itself."""
    wall = r.get("per_step", {}).get("wall_max_s")
    if not wall:
        return 1e3 * r["total_time_s"] / max(1, r.get("steps", 1))
    return 1e3 * after_first_lb(r, wall)
