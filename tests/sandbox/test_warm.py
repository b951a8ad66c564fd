"""Warm compilers: the Kotlin and Scala class-data sharing archives that scripts/install-toolchains
makes inside the sandbox match the sandbox's JDK and class paths (a compile that *requires* the
archive, -Xshare:on, succeeds), and a compile without any archive still succeeds with the same result
and no word about CDS in its output (so a missing or stale archive can only cost time)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from evaluators.sandbox import LANGUAGES, Sandbox
from evaluators.sandbox.warm import ARCHIVE_DIR, PROGRAMS

pytestmark = pytest.mark.toolchains


def variant(language: str, share: str, archive: str | None = None):
    """The language with its compile's -Xshare mode (and archive path) changed."""
    lang = LANGUAGES[language]

    def swap(text: str) -> str:
        out = text.replace("-Xshare:auto", share)
        return out if archive is None else out.replace(f"{{tc}}/cds/{language}.jsa", archive)

    return replace(
        lang,
        compile_cmd=tuple(swap(p) for p in lang.compile_cmd or ()),
        compile_env={k: swap(v) for k, v in lang.compile_env.items()},
    )


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_the_archive_matches_the_sandboxs_jvm_and_a_missing_one_changes_nothing(
    sandbox: Sandbox, language: str
) -> None:
    assert (ARCHIVE_DIR / f"{language}.jsa").is_file(), "scripts/install-toolchains makes the archives"
    with sandbox.program(variant(language, "-Xshare:on"), PROGRAMS[language]) as required:
        assert required.compile_result.ok, required.compile_result.output  # -Xshare:on fails on an unusable archive
    with sandbox.program(variant(language, "-Xshare:auto", "/tmp/no-such-archive.jsa"), PROGRAMS[language]) as cold:
        assert cold.compile_result.ok and "cds" not in cold.compile_result.output.lower(), cold.compile_result.output
        warm = sandbox.program(language, PROGRAMS[language])
        with warm:
            assert warm.compile_result.ok
            stdin = "5 3 9 1\n"
            from evaluators.sandbox import Limits

            limits = Limits(wall_seconds=20, cpu_seconds=20, memory_mb=1024)
            assert cold.run(stdin, limits).stdout == warm.run(stdin, limits).stdout == "1 3 5 918\n"
