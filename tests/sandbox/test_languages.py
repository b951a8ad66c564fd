"""A+B in all twelve languages, the public API shape, and toolchain versions."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from programs import A_PLUS_B

from evaluators.sandbox import LANGUAGES, Limits, Sandbox, toolchain_versions

EXPECTED_FENCES = {
    "python": "python",
    "cpp": "cpp",
    "java": "java",
    "csharp": "csharp",
    "go": "go",
    "rust": "rust",
    "javascript": "javascript",
    "typescript": "typescript",
    "ruby": "ruby",
    "php": "php",
    "kotlin": "kotlin",
    "scala": "scala",
}


def test_language_table() -> None:
    assert set(LANGUAGES) == set(EXPECTED_FENCES)
    for key, lang in LANGUAGES.items():
        assert lang.key == key
        assert lang.fence == EXPECTED_FENCES[key]
        assert lang.display_name and lang.source_name and lang.run_cmd and lang.version_cmd
    assert LANGUAGES["java"].source_name == "Main.java"


@pytest.mark.toolchains
@pytest.mark.parametrize("language", sorted(A_PLUS_B))
def test_a_plus_b(sandbox: Sandbox, language: str) -> None:
    with sandbox.program(language, A_PLUS_B[language]) as prog:
        assert prog.compile_result.ok, prog.compile_result.output
        for a, b in ((1, 2), (-5, 1000000007)):
            r = prog.run(f"{a} {b}\n", Limits(wall_seconds=10))
            assert r.status == "ok", r
            assert r.exit_code == 0
            assert r.stdout.strip() == str(a + b)
            assert r.wall_seconds > 0


@pytest.mark.toolchains
def test_toolchain_versions() -> None:
    versions = toolchain_versions()
    assert set(versions) == set(LANGUAGES)
    assert all(v and v != "unavailable" for v in versions.values()), versions
    assert "go1.2" in versions["go"]
    assert versions is not toolchain_versions()  # a copy; cached underneath


def test_compile_error(sandbox: Sandbox) -> None:
    with sandbox.program("cpp", "int main() { this is not c++ }") as prog:
        assert not prog.compile_result.ok
        assert prog.compile_result.status == "compile_error"
        assert "error" in prog.compile_result.output
    with sandbox.program("python", "def f(:\n  pass\n") as prog:
        assert prog.compile_result.status == "compile_error"


def test_runtime_error_and_exit_code(sandbox: Sandbox) -> None:
    with sandbox.program("python", "import sys\nprint('partial')\nsys.exit(3)\n") as prog:
        r = prog.run("", Limits(wall_seconds=5))
        assert r.status == "runtime_error" and r.exit_code == 3 and r.stdout == "partial\n"
    with sandbox.program("python", "raise ValueError('boom')\n") as prog:
        r = prog.run("", Limits(wall_seconds=5))
        assert r.status == "runtime_error" and "ValueError" in r.stderr


def test_cleanup_removes_files(sandbox: Sandbox) -> None:
    prog = sandbox.program("python", "print(1)\n")
    with prog:
        root = prog.root
        assert root.exists()
    assert not root.exists()


def test_concurrent_programs(sandbox: Sandbox) -> None:
    def work(i: int) -> str:
        with sandbox.program("python", f"print(int(input()) + {i})\n") as prog:
            return prog.run("10\n", Limits(wall_seconds=10)).stdout.strip()

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(work, range(8)))
    assert results == [str(10 + i) for i in range(8)]


def test_big_input_and_output(sandbox: Sandbox) -> None:
    data = "".join(f"{i}\n" for i in range(200000))
    with sandbox.program("python", "import sys\nsys.stdout.write(sys.stdin.read())\n") as prog:
        r = prog.run(data, Limits(wall_seconds=10))
        assert r.status == "ok" and r.stdout == data


def test_missing_bubblewrap_is_a_clear_error_not_a_fallback(monkeypatch, tmp_path) -> None:
    import evaluators.sandbox.sandbox as sandbox_module
    from evaluators.core import InfrastructureError
    from evaluators.sandbox import SandboxUnavailable

    monkeypatch.setattr(sandbox_module, "BWRAP", str(tmp_path / "no-bwrap-here"))
    with pytest.raises(
        SandboxUnavailable, match=r"install the Debian package bubblewrap.*refusing to run untrusted code unsandboxed"
    ) as info:
        sandbox_module.Sandbox(base_dir=tmp_path)
    assert isinstance(info.value, InfrastructureError)  # workers retry it and never charge the submitter


JAVA_RULE = "Java programs must declare `public class Main` with `public static void main(String[] args)`"
SCALA_RULE = "Scala programs must declare `object Main` (an object, not a class)"


@pytest.mark.toolchains
@pytest.mark.parametrize(
    ("language", "source", "names"),
    [
        (
            "java",
            "class Solution { public static void main(String[] a) { System.out.println(1); } }",
            ("no Main.class", "Solution.class", JAVA_RULE),
        ),
        # javac's own error for a public class in Main.java says nothing of the rule: the rule follows it
        (
            "java",
            "import java.util.*;\n\npublic class Solution {\n  public static void main(String[] a) { "
            "System.out.println(1); }\n}\n",
            ("class Solution is public, should be declared in a file named Solution.java", JAVA_RULE),
        ),
        (
            "java",
            "public class Main { static void solve() { System.out.println(1); } }",  # compiles; java could not start it
            ("Main has no `public static void main(String[] args)`", JAVA_RULE),
        ),
        (
            "java",
            "public class Main { static void main(String[] a) { System.out.println(1); } "
            "}",  # not public: java 17 refuses it
            ("Main has no `public static void main(String[] args)`", JAVA_RULE),
        ),
        (
            "scala",
            "object Solution { def main(args: Array[String]): Unit = println(1) }",
            ("no out/Main.class", "Solution.class", SCALA_RULE),
        ),
        (
            "scala",
            "class Main { def main(args: Array[String]): Unit = println(1) }",  # a class's main is not static
            ("Main has no `public static void main(String[] args)`", SCALA_RULE),
        ),
        (
            "kotlin",
            "fun solve() = println(1)\n",
            ("no entry point", "Kotlin programs must declare a top-level `fun main()`"),
        ),
    ],
)
def test_a_program_without_its_entry_point_is_a_compile_error_that_names_it(
    sandbox: Sandbox, language: str, source: str, names: tuple[str, ...]
) -> None:
    with sandbox.program(language, source) as prog:
        assert prog.compile_result.status == "compile_error"
        for name in names:
            assert name in prog.compile_result.output, prog.compile_result.output


@pytest.mark.toolchains
@pytest.mark.parametrize(
    ("language", "source"),
    [
        (
            "java",
            "class Main { public static void main(String[] a) { System.out.println(7); } }",
        ),  # a package-private class
        (
            "java",
            "class Base { public static void main(String[] a) { System.out.println(7); } }\npublic class Main extends "
            "Base {}\n",
        ),
        ("scala", "object Main extends App { println(7) }"),
        ("scala", "object Main { def main(args: Array[String]): Unit = println(7) }"),
    ],
)
def test_a_program_with_its_entry_point_starts(sandbox: Sandbox, language: str, source: str) -> None:
    """What java starts is not refused: a static main of Main or of its superclass (inherited, which the class file
    alone cannot show), Scala's object with a main or extending App."""
    with sandbox.program(language, source) as prog:
        assert prog.compile_result.ok, prog.compile_result.output
        with prog.session(Limits(wall_seconds=20)) as session:
            assert session.run("").stdout == "7\n"


