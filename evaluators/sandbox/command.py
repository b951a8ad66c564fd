"""The commands the sandbox runs: bubblewrap's argument list, a language's command and environment
with their placeholders filled, and the warm compilers' server command.

Every path here is either on the host (``TOOLCHAINS``, the project's ``.toolchains``) or inside the
sandbox (``/opt/toolchains``, ``/prog``: see evaluators.sandbox.languages).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from .languages import CDS_ARCHIVE_FLAG, PROG_DIR, TOOLCHAIN_DIR, Language
from .limits import Limits
from .linux import DEV_NODES, StageLayout

REPO_ROOT: Path = Path(__file__).resolve().parents[2]
#: the toolchains on the host (scripts/install-toolchains), bound read-only at TOOLCHAIN_DIR
TOOLCHAINS: Path = REPO_ROOT / ".toolchains"
BWRAP: str = "/usr/bin/bwrap"

#: every sandboxed process's environment, before its language's own variables
BASE_ENV: dict[str, str] = {
    "PATH": ":".join([f"{TOOLCHAIN_DIR}/go/bin", f"{TOOLCHAIN_DIR}/rust/bin", "/usr/local/bin", "/usr/bin", "/bin"]),
    "HOME": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TMPDIR": "/tmp",
    "USER": "sandbox",
}
#: the warm compilers' servers: CompileServer.java for the JVM compilers, compile-server.js for tsc;
#: evaluators.sandbox.warm builds (javac) and copies them into .toolchains/compile-server, and they are
#: reached inside the sandbox through the toolchain mount
COMPILE_SERVER_SOURCES: tuple[Path, ...] = tuple(
    Path(__file__).resolve().parent / name for name in ("CompileServer.java", "compile-server.js")
)
COMPILE_SERVER_DIR: str = TOOLCHAIN_DIR + "/compile-server"
COMPILE_SERVER_CLASS: str = "leaderboard.sandbox.CompileServer"
NODE_COMPILE_SERVER: str = COMPILE_SERVER_DIR + "/compile-server.js"
WARM_COMPILER_IDLE_SECONDS: int = 120
#: what bwrap's --dev puts in /dev, but for the devpts instance (and ptmx): the device nodes and the links
DEV_WITHOUT_PTY: tuple[str, ...] = (
    *(
        arg
        for node in ("null", "zero", "full", "random", "urandom", "tty")
        for arg in ("--dev-bind", f"/dev/{node}", f"/dev/{node}")
    ),
    *(
        arg
        for target, link in (
            ("/proc/self/fd", "fd"),
            ("/proc/self/fd/0", "stdin"),
            ("/proc/self/fd/1", "stdout"),
            ("/proc/self/fd/2", "stderr"),
            ("/proc/kcore", "core"),
        )
        for arg in ("--symlink", target, f"/dev/{link}")
    ),
)


def tmpfs_bytes(limits: Limits) -> int:
    """The size of a run's /tmp and of its /dev/shm: four times its file size limit, at most its memory."""
    return max(1, min(limits.file_size_mb * 4, limits.memory_mb)) * 1024 * 1024


def build_bwrap_args(
    *,
    source: Callable[[Path], str],
    etc_dir: Path,
    toolchains: Path | None,
    prog_dir: Path | None,
    writable_prog: bool,
    env: dict[str, str],
    limits: Limits,
    extra_binds: tuple[tuple[str, str, bool], ...],
    cwd: str,
    own_netns: bool = True,
    supervisor: bool = False,
    reset_pids: bool = False,
    layout: StageLayout | None = None,
) -> list[str]:
    """bubblewrap's arguments (up to the command) for one process tree: its namespaces (``_namespace_args``),
    its root, /dev and /tmp (``_staged_root_args`` with a ``layout``, else ``_own_root_args``), its binds
    (``_bind_args``: every host path bound from ``source(path)``, its staged twin: see
    linux.StagingNamespace), a cleared environment with ``env`` over BASE_ENV, and ``cwd``.

    ``supervisor``: the command is a session's supervisor, which bwrap execs as the sandbox's pid 1
    (no bwrap init holding the pipes to the parent) with a POSIX message queue filesystem at
    /dev/mqueue that it empties between tests. ``reset_pids``: see ``_namespace_args``."""
    mqueue = ["--mqueue", "/dev/mqueue"] if supervisor else []
    args = _namespace_args(own_netns=own_netns, supervisor=supervisor, reset_pids=reset_pids)
    if layout is not None:
        args += _staged_root_args(layout, mqueue)
    else:
        args += _own_root_args(tmpfs_bytes(limits), mqueue, pty=not reset_pids)
    args += _bind_args(source, etc_dir, toolchains, prog_dir, writable_prog, extra_binds)
    if layout is None:
        args += ["--remount-ro", "/"]  # the sandbox's own root tmpfs: only /tmp (and /prog when compiling) are writable
    args.append("--clearenv")
    for key, value in {**BASE_ENV, **env}.items():
        args += ["--setenv", key, value]
    args += ["--chdir", cwd]
    return args


