"""The topic explorer's maths at scale (``evaluators.arena.topics`` and ``conditioned``): a full refit
(TF-IDF vocabulary, vectors projected onto 256 directions, two-level k-means, c-TF-IDF labels), an
incremental update (10% new prompts vectorised with the frozen vocabulary, assigned, the refit rule
checked), the prompt-conditioned ranking's latency, and the held-out comparison the topics page shows,
at 100,000 battles and (BENCH_SIZES=100000,1000000) 1,000,000. Each case runs in its own process, so
its peak memory (ru_maxrss) is its own; the simulated battles' memory is given apart (``data MiB``).

The battles are simulated here: 8 planted topics, each with 40 words of its own (random letter strings,
seeded) and 600 words shared by all, 12 words a prompt (60% from its topic), 20 models whose true
ratings differ by topic. The adjusted Rand index of the refit's top topics against the planted ones is
given beside its time (projection and k-means at that size, not only their speed).

    .venv/bin/python bench/bench_topics.py [--publish]     (BENCH_SIZES, BENCH_REPEATS: default 100000 and 3)"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import load_average, spread, write_results

SIZES = [int(s) for s in os.environ.get("BENCH_SIZES", "100000").split(",")]
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
TOPICS, OWN, SHARED, WORDS, MODELS = 8, 40, 600, 12, 20
QUERIES = 20


def _words(rng: np.random.Generator, n: int) -> list[str]:
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(letters[rng.integers(0, 26, 7)]) for _ in range(n)]


def simulate(n: int, seed: int = 0):  # type: ignore[no-untyped-def]
    from evaluators.arena.rating_types import BattleArrays

    words = np.random.default_rng(0)  # the same words and true ratings in every draw
    own = [_words(words, OWN) for _ in range(TOPICS)]
    shared = _words(words, SHARED)
    true = words.normal(1000, 100, (TOPICS, MODELS))
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, TOPICS, n)
    pick_own = rng.random((n, WORDS)) < 0.6
    own_i = rng.integers(0, OWN, (n, WORDS))
    shared_i = rng.integers(0, SHARED, (n, WORDS))
    prompts = [
        " ".join(own[t][j] if o else shared[s] for o, j, s in zip(po, oi, si))
        for t, po, oi, si in zip(topic.tolist(), pick_own.tolist(), own_i.tolist(), shared_i.tolist())
    ]
    a = rng.integers(0, MODELS, n)
    b = (a + rng.integers(1, MODELS, n)) % MODELS
    p = 1 / (1 + 10 ** ((true[topic, b] - true[topic, a]) / 400))
    outcome = np.where(rng.random(n) < 0.1, 2, np.where(rng.random(n) < p, 0, 1))
    return prompts, topic, BattleArrays([f"model-{i:02d}" for i in range(MODELS)], a, b, outcome)


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def case(name: str, n: int) -> dict[str, float]:
    """One case in this process: its seconds, the peak memory before it (the data) and after."""
    from evaluators.arena.conditioned import Kernel, conditioned_rating, held_out
    from evaluators.arena.ratings import RatingConfig
    from evaluators.arena.topics import Vocabulary, adjusted_rand_index, assign, fit_topics, refit_due

    prompts, topic, battles = simulate(n)
    fresh = (
        simulate(max(n // 10, 1), seed=1)[0]
        if name == "incremental"
        else simulate(QUERIES, seed=2)[0]
        if name == "query"
        else []
    )
    data = _peak_mib()
    out: dict[str, float] = {}
    if name == "refit":
        started = time.perf_counter()
        vocabulary = Vocabulary.fit(prompts)
        counts = vocabulary.counts(prompts)
        x = vocabulary.vectors(counts)
        model, found = fit_topics(x, counts, vocabulary, k_top=8, k_sub=4, seed=0)
        out["seconds"] = time.perf_counter() - started
        out["ari"] = adjusted_rand_index(topic, found.topic)
        out["vocabulary"] = len(vocabulary.words)
    else:
        vocabulary = Vocabulary.fit(prompts)
        x = vocabulary.vectors(prompts)
        model, _ = fit_topics(x, None, vocabulary, k_top=8, k_sub=4, seed=0)
        if name == "incremental":
            started = time.perf_counter()
            placed = assign(model, vocabulary.vectors(fresh))
            reason = refit_due(model, placed)
            out["seconds"] = time.perf_counter() - started
            out["refit_due"] = float(bool(reason))
        elif name == "query":
            config = RatingConfig(interval="sandwich", robustness=False)
            times, ranked, effective = [], 0, []
            for question in fresh:  # new questions, not among the battles' prompts
                started = time.perf_counter()
                got = conditioned_rating(battles, x, vocabulary.vectors([question])[0], Kernel(), config)
                times.append(time.perf_counter() - started)
                ranked += got.result is not None
                effective.append(got.effective_votes)
            out["seconds"] = float(np.median(times))
            out["worst"] = float(max(times))
            out["ranked"] = ranked
            out["effective_votes"] = float(np.median(effective))
        elif name == "held_out":
            started = time.perf_counter()
            report = held_out(battles, x, np.full(n, -1), seed=0)
            out["seconds"] = time.perf_counter() - started
            for method, scores in report.methods.items():
                out[f"{method} log_likelihood"] = scores["log_likelihood"]
                out[f"{method} accuracy"] = scores["accuracy"]
    out["data_mib"] = data
    out["peak_mib"] = _peak_mib()
    return out


CASES = ("refit", "incremental", "query", "held_out")
TITLES = {
    "refit": "full refit (vocabulary, vectors, 8 topics x 4 subtopics, labels)",
    "incremental": "incremental: 10% new prompts vectorised, assigned, rule checked",
    "query": f"for-prompt ranking, one question (median of {QUERIES}; worst)",
    "held_out": "held-out comparison (500 test votes, each its own conditioned fit)",
}


def main() -> None:
    if len(sys.argv) >= 4 and sys.argv[1] == "--case":
        print(json.dumps(case(sys.argv[2], int(sys.argv[3]))))
        return
    runs: dict[str, list[dict[str, float]]] = {}
    loads: list[float] = []
    for n in SIZES:
        for name in CASES:
            for _ in range(REPEATS if name != "held_out" and n <= 100_000 else 1):
                loads.append(load_average())
                done = subprocess.run(
                    [sys.executable, __file__, "--case", name, str(n)],
                    capture_output=True,
                    text=True,
                    check=True,
                    env={**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
                )
                runs.setdefault(f"{name} {n}", []).append(json.loads(done.stdout.strip().splitlines()[-1]))
                print(name, n, runs[f"{name} {n}"][-1], flush=True)
        write(runs, loads)


def write(runs: dict[str, list[dict[str, float]]], loads: list[float]) -> None:
    """The table of every size measured so far (written after each size, so a long run keeps what it has)."""
    sizes = [n for n in SIZES if f"held_out {n}" in runs]
    lines = ["| battles | case | seconds, median (worst) | peak MiB (data MiB) | also |", "|---|---|---|---|---|"]
    for n in sizes:
        for name in CASES:
            got = runs[f"{name} {n}"]
            seconds = spread([r["seconds"] for r in got], "{:.3f}", higher_is_better=False)
            if name == "query":
                seconds = f"{np.median([r['seconds'] for r in got]):.3f} ({max(r['worst'] for r in got):.3f})"
            also = ""
            if name == "refit":
                also = (
                    f"ARI {min(r['ari'] for r in got):.3f} against the 8 planted topics (lowest run); "
                    f"{int(got[0]['vocabulary'])} words"
                )
            elif name == "query":
                also = (
                    f"{int(got[0]['ranked'])} of {QUERIES} new questions ranked (the rest declined); median "
                    f"{got[0]['effective_votes']:.0f} effective votes"
                )
            elif name == "held_out":
                r = got[0]
                also = "; ".join(
                    f"{m}: log-lik {r[m + ' log_likelihood']:.4f}, accuracy {r[m + ' accuracy']:.3f}"
                    for m in ("global", "prompt-conditioned")
                )
            lines.append(
                f"| {n:,} | {TITLES[name]} | {seconds} | {max(r['peak_mib'] for r in got):.0f} "
                f"({max(r['data_mib'] for r in got):.0f}) | {also} |"
            )
    lines += [
        "",
        f"{REPEATS} runs per case at up to 100,000 battles (above, and the held-out comparison: 1 run), each in its "
        f"own process, one BLAS thread; "
        f"load average (1 min) before the runs: {min(loads)}-{max(loads)}. Command: `.venv/bin/python "
        f"bench/bench_topics.py`.",
    ]
    write_results("topics", {"sizes": sizes, "runs": runs, "loads": loads}, lines)


if __name__ == "__main__":
    main()