def test_a_compiler_that_fails_silently_still_gives_a_reason(sandbox: Sandbox, monkeypatch) -> None:
    import dataclasses

    import evaluators.sandbox.sandbox as sandbox_module

    silent = dataclasses.replace(LANGUAGES["python"], compile_cmd=("sh", "-c", "exit 3"))
    monkeypatch.setitem(sandbox_module.LANGUAGES, "python", silent)
    with sandbox.program("python", "print(1)\n") as prog:
        assert prog.compile_result.status == "compile_error"
        assert prog.compile_result.output == "the compiler (sh) exited with status 3 and printed nothing"


def test_cpu_seconds_are_the_programs_even_when_the_wall_limit_kills_it(sandbox: Sandbox) -> None:
    # burns at least 0.3 s of CPU, says so, then waits to be killed by the wall limit: bubblewrap's own
    # rusage never sees a killed program's CPU (nobody reaps it), the run's cpuacct group does
    source = "import time\nwhile time.process_time() < 0.3: pass\nprint('burnt', flush=True)\ntime.sleep(60)\n"
    with sandbox.program("python", source) as prog:
        r = prog.run("", Limits(wall_seconds=4, cpu_seconds=10))
    assert r.status == "timeout" and r.stdout == "burnt\n"
    if sandbox.uses_cgroups:
        assert r.cpu_seconds is not None and r.cpu_seconds >= 0.3, r
    else:
        assert r.cpu_seconds is None  # unknown rather than bubblewrap's few milliseconds


