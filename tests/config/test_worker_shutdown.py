"""A worker's shutdown handler (``workers.celery._stop_model_servers``, run by Celery inside the SIGTERM handler)
imports nothing: a signal handler runs between two bytecodes of the main thread, which may be importing the very
module the handler would import. `make run`'s baseline worker, stopped while it started, logged "ImportError: cannot
import name 'live_servers' from partially initialized module 'evaluators.llm.server'" and stayed in a warm shutdown
for minutes. Here, in a fresh interpreter, the module is left half-imported (as the main thread leaves it when the
signal arrives) and the handler is called: it must return, not raise."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

HALF_IMPORTED = """
import importlib.machinery, sys, types
import workers.celery as celery_app
half = types.ModuleType("evaluators.llm.server")  # the module as the main thread leaves it mid-import
half.__spec__ = importlib.machinery.ModuleSpec("evaluators.llm.server", None)
half.__spec__._initializing = True
half.__file__ = "evaluators/llm/server.py"
sys.modules["evaluators.llm.server"] = half
celery_app._stop_model_servers()
print("handler returned")
"""


def test_the_shutdown_handler_works_while_the_server_module_is_half_imported():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "leaderboard.settings", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", HALF_IMPORTED], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    assert "partially initialized module" not in done.stderr, done.stderr
    assert done.returncode == 0 and "handler returned" in done.stdout, done.stderr
