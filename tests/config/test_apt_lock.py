"""Package installs wait for dpkg's lock instead of failing: `make test` started while `make run` installs packages
in another clone failed with "Could not get lock /var/lib/dpkg/lock-frontend". Every script that installs Debian
packages goes through ``scripts/apt-install``, and it waits while another process holds the real lock (this test
holds it, as apt does: an fcntl write lock on /var/lib/dpkg/lock-frontend), then installs once it is released."""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import REPO

LOCK = Path("/var/lib/dpkg/lock-frontend")
#: how long the lock is held while the install is watched (apt-get without a lock timeout fails within a second)
HELD_S = 4.0


def _descendants(pid: int) -> dict[int, str]:
    """pid -> command line of every live descendant of ``pid``."""
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            try:
                found[child] = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            todo.append(child)
    return found


def test_no_script_calls_apt_get_but_the_waiting_one():
    for script in sorted((REPO / "scripts").iterdir()):
        if script.name == "apt-install" or not script.is_file():
            continue
        calls = [
            line
            for line in script.read_text(errors="replace").splitlines()
            if re.search(r"^\s*[^#]*\bapt-get\s+(-\S+\s+)*(install|update)\b", line) and "log " not in line
        ]
        assert calls == [], f"scripts/{script.name} calls apt-get itself (no wait for dpkg's lock): {calls}"


@pytest.mark.skipif(
    os.geteuid() != 0 or not LOCK.exists(), reason="needs root and Debian's dpkg (the machine `make test` runs on)"
)
def test_an_install_waits_while_another_holds_dpkgs_lock_then_installs():
    fd = os.open(LOCK, os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX)  # as apt and dpkg lock it (waits here if a real install holds it now)
        # bash is installed: apt-get has nothing to fetch, but still takes the lock to look
        install = subprocess.Popen(
            [str(REPO / "scripts" / "apt-install"), "bash"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        seen: dict[int, str] = {}
        watch_until = time.monotonic() + HELD_S
        while time.monotonic() < watch_until and install.poll() is None:
            seen.update({pid: cmd for pid, cmd in _descendants(install.pid).items() if "apt-get" in cmd})
            time.sleep(0.05)
        still_waiting = install.poll() is None
    finally:
        os.close(fd)  # releases the lock
    _out, err = install.communicate(timeout=600)
    assert still_waiting, f"the install ended while the lock was held (rc {install.returncode}): {err}"
    # one apt-get, the install, waited the whole time: it did not fail and fall back to an update
    assert len(seen) == 1 and " install " in next(iter(seen.values())), seen
    assert install.returncode == 0, err
