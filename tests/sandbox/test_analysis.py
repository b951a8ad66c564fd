"""The data sandbox: a Python program with the pinned analysis libraries reads a dataset mounted
read-only at /data, cannot write it, the libraries or anything else outside /tmp, cannot reach the
network or install anything, runs on one BLAS thread, and is held to its time, memory and output
limits; a failure is told back in words a model can act on."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from evaluators.sandbox import Sandbox
from evaluators.sandbox.analysis import ANALYSIS_LIMITS, analysis_unavailable, analysis_versions, run_analysis

pytestmark = pytest.mark.toolchains


@pytest.fixture()
def data(sandbox: Sandbox, tmp_path: Path):
    rows = ["x,t,y"] + [f"{i % 7},{i % 2},{2 * (i % 7) + 3 * (i % 2) + (i % 5) * 0.1}" for i in range(400)]
    (tmp_path / "challenge.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "notes.txt").write_text("kept\n")
    with sandbox.data_dir(tmp_path) as mounted:
        yield mounted


def test_the_libraries_are_installed_and_pinned() -> None:
    assert analysis_unavailable() is None
    assert set(analysis_versions()) == {
        "numpy",
        "pandas",
        "scipy",
        "statsmodels",
        "scikit-learn",
        "matplotlib",
        "seaborn",
    }


def test_pandas_statsmodels_and_sklearn_analyse_the_mounted_data(sandbox: Sandbox, data) -> None:
    code = """
import json, numpy as np, pandas as pd, scipy.stats, statsmodels.formula.api as smf
from sklearn.linear_model import LinearRegression
from threadpoolctl import threadpool_info
df = pd.read_csv('/data/challenge.csv')
fit = smf.ols('y ~ x + t', data=df).fit()
lr = LinearRegression().fit(df[['x', 't']], df['y'])
print(json.dumps({"rows": len(df), "t": round(fit.params['t'], 2), "x": round(float(lr.coef_[0]), 2),
                  "nested": open('/data/nested/notes.txt').read().strip(),
                  "threads": sorted({p['num_threads'] for p in threadpool_info()}),
                  "r": round(scipy.stats.pearsonr(df['x'], df['y'])[0], 2), "pandas": pd.__version__}))
"""
    run = run_analysis(sandbox, code, data=data)
    assert run.ok, run.feedback()
    found = json.loads(run.stdout)
    assert found["rows"] == 400 and found["t"] == 3.0 and found["x"] == 2.0 and found["nested"] == "kept"
    assert found["threads"] == [1], found  # one BLAS/OpenMP thread per program
    assert found["pandas"] == analysis_versions()["pandas"]


def test_the_data_and_the_libraries_are_read_only_and_there_is_no_network(sandbox: Sandbox, data) -> None:
    code = """
import os, socket, subprocess, sys
results = {}
for path in ('/data/challenge.csv', '/data/new.csv', '/opt/toolchains/python-analysis/pandas/evil.py', '/usr/evil'):
    try:
        open(path, 'a').write('x')
        results[path] = 'written'
    except OSError as exc:
        results[path] = type(exc).__name__
try:
    socket.create_connection(('1.1.1.1', 80), timeout=3)
    results['net'] = 'connected'
except OSError as exc:
    results['net'] = type(exc).__name__
pip = subprocess.run([sys.executable, '-m', 'pip', 'install', '--no-input', 'requests'], capture_output=True, text=True)
results['pip'] = pip.returncode
open('/tmp/scratch.txt', 'w').write('scratch is fine')
print(results)
"""
    run = run_analysis(sandbox, code, data=data)
    assert run.ok, run.feedback()
    results = eval(run.stdout)  # our own program's repr of a dict of strings and ints
    assert all(
        results[p] != "written"
        for p in ("/data/challenge.csv", "/data/new.csv", "/opt/toolchains/python-analysis/pandas/evil.py", "/usr/evil")
    ), results
    assert results["net"] != "connected" and results["pip"] != 0, results
    assert (Path(data.path) / "challenge.csv").read_text().startswith("x,t,y")


def test_limits_end_a_program_and_the_feedback_says_which(sandbox: Sandbox, data) -> None:
    quick = replace(ANALYSIS_LIMITS, wall_seconds=3.0, cpu_seconds=3.0)
    slow = run_analysis(sandbox, "while True:\n    pass\n", data=data, limits=quick)
    assert slow.status == "timeout" and "time limit" in slow.feedback()
    chatty = run_analysis(sandbox, "print('y' * 200_000)\n", data=data)
    assert chatty.status == "output_limit" and "printed more than 64 KiB" in chatty.feedback()
    hungry = run_analysis(sandbox, "import numpy as np\na = np.ones((40_000, 10_000))\nprint(a.sum())\n", data=data)
    assert hungry.status == "memory_limit", hungry
    broken = run_analysis(sandbox, "import pandas as pd\npd.read_csv('/data/missing.csv')\n", data=data)
    assert broken.status == "runtime_error"
    assert "the program failed" in broken.feedback() and "FileNotFoundError" in broken.feedback()
    syntax = run_analysis(sandbox, "print(\n", data=data)
    assert syntax.status == "runtime_error" and "SyntaxError" in syntax.feedback()
    silent = run_analysis(sandbox, "x = 1\n")
    assert silent.ok and silent.feedback() == "(the program printed nothing)"
