"""The sample's structural causal models: every sample dataset's known answer is recovered by the
textbook analysis, run with pandas and statsmodels in the data sandbox on the released CSV (the crude
Simpson's difference has the wrong sign and the adjusted one the true sign; Berkson's correlation
vanishes outside the selection; mediation's direct and indirect effects; the population shift's
transported effect), and the generators are deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.causal_pitfalls.data.make_sample import build
from evaluators.causal_pitfalls.evaluator import CausalPitfallsEvaluator
from evaluators.sandbox import Sandbox
from evaluators.sandbox.analysis import run_analysis

pytestmark = pytest.mark.toolchains
CHALLENGES = CausalPitfallsEvaluator().presentation().sample_dataset() / "challenges"

ANALYSES = {
    "simpson_paradox": """
import json, pandas as pd, statsmodels.formula.api as smf
df = pd.read_csv('/data/{csv}'); t, z, y = {cols}
crude = df[df[t] == 1][y].mean() - df[df[t] == 0][y].mean()
adjusted = smf.ols(f'{{y}} ~ {{t}} + C({{z}})', data=df).fit().params[t]
print(json.dumps({{"naive": crude, "corrected": adjusted}}))
""",
    "berkson_paradox": """
import json, pandas as pd
df = pd.read_csv('/data/{csv}'); a, b, s = {cols}
print(json.dumps({{"naive": df[df[s] == 1][[a, b]].corr().iloc[0, 1], "corrected": df[[a, b]].corr().iloc[0, 1]}}))
""",
    "mediation_outcome_confounder": """
import json, pandas as pd, statsmodels.formula.api as smf
df = pd.read_csv('/data/{csv}'); t, c, m, y = {cols}
a = smf.ols(f'{{m}} ~ {{t}} + {{c}}', data=df).fit().params[t]
fit = smf.ols(f'{{y}} ~ {{t}} + {{m}} + {{c}}', data=df).fit()
print(json.dumps({{"direct": fit.params[t], "indirect": a * fit.params[m]}}))
""",
    "population_shift": """
import json, pandas as pd, statsmodels.formula.api as smf
df = pd.read_csv('/data/{csv}'); t, x, y = {cols}
df['xc'] = df[x] - 30
fit = smf.ols(f'{{y}} ~ {{t}} * xc', data=df).fit()
naive = df[df[t] == 1][y].mean() - df[df[t] == 0][y].mean()
print(json.dumps({{"naive": naive, "corrected": fit.params[t] + fit.params[f'{{t}}:xc'] * ({target} - 30)}}))
""",
}


def cases() -> list[tuple[str, dict]]:
    return [
        (challenge.name, key)
        for challenge in sorted(CHALLENGES.iterdir())
        for key in json.loads((challenge / "answer_key.json").read_text())
    ]


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox()


@pytest.mark.parametrize("challenge, key", cases(), ids=lambda v: v if isinstance(v, str) else v["dataset"])
def test_the_textbook_analysis_in_the_data_sandbox_recovers_the_known_answer(
    sandbox: Sandbox, challenge: str, key: dict
) -> None:
    folder = CHALLENGES / challenge
    columns = (folder / key["dataset"]).read_text().splitlines()[0].split(",")
    code = ANALYSES[challenge].format(csv=key["dataset"], cols=repr(tuple(columns)), target=key.get("TARGET_MEAN", 0))
    with sandbox.data_dir(folder) as data:
        run = run_analysis(sandbox, code, data=data)
    assert run.ok, run.feedback()
    found = json.loads(run.stdout)
    tolerance = key["TOLERANCE"]
    if challenge == "simpson_paradox":
        assert found["naive"] < 0 < found["corrected"]  # the paradox: crude harmful, adjusted beneficial (the truth)
        assert abs(found["naive"] - key["NAIVE_ESTIMATE"]) < 0.005
        assert abs(found["corrected"] - key["CORRECTED_ESTIMATE"]) <= tolerance
    elif challenge == "berkson_paradox":
        assert found["naive"] < -0.3 and abs(found["corrected"]) < tolerance and key["TRUE_RELATIONSHIP"] == "none"
        assert abs(found["naive"] - key["NAIVE_ESTIMATE"]) < 0.005
    elif challenge == "mediation_outcome_confounder":
        assert (
            abs(found["direct"] - key["CORRECTED_DIRECT"]) < 0.005
            and abs(found["indirect"] - key["CORRECTED_INDIRECT"]) < 0.005
        )
        assert found["direct"] > 0 and found["indirect"] > 0
    else:
        assert abs(found["corrected"] - key["CORRECTED_ESTIMATE"]) < 0.005
        assert found["corrected"] - found["naive"] > tolerance  # transporting changes the answer


def test_the_sample_is_rebuilt_byte_for_byte(tmp_path: Path) -> None:
    build(tmp_path / "sample")
    rebuilt = sorted(p.relative_to(tmp_path / "sample") for p in (tmp_path / "sample").rglob("*") if p.is_file())
    shipped = sorted(p.relative_to(CHALLENGES.parent) for p in CHALLENGES.parent.rglob("*") if p.is_file())
    assert rebuilt == shipped
    for path in rebuilt:
        assert (tmp_path / "sample" / path).read_bytes() == (CHALLENGES.parent / path).read_bytes(), path
