"""What the supervisor does around the tests inside the sandbox: confine them (a seccomp filter, installed
on the supervisor itself before anything else starts and so inherited by every test, that refuses
every system call one process uses to reach into another's memory or descriptors: ``ptrace``,
``process_vm_readv``/``writev``, ``pidfd_getfd``, ``process_madvise``, ``kcmp``), and after each test
kill whatever it left running and remove everything it left behind (files in /tmp and /dev/shm,
System V shared memory, message queues and semaphores, POSIX message queues).

``pidfd_open`` stays allowed: the supervisor waits for its tests through pidfds, and a pidfd without
``pidfd_getfd`` gives nothing that ``kill`` and /proc do not (init ignores a test's signals).

Stdlib only, like supervisor.py: each Sandbox installs a private copy of it beside supervisor.py
(sandbox.SUPERVISOR_FILES), and the supervisor imports it from its own directory.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import shutil
import signal
import struct
import time
from typing import Any

#: bwrap's init is the supervisor itself (bwrap --as-pid-1); the supervisor and its warm Python are
#: never killed between tests
PROTECTED: set[int] = {1}
#: exit statuses of children that kill_others reaped, for the caller that waits for them
REAPED: dict[int, tuple[int, Any]] = {}
#: emptied after every test
WIPED: tuple[str, ...] = ("/tmp", "/dev/shm")
#: where bwrap mounts the sandbox's POSIX message queue filesystem (--mqueue), listed after every test
MQUEUE_DIR: str = "/dev/mqueue"

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_RET_ERRNO = 0x00050000
_BPF_LD_W_ABS = 0x20
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_RET_K = 0x06
_X32_SYSCALL_BIT = 0x40000000
#: per machine: the audit architecture seccomp reports, and the numbers of the refused system calls
#: (ptrace, process_vm_readv, process_vm_writev, kcmp, pidfd_getfd, process_madvise)
_REFUSED: dict[str, tuple[int, tuple[int, ...]]] = {
    "x86_64": (0xC000003E, (101, 310, 311, 312, 438, 440)),
    "aarch64": (0xC00000B7, (117, 270, 271, 272, 438, 440)),
}


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_program(machine: str) -> bytes | None:
    """The BPF program: any other architecture's system calls (a 32-bit ``int 0x80``, x32) and the
    refused ones fail with EPERM, everything else is allowed; None on a machine not listed."""
    if machine not in _REFUSED:
        return None
    arch, numbers = _REFUSED[machine]
    deny = _insn(_BPF_RET_K, 0, 0, _SECCOMP_RET_ERRNO | errno.EPERM)
    allow = _insn(_BPF_RET_K, 0, 0, _SECCOMP_RET_ALLOW)
    n = len(numbers)
    # layout: 0 load arch; 1 arch check; 2 load nr; 3 x32 check; 4.. one check per number; allow; deny
    body = [_insn(_BPF_LD_W_ABS, 0, 0, 4), _insn(_BPF_JEQ_K, 0, n + 3, arch),
            _insn(_BPF_LD_W_ABS, 0, 0, 0), _insn(_BPF_JGE_K, n + 1, 0, _X32_SYSCALL_BIT)]
    body += [_insn(_BPF_JEQ_K, n - i, 0, number) for i, number in enumerate(numbers)]
    return b"".join(body + [allow, deny])


class Confinement:
    """The seccomp filter, installed once on the supervisor before it starts anything: every process
    of the sandbox after it inherits it. Attaching a filter costs about 1.7 ms on this machine's
    kernel (it is compiled each time); inheriting one costs nothing measurable, so it is not
    installed per test."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._prctl = self._libc.prctl
        program = seccomp_program(platform.machine()) or b""
        self._code = ctypes.create_string_buffer(program, max(1, len(program)))
        self._fprog = _SockFprog(len(program) // 8, ctypes.cast(self._code, ctypes.c_char_p))
        self.enabled = bool(program)

    def apply(self) -> None:
        """No new privileges (bwrap set it already) and the filter, for this process and all it starts;
        raises OSError."""
        if not self.enabled:
            return
        if self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
                self._prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(self._fprog), 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"cannot install the sandbox's seccomp filter: {os.strerror(err)}")


# ------------------------------------------------------------------ between tests
def others(spare: int | None = None) -> list[int]:
    """Every process of the sandbox except the protected ones (a test's, and anything it left)."""
    keep = PROTECTED | {os.getpid(), spare}
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) not in keep]


