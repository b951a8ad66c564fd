"""The votes as the released dataset (JSONL or Parquet, voters hashed): written to a file by
``export_arena``, and written once per ratings fingerprint by the ratings task (``files_write``) to
the default storage, one file per format for all votes and one per intent and language filter of
the leaderboard. The download links serve those files: an anonymous GET never rebuilds the dataset.

A filtered download holds the voted battles behind that board (its intent, or its first prompt's
language), counted or not (each row says which, under ``arena.valid``), as the unfiltered one does. The
downloads hold the battles the public figures count (``selectors.public_cut``: voted before the cut, no
pre-release variant under test), so a board's counts follow from its download and a fresh vote is in
neither until the cut passes it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import tempfile
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from django.core.files import File
from django.core.files.storage import default_storage
from django.http import FileResponse

from leaderboard.arena import selectors

FORMATS = ("jsonl", "parquet")
FILTER_KEYS = ("intent", "language")
CONTENT_TYPES = {"jsonl": "application/x-ndjson", "parquet": "application/vnd.apache.parquet"}
_PREFIX = "arena/votes"
_SAFE = re.compile(r"[A-Za-z0-9_-]{1,60}")


class NoExport(LookupError):
    """No export file has been written for this download yet (no ratings computed yet)."""


def export_to(path: Path, fmt: str, rows: Iterable[dict[str, Any]] | None = None) -> int:
    """Write every voted battle (or ``rows``) to ``path``, a row at a time; returns the number of rows."""
    from evaluators.arena import dataset

    if fmt not in FORMATS:
        raise ValueError(f"format: use one of {', '.join(FORMATS)}, not {fmt!r}")
    writer = dataset.write_jsonl if fmt == "jsonl" else dataset.write_parquet
    return writer(selectors.released_rows() if rows is None else rows, path)


def row_filters(row: dict[str, Any]) -> list[tuple[str, str]]:
    """The leaderboard filters a released row belongs to (as ratings_compute groups votes)."""
    found = []
    if row.get("primary_intent"):
        found.append(("intent", str(row["primary_intent"])))
    language = (row.get("languages") or [""])[0]
    if language:
        found.append(("language", str(language)))
    return found


def storage_name(fingerprint: str, fmt: str, filter_key: str = "", filter_value: str = "") -> str:
    """Where the export for one ratings fingerprint, format and filter lives in the default storage."""
    if not filter_key:
        label = "all"
    else:
        value = (
            filter_value if _SAFE.fullmatch(filter_value) else hashlib.sha256(filter_value.encode()).hexdigest()[:32]
        )
        label = f"{filter_key}-{value}"
    return f"{_PREFIX}/{fingerprint[:32]}/{label}.{fmt}"


def files_write(fingerprint: str, *, overwrite: bool = False, cut: dt.datetime | None = None) -> int:
    """Write the export files for ``fingerprint`` (all votes, and each intent and language), unless
    they are there already. Returns the number of files written. ``cut``: the public cut the ratings of
    ``fingerprint`` were computed under (``selectors.public_cut``; now's when not given): the files hold
    the same votes as those ratings, no newer one.

    The rows are read once, a chunk at a time, each written as it is read to the JSON lines file of all
    votes and to those of its filters; each Parquet file is then written from its JSON lines file, a
    row group at a time. No more than a chunk of rows is ever in memory."""
    from evaluators.arena import dataset

    if not overwrite and default_storage.exists(storage_name(fingerprint, FORMATS[-1])):
        return 0  # the unfiltered Parquet file is written last: when it is there, all are
    with tempfile.TemporaryDirectory(prefix="arena-export-") as folder:
        lines = _jsonl_by_board(Path(folder), selectors.public_cut() if cut is None else cut)
        # the unfiltered file last: the unfiltered Parquet file, written last of all, marks a complete set
        boards = sorted(lines, key=lambda board: board == ("", ""))
        written = 0
        for fmt in FORMATS:
            for board in boards:
                path = lines[board]
                if fmt == "parquet":
                    path = path.with_suffix(".parquet")
                    dataset.write_parquet(dataset.read_rows(lines[board]), path)
                name = storage_name(fingerprint, fmt, *board)
                if default_storage.exists(name):
                    default_storage.delete(name)
                with path.open("rb") as data:
                    default_storage.save(name, File(data, name=Path(name).name))
                written += 1
    return written


def _jsonl_by_board(folder: Path, cut: dt.datetime) -> dict[tuple[str, str], Path]:
    """Every released row public at ``cut`` as a JSON line in ``folder``: in the file of all votes (the
    board ("", ""), first) and in the file of each intent and language it belongs to (in the order first met)."""
    from evaluators.arena import dataset

    paths: dict[tuple[str, str], Path] = {}
    with ExitStack() as stack:
        handles: dict[tuple[str, str], IO[str]] = {}

        def handle(board: tuple[str, str]) -> IO[str]:
            if board not in handles:
                paths[board] = folder / f"{len(paths)}.jsonl"
                handles[board] = stack.enter_context(paths[board].open("w", encoding="utf-8"))
            return handles[board]

        handle(("", ""))
        for number, row in enumerate(selectors.released_rows(cut=cut), start=1):
            line = dataset.jsonl_line(row, number)
            for board in [("", ""), *row_filters(row)]:
                handle(board).write(line)
    return paths


def files_prune(*, keep: Iterable[str]) -> int:
    """Delete the export files of every fingerprint but ``keep``; returns how many were deleted."""
    kept = {fingerprint[:32] for fingerprint in keep if fingerprint}
    try:
        folders, _ = default_storage.listdir(_PREFIX)
    except FileNotFoundError:
        return 0
    deleted = 0
    for folder in folders:
        if folder in kept:
            continue
        for name in default_storage.listdir(f"{_PREFIX}/{folder}")[1]:
            default_storage.delete(f"{_PREFIX}/{folder}/{name}")
            deleted += 1
    return deleted


def download_response(fmt: str, *, filter_key: str = "", filter_value: str = "") -> FileResponse:
    """The export file behind the latest ratings (for one filter, or all votes). Raises NoExport
    when none has been written yet."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt: use one of {', '.join(FORMATS)}")
    fingerprint = selectors.latest_fingerprint()
    if filter_key not in ("", *FILTER_KEYS):
        raise ValueError(f"filter: use one of {', '.join(FILTER_KEYS)}")
    name = storage_name(fingerprint, fmt, filter_key, filter_value) if fingerprint else ""
    if not name or not default_storage.exists(name):
        raise NoExport(
            "no votes to download yet"
            + (f" for this {filter_key}" if filter_key else "")
            + ": the download is written with the ratings, a few seconds after the votes"
        )
    label = (
        f"-{filter_key}-{filter_value}"
        if filter_key and _SAFE.fullmatch(filter_value)
        else (f"-{filter_key}" if filter_key else "")
    )
    return FileResponse(
        default_storage.open(name, "rb"),
        as_attachment=True,
        filename=f"search-arena-votes{label}.{fmt}",
        content_type=CONTENT_TYPES[fmt],
    )
