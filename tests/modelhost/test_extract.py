"""Safe extraction of uploaded weight archives (uploads.extract_safely): every hostile entry ('..',
absolute paths, symlinks and hardlinks, devices, fifos) and a decompression bomb are refused before
anything is written, with a message naming the entry; a plain model archive extracts."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from django.test import override_settings

from evaluators.llm.types import ModelError
from leaderboard.modelhost.uploads import extract_safely, model_dir_in


def archive(tmp_path: Path, *entries: tarfile.TarInfo | tuple[str, bytes], mode: str = "w") -> Path:
    """A tar archive of (name, bytes) regular files and ready-made TarInfo entries (links, devices)."""
    path = tmp_path / ("weights.tar.gz" if mode.endswith("gz") else "weights.tar")
    with tarfile.open(path, mode) as tar:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                tar.addfile(entry)
            else:
                name, data = entry
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def special(name: str, kind: bytes, linkname: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info


def refused(path: Path, destination: Path) -> str:
    with pytest.raises(ModelError) as error:
        extract_safely(path, destination)
    assert error.value.kind == "model_load"
    return str(error.value)


CONFIG = ("model/config.json", b'{"model_type": "llama"}')


def test_a_model_archive_extracts(tmp_path: Path):
    path = archive(tmp_path, CONFIG, ("model/model.safetensors", b"w" * 1000), mode="w:gz")
    extract_safely(path, tmp_path / "out")
    assert model_dir_in(tmp_path / "out") == tmp_path / "out" / "model"
    assert (tmp_path / "out" / "model" / "model.safetensors").read_bytes() == b"w" * 1000


@pytest.mark.parametrize(
    "entry, message",
    [
        (("../evil.txt", b"x"), "'../evil.txt' points outside the model directory"),
        (("model/../../evil.txt", b"x"), "'model/../../evil.txt' points outside"),
        (("/tmp/evil.txt", b"x"), "'/tmp/evil.txt' points outside"),
        (special("model/link", tarfile.SYMTYPE, "/etc/passwd"), "'model/link' is a link or special file"),
        (special("model/up", tarfile.SYMTYPE, "../../outside"), "'model/up' is a link or special file"),
        (special("model/hard", tarfile.LNKTYPE, "/etc/passwd"), "'model/hard' is a link or special file"),
        (special("model/tty", tarfile.CHRTYPE), "'model/tty' is a link or special file"),
        (special("model/disk", tarfile.BLKTYPE), "'model/disk' is a link or special file"),
        (special("model/pipe", tarfile.FIFOTYPE), "'model/pipe' is a link or special file"),
    ],
)
def test_hostile_entries_are_refused_before_anything_is_written(tmp_path: Path, entry, message):
    path = archive(tmp_path, CONFIG, entry)
    assert message in refused(path, tmp_path / "sandbox" / "out")
    assert list((tmp_path / "sandbox" / "out").iterdir()) == []  # not even the harmless entry before it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sandbox", "weights.tar"]


class Zeros(io.RawIOBase):
    """Reads as zeros, without holding them in memory."""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def, override]
        buffer[:] = bytes(len(buffer))
        return len(buffer)


def test_a_decompression_bomb_is_refused_from_its_headers(tmp_path: Path):
    path = tmp_path / "bomb.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("model/zeros.safetensors")
        info.size = 200 * 1024 * 1024
        tar.addfile(info, io.BufferedReader(Zeros()))
    assert path.stat().st_size < 1024 * 1024
    message = refused(path, tmp_path / "out")
    assert "unpacks to more than 67108864 bytes" in message and "4 times the archive's" in message
    assert list((tmp_path / "out").iterdir()) == []


def test_the_absolute_size_and_entry_caps(tmp_path: Path):
    path = archive(tmp_path, CONFIG, ("model/model.safetensors", b"w" * 50_000))  # plain tar: no expansion
    with override_settings(WEIGHTS_MAX_BYTES=20_000):
        assert "unpacks to more than 20000 bytes" in refused(path, tmp_path / "a")
    many = archive(tmp_path, *[(f"model/f{i}", b"") for i in range(6)])
    with override_settings(WEIGHTS_MAX_ENTRIES=5):
        assert "more than 5 entries" in refused(many, tmp_path / "b")


def test_a_file_that_is_not_a_tar_archive(tmp_path: Path):
    path = tmp_path / "weights.tar"
    path.write_bytes(b"PK\x03\x04 this is a zip")
    assert "cannot be read as tar" in refused(path, tmp_path / "out")
