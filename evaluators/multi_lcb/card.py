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


def multi_lcb_card(
    *,
    extraction: str,
    time_limit_seconds: float,
    memory_mb: int,
    n: int,
    temperature: float,
    top_p: float,
    max_tokens: int,
) -> list[ProtocolRow]:
    """The card for an evaluator configured with these settings."""
    return [
        *_answer_rows(extraction=extraction, n=n, temperature=temperature, top_p=top_p, max_tokens=max_tokens),
        *_running_rows(time_limit_seconds=time_limit_seconds, memory_mb=memory_mb),
        *_verdict_rows(),
        *_figure_rows(),
    ]


def _answer_rows(*, extraction: str, n: int, temperature: float, top_p: float, max_tokens: int) -> list[ProtocolRow]:
    """The problems and languages, how a model is asked, and how its program is taken from the answer."""
    released_gen = (n, temperature, top_p) == (10, 0.2, 0.95)
    return [
        ProtocolRow(
            "Problems",
            "LiveCodeBench's released problem file (v6: 1,055 problems), each turned into one "
            "stdin/stdout task per language; LeetCode functional tests converted to stdin",
            "as released",
            source=_LCB,
        ),
        ProtocolRow(
            "Languages",
            "12: Python, C++, Java, C#, Go, Rust, JavaScript, TypeScript, Ruby, PHP, Kotlin, Scala",
            "as released",
            source=_MLCB,
        ),
        ProtocolRow(
            "Prompt",
            "LiveCodeBench's code-generation prompt with the language swapped in "
            "(system: an expert programmer of the language; user: ### Question, the format, ### Answer); "
            "LeetCode problems as Multi-LCB's pipeline rewrites them for stdin",
            "the same prompt, plus a line naming the toolchain that compiles the answer and, for most "
            'languages, a line on the entry point (Java: "Put `public static void main` in a public class '
            'named `Main`."); for LeetCode (functional) problems our own format paragraph: the arguments '
            "one JSON value per line, the return value printed as JSON in Python's layout ([1, 2])",
            why="the toolchain line: code written for a newer compiler fails to compile here; the entry-point "
            "line: this sandbox runs the class Main where the harness names the file after any public "
            "class; the LeetCode paragraph: the site imports LiveCodeBench's file, whose LeetCode tests "
            "are function calls, not Multi-LCB's rewritten ones. A prompt cannot change the verdict of "
            "an answer already written: 0 of the sample's 264 reference verdicts change",
            source=_MLCB,
        ),
        ProtocolRow(
            "Samples and sampling",
            "n=10, temperature 0.2, top_p 0.95",
            "as released" if released_gen else f"n={n}, temperature {temperature:g}, top_p {top_p:g}",
            why="" if released_gen else "set for this board by the operator (recorded on each run)",
            source=_LCB + " (parser.py defaults)",
        ),
        ProtocolRow(
            "Answer length",
            "max_tokens 2,000 with the stop string '###'",
            f"max_tokens {max_tokens:,}, no stop string",
            why="2,000 tokens and the '###' stop cut off reasoning models before their program",
            source=_LCB,
        ),
        ProtocolRow(
            "Program extraction",
            "every line containing ``` is a fence; Multi-LCB takes the lines between "
            "the first two fences, LiveCodeBench between the last two, whatever language the block is "
            "tagged with; fewer than two fences: no program",
            "as released" if extraction == "first" else "the last two fences (LiveCodeBench's rule)",
            why="" if extraction == "first" else "this board's setting 'extraction' (recorded on each run)",
            source=_MLCB + "; " + _LCB + " (extraction_utils.py)",
        ),
        ProtocolRow(
            "Reasoning text",
            "a <think>...</think> section is dropped before the program is searched for",
            "as released",
            source=_MLCB,
        ),
    ]


def _running_rows(*, time_limit_seconds: float, memory_mb: int) -> list[ProtocolRow]:
    """How a program runs: its time and memory limits and its isolation."""
    return [
        ProtocolRow(
            "Time limit per test",
            "15 s (Multi-LCB); LiveCodeBench: 6 s",
            "as released" if time_limit_seconds == 15.0 else f"{time_limit_seconds:g} s wall and CPU",
            why="" if time_limit_seconds == 15.0 else "this board's setting 'time_limit_seconds'",
            source=_MLCB,
        ),
        ProtocolRow(
            "Time-limit verdicts under load",
            "none: a test that runs out of time fails",
            "a time-limit verdict is run once more when the machine, not the program, ran the clock out "
            "(with more runnable work than cores, the program got under 90% of a CPU but at least half "
            "the share the load left it); a program that slept is never run again",
            why="a shared worker's load must not fail a correct program; each re-check is recorded",
        ),
        ProtocolRow(
            "Memory",
            "16 GiB of address space per process (RLIMIT_AS and RLIMIT_DATA) and an 8 GiB stack; "
            "no limit for JavaScript, TypeScript and Rust",
            f"{memory_mb:,} MB per program, a 256 MiB stack",
            why="programs share a worker; a runaway program must not stop the others. Only a program "
            "that needs more fails here and passes there: none of the sample's reference solutions",
            source=_MLCB,
        ),
        ProtocolRow(
            "Isolation",
            "plain subprocesses on the host",
            "a bubblewrap sandbox: no network, private "
            "file system and process space, process and output limits; compile once (60 s), each test a "
            "fresh process",
            why="submitted code is untrusted; a correct program passes in both",
        ),
    ]


