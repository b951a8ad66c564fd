"""Our ratings against LMArena's own library and FastChat's file, in one run on the same votes:
1,000,000 votes among 100 models with 30% ties, drawn under the rating model with ties
(``tests/arena_engine/simulation.py``).

- ``arena-rank`` (LMArena's ratings library, PyPI, JAX; bench/arena_rank_side.py in its own
  environment, bench/.venv-anchors: ``make bench-anchors-env``): its default, ``PairDataset.from_pandas``
  then ``BradleyTerry.compute_ratings_and_cis`` (sandwich intervals), in one long-lived process so
  that JAX's compile is paid once (the first run, reported apart) and every timed run is warm;
  ``fit`` is the fit and intervals on the prepared dataset, ``whole`` adds from_pandas (the counting
  of the votes, which our time includes). Its bootstrap (a process pool, an L-BFGS fit from zeros per
  round) once at the end, in a process of its own with a timeout, with the ``forkserver`` start
  method, and a few rounds with multiprocessing's default (``fork``), which can hang under JAX.
- FastChat's own method (bench/fastchat_side.py: ``compute_bootstrap_bt`` with 100 rounds then
  ``compute_bt``, its default pool), a fresh process per run, as bench/bench_ratings.py runs it.
- Ours: ``evaluators.arena.ratings.rate`` on the votes' arrays with 100 bootstrap rounds (the
  site's default) and with the sandwich, both with the calibrated intervals of bench/bench_intervals.py.

The runs are interleaved (ours, ours, arena-rank, FastChat, repeated), each with the 1-minute load
average before it and its CPU time (a process's own, its threads' and its pool's). Ratings are
compared after each is centred on its mean (all three put the mean at 1000 on these votes, up to
their optimisers' tolerance); half-widths are (upper - lower) / 2. Results: anchors.json and .md.

    make bench-anchors-env && .venv/bin/python bench/bench_anchors.py [--publish]
    BENCH_REPEATS=5 (interleaved runs), BENCH_VOTES=1000000, BENCH_ARENA_RANK_BOOTSTRAP=8 (rounds; 0: skip)
    (FastChat's side needs make toolchains: the data sandbox's numpy, scipy and pandas)
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import load_average, write_results
from evaluators.arena.ratings import BattleArrays, RatingConfig, rate
from tests.arena_engine.simulation import simulate

N_VOTES = int(os.environ.get("BENCH_VOTES", "1000000"))
N_MODELS = 100
TIES = 0.3
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
#: arena-rank's bootstrap rounds timed (each an L-BFGS fit from zeros in a pool process, about 10 s a round at
#: load 13 here): its time per round is extrapolated to 100, and its half-widths are given only from 50 rounds up
BOOT_ROUNDS = int(os.environ.get("BENCH_ARENA_RANK_BOOTSTRAP", "8"))
#: rounds of arena-rank's bootstrap tried with multiprocessing's default start method, and how long it may take
FORK_PROBE_ROUNDS, FORK_PROBE_TIMEOUT_S = 2, 150
BOOT_TIMEOUT_S = 600
ANCHORS_PYTHON = REPO / "bench" / ".venv-anchors" / "bin" / "python"
GOAL = 5.0


class ArenaRank:
    """arena-rank's sandwich fit in a long-lived process of its own environment (bench/arena_rank_side.py)."""

    def __init__(self, votes: Path) -> None:
        self.process = subprocess.Popen(
            [str(ANCHORS_PYTHON), "-s", str(REPO / "bench" / "arena_rank_side.py"), str(votes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": "", "PYTHONWARNINGS": "ignore"},
        )

    def ask(self, command: str) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"arena-rank's process ended (exit {self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("quit\n")
        self.process.stdin.close()
        self.process.wait(timeout=60)


def ours(arr: BattleArrays, interval: str) -> tuple[dict[str, float], Any]:
    cpu, start = time.process_time(), time.perf_counter()
    result = rate(arr, RatingConfig(interval=interval, robustness=False))
    return {"wall_s": time.perf_counter() - start, "cpu_s": time.process_time() - cpu}, result


def fastchat(votes: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO / ".toolchains" / "python-analysis"), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        ["/usr/bin/python3", "-s", str(REPO / "bench" / "fastchat_side.py"), str(votes), "--rounds", "100"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    run: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return run


def arena_rank_bootstrap(votes: Path, rounds: int, start_method: str, timeout: float) -> dict[str, Any]:
    """arena-rank's bootstrap once, in a process (and session) of its own, killed with its pool after ``timeout`` s."""
    command = [
        str(ANCHORS_PYTHON),
        "-s",
        str(REPO / "bench" / "arena_rank_side.py"),
        str(votes),
        "--bootstrap",
        str(rounds),
    ]
    if start_method:
        command += ["--start-method", start_method]
    load, start = load_average(), time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": "", "PYTHONWARNINGS": "ignore"},
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.wait()
        return {
            "rounds": rounds,
            "start_method": start_method or "default (fork)",
            "hung": True,
            "timeout_s": timeout,
            "load_before": load,
        }
    found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    found.update(
        {
            "start_method": start_method or f"default ({found['start_method']})",
            "hung": False,
            "load_before": load,
            "process_s": round(time.perf_counter() - start, 2),
        }
    )
    return found


def centred(values: np.ndarray) -> np.ndarray:
    out: np.ndarray = values - values.mean()
    return out


def summary(runs: list[float]) -> dict[str, Any]:
    return {
        "median_s": round(statistics.median(runs), 4),
        "worst_s": round(max(runs), 4),
        "best_s": round(min(runs), 4),
        "runs_s": [round(t, 4) for t in runs],
    }


def main() -> None:
    if not ANCHORS_PYTHON.exists():
        raise SystemExit("arena-rank's environment is missing: make bench-anchors-env (bench/anchors-requirements.txt)")
    votes = simulate(
        np.random.default_rng(0).normal(1000.0, 100.0, N_MODELS),
        N_VOTES,
        seed=0,
        tie=TIES,
        names=[f"model-{i:03d}" for i in range(N_MODELS)],
    )
    arr = BattleArrays(votes.models, votes.a, votes.b, votes.outcome)
    runs: dict[str, list[dict[str, Any]]] = {
        "ours, bootstrap 100 rounds": [],
        "ours, sandwich": [],
        "arena-rank, sandwich": [],
        "FastChat, bootstrap 100 rounds": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "votes.npz"
        np.savez(path, a=arr.a, b=arr.b, outcome=arr.outcome, m=N_MODELS)
        anchor = ArenaRank(path)
        load = load_average()
        cold = anchor.ask("sandwich")
        cold["load_before"] = load
        print(f"arena-rank, first run (JAX compiles): {cold['wall_s']:.2f} s", flush=True)
        ours(arr, "bootstrap")  # our imports and first allocation, as arena-rank's first run is left out
        results: dict[str, Any] = {}
        last_fastchat: dict[str, Any] = {}
        for i in range(REPEATS):
            for interval in ("bootstrap", "sandwich"):
                load = load_average()
                timing, results[interval] = ours(arr, interval)
                runs["ours, bootstrap 100 rounds" if interval == "bootstrap" else "ours, sandwich"].append(
                    {**timing, "load_before": load}
                )
            load = load_average()
            runs["arena-rank, sandwich"].append({**anchor.ask("sandwich"), "load_before": load})
            load = load_average()
            run = last_fastchat = fastchat(path)
            runs["FastChat, bootstrap 100 rounds"].append(
                {"wall_s": run["raw_s"], "cpu_s": run["raw_cpu_s"], "load_before": load}
            )
            print(f"run {i + 1}: " + ", ".join(f"{k} {v[-1]['wall_s']:.3f} s" for k, v in runs.items()), flush=True)
        theirs = anchor.ask("ratings")
        anchor.close()
        booted = []
        if BOOT_ROUNDS:
            booted.append(arena_rank_bootstrap(path, FORK_PROBE_ROUNDS, "", FORK_PROBE_TIMEOUT_S))
            print(f"arena-rank bootstrap, default start method: {booted[-1]}", flush=True)
            booted.append(arena_rank_bootstrap(path, BOOT_ROUNDS, "forkserver", BOOT_TIMEOUT_S))
            print(
                f"arena-rank bootstrap, forkserver: "
                f"{ {k: v for k, v in booted[-1].items() if k not in ('lower', 'upper', 'competitors')} }",
                flush=True,
            )

    # agreement and half-widths, in the data's model order
    names = list(votes.models)

    def by_name(result: Any) -> tuple[np.ndarray, np.ndarray]:
        rows = {r.name: r for r in result.models}
        return (
            np.array([rows[n].rating for n in names]),
            np.array([(rows[n].ci_high - rows[n].ci_low) / 2 for n in names]),
        )

    _, boot_half = by_name(results["bootstrap"])
    sand_points, sand_half = by_name(results["sandwich"])
    ar_points = np.array(theirs["ratings"])
    ar_half = (np.array(theirs["upper"]) - np.array(theirs["lower"])) / 2
    fc_points = np.array([last_fastchat["ratings"][n] for n in names])
    fc_half = np.array([(last_fastchat["quantiles"][n][2] - last_fastchat["quantiles"][n][0]) / 2 for n in names])
    agreement: dict[str, float | list[float]] = {
        "ours - arena-rank, max abs, points (centred)": float(np.abs(centred(sand_points) - centred(ar_points)).max()),
        "ours - FastChat, max abs, points (centred)": float(np.abs(centred(sand_points) - centred(fc_points)).max()),
        "mean rating: ours / arena-rank / FastChat": [
            float(sand_points.mean()),
            float(ar_points.mean()),
            float(fc_points.mean()),
        ],
        "sandwich half-width, ours / arena-rank, max relative difference": float(
            np.abs(sand_half / ar_half - 1.0).max()
        ),
    }
    halves = {
        "ours, bootstrap 100 rounds (percentile, plotting positions k/(B+1))": float(np.median(boot_half)),
        "ours, sandwich": float(np.median(sand_half)),
        "arena-rank, sandwich": float(np.median(ar_half)),
        "FastChat, bootstrap 100 rounds (numpy's default positions)": float(np.median(fc_half)),
    }
    for found in booted:
        if not found.get("hung") and "lower" in found and found["rounds"] >= 50:
            order = [found["competitors"].index(n) for n in names]
            half = (np.array(found["upper"])[order] - np.array(found["lower"])[order]) / 2
            halves[f"arena-rank, bootstrap {found['rounds']} rounds ({found['start_method']})"] = float(np.median(half))

    cases = {
        label: {
            **summary([r["wall_s"] for r in rs]),
            "cpu_median_s": round(statistics.median(r["cpu_s"] for r in rs), 4),
            "cpu_worst_s": round(max(r["cpu_s"] for r in rs), 4),
            "loads_before": [r["load_before"] for r in rs],
        }
        for label, rs in runs.items()
    }
    fit_only = [r["fit_s"] for r in runs["arena-rank, sandwich"]]
    cases["arena-rank, sandwich: fit and intervals on the prepared dataset"] = {
        **summary(fit_only),
        "cpu_median_s": round(statistics.median(r["fit_cpu_s"] for r in runs["arena-rank, sandwich"]), 4),
    }
    cases["arena-rank, sandwich: PairDataset.from_pandas"] = summary(
        [r["prepare_s"] for r in runs["arena-rank, sandwich"]]
    )

    def ratio(theirs_s: list[float], ours_s: list[float]) -> dict[str, float]:
        """Median over median, their best over our worst, and the median of the interleaved runs' own ratios."""
        return {
            "median": round(statistics.median(theirs_s) / statistics.median(ours_s), 2),
            "worst": round(min(theirs_s) / max(ours_s), 2),
            "per_run_median": round(statistics.median(t / o for t, o in zip(theirs_s, ours_s)), 2),
        }

    ours_boot = [r["wall_s"] for r in runs["ours, bootstrap 100 rounds"]]
    ours_sand = [r["wall_s"] for r in runs["ours, sandwich"]]
    ar_whole = [r["wall_s"] for r in runs["arena-rank, sandwich"]]
    fc_wall = [r["wall_s"] for r in runs["FastChat, bootstrap 100 rounds"]]
    cpu = {k: [r["cpu_s"] for r in v] for k, v in runs.items()}
    speedups = {
        "ours bootstrap 100 vs arena-rank sandwich fit (prepared dataset)": ratio(fit_only, ours_boot),
        "ours bootstrap 100 vs arena-rank sandwich from the votes' table": ratio(ar_whole, ours_boot),
        "ours sandwich vs arena-rank sandwich fit (prepared dataset)": ratio(fit_only, ours_sand),
        "ours bootstrap 100 vs FastChat bootstrap 100 + fit": ratio(fc_wall, ours_boot),
        "CPU: ours bootstrap 100 vs arena-rank sandwich fit (prepared dataset)": ratio(
            [r["fit_cpu_s"] for r in runs["arena-rank, sandwich"]], cpu["ours, bootstrap 100 rounds"]
        ),
        "CPU: ours bootstrap 100 vs arena-rank sandwich from the votes' table": ratio(
            cpu["arena-rank, sandwich"], cpu["ours, bootstrap 100 rounds"]
        ),
        "CPU: ours bootstrap 100 vs FastChat": ratio(
            cpu["FastChat, bootstrap 100 rounds"], cpu["ours, bootstrap 100 rounds"]
        ),
    }
    anchor_ratio = speedups["ours bootstrap 100 vs arena-rank sandwich fit (prepared dataset)"]
    loads = [r["load_before"] for rs in runs.values() for r in rs]
    out = {
        "votes": N_VOTES,
        "models": N_MODELS,
        "ties": TIES,
        "repeats": REPEATS,
        "cases": cases,
        "speedups": speedups,
        "goal": f">= {GOAL:g}x arena-rank's sandwich fit in wall time (ours: bootstrap 100 rounds, the site's default)",
        "goal_met_at_median": anchor_ratio["median"] >= GOAL,
        "arena_rank_first_run": cold,
        "agreement": agreement,
        "median_half_width_points": halves,
        "arena_rank_bootstrap": [
            {k: v for k, v in b.items() if k not in ("lower", "upper", "competitors")} for b in booted
        ],
        "versions": cold.get("versions"),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_range_before_runs": [min(loads), max(loads)],
            "load_average_end": [round(x, 2) for x in os.getloadavg()],
        },
    }
    lines = [
        f"# Ratings against arena-rank and FastChat: {N_VOTES:,} votes, {N_MODELS} models, {TIES:.0%} ties",
        "",
        f"{REPEATS} interleaved runs; median (worst) wall seconds, CPU seconds (median); {os.cpu_count()} CPUs, "
        f"1-minute load "
        f"average {min(loads)}-{max(loads)} before the runs (the machine is shared with other work). arena-rank "
        f"{(cold.get('versions') or {}).get('arena_rank')} with JAX {(cold.get('versions') or {}).get('jax')}; its "
        f"first run, "
        f"with JAX's compile, took {cold['wall_s']:.2f} s and is left out.",
        "",
        "| case | wall s, median (worst) | CPU s, median | load before |",
        "|---|---|---|---|",
    ]
    for label, c in cases.items():
        cpu_text = f"{c['cpu_median_s']}" if "cpu_median_s" in c else "-"
        load_text = f"{min(c['loads_before'])}-{max(c['loads_before'])}" if "loads_before" in c else "(same runs)"
        lines.append(f"| {label} | {c['median_s']} ({c['worst_s']}) | {cpu_text} | {load_text} |")
    lines += [
        "",
        "| speedup (theirs / ours) | median | their best / our worst | median of per-run ratios |",
        "|---|---|---|---|",
    ]
    lines += [f"| {label} | {s['median']}x | {s['worst']}x | {s['per_run_median']}x |" for label, s in speedups.items()]
    lines += [
        "",
        f"Goal: ours (100 bootstrap rounds) at least {GOAL:g}x arena-rank's sandwich fit: "
        f"{'met' if out['goal_met_at_median'] else 'NOT met'} at the median here ({anchor_ratio['median']}x, worst "
        f"{anchor_ratio['worst']}x).",
        "",
        "| agreement | value |",
        "|---|---|",
    ]
    lines += [
        f"| {k} | {[round(x, 6) for x in v] if isinstance(v, list) else round(v, 5)} |" for k, v in agreement.items()
    ]
    lines += ["", "| median 95% half-width, points | value |", "|---|---|"]
    lines += [f"| {k} | {v:.2f} |" for k, v in halves.items()]
    if booted:
        lines += ["", "arena-rank's bootstrap, once each (its own process and pool, killed at the timeout):", ""]
        for b in booted:
            lines.append(
                f"- {b['rounds']} rounds, start method {b['start_method']}: "
                + (
                    f"hung (killed after {b['timeout_s']} s)"
                    if b.get("hung")
                    else f"{b['bootstrap_s']:.1f} s, {b['bootstrap_s'] / b['rounds']:.1f} s a round (100 rounds: about "
                    f"{100 * b['bootstrap_s'] / b['rounds']:.0f} s), load before {b['load_before']}"
                )
            )
        lines.append(
            "  (its CPU time is not counted: the pool's processes are the forkserver's children, not the bench's)"
        )
    lines += ["", "Command: `make bench-anchors-env && BENCH_PUBLISH=1 .venv/bin/python bench/bench_anchors.py`.", ""]
    write_results("anchors", out, lines)


if __name__ == "__main__":
    main()
