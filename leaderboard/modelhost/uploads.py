"""Resumable weight uploads and the worker's local cache of them.

An upload is a **tar archive of the model directory** (config.json, tokenizer files, *.safetensors;
plain or gzip-compressed; the files at the archive's root or inside one top-level directory), sent
in numbered parts of ``UPLOAD_PART_BYTES`` (parts count from 1; each is that size except the last).
One interface, :class:`PartStore`, over two back ends: S3's multipart upload when S3 is configured
(re-sending a part number replaces it, as S3 does), a local file under the media root otherwise
(each part written at its offset). The worker fetches a completed archive into
``$LEADERBOARD_VAR_DIR/model-cache/<sha256>/``, verifies its sha256, extracts it safely (no absolute
paths, no ``..``, no links, devices or fifos, and no more than ``WEIGHTS_MAX_BYTES`` /
``WEIGHTS_MAX_EXPANSION`` times the archive / ``WEIGHTS_MAX_ENTRIES`` files: no decompression bomb)
and renames it into place atomically, so a cache entry is either complete or absent and is reused by
every later job.

Faults are told apart: the submitter's (a checksum mismatch, a bad or hostile archive, the archive no
longer in storage) raise ModelError("model_load"); the site's (storage unreachable, the disk full)
raise :class:`StorageUnavailable`, an InfrastructureError, so the work is retried, not blamed on the model.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import tarfile
import tempfile
from pathlib import Path
from typing import Protocol

from django.conf import settings

from evaluators.core.types import InfrastructureError
from evaluators.llm.types import ModelError

CHUNK = 1024 * 1024
#: a small archive (configs and tokenizer files compress well) may always unpack to this much
EXPANSION_FLOOR = 64 * 1024 * 1024


class StorageUnavailable(InfrastructureError):
    """The weights cannot be fetched or unpacked for a reason of the site's (S3 unreachable or
    refusing, the worker's disk full): try again later; it says nothing about the model."""


def _missing(key: str) -> ModelError:
    return ModelError(
        "model_load",
        f"uploaded weights: the archive is no longer in storage (key {key!r}); "
        "upload the weights again and register the model with the new upload",
    )


class PartStore(Protocol):
    def begin(self, key: str) -> str:
        """Start an upload at ``key``; returns the back end's upload id ('' for local files)."""

    def put_part(self, key: str, upload_id: str, number: int, offset: int, data: bytes) -> str:
        """Store part ``number`` (replacing an earlier one); returns its etag."""

    def complete(self, key: str, upload_id: str, parts: list[tuple[int, str]], size: int) -> None:
        """Join the parts [(number, etag)] into the object at ``key``."""

    def download(self, key: str, destination: Path) -> None:
        """Copy the completed object to a local file."""


class S3PartStore:
    """S3 (or any S3-protocol server, moto's in the tests) through boto3's multipart upload."""

    def __init__(self) -> None:
        import boto3
        from botocore.config import Config

        options = settings.STORAGES["default"]["OPTIONS"]
        self.bucket = options["bucket_name"]
        self.client = boto3.client(
            "s3",
            endpoint_url=options.get("endpoint_url"),
            region_name=options.get("region_name"),
            aws_access_key_id=options.get("access_key"),
            aws_secret_access_key=options.get("secret_key"),
            config=Config(connect_timeout=10, read_timeout=120, retries={"max_attempts": 3, "mode": "standard"}),
        )

    def begin(self, key: str) -> str:
        return self.client.create_multipart_upload(Bucket=self.bucket, Key=key)["UploadId"]

    def put_part(self, key: str, upload_id: str, number: int, offset: int, data: bytes) -> str:
        return self.client.upload_part(Bucket=self.bucket, Key=key, UploadId=upload_id, PartNumber=number, Body=data)[
            "ETag"
        ]

    def complete(self, key: str, upload_id: str, parts: list[tuple[int, str]], size: int) -> None:
        self.client.complete_multipart_upload(
            Bucket=self.bucket,
            Key=key,
            UploadId=upload_id,
            MultipartUpload={"Parts": [{"PartNumber": number, "ETag": etag} for number, etag in parts]},
        )

    def download(self, key: str, destination: Path) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self.client.download_file(self.bucket, key, str(destination))
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in ("404", "NoSuchKey", "NotFound"):
                raise _missing(key) from None
            raise StorageUnavailable(f"S3 refused to send the uploaded weights ({code or 'error'}: {exc})") from exc
        except BotoCoreError as exc:
            raise StorageUnavailable(f"S3 cannot be reached to fetch the uploaded weights: {exc}") from exc


