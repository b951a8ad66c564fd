"""The bytes of a snapshot's downloads, made once when it is frozen: CSV (one line per row, four cells
per column: value, ci_low, ci_high, n), JSON (the header, columns and rows, keys sorted) and Parquet
(the CSV's table, when pyarrow is installed). The same input always gives the same bytes. A snapshot with
withheld rows is served as a redacted rendering (``redacted``): the stored JSON's header and columns, without
those rows, and the note saying what was withheld."""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import io
import json
from typing import Any

from leaderboard.spreadsheet import spreadsheet_safe

#: the cells of each row before its values, in the CSV and Parquet files
ROW_FIELDS = (
    "rank",
    "model",
    "model_slug",
    "run",
    "dataset_version",
    "dataset_sha256",
    "evaluator_version",
    "judge",
    "judge_prompt_version",
    "unranked_reason",
)
PARTS = ("value", "ci_low", "ci_high", "n")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def value_columns(columns: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[str]:
    """The board's column ids, then every other slice the rows have values for, sorted."""
    shown = [c["id"] for c in columns]
    extra = sorted({cid for row in rows for cid in row["values"]} - set(shown))
    return shown + extra


def table(columns: list[dict[str, Any]], rows: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    """The flat table the CSV and Parquet files hold: a header and one line per row."""
    ids = value_columns(columns, rows)
    header = list(ROW_FIELDS) + [f"{cid}:{part}" if part != "value" else cid for cid in ids for part in PARTS]
    lines = []
    for row in rows:
        cells = [row["values"].get(cid) or [None, None, None, None] for cid in ids]
        lines.append([row[f] for f in ROW_FIELDS] + [cell[i] for cell in cells for i in range(len(PARTS))])
    return header, lines


def render(header: dict[str, Any], columns: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, bytes]:
    """{"csv": ..., "json": ..., "parquet": ... (when pyarrow is installed)}."""
    names, lines = table(columns, rows)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(names)
    writer.writerows([[spreadsheet_safe(cell) for cell in line] for line in lines])
    files = {
        "csv": text.getvalue().encode(),
        "json": json.dumps(
            {**header, "columns": columns, "rows": rows}, sort_keys=True, indent=1, ensure_ascii=False
        ).encode(),
    }
    if importlib.util.find_spec("pyarrow") is not None:
        files["parquet"] = _parquet(names, lines)
    return files


def _parquet(names: list[str], lines: list[list[Any]]) -> bytes:
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    columns = {name: [line[i] for line in lines] for i, name in enumerate(names)}
    typed = {
        name: pa.array(values, type=pa.string() if name in ROW_FIELDS and name not in ("rank", "run") else None)
        for name, values in columns.items()
    }
    out = io.BytesIO()
    pq.write_table(pa.table(typed), out)
    return out.getvalue()


def redacted(
    stored_json: bytes, run_ids: frozenset[int], notes: list[str], stored_sha256: dict[str, str]
) -> dict[str, bytes]:
    """The downloads again from the stored JSON file, without the rows of these runs; the JSON file also
    says what was withheld (``withheld``: the public notes) and the sha256 of each stored file
    (``stored_sha256``), which stay on the snapshot as frozen."""
    frozen = json.loads(stored_json)
    header = {key: value for key, value in frozen.items() if key not in ("columns", "rows")}
    rows = [row for row in frozen["rows"] if row["run"] not in run_ids]
    return render({**header, "withheld": notes, "stored_sha256": stored_sha256}, frozen["columns"], rows)
