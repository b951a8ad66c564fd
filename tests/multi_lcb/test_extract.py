"""Tests of program extraction from model answers and of the Multi-LCB parity prompts."""

from __future__ import annotations

import pytest

from evaluators.multi_lcb.prompts import LANGUAGE_KEYS, LANGUAGE_SPECS, build_messages, extract_code, strip_reasoning

TWO_BLOCKS = "First try:\n```python\nprint(1)\n```\nBetter:\n```python\nprint(2)\n```\n"


def test_first_block_by_default_and_last_on_request() -> None:
    assert extract_code(TWO_BLOCKS) == "print(1)\n"
    assert extract_code(TWO_BLOCKS, "first") == "print(1)\n"
    assert extract_code(TWO_BLOCKS, "last") == "print(2)\n"


def test_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="extraction"):
        extract_code(TWO_BLOCKS, "middle")


def test_think_blocks_are_dropped() -> None:
    text = "<think>\nmaybe:\n```python\nprint('draft')\n```\n</think>\nAnswer:\n```python\nprint('final')\n```"
    assert extract_code(text) == "print('final')\n"


def test_unclosed_leading_think_block_hides_everything() -> None:
    text = "<think>\nI will write\n```python\nprint('draft')\n```\nand then I ran out of tokens"
    assert extract_code(text) == ""


def test_closing_tag_without_opening_drops_the_reasoning_before_it() -> None:
    text = "reasoning\n```python\nprint('draft')\n```\n</think>\n```python\nprint('final')\n```"
    assert extract_code(text) == "print('final')\n"
    assert strip_reasoning("a</think>b") == "b"


# What the released harnesses take, worked by hand from their rule (every line containing ``` is a
# fence; Multi-LCB takes the lines between the first two fences, LiveCodeBench's extraction_utils.py
# between the last two; fewer than two fences give no program). The tag of a block plays no part: until
# issue 49 this site preferred a block tagged with the language, and read ~~~ fences, longer fences and
# an unclosed block, each of which found a program the releases do not.
PLAN_THEN_CODE = "Plan:\n```text\nnot code\n```\nCode:\n```cpp\nTHE CODE\n```\nExample:\n```\n3 5\n```\n"
EXTRACTION_CASES: list[tuple[str, str, str, str]] = [
    # (answer, Multi-LCB's program (first), LiveCodeBench's program (last), what it shows)
    (PLAN_THEN_CODE, "not code\n", "3 5\n", "an untagged or other-tagged block counts like any other"),
    (
        "```python\nprint(1)\n```\n```cpp\nint main(){}\n```",
        "print(1)\n",
        "int main(){}\n",
        "a block in another language is taken when it is in place",
    ),
    ("```\nint main(){}\n```\n```text\nsecond\n```", "int main(){}\n", "second\n", "untagged first block"),
    ("```cpp\nint main(){}\n```", "int main(){}\n", "int main(){}\n", "one tagged block: both take it"),
    ("Here:\n```python\nprint(1)\nprint(2)", "", "", "an unclosed block is no program"),
    ("~~~ruby\nputs 1\n~~~", "", "", "tildes are not fences"),
    ("````python\nprint('```')\n````", "", "", "the body's ``` ends the block: nothing between lines 1 and 2"),
    (
        "Use ```sort``` here.\nx = 1\n```python\nprint(x)\n```",
        "x = 1\n",
        "print(x)\n",
        "a line with ``` inside text is a fence",
    ),
    (
        "```python\nprint(1)\n```\nand\n```python\nprint(2)\n",
        "print(1)\n",
        "and\n",
        "an odd fence count: the last two fence lines enclose the text between blocks",
    ),
]


@pytest.mark.parametrize("answer,first,last,note", EXTRACTION_CASES, ids=[case[3] for case in EXTRACTION_CASES])
def test_extraction_as_released(answer: str, first: str, last: str, note: str) -> None:
    assert extract_code(answer, "first") == first, note
    assert extract_code(answer, "last") == last, note


def test_no_block_gives_empty_code() -> None:
    assert extract_code("print(1)") == ""
    assert extract_code("") == ""
    assert extract_code("```python\n\n```") == ""


def test_indented_code_is_kept() -> None:
    text = "```python\ndef f():\n    return 1\nprint(f())\n```"
    assert extract_code(text) == "def f():\n    return 1\nprint(f())\n"


STDIN_PROBLEM = {
    "question_content": "Print A+B.",
    "public_test_cases": [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}],
    "private_test_cases": [],
    "metadata": {},
    "starter_code": "",
}
FUNCTIONAL_PROBLEM = {
    "question_content": "Return true if s is a palindrome.",
    "starter_code": "class Solution:\n    def isPalindrome(self, s: str) -> bool:\n        ",
    "public_test_cases": [{"input": '"aba"', "output": "true", "testtype": "functional"}],
    "private_test_cases": [],
    "metadata": {"func_name": "isPalindrome"},
}


@pytest.mark.parametrize("language", LANGUAGE_KEYS)
def test_prompt_shape_for_every_language(language: str) -> None:
    spec = LANGUAGE_SPECS[language]
    system, user = build_messages(language, STDIN_PROBLEM)
    assert system["role"] == "system" and user["role"] == "user"
    assert system["content"].startswith(f"You are an expert {spec.name} programmer.")
    content = user["content"]
    assert content.startswith("### Question:\nPrint A+B.\n")
    assert f"```{spec.fence}\n" in content and "YOUR CODE HERE" in content
    assert "stdin" in content and "STDOUT" in content
    assert f"It is compiled and run with {spec.toolchain}" in content  # the version the code must suit
    assert spec.toolchain_limits in content
    assert content.rstrip().endswith("### Answer: (use the provided format with backticks)")
    # the template block itself extracts to the placeholder only (the model must replace it)
    assert "YOUR CODE HERE" in extract_code(content)


def test_twelve_languages_in_leaderboard_order() -> None:
    assert LANGUAGE_KEYS == (
        "python",
        "cpp",
        "java",
        "csharp",
        "go",
        "rust",
        "javascript",
        "typescript",
        "ruby",
        "php",
        "kotlin",
        "scala",
    )


def test_functional_prompt_explains_the_json_protocol() -> None:
    _, user = build_messages("rust", FUNCTIONAL_PROBLEM)
    content = user["content"]
    assert "one JSON value per line" in content
    assert "as JSON" in content and "isPalindrome" in content
    assert "`[1, 2]`" in content  # the layout the expected output has: it is compared as text
    assert "```rust\n// YOUR CODE HERE\n```" in content
