"""FastChat's current rating method, reproduced for bench_ratings.py and its check (FastChat is not
installed; its code is not copied): the steps of ``compute_bt``, ``compute_bootstrap_bt``,
``compute_style_control`` and ``compute_bootstrap_style_control`` in FastChat's
``fastchat/serve/monitor/rating_systems.py`` (as of its April 2025 tree), with the same libraries
(numpy, scipy's L-BFGS-B, pandas for the model index and the result table, a multiprocessing pool of
``os.cpu_count()`` processes for the bootstrap unless told otherwise). Runs under the Debian Python
with the data sandbox's numpy, scipy and pandas; reads votes from an .npz and prints one JSON line.

- Raw (``compute_bt``): the votes become an int32 table (model_a id, model_b id, outcome 2/1/0 for
  a win/tie/loss of model_a), its unique rows counted (``np.unique(axis=0)``); the loss is the
  count-weighted log loss of logit = ln(10) (r_a - r_b) (a tie is y = 0.5), its gradient summed per
  model with ``np.add.at``; ``scipy.optimize.minimize`` (L-BFGS-B, from zeros, maxiter 100, gtol
  1e-6); rating = 400 r + 1000, moved so that mixtral-8x7b-instruct-v0.1 is 1114 when it is present.
- Raw bootstrap (``compute_bootstrap_bt``): ``default_rng(0).multinomial(n, counts / n, rounds)``
  over the unique rows, each round's counts divided by n as the weights, every round fitted from zeros
  in the pool; a table of rounds by model, columns ordered by median.
- Style control: per vote (not aggregated), features (f_a - f_b) / (f_a + f_b + 1) z-scored, logit =
  ln(10) (r_a - r_b) + x . beta, loss plus 0.25 |params|^2 (reg 0.5 halved, as FastChat does), the
  same minimizer; its bootstrap draws ``np.random.randint`` indices per round and refits on them.

    PYTHONPATH=.toolchains/python-analysis /usr/bin/python3 -s bench/fastchat_side.py VOTES.npz \
        [--rounds 100] [--style-rounds 0] [--num-cpu N] [--no-style]

The .npz holds ``a``, ``b`` (model indexes), ``outcome`` (0 model_a, 1 model_b, 2/3 tie), ``m`` and
optionally ``names`` (model names, else model-000...), ``fa`` and ``fb`` (style features).
Printed: the times (``bt_s``: compute_bt; ``bootstrap_s``: compute_bootstrap_bt; ``raw_s``: both, as
FastChat's report runs them; ``raw_cpu_s``: the CPU time of both, its pool's processes included), the ratings of
compute_bt and the bootstrap's 2.5/50/97.5% quantiles.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import resource
import sys
import time
from functools import partial

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.special import expit

OUTCOMES = ("model_a", "model_b", "tie", "tie (bothbad)")
BASELINE_MODEL, BASELINE_RATING = "mixtral-8x7b-instruct-v0.1", 1114.0
_SIGNS = np.array([1.0, -1.0])


def model_ids(df: pd.DataFrame) -> tuple[np.ndarray, list[str]]:
    """(n, 2) model ids of each vote, numbered in order of first appearance down model_a then model_b."""
    n = len(df)
    ids, names = pd.factorize(pd.concat([df["model_a"], df["model_b"]]))
    return np.column_stack([ids[:n], ids[n:]]), list(names)


def unique_matchups(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """The distinct (model_a, model_b, outcome) rows with how often each occurs."""
    table = np.ones((len(df), 3), dtype=np.int32)  # outcome column: 1 = tie unless set below
    table[:, :2], names = model_ids(df)
    table[(df["winner"] == "model_a").to_numpy(), 2] = 2
    table[(df["winner"] == "model_b").to_numpy(), 2] = 0
    rows, counts = np.unique(table, return_counts=True, axis=0)
    return rows[:, :2], rows[:, 2].astype(np.float64) / 2.0, names, counts.astype(np.float64)


def loss_and_gradient(
    r: np.ndarray, pairs: np.ndarray, y: np.ndarray, w: np.ndarray, alpha: float
) -> tuple[float, np.ndarray]:
    both = r[pairs]
    p = expit(alpha * (both[:, 0] - both[:, 1]))
    loss = -((np.log(p) * y + np.log(1.0 - p) * (1.0 - y)) * w).sum()
    per_row = -alpha * (y - p) * w
    grad = np.zeros_like(r)
    np.add.at(grad, pairs[:, [0, 1]], per_row[:, None] * _SIGNS)
    return float(loss), grad


def fit(pairs: np.ndarray, y: np.ndarray, w: np.ndarray, m: int, alpha: float, tol: float = 1e-6) -> np.ndarray:
    found = minimize(
        fun=loss_and_gradient,
        x0=np.zeros(m),
        args=(pairs, y, w, alpha),
        jac=True,
        method="L-BFGS-B",
        options={"disp": False, "maxiter": 100, "gtol": tol},
    )
    return np.asarray(found["x"])


def to_points(r: np.ndarray, names: list[str], scale: float = 400.0, init: float = 1000.0) -> np.ndarray:
    points = r * scale + init
    if BASELINE_MODEL in names:
        i = names.index(BASELINE_MODEL)
        points += BASELINE_RATING - points[..., [i]]
    return points


def compute_bt(df: pd.DataFrame, tol: float = 1e-6) -> pd.Series:
    pairs, y, names, w = unique_matchups(df)
    r = fit(pairs, y, w, len(names), math.log(10.0), tol)
    return pd.Series(to_points(r, names), index=names).sort_values(ascending=False)


def compute_bootstrap_bt(df: pd.DataFrame, rounds: int, tol: float = 1e-6, num_cpu: int | None = None) -> pd.DataFrame:
    pairs, y, names, w = unique_matchups(df)
    counts = np.random.default_rng(seed=0).multinomial(n=len(df), pvals=w / w.sum(), size=rounds)
    weights = counts.astype(np.float64) / len(df)
    one = partial(fit, pairs, y, m=len(names), alpha=math.log(10.0), tol=tol)
    with multiprocessing.Pool(num_cpu or os.cpu_count()) as pool:
        found = list(pool.imap_unordered(one, weights))
    table = pd.DataFrame(to_points(np.array(found), names), columns=names)
    return table[table.median().sort_values(ascending=False).index]


def style_inputs(
    df: pd.DataFrame, fa: np.ndarray, fb: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    pairs, names = model_ids(df)
    y = np.full(len(df), 0.5)
    y[(df["winner"] == "model_a").to_numpy()] = 1.0
    y[(df["winner"] == "model_b").to_numpy()] = 0.0
    diff = (fa - fb) / (fa + fb + 1.0)
    x = (diff - diff.mean(axis=0)) / diff.std(axis=0)
    return pairs, x, y, names


def style_loss_and_gradient(
    params: np.ndarray,
    m: int,
    pairs: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    alpha: float,
    reg: float,
    half_reg: float,
) -> tuple[float, np.ndarray]:
    r, beta = params[:m], params[m:]
    both = r[pairs]
    p = expit(alpha * (both[:, 0] - both[:, 1]) + x @ beta)
    loss = -(np.log(p) * y + np.log(1.0 - p) * (1.0 - y)).sum() + half_reg * np.inner(params, params)
    error = y - p
    grad = reg * params
    np.add.at(grad[:m], pairs[:, [0, 1]], (-alpha * error)[:, None] * _SIGNS)
    grad[m:] -= x.T @ error
    return float(loss), grad


def style_fit(
    pairs: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    m: int,
    idx: np.ndarray | None = None,
    reg: float = 0.5,
    tol: float = 1e-6,
) -> np.ndarray:
    if idx is not None:
        pairs, x, y = pairs[idx], x[idx], y[idx]
    found = minimize(
        fun=style_loss_and_gradient,
        x0=np.zeros(m + x.shape[1]),
        args=(m, pairs, x, y, math.log(10.0), reg, reg / 2.0),
        jac=True,
        method="L-BFGS-B",
        options={"disp": False, "maxiter": 100, "gtol": tol},
    )
    return np.asarray(found["x"])


def cpu_s() -> float:
    """CPU seconds of this process and of its pool's processes that have ended (the pool's are ended
    and reaped when its ``with`` block closes)."""
    own, ended = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + ended.ru_utime + ended.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("votes")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument(
        "--style-rounds", type=int, default=0, help="style bootstrap rounds to time (0: no style control)"
    )
    parser.add_argument(
        "--num-cpu", type=int, default=0, help="bootstrap pool size (0: os.cpu_count(), FastChat's default)"
    )
    args = parser.parse_args()
    data = np.load(args.votes, allow_pickle=False)
    m = int(data["m"])
    names = np.array(
        [str(s) for s in data["names"]] if "names" in data else [f"model-{i:03d}" for i in range(m)], dtype=object
    )
    df = pd.DataFrame(
        {
            "model_a": names[data["a"]],
            "model_b": names[data["b"]],
            "winner": np.array(OUTCOMES, dtype=object)[data["outcome"]],
        }
    )
    out: dict[str, object] = {"num_cpu": args.num_cpu or os.cpu_count(), "rounds": args.rounds}
    cpu = cpu_s()
    start = time.perf_counter()
    boot = compute_bootstrap_bt(df, args.rounds, num_cpu=args.num_cpu or None)
    out["bootstrap_s"] = time.perf_counter() - start
    start = time.perf_counter()
    ratings = compute_bt(df)
    out["bt_s"] = time.perf_counter() - start
    out["raw_s"] = out["bootstrap_s"] + out["bt_s"]  # type: ignore[operator]
    out["raw_cpu_s"] = cpu_s() - cpu
    out["ratings"] = {str(k): float(v) for k, v in ratings.items()}
    out["quantiles"] = {str(k): [float(boot[k].quantile(q)) for q in (0.025, 0.5, 0.975)] for k in boot.columns}
    if args.style_rounds:
        pairs, x, y, style_names = style_inputs(df, data["fa"], data["fb"])
        start = time.perf_counter()
        style_fit(pairs, x, y, len(style_names))
        out["style_fit_s"] = time.perf_counter() - start
        idx = np.random.randint(low=0, high=len(df), size=(args.style_rounds, len(df)))
        one = partial(style_fit, pairs, x, y, len(style_names))
        start = time.perf_counter()
        with multiprocessing.Pool(args.num_cpu or os.cpu_count()) as pool:
            list(pool.imap_unordered(one, idx))
        out["style_rounds"] = args.style_rounds
        out["style_bootstrap_s"] = time.perf_counter() - start
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
