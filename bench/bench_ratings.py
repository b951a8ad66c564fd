"""Rating time for 1,000,000 votes among 100 models: raw Bradley-Terry with 100 bootstrap rounds,
raw with the sandwich, and style-controlled (17 features) with sandwich, score-bootstrap and (a few
rounds of) exact-bootstrap intervals; and FastChat's current method (compute_bt and
compute_bootstrap_bt, reproduced in bench/fastchat_side.py) on the same votes in the same run, with
its default process pool and with one process, and how far its ratings are from ours. Median and
worst of 5 runs; results in bench/results/ratings.json and .md.

    .venv/bin/python bench/bench_ratings.py      (needs make toolchains: the data sandbox's numpy, scipy and pandas)"""

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

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import results_dir
from evaluators.arena.ratings import BattleArrays, BattleRecord, RatingConfig, rate
from evaluators.arena.style import STYLE_FEATURES

N_VOTES = int(os.environ.get("BENCH_VOTES", "1000000"))
N_MODELS = 100
#: BENCH_RAW_ONLY=1: only the raw cases and FastChat's raw method (compute_bt, compute_bootstrap_bt): the anchor
RAW_ONLY = os.environ.get("BENCH_RAW_ONLY", "") == "1"
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))
STYLE_BOOT_ROUNDS = 10
FASTCHAT_STYLE_ROUNDS = 2


def votes(n: int, m: int, seed: int = 0) -> BattleArrays:
    rng = np.random.default_rng(seed)
    true = rng.normal(1000, 100, m)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    k = len(STYLE_FEATURES)
    fa, fb = rng.gamma(2.0, 50.0, (n, k)), rng.gamma(2.0, 50.0, (n, k))
    fa[:, 5:] = fa[:, 5:] > 100  # source-category and citation-style features are 0/1
    fb[:, 5:] = fb[:, 5:] > 100
    logit = (true[a] - true[b]) * np.log(10) / 400 + 0.8 * (fa[:, 0] - fb[:, 0]) / (fa[:, 0] + fb[:, 0] + 1)
    p = 1 / (1 + np.exp(-logit))
    tie = rng.random(n) < 0.2
    outcome = np.where(tie, 2, np.where(rng.random(n) < np.clip((p - 0.1) / 0.8, 0, 1), 0, 1))
    return BattleArrays(
        [f"model-{i:03d}" for i in range(m)], a, b, outcome, fa, fb, STYLE_FEATURES, rng.uniform(0.5, 2.0, n)
    )


def timed(fn, repeats: int = REPEATS, cpu: list[float] | None = None) -> tuple[float, list[float], object]:
    """Median wall time, every run's wall time and the last result; each run's CPU time appended to ``cpu``."""
    times, result = [], None
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        result = fn()
        times.append(time.perf_counter() - t)
        if cpu is not None:
            cpu.append(time.process_time() - c)
    return statistics.median(times), times, result


