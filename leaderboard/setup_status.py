"""What `make run` is still installing behind the site, for the pages to say which boards are ready.

``scripts/run-embedded`` serves the site first and installs the rest behind it (the demo judge, the sandbox's
toolchains, the arena's search index), recording each phase's state in ``VAR_DIR/setup-status.json`` with
``python -m leaderboard.setup_status PATH PHASE STATE`` (Django-free: the script calls it between steps).
Every page shows :func:`setup_notice` while a phase is not ready: what is installing, for how long, and
which boards wait for it (runs are queued meanwhile and scored once the workers start). A deployment
(``scripts/serve``) writes no file, so nothing is shown.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE_NAME = "setup-status.json"
STATES = ("waiting", "installing", "ready", "failed")
#: each phase: its label and what waits for it (the boards and features it makes ready)
PHASES: dict[str, tuple[str, str]] = {
    "judge": ("The demo judge", "PoliCon, CausalPitfalls (direct and code-assisted) and IndicVisionBench are scored "
                                "once it is up, with their baseline rows first"),
    "toolchains": ("The sandbox's toolchains", "Multi-LCB's twelve languages (C++, Java, Python, Go, Rust, Kotlin, Scala, "
                                               "C#, Ruby, PHP, JavaScript, TypeScript) and CausalPitfalls' code-assisted "
                                               "programs run once they are installed"),
    "search": ("The arena's search index", "the Search Arena's contestants answer once it is built"),
    "workers": ("The scoring workers", "queued runs are scored once the judge and the toolchains are ready"),
}


@dataclass(frozen=True)
class PhaseStatus:
    """One phase as a page shows it."""

    key: str
    label: str
    state: str
    minutes: float  # since it entered this state
    waits: str


def record(path: Path, phase: str, state: str, *, now: float | None = None) -> None:
    """Set ``phase`` to ``state`` in the status file at ``path`` (written whole, atomically)."""
    if phase not in PHASES:
        raise ValueError(f"phase: unknown {phase!r}; expected one of {', '.join(PHASES)}")
    if state not in STATES:
        raise ValueError(f"state: unknown {state!r}; expected one of {', '.join(STATES)}")
    data = _read(path)
    data.setdefault("phases", {})[phase] = {"state": state, "since": now if now is not None else time.time()}
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as handle:
        json.dump(data, handle)
    os.replace(handle.name, path)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def status_path() -> Path:
    from django.conf import settings

    return Path(settings.VAR_DIR) / FILE_NAME


def setup_notice(path: Path | None = None, *, now: float | None = None) -> list[PhaseStatus]:
    """The phases not ready yet (empty once everything is, or where no setup is recorded)."""
    phases = _read(path or status_path()).get("phases") or {}
    now = now if now is not None else time.time()
    pending = []
    for key, (label, waits) in PHASES.items():
        entry = phases.get(key)
        if isinstance(entry, dict) and entry.get("state") in STATES and entry["state"] != "ready":
            since = float(entry.get("since") or now)
            pending.append(PhaseStatus(key, label, str(entry["state"]), max(0.0, (now - since) / 60), waits))
    return pending


def cache_token(path: Path | None = None) -> str:
    """Changes whenever the recorded setup changes: cached pages are kept apart by it."""
    try:
        stat = (path or status_path()).stat()
    except OSError:
        return "none"
    return f"{stat.st_mtime_ns}"


def setup_status(request: Any) -> dict[str, Any]:
    """Template context processor: ``setup_pending``, the phases still installing."""
    return {"setup_pending": setup_notice()}


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: python -m leaderboard.setup_status STATUS_FILE PHASE STATE")
    record(Path(sys.argv[1]), sys.argv[2], sys.argv[3])
