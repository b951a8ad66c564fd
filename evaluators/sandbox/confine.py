"""What the supervisor does around the tests inside the sandbox: confine them (the default-deny seccomp
filter built from syscalls.py's table, installed on the supervisor itself before anything else starts
and so inherited by every test; the same program is what bwrap installs for every other sandboxed run,
host.Host.launch), keep their signals from reaching it (``shield_init``), and after each test kill
whatever it left running and remove everything it left behind (files in /tmp and /dev/shm, System V
shared memory, message queues and semaphores, POSIX message queues).

``pidfd_open`` stays allowed: the supervisor waits for its tests through pidfds, and a pidfd without
``pidfd_getfd`` gives nothing that ``kill`` and /proc do not (init ignores a test's signals).

Stdlib only, like supervisor.py: each Sandbox installs a private copy of it beside supervisor.py
(host.SUPERVISOR_FILES), and the supervisor imports it from its own directory.
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

if __package__:
    from . import syscalls
else:  # imported by supervisor.py run as a script, which put this directory on sys.path
    import syscalls  # type: ignore[no-redef]

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
_SECCOMP_RET_LOG = 0x7FFC0000
_SECCOMP_RET_ERRNO = 0x00050000
_BPF_LD_W_ABS = 0x20
_BPF_JA = 0x05
_BPF_JEQ_K = 0x15
_BPF_JGE_K = 0x35
_BPF_JSET_K = 0x45
_BPF_RET_K = 0x06
_X32_SYSCALL_BIT = 0x40000000
#: where seccomp_data holds the call's number, its architecture and the low half of its first argument
#: (little-endian machines only: both listed ones are)
_NR, _ARCH, _ARG0_LOW = 0, 4, 16
#: a jump's offset is one byte: the checks are emitted in runs shorter than that
_RUN = 250
#: tracing a new toolchain: True makes every refused call allowed and logged by the kernel (the
#: "audit: type=1326" lines of dmesg, syscall=N), to find what it needs; never True in a commit
TRACE = False


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _ret(action: int) -> bytes:
    return _insn(_BPF_RET_K, 0, 0, action)


def _any_of(numbers: list[int], action: int) -> list[bytes]:
    """With the call's number loaded: return ``action`` when it is one of ``numbers``, else go on after."""
    code: list[bytes] = []
    for start in range(0, len(numbers), _RUN):
        run = numbers[start : start + _RUN]
        # each check jumps over the rest of the run and the "ja" to the run's return
        code += [_insn(_BPF_JEQ_K, len(run) - i, 0, number) for i, number in enumerate(run)]
        code += [_insn(_BPF_JA, 0, 0, 1), _ret(action)]
    return code


def seccomp_program(machine: str, *, trace: bool = False) -> bytes | None:
    """The BPF program of syscalls.py's table: the allowed calls pass, ``clone`` only without a namespace
    flag, the NOT_HERE calls fail with ENOSYS and every other call, any other architecture's (a 32-bit
    ``int 0x80``, x32) included, with EPERM (``trace``: the EPERM ones allowed and logged instead); None on a machine
    the table does not list.

    Every decision but clone's depends on the architecture and the number alone, so the kernel caches
    the allowed calls in a bitmap and never runs the program for them (Linux 5.11 and later)."""
    if machine not in syscalls.NUMBERS:
        return None
    numbers = syscalls.NUMBERS[machine]
    refuse = _SECCOMP_RET_LOG if trace else _SECCOMP_RET_ERRNO | errno.EPERM
    not_here = _SECCOMP_RET_ERRNO | errno.ENOSYS
    allowed = sorted({numbers[name] for _reason, names in syscalls.ALLOWED for name in names if name in numbers})
    code = [
        _insn(_BPF_LD_W_ABS, 0, 0, _ARCH),
        _insn(_BPF_JEQ_K, 1, 0, syscalls.AUDIT_ARCH[machine]),
        _ret(refuse),
        _insn(_BPF_LD_W_ABS, 0, 0, _NR),
        _insn(_BPF_JGE_K, 0, 1, _X32_SYSCALL_BIT),
        _ret(refuse),
    ]
    code += _any_of(allowed, _SECCOMP_RET_ALLOW)
    # clone: allowed unless its flags (the first argument) ask for a new namespace
    code += [
        _insn(_BPF_JEQ_K, 0, 4, numbers["clone"]),
        _insn(_BPF_LD_W_ABS, 0, 0, _ARG0_LOW),
        _insn(_BPF_JSET_K, 1, 0, syscalls.CLONE_NAMESPACES),
        _ret(_SECCOMP_RET_ALLOW),
        _ret(refuse),
    ]
    code += _any_of(sorted(numbers[name] for name in syscalls.NOT_HERE if name in numbers), not_here)
    return b"".join(code + [_ret(refuse)])


