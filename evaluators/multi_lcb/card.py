"""Multi-LCB's method card: each element of the protocol as Multi-LCB's paper and harness (built on
LiveCodeBench's ``lcb_runner``) run it, beside what this platform does and why it differs.

The released side was read from LiveCodeBench's repository (``lcb_runner/runner/parser.py`` for the
generation defaults, ``lcb_runner/utils/extraction_utils.py`` for the extraction,
``lcb_runner/evaluation/`` for the time limit and pass@k) and from Multi-LCB's published executor and
site (``testing_plang.py``, its prompt and its 15 s limit), as summarised in the project's benchmark
notes. The card follows the evaluator's settings, so a run with ``extraction="last"`` says so.
"""
from __future__ import annotations

from evaluators.core.types import ProtocolRow

_LCB = "LiveCodeBench lcb_runner"
_MLCB = "Multi-LCB harness (testing_plang.py) and site"


def multi_lcb_card(*, extraction: str, time_limit_seconds: float, memory_mb: int, n: int, temperature: float,
                   top_p: float, max_tokens: int) -> list[ProtocolRow]:
    """The card for an evaluator configured with these settings."""
    released_gen = (n, temperature, top_p) == (10, 0.2, 0.95)
    return [
        ProtocolRow("Problems", "LiveCodeBench's released problem file (v6: 1,055 problems), each turned into one "
                    "stdin/stdout task per language; LeetCode functional tests converted to stdin",
                    "as released", source=_LCB),
        ProtocolRow("Languages", "12: Python, C++, Java, C#, Go, Rust, JavaScript, TypeScript, Ruby, PHP, Kotlin, Scala",
                    "as released", source=_MLCB),
        ProtocolRow("Prompt", "LiveCodeBench's code-generation prompt with the language swapped in "
                    "(system: an expert programmer of the language; user: ### Question, the format, ### Answer)",
                    "the same prompt, plus one line naming the toolchain version that compiles the answer",
                    why="code written for a newer compiler than the one installed fails to compile; naming it "
                        "lets a model avoid that", source=_MLCB),
        ProtocolRow("Samples and sampling", "n=10, temperature 0.2, top_p 0.95",
                    "as released" if released_gen else f"n={n}, temperature {temperature:g}, top_p {top_p:g}",
                    why="" if released_gen else "set for this board by the operator (recorded on each run)",
                    source=_LCB + " (parser.py defaults)"),
        ProtocolRow("Answer length", "max_tokens 2,000 with the stop string '###'",
                    f"max_tokens {max_tokens:,}, no stop string",
                    why="2,000 tokens and the '###' stop cut off reasoning models before their program", source=_LCB),
        ProtocolRow("Program extraction", "Multi-LCB: the first fenced block; LiveCodeBench: the last",
                    "as released" if extraction == "first" else "the last fenced block (LiveCodeBench's rule)",
                    why="" if extraction == "first" else "this board's setting 'extraction' (recorded on each run)",
                    source=_MLCB + "; " + _LCB + " (extraction_utils.py)"),
        ProtocolRow("Reasoning text", "a <think>...</think> section is dropped before the program is searched for",
                    "as released", source=_MLCB),
        ProtocolRow("Time limit per test", "15 s (Multi-LCB); LiveCodeBench: 6 s",
                    "as released" if time_limit_seconds == 15.0 else f"{time_limit_seconds:g} s wall and CPU",
                    why="" if time_limit_seconds == 15.0 else "this board's setting 'time_limit_seconds'",
                    source=_MLCB),
        ProtocolRow("Time-limit verdicts under load", "none: a test that runs out of time fails",
                    "a time-limit verdict is run once more when the machine, not the program, ran the clock out "
                    "(with more runnable work than cores, the program got under 90% of a CPU but at least half "
                    "the share the load left it); a program that slept is never run again",
                    why="a shared worker's load must not fail a correct program; each re-check is recorded"),
        ProtocolRow("Memory", "no limit (plain subprocesses)", f"{memory_mb:,} MB per program",
                    why="programs share a worker; a runaway program must not stop the others"),
        ProtocolRow("Isolation", "plain subprocesses on the host", "a bubblewrap sandbox: no network, private "
                    "file system and process space, process and output limits; compile once (60 s), each test a "
                    "fresh process", why="submitted code is untrusted; a correct program passes in both"),
        ProtocolRow("Output comparison", "stripped lines; equal text, True/true and False/false alike, or numbers "
                    "within absolute 1e-5 (math.isclose on Decimal tokens)",
                    "the same rule, with the difference computed exactly in decimal arithmetic",
                    why="math.isclose rounds integers beyond 16 digits (1e20 equals 100000000000000000001 "
                        "there); docs/multi-lcb-output-comparison.md has the table of edge cases", source=_MLCB),
        ProtocolRow("Stopping", "tests run in order; the first failure ends the sample", "as released", source=_LCB),
        ProtocolRow("Toolchains", "the harness's own images (current compilers)",
                    "Debian 12's and registry toolchains, each version on this page; C# at most C# 7 (Mono), "
                    "TypeScript compiled with tsc --noCheck",
                    why="no newer C# compiler installs from the registries the platform builds from; a type "
                        "error changes no output and type-checking slows every compile"),
        ProtocolRow("pass@k", "unbiased estimator 1 - C(n-c, k)/C(n, k), mean over problems", "as released",
                    source=_LCB + " (pass_k_utils.py)"),
        ProtocolRow("Headline", "pass@1 as the mean over the 12 languages", "as released", source=_MLCB),
        ProtocolRow("Uncertainty", "none published", "95% intervals by resampling problems (bootstrap)",
                    why="two models within the noise must not be read as ranked"),
        ProtocolRow("Contamination", "results for a contest-date window", "as released, and a model released on "
                    "or after the window's start is flagged and not ranked",
                    why="a flag makes the window's point visible on every row", source=_LCB),
    ]
