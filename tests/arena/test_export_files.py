"""The vote downloads the ratings task writes (``exports.files_write``) are streamed: the rows are read
once, a chunk at a time, into the JSON lines files, and each Parquet file is written from its JSON
lines a row group at a time. The files are byte for byte those written from every row held at once
(``write_jsonl`` of the list, pyarrow's ``write_table`` of one table), and exporting twice the votes
holds no more memory."""

from __future__ import annotations

import io
import tracemalloc

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.files.storage import default_storage

from evaluators.arena import dataset
from leaderboard.arena import exports, selectors

BOARDS = [("", ""), ("intent", "Guidance"), ("intent", "Analysis"), ("language", "en"), ("language", "de")]


def seed_boards(seed_votes, per_board: int, *, tag: str = "", prompt_bytes: int = 0) -> None:
    """``per_board`` voted battles for Guidance/en and Analysis/de each, prompts of varying length
    (``prompt_bytes`` more)."""
    for intent, language, voter in (("Guidance", "en", "g"), ("Analysis", "de", "a")):
        seed_votes(
            [
                (
                    f"{voter}{tag}{i % 7}",
                    "Alpha-Strong",
                    "Beta-Middle",
                    ("model_a", "model_b", "tie")[i % 3],
                    f"{tag} prompt {i} " + "x" * (prompt_bytes + i % 13),
                )
                for i in range(per_board)
            ],
            intent=intent,
            languages=(language,),
        )


def written(fingerprint: str, fmt: str, key: str, value: str) -> bytes:
    with default_storage.open(exports.storage_name(fingerprint, fmt, key, value), "rb") as handle:
        return bytes(handle.read())


def whole(rows: list[dict], fmt: str) -> bytes:
    """The file as written before, from every row at once: JSON lines, or one pyarrow table."""
    if fmt == "jsonl":
        return "".join(dataset.jsonl_line(row, n) for n, row in enumerate(rows, start=1)).encode("utf-8")
    sink = io.BytesIO()
    schema = dataset._parquet_schema()
    pq.write_table(
        pa.Table.from_pylist(
            [dataset._to_parquet(dataset.validate_row(row, n)) for n, row in enumerate(rows, start=1)], schema=schema
        ),
        sink,
    )
    return sink.getvalue()


@pytest.mark.django_db
def test_the_streamed_files_are_those_written_from_every_row_at_once(seed_votes, monkeypatch):
    seed_boards(seed_votes, 7)
    rows = list(selectors.released_rows())
    assert len(rows) == 14
    assert exports.files_write("f" * 40) == 2 * len(BOARDS)
    for key, value in BOARDS:
        subset = [row for row in rows if not key or (key, value) in exports.row_filters(row)]
        assert len(subset) == (14 if not key else 7)
        for fmt in exports.FORMATS:
            assert written("f" * 40, fmt, key, value) == whole(subset, fmt), (fmt, key, value)

    # more rows than a row group: several row groups, the same rows read back
    monkeypatch.setattr(dataset, "PARQUET_ROWS", 3)
    assert exports.files_write("e" * 40) == 2 * len(BOARDS)
    with default_storage.open(exports.storage_name("e" * 40, "parquet"), "rb") as handle:
        parquet = pq.ParquetFile(io.BytesIO(handle.read()))
    assert parquet.metadata.num_row_groups == 5 and parquet.metadata.num_rows == 14  # 3+3+3+3+2
    assert written("e" * 40, "jsonl", "", "") == written("f" * 40, "jsonl", "", "")
    assert parquet.read().to_pylist() == pq.read_table(io.BytesIO(written("f" * 40, "parquet", "", ""))).to_pylist()


def export_peak(fingerprint: str) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        assert exports.files_write(fingerprint) == 2 * len(BOARDS)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.django_db
def test_exporting_twice_the_votes_holds_no_more_memory(seed_votes, monkeypatch, settings, tmp_path):
    # row groups of 100 rows: both sizes span several, as a real release spans many of PARQUET_ROWS
    monkeypatch.setattr(dataset, "PARQUET_ROWS", 100)
    # files kept on disk: the S3 client's multipart upload holds a varying number of 8 MB parts in its
    # threads, which is the storage's memory, not the export's
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(tmp_path / "storage")},
        },
    }
    seed_boards(seed_votes, 600, prompt_bytes=20_000)
    small = export_peak("a" * 40)
    seed_boards(seed_votes, 600, tag="b", prompt_bytes=20_000)
    large = export_peak("b" * 40)
    assert len(written("b" * 40, "jsonl", "", "").splitlines()) == 2400
    # every row held at once (as before: the rows with their 20 kB prompts, their filter groups and the
    # Parquet records) is 24 MB more at 2,400 battles; a chunk of the database's rows (500 battles) and
    # a row group are the same at both sizes
    print(f"export peaks: {small} bytes at 1,200 battles, {large} at 2,400")
    assert large < small + 8_000_000, (small, large)
