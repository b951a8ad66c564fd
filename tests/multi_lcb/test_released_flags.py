"""Multi-LCB's compilers and runtimes run with the released harness's flags (issue 49).

The expected flags are written out by hand from Multi-LCB's ``testing_plang.py``: ``g++ <file> -o <exe>
-std=c++17 -mcmodel=medium`` (no -O), ``rustc <file> -C debuginfo=2 --verbose -o <exe>`` (no -O, so a
debug build with overflow checks, and rustc's default edition), ``mcs -out:Main.exe <file>`` (no
-optimize+), ``java -ea -cp <dir> <class>`` (assertions on, the JVM's default stack) and ``node <file>``
(V8's default stack). Until issue 49 the site built with -O2, -O, -optimize+, ran the JVM with -Xss64m
and no -ea and node with --stack-size=65500, each of which passes programs the release fails; the
sandboxed cases below are such programs, each printing the right answer to Sum of Two."""

from __future__ import annotations

import pytest

from evaluators.core.types import Prediction
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.multi_lcb.prompts import LANGUAGE_SPECS
from evaluators.sandbox import LANGUAGES


def _compile(language: str) -> tuple[str, ...]:
    command = LANGUAGES[language].compile_cmd
    assert command is not None
    return command


def test_cpp_builds_as_released() -> None:
    command = _compile("cpp")
    assert "-std=c++17" in command and "-mcmodel=medium" in command
    assert not [flag for flag in command if flag.startswith("-O")]


def test_rust_builds_a_debug_build_in_the_default_edition() -> None:
    command = _compile("rust")
    assert "-O" not in command and not [flag for flag in command if flag.startswith(("opt-level", "--edition"))]


def test_csharp_builds_without_optimisation() -> None:
    assert not [flag for flag in _compile("csharp") if flag.startswith(("-optimize", "-o+"))]


def test_java_runs_with_assertions_and_the_default_stack() -> None:
    assert "-ea" in LANGUAGES["java"].run_cmd
    for language in ("java", "kotlin", "scala"):
        assert not [flag for flag in LANGUAGES[language].run_cmd if flag.startswith("-Xss")], language


def test_node_runs_with_its_default_stack() -> None:
    for language in ("javascript", "typescript"):
        assert not [flag for flag in LANGUAGES[language].run_cmd if flag.startswith("--stack-size")], language


# programs for the sample problem abc900_a (read a b, print a+b) that print the right answer and fail
# the way the released harness fails them
FAILING_AS_RELEASED = {
    # a debug build checks integer overflow: "attempt to add with overflow", exit 101
    "rust": (
        "use std::io::Read;\nfn main() {\n    let mut s = String::new();\n"
        "    std::io::stdin().read_to_string(&mut s).unwrap();\n"
        "    let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
        '    println!("{}", v[0] + v[1]);\n'
        "    let top: i32 = i32::MAX - (v.len() as i32 - 2);\n    let _over = top + 1;\n}\n"
    ),
    # java -ea: the AssertionError ends the program with exit status 1
    "java": (
        "import java.util.*;\npublic class Main {\n    public static void main(String[] args) {\n"
        "        Scanner in = new Scanner(System.in);\n        long a = in.nextLong(), b = in.nextLong();\n"
        '        System.out.println(a + b);\n        assert a + b != a + b : "assertions are on";\n    }\n}\n'
    ),
    # 200,000 nested calls: far beyond V8's default stack (about 11,000 such frames), within 64 MB
    "javascript": (
        "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
        "console.log(a + b);\nfunction depth(n) { return n === 0 ? 0 : 1 + depth(n - 1); }\n"
        "depth(200000);\n"
    ),
}


@pytest.mark.toolchains
@pytest.mark.parametrize("language", sorted(FAILING_AS_RELEASED))
def test_programs_the_release_fails_fail_here(language: str) -> None:
    evaluator = MultiLCBEvaluator(time_limit_seconds=10.0)
    item = next(
        item
        for item in evaluator.import_release(evaluator.presentation().sample_dataset())
        if item.id == f"abc900_a/{language}"
    )
    answer = f"```{LANGUAGE_SPECS[language].fence}\n{FAILING_AS_RELEASED[language]}```\n"
    sample = evaluator.score_item(item, [Prediction(item.id, answer, 0)]).detail["samples"][0]
    assert sample["verdict"] == "runtime_error", sample["reason"]
    assert sample["failed_test"] == 0


@pytest.mark.toolchains
def test_a_functional_answer_is_compared_as_text_not_as_json() -> None:
    # a LeetCode-style test whose expected output is Python's JSON text of [1, 2]: neither harness accepts
    # "[1,2]" (Multi-LCB compares lines; the list is one word, not numbers), nor [1.000001, 2]; until
    # issue 49 the site accepted both as JSON values equal within 1e-5
    evaluator = MultiLCBEvaluator(time_limit_seconds=10.0)
    base = next(
        item for item in evaluator.import_release(evaluator.presentation().sample_dataset()) if item.id == "3001/python"
    )
    tests = [{"input": "[2, 1]", "output": "[1, 2]", "testtype": "functional"}]
    item = type(base)(
        id="pair/python",
        slices=base.slices,
        payload={**base.payload, "public_test_cases": tests, "private_test_cases": []},
    )
    answers = ["print('[1, 2]')", "print('[1,2]')", "print('[1.000001, 2]')"]
    score = evaluator.score_item(
        item, [Prediction(item.id, f"```python\n{code}\n```\n", index) for index, code in enumerate(answers)]
    )
    assert [sample["verdict"] for sample in score.detail["samples"]] == ["passed", "wrong_answer", "wrong_answer"]
