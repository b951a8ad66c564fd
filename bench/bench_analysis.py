"""The data sandbox against no sandbox: one analysis program (pandas reads a 1,000-row CSV, statsmodels
fits an adjusted regression, scikit-learn a logistic one: the shape of a CausalPitfalls code-assisted
answer) run as a fresh sandboxed process (``evaluators.sandbox.analysis.run_analysis``, the data
mounted at /data) and as a fresh plain process of the same interpreter with the same libraries, in
turns, in the same run. Reports medians, the worst run, the ratio (goal: within 1.5x) and the load.

    .venv/bin/python bench/bench_analysis.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import write_results
from evaluators.sandbox import Sandbox
from evaluators.sandbox.analysis import ANALYSIS_PYTHON, HOST_DIR, analysis_unavailable, run_analysis

PROGRAM = """
import pandas as pd, statsmodels.formula.api as smf
from sklearn.linear_model import LogisticRegression
df = pd.read_csv('{data}/challenge.csv')
naive = smf.ols('y ~ t', data=df).fit().params['t']
adjusted = smf.ols('y ~ t + z', data=df).fit().params['t']
clf = LogisticRegression(max_iter=200).fit(df[['z', 'y']], df['t'])
print(round(naive, 3), round(adjusted, 3), round(float(clf.coef_[0][0]), 3))
"""


def write_data(directory: Path, rows: int = 1000) -> None:
    rng = random.Random(0)
    lines = ["z,t,y"]
    for _ in range(rows):
        z = rng.gauss(0, 1)
        t = 1 if rng.random() < 1 / (1 + 2.718 ** (-2 * z)) else 0
        lines.append(f"{z:.4f},{t},{1.0 * t + 2.0 * z + rng.gauss(0, 1):.4f}")
    (directory / "challenge.csv").write_text("\n".join(lines) + "\n")


def plain(code: str, work: Path) -> float:
    """A fresh unsandboxed process of the same interpreter with the same libraries and environment."""
    env = {k: v.replace("/opt/toolchains/python-analysis", str(HOST_DIR)) for k, v in ANALYSIS_PYTHON.env.items()}
    env.update(PATH="/usr/bin:/bin", HOME=str(work), LANG="C.UTF-8")
    (work / "main.py").write_text(code)
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/python3", "-s", str(work / "main.py")], capture_output=True, text=True, env=env, cwd=work
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the unsandboxed program failed: {done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    missing = analysis_unavailable()
    if missing:
        raise SystemExit(missing)
    sandbox = Sandbox()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        write_data(data)
        sandboxed, unsandboxed = [], []
        with sandbox.data_dir(data) as mounted:
            for _ in range(args.runs):  # in turns, so load changes hit both alike
                start = time.perf_counter()
                run = run_analysis(sandbox, PROGRAM.format(data="/data"), data=mounted)
                sandboxed.append(time.perf_counter() - start)
                if not run.ok:
                    raise SystemExit(f"the sandboxed program failed: {run.feedback()}")
                unsandboxed.append(plain(PROGRAM.format(data=data), Path(tmp)))
    med_s, med_u = statistics.median(sandboxed), statistics.median(unsandboxed)
    load = os.getloadavg()[0]
    result = {
        "runs": args.runs,
        "sandboxed_median_s": round(med_s, 3),
        "sandboxed_worst_s": round(max(sandboxed), 3),
        "unsandboxed_median_s": round(med_u, 3),
        "unsandboxed_worst_s": round(max(unsandboxed), 3),
        "ratio": round(med_s / med_u, 2),
        "load_1min": round(load, 2),
    }
    lines = [
        f"Analysis program (pandas read of 1,000 rows, two OLS fits, one logistic fit), {args.runs} runs each, in "
        f"turns; "
        f"load average {load:.2f}",
        "",
        "| | median | worst |",
        "|---|---|---|",
        f"| data sandbox (fresh process, /data mounted) | {med_s:.3f} s | {max(sandboxed):.3f} s |",
        f"| plain process, same interpreter and libraries | {med_u:.3f} s | {max(unsandboxed):.3f} s |",
        f"| ratio (goal: at most 1.5) | {med_s / med_u:.2f} | |",
        "",
    ]
    write_results("analysis", result, lines)


if __name__ == "__main__":
    main()
