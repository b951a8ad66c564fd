"""What `make run` is still installing behind the site, for the pages to say which boards are ready.

``scripts/run-embedded`` serves the site first and installs the rest behind it (the demo judge, the sandbox's
toolchains, the arena's search index), recording each phase's state in ``VAR_DIR/setup-status.json`` with
``python -m leaderboard.setup_status PATH PHASE STATE`` (Django-free: the script calls it between steps).
Every page shows :func:`setup_notice` while a phase is not ready: what is installing, for how long, and
which boards wait for it (runs are queued meanwhile and scored once the workers start). A deployment
(``scripts/serve``) writes no file, so nothing is shown.

The scoring workers start once the toolchains are in (``workers``); a judged board's run taken before the judge
answers goes back to its queue for a while (``leaderboard.chains.execution.run_waits_for``), so a judge-free board
(Multi-LCB) is scored without waiting for the judge; so does a run whose programs import the data sandbox's analysis
libraries (``analysis``) while they are installed, behind the workers. A waiting run's page says which phases it
waits for (:func:`waits_for`), with how long each took at the last `make run` (``setup-durations.json``, kept
across starts).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FILE_NAME = "setup-status.json"
#: each phase's last install time (seconds from "installing" to "ready"), kept across `make run`s
DURATIONS_NAME = "setup-durations.json"
STATES = ("waiting", "installing", "ready", "failed")
#: each phase: its label and what waits for it (the boards and features it makes ready)
PHASES: dict[str, tuple[str, str]] = {
    "judge": (
        "The demo judge",
        "PoliCon, CausalPitfalls (direct and code-assisted) and IndicVisionBench are scored "
        "once it is up, with their baseline rows first",
    ),
    "toolchains": (
        "The sandbox's toolchains",
        "Multi-LCB's twelve languages (C++, Java, Python, Go, Rust, Kotlin, Scala, "
        "C#, Ruby, PHP, JavaScript, TypeScript) run once they are installed",
    ),
    "analysis": (
        "The data sandbox's analysis libraries",
        "CausalPitfalls' code-assisted programs (pandas, SciPy, statsmodels, scikit-learn) run once they are installed",
    ),
    "search": ("The arena's search index", "the Search Arena's contestants answer once it is built"),
    "workers": (
        "The scoring workers",
        "queued runs are scored once the toolchains are ready (a judged board's once the judge is up too)",
    ),
}
#: what a waiting run is told about each phase it waits for (then its state, how long so far, and how long it took last)
WAITING_WORDS: dict[str, str] = {
    "workers": "No worker scores runs yet: the scoring workers start once the sandbox's toolchains are installed",
    "toolchains": "The sandbox's toolchains are being set up",
    "judge": "This board's judge, the demo judge, is being set up; its runs are scored once it answers",
    "analysis": "The data sandbox's analysis libraries, which this board's programs import, are being installed",
}


@dataclass(frozen=True)
class PhaseStatus:
    """One phase as a page shows it."""

    key: str
    label: str
    state: str
    minutes: float  # since it entered this state
    waits: str
    last_minutes: float | None = None  # how long it took to get ready at the last `make run` (None: never recorded)

    @property
    def waiting_sentence(self) -> str:
        """What a run waiting for this phase is told: what it waits for, for how long so far, and roughly how
        long it took at the last start."""
        took = (
            f"; it took about {max(1, round(self.last_minutes))} min at the last start"
            if self.last_minutes is not None
            else ""
        )
        return f"{WAITING_WORDS[self.key]} ({self.state} for {round(self.minutes)} min{took})."


def record(path: Path, phase: str, state: str, *, now: float | None = None) -> None:
    """Set ``phase`` to ``state`` in the status file at ``path`` (written whole, atomically)."""
    if phase not in PHASES:
        raise ValueError(f"phase: unknown {phase!r}; expected one of {', '.join(PHASES)}")
    if state not in STATES:
        raise ValueError(f"state: unknown {state!r}; expected one of {', '.join(STATES)}")
    now = now if now is not None else time.time()
    path.parent.mkdir(parents=True, exist_ok=True)
    # the phases behind the site record their states at once: one read-modify-write at a time, none lost
    with open(path.parent / f".{path.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = _read(path)
        previous = data.get("phases", {}).get(phase)
        data.setdefault("phases", {})[phase] = {"state": state, "since": now}
        _write(path, data)
        if state == "ready" and isinstance(previous, dict) and previous.get("state") == "installing":
            durations = _read(path.parent / DURATIONS_NAME)
            durations[phase] = max(0.0, now - float(previous.get("since") or now))
            _write(path.parent / DURATIONS_NAME, durations)


def _write(path: Path, data: dict[str, Any]) -> None:
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
    path = path or status_path()
    phases = _read(path).get("phases") or {}
    durations = _read(path.parent / DURATIONS_NAME)
    now = now if now is not None else time.time()
    pending = []
    for key, (label, waits) in PHASES.items():
        entry = phases.get(key)
        if isinstance(entry, dict) and entry.get("state") in STATES and entry["state"] != "ready":
            since = float(entry.get("since") or now)
            last = durations.get(key)
            pending.append(
                PhaseStatus(
                    key,
                    label,
                    str(entry["state"]),
                    max(0.0, (now - since) / 60),
                    waits,
                    float(last) / 60 if isinstance(last, (int, float)) else None,
                )
            )
    return pending


def waits_for(
    *, judged: bool, analysis: bool = False, path: Path | None = None, now: float | None = None
) -> list[PhaseStatus]:
    """The phases a waiting run of a board waits for, not ready yet and not failed: the scoring workers and
    what they wait for (the toolchains), the judge for a ``judged`` board, and the analysis libraries for a board
    whose programs import them (``analysis``). Empty where no setup is recorded."""
    pending = {phase.key: phase for phase in setup_notice(path, now=now) if phase.state != "failed"}
    keys = ("workers", "toolchains") + (("judge",) if judged else ()) + (("analysis",) if analysis else ())
    return [pending[key] for key in keys if key in pending]


def judge_pending(path: Path | None = None) -> bool:
    """Whether the judge is still being set up (waiting or installing; not failed, where its runs fail as they
    would without one)."""
    return any(phase.key == "judge" for phase in waits_for(judged=True, path=path))


def analysis_pending(path: Path | None = None) -> bool:
    """Whether the data sandbox's analysis libraries are still being installed (waiting or installing; not failed)."""
    return any(phase.key == "analysis" for phase in waits_for(judged=False, analysis=True, path=path))


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
