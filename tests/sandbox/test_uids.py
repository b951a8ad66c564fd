"""Host uids stay distinct across processes: forked children and unrelated processes running sandboxes
at once never hand out the same uid, a lease ends with its process, and a resident's uid is held."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

from evaluators.sandbox import uids
from evaluators.sandbox.uids import UID_BASE, UID_BLOCK, UidLease

TAKES = 50


def take_in_child(lease: UidLease, write_fd: int, release_fd: int) -> None:
    """Run in a forked child: take TAKES uids, write them to the pipe, and stay alive (holding the lease)
    until the parent closes ``release_fd``'s other end."""
    try:
        taken = [lease.take() for _ in range(TAKES)]
        os.write(write_fd, (" ".join(map(str, taken)) + "\n").encode())
        os.close(write_fd)  # the parent reads to the end
        os.read(release_fd, 1)  # returns when the parent closes its end: all children are alive till then
    finally:
        os._exit(0)


def test_forked_children_take_disjoint_uids(tmp_path: Path) -> None:
    """As Celery's prefork pool does: the lease is made (and used) in the parent, then children fork, and
    all of them live at once (a block is free again once its process ends, so a child forked after
    another ended may rightly take that block: only processes alive together must differ)."""
    lease = UidLease(tmp_path)
    parent = {lease.take() for _ in range(TAKES)}
    seen: list[set[int]] = [parent]
    release_read, release_write = os.pipe()
    children = []
    for _ in range(3):
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_fd)
            os.close(release_write)
            take_in_child(lease, write_fd, release_read)
        os.close(write_fd)
        with os.fdopen(read_fd) as pipe:
            seen.append({int(x) for x in pipe.read().split()})
        children.append(pid)
    os.close(release_write)  # the children may end now
    os.close(release_read)
    for pid in children:
        os.waitpid(pid, 0)
    assert all(len(s) == TAKES for s in seen)
    everything = set().union(*seen)
    assert len(everything) == TAKES * len(seen), "two processes handed out the same uid"
    blocks = {(min(s) - UID_BASE) // UID_BLOCK for s in seen}
    assert len(blocks) == len(seen)


def test_a_live_process_keeps_its_block_and_the_kernel_frees_it_when_it_ends(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from evaluators.sandbox.uids import UidLease\n"
        "lease = UidLease(Path(sys.argv[1])); print(lease.take(), flush=True); sys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert holder.stdout is not None and holder.stdin is not None
    held_block = (int(holder.stdout.readline()) - UID_BASE) // UID_BLOCK
    mine = UidLease(tmp_path)
    mine.take()
    assert mine.block != held_block  # the other process's block is not free while it lives
    lock_file = tmp_path / f"block-{held_block:03d}"
    assert not can_lock(lock_file)
    holder.stdin.close()
    holder.wait(timeout=30)
    assert can_lock(lock_file)  # its process gone, the block is free for the next one


def can_lock(path: Path) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def test_a_held_uid_is_skipped_until_released(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(uids, "UID_BLOCK", 3)
    lease = UidLease(tmp_path)
    first = lease.take(hold=True)
    base = first - (first - UID_BASE) % 3
    assert [lease.take(), lease.take(), lease.take()] == [base + 1, base + 2, base + 1]  # first is held
    lease.release(first)
    assert lease.take() == base + 2 and lease.take() == first