def _namespace_args(*, own_netns: bool, supervisor: bool, reset_pids: bool) -> list[str]:
    """bwrap itself and the run's namespaces, session, uid and hostname.

    Every namespace is new; the network one is either bwrap's own (--unshare-all) or, when
    ``own_netns`` is False, a pooled empty one the launcher has already joined (see linux.NetnsPool).

    ``reset_pids``: a session whose supervisor sets the sandbox's pid counter back after each test
    (confine.PidCounter), with CAP_CHECKPOINT_RESTORE in the sandbox's user namespace. That capability
    must be held in the namespace that owns the sandbox's PID namespace, and bwrap runs the command in
    a second, nested one both for ``--disable-userns`` and for the devpts instance of ``--dev``: such a
    session has neither (the seccomp filter refuses every route to a new user namespace, and its /dev
    is the same nodes and links without a pty)."""
    unshare = (
        ["--unshare-all", "--unshare-user"]
        if own_netns
        else ["--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup"]
    )
    # CAP_SETPCAP only to empty the bounding set the tests inherit: the supervisor drops it at once
    userns = ["--cap-add", "CAP_CHECKPOINT_RESTORE", "--cap-add", "CAP_SETPCAP"] if reset_pids else ["--disable-userns"]
    return [
        BWRAP,
        *unshare,
        *userns,
        *(["--as-pid-1"] if supervisor else []),
        "--die-with-parent",
        "--new-session",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--hostname",
        "sandbox",
    ]


def _staged_root_args(layout: StageLayout, mqueue: list[str]) -> list[str]:
    """/, /usr, /proc, /dev and /tmp of a run whose mounts are neutral (linux.StagingNamespace): / is the
    staged root (its mount points, links and /dev nodes made once) bound read-only, and /tmp and /dev/shm
    are the tmpfs mounts the launcher made as root for this run (host.Host.launch), bound; nothing is
    mounted inside the run's user namespace but /proc (and /dev/mqueue), so the mount table names neither
    a host path nor the run's host uid. /dev then never has a pty."""
    return [
        "--ro-bind",
        str(layout.root),
        "/",
        "--ro-bind",
        "/usr",
        "/usr",
        "--proc",
        "/proc",
        *(arg for node in DEV_NODES for arg in ("--dev-bind", f"/dev/{node}", f"/dev/{node}")),
        "--bind",
        str(layout.shm),
        "/dev/shm",
        *mqueue,
        "--bind",
        str(layout.tmp),
        "/tmp",
    ]


def _own_root_args(tmp_size: int, mqueue: list[str], *, pty: bool) -> list[str]:
    """/, /usr, /proc, /dev and /tmp of a run that is not staged (without root): bwrap's own tmpfs root with
    the host's /usr and its links, bwrap's minimal /dev (null, zero, full, random, urandom, tty, the fd
    links, and with ``pty`` ptmx and pts), read-only, with a size-capped tmpfs at /dev/shm that the
    supervisor empties between tests, and a size-capped tmpfs at /tmp."""
    dev = ["--dev", "/dev"] if pty else ["--tmpfs", "/dev", *DEV_WITHOUT_PTY]
    return [
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--symlink",
        "usr/sbin",
        "/sbin",
        "--proc",
        "/proc",
        *dev,
        "--size",
        str(tmp_size),
        "--tmpfs",
        "/dev/shm",
        *mqueue,
        "--remount-ro",
        "/dev",
        "--size",
        str(tmp_size),
        "--tmpfs",
        "/tmp",
    ]


