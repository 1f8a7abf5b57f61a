#!/usr/bin/env python3
"""Paper-style plots from lbbench run records.

    python3 harness/plot.py RESULTS [--out DIR] [--baseline none] [--run ID]

When this python3 has no matplotlib, the script runs itself again with Debian's
/usr/bin/python3, which python3-matplotlib installs for.

RESULTS is a records file (.jsonl) or a folder searched for them. Each plot is drawn when
the records hold what it needs, and written as PDF and PNG:

  improvement  Pearce et al., Fig. 6(b): improvement over the baseline per case, cases
               sorted, one curve per balancer, plus the model's choice where recorded
  latency      Koenig & Kale, Fig. 2: time per step against the cross-site latency
  bars         Langer & Kale: time per step (median, whiskers from the fastest to the
               slowest repetition) and migrations per strategy

Time per step is the mean wall time of the steps after the first LB call; the LB calls'
own cost is in the records and in `lbbench report`.
  vector       Buch: objective (sum of per-phase maxima, after LB) against decision time
  predicted    predicted against measured total time, with the line y = x
  imbalance    imbalance over the steps of one case (or of --run ID), LB steps marked;
               with phases, the sum of the phases' maxima over its perfect value

    python3 harness/plot.py ranks FILE [--out DIR] [--component NAME]

draws a run's `--rank-loads FILE` (harness/rank_loads.py): every rank's load before and
after each LB call laid out on the machine, with what the call changed (NAME-machine),
and, with --rank-loads-stride, ranks against steps (NAME-timeline).

A case is one scenario, engine, machine, rank count and set of sweep axis values other than
the balancer; repetitions of a case are summarized by their median. Records of several
sweeps get one folder of figures per sweep.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

# The Python that Debian's python3-matplotlib installs for. `python3` on a user's PATH may
# be another (pyenv, conda, a venv) that lacks it: the README's command must still work.
SYSTEM_PYTHON = "/usr/bin/python3"
REEXEC_GUARD = "LBBENCH_PLOT_REEXEC"


def rerun_with_a_python_that_has_matplotlib():
    """Replaces this process with SYSTEM_PYTHON running this script, when that Python has
    matplotlib and this one has not; returns only when there is none to run."""
    if os.environ.get(REEXEC_GUARD) or not os.access(SYSTEM_PYTHON, os.X_OK):
        return
    probe = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"], capture_output=True)
    if probe.returncode != 0:
        return
    print(f"plot.py: matplotlib is not importable by {sys.executable}; running with {SYSTEM_PYTHON}",
          file=sys.stderr, flush=True)
    os.environ[REEXEC_GUARD] = "1"
    os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON, os.path.abspath(__file__), *sys.argv[1:]])


try:
    import matplotlib
except ImportError:
    rerun_with_a_python_that_has_matplotlib()
    sys.exit(f"plot.py: matplotlib is not importable by {sys.executable} nor by {SYSTEM_PYTHON}; "
             "install Debian's python3-matplotlib (sudo apt-get install python3-matplotlib)")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

from runs import after_first_lb, axes_of, case_key, time_per_step_ms  # noqa: E402

LATENCY_KEY = "machine.wan_latency"


def style():
    plt.rcParams.update({
        "font.family": "serif",
        "font.serif": ["DejaVu Serif", "Times New Roman", "Times"],
        "mathtext.fontset": "dejavuserif",
        "font.size": 9,
        "axes.titlesize": 9,
        "axes.labelsize": 9,
        "legend.fontsize": 7.5,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "figure.dpi": 100,
        "savefig.bbox": "tight",
    })


def read_records(path):
    path = Path(path)
    files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
    seen, records = set(), []
    for f in files:
        for number, line in enumerate(f.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                print(f"plot.py: skipped {f}:{number}: not JSON", file=sys.stderr)
                continue
            if not isinstance(r, dict) or r.get("schema") != "lbbench.run/1" or line in seen:
                continue
            seen.add(line)
            records.append(r)
    return records


def case_title(key):
    scenario, engine, machine, ranks, other = key
    extra = " ".join(f"{k}={json.loads(v)}" for k, v in other)
    return f"{scenario}, {ranks} ranks on {machine} ({engine})" + (f", {extra}" if extra else "")


def cases(records):
    """case key -> balancer -> list of records"""
    out = defaultdict(lambda: defaultdict(list))
    for r in records:
        out[case_key(r)][r["balancer"]].append(r)
    return out


def median_of(rs, f):
    return statistics.median(f(r) for r in rs)


def balancer_order(names, baseline):
    return sorted(names, key=lambda n: (n != baseline, n))


COLORS = {}


def color_of(balancer):
    """One color per balancer across every figure (20 distinct ones, then repeated)."""
    return COLORS.get(balancer)


def assign_colors(records):
    palette = plt.get_cmap("tab20").colors
    names = sorted({r["balancer"] for r in records}, key=lambda n: (n != "none", n))
    COLORS.update({n: palette[(2 * i) % 20 + (2 * i // 20) % 2] for i, n in enumerate(names)})


def save(fig, out, name, written):
    for ext in ("pdf", "png"):
        fig.savefig(out / f"{name}.{ext}", dpi=200)
    plt.close(fig)
    written.append(name)


def plot_improvement(records, out, baseline, written, skipped):
    by_case = cases(records)
    curves = defaultdict(list)
    chosen, best = [], []
    for key, per in by_case.items():
        if baseline not in per or len(per) < 2:
            continue
        base = median_of(per[baseline], lambda r: r["total_time_s"])
        improvement = {b: 100 * (base - median_of(rs, lambda r: r["total_time_s"])) / base for b, rs in per.items()}
        for b, v in improvement.items():
            if b != baseline:
                curves[b].append(v)
        best.append(max(improvement.values()))
        picks = [r["prediction"]["chosen"] for rs in per.values() for r in rs
                 if isinstance(r.get("prediction"), dict) and "chosen" in r["prediction"]]
        if picks and picks[0] in improvement:
            chosen.append(improvement[picks[0]])
    if len(best) < 2:
        # One case is a bar chart, not a curve: see `bars`.
        skipped.append(f"improvement: fewer than two cases with `{baseline}` and another balancer")
        return
    fig, ax = plt.subplots(figsize=(5.0, 3.4))
    for b in sorted(curves):
        values = sorted(curves[b])
        ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, linewidth=1.2, label=b, color=color_of(b))
    ax.plot(range(1, len(best) + 1), sorted(best), color="black", linestyle=":", linewidth=1, label="best measured")
    if chosen:
        values = sorted(chosen)
        ax.plot(range(1, len(values) + 1), values, color="black", linewidth=2, label="model's choice")
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("case (sorted by improvement, per balancer)")
    ax.set_ylabel(f"improvement over {baseline} (%)")
    ax.set_title(f"Improvement over {baseline} in {len(best)} case{'s' if len(best) > 1 else ''}")
    ax.legend(ncol=2, loc="lower right")
    save(fig, out, "improvement", written)


def latency_of(r):
    if LATENCY_KEY in axes_of(r):
        return float(axes_of(r)[LATENCY_KEY])
    return None


def plot_latency(records, out, written, skipped):
    groups = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in records:
        lat = latency_of(r)
        if lat is not None:
            groups[(r["scenario"], r["machine"], r["ranks"], r["engine"])][r["balancer"]][lat].append(r)
    if not groups:
        skipped.append(f"latency: no records with a `{LATENCY_KEY}` axis")
        return
    for i, ((scenario, machine, ranks, engine), per) in enumerate(sorted(groups.items())):
        fig, ax = plt.subplots(figsize=(4.6, 3.4))
        for b in sorted(per):
            xs = sorted(per[b])
            ys = [median_of(per[b][x], time_per_step_ms) for x in xs]
            ax.plot([1e3 * x for x in xs], ys, marker="o", markersize=3.5, linewidth=1.2, label=b, color=color_of(b))
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
        ax.set_xlabel("cross-site latency (ms)")
        ax.set_ylabel("time per step after LB (ms)")
        ax.set_title(f"{scenario}: {ranks} ranks on {machine} ({engine})")
        ax.set_ylim(bottom=0)
        ax.legend()
        save(fig, out, "latency" if i == 0 else f"latency-{i + 1}", written)


MAX_BAR_CASES = 12


def plot_bars(records, out, baseline, written, skipped):
    by_case = {k: v for k, v in cases(records).items() if len(v) >= 2 and latency_of(next(iter(v.values()))[0]) is None}
    if not by_case:
        skipped.append("bars: no case with two or more balancers")
        return
    if len(by_case) > MAX_BAR_CASES:
        # A row of bars per case stops being readable; the improvement curve covers them.
        skipped.append(f"bars: {len(by_case)} cases, more than {MAX_BAR_CASES} for one row of bars")
        return
    keys = sorted(by_case)
    names = balancer_order({b for per in by_case.values() for b in per}, baseline)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(max(5.0, 1.1 * len(keys) + 2), 5.2), sharex=True)
    width = 0.8 / len(names)
    for j, b in enumerate(names):
        xs, steps, spread, moves = [], [], [[], []], []
        for i, k in enumerate(keys):
            if b in by_case[k]:
                xs.append(i + (j - (len(names) - 1) / 2) * width)
                times = [time_per_step_ms(r) for r in by_case[k][b]]
                steps.append(statistics.median(times))
                spread[0].append(steps[-1] - min(times))
                spread[1].append(max(times) - steps[-1])
                moves.append(median_of(by_case[k][b], lambda r: r.get("migrations", 0)))
        # Whiskers span the repetitions (none with one run each).
        top.bar(xs, steps, width, label=b, color=color_of(b), yerr=spread, capsize=2, error_kw={"linewidth": 0.8})
        bottom.bar(xs, moves, width, label=b, color=color_of(b))
    top.set_ylabel("time per step\nafter LB (ms)")
    bottom.set_ylabel("vertices migrated")
    bottom.set_yscale("symlog", linthresh=10)
    bottom.set_xticks(range(len(keys)))
    # The engine is named where the cases run on more than one.
    engines = len({k[1] for k in keys}) > 1
    bottom.set_xticklabels([f"{k[0]}\n{k[3]} ranks, {k[2]}" + (f"\n{k[1]}" if engines else "") for k in keys],
                           fontsize=7)
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    top.set_title("Time per step and migrations per strategy")
    save(fig, out, "bars", written)


def plot_vector(records, out, written, skipped):
    rs = [r for r in records if r.get("load_vector") and r.get("lb")]
    if not rs:
        skipped.append("vector: no records with a vector workload and LB calls")
        return
    by_case = cases(rs)
    for i, (key, per) in enumerate(sorted(by_case.items())):
        fig, ax = plt.subplots(figsize=(4.8, 3.4))
        markers = "osD^v<>ph*"
        for j, b in enumerate(sorted(per)):
            decision = median_of(per[b], lambda r: sum(lb["decision_s"] for lb in r["lb"]) / len(r["lb"]))
            objective = median_of(per[b], lambda r: 1e3 * after_first_lb(r, r["load_vector"]["objective_per_step_s"]))
            ax.scatter([1e3 * decision], [objective], s=26, marker=markers[j % len(markers)], zorder=3, label=b,
                       color=color_of(b))
        perfect = statistics.median(1e3 * after_first_lb(r, r["load_vector"]["perfect_per_step_s"])
                                    for b in per for r in per[b])
        ax.axhline(perfect, color="grey", linestyle="--", linewidth=0.8, label="perfect balance of every phase")
        ax.set_xscale("log")
        ax.set_xlabel("decision time per LB call (ms)")
        ax.set_ylabel("sum of phase maxima per step\nafter LB (ms)")
        ax.set_title(case_title(key))
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
        save(fig, out, "vector" if i == 0 else f"vector-{i + 1}", written)


def plot_predicted(records, out, written, skipped):
    points = defaultdict(list)
    for key, per in cases(records).items():
        measured = {b: median_of(rs, lambda r: r["total_time_s"]) for b, rs in per.items()}
        for rs in per.values():
            for r in rs:
                candidates = (r.get("prediction") or {}).get("candidates", {})
                for b, c in candidates.items():
                    if b in measured and "total_s" in c and not c.get("at_least"):
                        points[b].append((measured[b], c["total_s"]))
    if not points:
        skipped.append("predicted: no records carry the cost model's predictions")
        return
    fig, ax = plt.subplots(figsize=(4.0, 3.6))
    lo = min(min(m, p) for ps in points.values() for m, p in ps)
    hi = max(max(m, p) for ps in points.values() for m, p in ps)
    for b in sorted(points):
        ax.scatter([m for m, _ in points[b]], [p for _, p in points[b]], s=14, label=b, color=color_of(b))
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=0.8, label="y = x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured total time (s)")
    ax.set_ylabel("predicted total time (s)")
    ax.set_title("Cost model: predicted against measured")
    ax.legend(ncol=2)
    save(fig, out, "predicted", written)


def plot_imbalance(records, out, baseline, run_id, written, skipped):
    with_steps = [r for r in records if r.get("per_step", {}).get("imbalance")]
    if run_id:
        chosen = [r for r in with_steps if r.get("sweep", {}).get("id") == run_id]
        if not chosen:
            skipped.append(f"imbalance: no run with id {run_id}")
            return
        title = f"run {run_id}: {chosen[0]['balancer']}, {case_title(case_key(chosen[0]))}"
    else:
        by_case = cases(with_steps)
        if not by_case:
            skipped.append("imbalance: no records with per-step imbalance")
            return
        key = max(sorted(by_case), key=lambda k: len(by_case[k]))  # the case with the most balancers
        chosen = [by_case[key][b][0] for b in balancer_order(by_case[key], baseline)]
        title = case_title(key)
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    lb_steps = set()
    # With phases (a load vector) the step costs the sum of the phases' maxima, which the
    # imbalance of each rank's summed time does not show.
    vector = all(r.get("load_vector") for r in chosen)
    for r in chosen:
        if vector:
            lv = r["load_vector"]
            values = [100 * (o / p - 1) for o, p in zip(lv["objective_per_step_s"], lv["perfect_per_step_s"])]
        else:
            values = [100 * v for v in r["per_step"]["imbalance"]]
        ax.plot(range(len(values)), values, linewidth=1.2, label=r["balancer"], color=color_of(r["balancer"]))
        lb_steps.update(lb["step"] for lb in r.get("lb", []))
    for step in sorted(lb_steps):
        ax.axvline(step + 0.5, color="grey", linestyle=":", linewidth=0.7)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("step (dotted: LB after the step)")
    ax.set_ylabel("sum of phase maxima / perfect - 1 (%)" if vector else "imbalance, max/avg - 1 (%)")
    ax.set_yscale("symlog", linthresh=10)
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, out, "imbalance", written)


def ranks_main(argv):
    import rank_loads

    parser = argparse.ArgumentParser(prog="plot.py ranks", description="every rank's load on the machine")
    parser.add_argument("file", help="what `lbbench run --rank-loads FILE` wrote")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    parser.add_argument("--name", help="the figures' name (default: the file's)")
    parser.add_argument("--component", help="one load component by name (default: their sum)")
    args = parser.parse_args(argv)
    try:
        header, node, site, loads = rank_loads.read(args.file)
    except (OSError, ValueError) as e:
        sys.exit(f"plot.py ranks: {e}")
    component = None
    if args.component is not None:
        if args.component not in header["components"]:
            sys.exit(f"plot.py ranks: no component {args.component!r}; the file has {header['components']}")
        component = header["components"].index(args.component)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    style()
    name = args.name or Path(args.file).stem
    written = [f"{name}-{kind}" for kind, drawn in [
        ("machine", rank_loads.plot_machine(plt, header, node, site, loads, out, f"{name}-machine", component)),
        ("timeline", rank_loads.plot_timeline(plt, header, loads, out, f"{name}-timeline", component))] if drawn]
    print(f"{args.file}: {header['ranks']} ranks, {len(header['rows'])} steps; wrote {', '.join(written) or 'nothing'} "
          f"(PDF and PNG) to {out}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "ranks":
        ranks_main(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="a records file (.jsonl) or a folder of them")
    parser.add_argument("--out", default="plots", help="output folder (default: plots)")
    parser.add_argument("--baseline", default="none", help="balancer improvements are measured against")
    parser.add_argument("--run", help="sweep run id for the imbalance plot")
    args = parser.parse_args()
    if not Path(args.results).exists():
        sys.exit(f"plot.py: {args.results}: no such file or folder")
    records = read_records(args.results)
    if not records:
        sys.exit(f"plot.py: {args.results}: no run records")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    style()
    assign_colors(records)
    groups = defaultdict(list)
    for r in records:
        groups[r.get("sweep", {}).get("name", "records")].append(r)
    written, skipped = [], []
    for name in sorted(groups):
        # One set of figures per sweep: a sweep is one experiment, with one set of balancers.
        folder = out if len(groups) == 1 else out / name
        folder.mkdir(parents=True, exist_ok=True)
        group_written, group_skipped = [], []
        rs = groups[name]
        plot_improvement(rs, folder, args.baseline, group_written, group_skipped)
        plot_latency(rs, folder, group_written, group_skipped)
        plot_bars(rs, folder, args.baseline, group_written, group_skipped)
        plot_vector(rs, folder, group_written, group_skipped)
        plot_predicted(rs, folder, group_written, group_skipped)
        plot_imbalance(rs, folder, args.baseline, args.run, group_written, group_skipped)
        prefix = "" if len(groups) == 1 else f"{name}/"
        written += [prefix + w for w in group_written]
        skipped += [prefix + k for k in group_skipped]
    print(f"{len(records)} records; wrote {', '.join(written) or 'nothing'} (PDF and PNG) to {out}")
    for k in skipped:
        print(f"  skipped {k}")


if __name__ == "__main__":
    main()
