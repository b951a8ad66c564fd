"""Tests of program extraction from model answers and of the Multi-LCB parity prompts."""
from __future__ import annotations

import pytest

from evaluators.multi_lcb.prompts import LANGUAGE_KEYS, LANGUAGE_SPECS, build_messages, extract_code, strip_reasoning

TWO_BLOCKS = "First try:\n```python\nprint(1)\n```\nBetter:\n```python\nprint(2)\n```\n"


def test_first_block_by_default_and_last_on_request() -> None:
    assert extract_code(TWO_BLOCKS, "python") == "print(1)\n"
    assert extract_code(TWO_BLOCKS, "python", "first") == "print(1)\n"
    assert extract_code(TWO_BLOCKS, "python", "last") == "print(2)\n"


def test_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="extraction"):
        extract_code(TWO_BLOCKS, "python", "middle")


def test_think_blocks_are_dropped() -> None:
    text = "<think>\nmaybe:\n```python\nprint('draft')\n```\n</think>\nAnswer:\n```python\nprint('final')\n```"
    assert extract_code(text, "python") == "print('final')\n"


def test_unclosed_leading_think_block_hides_everything() -> None:
    text = "<think>\nI will write\n```python\nprint('draft')\n```\nand then I ran out of tokens"
    assert extract_code(text, "python") == ""


def test_closing_tag_without_opening_drops_the_reasoning_before_it() -> None:
    text = "reasoning\n```python\nprint('draft')\n```\n</think>\n```python\nprint('final')\n```"
    assert extract_code(text, "python") == "print('final')\n"
    assert strip_reasoning("a</think>b") == "b"


@pytest.mark.parametrize("language,fence", [
    ("cpp", "cpp"), ("cpp", "c++"), ("csharp", "csharp"), ("csharp", "cs"), ("csharp", "c#"),
    ("javascript", "js"), ("javascript", "javascript"), ("typescript", "ts"), ("python", "py"),
    ("python", "python3"), ("kotlin", "kt"), ("kotlin", "kotlin"), ("rust", "rs"), ("ruby", "rb"),
    ("go", "go"), ("go", "golang"), ("java", "java"), ("php", "php"), ("scala", "scala"), ("cpp", "C++"),
])
def test_language_aliases_are_preferred(language: str, fence: str) -> None:
    text = f"Plan:\n```text\nnot code\n```\nCode:\n```{fence}\nTHE CODE\n```\nExample:\n```\n3 5\n```\n"
    assert extract_code(text, language) == "THE CODE\n"
    assert extract_code(text, language, "last") == "THE CODE\n"


def test_falls_back_to_any_block() -> None:
    text = "```\nint main(){}\n```\n```text\nsecond\n```"
    assert extract_code(text, "cpp") == "int main(){}\n"
    assert extract_code(text, "cpp", "last") == "second\n"


def test_blocks_in_other_languages_are_not_preferred_over_the_right_one() -> None:
    text = "```python\nprint(1)\n```\n```cpp\nint main(){}\n```"
    assert extract_code(text, "cpp") == "int main(){}\n"
    assert extract_code(text, "python") == "print(1)\n"


def test_no_block_gives_empty_code() -> None:
    assert extract_code("print(1)", "python") == ""
    assert extract_code("", "python") == ""
    assert extract_code("```python\n\n```", "python") == ""


def test_unterminated_block_runs_to_the_end() -> None:
    assert extract_code("Here:\n```python\nprint(1)\nprint(2)", "python") == "print(1)\nprint(2)\n"


def test_longer_fences_and_tildes() -> None:
    assert extract_code("````python\nprint('```')\n````", "python") == "print('```')\n"
    assert extract_code("~~~ruby\nputs 1\n~~~", "ruby") == "puts 1\n"


def test_indented_code_is_kept() -> None:
    text = "```python\ndef f():\n    return 1\nprint(f())\n```"
    assert extract_code(text, "python") == "def f():\n    return 1\nprint(f())\n"


STDIN_PROBLEM = {"question_content": "Print A+B.", "public_test_cases": [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}],
                 "private_test_cases": [], "metadata": {}, "starter_code": ""}
FUNCTIONAL_PROBLEM = {"question_content": "Return true if s is a palindrome.", "starter_code":
                      "class Solution:\n    def isPalindrome(self, s: str) -> bool:\n        ",
                      "public_test_cases": [{"input": "\"aba\"", "output": "true", "testtype": "functional"}],
                      "private_test_cases": [], "metadata": {"func_name": "isPalindrome"}}


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
    assert "YOUR CODE HERE" in extract_code(content, language)


def test_twelve_languages_in_leaderboard_order() -> None:
    assert LANGUAGE_KEYS == ("python", "cpp", "java", "csharp", "go", "rust", "javascript", "typescript",
                             "ruby", "php", "kotlin", "scala")


def test_functional_prompt_explains_the_json_protocol() -> None:
    _, user = build_messages("rust", FUNCTIONAL_PROBLEM)
    content = user["content"]
    assert "one JSON value per line" in content
    assert "as JSON" in content and "isPalindrome" in content
    assert "```rust\n// YOUR CODE HERE\n```" in content