def fastchat_runs(arr: BattleArrays, repeats: int) -> list[dict]:
    """FastChat's current method (bench/fastchat_side.py: compute_bootstrap_bt with 100 rounds, then
    compute_bt, as its report runs them) on the same votes, in a process of its own with the data
    sandbox's numpy, scipy and pandas; each run twice, with its default pool (os.cpu_count() processes)
    and with one process, interleaved; the first run also times its style control's fit and two
    bootstrap refits (extrapolated to 100)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "votes.npz"
        np.savez(path, a=arr.a, b=arr.b, outcome=arr.outcome, fa=arr.features_a, fb=arr.features_b, m=len(arr.models))
        env = {**os.environ, "PYTHONPATH": str(REPO / ".toolchains" / "python-analysis"), "PYTHONWARNINGS": "ignore"}
        runs = []
        for i in range(repeats):
            for pool in (0, 1):
                style = ["--style-rounds", str(FASTCHAT_STYLE_ROUNDS)] if i == 0 and pool == 0 and not RAW_ONLY else []
                load = os.getloadavg()[0]
                done = subprocess.run(
                    [
                        "/usr/bin/python3",
                        "-s",
                        str(REPO / "bench" / "fastchat_side.py"),
                        str(path),
                        "--rounds",
                        "100",
                        "--num-cpu",
                        str(pool),
                        *style,
                    ],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=True,
                )
                run = json.loads(done.stdout.strip().splitlines()[-1])
                run["pool"] = "default" if pool == 0 else "one process"
                run["load_before"] = round(load, 2)
                if style:
                    run["style_100_s"] = run["style_fit_s"] + 100 * run["style_bootstrap_s"] / FASTCHAT_STYLE_ROUNDS
                runs.append(run)
                print(f"FastChat's method ({run['pool']}): raw {run['raw_s']:.1f} s", flush=True)
    return runs


def main() -> None:
    arr = votes(N_VOTES, N_MODELS)
    ref = arr.models[0]
    cases = {
        "raw, bootstrap 100 rounds": RatingConfig(reference=ref, robustness=False),
        "raw, bootstrap 100 rounds + robustness": RatingConfig(reference=ref),
        "raw, sandwich": RatingConfig(reference=ref, interval="sandwich", robustness=False),
        "raw, sandwich, inverse-propensity weights": RatingConfig(
            reference=ref, interval="sandwich", use_weights=True, robustness=False
        ),
        "style control, sandwich": RatingConfig(
            reference=ref, interval="sandwich", style_control=True, robustness=False
        ),
        "style control, score bootstrap 100 rounds": RatingConfig(reference=ref, style_control=True, robustness=False),
        f"style control, exact bootstrap {STYLE_BOOT_ROUNDS} rounds": RatingConfig(
            reference=ref,
            style_control=True,
            robustness=False,
            bootstrap_rounds=STYLE_BOOT_ROUNDS,
            exact_style_bootstrap=True,
        ),
    }
    if RAW_ONLY:
        cases = {label: config for label, config in cases.items() if label.startswith("raw")}
    rows = []
    for label, config in cases.items():
        repeats = 1 if "exact bootstrap" in label else REPEATS
        load = os.getloadavg()[0]
        cpu: list[float] = []
        median, times, result = timed(lambda: rate(arr, config), repeats, cpu)  # noqa: B023 (called in this iteration)
        rows.append(
            {
                "case": label,
                "median_s": round(median, 3),
                "worst_s": round(max(times), 3),
                "runs_s": [round(t, 3) for t in times],
                "cpu_median_s": round(statistics.median(cpu), 3),
                "cpu_worst_s": round(max(cpu), 3),
                "load_before": round(load, 2),
                "robustness": result.robustness,
            }
        )
        print(f"{label}: median {median:.2f} s of {[round(t, 2) for t in times]}", flush=True)
    extrapolated = None if RAW_ONLY else round(rows[-1]["median_s"] / STYLE_BOOT_ROUNDS * 100, 1)
    fastchat = fastchat_runs(arr, REPEATS)
    ours = {r["case"]: r for r in rows}
    mine = ours["raw, bootstrap 100 rounds"]
    compare = []
    for pool in ("default", "one process"):
        theirs = [run["raw_s"] for run in fastchat if run["pool"] == pool]
        their_cpu = [run["raw_cpu_s"] for run in fastchat if run["pool"] == pool]
        compare.append(
            {
                "case": f"raw fit + 100 bootstrap rounds, FastChat's pool: {pool}",
                "ours_median_s": mine["median_s"],
                "ours_worst_s": mine["worst_s"],
                "fastchat_median_s": round(statistics.median(theirs), 2),
                "fastchat_worst_s": round(max(theirs), 2),
                "fastchat_runs_s": [round(t, 2) for t in theirs],
                "speedup_median": round(statistics.median(theirs) / mine["median_s"], 1),
                "speedup_worst": round(min(theirs) / mine["worst_s"], 1),
                "ours_cpu_median_s": mine["cpu_median_s"],
                "fastchat_cpu_median_s": round(statistics.median(their_cpu), 2),
                "speedup_cpu_median": round(statistics.median(their_cpu) / mine["cpu_median_s"], 1),
            }
        )
    anchor = min(compare, key=lambda c: c["fastchat_median_s"])  # the faster of FastChat's two ways: the honest anchor
    style_compare = None
    if not RAW_ONLY:
        styled = next(run for run in fastchat if "style_100_s" in run)
        style_mine = ours["style control, score bootstrap 100 rounds"]
        style_compare = {
            "case": "style control fit + 100 bootstrap rounds (FastChat refits each round; ours: score bootstrap)",
            "ours_median_s": style_mine["median_s"],
            "fastchat_s": round(styled["style_100_s"], 1),
            "speedup": round(styled["style_100_s"] / style_mine["median_s"], 1),
            "ours_exact_100_extrapolated_s": extrapolated,
        }
    # agreement: FastChat's compute_bt against our fit anchored the same way (the mean at 1000)
    mean_fit = rate(arr, RatingConfig(robustness=False, interval="sandwich", min_votes=1))
    ours_points = {m.name: m.rating for m in mean_fit.models}
    agreement = max(abs(fastchat[0]["ratings"][name] - ours_points[name]) for name in arr.models)

    # The BattleRecord path (what the site passes): conversion cost per 100,000 records.
    sample = 100_000
    records = [
        BattleRecord(
            arr.models[a],
            arr.models[b],
            ("model_a", "model_b", "tie", "tie (bothbad)")[o],
            dict(zip(STYLE_FEATURES, fa.tolist())),
            dict(zip(STYLE_FEATURES, fb.tolist())),
        )
        for a, b, o, fa, fb in zip(
            arr.a[:sample], arr.b[:sample], arr.outcome[:sample], arr.features_a[:sample], arr.features_b[:sample]
        )
    ]
    convert, _, _ = timed(lambda: BattleArrays.from_records(records, STYLE_FEATURES))
    convert_raw, _, _ = timed(lambda: BattleArrays.from_records(records))

    out = {
        "note": "times include everything rate() does on BattleArrays (counting, matrices, fits, intervals)",
        "votes": N_VOTES,
        "models": N_MODELS,
        "style_features": len(STYLE_FEATURES),
        "repeats": REPEATS,
        "cases": rows,
        "style_bootstrap_100_rounds_extrapolated_s": extrapolated,
        "against_fastchat": compare,
        "anchor": anchor["case"],
        "goal_20x_met_at_median": anchor["speedup_median"] >= 20,
        "style_against_fastchat": style_compare,
        "max_rating_difference_points": round(agreement, 5),
        "fastchat_runs": [{k: v for k, v in run.items() if k not in ("ratings", "quantiles")} for run in fastchat],
        "records_to_arrays_per_100k_s": {"with style features": round(convert, 3), "without": round(convert_raw, 3)},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "load_average": [round(x, 2) for x in os.getloadavg()],
        },
    }
    results = results_dir()
    results.mkdir(parents=True, exist_ok=True)
    (results / "ratings.json").write_text(json.dumps(out, indent=2) + "\n")
    loads = [run["load_before"] for run in fastchat]
    lines = [
        f"# Ratings: {N_VOTES:,} votes, {N_MODELS} models",
        "",
        f"Median and worst of {REPEATS} runs (one for the exact style bootstrap); {os.cpu_count()} CPUs, load average "
        f"at the end "
        f"{out['machine']['load_average']}, before FastChat's runs {min(loads)}-{max(loads)} (the machine is shared "
        f"with other "
        "work, so times are noisy).",
        "",
        "| against FastChat's current method, same votes, same run | ours median (worst) s | FastChat median (worst) "
        "s | speedup median (worst against its best) | CPU s ours / FastChat (medians) | speedup in CPU time |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {c['case']} | {c['ours_median_s']} ({c['ours_worst_s']}) | {c['fastchat_median_s']} "
        f"({c['fastchat_worst_s']}) | "
        f"{c['speedup_median']}x ({c['speedup_worst']}x) | {c['ours_cpu_median_s']} / {c['fastchat_cpu_median_s']} | "
        f"{c['speedup_cpu_median']}x |"
        for c in compare
    ]
    if style_compare:
        lines += [
            f"| {style_compare['case']} | {style_compare['ours_median_s']} | {style_compare['fastchat_s']} (one run, "
            f"2 refits "
            f"extrapolated) | {style_compare['speedup']}x |"
        ]
    met = anchor["speedup_median"] >= 20
    lines += [
        "",
        f"The anchor is the faster of FastChat's two ways: {anchor['case']}, {anchor['speedup_median']}x "
        f"({anchor['speedup_worst']}x our worst run against its best, {anchor['speedup_cpu_median']}x in CPU time): "
        f"the 20x goal "
        f"is {'met' if met else 'NOT met'} at the median. FastChat's "
        "method is reproduced in bench/fastchat_side.py (FastChat's current compute_bt and compute_bootstrap_bt: "
        "unique "
        "(model_a, model_b, outcome) rows counted, scipy's L-BFGS-B from zeros per fit, 100 multinomial bootstrap "
        "rounds "
        "over those rows in a multiprocessing pool), checked in tests/arena_engine/test_fastchat_reproduction.py. "
        f"FastChat's compute_bt and our fit (both anchored on the mean at 1000) differ by at most {agreement:.4f} "
        f"rating points "
        "on these votes.",
        "",
        "| case | median s | worst s | runs s | CPU median (worst) s | load before |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['case']} | {r['median_s']} | {r['worst_s']} | {', '.join(map(str, r['runs_s']))} | {r['cpu_median_s']} "
        f"({r['cpu_worst_s']}) | {r['load_before']} |"
        for r in rows
    ]
    robust = rows[1]["robustness"] or {}
    if extrapolated is not None:
        lines += [
            "",
            f"Style control with a 100-round exact bootstrap (refit per round), extrapolated from {STYLE_BOOT_ROUNDS} "
            f"rounds: {extrapolated} s.",
        ]
    lines += [
        "",
        f"BattleRecord -> arrays per 100,000 records: {convert:.2f} s with style features, {convert_raw:.2f} s "
        f"without.",
        f"Robustness on this synthetic set: {robust.get('votes_to_flip_top')} removed votes change the top model "
        f"({robust.get('top_model')} -> {robust.get('new_top_model')}).",
        "",
    ]
    (results / "ratings.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