@pytest.mark.skipif(os.geteuid() != 0, reason="an unprivileged caller runs programs as itself")
def test_unreachable_toolchains_are_named_with_their_fix(monkeypatch, tmp_path) -> None:
    import evaluators.sandbox.sandbox as sandbox_module
    from evaluators.sandbox import SandboxUnavailable

    toolchains = tmp_path / "toolchains"
    toolchains.mkdir(mode=0o700)  # the sandbox's uid may not enter it
    monkeypatch.setattr(sandbox_module, "TOOLCHAINS", toolchains)
    with pytest.raises(SandboxUnavailable) as info:
        sandbox_module.Sandbox(base_dir=tmp_path / "base")
    message = str(info.value)
    assert f"cannot reach {toolchains} (Permission denied)" in message
    assert f"chmod -R a+rX {toolchains}" in message
    assert "user namespaces" not in message  # not the cause here


def test_bubblewrap_refusals_are_told_apart() -> None:
    sandbox = Sandbox()
    userns = sandbox._diagnose(
        1,
        "bwrap: No permissions to create new namespace, likely because the "
        "kernel does not allow non-privileged user namespaces.",
    )
    assert "Unprivileged user namespaces must be enabled" in userns
    prog_dir = sandbox.base_dir / "python-x" / "prog"
    unreachable = sandbox._diagnose(
        1, f"bwrap: Can't find source path {sandbox.host.source(prog_dir)}: Permission denied"
    )
    assert f"cannot reach {prog_dir} (Permission denied)" in unreachable  # the host's path, not the staged one
    assert "user namespaces" not in unreachable
    other = sandbox._diagnose(1, "")
    assert "exit 1" in other and "no message" in other


@pytest.mark.toolchains
def test_the_toolchains_named_in_prompts_and_pages_are_the_installed_ones() -> None:
    import re

    from evaluators.multi_lcb.prompts import LANGUAGE_SPECS

    versions = toolchain_versions()
    for key, spec in LANGUAGE_SPECS.items():
        declared = re.search(r"\d+(?:\.\d+)?", spec.toolchain)
        assert declared, spec.toolchain
        pattern = rf"(?<![\d.]){re.escape(declared.group())}(?![\d])"
        assert re.search(pattern, versions[key]), f"{key}: prompts say {spec.toolchain!r}, installed {versions[key]!r}"


@pytest.mark.toolchains
@pytest.mark.parametrize(
    ("language", "source"),
    [
        ("kotlin", "fun main() {\n    val (a, b) = readln().split(' ').map { it.toLong() }\n    println(a + b)\n}\n"),
        (
            "scala",
            "object Main { def main(args: Array[String]): Unit = {\n"
            "  val Array(a, b) = scala.io.StdIn.readLine().split(' ').flatMap(_.toLongOption)\n"
            "  println(a + b) } }\n",
        ),
    ],
)
def test_code_written_for_current_kotlin_and_scala_compiles(sandbox: Sandbox, language: str, source: str) -> None:
    # readln() needs Kotlin 1.6 and toLongOption Scala 2.13: Debian's 1.3 and 2.11 refused both
    with sandbox.program(language, source) as prog:
        assert prog.compile_result.ok, prog.compile_result.output
        assert prog.run("20 22\n", Limits(wall_seconds=10)).stdout == "42\n"
