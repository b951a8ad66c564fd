"""The votes as the released dataset (JSONL or Parquet, voters hashed): written to a file by
``export_arena`` and served by the leaderboard page's download links."""
from __future__ import annotations

import tempfile
from pathlib import Path

from django.http import FileResponse

from leaderboard.arena import selectors

FORMATS = ("jsonl", "parquet")


def export_to(path: Path, fmt: str) -> int:
    """Write every voted battle to ``path``; returns the number of rows."""
    from evaluators.arena import dataset

    if fmt not in FORMATS:
        raise ValueError(f"format: use one of {', '.join(FORMATS)}, not {fmt!r}")
    rows = list(selectors.released_rows())
    writer = dataset.write_jsonl if fmt == "jsonl" else dataset.write_parquet
    writer(rows, path)
    return len(rows)


def download_response(fmt: str) -> FileResponse:
    handle = tempfile.NamedTemporaryFile(suffix=f".{fmt}")
    export_to(Path(handle.name), fmt)
    handle.seek(0)
    content_type = "application/x-ndjson" if fmt == "jsonl" else "application/vnd.apache.parquet"
    return FileResponse(handle, as_attachment=True, filename=f"search-arena-votes.{fmt}", content_type=content_type)
