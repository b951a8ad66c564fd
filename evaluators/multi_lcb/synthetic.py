"""Generated LiveCodeBench-format releases of any size, with a correct Python solution for every
problem: what the scale benchmark (``bench/bench_scale.py``) and the memory tests score.

Two kinds of release:

- :func:`replicate_sample`: the 22-problem sample release ``times`` times over, each copy's question
  ids suffixed ``_r<k>`` (the problems, tests and reference solutions of ``data/solutions`` unchanged);
- :func:`write_release`: a release of a given :class:`Shape` (problems x tests, some problems with far
  larger tests), LiveCodeBench v6's shape being :data:`V6_SHAPE`. Its problems are stdin programs of
  three kinds (sum, sort, reverse) whose expected outputs are computed here; private tests use the
  official compressed encoding, as LiveCodeBench's releases do.

:func:`write_predictions` writes a predictions file answering every item: the reference solution
for the Python items of the problems asked for, an answer without code for every other item (scored
at once as ``no_code``, while its item is still read).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evaluators.multi_lcb.release import encode_compressed_tests

DATA_DIR = Path(__file__).resolve().parent / "data"
SAMPLE = DATA_DIR / "sample_release.jsonl"
SOLUTIONS = DATA_DIR / "solutions"

#: the three kinds of generated problem: statement and Python solution
KINDS: dict[str, tuple[str, str]] = {
    "sum": (
        "Read n, then n integers. Print their sum.",
        "import sys\ndata = sys.stdin.buffer.read().split()\nn = int(data[0])\nprint(sum(map(int, data[1:1 + n])))\n",
    ),
    "sort": (
        "Read n, then n integers. Print them in non-decreasing order, separated by spaces.",
        "import sys\ndata = sys.stdin.buffer.read().split()\nn = int(data[0])\n"
        "print(' '.join(map(str, sorted(map(int, data[1:1 + n])))))\n",
    ),
    "reverse": ("Read one line of lowercase letters. Print it reversed.", "s = input().strip()\nprint(s[::-1])\n"),
}


@dataclass(frozen=True)
class Shape:
    """A release's size: problems x (one public and ``tests`` private tests) of about ``test_bytes``
    (input and output) each, of which ``big_problems`` have tests of ``big_test_bytes``."""

    problems: int
    tests: int
    test_bytes: int
    big_problems: int = 0
    big_test_bytes: int = 0


#: LiveCodeBench v6's shape: 1,055 problems x 30 tests, 20 of them with about 5 MB of tests
V6_SHAPE = Shape(problems=1055, tests=30, test_bytes=2800, big_problems=20, big_test_bytes=5 * 1024 * 1024 // 30)


@dataclass
class Release:
    """What was generated: the problems in file order, each one's test count and Python solution."""

    path: Path
    question_ids: list[str] = field(default_factory=list)
    tests: dict[str, int] = field(default_factory=dict)
    solutions: dict[str, str] = field(default_factory=dict)
    test_bytes: int = 0  # the tests' inputs and outputs, decoded

    @property
    def released_bytes(self) -> int:
        return self.path.stat().st_size

    def every(self, k: int) -> list[str]:
        """Every k-th problem (the first included): a deterministic subset to score."""
        return self.question_ids[:: max(1, k)]


def replicate_sample(times: int, out: Path) -> Release:
    """The sample release ``times`` times over (streamed to ``out``, one copy at a time)."""
    release = Release(out)
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    with out.open("w", encoding="utf-8") as handle:
        for copy in range(times):
            for record in records:
                original = str(record["question_id"])
                qid = f"{original}_r{copy}"
                handle.write(json.dumps({**record, "question_id": qid}, ensure_ascii=False) + "\n")
                release.question_ids.append(qid)
                release.solutions[qid] = (SOLUTIONS / original / "python.py").read_text(encoding="utf-8")
    from evaluators.multi_lcb.release import iter_problems

    for problem in iter_problems(out):  # counted from the file itself, as the importer reads it
        cases = problem["public_test_cases"] + problem["private_test_cases"]
        release.tests[problem["question_id"]] = len(cases)
        release.test_bytes += sum(len(c["input"]) + len(c["output"]) for c in cases)
    return release


def _case(kind: str, rng: np.random.Generator, size: int) -> dict[str, str]:
    if kind == "reverse":
        letters = rng.integers(97, 123, size=max(1, size // 2), dtype=np.uint8).tobytes().decode("ascii")
        return {"input": letters + "\n", "output": letters[::-1] + "\n", "testtype": "stdin"}
    count = max(1, size // (7 if kind == "sum" else 14))
    values = rng.integers(-99999, 100000, size=count)
    text = " ".join(map(str, values.tolist()))
    output = str(int(values.sum())) if kind == "sum" else " ".join(map(str, np.sort(values).tolist()))
    return {"input": f"{count}\n{text}\n", "output": output + "\n", "testtype": "stdin"}


def write_release(shape: Shape, out: Path, *, seed: int = 0) -> Release:
    """A release of ``shape``, streamed to ``out`` problem by problem (byte-identical for a seed).
    The big problems are spread evenly through the file."""
    release = Release(out)
    rng = np.random.default_rng(seed)
    kinds = list(KINDS)
    big_every = shape.problems // shape.big_problems if shape.big_problems else 0
    with out.open("w", encoding="utf-8") as handle:
        for number in range(shape.problems):
            big = bool(big_every) and number % big_every == big_every // 2 and number // big_every < shape.big_problems
            kind = "sort" if big else kinds[number % len(kinds)]
            size = shape.big_test_bytes if big else shape.test_bytes
            public = [_case(kind, rng, 40)]
            private = [_case(kind, rng, size) for _ in range(shape.tests)]
            qid = f"gen{number:05d}"
            statement, solution = KINDS[kind]
            record: dict[str, Any] = {
                "question_title": f"{kind.title()} {number}",
                "question_content": statement,
                "platform": ("atcoder", "codeforces", "leetcode")[number % 3],
                "question_id": qid,
                "contest_id": f"gen{number // 6:04d}",
                "contest_date": f"{2024 + number % 2}-{1 + number % 12:02d}-{1 + number % 28:02d}T00:00:00",
                "starter_code": "",
                "difficulty": ("easy", "medium", "hard")[number % 3],
                "public_test_cases": json.dumps(public),
                "private_test_cases": encode_compressed_tests(private),
                "metadata": "{}",
            }
            handle.write(json.dumps(record) + "\n")
            release.question_ids.append(qid)
            release.tests[qid] = len(public) + len(private)
            release.solutions[qid] = solution
            release.test_bytes += sum(len(c["input"]) + len(c["output"]) for c in public + private)
    return release


def fenced(code: str) -> str:
    return f"Here is my program.\n```python\n{code}```\n"


def write_predictions(release: Release, out: Path, languages: Sequence[str], scored: Collection[str]) -> int:
    """One answer for every item of ``release`` (its problems x ``languages``): the reference solution
    for the Python items of ``scored``, an answer without code for every other one. Returns how many
    programs will run (the Python items of ``scored``)."""
    chosen = set(scored)
    programs = 0
    with out.open("w", encoding="utf-8") as handle:
        for qid in release.question_ids:
            for language in languages:
                run = language == "python" and qid in chosen
                programs += run
                output = fenced(release.solutions[qid]) if run else "I cannot solve this one."
                handle.write(json.dumps({"item_id": f"{qid}/{language}", "output": output}) + "\n")
    return programs
