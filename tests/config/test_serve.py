"""The production server as an operator starts it: ``scripts/serve`` (``make serve``) with one settings
file, on this machine's Postgres (its own database), Redis (its own db) and the suite's moto S3. It
refuses to start without its services, and otherwise migrates, syncs the boards, serves pages through
gunicorn with WhiteNoise's static files and the page cache, and starts the workers and the beat; a
SIGTERM stops every process it started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest

REPO = Path(__file__).resolve().parents[2]
DATABASE = "leaderboard_serve_test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), b""
    except OSError:
        return 0, {}, b""


def test_serve_refuses_without_its_services(tmp_path) -> None:
    env = {"PATH": os.environ["PATH"], "LEADERBOARD_ENV_FILE": str(tmp_path / "missing.env")}
    done = subprocess.run(["scripts/serve"], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    for name in ("DATABASE_URL", "CELERY_BROKER_URL", "S3_BUCKET", "DJANGO_SECRET_KEY"):
        assert name in done.stderr


def test_serve_runs_the_site_workers_and_beat_from_one_settings_file(tmp_path) -> None:
    server = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DATABASE}")
    port = free_port()
    settings = tmp_path / "leaderboard.env"
    settings.write_text(
        "\n".join(
            [
                "DJANGO_SECRET_KEY=serve-test-secret-key-0123456789abcdefghijklmnopqrstuvwxyz",
                f"DATABASE_URL={server}/{DATABASE}",
                "CELERY_BROKER_URL=redis://127.0.0.1:6379/15",
                f"S3_BUCKET={os.environ['S3_BUCKET']}",
                f"S3_ENDPOINT_URL={os.environ['S3_ENDPOINT_URL']}",
                "S3_ACCESS_KEY_ID=test",
                "S3_SECRET_ACCESS_KEY=test",
                f"LEADERBOARD_BIND=127.0.0.1:{port}",
                "LEADERBOARD_WEB_WORKERS=1",
                "LEADERBOARD_WEB_THREADS=2",
                "LEADERBOARD_CPU_WORKERS=1",
                "LEADERBOARD_ARENA_THREADS=1",
                "LEADERBOARD_GPU_WORKER=0",
                f"LEADERBOARD_LOG_DIR={tmp_path / 'log'}",
                f"LEADERBOARD_VAR_DIR={tmp_path / 'var'}",
                "",
            ]
        )
    )
    env = {"PATH": os.environ["PATH"], "LEADERBOARD_ENV_FILE": str(settings), "HOME": os.environ.get("HOME", "/root")}
    proc = subprocess.Popen(
        ["scripts/serve"],
        cwd=REPO,
        env=env,
        stdout=(tmp_path / "serve.out").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while get(f"{base}/healthz")[0] != 200:
            assert proc.poll() is None, (tmp_path / "serve.out").read_text()[-3000:]
            assert time.monotonic() < deadline, "the server did not answer within 120 s"
            time.sleep(0.5)
        status, _headers, body = get(f"{base}/benchmarks/multi-lcb/")
        assert status == 200 and b"Multi-LCB" in body  # the boards were synced on a fresh database
        assert get(f"{base}/benchmarks/multi-lcb/")[1].get("X-Page-Cache") == "hit"
        css = get(f"{base}/static/css/site.css")
        assert css[0] == 200 and css[1]["Content-Type"].startswith("text/css")
        assert "debug" not in get(f"{base}/no-such-page/")[2].decode().lower()
        log = tmp_path / "log"
        deadline = time.monotonic() + 60
        while not (log / "beat.log").exists() or "Sending due task" not in (log / "beat.log").read_text():
            assert time.monotonic() < deadline, "the beat did not tick"
            time.sleep(0.5)
        for name in ("worker-cpu.log", "worker-arena.log"):
            assert "ready" in (log / name).read_text(), name
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail("make serve did not stop on SIGTERM")
        time.sleep(1)
        left = subprocess.run(
            ["pgrep", "-s", str(proc.pid)], capture_output=True, text=True
        ).stdout.split()  # its session
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    assert left == [], "processes of the server outlived it"
