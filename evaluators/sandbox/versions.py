"""Toolchain version strings for every language, probed inside the sandbox and cached."""

from __future__ import annotations

import threading

from .command import fill_command
from .languages import LANGUAGES
from .limits import Limits
from .results import decode_output
from .sandbox import Sandbox

_cache: dict[str, str] | None = None
_lock = threading.Lock()


def _probe(sandbox: Sandbox, key: str) -> str:
    lang = LANGUAGES[key]
    limits = Limits(wall_seconds=60.0, cpu_seconds=60.0, memory_mb=2048, processes=256)
    env = {k: v.format(heap_mb=256, mem_mb=2048, prog="/prog", tc="/opt/toolchains")
           for k, v in {**lang.env, **lang.compile_env}.items()}
    raw = sandbox.execute(fill_command(lang.version_cmd, limits), limits=limits, prog_dir=None,
                          writable_prog=False, stdin=b"", env=env, extra_binds=())
    text = decode_output(raw.stdout + raw.stderr).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "warning" not in ln.lower()]
    if raw.exit_code != 0 and not lines:
        return "unavailable"
    first = lines[0] if lines else "unknown"
    if key == "typescript":
        return f"{first} (tsc, on node)"
    return first


def toolchain_versions(*, refresh: bool = False) -> dict[str, str]:
    """Each language's compiler/runtime version string, e.g. ``{"go": "go version go1.27.3 ..."}``."""
    global _cache
    with _lock:
        if _cache is None or refresh:
            sandbox = Sandbox()
            _cache = {key: _probe(sandbox, key) for key in LANGUAGES}
        return dict(_cache)
