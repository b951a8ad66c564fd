"""The reproduction of FastChat's current rating method that ``bench/bench_ratings.py`` measures us
against (``bench/fastchat_side.py``: scipy's L-BFGS-B on counted matchups, its multinomial bootstrap
in a process pool), run as the bench runs it (the Debian Python with the data sandbox's numpy, scipy
and pandas), checked against answers known by hand: one pair's rating gap is its observed log-odds,
a chain of pairs fits each pair's log-odds exactly, the mean rating is 1000 unless FastChat's baseline
model is present (then it is 1114), and on random votes it agrees with our own fit."""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from evaluators.arena.ratings import RatingConfig, rate
from tests.arena_engine.simulation import simulate

REPO = Path(__file__).resolve().parents[2]


def fastchat(tmp_path: Path, a: list[int], b: list[int], outcome: list[int], names: list[str], rounds: int = 4) -> dict:
    path = tmp_path / "votes.npz"
    np.savez(path, a=np.array(a), b=np.array(b), outcome=np.array(outcome), m=len(names), names=np.array(names))
    env = {**os.environ, "PYTHONPATH": str(REPO / ".toolchains" / "python-analysis"), "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [
            "/usr/bin/python3",
            "-s",
            str(REPO / "bench" / "fastchat_side.py"),
            str(path),
            "--rounds",
            str(rounds),
            "--num-cpu",
            "2",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=300,
    )
    result: dict = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def votes_of(pairs: list[tuple[int, int, int, int]]) -> tuple[list[int], list[int], list[int]]:
    """(model_a, model_b, outcome code, how many) rows as vote lists."""
    a, b, o = [], [], []
    for i, j, code, count in pairs:
        a += [i] * count
        b += [j] * count
        o += [code] * count
    return a, b, o


def test_one_pair_gap_is_its_log_odds(tmp_path):
    a, b, o = votes_of([(0, 1, 0, 3), (1, 0, 0, 1)])  # A beats B three times, B beats A once
    found = fastchat(tmp_path, a, b, o, ["A", "B"])
    half = 200 * math.log10(3)  # 400 log10(3) apart, centred on 1000
    assert found["ratings"]["A"] == pytest.approx(1000 + half, abs=1e-3)
    assert found["ratings"]["B"] == pytest.approx(1000 - half, abs=1e-3)
    assert found["rounds"] == 4 and len(found["quantiles"]) == 2


@pytest.mark.parametrize("third", ["C", "mixtral-8x7b-instruct-v0.1"])
def test_a_chain_with_ties_fits_each_pair_and_is_anchored_as_fastchat_anchors(tmp_path, third):
    # A-B: 6 wins, 2 losses, 2 ties (score 7 of 10); B-C: 4 wins, 4 "tie (bothbad)" (score 6 of 8)
    a, b, o = votes_of([(0, 1, 0, 6), (1, 0, 0, 2), (0, 1, 2, 2), (1, 2, 0, 4), (2, 1, 3, 4)])
    r = fastchat(tmp_path, a, b, o, ["A", "B", third])["ratings"]
    assert r["A"] - r["B"] == pytest.approx(400 * math.log10(7 / 3), abs=1e-2)
    assert r["B"] - r[third] == pytest.approx(400 * math.log10(6 / 2), abs=1e-2)
    if third == "C":
        assert (r["A"] + r["B"] + r["C"]) / 3 == pytest.approx(1000.0, abs=1e-6)
    else:
        assert r[third] == pytest.approx(1114.0, abs=1e-9)


def test_it_agrees_with_our_fit_on_random_votes(tmp_path):
    arr = simulate(np.array([1000.0, 1080.0, 950.0, 1020.0, 900.0, 1150.0]), 20_000, seed=5)
    found = fastchat(tmp_path, arr.a.tolist(), arr.b.tolist(), arr.outcome.tolist(), arr.models, rounds=10)
    ours = {
        m.name: m.rating for m in rate(arr, RatingConfig(robustness=False, interval="sandwich", min_votes=1)).models
    }
    assert max(abs(found["ratings"][name] - ours[name]) for name in arr.models) < 0.01
    for name, (low, median, high) in found["quantiles"].items():  # its bootstrap: a spread around the fit
        assert low < high and abs(median - found["ratings"][name]) < 15
