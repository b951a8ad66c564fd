"""Reading a release's records from Parquet or JSON Lines files, one file or a directory of them, in
bounded batches (a release of thousands of images never sits in memory at once).

Hugging Face datasets store an image column as a struct ``{bytes, path}``: :func:`image_bytes` takes
that, a bare path, or raw bytes, and names the file, the row and the column when there is no image.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.types import DatasetError

#: the files a release directory is read from
RECORD_SUFFIXES = (".parquet", ".jsonl")
#: rows read from a Parquet file at a time
BATCH_ROWS = 32


@dataclass(frozen=True)
class Record:
    """One row of a release file: where it is (for errors) and its columns."""

    source: Path
    row: int  # 1-based, as people count
    data: dict[str, Any]

    def where(self, column: str | None = None) -> str:
        place = f"{self.source.name} row {self.row}"
        return f"{place}, column '{column}'" if column else place

    def text(self, column: str, *, required: bool = True) -> str:
        """A text column, stripped; a DatasetError naming the row and column if it is missing or not text."""
        value = self.data.get(column)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise DatasetError(f"{self.where(column)}: missing or empty")
            return ""
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise DatasetError(f"{self.where(column)}: expected text, found {type(value).__name__}")
        return str(value).strip()


def record_files(path: Path) -> list[Path]:
    """``path`` itself, or the Parquet and JSON Lines files under it (sorted, hidden ones skipped)."""
    path = Path(path)
    if path.is_file():
        if path.suffix not in RECORD_SUFFIXES:
            raise DatasetError(f"{path.name}: expected a {' or '.join(RECORD_SUFFIXES)} file")
        return [path]
    if not path.is_dir():
        raise DatasetError(f"{path}: no such file or directory")
    return sorted(
        p
        for p in path.rglob("*")
        if p.suffix in RECORD_SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(path).parts)
    )


def iter_records(path: Path) -> Iterator[Record]:
    """Every row of one Parquet or JSON Lines file, in order, read a batch at a time."""
    path = Path(path)
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            parquet = pq.ParquetFile(path)
            row = 0
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS):
                for data in batch.to_pylist():
                    row += 1
                    yield Record(path, row, data)
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise DatasetError(f"{path.name}: not a readable Parquet file ({exc})") from None
        return
    with open(path, encoding="utf-8-sig") as handle:
        for row, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path.name} row {row}: not JSON ({exc.msg})") from None
            if not isinstance(data, dict):
                raise DatasetError(f"{path.name} row {row}: expected a JSON object")
            yield Record(path, row, data)


def image_bytes(record: Record, column: str) -> bytes:
    """The image of ``column``: a Hugging Face ``{bytes, path}`` struct (the bytes, or else the file at
    ``path`` beside the record's file), a path, or raw bytes."""
    value = record.data.get(column)
    if isinstance(value, dict):
        if value.get("bytes"):
            return bytes(value["bytes"])
        value = value.get("path")
    if isinstance(value, (bytes, bytearray)) and value:
        return bytes(value)
    if isinstance(value, str) and value.strip():
        base = record.source.parent.resolve()
        target = (base / value).resolve()
        if not target.is_relative_to(base):
            raise DatasetError(f"{record.where(column)}: the image path {value!r} leads outside the release")
        try:
            return target.read_bytes()
        except OSError as exc:
            raise DatasetError(f"{record.where(column)}: cannot read the image {value!r} ({exc.strerror})") from None
    raise DatasetError(f"{record.where(column)}: no image (expected {{bytes, path}}, a path, or bytes)")
