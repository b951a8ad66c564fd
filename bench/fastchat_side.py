"""FastChat's rating method, reproduced for bench_ratings.py (FastChat is not installed; its code is not
copied): the same steps, the same libraries. Runs under the Debian Python with the data sandbox's
pandas and scikit-learn, reads votes from an .npz and prints timings as JSON.

- Raw: pivot tables of wins, ties and losses per pair (pandas), a design of two rows per ordered pair
  filled in a Python loop, scikit-learn's LogisticRegression (lbfgs, no penalty, tol 1e-6) with the
  counts as sample weights; the bootstrap resamples the battle table (``DataFrame.sample(frac=1,
  replace=True)``) and repeats the whole computation each round.
- Style control: one row per battle (a tie as two half-weight rows), model columns +1/-1 plus the
  normalized style features, the same LogisticRegression; the bootstrap refits on resampled battles.

    PYTHONPATH=.toolchains/python-analysis /usr/bin/python3 -s bench/fastchat_side.py VOTES.npz RAW_ROUNDS STYLE_ROUNDS
"""
from __future__ import annotations

import json
import math
import sys
import time

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

OUTCOMES = ("model_a", "model_b", "tie", "tie (bothbad)")


def mle_ratings(df: pd.DataFrame, scale: float = 400.0, base: float = 10.0, init: float = 1000.0) -> pd.Series:
    a_win = pd.pivot_table(df[df["winner"] == "model_a"], index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    b_win = pd.pivot_table(df[df["winner"] == "model_b"], index="model_a", columns="model_b", aggfunc="size", fill_value=0)
    tie = pd.pivot_table(df[df["winner"].isin(["tie", "tie (bothbad)"])], index="model_a", columns="model_b",
                         aggfunc="size", fill_value=0)
    tie = tie + tie.T
    win = a_win * 2 + b_win.T * 2 + tie
    models = pd.Series(np.arange(len(win.index)), index=win.index)
    p = len(models)
    x = np.zeros([p * (p - 1) * 2, p])
    y = np.zeros(p * (p - 1) * 2)
    weights = []
    row = 0
    for m_a in win.index:
        for m_b in win.columns:
            if m_a == m_b or math.isnan(win.loc[m_a, m_b]) or math.isnan(win.loc[m_b, m_a]):
                continue
            x[row, models[m_a]], x[row, models[m_b]], y[row] = math.log(base), -math.log(base), 1.0
            weights.append(win.loc[m_a, m_b])
            x[row + 1, models[m_a]], x[row + 1, models[m_b]], y[row + 1] = math.log(base), -math.log(base), 0.0
            weights.append(win.loc[m_b, m_a])
            row += 2
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-6)  # no penalty
    lr.fit(x[:row], y[:row], sample_weight=weights)
    return pd.Series(scale * lr.coef_[0] + init, index=models.index)


def style_fit(a: np.ndarray, b: np.ndarray, outcome: np.ndarray, fa: np.ndarray, fb: np.ndarray, m: int) -> np.ndarray:
    n = len(a)
    diff = (fa - fb) / (fa + fb + 1.0)
    diff = (diff - diff.mean(axis=0)) / np.where(diff.std(axis=0) > 0, diff.std(axis=0), 1.0)
    x = np.zeros((n, m + diff.shape[1]))
    x[np.arange(n), a] = math.log(10)
    x[np.arange(n), b] = -math.log(10)
    x[:, m:] = diff
    tie = outcome >= 2
    xs = np.vstack([x[~tie], x[tie], x[tie]])
    ys = np.concatenate([(outcome[~tie] == 0).astype(float), np.ones(tie.sum()), np.zeros(tie.sum())])
    ws = np.concatenate([np.ones((~tie).sum()), np.full(tie.sum(), 0.5), np.full(tie.sum(), 0.5)])
    lr = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-6)  # no penalty
    lr.fit(xs, ys, sample_weight=ws)
    return lr.coef_[0]


def main() -> None:
    data = np.load(sys.argv[1])
    raw_rounds, style_rounds = int(sys.argv[2]), int(sys.argv[3])
    models = [f"model-{i:03d}" for i in range(int(data["m"]))]
    names = np.array(models, dtype=object)
    df = pd.DataFrame({"model_a": names[data["a"]], "model_b": names[data["b"]], "winner": np.array(OUTCOMES, dtype=object)[data["outcome"]]})
    out = {}
    start = time.perf_counter()
    mle_ratings(df)
    for _ in range(raw_rounds):
        mle_ratings(df.sample(frac=1.0, replace=True))
    out["raw_s"] = time.perf_counter() - start
    out["raw_rounds"] = raw_rounds
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    style_fit(data["a"], data["b"], data["outcome"], data["fa"], data["fb"], len(models))
    out["style_fit_s"] = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(style_rounds):
        pick = rng.integers(0, len(data["a"]), len(data["a"]))
        style_fit(data["a"][pick], data["b"][pick], data["outcome"][pick], data["fa"][pick], data["fb"][pick], len(models))
    out["style_round_s"] = (time.perf_counter() - start) / max(1, style_rounds)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
