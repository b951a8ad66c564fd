"""A Go compile's build cache (evaluators/sandbox/gocache.py): the warm cache and the layer of its
directories are shared by every Go compile of a Sandbox, read-only; each compile writes into a layer of
its own, removed with it. What must stay isolated, tried here with a compile command that does what a
compromised compiler could (write, overwrite, delete, chmod in /gocache): nothing of one program's compile
reaches the next program's, nor the shared layers, nor the warm cache on the host, and a real Go program
still compiles and runs after it. (Before, ``git archive 7910623``, each compile mirrored the warm
cache's 257 directories in its own layer, and there was no shared layer to test.)"""

from __future__ import annotations

import dataclasses
import os
import stat
from pathlib import Path

import pytest

from evaluators.sandbox import LANGUAGES, TOOLCHAINS, Limits, Sandbox
from evaluators.sandbox.gocache import directory_layer

WARM = TOOLCHAINS / "gocache"

pytestmark = [
    pytest.mark.toolchains,
    pytest.mark.skipif(os.geteuid() != 0, reason="the cache's overlay is mounted only when the sandbox runs as root"),
    pytest.mark.skipif(not (WARM / "00").is_dir(), reason="no warm Go build cache installed"),
]

#: what a compromised compiler could do in /gocache; it says first what an earlier compile left
HOSTILE = (
    "test -e /gocache/left && echo SEEN-ROOT; test -e /gocache/00/left-a && echo SEEN-ENTRY; "
    "echo entries $(ls /gocache/01 | wc -l); "
    "echo x > /gocache/left; echo x > /gocache/00/left-a; echo 0 > /gocache/trim.txt; rm -f /gocache/01/*; "
    "chmod 000 /gocache/02; touch /prog/main; echo done"
)

A_PLUS_B = 'package main\nimport "fmt"\nfunc main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }\n'


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``root`` with its mode and size."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            info = os.lstat(os.path.join(dirpath, name))
            found[os.path.relpath(os.path.join(dirpath, name), root)] = (info.st_mode, info.st_size)
    return found


def test_a_hostile_compile_reaches_neither_the_next_program_nor_the_shared_layers(sandbox: Sandbox) -> None:
    if sandbox.host.layout is None:
        pytest.skip("runs are not staged here: each compile gets a hard-linked copy instead")
    layer = directory_layer(sandbox.work_dir, WARM)
    shared_before, warm_before = (
        listing(layer),
        {name: os.lstat(WARM / "01" / name) for name in os.listdir(WARM / "01")},
    )
    assert shared_before["trim.txt"][0] & 0o777 == 0o444
    assert all(stat.S_IMODE(mode) == 0o777 for mode, _ in (v for k, v in shared_before.items() if k != "trim.txt"))
    hostile = dataclasses.replace(LANGUAGES["go"], compile_cmd=("/bin/sh", "-c", HOSTILE))
    outputs = []
    for _ in range(2):
        with sandbox.program(hostile, "package main\n") as program:
            outputs.append(program.compile_result.output)
    entries = f"entries {len(warm_before)}"
    assert all("done" in out and entries in out and "SEEN" not in out for out in outputs), outputs
    assert listing(layer) == shared_before
    assert {name: os.lstat(WARM / "01" / name) for name in os.listdir(WARM / "01")} == warm_before
    with sandbox.program("go", A_PLUS_B) as program:
        assert program.compile_result.ok, program.compile_result.output
        with program.session(Limits(wall_seconds=20)) as session:
            assert session.run("1 2\n").stdout == "3\n"
        assert not (program.root / "gocache").exists()  # the program's own layer goes after its compile
    assert listing(layer) == shared_before


def test_go_never_trims_the_shared_cache(sandbox: Sandbox) -> None:
    """The shared layer's trim.txt says it was trimmed when the layer was made (go trims a cache whose
    trim.txt is a day old: it would walk the whole warm cache in every compile, and after five days
    delete every standard package's entry from the compile's view)."""
    if sandbox.host.layout is None:
        pytest.skip("runs are not staged here")
    layer = directory_layer(sandbox.work_dir, WARM)
    made = int((layer / "trim.txt").read_text())
    assert abs(made - os.stat(layer).st_mtime) < 60
    reader = dataclasses.replace(
        LANGUAGES["go"], compile_cmd=("/bin/sh", "-c", "cat /gocache/trim.txt; touch /prog/main")
    )
    with sandbox.program(reader, "package main\n") as program:
        assert program.compile_result.output.strip() == str(made)
