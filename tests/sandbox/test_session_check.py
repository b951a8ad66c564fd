"""Python's "compile" (a syntax check) runs in the program's own session when the run's limits are
known: one sandbox per program instead of two, with the same verdict and message as the check in a
sandbox of its own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evaluators.sandbox import Limits, Sandbox
from evaluators.sandbox.host import Host

pytestmark = pytest.mark.toolchains

LIMITS = Limits(wall_seconds=10.0)
#: what CPython 3.11 prints for these sources (its own file, line and caret), written out by hand
SYNTAX_ERRORS = {
    "def f(:\n    pass\n": '  File "/prog/main.py", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n',
    "x = 1\n  y = 2\n": '  File "/prog/main.py", line 2\n    y = 2\nIndentationError: unexpected indent\n',
    "print('a'\n": "  File \"/prog/main.py\", line 1\n    print('a'\n         ^\nSyntaxError: '(' was never closed\n",
}


@pytest.fixture()
def launches(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The commands of every sandbox started meanwhile (each is one bwrap)."""
    started: list[list[str]] = []
    real = Host.launch

    def counting(self: Host, command: list[str], *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        started.append(command)
        return real(self, command, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Host, "launch", counting)
    yield started


@pytest.mark.parametrize("source", sorted(SYNTAX_ERRORS))
def test_a_syntax_error_is_a_compile_error_with_the_interpreters_message(
    sandbox: Sandbox, launches: list[list[str]], source: str
) -> None:
    with sandbox.program("python", source, run_limits=LIMITS) as checked:
        assert checked.compile_result.status == "compile_error"
        assert checked.compile_result.output == SYNTAX_ERRORS[source]
    assert len(launches) == 1 and any("supervisor.py" in arg for arg in launches[0])  # the session, no compile sandbox
    with sandbox.program("python", source) as alone:  # without the run's limits: a sandbox of its own, as before
        assert alone.compile_result.status == "compile_error"
        assert alone.compile_result.output == SYNTAX_ERRORS[source]


def test_the_tests_run_in_the_session_the_check_ran_in(sandbox: Sandbox, launches: list[list[str]]) -> None:
    source = "import sys\nprint(sys.argv, __name__, int(input()) * 2)\n"
    with sandbox.program("python", source, run_limits=LIMITS) as program:
        assert program.compile_result.ok, program.compile_result.output
        with program.session(LIMITS) as session:
            first, second = session.run("21\n"), session.run("5\n")
    assert (first.status, first.stdout) == ("ok", "['/prog/main.py'] __main__ 42\n")
    assert second.stdout == "['/prog/main.py'] __main__ 10\n"
    assert len(launches) == 1  # one sandbox for the check and both tests


def test_a_session_with_other_limits_is_a_new_one(sandbox: Sandbox, launches: list[list[str]]) -> None:
    """The checked session is handed over only for the limits it was started with; otherwise it is
    closed and the tests get their own."""
    with sandbox.program("python", "print(len(input()))\n", run_limits=LIMITS) as program:
        assert program.compile_result.ok
        with program.session(Limits(wall_seconds=5.0)) as session:
            assert session.run("abc\n").stdout == "3\n"
        assert len(launches) == 2 and program._session is None
        with program.session(LIMITS) as again:
            assert again.run("ab\n").stdout == "2\n"
    assert len(launches) == 3