def kill_others(spare: int | None = None) -> None:
    """Kill every other process, and reap those that are ours (the supervisor is pid 1: orphans are)."""
    for _ in range(200):
        pids = others(spare)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            while True:  # our own killed children stay in /proc until reaped; keep their status
                pid, status, rusage = os.wait4(-1, os.WNOHANG)
                if not pid:
                    break
                REAPED[pid] = (status, rusage)
        except ChildProcessError:
            pass
        time.sleep(0.001)


def _unlock(root: str) -> None:
    """Make every directory under ``root`` the test may have locked (chmod 0) writable again."""
    for dirpath, dirnames, _files in os.walk(root, onerror=lambda _exc: None):
        for name in dirnames:
            try:
                os.chmod(os.path.join(dirpath, name), 0o700, follow_symlinks=False)
            except OSError:
                pass


#: file systems whose directories' size counts their entries (20 bytes each, "." and ".." included:
#: tmpfs, and the POSIX message queues' mqueue), so that a directory's size says whether it is empty
_COUNTING_SIZE = frozenset({"tmpfs", "mqueue"})
#: by directory: whether it is the root of such a mount (read once)
_COUNTS: dict[str, bool] = {}
#: by directory: its size when a scan last found it empty
_EMPTY_SIZE: dict[str, int] = {}


def _counts_entries(path: str) -> bool:
    if not _COUNTS:
        mounts: dict[str, str] = {}
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as listing:
                for line in listing:
                    fields, _, rest = line.partition(" - ")
                    parts = fields.split()
                    if len(parts) > 4 and rest:
                        mounts[parts[4]] = rest.split()[0]
        except OSError:
            pass
        for root in (*WIPED, MQUEUE_DIR):
            _COUNTS[root] = mounts.get(root) in _COUNTING_SIZE
    return _COUNTS.get(path, False)


def _entries(path: str) -> list[os.DirEntry[str]]:
    """What ``path`` holds: nothing, without a scan, when it is a tmpfs or mqueue mount whose size is
    the one it had when a scan last found it empty (its size grows with each entry); else a scan."""
    counts = _counts_entries(path)
    size = os.stat(path).st_size if counts else -1
    if counts and _EMPTY_SIZE.get(path) == size:
        return []
    entries = list(os.scandir(path))
    if counts and not entries:
        _EMPTY_SIZE[path] = size
    return entries


def _wipe_files() -> bool:
    clean = True
    for root in WIPED:
        try:
            entries = _entries(root)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    os.chmod(entry.path, 0o700)
                    _unlock(entry.path)
                    shutil.rmtree(entry.path)
                else:
                    os.unlink(entry.path)
            except (OSError, RecursionError):
                clean = False
    return clean


_IPC_RMID = 0
#: /proc/sysvipc file -> the libc call that removes one of its objects by id
_SYSV = (("shm", "shmctl"), ("msg", "msgctl"), ("sem", "semctl"))


#: the IPC_INFO-like commands that say how many objects of a kind exist: (call, command, the int's index)
_IN_USE = (("shmctl", 14, 0), ("msgctl", 12, 0), ("semctl", 19, 7))  # SHM_INFO used_ids, MSG_INFO msgpool, SEM_INFO semusz


def _sysv_in_use(libc: Any) -> bool:
    """Whether any System V IPC object exists in this IPC namespace (True when it cannot tell)."""
    info = (ctypes.c_int * 32)()
    for call, command, index in _IN_USE:
        args = (0, 0, command, info) if call == "semctl" else (0, command, info)
        if getattr(libc, call)(*args) < 0 or info[index] != 0:
            return True
    return False


def _wipe_ipc(libc: Any) -> bool:
    """Remove every System V IPC object (the sandbox has its own IPC namespace, so each one is a
    test's) and every POSIX message queue."""
    clean = True
    for kind, call in _SYSV if _sysv_in_use(libc) else ():
        try:
            with open(f"/proc/sysvipc/{kind}", encoding="ascii") as listing:
                rows = listing.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            ipc_id = int(row.split()[1])
            args = (ipc_id, 0, _IPC_RMID, None) if kind == "sem" else (ipc_id, _IPC_RMID, None)
            if getattr(libc, call)(*args) != 0:
                clean = False
    try:
        queues = [entry.name for entry in _entries(MQUEUE_DIR)]
    except OSError:
        queues = []
    for name in queues:
        try:
            os.unlink(os.path.join(MQUEUE_DIR, name))
        except OSError:
            clean = False
    return clean


def wipe(libc: Any) -> bool:
    """Empty /tmp and /dev/shm and remove every IPC object; False when something could not be removed
    (the session then ends, and the next test gets a new sandbox)."""
    files = _wipe_files()
    return _wipe_ipc(libc) and files