def _verdict_rows() -> list[ProtocolRow]:
    """What makes a test pass or fail: the output comparison, stderr, the toolchains and their flags."""
    return [
        ProtocolRow(
            "Output comparison",
            "stripped lines; equal text, True/true and False/false alike, or numbers "
            "within absolute 1e-5 as math.isclose decides on the Decimal tokens (in floating point: "
            "2.00001 is not within 1e-5 of 2)",
            "the same rule; the numbers must also agree within 1e-5 in exact decimal arithmetic",
            why="math.isclose rounds integers beyond 16 digits (1e20 equals 100000000000000000001 there); "
            "the exact check only ever fails more. 0 of the sample's 264 reference verdicts change; "
            "docs/multi-lcb-output-comparison.md has the table of edge cases",
            source=_MLCB,
        ),
        ProtocolRow(
            "LeetCode (functional) tests",
            "LiveCodeBench calls the function and compares the returned "
            "object with ==; Multi-LCB rewrites the problem for stdin and compares its lines by the rule above",
            "the program prints the return value as JSON and is compared with the test's JSON text by the "
            "rule above ([1,2] does not match [1, 2])",
            why="the site imports LiveCodeBench's file, whose LeetCode tests are function calls with JSON "
            "values; the prompt names the layout. 0 of the sample's 264 reference verdicts change "
            "(its LeetCode answers are numbers and booleans)",
            source=_LCB + " (testing_util.py); " + _MLCB,
        ),
        ProtocolRow(
            "Words on stderr",
            "a run whose stderr contains SyntaxError, ValueError, TimeoutExpired or an "
            "out-of-memory message fails, whatever its exit status and output",
            "the exit status and the output decide; stderr is never read for a verdict",
            why="a warning on stderr does not make a right answer wrong. On the sample's reference solutions "
            "no test run writes any of these words: 0 of 264 verdicts change",
            source=_MLCB,
        ),
        ProtocolRow(
            "Compiler and runtime flags",
            "g++ -std=c++17 -mcmodel=medium without optimisation; rustc without "
            "-O (a debug build: integer overflow panics) and its default edition (2015); mcs without "
            "-optimize+; java -ea with the JVM's default stack; node without flags (rustc's -C debuginfo=2, "
            "which changes no output, is left out here)",
            "as released",
            source=_MLCB,
        ),
        ProtocolRow("Stopping", "tests run in order; the first failure ends the sample", "as released", source=_LCB),
        ProtocolRow(
            "Toolchains",
            "the harness's own images (current compilers)",
            "Debian 12's and registry toolchains, each version on this page; C# at most C# 7 (Mono), "
            "TypeScript compiled with tsc --noCheck",
            why="no newer C# compiler installs from the registries the platform builds from; a type "
            "error changes no output and type-checking slows every compile",
        ),
    ]


def _figure_rows() -> list[ProtocolRow]:
    """From verdicts to the board's figures: pass@k, the headline, its uncertainty and the contest window."""
    return [
        ProtocolRow(
            "pass@k",
            "unbiased estimator 1 - C(n-c, k)/C(n, k), mean over problems",
            "as released",
            source=_LCB + " (pass_k_utils.py)",
        ),
        ProtocolRow("Headline", "pass@1 as the mean over the 12 languages", "as released", source=_MLCB),
        ProtocolRow(
            "Uncertainty",
            "none published",
            "95% intervals by resampling problems (bootstrap)",
            why="two models within the noise must not be read as ranked",
        ),
        ProtocolRow(
            "Contamination",
            "results for a contest-date window; LiveCodeBench's --end_date compares each "
            "problem's contest time with the end day's midnight, so a problem on the last day is in the "
            "window only if it is dated 00:00",
            "the window by contest day, both ends whole days; a model "
            "released on or after the window's start is flagged and not ranked",
            why="the page's window is chosen by day; a flag makes the window's point visible on every row. "
            "Every sample problem is dated 00:00, so no item's place in a window differs",
            source=_LCB + " (code_generation.py)",
        ),
    ]
