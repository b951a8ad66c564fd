"""A+B in all twelve languages, the public API shape, and toolchain versions."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from programs import A_PLUS_B

from evaluators.sandbox import LANGUAGES, Limits, Sandbox, toolchain_versions

EXPECTED_FENCES = {"python": "python", "cpp": "cpp", "java": "java", "csharp": "csharp", "go": "go",
                   "rust": "rust", "javascript": "javascript", "typescript": "typescript", "ruby": "ruby",
                   "php": "php", "kotlin": "kotlin", "scala": "scala"}


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
    import evaluators.sandbox.core as core
    from evaluators.core import InfrastructureError
    from evaluators.sandbox import SandboxUnavailable

    monkeypatch.setattr(core, "BWRAP", str(tmp_path / "no-bwrap-here"))
    with pytest.raises(SandboxUnavailable, match="install the Debian package bubblewrap.*refusing to run untrusted code unsandboxed") as info:
        core.Sandbox(base_dir=tmp_path)
    assert isinstance(info.value, InfrastructureError)  # workers retry it and never charge the submitter