class LocalPartStore:
    """The embedded default: one file under the media root, each part written at its offset."""

    def _path(self, key: str) -> Path:
        return Path(settings.MEDIA_ROOT) / key

    def begin(self, key: str) -> str:
        partial = self._path(key + ".partial")
        partial.parent.mkdir(parents=True, exist_ok=True)
        partial.touch()
        return ""

    def put_part(self, key: str, upload_id: str, number: int, offset: int, data: bytes) -> str:
        with self._path(key + ".partial").open("r+b") as handle:
            handle.seek(offset)
            handle.write(data)
        return hashlib.md5(data, usedforsecurity=False).hexdigest()

    def complete(self, key: str, upload_id: str, parts: list[tuple[int, str]], size: int) -> None:
        partial = self._path(key + ".partial")
        with partial.open("r+b") as handle:
            handle.truncate(size)
        partial.replace(self._path(key))

    def download(self, key: str, destination: Path) -> None:
        try:
            shutil.copyfile(self._path(key), destination)
        except FileNotFoundError:
            raise _missing(key) from None


def part_store() -> PartStore:
    return S3PartStore() if settings.S3_BUCKET else LocalPartStore()


# --- the worker's cache ----------------------------------------------------------------------


def cache_root() -> Path:
    return Path(settings.VAR_DIR) / "model-cache"


def fetch_weights(*, storage_key: str, sha256: str, store: PartStore | None = None) -> Path:
    """The model directory of a completed upload, from the local cache or fetched, verified and
    extracted into it. Raises ModelError("model_load") for a checksum mismatch or a bad archive."""
    target = cache_root() / sha256
    if target.is_dir():
        return model_dir_in(target)
    cache_root().mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_root(), prefix=".fetch-") as tmp:
        archive = Path(tmp) / "weights.tar"
        (store or part_store()).download(storage_key, archive)
        digest = hashlib.sha256()
        with archive.open("rb") as handle:
            while block := handle.read(CHUNK):
                digest.update(block)
        if digest.hexdigest() != sha256:
            raise ModelError(
                "model_load",
                f"uploaded weights: checksum mismatch: the archive's sha256 is {digest.hexdigest()}, "
                f"but the upload declared {sha256}; upload the archive again",
            )
        extracted = Path(tmp) / "model"
        extract_safely(archive, extracted)
        try:
            os.rename(extracted, target)  # atomic; another worker may have won the race
        except OSError:
            if not target.is_dir():
                raise
    return model_dir_in(target)


def extract_safely(archive: Path, destination: Path) -> None:
    """Extract regular files and directories only, refusing absolute paths, '..', links, devices and
    fifos, and an archive that would unpack to more than the settings allow. Every header is checked
    before anything is written."""
    destination.mkdir(parents=True)
    limit = min(
        settings.WEIGHTS_MAX_BYTES, max(int(archive.stat().st_size * settings.WEIGHTS_MAX_EXPANSION), EXPANSION_FLOOR)
    )
    try:
        with tarfile.open(archive, "r:*") as tar:
            members: list[tarfile.TarInfo] = []
            total = 0
            for member in tar:  # headers only: tarfile skips the file data it does not extract
                _check_member(member)
                members.append(member)
                total += member.size if member.isfile() else 0
                if len(members) > settings.WEIGHTS_MAX_ENTRIES:
                    raise ModelError(
                        "model_load",
                        f"uploaded weights: the archive has more than {settings.WEIGHTS_MAX_ENTRIES} "
                        "entries; a model directory has a few dozen files",
                    )
                if total > limit:
                    raise ModelError(
                        "model_load",
                        f"uploaded weights: the archive unpacks to more than {limit} bytes (at most "
                        f"{settings.WEIGHTS_MAX_EXPANSION:g} times the archive's {archive.stat().st_size} bytes or 64 "
                        f"MiB, "
                        f"and at most {settings.WEIGHTS_MAX_BYTES} bytes); upload it uncompressed",
                    )
            tar.extractall(destination, members=members, filter="data")
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise StorageUnavailable(f"the worker's disk is full while unpacking the uploaded weights: {exc}") from exc
        raise ModelError("model_load", f"uploaded weights: the archive cannot be read as tar: {exc}") from None
    except (tarfile.TarError, EOFError) as exc:
        raise ModelError("model_load", f"uploaded weights: the archive cannot be read as tar: {exc}") from None


def _check_member(member: tarfile.TarInfo) -> None:
    name = member.name
    parts = Path(name).parts
    if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
        raise ModelError(
            "model_load", f"uploaded weights: the archive entry {name!r} points outside the model directory"
        )
    if not (member.isfile() or member.isdir()):
        raise ModelError(
            "model_load",
            f"uploaded weights: the archive entry {name!r} is a link or special file; "
            "only regular files and directories are accepted",
        )


def model_dir_in(root: Path) -> Path:
    """The archive's root, or its single top-level directory when everything is inside one."""
    entries = [p for p in root.iterdir() if not p.name.startswith(".")]
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return root
