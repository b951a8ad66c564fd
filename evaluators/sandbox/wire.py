"""The supervisor's wire protocol: the length-prefixed binary frames that supervisor.py and its parent
(``resident.Session``, which packs ``REQUEST`` and reads replies with ``results.parse_reply``) exchange
over the supervisor's stdin and stdout. A frame is a 4-byte big-endian length, then its body: the ready
frame once the supervisor started, then a request per test and a reply per test, both binary (fixed
fields, then raw bytes, no JSON nor base64 of the input or output). A request holds a nonce, the wall
limit, the output caps and the input; the command, environment, working directory and rlimits (a JSON
"configuration") only when they differ from the previous request's, which is once per session for a
program's tests. A reply holds the nonce, the exit status, the wall time, the child's CPU time from
its rusage, whether it timed out or wrote too much or the session must end, then the capped stdout
and stderr.

Stdlib only: each Sandbox installs it beside its private copy of supervisor.py (host.SUPERVISOR_FILES),
and the supervisor imports it from its own directory.
"""

from __future__ import annotations

import json
import os
import struct

HEADER = struct.Struct(">I")
#: the supervisor's first frame, once it started: from here on, no failure is bubblewrap's (see resident.Session)
READY: bytes = json.dumps({"ready": True}).encode()
#: a request's fixed fields: nonce, wall limit (s), stdout cap, stderr cap, length of the configuration
#: (JSON: argv, env, cwd, rlimits; 0 when unchanged) that follows; then the configuration, then the input
REQUEST = struct.Struct(">16sdqqI")
#: a reply's fixed fields: nonce, exit code (-1: none), signal (-1: none), flags (REPLY_FLAGS), wall
#: seconds, CPU seconds (-1.0: unknown), stdout length, stderr length; then stdout, then stderr
REPLY = struct.Struct(">16siiBddII")
#: the reply's flag bits
TIMED_OUT, OUTPUT_EXCEEDED, RESTART = 1, 2, 4


def read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    """One frame's body; None at the end of the stream. The parent sends the next request only after
    this one's reply, so a first read of up to 64 KiB takes no more than this frame."""
    data = os.read(fd, 65536)
    if len(data) < HEADER.size:
        rest = read_exact(fd, HEADER.size - len(data)) if data else None
        if rest is None:
            return None
        data += rest
    size = HEADER.unpack_from(data)[0]
    if len(data) - HEADER.size >= size:
        return data[HEADER.size : HEADER.size + size]
    rest = read_exact(fd, size - (len(data) - HEADER.size))
    return None if rest is None else data[HEADER.size :] + rest


def write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def write_frame(fd: int, body: bytes) -> None:
    write_all(fd, HEADER.pack(len(body)) + body)


def reply_body(
    nonce: bytes,
    *,
    exit_code: int | None,
    signal_number: int | None,
    flags: int,
    wall: float,
    cpu: float | None,
    stdout: bytes,
    stderr: bytes,
) -> bytes:
    """A reply frame's body (results.parse_reply reads it)."""
    return (
        REPLY.pack(
            nonce,
            -1 if exit_code is None else exit_code,
            -1 if signal_number is None else signal_number,
            flags,
            wall,
            -1.0 if cpu is None else cpu,
            len(stdout),
            len(stderr),
        )
        + stdout
        + stderr
    )
