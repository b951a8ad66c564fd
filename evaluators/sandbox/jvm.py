"""What a JVM compile wrote, read back to tell whether the program can be started: the Main-Class a jar
names (Kotlin), and whether a class file has the ``public static void main(String[])`` that ``java Main``
starts (Java, Scala). Both read files the sandbox's uid wrote: without following links, with a size cap,
and never trusting their contents (anything unreadable is None).
"""

from __future__ import annotations

import os
import re
import struct
import zipfile
from pathlib import Path

#: a class name as the JVM takes it on its command line
_JVM_CLASS_NAME = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")
#: the largest class file read (a compiled solution is a few KB; the JVM's own limit is far above)
CLASS_FILE_CAP: int = 8 * 1024 * 1024
_ACC_PUBLIC, _ACC_STATIC = 0x0001, 0x0008
_MAIN_DESCRIPTOR = "([Ljava/lang/String;)V"
#: a constant pool entry's size after its tag, by tag (Utf8, 1, has its own length)
_CONSTANT_SIZES = {
    3: 4,
    4: 4,
    5: 8,
    6: 8,
    7: 2,
    8: 2,
    9: 4,
    10: 4,
    11: 4,
    12: 4,
    15: 3,
    16: 2,
    17: 4,
    18: 4,
    19: 2,
    20: 2,
}


def _open_regular(path: Path) -> int | None:
    try:
        return os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None


def jar_main_class(jar: Path) -> str | None:
    """The Main-Class a jar written inside the sandbox names (read without following links), or None."""
    fd = _open_regular(jar)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                info = archive.getinfo("META-INF/MANIFEST.MF")
                if info.file_size > 1024 * 1024:
                    return None
                manifest = archive.read(info).decode("utf-8", errors="replace")
        except (KeyError, OSError, zipfile.BadZipFile, RuntimeError, ValueError, EOFError):
            return None
    for line in manifest.splitlines():
        if line.startswith("Main-Class:"):
            name = line[len("Main-Class:") :].strip()
            return name if _JVM_CLASS_NAME.fullmatch(name) else None
    return None


class _Reader:
    """Big-endian fields read in order from a class file's bytes (struct.error past its end)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def take(self, fmt: str) -> int:
        (value,) = struct.unpack_from(">" + fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return int(value)

    def skip(self, size: int) -> None:
        if self.at + size > len(self.data):
            raise struct.error("past the end")
        self.at += size


def class_static_main(class_file: Path) -> bool | None:
    """Whether a class file written inside the sandbox declares ``public static void main(String[])``;
    None when that cannot be told from the file alone (unreadable, not a class file, or its superclass
    is not Object, which may declare the method the launcher finds)."""
    fd = _open_regular(class_file)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(CLASS_FILE_CAP + 1)
    if len(data) > CLASS_FILE_CAP:
        return None
    try:
        return _has_static_main(_Reader(data))
    except (struct.error, KeyError, UnicodeDecodeError):
        return None


def _has_static_main(read: _Reader) -> bool | None:
    if read.take("I") != 0xCAFEBABE:
        return None
    read.skip(4)  # minor and major version
    utf8: dict[int, str] = {}
    classes: dict[int, int] = {}
    count, index = read.take("H"), 1
    while index < count:
        tag = read.take("B")
        if tag == 1:
            length = read.take("H")
            utf8[index] = read.data[read.at : read.at + length].decode("utf-8", errors="replace")
            read.skip(length)
        elif tag == 7:
            classes[index] = read.take("H")
        elif tag in _CONSTANT_SIZES:
            read.skip(_CONSTANT_SIZES[tag])
        else:
            return None
        index += 2 if tag in (5, 6) else 1  # a long or a double takes two entries
    read.skip(4)  # access flags, this class
    superclass = read.take("H")
    if superclass and utf8[classes[superclass]] != "java/lang/Object":
        return None
    read.skip(2 * read.take("H"))  # interfaces
    found = False
    for kind in ("fields", "methods"):
        for _ in range(read.take("H")):
            flags, name, descriptor = read.take("H"), read.take("H"), read.take("H")
            for _ in range(read.take("H")):  # attributes
                read.skip(2)
                read.skip(read.take("I"))
            found = found or (
                kind == "methods"
                and utf8[name] == "main"
                and utf8[descriptor] == _MAIN_DESCRIPTOR
                and flags & (_ACC_PUBLIC | _ACC_STATIC) == _ACC_PUBLIC | _ACC_STATIC
            )
    return found