class Confinement:
    """The seccomp filter, installed once on the supervisor before it starts anything: every process
    of the sandbox after it inherits it. Attaching a filter costs about 1.7 ms on this machine's
    kernel (it is compiled each time); inheriting one costs nothing measurable, so it is not
    installed per test."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._prctl = self._libc.prctl
        program = seccomp_program(platform.machine(), trace=TRACE) or b""
        self._code = ctypes.create_string_buffer(program, max(1, len(program)))
        self._fprog = _SockFprog(len(program) // 8, ctypes.cast(self._code, ctypes.c_char_p))
        self.enabled = bool(program)

    def apply(self) -> None:
        """No new privileges (bwrap set it already) and the filter, for this process and all it starts;
        raises OSError."""
        if not self.enabled:
            return
        if (
            self._prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
            or self._prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(self._fprog), 0, 0) != 0
        ):
            err = ctypes.get_errno()
            raise OSError(err, f"cannot install the sandbox's seccomp filter: {os.strerror(err)}")


def shield_init() -> None:
    """Ignore every signal this process has a handler for (the interpreter's SIGINT): the kernel drops a
    signal that a process of the namespace sends its init only when init has no handler for it, so a
    handler would let any test stop the supervisor. Each compiled test gets these signals back at their
    default (spawning.CAUGHT); the warm Python, forked before, keeps the interpreter's."""
    for sig in range(1, signal.NSIG):
        try:
            if callable(signal.getsignal(sig)):
                signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):
            pass


_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


#: what bwrap gives a session's supervisor besides CAP_CHECKPOINT_RESTORE: CAP_SETPCAP, to empty the
#: bounding set its processes inherit, dropped at once (command.build_bwrap_args)
_CAP_SETPCAP = 8
_PR_CAPBSET_DROP = 24


def _capabilities(keep_own: bool) -> None:
    """Empty this process's inheritable, ambient and bounding capability sets (then an exec leaves a
    program none, and nothing it starts can ever gain one), and CAP_SETPCAP, which the bounding set's
    emptying needs; its effective and permitted sets too unless ``keep_own``."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):  # EINVAL past the last capability, EPERM without CAP_SETPCAP: nothing to drop
        libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    if keep_own and libc.capget(ctypes.byref(header), data) != 0:
        return
    data[0].effective &= ~(1 << _CAP_SETPCAP)
    data[0].permitted &= ~(1 << _CAP_SETPCAP)
    for half in data:
        half.inheritable = 0
        if not keep_own:
            half.effective = half.permitted = 0
    libc.capset(ctypes.byref(header), data)


#: the pid counter's value after each test: its first process is FIRST_PID + 1 in every test
FIRST_PID = 1000


class PidCounter:
    """The sandbox's pid counter, set back to FIRST_PID after each test, so that every test's first
    process gets the same pid: a pid says neither which test this is nor how many processes the tests
    before it started. The counter is the PID namespace's ``ns_last_pid``, written from inside the
    namespace through a descriptor the platform opened outside it (/proc/sys is read-only here) and
    passed as ``--last-pid-fd=N``; the write needs CAP_CHECKPOINT_RESTORE in the sandbox's user
    namespace, which bwrap gives the supervisor alone (command.build_bwrap_args). The supervisor lets
    no process it starts keep a capability: its ambient, inheritable and bounding sets are emptied at
    once, and the warm Python, forked from it, drops every capability (``give_up``). Without the descriptor, or
    where the kernel refuses the write, pids are counted as before."""

    def __init__(self) -> None:
        self.fd = -1

    def take(self, argv: list[str]) -> None:
        """In the supervisor, before it starts anything."""
        for arg in argv:
            if arg.startswith("--last-pid-fd="):
                self.fd = int(arg.partition("=")[2])
                os.set_inheritable(self.fd, False)
        _capabilities(keep_own=True)

    def reset(self) -> None:
        """After a test (every process it started killed and reaped): its successor starts at FIRST_PID + 1."""
        if self.fd >= 0:
            try:
                os.pwrite(self.fd, str(FIRST_PID).encode(), 0)
            except OSError:
                os.close(self.fd)
                self.fd = -1

    def give_up(self) -> None:
        """In the warm Python: neither the descriptor nor any capability."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        _capabilities(keep_own=False)


PIDS = PidCounter()


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
_IN_USE = (
    ("shmctl", 14, 0),
    ("msgctl", 12, 0),
    ("semctl", 19, 7),
)  # SHM_INFO used_ids, MSG_INFO msgpool, SEM_INFO semusz


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
    """Empty /tmp and /dev/shm, remove every IPC object and set the pid counter back; False when something could not be
    removed (the session then ends, and the next test gets a new sandbox)."""
    files = _wipe_files()
    clean = _wipe_ipc(libc) and files
    PIDS.reset()
    return clean