def _bind_args(
    source: Callable[[Path], str],
    etc_dir: Path,
    toolchains: Path | None,
    prog_dir: Path | None,
    writable_prog: bool,
    extra_binds: tuple[tuple[str, str, bool], ...],
) -> list[str]:
    """``etc_dir`` bound at /etc (one bind: see host.Host._build_etc), ``toolchains`` at TOOLCHAIN_DIR,
    ``prog_dir`` at PROG_DIR (writable when ``writable_prog``) and each ``(host path, sandbox path,
    writable)`` of ``extra_binds``, each from ``source(path)``."""
    args = ["--ro-bind", source(etc_dir), "/etc"]
    if toolchains is not None:
        args += ["--ro-bind", source(toolchains), TOOLCHAIN_DIR]
    if prog_dir is not None:
        args += ["--bind" if writable_prog else "--ro-bind", source(prog_dir), PROG_DIR]
    for src, dst, writable in extra_binds:
        args += ["--bind" if writable else "--ro-bind", source(Path(src)), dst]
    return args


def placeholders(limits: Limits, main: str = "") -> dict[str, str | int]:
    """The values of a language's placeholders (see evaluators.sandbox.languages) under ``limits``."""
    heap = max(32, int(limits.memory_mb * 0.7))
    return {"prog": PROG_DIR, "tc": TOOLCHAIN_DIR, "heap_mb": heap, "mem_mb": limits.memory_mb, "main": main}


def fill_command(template: tuple[str, ...], limits: Limits, *, main: str = "") -> list[str]:
    """A command with its placeholders filled; a class-data sharing archive that is not installed is
    left out (a JVM told to use a missing archive would start without even the JDK's own)."""
    values = placeholders(limits, main)
    filled = [part.format(**values) for part in template]
    return [
        part
        for part in filled
        if not (
            part.startswith(CDS_ARCHIVE_FLAG + TOOLCHAIN_DIR + "/")
            and not (TOOLCHAINS / part[len(CDS_ARCHIVE_FLAG + TOOLCHAIN_DIR + "/") :]).is_file()
        )
    ]


def fill_env(env: dict[str, str], limits: Limits) -> dict[str, str]:
    """A language's environment variables with their placeholders filled."""
    values = placeholders(limits)
    return {k: v.format(**values) for k, v in env.items()}


def compile_server_digest() -> str:
    """The digest of the warm compilers' sources, stamped on what evaluators.sandbox.warm installs: a
    server built from other sources is never started."""
    digest = hashlib.sha256()
    for source in COMPILE_SERVER_SOURCES:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def compile_server_command(language: Language, limits: Limits) -> tuple[list[str], list[str], frozenset[bytes]]:
    """How a warm compiler of ``language`` starts (the cold compile's command up to its compiler, then
    the server in the compiler's place), the arguments each compile sends it (the cold command's own),
    and the exit codes that are a compile's normal answers (any other ends the server)."""
    assert language.compile_cmd is not None and language.compiler_main is not None
    cmd = fill_command(language.compile_cmd, limits)
    main = fill_command((language.compiler_main,), limits)[0]
    at = cmd.index(main)
    head, args = cmd[:at], cmd[at + 1 :]
    idle = str(WARM_COMPILER_IDLE_SECONDS)
    if head[0] == "node":  # tsc: 1 and 2 are errors reported (2: and the output written anyway)
        return [*head, NODE_COMPILE_SERVER, main, idle], args, frozenset({b"0", b"1", b"2"})
    if "-cp" in head:  # kotlinc's 2 and 137 are its internal errors
        head[head.index("-cp") + 1] += ":" + COMPILE_SERVER_DIR
    else:
        head += ["-cp", COMPILE_SERVER_DIR]
    return [*head, COMPILE_SERVER_CLASS, main, idle], args, frozenset({b"0", b"1"})
