"""Toolchain version strings for every language, probed inside the sandbox and cached.

A probe is a sandboxed ``--version`` run (about a third of a second each, twelve languages), so the
answers are kept in memory for the process and on disk beside the toolchains
(``.toolchains/.versions.json``) for the next one: the command line no longer spends seconds on them
at every call. The file is used only while its fingerprint holds: the version commands, Debian's
package database (``apt-get`` changes it) and every top-level toolchain folder's modification time
(``scripts/install-toolchains`` replaces them). Probes that do run, run four at a time.
"""

from __future__ import annotations

import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import command
from .command import fill_command
from .languages import LANGUAGES
from .limits import Limits
from .results import decode_output
from .sandbox import Sandbox

_cache: dict[str, str] | None = None
_lock = threading.Lock()
#: Debian's package database: it changes whenever a package is installed or upgraded
DPKG_STATUS = Path("/var/lib/dpkg/status")
CACHE_NAME = ".versions.json"


def _probe(sandbox: Sandbox, key: str) -> str:
    lang = LANGUAGES[key]
    limits = Limits(wall_seconds=60.0, cpu_seconds=60.0, memory_mb=2048, processes=256)
    env = {
        k: v.format(heap_mb=256, mem_mb=2048, prog="/prog", tc="/opt/toolchains")
        for k, v in {**lang.env, **lang.compile_env}.items()
    }
    raw = sandbox.execute(
        fill_command(lang.version_cmd, limits),
        limits=limits,
        prog_dir=None,
        writable_prog=False,
        stdin=b"",
        env=env,
        extra_binds=(),
    )
    text = decode_output(raw.stdout + raw.stderr).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "warning" not in ln.lower()]
    if raw.exit_code != 0 and not lines:
        return "unavailable"
    first = lines[0] if lines else "unknown"
    if key == "typescript":
        return f"{first} (tsc, on node)"
    return first


def fingerprint() -> str:
    """What the probes' answers depend on: the commands, the package database and the toolchain folders."""
    digest = hashlib.sha256()
    for key in sorted(LANGUAGES):
        digest.update(f"{key}:{LANGUAGES[key].version_cmd}\n".encode())
    for path in (
        [DPKG_STATUS, *sorted(p for p in command.TOOLCHAINS.glob("*") if p.name != CACHE_NAME)]
        if command.TOOLCHAINS.is_dir()
        else [DPKG_STATUS]
    ):
        try:
            stat = path.stat()
        except OSError:
            continue
        digest.update(f"{path.name}:{stat.st_mtime_ns}:{stat.st_size if path.is_file() else 0}\n".encode())
    return digest.hexdigest()


def _read_file(expected: str) -> dict[str, str] | None:
    try:
        stored = json.loads((command.TOOLCHAINS / CACHE_NAME).read_text())
    except (OSError, ValueError):
        return None
    versions = stored.get("versions") if isinstance(stored, dict) and stored.get("fingerprint") == expected else None
    if not isinstance(versions, dict) or set(versions) != set(LANGUAGES):
        return None
    return {str(k): str(v) for k, v in versions.items()}


def _write_file(found: str, versions: dict[str, str]) -> None:
    try:
        command.TOOLCHAINS.mkdir(parents=True, exist_ok=True)
        target = command.TOOLCHAINS / CACHE_NAME
        partial = target.with_suffix(".tmp")
        partial.write_text(json.dumps({"fingerprint": found, "versions": versions}, indent=1))
        partial.replace(target)
    except OSError:  # a read-only checkout: probe again next time
        pass


def toolchain_versions(*, refresh: bool = False) -> dict[str, str]:
    """Each language's compiler/runtime version string, e.g. ``{"go": "go version go1.27.3 ..."}``."""
    global _cache
    with _lock:
        if _cache is None or refresh:
            found = fingerprint()
            stored = None if refresh else _read_file(found)
            if stored is None:
                sandbox = Sandbox()
                with ThreadPoolExecutor(max_workers=4, thread_name_prefix="toolchain-probe") as pool:
                    stored = dict(zip(LANGUAGES, pool.map(lambda key: _probe(sandbox, key), LANGUAGES)))
                # "unavailable" is not kept on disk: a toolchain that failed to start is asked again
                if "unavailable" not in stored.values():
                    _write_file(found, stored)
            _cache = stored
        return dict(_cache)
