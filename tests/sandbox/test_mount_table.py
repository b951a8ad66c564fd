"""The sandbox's mount table says nothing about the host (issue 45): a program that reads
``/proc/self/mountinfo`` or ``/proc/self/mounts`` (a test, and a compile through Rust's ``include_str!``) finds
neither the host's paths (the checkout, where the toolchains are, the sandbox's base directory under
TMPDIR, the program's own directory on the host) nor the run's host uid (which a tmpfs mounted inside
the sandbox's user namespace printed as its owner, ``uid=<host uid>``).

Each check failed before the sandbox staged its mounts on file systems of its own (the mount table
printed ``/work/.../.toolchains /opt/toolchains``, ``/tmp/llm-sandbox/cpp-.../prog /prog`` and
``uid=1030053,gid=1030053`` on /, /dev and /tmp)."""

from __future__ import annotations

import os
import re

import pytest

from evaluators.sandbox import Sandbox
from evaluators.sandbox.command import REPO_ROOT, TOOLCHAINS
from evaluators.sandbox.programs import Program
from tests.sandbox.test_attacks import SHORT

toolchains = pytest.mark.toolchains

#: a tmpfs's owner as the kernel prints it among a mount's options (not ext4's resuid/resgid)
OWNER_OPTION = re.compile(r"(?<![a-z])[ug]id=\d+")

READ_CPP = r"""
#include <fstream>
#include <iostream>
int main() {
    for (const char *name : {"/proc/self/mountinfo", "/proc/self/mounts", "/proc/1/mountinfo"}) {
        std::ifstream in(name);
        std::cout << "== " << name << "\n" << in.rdbuf() << "\n";
    }
}
"""
READ_PYTHON = """
for name in ("/proc/self/mountinfo", "/proc/self/mounts", "/proc/1/mountinfo"):
    try:
        print("==", name, open(name).read())
    except OSError as exc:
        print("==", name, exc)
"""
#: a compile that quotes the mount table in its error message (rustc reads the file at compile time and
#: the constant's evaluation prints it; g++ reads a /proc file's size, 0, and includes nothing)
INCLUDE_RUST = 'const S: &str = include_str!("/proc/self/mountinfo");\nconst _: () = panic!("{}", S);\nfn main() {}\n'


def host_paths(sandbox: Sandbox, program: Program) -> list[str]:
    """Where things are on the host that a program must not learn."""
    paths = {
        str(REPO_ROOT),
        os.path.realpath(REPO_ROOT),
        str(TOOLCHAINS),
        os.path.realpath(TOOLCHAINS),
        str(sandbox.base_dir),
        os.path.realpath(sandbox.base_dir),
        str(program.root),
        os.path.realpath(program.root),
    }
    return sorted(path for path in paths if path not in ("/", "/tmp"))


def assert_says_nothing_of_the_host(sandbox: Sandbox, program: Program, table: str) -> None:
    assert "/opt/toolchains" in table and "/prog" in table, table  # it was read
    for path in host_paths(sandbox, program):
        assert path not in table, (path, table)
    assert OWNER_OPTION.findall(table) == [], table
    for uid in sandbox.uids_used:
        assert not re.search(rf"(?<!\d){uid}(?!\d)", table), (uid, table)


@toolchains
def test_a_native_programs_mount_table_names_no_host_path_nor_uid(sandbox: Sandbox) -> None:
    with sandbox.program("cpp", READ_CPP) as program:
        assert program.compile_result.ok, program.compile_result.output
        result = program.run("", SHORT)
        assert result.status == "ok", result
        assert result.stdout.count("== ") == 3
        assert_says_nothing_of_the_host(sandbox, program, result.stdout)


@toolchains
def test_a_compile_quoting_the_mount_table_names_no_host_path_nor_uid(sandbox: Sandbox) -> None:
    with sandbox.program("rust", INCLUDE_RUST) as program:
        assert program.compile_result.status == "compile_error"
        output = program.compile_result.output
        assert "/opt/toolchains" in output and "/prog" in output, output  # it was read
        for path in host_paths(sandbox, program):
            assert path not in output, (path, output)
        assert OWNER_OPTION.findall(output) == [], output


def test_a_python_programs_mount_table_names_no_host_path_nor_uid(sandbox: Sandbox) -> None:
    with sandbox.program("python", READ_PYTHON, run_limits=SHORT) as program:
        assert program.compile_result.ok, program.compile_result.output
        with program.session(SHORT) as session:
            first, second = session.run(""), session.run("")
        for result in (first, second):
            assert result.status == "ok", result
            assert result.stdout.count("== ") == 3
            assert_says_nothing_of_the_host(sandbox, program, result.stdout)
