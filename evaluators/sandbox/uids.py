"""Host uids for sandboxed process trees, distinct across every process on the machine.

Each run gets a host uid no other live run has (the sandbox's promise: a run can neither signal nor
share an RLIMIT_NPROC count with another). A counter per process is not enough: scoring runs in
several processes at once (Celery's prefork children, which inherit their parent's counter when
forked; pytest-xdist's workers; a worker beside the command line), and two counters can walk over the
same uids. So each process leases a block of uids of its own: an exclusive ``flock`` on the block's
file under UID_LEASE_DIR, held on a descriptor the process opened itself, which the kernel releases
when the process ends (however it ends). A forked child finds the lease is its parent's (another pid)
and takes a block of its own. Within its block a process hands uids out in turn, skipping those a
long-lived resident (a warm compiler, a test supervisor) still holds.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import threading
from pathlib import Path

#: the first host uid handed to a sandboxed process tree (far above any login or system account)
UID_BASE: int = 200_000
#: uids per block: a process reuses one of its uids only after this many other runs
UID_BLOCK: int = 10_000
#: blocks, so at most this many processes run sandboxes at once on one machine
UID_BLOCKS: int = 100
#: where the block leases live (one empty file per block; the lock on it is the lease)
UID_LEASE_DIR: Path = Path(os.environ.get("LEADERBOARD_SANDBOX_UID_LEASES", "/tmp/llm-sandbox-uid-leases"))


class UidsExhausted(RuntimeError):
    """Every block is leased by a live process."""


class UidLease:
    """This process's block of host uids (leased on first use, and again after a fork)."""

    def __init__(self, lease_dir: Path = UID_LEASE_DIR) -> None:
        self.lease_dir = lease_dir
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._fd: int = -1
        self.block: int = -1
        self._next: int = 0
        self._held: set[int] = set()

    def _lease(self) -> None:
        """Take the first free block, starting from a random one (fewer lock attempts when many processes start
        together)."""
        if not self.lease_dir.is_dir():
            self.lease_dir.mkdir(parents=True, exist_ok=True)
            try:
                os.chmod(self.lease_dir, 0o1777)  # like /tmp: a worker under another account leases there too
            except PermissionError:
                pass  # another account made it at the same moment (and opened it up)
        start = secrets.randbelow(UID_BLOCKS)
        for step in range(UID_BLOCKS):
            block = (start + step) % UID_BLOCKS
            fd = os.open(self.lease_dir / f"block-{block:03d}", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # a forked child keeps its parent's descriptor (and so its parent's lease) open: harmless,
            # the child never hands out its parent's uids since it leases its own block here
            self._pid, self._fd, self.block, self._next, self._held = os.getpid(), fd, block, 0, set()
            return
        raise UidsExhausted(
            f"all {UID_BLOCKS} blocks of sandbox uids under {self.lease_dir} are leased by live "
            "processes: end some scoring processes, or raise UID_BLOCKS"
        )

    def take(self, *, hold: bool = False) -> int:
        """A uid of this process's block that no resident of this process holds; ``hold``: keep it
        from every later ``take`` until ``release``."""
        with self._lock:
            if self._pid != os.getpid():
                self._lease()
            for _ in range(UID_BLOCK):
                uid = UID_BASE + self.block * UID_BLOCK + self._next
                self._next = (self._next + 1) % UID_BLOCK
                if uid not in self._held:
                    if hold:
                        self._held.add(uid)
                    return uid
            raise UidsExhausted(f"all {UID_BLOCK} uids of block {self.block} are held by this process's residents")

    def release(self, uid: int) -> None:
        """A held uid may be handed out again (its resident's processes are gone)."""
        with self._lock:
            self._held.discard(uid)


#: the one lease of this process, shared by every Sandbox in it
LEASE = UidLease()
