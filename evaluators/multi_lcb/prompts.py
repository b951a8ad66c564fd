"""Multi-LCB parity prompts for the twelve languages and extraction of the program from an answer.

``build_messages`` writes the system and user messages Multi-LCB sends (LiveCodeBench's code
generation prompt with the language swapped in and every task turned into a stdin/stdout program);
``extract_code`` drops reasoning (``<think>...</think>``) and then reads the program as the released
harnesses do: every line containing three backticks is a fence, and the program is what lies between
the first two fence lines (Multi-LCB) or the last two (LiveCodeBench), whatever language the block is
tagged with; fewer than two fence lines give no program.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

EXTRACTION_RULES: tuple[str, ...] = ("first", "last")


@dataclass(frozen=True)
class LanguageSpec:
    """How prompts name a language, fence its code and comment in it, and the entry-point rule."""

    key: str
    name: str
    fence: str
    comment: str
    entry_note: str
    #: the toolchain the platform compiles and runs it with (checked against the installed one by
    #: tests/sandbox/test_languages.py), and what that version rejects that newer ones accept
    toolchain: str
    toolchain_limits: str = ""


LANGUAGE_SPECS: dict[str, LanguageSpec] = {
    spec.key: spec
    for spec in (
        LanguageSpec("python", "Python", "python", "#", "", "Python 3.11"),
        LanguageSpec(
            "cpp",
            "C++",
            "cpp",
            "//",
            "Write a complete program with a `main` function.",
            "GCC 12.2 (g++ -std=c++17, no optimisation)",
        ),
        LanguageSpec(
            "java", "Java", "java", "//", "Put `public static void main` in a public class named `Main`.", "OpenJDK 17"
        ),
        LanguageSpec(
            "csharp",
            "C#",
            "csharp",
            "//",
            "Write a complete program with a static `Main` method.",
            "Mono 6.8 (mcs)",
            "mcs accepts C# 7 at most: no top-level statements, records, `using` declarations, "
            "switch expressions or `new()` without a type",
        ),
        LanguageSpec(
            "go", "Go", "go", "//", "Write a complete program in `package main` with a `main` function.", "Go 1.27"
        ),
        LanguageSpec(
            "rust",
            "Rust",
            "rust",
            "//",
            "Write a complete program with a `main` function, using only the standard library.",
            "Rust 1.95 (rustc without -O, edition 2015)",
        ),
        LanguageSpec(
            "javascript",
            "JavaScript",
            "javascript",
            "//",
            "The program runs with Node.js; read stdin with the `fs` module.",
            "Node.js 20",
        ),
        LanguageSpec(
            "typescript",
            "TypeScript",
            "typescript",
            "//",
            "The program is compiled with tsc and runs with Node.js; read stdin with the `fs` module.",
            "TypeScript 5.9 on Node.js 20",
        ),
        LanguageSpec("ruby", "Ruby", "ruby", "#", "", "Ruby 3.1"),
        LanguageSpec("php", "PHP", "php", "//", "Start the program with `<?php`.", "PHP 8.2"),
        LanguageSpec(
            "kotlin",
            "Kotlin",
            "kotlin",
            "//",
            "Write a complete program with a top-level `fun main()`.",
            "Kotlin 2.4 on OpenJDK 17",
        ),
        LanguageSpec(
            "scala",
            "Scala",
            "scala",
            "//",
            "Put the `main` method in `object Main`.",
            "Scala 2.13 on OpenJDK 17",
            "Scala 2.13 is not Scala 3: no `@main` methods, no braceless (indentation) syntax",
        ),
    )
}

#: the twelve languages in leaderboard order
LANGUAGE_KEYS: tuple[str, ...] = tuple(LANGUAGE_SPECS)


def system_message(language: str) -> str:
    name = LANGUAGE_SPECS[language].name
    return (
        f"You are an expert {name} programmer. You will be given a question (problem specification) "
        f"and will generate a correct {name} program that matches the specification and passes all tests."
    )


def _code_template(spec: LanguageSpec) -> str:
    placeholder = f"{spec.comment} YOUR CODE HERE"
    if spec.key == "php":
        placeholder = "<?php\n" + placeholder
    return f"```{spec.fence}\n{placeholder}\n```"


def format_instructions(language: str, *, functional: bool, func_name: str = "", starter_code: str = "") -> str:
    """The ``### Format:`` section: how the program reads input and writes output."""
    spec = LANGUAGE_SPECS[language]
    if functional:
        call = f"`{func_name}`" if func_name else "the function described above"
        text = (
            f"This problem was posed as a function ({call}); solve it as a complete {spec.name} program instead. "
            "The program reads the function's arguments from stdin, one JSON value per line in the order of "
            "the parameters (integers, strings in double quotes, lists as JSON arrays), computes the function's "
            "return value and prints it to stdout as JSON on one line (`true`/`false` for booleans, integers "
            "plainly, lists as JSON arrays with a comma and a space between items, as in `[1, 2]`); the output "
            "is compared line by line as text, with numbers within 1e-5 accepted."
        )
        if starter_code.strip():
            signature = " ".join(line.strip() for line in starter_code.strip().splitlines() if line.strip())
            text += f" For reference, the original Python signature was: `{signature}`."
        text += " Enclose your code within delimiters as follows."
    else:
        text = (
            "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test "
            "on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the "
            f"{spec.name} program runs, it reads the inputs, runs the algorithm and writes output to STDOUT."
        )
    if spec.entry_note:
        text += " " + spec.entry_note
    text += f" It is compiled and run with {spec.toolchain}"
    text += f" ({spec.toolchain_limits})." if spec.toolchain_limits else "."
    return text


