"""A Go compile's build cache: the warm one (``.toolchains/gocache``, the standard library built once by
``scripts/install-toolchains``) read-only under a writable layer of the program's own, an overlay the
launcher mounts at /gocache (``Host.gocache_overlay``).

The warm cache's directories are root's, and overlayfs copies a directory up with its owner and mode
before anything is written into it, so the compile's uid could not add an entry. Before, each compile
made its writable layer a mirror of the warm cache's 257 directories owned by the compile's uid, and
removed them afterwards: 2.6-7.6 ms per Go program at load 15-18, and the removal as much again,
outside the compile's own time (``CompileResult.seconds``), which Multi-LCB counts in the program's
tests. Now the writable layer starts empty (its root the compile's uid's) and a third layer between
the two, ``directory_layer``, holds the warm cache's directories alone, empty and writable by anyone
(mode 0777), made once per Sandbox and shared, read-only, by every compile: a directory the compiler
writes into is copied up from it into the program's own layer. Nothing a compile writes reaches the
shared layers (overlayfs writes only to the upper one), so what one program's compile left never
reaches the next (``tests/sandbox/test_gocache.py``).

The layer also holds a fresh ``trim.txt`` (the time of the cache's last trim, which ``go`` reads first):
the warm cache's says the day it was built, and a day later every compile would walk the whole cache to
trim it, and five days later delete (whiteout, in its own layer) every standard package's entry, whose
times it cannot update (the files are root's). A layer is made again after ``REFRESH_SECONDS``.
"""

from __future__ import annotations

import functools
import os
import tempfile
import time
from pathlib import Path

#: how long a directory layer's trim.txt is trusted before a new layer is made (go trims after 24 hours)
REFRESH_SECONDS = 12 * 3600


@functools.lru_cache(maxsize=4)
def directories(tree: Path) -> tuple[str, ...]:
    """The directories of ``tree`` (itself first, as "."), relative to it, parents before children: a
    Go build cache's, listed once (it holds thousands of files, which a walk per compile would read)."""
    return tuple(os.path.relpath(dirpath, tree) for dirpath, _dirs, _files in os.walk(tree))


def directory_layer(work_dir: Path, warm: Path) -> Path:
    """The layer of ``warm``'s directories (empty, mode 0777) and a fresh trim.txt, under ``work_dir``
    (the Sandbox's working directory, where the program's own layer is too): made once per
    ``REFRESH_SECONDS``."""
    return _layer(work_dir, warm, int(time.time() // REFRESH_SECONDS))


@functools.lru_cache(maxsize=8)
def _layer(work_dir: Path, warm: Path, _period: int) -> Path:
    layer = Path(tempfile.mkdtemp(prefix="gocache-dirs-", dir=work_dir))
    for relative in directories(warm)[1:]:
        os.mkdir(layer / relative)
    (layer / "trim.txt").write_text(str(int(time.time())))
    os.chmod(layer / "trim.txt", 0o444)
    for relative in directories(warm):
        os.chmod(layer / relative, 0o777)  # mkdir's mode is cut by the umask: chmod is not
    return layer