def user_message(language: str, problem: Mapping[str, Any]) -> str:
    tests = list(problem.get("public_test_cases") or []) + list(problem.get("private_test_cases") or [])
    functional = any(isinstance(t, dict) and t.get("testtype") == "functional" for t in tests)
    metadata = problem.get("metadata") or {}
    func_name = str(metadata.get("func_name", "")) if isinstance(metadata, dict) else ""
    spec = LANGUAGE_SPECS[language]
    instructions = format_instructions(
        language, functional=functional, func_name=func_name, starter_code=str(problem.get("starter_code") or "")
    )
    return (
        f"### Question:\n{problem.get('question_content', '')}\n\n"
        f"### Format: {instructions}\n"
        f"{_code_template(spec)}\n\n"
        "### Answer: (use the provided format with backticks)\n\n"
    )


def build_messages(language: str, problem: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages for one problem in one language."""
    return [
        {"role": "system", "content": system_message(language)},
        {"role": "user", "content": user_message(language, problem)},
    ]


# ------------------------------------------------------------------------------------------- extraction

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


def strip_reasoning(text: str) -> str:
    """Drop ``<think>...</think>`` blocks; an unclosed ``<think>`` hides everything after it unless
    a ``</think>`` without its opening tag closes a leading block."""
    text = _THINK_BLOCK.sub("", text)
    lowered = text.lower()
    close = lowered.find("</think>")
    if close != -1:  # reasoning whose opening tag was part of the prompt template
        text = text[close + len("</think>") :]
        lowered = text.lower()
    opening = lowered.find("<think>")
    if opening != -1:  # a think block that never closed (answer cut off while reasoning)
        text = text[:opening]
    return text


FENCE = "```"


def fence_lines(text: str) -> list[int]:
    """The indices of the lines (split on ``\\n``) that contain three backticks anywhere: the released
    harnesses' fences (so a line like ``Use ```sort``` here`` counts, and ``~~~`` never does)."""
    return [index for index, line in enumerate(text.split("\n")) if FENCE in line]


def extract_code(text: str, rule: str = "first") -> str:
    """The program in a model answer, or "" when there is none.

    ``rule`` is "first" (Multi-LCB: the lines between the first two fence lines) or "last"
    (LiveCodeBench: between the last two). A block's language tag plays no part, as in both releases:
    an answer whose first block is an example input gives that input as its program.
    """
    if rule not in EXTRACTION_RULES:
        raise ValueError(f"extraction must be one of {', '.join(EXTRACTION_RULES)}, not {rule!r}")
    text = strip_reasoning(text)
    fences = fence_lines(text)
    if len(fences) < 2:
        return ""
    start, end = (fences[0], fences[1]) if rule == "first" else (fences[-2], fences[-1])
    code = "\n".join(text.split("\n")[start + 1 : end])
    return code.strip("\n") + "\n" if code.strip() else ""
